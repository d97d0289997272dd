#include <gtest/gtest.h>

#include <set>

#include "mappings/placement/i_placement.h"
#include "sim/config.h"

namespace spatialsim::mappings {
namespace {

// Every block shape and depth: no two blocks share a tile, everything sits inside the bounding box.
class ZigZagShapes : public ::testing::TestWithParam<std::tuple<std::uint32_t, std::uint32_t>> {};

TEST_P(ZigZagShapes, NeverOverlapsForAnyDepth) {
  const auto [r, c] = GetParam();
  const auto zigzag = PlacementRegistry::create("zigzag", sim::Config{});
  for (std::uint32_t layers = 1; layers <= 13; ++layers) {
    const Placement p = zigzag->place(std::vector<BlockShape>(layers, BlockShape{r, c}));
    std::set<std::pair<int, int>> used;
    for (const BlockLayout& b : p.blocks)
      for (std::uint32_t i = 0; i < b.rows; ++i)
        for (std::uint32_t j = 0; j < b.cols; ++j) {
          const sim::Coord t = b.coord(i, j);
          ASSERT_TRUE(t.x >= 0 && t.y >= 0 && t.x < static_cast<int>(p.width) &&
                      t.y < static_cast<int>(p.height));
          ASSERT_TRUE(used.insert({t.x, t.y}).second) << r << "x" << c << " with " << layers << " layers";
        }
  }
}

INSTANTIATE_TEST_SUITE_P(Blocks, ZigZagShapes,
                         ::testing::Values(std::make_tuple(1u, 1u), std::make_tuple(2u, 2u),
                                           std::make_tuple(2u, 3u), std::make_tuple(3u, 2u),
                                           std::make_tuple(3u, 5u), std::make_tuple(1u, 4u),
                                           std::make_tuple(5u, 1u), std::make_tuple(16u, 16u)));

TEST(ZigZag, SquareBlocksFormABandTwoBlocksTallWithOutputsOneHopFromTheNextLanes) {
  const auto zigzag = PlacementRegistry::create("zigzag", sim::Config{});
  const std::uint32_t n = 4, layers = 9;
  const Placement p = zigzag->place(std::vector<BlockShape>(layers, BlockShape{n, n}));
  EXPECT_EQ(p.height, 2 * n);
  EXPECT_EQ(p.width, n * ((layers + 1) / 2));
  for (std::uint32_t l = 0; l + 1 < layers; ++l)
    for (std::uint32_t k = 0; k < n; ++k) {
      const sim::Coord out = p.blocks[l].output_tile(k);
      const sim::Coord in = p.blocks[l + 1].lane_entry(k);
      EXPECT_EQ(std::abs(out.x - in.x) + std::abs(out.y - in.y), 1) << "layer " << l << " lane " << k;
    }
}

}  // namespace
}  // namespace spatialsim::mappings
