// Fidelity of the forward pass on the grid: real arithmetic against the dense reference, and every
// traffic count against MODEL.md section 4's closed forms or a brute-force sum over the layout.
#include <gtest/gtest.h>

#include <cmath>
#include <ostream>
#include <string>
#include <tuple>
#include <vector>

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

void PrintTo(const ForwardCase& c, std::ostream* os) {
  *os << "widths " << c.widths << ", block " << c.block << ", " << c.activation << ", " << c.loss << ", "
      << c.placement << ", T " << c.tokens << ", B " << c.wavefront;
}

class ForwardFidelity : public ::testing::TestWithParam<ForwardCase> {};

TEST_P(ForwardFidelity, OutputsAndLossEqualTheDenseReference) {
  const ForwardCase& c = GetParam();
  const std::vector<std::string> overrides = {
      "--model.widths=" + c.widths,
      "--mapping.block=" + c.block,
      "--model.activation=" + c.activation,
      "--model.loss=" + c.loss,
      "--mapping.placement=" + c.placement,
      "--step.tokens=" + std::to_string(c.tokens),
      "--step.wavefront=" + std::to_string(c.wavefront),
      "--sim.arith=fp64",
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
    [](const auto& test) {
      const ForwardCase& c = test.param;
      return testing_support::gtest_name(c.widths + "_" + c.block + "_" + c.activation + "_" + c.loss + "_" +
                                         c.placement);
    });

// MODEL.md section 4: per token, lanes cost b_a d_in (c - 1) and partial sums b_p d_out (r - 1).
struct LayerShape {
  std::uint32_t d_in, d_out, r, c, act_bytes, psum_bytes;
};

void PrintTo(const LayerShape& c, std::ostream* os) {
  *os << c.d_in << " -> " << c.d_out << " on " << c.r << "x" << c.c << ", act " << c.act_bytes << " B, psum "
      << c.psum_bytes << " B";
}

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
  EXPECT_EQ(hops.at(Phase::forward, MessageKind::lane),
            std::uint64_t{s.act_bytes} * tokens * s.d_in * (s.c - 1));
  EXPECT_EQ(hops.at(Phase::forward, MessageKind::psum),
            std::uint64_t{s.psum_bytes} * tokens * s.d_out * (s.r - 1));
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
                         [](const auto& test) {
                           const LayerShape& s = test.param;
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
  EXPECT_EQ(r.counters.bytes.at(Phase::forward, MessageKind::redistribution),
            2ull * tokens * width * (layers - 1));
}

TEST(Redistribution, RowMajorPlacementPaysTheManhattanDistanceOfEveryPiece) {
  // Brute force: each overlap of a producer column range and a consumer row range moves from the
  // producer's output tile to the consumer's lane entry, b_a bytes per element and token.
  const sim::Config config =
      config_with({"--model.widths=20,30,17,12", "--mapping.block=3x4", "--mapping.placement=rowmajor",
                   "--step.tokens=6", "--step.wavefront=6", "--sim.arith=none"});
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
        expected +=
            2ull * 6 * overlap.size * static_cast<std::uint64_t>(std::abs(a.x - b.x) + std::abs(a.y - b.y));
      }
    }
  }
  EXPECT_GT(expected,
            2ull * 6 * (30 + 17));  // more than one hop per element: the point of the naive placement
  EXPECT_EQ(r.counters.byte_hops.at(Phase::forward, MessageKind::redistribution), expected);
}

TEST(Depth, OneLayerIsHostHopPlusLanePlusColumn) {
  // Inputs enter on the grid edge (1 hop), cross c - 1 lane hops, then r - 1 partial-sum hops; the mse loss
  // adds nothing.
  for (auto [r, c] : {std::pair{3u, 5u}, std::pair{4u, 1u}, std::pair{1u, 6u}, std::pair{7u, 2u}}) {
    const RunResult res =
        run_with({"--model.widths=37,53", "--mapping.block=" + std::to_string(r) + "x" + std::to_string(c),
                  "--step.tokens=4", "--step.wavefront=2", "--sim.arith=none"},
                 "forward");
    EXPECT_EQ(res.counters.depth, 1 + (c - 1) + (r - 1)) << r << "x" << c;
  }
}

