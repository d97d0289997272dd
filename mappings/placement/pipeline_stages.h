#pragma once
// Pipeline stages (MODEL.md section 5): p stages, each one block of tiles that a run of consecutive layers
// shares, time-multiplexed. The placement strategy lays out the p stage blocks; the layers of a stage then
// all use their stage's block: the same tiles, in the same orientation. Each tile holds a slice of every
// layer of its stage, and computes them one at a time (the engine's tile is busy with one computation at
// a time when machine.flops_per_cycle > 0). p = L is the fully spatial mapping, one block per layer.
//
// Usage:
//   const Placement stages = strategy.place(std::vector<BlockShape>(p, shape));
//   const Placement placement = share_stages(stages, layers);   // placement.blocks[l]: layer l's block
//   stage_of_layer(l, layers, p);

#include <cstdint>

#include "mappings/placement/i_placement.h"

namespace spatialsim::mappings {

// The stage that holds `layer`, for `layers` layers on `stages` stages: contiguous runs whose lengths differ
// by at most one, the longer runs first (as mappings::split deals out the elements of a dimension).
// Precondition: 1 <= stages <= layers, layer < layers.
std::uint32_t stage_of_layer(std::uint32_t layer, std::uint32_t layers, std::uint32_t stages);

// The placement of `layers` layers on the stage blocks of `stage_placement` (one block per stage, the
// stages in order): layer l gets the block of stage_of_layer(l). Keeps the grid extent; records the stage
// count in Placement::stages. Throws std::invalid_argument if there are more stages than layers.
Placement share_stages(const Placement& stage_placement, std::uint32_t layers);

}  // namespace spatialsim::mappings
