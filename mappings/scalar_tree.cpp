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
  // A breadth-first search from the root, level by level. distance[cell]: hops from the root (-1: not
  // reached). via[cell]: the member the cell's subtree hangs from, the member farthest from the root on any
  // of the cell's shortest paths (the first found on a tie). A cell's `via` is final when it leaves the
  // queue: every neighbour one hop nearer the root has left it before.
  std::vector<std::int64_t> distance(grid.tile_count(), -1);
  std::vector<std::int32_t> via(grid.tile_count(), kNone);
  std::deque<sim::TileId> queue{root};
  distance[root] = 0;
  via[root] = 0;
  tree.members.push_back(root);
  tree.parent.push_back(kNone);
  tree.hops_from_root.push_back(0);
  while (!queue.empty() && tree.members.size() < wanted_count) {
    const sim::TileId here = queue.front();
    queue.pop_front();
    std::int32_t anchor = via[here];
    if (wanted[here] && here != root) {  // a member: it hangs from `anchor`, and its own cells from it
      const auto parent = static_cast<std::size_t>(anchor);
      anchor = static_cast<std::int32_t>(tree.members.size());
      tree.members.push_back(here);
      tree.parent.push_back(static_cast<std::int32_t>(parent));
      tree.hops_from_root.push_back(tree.hops_from_root[parent] + grid.hops(tree.members[parent], here));
    }
    const sim::Coord c = grid.coord(here);
    const sim::Coord next[4] = {{c.x + 1, c.y}, {c.x - 1, c.y}, {c.x, c.y + 1}, {c.x, c.y - 1}};
    for (sim::Coord n : next) {
      if (!on_a_link(grid, n)) continue;
      const sim::TileId t = grid.tile_id(static_cast<std::uint32_t>(n.x), static_cast<std::uint32_t>(n.y));
      if (distance[t] < 0) {
        distance[t] = distance[here] + 1;
        via[t] = anchor;
        queue.push_back(t);
      } else if (distance[t] == distance[here] + 1 &&
                 tree.hops_from_root[static_cast<std::size_t>(anchor)] >
                     tree.hops_from_root[static_cast<std::size_t>(via[t])]) {
        via[t] = anchor;  // another shortest path, through a member nearer to t
      }
    }
  }
  tree.children.resize(tree.members.size());
  for (std::size_t k = 1; k < tree.members.size(); ++k)
    tree.children[static_cast<std::size_t>(tree.parent[k])].push_back(static_cast<std::uint32_t>(k));
  return tree;
}

}  // namespace spatialsim::mappings
