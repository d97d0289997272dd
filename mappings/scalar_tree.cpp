#include "mappings/scalar_tree.h"

#include <algorithm>
#include <deque>
#include <stdexcept>

namespace spatialsim::mappings {

std::uint32_t ScalarTree::index_of(sim::TileId tile) const {
  const auto it = std::find(members.begin(), members.end(), tile);
  if (it == members.end()) throw std::out_of_range("scalar tree: tile is not a member");
  return static_cast<std::uint32_t>(it - members.begin());
}

std::uint32_t ScalarTree::depth_hops() const {
  return hops_from_root.empty() ? 0 : *std::max_element(hops_from_root.begin(), hops_from_root.end());
}

namespace {

// Whether a neighbour one step from a tile is reached over a link, and if so, where it is: off the edge of a
// mesh there is none; a torus wraps around to the far side (its routes do too).
bool on_a_link(const sim::Grid& grid, sim::Coord& n) {
  if (grid.topology() == sim::Topology::torus) {
    const auto w = static_cast<std::int32_t>(grid.width());
    const auto h = static_cast<std::int32_t>(grid.height());
    n = {(n.x + w) % w, (n.y + h) % h};
    return true;
  }
  return grid.contains(n);
}

}  // namespace

ScalarTree build_scalar_tree(const sim::Grid& grid, sim::TileId root,
                             const std::vector<sim::TileId>& members) {
  constexpr std::int32_t kNone = -1;
  std::vector<bool> wanted(grid.tile_count(), false);
  for (sim::TileId t : members) wanted.at(t) = true;
  wanted.at(root) = true;
  const auto wanted_count = static_cast<std::size_t>(std::count(wanted.begin(), wanted.end(), true));

  ScalarTree tree;
  // anchor[cell]: the member nearest to `cell` on its breadth-first path from the root (kNone: unvisited).
  std::vector<std::int32_t> anchor(grid.tile_count(), kNone);
  std::vector<bool> seen(grid.tile_count(), false);
  std::deque<sim::TileId> queue{root};
  seen[root] = true;
  tree.members.push_back(root);
  tree.parent.push_back(kNone);
  tree.hops_from_root.push_back(0);
  anchor[root] = 0;
  while (!queue.empty() && tree.members.size() < wanted_count) {
    const sim::TileId here = queue.front();
    queue.pop_front();
    const sim::Coord c = grid.coord(here);
    const sim::Coord next[4] = {{c.x + 1, c.y}, {c.x - 1, c.y}, {c.x, c.y + 1}, {c.x, c.y - 1}};
    for (sim::Coord n : next) {
      if (!on_a_link(grid, n)) continue;
      const sim::TileId t = grid.tile_id(static_cast<std::uint32_t>(n.x), static_cast<std::uint32_t>(n.y));
      if (seen[t]) continue;
      seen[t] = true;
      anchor[t] = anchor[here];
      if (wanted[t]) {
        const std::int32_t p = anchor[here];
        anchor[t] = static_cast<std::int32_t>(tree.members.size());
        tree.members.push_back(t);
        tree.parent.push_back(p);
        tree.hops_from_root.push_back(tree.hops_from_root[static_cast<std::size_t>(p)] +
                                      grid.hops(tree.members[static_cast<std::size_t>(p)], t));
      }
      queue.push_back(t);
    }
  }
  tree.children.resize(tree.members.size());
  for (std::size_t k = 1; k < tree.members.size(); ++k)
    tree.children[static_cast<std::size_t>(tree.parent[k])].push_back(static_cast<std::uint32_t>(k));
  return tree;
}

}  // namespace spatialsim::mappings
