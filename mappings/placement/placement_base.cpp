#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

#include "mappings/placement/placement_base.h"

namespace spatialsim::mappings {

Placement finish_placement(std::vector<BlockLayout> blocks) {
  std::int32_t min_x = std::numeric_limits<std::int32_t>::max();
  std::int32_t min_y = min_x;
  for (const auto& b : blocks) {
    min_x = std::min(min_x, b.min_corner().x);
    min_y = std::min(min_y, b.min_corner().y);
  }
  Placement out;
  for (auto& b : blocks) {
    b.anchor.x -= min_x;
    b.anchor.y -= min_y;
    out.width = std::max(out.width, static_cast<std::uint32_t>(b.max_corner().x + 1));
    out.height = std::max(out.height, static_cast<std::uint32_t>(b.max_corner().y + 1));
  }
  OccupiedTiles occupied;
  for (std::size_t l = 0; l < blocks.size(); ++l) {
    if (occupied.overlaps(blocks[l]))
      throw std::logic_error("placement: block of layer " + std::to_string(l) + " overlaps another");
    occupied.add(blocks[l]);
  }
  out.blocks = std::move(blocks);
  return out;
}

}  // namespace spatialsim::mappings
