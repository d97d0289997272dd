// The spanning trees that reduce and broadcast the forward-gradient scalars: every member once, one-hop
// edges inside a contiguous region, and tree paths as short as the members' routes from the root.
#include <gtest/gtest.h>

#include "mappings/scalar_tree.h"

namespace spatialsim::mappings {
namespace {

TEST(ScalarTree, ContiguousBlockIsJoinedByOneHopEdgesAtShortestDepth) {
  const sim::Grid grid(6, 5, sim::Topology::mesh);
  std::vector<sim::TileId> members;
  for (std::uint32_t y = 1; y < 4; ++y)
    for (std::uint32_t x = 1; x < 5; ++x) members.push_back(grid.tile_id(x, y));
  const sim::TileId root = grid.tile_id(4, 3);
  const ScalarTree tree = build_scalar_tree(grid, root, members);
  ASSERT_EQ(tree.members.size(), members.size());
  EXPECT_EQ(tree.members[0], root);
  for (std::size_t k = 1; k < tree.members.size(); ++k) {
    const auto p = static_cast<std::size_t>(tree.parent[k]);
    EXPECT_EQ(grid.hops(tree.members[p], tree.members[k]), 1u);
    EXPECT_EQ(tree.hops_from_root[k], grid.hops(root, tree.members[k]));
  }
  EXPECT_EQ(tree.depth_hops(), 5u);  // (1, 1) is 3 + 2 hops from (4, 3)
}

// On a torus the wrap-around links are links too: a member across the edge is reached through them, as its
// route is. The tree crossed only the mesh links and priced its edges by torus hops, so (7, 0) was 7 hops
// from (2, 3) on a 9 x 4 torus, where its route is 5 (found by an independent audit of split-fg's makespan).
TEST(ScalarTree, OnATorusEveryTreePathIsAsShortAsTheRouteFromTheRoot) {
  for (const sim::Topology topology : {sim::Topology::torus, sim::Topology::mesh}) {
    const sim::Grid grid(9, 4, topology);
    std::vector<sim::TileId> members;
    for (std::uint32_t y = 0; y < 4; ++y)
      for (std::uint32_t x = 0; x < 9; ++x)
        if ((x * 5 + y * 3) % 4 == 0) members.push_back(grid.tile_id(x, y));
    members.push_back(grid.tile_id(7, 0));
    const sim::TileId root = grid.tile_id(2, 3);
    const ScalarTree tree = build_scalar_tree(grid, root, members);
    for (std::size_t k = 0; k < tree.members.size(); ++k)
      EXPECT_EQ(tree.hops_from_root[k], grid.hops(root, tree.members[k]))
          << name(topology) << " member (" << grid.coord(tree.members[k]).x << ", "
          << grid.coord(tree.members[k]).y << ")";
  }
  const sim::Grid torus(9, 4, sim::Topology::torus);
  const ScalarTree tree = build_scalar_tree(torus, torus.tile_id(2, 3), {torus.tile_id(7, 0)});
  EXPECT_EQ(tree.depth_hops(), 5u);  // west across the edge: 2 -> 1 -> 0 -> 8 -> 7, and south 3 -> 0
}

// A member next to another member one hop nearer the root hangs from it by a one-hop edge, whatever order
// the search meets them in: the tree took the member nearest on the first shortest path found, which could
// pass beside a member instead of through it (an audit found the root sending 3 to 6 hops straight to
// tiles that each touched a member one hop nearer). Blocks of members, as the trunk's tiles lie, on a mesh
// and a torus.
TEST(ScalarTree, AMemberBesideANearerMemberHangsFromItByOneHop) {
  for (const sim::Topology topology : {sim::Topology::mesh, sim::Topology::torus}) {
    const sim::Grid grid(9, 7, topology);
    std::vector<sim::TileId> members;
    for (std::uint32_t y = 0; y < 7; ++y)
      for (std::uint32_t x = 0; x < 9; ++x)
        if ((x <= 1 && y >= 3) || (x >= 2 && x <= 5 && y >= 2 && y <= 3) || (x >= 6 && y <= 1))
          members.push_back(grid.tile_id(x, y));
    const sim::TileId root = grid.tile_id(1, 5);
    const ScalarTree tree = build_scalar_tree(grid, root, members);
    ASSERT_EQ(tree.members.size(), members.size());
    for (std::size_t k = 1; k < tree.members.size(); ++k) {
      const sim::TileId t = tree.members[k];
      EXPECT_EQ(tree.hops_from_root[k], grid.hops(root, t));  // still as short as the route
      bool beside_a_nearer_member = false;
      for (const sim::TileId m : tree.members)
        beside_a_nearer_member |= grid.hops(m, t) == 1 && grid.hops(root, m) + 1 == grid.hops(root, t);
      if (beside_a_nearer_member) {
        EXPECT_EQ(grid.hops(tree.members[static_cast<std::size_t>(tree.parent[k])], t), 1u)
            << name(topology) << " member (" << grid.coord(t).x << ", " << grid.coord(t).y << ")";
      }
    }
  }
}

// On a tie, two members equally far from the root on a member's shortest paths, the member takes the one
// the breadth-first search reached first (scalar_tree.cpp; the search tries +x, -x, +y, -y from each tile),
// so that the tree, and with it every run's scalar traffic, does not change with how ties are broken. On a
// mesh with the root at (0, 0), (1, 0) and (0, 1) are both one hop out and (1, 1) is beside both: (1, 0) is
// reached first, so (1, 1) hangs from it; with the root at (1, 1) instead, (0, 1) is found before (1, 0)
// (-x before -y), so (0, 0) hangs from (0, 1).
TEST(ScalarTree, OnATieTheMemberFoundFirstIsTheParent) {
  const sim::Grid grid(4, 4, sim::Topology::mesh);
  const sim::TileId a = grid.tile_id(1, 0), b = grid.tile_id(0, 1);
  const auto parent_of = [](const ScalarTree& tree, sim::TileId t) {
    return tree.members[static_cast<std::size_t>(tree.parent[tree.index_of(t)])];
  };
  const ScalarTree from_corner = build_scalar_tree(grid, grid.tile_id(0, 0), {b, grid.tile_id(1, 1), a});
  EXPECT_EQ(parent_of(from_corner, grid.tile_id(1, 1)), a);
  const ScalarTree from_centre = build_scalar_tree(grid, grid.tile_id(1, 1), {b, grid.tile_id(0, 0), a});
  EXPECT_EQ(parent_of(from_centre, grid.tile_id(0, 0)), b);
}

TEST(ScalarTree, ScatteredMembersAndDuplicatesEachAppearOnce) {
  const sim::Grid grid(8, 8, sim::Topology::mesh);
  const std::vector<sim::TileId> members = {grid.tile_id(0, 0), grid.tile_id(7, 7), grid.tile_id(7, 7),
                                            grid.tile_id(3, 5)};
  const ScalarTree tree = build_scalar_tree(grid, grid.tile_id(4, 4), members);
  EXPECT_EQ(tree.members.size(), 4u);  // the root is added
  std::size_t children = 0;
  for (const auto& c : tree.children) children += c.size();
  EXPECT_EQ(children, 3u);
  EXPECT_THROW((void)tree.index_of(grid.tile_id(1, 1)), std::out_of_range);
}

}  // namespace
}  // namespace spatialsim::mappings
