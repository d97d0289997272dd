#include <gtest/gtest.h>

#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/visitors.hpp>
#include <tuple>
#include <utility>
#include <vector>

#include "sim/grid.h"
#include "tests/enum_printers.h"

namespace spatialsim::sim {
namespace {

// Every tile pair's XY-routed hop count equals the BFS distance in the Boost.Graph connectivity, and the
// route visits exactly that many links, each leaving the tile the previous one entered.
class GridRouting : public ::testing::TestWithParam<std::tuple<int, int, Topology>> {};

TEST_P(GridRouting, HopsEqualBreadthFirstDistances) {
  // Not a structured binding: the lambda below captures these, which clang 14 does not allow (P1091).
  const int w = std::get<0>(GetParam());
  const int h = std::get<1>(GetParam());
  const Topology topo = std::get<2>(GetParam());
  Grid grid(w, h, topo);
  const Grid::Graph links = link_graph(grid);
  for (TileId src = 0; src < grid.tile_count(); ++src) {
    std::vector<int> dist(grid.tile_count(), -1);
    dist[src] = 0;
    boost::breadth_first_search(
        links, src,
        boost::visitor(boost::make_bfs_visitor(boost::record_distances(dist.data(), boost::on_tree_edge()))));
    for (TileId dst = 0; dst < grid.tile_count(); ++dst) {
      ASSERT_EQ(static_cast<int>(grid.hops(src, dst)), dist[dst]) << "src " << src << " dst " << dst;
      TileId at = src;
      std::uint32_t links_taken = 0;
      grid.for_each_link_on_route(src, dst, [&](LinkId link) {
        ASSERT_EQ(link / 4, at);
        const Coord c = grid.coord(at);
        const auto dir = static_cast<Direction>(link % 4);
        const int dx = dir == Direction::east ? 1 : dir == Direction::west ? -1 : 0;
        const int dy = dir == Direction::south ? 1 : dir == Direction::north ? -1 : 0;
        const Coord next{(c.x + dx + w) % w, (c.y + dy + h) % h};
        if (topo == Topology::mesh) {
          ASSERT_TRUE(grid.contains({c.x + dx, c.y + dy}));
        }
        at = grid.tile_id(next.x, next.y);
        ++links_taken;
      });
      EXPECT_EQ(at, dst);
      EXPECT_EQ(links_taken, grid.hops(src, dst));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    MeshAndTorus, GridRouting,
    ::testing::Values(std::make_tuple(1, 1, Topology::mesh), std::make_tuple(5, 3, Topology::mesh),
                      std::make_tuple(4, 4, Topology::mesh), std::make_tuple(7, 2, Topology::mesh),
                      std::make_tuple(5, 3, Topology::torus), std::make_tuple(4, 6, Topology::torus),
                      std::make_tuple(6, 1, Topology::torus), std::make_tuple(3, 3, Topology::torus)));

TEST(Grid, XRouteBeforeY) {
  Grid grid(4, 4, Topology::mesh);
  std::vector<LinkId> links;
  grid.for_each_link_on_route(grid.tile_id(0, 0), grid.tile_id(2, 1), [&](LinkId l) { links.push_back(l); });
  ASSERT_EQ(links.size(), 3u);
  EXPECT_EQ(links[0] % 4, static_cast<LinkId>(Direction::east));
  EXPECT_EQ(links[1] % 4, static_cast<LinkId>(Direction::east));
  EXPECT_EQ(links[2] % 4, static_cast<LinkId>(Direction::south));
}

TEST(Grid, TorusTakesTheWrapAround) {
  Grid grid(8, 1, Topology::torus);
  EXPECT_EQ(grid.hops(0, 7), 1u);
  EXPECT_EQ(grid.hops(0, 4), 4u);
  EXPECT_EQ(grid.hops(1, 6), 3u);
}

// grid.h's contract: on an even ring a tie (the distance both ways is n / 2) goes the positive way, east or
// south. The hop count is the same either way; the links, which finite bandwidth reserves, are not.
TEST(Grid, TorusTiesGoEastAndSouth) {
  Grid grid(4, 4, Topology::torus);
  const auto route = [&](TileId from, TileId to) {
    std::vector<LinkId> links;
    grid.for_each_link_on_route(from, to, [&](LinkId l) { links.push_back(l); });
    return links;
  };
  const auto east = static_cast<LinkId>(Direction::east);
  const auto south = static_cast<LinkId>(Direction::south);
  for (const auto& [x, y] : {std::pair{0u, 0u}, std::pair{3u, 1u}}) {
    const TileId from = grid.tile_id(x, y);
    EXPECT_EQ(route(from, grid.tile_id((x + 2) % 4, y)),
              (std::vector<LinkId>{from * 4 + east, grid.tile_id((x + 1) % 4, y) * 4 + east}));
    EXPECT_EQ(route(from, grid.tile_id(x, (y + 2) % 4)),
              (std::vector<LinkId>{from * 4 + south, grid.tile_id(x, (y + 1) % 4) * 4 + south}));
  }
}

TEST(Grid, RejectsAnEmptyGrid) {
  EXPECT_THROW(Grid(0, 3, Topology::mesh), std::invalid_argument);
}

}  // namespace
}  // namespace spatialsim::sim
