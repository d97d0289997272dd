#pragma once
// A placement assigns each layer of a network a block of tiles on the grid (MODEL.md section 5).
// Implementations live in impl/, one file each, registered by config name (`mapping.placement`).
//
// Usage:
//   auto strategy = PlacementRegistry::create("zigzag", config);
//   Placement p = strategy->place({{4, 4}, {4, 4}, {4, 2}});
//   p.width, p.height;  p.blocks[l].lane_entry(i);

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "mappings/block_layout.h"
#include "sim/registry.h"

namespace spatialsim::mappings {

struct BlockShape {
  std::uint32_t rows = 1;  // r
  std::uint32_t cols = 1;  // c
};

struct Placement {
  std::vector<BlockLayout> blocks;  // one per layer, in layer order
  std::uint32_t width = 0;          // bounding box of all blocks: the smallest grid that holds them
  std::uint32_t height = 0;
  // Distinct blocks: 0 when every layer has its own (a strategy's place()); p when the layers share the
  // blocks of p pipeline stages (share_stages, pipeline_stages.h).
  std::uint32_t stages = 0;
};

class PlacementStrategy {
 public:
  static constexpr std::string_view kRegistryHeading = "placements (mapping.placement)";
  virtual ~PlacementStrategy() = default;
  // Contract: one block per shape, blocks do not overlap, all coordinates are >= 0, and the bounding box
  // starts at (0, 0). (Layers share blocks only through share_stages, which places their stages.)
  virtual Placement place(const std::vector<BlockShape>& shapes) const = 0;
};

using PlacementRegistry = sim::Registry<PlacementStrategy>;

}  // namespace spatialsim::mappings
