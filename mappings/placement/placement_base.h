#pragma once
// What every placement does last, shared by the implementations in impl/ (placement_base.cpp).
//
// Usage (in a PlacementStrategy::place):
//   std::vector<BlockLayout> blocks = ...;   // one per layer, in any coordinates
//   return finish_placement(std::move(blocks));

#include <vector>

#include "mappings/block_layout.h"
#include "mappings/placement/i_placement.h"

namespace spatialsim::mappings {

// Shifts blocks so that the bounding box starts at (0, 0), sets width and height, and throws
// std::logic_error if two blocks share a tile.
Placement finish_placement(std::vector<BlockLayout> blocks);

}  // namespace spatialsim::mappings
