#pragma once
// What the placements in impl/ share (placement_base.cpp): the tiles the blocks placed so far hold, and
// what every placement does last.
//
// Usage (in a PlacementStrategy::place):
//   OccupiedTiles occupied;  if (occupied.overlaps(b)) ...;  occupied.add(b);
//   std::vector<BlockLayout> blocks = ...;   // one per layer, in any coordinates
//   return finish_placement(std::move(blocks));

#include <cstdint>
#include <unordered_set>
#include <vector>

#include "mappings/block_layout.h"
#include "mappings/placement/i_placement.h"

namespace spatialsim::mappings {

// The tiles the blocks placed so far hold. Looking a new block's tiles up here costs its own size, where
// comparing it with every earlier block cost the depth: 100000 layers took a minute to place.
class OccupiedTiles {
 public:
  void add(const BlockLayout& b) {
    for_each_tile(b, [&](std::uint64_t key) {
      m_tiles.insert(key);
      return false;
    });
  }
  bool overlaps(const BlockLayout& b) const {
    return for_each_tile(b, [&](std::uint64_t key) { return m_tiles.contains(key); });
  }

 private:
  // Calls fn(key) for each tile of b until it returns true; returns whether it did.
  template <typename Fn>
  static bool for_each_tile(const BlockLayout& b, Fn&& fn) {
    for (std::uint32_t i = 0; i < b.rows; ++i)
      for (std::uint32_t j = 0; j < b.cols; ++j) {
        const sim::Coord c = b.coord(i, j);  // may be negative before finish_placement shifts the blocks
        if (fn((static_cast<std::uint64_t>(static_cast<std::uint32_t>(c.y)) << 32) |
               static_cast<std::uint32_t>(c.x)))
          return true;
      }
    return false;
  }
  std::unordered_set<std::uint64_t> m_tiles;
};

// Shifts blocks so that the bounding box starts at (0, 0), sets width and height, and throws
// std::logic_error if two blocks share a tile.
Placement finish_placement(std::vector<BlockLayout> blocks);

}  // namespace spatialsim::mappings
