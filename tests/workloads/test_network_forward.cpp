// Fidelity of the forward pass on the grid: real arithmetic against the dense reference, and every
// traffic count against MODEL.md section 4's closed forms or a brute-force sum over the layout.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <tuple>

#include "mappings/partition.h"
#include "tests/test_names.h"
#include "tests/workloads/network_test_support.h"

namespace spatialsim::workloads {
namespace {

using sim::MessageKind;
using sim::Phase;
using testing_support::config_with;
using testing_support::run_with;

struct ForwardCase {
  std::string widths;
  std::string block;
  std::string activation;
  std::string loss;
  std::string placement;
  std::uint32_t tokens;
  std::uint32_t wavefront;
};

class ForwardFidelity : public ::testing::TestWithParam<ForwardCase> {};

TEST_P(ForwardFidelity, OutputsAndLossEqualTheDenseReference) {
  const ForwardCase& c = GetParam();
  const std::vector<std::string> overrides = {
      "--model.widths=" + c.widths,         "--mapping.block=" + c.block,
      "--model.activation=" + c.activation, "--model.loss=" + c.loss,
      "--mapping.placement=" + c.placement, "--step.tokens=" + std::to_string(c.tokens),
      "--step.wavefront=" + std::to_string(c.wavefront), "--sim.arith=fp64",
      "--data.task=" + std::string(c.loss == "mse" ? "teacher" : "mixture")};
  const RunResult r = run_with(overrides, "forward");
  const RunSetup setup = setup_from_config(config_with(overrides));
  const auto net = testing_support::dense_net(setup.model, r.initial_parameters);
  const auto trace = reference::forward(net, r.first_step_data.inputs);
  EXPECT_LE(testing_support::relative_error(r.first_step_outputs, trace.outputs), 1e-12);
  const double expected_loss = reference::loss(net, r.first_step_data.inputs, r.first_step_data.targets);
  ASSERT_EQ(r.loss_per_step.size(), 1u);
  EXPECT_NEAR(r.loss_per_step[0], expected_loss, 1e-12 * std::abs(expected_loss));
}

INSTANTIATE_TEST_SUITE_P(
    OddSizes, ForwardFidelity,
    ::testing::Values(ForwardCase{"37,53", "3x5", "relu", "mse", "zigzag", 23, 5},
                      ForwardCase{"37,53,29,11", "3x5", "tanh", "mse", "zigzag", 23, 5},
                      ForwardCase{"37,53,29,11", "3x5", "gelu", "cross-entropy", "rowmajor", 17, 4},
                      ForwardCase{"16,16,16,16,16", "4x4", "relu", "cross-entropy", "zigzag", 32, 8},
                      ForwardCase{"9,7,5", "2x3", "identity", "mse", "rowmajor", 5, 5},
                      ForwardCase{"13,21,8", "1x1", "gelu", "cross-entropy", "zigzag", 7, 3}),
    [](const auto& info) {
      const ForwardCase& c = info.param;
      return testing_support::gtest_name(c.widths + "_" + c.block + "_" + c.activation + "_" + c.loss + "_" +
                                         c.placement);
    });

// MODEL.md section 4: per token, lanes cost b_a d_in (c - 1) and partial sums b_p d_out (r - 1).
struct LayerShape {
  std::uint32_t d_in, d_out, r, c, act_bytes, psum_bytes;
};

class SingleLayerTraffic : public ::testing::TestWithParam<LayerShape> {};

TEST_P(SingleLayerTraffic, LaneAndPartialSumByteHopsMatchTheClosedForm) {
  const LayerShape& s = GetParam();
  const std::uint32_t tokens = 11;
  const RunResult r = run_with({"--model.widths=" + std::to_string(s.d_in) + "," + std::to_string(s.d_out),
                                "--mapping.block=" + std::to_string(s.r) + "x" + std::to_string(s.c),
                                "--step.tokens=" + std::to_string(tokens), "--step.wavefront=3",
                                "--machine.act_bytes=" + std::to_string(s.act_bytes),
                                "--machine.psum_bytes=" + std::to_string(s.psum_bytes), "--sim.arith=none"},
                               "forward");
  const auto& hops = r.counters.byte_hops;
  EXPECT_EQ(hops.at(Phase::forward, MessageKind::lane), std::uint64_t{s.act_bytes} * tokens * s.d_in * (s.c - 1));
  EXPECT_EQ(hops.at(Phase::forward, MessageKind::psum), std::uint64_t{s.psum_bytes} * tokens * s.d_out * (s.r - 1));
  EXPECT_EQ(hops.at(Phase::forward, MessageKind::redistribution), 0u);
  EXPECT_EQ(hops.phase_total(Phase::backward), 0u);
  EXPECT_EQ(r.counters.flops[sim::index(Phase::forward)], 2ull * tokens * s.d_in * s.d_out);
  // Host traffic, brute force over the layout: the single block sits at the grid's origin with lanes
  // entering on the west edge (1 hop each) and outputs on the bottom row of an r-tall grid (1 hop).
  EXPECT_EQ(hops.at(Phase::forward, MessageKind::host),
            std::uint64_t{s.act_bytes} * tokens * s.d_in + std::uint64_t{s.act_bytes} * tokens * s.d_out);
}

INSTANTIATE_TEST_SUITE_P(Shapes, SingleLayerTraffic,
                         ::testing::Values(LayerShape{37, 53, 3, 5, 2, 2}, LayerShape{64, 64, 4, 4, 2, 2},
                                           LayerShape{10, 7, 3, 2, 2, 4}, LayerShape{5, 9, 5, 1, 1, 2},
                                           LayerShape{8, 3, 1, 3, 2, 2}, LayerShape{100, 33, 7, 6, 2, 4}),
                         [](const auto& info) {
                           const LayerShape& s = info.param;
                           return std::to_string(s.d_in) + "x" + std::to_string(s.d_out) + "_on_" +
                                  std::to_string(s.r) + "x" + std::to_string(s.c);
                         });

TEST(Redistribution, OneHopPerElementOnTheTurningPlacementWithMatchingPartitions) {
  // 5 layers of width 24 on 4x4 blocks: every layer's c = 4 equals the next layer's r = 4.
  const std::uint32_t tokens = 10, width = 24, layers = 5;
  const RunResult r = run_with({"--model.widths=24,24,24,24,24,24", "--mapping.block=4x4", "--step.tokens=10",
                                "--step.wavefront=4", "--sim.arith=none"},
                               "forward");
  EXPECT_EQ(r.counters.byte_hops.at(Phase::forward, MessageKind::redistribution),
            2ull * tokens * width * (layers - 1));
  EXPECT_EQ(r.counters.bytes.at(Phase::forward, MessageKind::redistribution), 2ull * tokens * width * (layers - 1));
}

TEST(Redistribution, RowMajorPlacementPaysTheManhattanDistanceOfEveryPiece) {
  // Brute force: each overlap of a producer column range and a consumer row range moves from the
  // producer's output tile to the consumer's lane entry, b_a bytes per element and token.
  const sim::Config config = config_with({"--model.widths=20,30,17,12", "--mapping.block=3x4",
                                          "--mapping.placement=rowmajor", "--step.tokens=6", "--step.wavefront=6",
                                          "--sim.arith=none"});
  const RunSetup setup = setup_from_config(config);
  const RunResult r = run_schedule(setup, config, "forward");
  std::uint64_t expected = 0;
  for (std::uint32_t l = 0; l + 1 < setup.model.layers(); ++l) {
    const auto& from = setup.placement.blocks[l];
    const auto& to = setup.placement.blocks[l + 1];
    const auto cols = mappings::split(setup.model.widths[l + 1], from.cols);
    const auto rows = mappings::split(setup.model.widths[l + 1], to.rows);
    for (std::uint32_t j = 0; j < cols.size(); ++j) {
      for (std::uint32_t i = 0; i < rows.size(); ++i) {
        const auto overlap = mappings::intersect(cols[j], rows[i]);
        const sim::Coord a = from.output_tile(j);
        const sim::Coord b = to.lane_entry(i);
        expected += 2ull * 6 * overlap.size * static_cast<std::uint64_t>(std::abs(a.x - b.x) + std::abs(a.y - b.y));
      }
    }
  }
  EXPECT_GT(expected, 2ull * 6 * (30 + 17));  // more than one hop per element: the point of the naive placement
  EXPECT_EQ(r.counters.byte_hops.at(Phase::forward, MessageKind::redistribution), expected);
}

TEST(Depth, OneLayerIsHostHopPlusLanePlusColumn) {
  // Inputs enter on the grid edge (1 hop), cross c - 1 lane hops, then r - 1 partial-sum hops; the mse loss
  // adds nothing.
  for (auto [r, c] : {std::pair{3u, 5u}, std::pair{4u, 1u}, std::pair{1u, 6u}, std::pair{7u, 2u}}) {
    const RunResult res = run_with({"--model.widths=37,53", "--mapping.block=" + std::to_string(r) + "x" +
                                        std::to_string(c),
                                    "--step.tokens=4", "--step.wavefront=2", "--sim.arith=none"},
                                   "forward");
    EXPECT_EQ(res.counters.depth, 1 + (c - 1) + (r - 1)) << r << "x" << c;
  }
}

TEST(Depth, CrossEntropyAddsTheScalarChainAlongTheOutputTiles) {
  const RunResult res = run_with({"--model.widths=37,53", "--mapping.block=3x5", "--model.loss=cross-entropy",
                                  "--data.task=mixture", "--step.tokens=4", "--step.wavefront=2", "--sim.arith=none"},
                                 "forward");
  // Output column j is ready at stamp 1 + j + (r - 1); the reduce chain j -> j + 1 keeps pace with it (stamp
  // 1 + j + (r - 1) at column j), so it ends at 1 + (c - 1) + (r - 1) on the last column, and the broadcast
  // back to column 0 adds c - 1.
  EXPECT_EQ(res.counters.depth, 1u + 4 + 2 + 4);
  EXPECT_EQ(res.counters.byte_hops.at(Phase::forward, MessageKind::scalar), 2ull * 4 * 2 * (5 - 1));
}

TEST(CountingMode, GivesTheSameCountersAsArithmetic) {
  const std::vector<std::string> base = {"--model.widths=37,53,29,11", "--mapping.block=3x5",
                                         "--model.loss=cross-entropy", "--data.task=mixture",
                                         "--step.tokens=23", "--step.wavefront=5",
                                         "--machine.link_bytes_per_cycle=16", "--machine.flops_per_cycle=64"};
  for (const char* schedule : {"forward", "backprop"}) {
    auto with = [&](const char* arith) {
      auto o = base;
      o.push_back(std::string("--sim.arith=") + arith);
      return run_with(o, schedule);
    };
    const RunResult none = with("none");
    const RunResult fp32 = with("fp32");
    const RunResult fp64 = with("fp64");
    EXPECT_EQ(none.counters, fp32.counters) << schedule;
    EXPECT_EQ(none.counters, fp64.counters) << schedule;
    EXPECT_EQ(none.tiles, fp64.tiles) << schedule;
  }
}

}  // namespace
}  // namespace spatialsim::workloads
