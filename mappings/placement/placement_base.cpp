#include <algorithm>
#include <limits>
#include <stdexcept>
#include <unordered_set>

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
  std::unordered_set<std::uint64_t> used;
  for (std::size_t l = 0; l < blocks.size(); ++l) {
    for (std::uint32_t i = 0; i < blocks[l].rows; ++i) {
      for (std::uint32_t j = 0; j < blocks[l].cols; ++j) {
        const sim::Coord c = blocks[l].coord(i, j);
        const std::uint64_t key = (static_cast<std::uint64_t>(c.y) << 32) | static_cast<std::uint32_t>(c.x);
        if (!used.insert(key).second)
          throw std::logic_error("placement: block of layer " + std::to_string(l) + " overlaps another");
      }
    }
  }
  out.blocks = std::move(blocks);
  return out;
}

}  // namespace spatialsim::mappings
