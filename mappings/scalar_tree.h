#pragma once
// A spanning tree over a set of tiles, for reducing a few scalars to one tile and broadcasting them back
// (the forward-gradient d_k, docs/forward-gradients.md). Each member's parent is, of the members on its
// shortest paths from the root over the grid's links (a torus's wrap-around links too), the one farthest
// from the root; on a tie, the one a breadth-first search from the root reaches first (neighbours tried in
// the order +x, -x, +y, -y), so the tree, and every count over it, is the same on every run. So a member's
// tree path from the root is as long as its shortest route (the tree's depth in hops is the members' largest
// distance from the root), and a member next to a member one hop nearer the root hangs from it by a one-hop
// edge.
//
// Usage:
//   const ScalarTree tree = build_scalar_tree(grid, root, {a, b, c});
//   tree.members[0] == root;  tree.parent[k];  tree.children[k];  tree.index_of(b);

#include <cstdint>
#include <vector>

#include "sim/grid.h"

namespace spatialsim::mappings {

struct ScalarTree {
  std::vector<sim::TileId> members;                  // members[0] is the root
  std::vector<std::int32_t> parent;                  // index into members; -1 for the root
  std::vector<std::vector<std::uint32_t>> children;  // indices into members
  std::vector<std::uint32_t> hops_from_root;         // along the tree

  // Contract: `tile` is a member, else std::out_of_range.
  std::uint32_t index_of(sim::TileId tile) const;
  std::uint32_t depth_hops() const;  // the largest hops_from_root
};

// Contract: `members` are tiles of `grid` (duplicates are merged); `root` is added if absent.
ScalarTree build_scalar_tree(const sim::Grid& grid, sim::TileId root,
                             const std::vector<sim::TileId>& members);

}  // namespace spatialsim::mappings
