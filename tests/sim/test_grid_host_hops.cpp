// Grid::host_hops, tile by tile, on non-square grids, mesh and torus (sim/grid.h, docs/model.md "The host
// at the grid edge"): the host sits outside the grid and reaches a tile through the nearest edge tile, one
// hop across the edge link and then the route inside; a tile on any of the four edges is one hop away, and a
// torus's wrap links change nothing (the host still attaches at the boundary tiles).
// Expectations: a brute force written here (the least, over every tile on the boundary, of one plus the
// route from it, counted step by step as the shorter way round each dimension on a torus), and literal
// tables worked out by hand, with tiles whose nearest edge is the east or the south one alone.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <ostream>
#include <string>
#include <vector>

#include "sim/grid.h"

namespace spatialsim::sim {
namespace {

// Steps from a to b along a dimension of n tiles: direct on a mesh, the shorter way round on a torus.
std::uint32_t steps(std::uint32_t a, std::uint32_t b, std::uint32_t n, Topology topology) {
  const std::uint32_t direct = a > b ? a - b : b - a;
  return topology == Topology::torus ? std::min(direct, n - direct) : direct;
}

// One edge hop plus the fewest hops from any boundary tile (x = 0, y = 0, x = W - 1 or y = H - 1).
std::uint32_t host_hops_by_search(std::uint32_t w, std::uint32_t h, Topology topology, std::uint32_t x,
                                  std::uint32_t y) {
  std::uint32_t best = std::numeric_limits<std::uint32_t>::max();
  for (std::uint32_t ey = 0; ey < h; ++ey)
    for (std::uint32_t ex = 0; ex < w; ++ex) {
      const bool on_boundary = ex == 0 || ey == 0 || ex == w - 1 || ey == h - 1;
      if (on_boundary) best = std::min(best, 1 + steps(x, ex, w, topology) + steps(y, ey, h, topology));
    }
  return best;
}

struct HostHopsCase {
  std::uint32_t width, height;
  Topology topology;
};

void PrintTo(const HostHopsCase& c, std::ostream* os) {
  *os << c.width << "x" << c.height << " " << name(c.topology);
}

class GridHostHops : public ::testing::TestWithParam<HostHopsCase> {};

TEST_P(GridHostHops, EveryTileAgainstTheNearestBoundaryTile) {
  const HostHopsCase& c = GetParam();
  const Grid grid(c.width, c.height, c.topology);
  for (std::uint32_t y = 0; y < c.height; ++y)
    for (std::uint32_t x = 0; x < c.width; ++x)
      EXPECT_EQ(grid.host_hops(grid.tile_id(x, y)), host_hops_by_search(c.width, c.height, c.topology, x, y))
          << "tile (" << x << ", " << y << ")";
}

// Wider than high and the reverse, odd and even sides, rows and columns of one tile (every tile on the edge),
// and grids deep enough that the east and south edges are the nearest for some tiles.
INSTANTIATE_TEST_SUITE_P(
    MeshAndTorus, GridHostHops,
    ::testing::Values(HostHopsCase{5, 3, Topology::mesh}, HostHopsCase{3, 5, Topology::mesh},
                      HostHopsCase{7, 6, Topology::mesh}, HostHopsCase{9, 4, Topology::mesh},
                      HostHopsCase{1, 1, Topology::mesh}, HostHopsCase{6, 1, Topology::mesh},
                      HostHopsCase{1, 5, Topology::mesh}, HostHopsCase{5, 3, Topology::torus},
                      HostHopsCase{7, 6, Topology::torus}, HostHopsCase{8, 11, Topology::torus},
                      HostHopsCase{6, 1, Topology::torus}),
    [](const ::testing::TestParamInfo<HostHopsCase>& p) {
      return std::to_string(p.param.width) + "x" + std::to_string(p.param.height) + "_" +
             std::string(name(p.param.topology));
    });

// The rule by hand, 1 + min(x, y, W - 1 - x, H - 1 - y), on 7 x 6 (rows y = 0..5, columns x = 0..6),
// the same on a mesh and a torus:
constexpr std::uint32_t kSevenBySix[6][7] = {
    {1, 1, 1, 1, 1, 1, 1},  //
    {1, 2, 2, 2, 2, 2, 1},  //
    {1, 2, 3, 3, 3, 2, 1},  //
    {1, 2, 3, 3, 3, 2, 1},  //
    {1, 2, 2, 2, 2, 2, 1},  //
    {1, 1, 1, 1, 1, 1, 1},  //
};

TEST(GridHostHopsByHand, SevenBySixByHand) {
  for (Topology topology : {Topology::mesh, Topology::torus}) {
    const Grid grid(7, 6, topology);
    for (std::uint32_t y = 0; y < 6; ++y)
      for (std::uint32_t x = 0; x < 7; ++x)
        EXPECT_EQ(grid.host_hops(grid.tile_id(x, y)), kSevenBySix[y][x])
            << name(topology) << ", tile (" << x << ", " << y << ")";
  }
}

TEST(GridHostHopsByHand, FiveByThreeByHand) {
  // Only the middle row's inner tiles are off the edge, one step in.
  const Grid grid(5, 3, Topology::mesh);
  for (std::uint32_t y = 0; y < 3; ++y)
    for (std::uint32_t x = 0; x < 5; ++x)
      EXPECT_EQ(grid.host_hops(grid.tile_id(x, y)), y == 1 && x >= 1 && x <= 3 ? 2u : 1u)
          << "tile (" << x << ", " << y << ")";
}

TEST(GridHostHopsByHand, TheEastAndSouthEdgesAloneAreTheNearest) {
  // 9 x 8: tile (6, 3) is 6 from the west, 3 from the north, 2 from the east (8 - 6), 4 from the south
  // (7 - 3): in through the east edge, 3 hops. Tile (4, 5) is 4, 5, 4 and 2 (7 - 5) away: the south edge,
  // 3 hops. The tiles on the east and south edges themselves are 1.
  for (Topology topology : {Topology::mesh, Topology::torus}) {
    const Grid grid(9, 8, topology);
    EXPECT_EQ(grid.host_hops(grid.tile_id(6, 3)), 3u) << name(topology);
    EXPECT_EQ(grid.host_hops(grid.tile_id(4, 5)), 3u) << name(topology);
    EXPECT_EQ(grid.host_hops(grid.tile_id(7, 4)), 2u) << name(topology);  // east 1, others 7, 4, 3
    EXPECT_EQ(grid.host_hops(grid.tile_id(4, 6)), 2u) << name(topology);  // south 1, others 4, 6, 4
    EXPECT_EQ(grid.host_hops(grid.tile_id(8, 4)), 1u) << name(topology);
    EXPECT_EQ(grid.host_hops(grid.tile_id(4, 7)), 1u) << name(topology);
    EXPECT_EQ(grid.host_hops(grid.tile_id(8, 7)), 1u) << name(topology);
  }
}

}  // namespace
}  // namespace spatialsim::sim
