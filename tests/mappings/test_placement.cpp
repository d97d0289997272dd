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

// Wide blocks (2 lanes x 3 columns) turn into each other: the fourth block, rotated to send its lanes
// north, would land on the first block's last column. The expected layout is worked out by hand from the
// rule in docs/model.md (entries one hop beyond the previous outputs; a block that overlaps an earlier one
// steps further out along its lanes until clear), in coordinates before the final shift (x east, y south):
//   block 0: anchor (0, 0), rows south, columns east, outputs on row 1: tiles x 0..2, y 0..1
//   block 1: anchor (0, 2), rows east, columns south, outputs on row 1: x 0..1, y 2..4
//   block 2: anchor (2, 2), rows south, columns east, outputs on row 0: x 2..4, y 2..3
//   block 3: one hop north of block 2's outputs is (2, 1), rows east, columns north: x 2..3, y -1..1 would
//            cover block 0's tiles (2, 0) and (2, 1); (2, 0) still covers (2, 0); (2, -1) is clear:
//            x 2..3, y -3..-1, outputs on row 1
//   block 4: anchor (4, -1), rows north, columns east, outputs on row 0: x 4..6, y -2..-1
// Shifting by y + 3 gives the anchors below, a 7 x 8 grid.
TEST(ZigZag, WideBlocksThatRunIntoAnEarlierBlockStepOutAlongTheirLanes) {
  const auto zigzag = PlacementRegistry::create("zigzag", sim::Config{});
  const Placement p = zigzag->place(std::vector<BlockShape>(5, BlockShape{2, 3}));
  struct Expected {
    sim::Coord anchor;
    Step row_step, col_step;
    bool outputs_at_first_row;
  };
  const Expected expected[] = {{{0, 3}, Step::south, Step::east, false},
                               {{0, 5}, Step::east, Step::south, false},
                               {{2, 5}, Step::south, Step::east, true},
                               {{2, 2}, Step::east, Step::north, false},
                               {{4, 2}, Step::north, Step::east, true}};
  ASSERT_EQ(p.blocks.size(), 5u);
  for (std::size_t l = 0; l < p.blocks.size(); ++l) {
    const BlockLayout& b = p.blocks[l];
    EXPECT_EQ(b.anchor.x, expected[l].anchor.x) << "layer " << l;
    EXPECT_EQ(b.anchor.y, expected[l].anchor.y) << "layer " << l;
    EXPECT_EQ(b.row_step, expected[l].row_step) << "layer " << l;
    EXPECT_EQ(b.col_step, expected[l].col_step) << "layer " << l;
    EXPECT_EQ(b.outputs_at_first_row, expected[l].outputs_at_first_row) << "layer " << l;
    EXPECT_FALSE(b.lanes_enter_at_last_col) << "layer " << l;
  }
  EXPECT_EQ(p.width, 7u);
  EXPECT_EQ(p.height, 8u);
}

}  // namespace
}  // namespace spatialsim::mappings