TEST(Depth, CrossEntropyAddsTheScalarChainAlongTheOutputTiles) {
  const RunResult res =
      run_with({"--model.widths=37,53", "--mapping.block=3x5", "--model.loss=cross-entropy",
                "--data.task=mixture", "--step.tokens=4", "--step.wavefront=2", "--sim.arith=none"},
               "forward");
  // Output column j is ready at stamp 1 + j + (r - 1); the reduce chain j -> j + 1 keeps pace with it (stamp
  // 1 + j + (r - 1) at column j), so it ends at 1 + (c - 1) + (r - 1) on the last column, and the broadcast
  // back to column 0 adds c - 1.
  EXPECT_EQ(res.counters.depth, 1u + 4 + 2 + 4);
  EXPECT_EQ(res.counters.byte_hops.at(Phase::forward, MessageKind::scalar), 2ull * 4 * 2 * (5 - 1));
  // The scalars are partial sums (b_p bytes each, docs/model.md), not activations: with b_p = 3 != b_a = 2,
  // b_p T x (the reduce and the broadcast) x (c - 1) one-hop links.
  const RunResult wide = run_with(
      {"--model.widths=37,53", "--mapping.block=3x5", "--model.loss=cross-entropy", "--data.task=mixture",
       "--step.tokens=4", "--step.wavefront=2", "--machine.psum_bytes=3", "--sim.arith=none"},
      "forward");
  EXPECT_EQ(wide.counters.byte_hops.at(Phase::forward, MessageKind::scalar), 3ull * 4 * 2 * (5 - 1));
}

// Counting mode (sim.arith=none) moves no value, yet must send, store and compute exactly what arithmetic
// mode does: every counter and every per-tile count equal to fp32's and fp64's, for every schedule. The odd
// cases use sizes that divide nothing (ragged blocks, a ragged last wavefront, a checkpoint segment that
// does not divide the depth), finite links and compute (so that timing, hence the makespan and the storage
// integrals, depends on every message's size and every computation's work), Adam and two steps (the update
// and a second step on updated weights), and cross-entropy where the schedule allows it (its scalar chain).
// Shown to fail (temporary mutations, reverted): forward-gradient's estimate counting its flops and SRAM
// only with values, a checkpoint restart reading twice the SRAM with values, the split's tangents' SRAM
// access counted only with values, or rebroadcast lane inputs that only travel when they hold values, each
// failed only the cases of its schedule.
struct CountingCase {
  std::string name;
  std::string schedule;
  std::vector<std::string> overrides;  // besides sim.arith
};

void PrintTo(const CountingCase& c, std::ostream* os) {
  *os << c.schedule;
  for (const std::string& o : c.overrides) *os << " " << o;
}

std::vector<std::string> odd_mlp(std::vector<std::string> extra, const std::string& loss = "cross-entropy") {
  std::vector<std::string> o = {"--model.widths=11,13,9,7,5",
                                "--mapping.block=2x3",
                                "--model.loss=" + loss,
                                "--data.task=" + std::string(loss == "mse" ? "teacher" : "mixture"),
                                "--step.tokens=13",
                                "--step.wavefront=4",
                                "--machine.link_bytes_per_cycle=3",
                                "--machine.flops_per_cycle=7",
                                "--machine.sram_bytes=400",
                                "--train.optimizer=adam",
                                "--train.steps=2"};
  o.insert(o.end(), extra.begin(), extra.end());
  return o;
}

class CountingMode : public ::testing::TestWithParam<CountingCase> {};

