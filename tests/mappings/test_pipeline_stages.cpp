#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "mappings/placement/i_placement.h"
#include "mappings/placement/pipeline_stages.h"
#include "sim/config.h"

namespace spatialsim::mappings {
namespace {

// Every depth and stage count up to 17 layers, against a brute-force count of the layers per stage: the
// stages cover the layers in order, none is empty, run lengths differ by at most one, longer runs first
// (as mappings::split deals out the elements of a dimension).
TEST(StageOfLayer, ContiguousRunsDifferingByAtMostOneLongerFirst) {
  for (std::uint32_t layers = 1; layers <= 17; ++layers) {
    for (std::uint32_t stages = 1; stages <= layers; ++stages) {
      std::vector<std::uint32_t> count(stages, 0);
      std::uint32_t previous = 0;
      for (std::uint32_t l = 0; l < layers; ++l) {
        const std::uint32_t s = stage_of_layer(l, layers, stages);
        ASSERT_LT(s, stages);
        ASSERT_TRUE(s == previous || s == previous + 1) << l << " of " << layers << " on " << stages;
        previous = s;
        ++count[s];
      }
      const std::uint32_t base = layers / stages;
      for (std::uint32_t s = 0; s < stages; ++s)
        EXPECT_EQ(count[s], base + (s < layers % stages ? 1u : 0u))
            << "stage " << s << ", " << layers << " layers on " << stages << " stages";
    }
  }
}

TEST(ShareStages, EveryLayerGetsItsStagesBlockAndTheGridStaysTheStages) {
  const auto zigzag = PlacementRegistry::create("zigzag", sim::Config{});
  const Placement stages = zigzag->place(std::vector<BlockShape>(3, BlockShape{2, 3}));
  const Placement p = share_stages(stages, 7);
  ASSERT_EQ(p.blocks.size(), 7u);
  EXPECT_EQ(p.stages, 3u);
  EXPECT_EQ(p.width, stages.width);
  EXPECT_EQ(p.height, stages.height);
  // 7 layers on 3 stages: 3, 2, 2.
  const std::vector<std::uint32_t> expected_stage = {0, 0, 0, 1, 1, 2, 2};
  for (std::uint32_t l = 0; l < 7; ++l) EXPECT_EQ(p.blocks[l], stages.blocks[expected_stage[l]]) << l;
}

TEST(ShareStages, OneStagePerLayerIsTheStrategysOwnPlacement) {
  const auto rowmajor = PlacementRegistry::create("rowmajor", sim::Config{});
  const Placement own = rowmajor->place(std::vector<BlockShape>(5, BlockShape{3, 2}));
  const Placement shared = share_stages(own, 5);
  EXPECT_EQ(shared.blocks, own.blocks);
  EXPECT_EQ(own.stages, 0u);
  EXPECT_EQ(shared.stages, 5u);
}

TEST(ShareStages, RefusesMoreStagesThanLayers) {
  const auto zigzag = PlacementRegistry::create("zigzag", sim::Config{});
  EXPECT_THROW(share_stages(zigzag->place(std::vector<BlockShape>(4, BlockShape{2, 2})), 3),
               std::invalid_argument);
  EXPECT_THROW(share_stages(Placement{}, 3), std::invalid_argument);
}

}  // namespace
}  // namespace spatialsim::mappings
