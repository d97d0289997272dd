// Backprop on the grid: the gradient assembled from the tiles against the dense reference, and the
// backward traffic and stash timeline against closed forms computed independently.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <ostream>
#include <string>

#include "sim/text.h"
#include "tests/test_names.h"
#include "tests/workloads/gradient_expectations.h"
#include "tests/workloads/layer_timeline.h"
#include "tests/workloads/layout_formulas.h"
#include "tests/workloads/network_test_support.h"

namespace spatialsim::workloads {
namespace {

using sim::MessageKind;
using sim::Phase;
using testing_support::config_with;
using testing_support::run_with;

struct GradientCase {
  std::string widths;
  std::string block;
  std::string activation;
  std::string loss;
  std::string xstash;
  std::string placement;
  std::uint32_t tokens;
  std::uint32_t wavefront;
};

// gtest prints a failing case by its name, not its bytes.
void PrintTo(const GradientCase& c, std::ostream* os) {
  *os << "widths " << c.widths << ", " << c.block << " " << c.placement << ", " << c.activation << ", "
      << c.loss << ", xstash " << c.xstash << ", " << c.tokens << " tokens in wavefronts of " << c.wavefront;
}

// The run a case describes, in `arith` (the data task follows the loss).
std::vector<std::string> overrides_for(const GradientCase& c, const std::string& arith) {
  return {"--model.widths=" + c.widths,
          "--mapping.block=" + c.block,
          "--model.activation=" + c.activation,
          "--model.loss=" + c.loss,
          "--backprop.xstash=" + c.xstash,
          "--mapping.placement=" + c.placement,
          "--step.tokens=" + std::to_string(c.tokens),
          "--step.wavefront=" + std::to_string(c.wavefront),
          "--sim.arith=" + arith,
          "--data.task=" + std::string(c.loss == "mse" ? "teacher" : "mixture")};
}

class BackpropGradient : public ::testing::TestWithParam<GradientCase> {};

TEST_P(BackpropGradient, EqualsTheDenseReferenceInFp64) {
  testing_support::expect_dense_mlp_gradients(overrides_for(GetParam(), "fp64"), "backprop");
}

INSTANTIATE_TEST_SUITE_P(
    OddSizesUnevenSplits, BackpropGradient,
    ::testing::Values(
        GradientCase{"37,53,29,11", "3x5", "relu", "mse", "replicate", "zigzag", 23, 5},
        GradientCase{"37,53,29,11", "3x5", "relu", "mse", "rebroadcast", "zigzag", 23, 5},
        GradientCase{"37,53,29,11", "3x5", "tanh", "cross-entropy", "replicate", "rowmajor", 19, 4},
        GradientCase{"37,53,29,11", "3x5", "gelu", "cross-entropy", "rebroadcast", "zigzag", 19, 4},
        GradientCase{"17,23,13,9,7", "2x3", "gelu", "mse", "rebroadcast", "rowmajor", 13, 2},
        GradientCase{"12,12,12,12", "4x4", "tanh", "mse", "replicate", "zigzag", 16, 4},
        GradientCase{"9,14,6", "1x1", "relu", "cross-entropy", "replicate", "zigzag", 7, 7},
        GradientCase{"9,14,6", "5x1", "identity", "mse", "rebroadcast", "zigzag", 7, 3}),
    [](const auto& test) {
      const GradientCase& c = test.param;
      return testing_support::gtest_name(c.widths + "_" + c.block + "_" + c.activation + "_" + c.loss + "_" +
                                         c.xstash + "_" + c.placement);
    });

// MODEL.md section 4, per token and layer: dY back along columns b_a d_out (r - 1); dX shares back along
// rows b_p d_in (c - 1) (not for the first layer, whose dX nobody needs); rebroadcast b_a d_in (c - 1).
class BackwardTraffic : public ::testing::TestWithParam<std::string> {};

TEST_P(BackwardTraffic, MatchesTheClosedFormsPerKind) {
  const std::string xstash = GetParam();
  const std::vector<std::uint32_t> widths = {37, 53, 29, 11};
  const std::uint32_t r = 3, c = 5, tokens = 23, b_a = 2, b_p = 4;
  const RunResult res =
      run_with({"--model.widths=37,53,29,11", "--mapping.block=3x5", "--step.tokens=23", "--step.wavefront=5",
                "--machine.psum_bytes=4", "--backprop.xstash=" + xstash, "--sim.arith=none"},
               "backprop");
  std::uint64_t column = 0, rows = 0, rebroadcast = 0, redistribution = 0;
  for (std::size_t l = 0; l + 1 < widths.size(); ++l) {
    const std::uint64_t d_in = widths[l], d_out = widths[l + 1];
    column += std::uint64_t{b_a} * tokens * d_out * (r - 1);
    if (l > 0) rows += std::uint64_t{b_p} * tokens * d_in * (c - 1);
    rebroadcast += std::uint64_t{b_a} * tokens * d_in * (c - 1);
  }
  // Redistribution in reverse: the zigzag placement makes every element one hop, but only where the
  // partitions match (c = 5 columns feed r = 3 lanes here, so pieces travel further): brute force.
  const sim::Config config = config_with({"--model.widths=37,53,29,11", "--mapping.block=3x5"});
  const RunSetup setup = setup_from_config(config);
  for (std::uint32_t l = 0; l + 1 < setup.model.layers(); ++l) {
    const auto cols = mappings::split(widths[l + 1], c);
    const auto lanes = mappings::split(widths[l + 1], r);
    for (std::uint32_t j = 0; j < c; ++j)
      for (std::uint32_t i = 0; i < r; ++i) {
        const auto a = setup.placement.blocks[l].output_tile(j);
        const auto b = setup.placement.blocks[l + 1].lane_entry(i);
        redistribution += std::uint64_t{b_a} * tokens * mappings::intersect(cols[j], lanes[i]).size *
                          static_cast<std::uint64_t>(std::abs(a.x - b.x) + std::abs(a.y - b.y));
      }
  }
  const auto& hops = res.counters.byte_hops;
  EXPECT_EQ(hops.at(Phase::backward, MessageKind::lane), column);
  EXPECT_EQ(hops.at(Phase::backward, MessageKind::psum), rows);
  EXPECT_EQ(hops.at(Phase::backward, MessageKind::rebroadcast), xstash == "rebroadcast" ? rebroadcast : 0);
  EXPECT_EQ(hops.at(Phase::backward, MessageKind::redistribution), redistribution);
  EXPECT_EQ(hops.at(Phase::backward, MessageKind::host), 0u);
  EXPECT_EQ(hops.phase_total(Phase::update), 0u);  // each tile updates its own slice: no traffic
  // Messages, per wavefront (G = 5): c (r - 1) per layer back along the columns, r (c - 1) dX shares per
  // layer but the first, r (c - 1) rebroadcasts per layer, one per overlapping piece at each boundary.
  const std::uint64_t G = 5, L = widths.size() - 1;
  std::uint64_t pieces = 0;
  for (std::uint32_t l = 0; l + 1 < L; ++l)
    testing_support::for_each_piece(setup, l, [&](std::uint32_t, std::uint32_t, std::uint32_t) { ++pieces; });
  const auto& messages = res.counters.messages;
  EXPECT_EQ(messages.at(Phase::backward, MessageKind::lane), G * L * c * (r - 1));
  EXPECT_EQ(messages.at(Phase::backward, MessageKind::psum), G * (L - 1) * r * (c - 1));
  EXPECT_EQ(messages.at(Phase::backward, MessageKind::rebroadcast),
            xstash == "rebroadcast" ? G * L * r * (c - 1) : 0);
  EXPECT_EQ(messages.at(Phase::backward, MessageKind::redistribution), G * pieces);
  // The forward part of the step is exactly the forward schedule's.
  const RunResult fwd = run_with({"--model.widths=37,53,29,11", "--mapping.block=3x5", "--step.tokens=23",
                                  "--step.wavefront=5", "--machine.psum_bytes=4", "--sim.arith=none"},
                                 "forward");
  for (std::size_t k = 0; k < sim::kMessageKindCount; ++k)
    EXPECT_EQ(hops.cells[sim::index(Phase::forward)][k],
              fwd.counters.byte_hops.cells[sim::index(Phase::forward)][k]);
  // FLOPs: forward 2 d_in d_out, backward dW 2 d_in d_out and dX 2 d_in d_out except the first layer.
  std::uint64_t backward_flops = 0;
  for (std::size_t l = 0; l + 1 < widths.size(); ++l)
    backward_flops += (l > 0 ? 4ull : 2ull) * tokens * widths[l] * widths[l + 1];
  EXPECT_EQ(res.counters.flops[sim::index(Phase::backward)], backward_flops);
}

INSTANTIATE_TEST_SUITE_P(BothVariants, BackwardTraffic, ::testing::Values("replicate", "rebroadcast"));

// In-flight storage of one wavefront, from the layer timings alone (latency-only links, 1 cycle per hop,
// instantaneous compute, matching partitions on the zigzag placement). Within a block, X reaches tile
// (i, j) |j - entry| cycles after entering lane i; a column's partial sum advances one row per cycle but
// cannot pass a tile before that tile has its X; outputs move one hop to the next block's lanes. Backward
// mirrors it: dZ reaches row i |i - output row| cycles after the column starts, the dX shares advance one
// column per cycle toward the entry but not before a tile has its own share. X is stashed on each tile
// from its arrival until dZ arrives there; Z on the output tile from the column's end until its backward
// start. inflight_byte_cycles must equal sum(bytes x lifetime).
TEST(BackpropStash, SingleWavefrontInflightEqualsBytesTimesLifetimeFromLayerTimings) {
  const std::uint32_t tokens = 3, b_a = 2;
  const std::vector<std::string> overrides = {"--model.widths=8,8,8,8,8", "--mapping.block=2x2",
                                              "--step.tokens=3",          "--step.wavefront=3",
                                              "--model.activation=relu",  "--sim.arith=none"};
  const RunResult res = run_with(overrides, "backprop");
  const RunSetup setup = setup_from_config(config_with(overrides));
  const std::uint32_t L = setup.model.layers();
  const std::uint32_t n = 2;
  const std::uint64_t slice = std::uint64_t{b_a} * tokens * (8 / n);
  auto dist = [](std::uint32_t a, std::uint32_t b) { return std::uint64_t{a > b ? a - b : b - a}; };

  std::vector<std::uint64_t> entry(n, 1);  // lane entry times of the current block (one host hop)
  std::vector<std::vector<std::uint64_t>> x_arrival(L), column_end(L);
  for (std::uint32_t l = 0; l < L; ++l) {
    const auto& b = setup.placement.blocks[l];
    x_arrival[l].assign(n * n, 0);
    column_end[l].assign(n, 0);
    for (std::uint32_t i = 0; i < n; ++i)
      for (std::uint32_t j = 0; j < n; ++j) x_arrival[l][i * n + j] = entry[i] + dist(j, b.entry_col());
    for (std::uint32_t j = 0; j < n; ++j) {
      std::uint64_t t = 0;
      for (std::uint32_t step = 0; step < n; ++step) {
        const std::uint32_t i = b.outputs_at_first_row ? n - 1 - step : step;
        t = std::max(step == 0 ? 0 : t + 1, x_arrival[l][i * n + j]);
      }
      column_end[l][j] = t;
    }
    for (std::uint32_t i = 0; i < n; ++i) entry[i] = column_end[l][i] + 1;  // column i feeds lane i
  }
  std::vector<std::uint64_t> start(column_end[L - 1]);  // mse: dL/dy is known where y is
  std::uint64_t expected = 0;
  for (std::uint32_t l = L; l-- > 0;) {
    const auto& b = setup.placement.blocks[l];
    std::vector<std::uint64_t> dz(n * n);
    for (std::uint32_t i = 0; i < n; ++i)
      for (std::uint32_t j = 0; j < n; ++j) {
        dz[i * n + j] = start[j] + dist(i, b.output_row());
        expected += slice * (dz[i * n + j] - x_arrival[l][i * n + j]);
      }
    if (l + 1 < L)
      for (std::uint32_t j = 0; j < n; ++j) expected += slice * (start[j] - column_end[l][j]);
    std::vector<std::uint64_t> next_start(n);
    for (std::uint32_t i = 0; i < n; ++i) {
      std::uint64_t t = 0;
      for (std::uint32_t step = 0; step < n; ++step) {
        const std::uint32_t j = b.lanes_enter_at_last_col ? step : n - 1 - step;
        t = std::max(step == 0 ? 0 : t + 1, dz[i * n + j]);
      }
      next_start[i] = t + 1;  // lane i's dX goes back to the previous block's column i
    }
    start = next_start;
  }
  EXPECT_EQ(res.counters.inflight_byte_cycles, expected);
}

// The same timing model, generalised to what a user runs (tests/workloads/layer_timeline.h): widths that do
// not divide among the tiles, r != c (so layer boundaries gather pieces from several producer columns), any
// placement (hops from the tiles' coordinates), and many wavefronts with a smaller last one. With
// latency-only links and instantaneous compute, wavefronts never delay one another: each one's timeline is
// the first one's shifted by its injection time, so its stash lifetimes are the same and only its bytes (its
// tokens) differ. The same timeline gives the run's depth and makespan, and its peaks.
class BackpropTimeline : public ::testing::TestWithParam<GradientCase> {};

TEST_P(BackpropTimeline, InflightPeaksDepthAndMakespanFromLayerTimings) {
  const GradientCase& c = GetParam();
  // The model keeps Z on every layer but the last (an activation) and starts the backward pass where Y and
  // the target are (mse, no reduction).
  ASSERT_TRUE(c.activation == "relu" && c.loss == "mse");
  ASSERT_NE(c.tokens % c.wavefront, 0u) << "the case should end with a smaller wavefront";
  const std::vector<std::string> overrides = overrides_for(c, "none");
  const RunResult res = run_with(overrides, "backprop");
  const RunSetup setup = setup_from_config(config_with(overrides));
  // The timeline reads the bytes per activation and the widths from the setup: pinned to the case here.
  ASSERT_EQ(setup.bytes.activation, 2u);
  ASSERT_EQ(sim::joined(setup.model.widths, ","), c.widths);
  const auto policy = c.xstash == "rebroadcast" ? mappings::XStash::rebroadcast : mappings::XStash::replicate;
  const testing_support::WavefrontTimeline one = testing_support::wavefront_timeline(
      setup, testing_support::every_layer(setup.model.layers(), policy), testing_support::mesh_links(setup));
  const testing_support::StepTotals step =
      testing_support::step_totals(one, c.tokens, c.wavefront, setup.injection_interval);

  // With 1 cycle per hop and instantaneous compute, a value's time from its injection is its depth stamp:
  // the longest chain of hops behind it. The step ends with the last wavefront's last delivery.
  testing_support::expect_step_counts(res.counters, step);
}

INSTANTIATE_TEST_SUITE_P(
    OddSizes, BackpropTimeline,
    ::testing::Values(
        // r != c: 13 features leave 3 producer columns (5, 4, 4) and enter 2 lanes (7, 6), which gather two
        // pieces each; 43 tokens in 9 wavefronts (G >= 2L), the last of 3.
        GradientCase{"11,13,13,10,7", "2x3", "relu", "mse", "replicate", "zigzag", 43, 5},
        GradientCase{"11,13,13,10,7", "2x3", "relu", "mse", "rebroadcast", "zigzag", 43, 5},
        // rowmajor: layer boundaries several hops long; 3 x 2 blocks.
        GradientCase{"9,7,12,5", "3x2", "relu", "mse", "replicate", "rowmajor", 20, 6},
        GradientCase{"9,7,12,5", "3x2", "relu", "mse", "rebroadcast", "rowmajor", 20, 6}),
    [](const ::testing::TestParamInfo<GradientCase>& param_info) {
      return testing_support::gtest_name(param_info.param.placement + "_" + param_info.param.block + "_" +
                                         param_info.param.xstash);
    });

TEST(BackpropStash, ReplicateStashesEveryTileRebroadcastOnlyTheEntry) {
  // One layer on 3 x 2 tiles, one wavefront: every tile has its X (at entry + j <= entry + 1) before the
  // first dZ reaches any tile (entry + r - 1 = entry + 2), so the peak is the whole stash.
  auto peak = [](const char* xstash) {
    return run_with({"--model.widths=30,20", "--mapping.block=3x2", "--step.tokens=6", "--step.wavefront=6",
                     std::string("--backprop.xstash=") + xstash, "--sim.arith=none"},
                    "backprop")
        .counters.peak_stash_bytes;
  };
  EXPECT_EQ(peak("replicate"), 2ull * 6 * 30 * 2);  // b_a T d_in c
  EXPECT_EQ(peak("rebroadcast"), 2ull * 6 * 30);    // b_a T d_in
}

}  // namespace
}  // namespace spatialsim::workloads