TEST_P(CountingMode, GivesTheSameCountersAsArithmetic) {
  const CountingCase& c = GetParam();
  auto with = [&](const char* arith) {
    auto o = c.overrides;
    o.push_back(std::string("--sim.arith=") + arith);
    return run_with(o, c.schedule);
  };
  const RunResult none = with("none");
  ASSERT_GT(none.counters.total_flops(), 0u);
  for (const char* arith : {"fp32", "fp64"}) {
    SCOPED_TRACE(arith);
    const RunResult real = with(arith);
    ASSERT_FALSE(real.loss_per_step.empty());  // values were computed
    EXPECT_TRUE(none.counters == real.counters);
    EXPECT_EQ(none.counters.byte_hops, real.counters.byte_hops);
    EXPECT_EQ(none.counters.flops, real.counters.flops);
    EXPECT_EQ(none.counters.sram_bytes, real.counters.sram_bytes);
    EXPECT_EQ(none.counters.makespan_cycles, real.counters.makespan_cycles);
    EXPECT_EQ(none.counters.inflight_byte_cycles, real.counters.inflight_byte_cycles);
    EXPECT_TRUE(none.tiles == real.tiles);
    EXPECT_EQ(none.max_checkpoints, real.max_checkpoints);
    ASSERT_EQ(none.overflows.size(), real.overflows.size());
    for (std::size_t k = 0; k < none.overflows.size(); ++k) {
      EXPECT_EQ(none.overflows[k].tile, real.overflows[k].tile);
      EXPECT_EQ(none.overflows[k].category, real.overflows[k].category);
      EXPECT_EQ(none.overflows[k].excess_bytes, real.overflows[k].excess_bytes);
      EXPECT_EQ(none.overflows[k].first_cycle, real.overflows[k].first_cycle);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Schedules, CountingMode,
    ::testing::Values(
        CountingCase{"forward",
                     "forward",
                     {"--model.widths=37,53,29,11", "--mapping.block=3x5", "--model.loss=cross-entropy",
                      "--data.task=mixture", "--step.tokens=23", "--step.wavefront=5",
                      "--machine.link_bytes_per_cycle=16", "--machine.flops_per_cycle=64"}},
        CountingCase{"backprop",
                     "backprop",
                     {"--model.widths=37,53,29,11", "--mapping.block=3x5", "--model.loss=cross-entropy",
                      "--data.task=mixture", "--step.tokens=23", "--step.wavefront=5",
                      "--machine.link_bytes_per_cycle=16", "--machine.flops_per_cycle=64"}},
        CountingCase{"odd_backprop", "backprop", odd_mlp({})},
        CountingCase{"odd_backprop_rebroadcast", "backprop", odd_mlp({"--backprop.xstash=rebroadcast"})},
        CountingCase{"odd_checkpoint", "checkpoint", odd_mlp({"--checkpoint.segment=3"})},
        CountingCase{"odd_revolve", "revolve", odd_mlp({"--revolve.slots=2"})},
        CountingCase{"odd_forward_gradient", "forward-gradient", odd_mlp({"--fg.tangents=3"})},
        CountingCase{"odd_forward_gradient_rademacher", "forward-gradient",
                     odd_mlp({"--fg.tangents=2", "--fg.tangent=rademacher"}, "mse")},
        CountingCase{"odd_split_fg", "split-fg", odd_mlp({"--fg.tangents=3", "--splitfg.split=2"})},
        CountingCase{"odd_split_fg_deep_trunk", "split-fg",
                     odd_mlp({"--fg.tangents=3", "--splitfg.split=3"})},
        // Pipeline stages (layers sharing tiles): 4 layers on 3 stages (2, 1, 1) and on 2.
        CountingCase{"odd_backprop_three_stages", "backprop", odd_mlp({"--mapping.stages=3"})},
        CountingCase{"odd_checkpoint_two_stages", "checkpoint",
                     odd_mlp({"--checkpoint.segment=3", "--mapping.stages=2"})},
        CountingCase{"odd_split_fg_three_stages", "split-fg",
                     odd_mlp({"--fg.tangents=3", "--splitfg.split=2", "--mapping.stages=3"})},
        CountingCase{
            "odd_reversible",
            "reversible",
            {"--model.kind=reversible", "--model.inputs=11", "--model.width=14", "--model.depth=3",
             "--model.outputs=7", "--mapping.block=2x3", "--model.loss=cross-entropy", "--data.task=mixture",
             "--step.tokens=13", "--step.wavefront=4", "--machine.link_bytes_per_cycle=3",
             "--machine.flops_per_cycle=7", "--train.optimizer=adam", "--train.steps=2"}}),
    [](const auto& test) { return test.param.name; });

}  // namespace
}  // namespace spatialsim::workloads
