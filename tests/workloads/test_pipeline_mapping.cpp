// The pipelined mapping (MODEL.md section 5, mapping.stages): layers of a stage share its block. What
// sharing must change, each computed here without the simulator's placement code: redistribution inside a
// stage goes from the block's output row back to its own lane entries; a tile stores the weights of every
// layer of its stage; and a tile computes one slice at a time, so a stage's layers take turns.
// (Gradients under stages: tests/cli/test_check.cpp; counting = arithmetic: test_network_forward.cpp.)
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tests/workloads/network_test_support.h"

namespace spatialsim::workloads {
namespace {

using sim::MessageKind;
using sim::Phase;
using testing_support::run_with;

// The piece of [0, n) split in k ranges that element e falls in; the first n % k ranges have one more.
std::uint32_t piece_of(std::uint32_t e, std::uint32_t n, std::uint32_t k) {
  const std::uint32_t base = n / k, extra = n % k;
  const std::uint32_t long_end = extra * (base + 1);
  return e < long_end ? e / (base + 1) : extra + (e - long_end) / base;
}

std::uint64_t forward_redistribution(const std::vector<std::string>& overrides) {
  return run_with(overrides, "forward").counters.byte_hops.at(Phase::forward, MessageKind::redistribution);
}

TEST(PipelineStages, OneStageSendsEachLayersOutputsBackToItsOwnLaneEntries) {
  // 4 layers of width 23 on one 3x4 block at the grid's corner (zigzag's first block: rows go south,
  // columns east, outputs on the last row, lanes entering at column 0). Element e of layer l's output
  // leaves output tile (2, j(e)) for lane entry (i(e), 0) of the same block: (2 - i(e)) + j(e) hops.
  const std::uint32_t width = 23, r = 3, c = 4, tokens = 7, act_bytes = 2, transfers = 3;
  std::uint64_t element_hops = 0;
  for (std::uint32_t e = 0; e < width; ++e)
    element_hops += (r - 1 - piece_of(e, width, r)) + piece_of(e, width, c);
  EXPECT_EQ(
      forward_redistribution({"--model.widths=23,23,23,23,23", "--mapping.block=3x4", "--mapping.stages=1",
                              "--step.tokens=7", "--step.wavefront=3", "--sim.arith=none"}),
      std::uint64_t{act_bytes} * tokens * transfers * element_hops);
}

TEST(PipelineStages, TwoStagesTurnInsideAStageAndTakeOneHopBetweenStages) {
  // 5 layers of width 23 on two 4x4 stages (layers 0-2, then 3-4). Inside a stage an element goes from
  // output column p to lane row p (the same split of 23 on both sides): (3 - p) + p = 3 hops; between the
  // stages, zigzag's one hop (matching partitions).
  const std::uint64_t tokens = 5, act_bytes = 2, width = 23;
  const std::uint64_t inside = 3 * width * 3;  // transfers 0->1, 1->2 and 3->4
  const std::uint64_t between = width * 1;     // transfer 2->3
  EXPECT_EQ(
      forward_redistribution({"--model.widths=23,23,23,23,23,23", "--mapping.block=4x4", "--mapping.stages=2",
                              "--step.tokens=5", "--step.wavefront=2", "--sim.arith=none"}),
      act_bytes * tokens * (inside + between));
  // Fully spatial, every transfer is one hop per element.
  EXPECT_EQ(forward_redistribution({"--model.widths=23,23,23,23,23,23", "--mapping.block=4x4",
                                    "--step.tokens=5", "--step.wavefront=2", "--sim.arith=none"}),
            act_bytes * tokens * width * 4);
}

TEST(PipelineStages, ATileStoresTheWeightsOfEveryLayerOfItsStage) {
  // One 1x1 block: the tile holds W and b of both layers, (5 x 7 + 7) + (7 x 3 + 3) elements of 2 bytes.
  const std::uint64_t weights = ((5 * 7 + 7) + (7 * 3 + 3)) * 2;
  auto overflows = [&](const std::string& stages) {
    return run_with({"--model.widths=5,7,3", "--mapping.block=1x1", "--mapping.stages=" + stages,
                     "--machine.sram_bytes=" + std::to_string(weights - 1), "--step.tokens=2",
                     "--step.wavefront=2", "--sim.arith=none"},
                    "forward")
        .overflows;
  };
  const auto shared = overflows("1");
  ASSERT_EQ(shared.size(), 1u);
  EXPECT_EQ(shared[0].category, sim::StorageCategory::weights);
  EXPECT_EQ(shared[0].first_cycle, 0u);
  EXPECT_GE(shared[0].excess_bytes, 1u);
  for (const auto& o : overflows("0")) EXPECT_NE(o.category, sim::StorageCategory::weights) << o.tile;
}

TEST(PipelineStages, AStagesLayersTakeTurnsOnItsTiles) {
  // 3 wavefronts of 2 tokens through 5 -> 7 -> 3 at one flop per cycle: 2 x 2 x (35 + 21) = 224 flops per
  // wavefront. On one shared 1x1 tile every flop waits for the one before: the run takes at least the
  // 672 cycles of work after the first input arrives (1 hop). On two tiles the layers overlap.
  const std::uint64_t work = 3 * 2 * 2 * (5 * 7 + 7 * 3);
  auto run = [&](const std::string& stages) {
    return run_with({"--model.widths=5,7,3", "--mapping.block=1x1", "--mapping.stages=" + stages,
                     "--machine.flops_per_cycle=1", "--step.tokens=6", "--step.wavefront=2",
                     "--step.interval=1", "--sim.arith=none"},
                    "forward");
  };
  const RunResult shared = run("1");
  EXPECT_EQ(shared.counters.total_flops(), work);
  ASSERT_FALSE(shared.tiles.flops.empty());
  EXPECT_EQ(shared.tiles.flops[0], work);  // one tile did it all
  EXPECT_GE(shared.counters.makespan_cycles, 1 + work);
  const RunResult spatial = run("0");
  EXPECT_EQ(spatial.counters.total_flops(), work);
  EXPECT_LT(spatial.counters.makespan_cycles, work);
}

// The default injection interval is the first block's latency for one wavefront; with stages that block
// computes every layer of the first stage. 5 layers on 2 stages (layers 0-2 first), 3x2 blocks, 4 tokens,
// 7 flops per cycle: hops 3 + 2 - 1 = 4, then ceil(2 x 4 x ceil(d_in / 3) x ceil(d_out / 2) / 7) per
// layer: 13 -> 17 gives 360 flops, 52 cycles; 17 -> 9 gives 240, 35; 9 -> 11 gives 144, 21.
TEST(PipelineStages, TheDefaultIntervalIsTheFirstStagesWorkPerWavefront) {
  auto interval = [](const std::string& stages) {
    return setup_from_config(
               testing_support::config_with({"--model.widths=13,17,9,11,6,5", "--mapping.block=3x2",
                                             "--mapping.stages=" + stages, "--step.wavefront=4",
                                             "--machine.flops_per_cycle=7"}))
        .injection_interval;
  };
  EXPECT_EQ(interval("2"), 4u + 52 + 35 + 21);
  EXPECT_EQ(interval("0"), 4u + 52);  // fully spatial: layer 0 alone
  EXPECT_EQ(interval("5"), 4u + 52);  // one layer per stage
}

}  // namespace
}  // namespace spatialsim::workloads
