// Store versus recompute: checkpoint and revolve rebuild what backprop stashes, give backprop's gradients,
// and recompute exactly as many layers as their plans (and revolve's closed form) say; checkpointing's
// traffic, forward and recompute, against formulas.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <ostream>
#include <stdexcept>
#include <utility>
#include <vector>

#include "tests/test_names.h"
#include "tests/workloads/layout_formulas.h"
#include "tests/workloads/network_test_support.h"
#include "workloads/schedules/revolve_plan.h"

namespace spatialsim::workloads {
namespace {

using sim::Phase;
using testing_support::relative_error;
using testing_support::run_with;

struct RecomputeCase {
  std::string schedule;
  std::string option;  // the schedule's own option
  std::string widths;
  std::string activation;
  std::string loss;
  std::string block = "2x3";
};

void PrintTo(const RecomputeCase& c, std::ostream* os) {
  *os << c.schedule << ' ' << c.option << ", widths " << c.widths << ", " << c.activation << ", " << c.loss
      << ", block " << c.block;
}

class RecomputeGradient : public ::testing::TestWithParam<RecomputeCase> {};

TEST_P(RecomputeGradient, EqualsBackpropsInFp64) {
  const RecomputeCase& c = GetParam();
  std::vector<std::string> base = {"--model.widths=" + c.widths,
                                   "--mapping.block=" + c.block,
                                   "--model.activation=" + c.activation,
                                   "--model.loss=" + c.loss,
                                   "--data.task=" + std::string(c.loss == "mse" ? "teacher" : "mixture"),
                                   "--step.tokens=13",
                                   "--step.wavefront=3",
                                   "--sim.arith=fp64"};
  const RunResult backprop = run_with(base, "backprop");
  base.push_back(c.option);
  const RunResult other = run_with(base, c.schedule);
  ASSERT_EQ(other.first_step_gradients.size(), backprop.first_step_gradients.size());
  for (std::size_t l = 0; l < backprop.first_step_gradients.size(); ++l) {
    EXPECT_LE(relative_error(other.first_step_gradients[l].weights, backprop.first_step_gradients[l].weights),
              1e-12)
        << "layer " << l;
    for (std::size_t k = 0; k < backprop.first_step_gradients[l].bias.size(); ++k)
      EXPECT_NEAR(other.first_step_gradients[l].bias[k], backprop.first_step_gradients[l].bias[k], 1e-13);
  }
  EXPECT_GT(other.counters.byte_hops.phase_total(Phase::recompute), 0u);
  EXPECT_LT(other.counters.peak_stash_bytes, backprop.counters.peak_stash_bytes);
}

INSTANTIATE_TEST_SUITE_P(
    SegmentsAndSlots, RecomputeGradient,
    ::testing::Values(
        RecomputeCase{"checkpoint", "--checkpoint.segment=1", "9,14,11,8,7,5", "relu", "mse"},
        RecomputeCase{"checkpoint", "--checkpoint.segment=2", "9,14,11,8,7,5", "gelu", "cross-entropy"},
        RecomputeCase{"checkpoint", "--checkpoint.segment=3", "9,14,11,8,7,5", "tanh", "mse"},
        RecomputeCase{"checkpoint", "--checkpoint.segment=0", "9,14,11,8,7,5,6,9", "relu", "cross-entropy"},
        RecomputeCase{"revolve", "--revolve.slots=1", "9,14,11,8,7,5", "tanh", "cross-entropy"},
        RecomputeCase{"revolve", "--revolve.slots=2", "9,14,11,8,7,5,6,9", "gelu", "mse"},
        RecomputeCase{"revolve", "--revolve.slots=3", "9,14,11,8,7,5,6,9", "relu", "mse"},
        // Blocks of one row: a column's backward pass can start while the recomputation's lane is still on
        // its way to the next column (layer 0's episode once threw "backward pass without a stash").
        RecomputeCase{"checkpoint", "--checkpoint.segment=1", "9,14,11,8,7,5", "relu", "mse", "1x3"},
        RecomputeCase{"revolve", "--revolve.slots=2", "9,14,11,8,7,5,6,9", "tanh", "cross-entropy", "1x3"},
        RecomputeCase{"checkpoint", "--checkpoint.segment=2", "9,14,11,8,7,5", "gelu", "mse", "3x1"},
        RecomputeCase{"revolve", "--revolve.slots=1", "9,14,11,8,7,5", "relu", "cross-entropy", "3x1"}),
    [](const auto& test) {
      return testing_support::gtest_name(test.param.schedule +
                                         test.param.option.substr(test.param.option.find('=')) + "_" +
                                         test.param.activation + "_" + test.param.block);
    });

TEST(RevolvePlan, RecomputationsEqualTheBinomialClosedFormAndNeverExceedTheSlots) {
  // p(l, s) = r l - C(s + r, s + 1): the plan's count (layer evaluations after the first pass) for every
  // chain up to 40 layers and 1..6 slots.
  for (std::uint32_t layers = 1; layers <= 40; ++layers) {
    for (std::uint32_t slots = 1; slots <= std::min(6u, layers); ++slots) {
      const RevolvePlan plan = plan_revolve(layers, slots);
      EXPECT_EQ(plan.recomputations, revolve_minimal_forward_steps(layers, slots)) << layers << " " << slots;
      EXPECT_LE(plan.max_checkpoints, slots) << layers << " " << slots;
    }
  }
  // Hand values: one slot means re-running from the input for every layer: 0 + 1 + ... + (L - 1).
  EXPECT_EQ(revolve_minimal_forward_steps(5, 1), 10u);
  EXPECT_EQ(revolve_minimal_forward_steps(2, 1), 1u);
  EXPECT_EQ(revolve_minimal_forward_steps(3, 2), 2u);
  EXPECT_EQ(revolve_minimal_forward_steps(6, 3),
            7u);  // r = 2 since C(4, 3) = 4 < 6 <= C(5, 3) = 10: 12 - C(5, 4)
}

// The split revolve takes, against revolve's recursion worked out in full over a table (as Griewank and
// Walther state it): the smallest k minimizing k + t(n - k, s - 1) + t(k, s), for every chain up to 160
// layers and 2..12 slots, and with slots to spare.
TEST(RevolvePlan, SplitIsTheRecursionsSmallestBest) {
  constexpr std::uint32_t kMaxLayers = 160, kMaxSlots = 12;
  std::vector<std::vector<std::uint64_t>> t(kMaxLayers + 1, std::vector<std::uint64_t>(kMaxSlots + 1));
  std::vector<std::vector<std::uint32_t>> best(kMaxLayers + 1, std::vector<std::uint32_t>(kMaxSlots + 1));
  for (std::uint32_t n = 2; n <= kMaxLayers; ++n) {
    t[n][1] = std::uint64_t{n} * (n - 1) / 2;
    for (std::uint32_t s = 2; s <= kMaxSlots; ++s) {
      t[n][s] = UINT64_MAX;
      for (std::uint32_t k = 1; k < n; ++k)
        if (const std::uint64_t c = k + t[n - k][s - 1] + t[k][s]; c < t[n][s]) {
          t[n][s] = c;
          best[n][s] = k;
        }
      ASSERT_EQ(revolve_split(n, s), best[n][s]) << n << " layers, " << s << " slots";
      ASSERT_EQ(revolve_minimal_forward_steps(n, s), t[n][s]) << n << " layers, " << s << " slots";
    }
  }
  EXPECT_THROW(revolve_split(1, 3), std::invalid_argument);
  EXPECT_THROW(revolve_split(5, 1), std::invalid_argument);
  EXPECT_THROW(revolve_minimal_forward_steps(5, 0), std::invalid_argument);  // it searched forever
}

// Deep chains plan without a table over every (layers, slots) (it took minutes and gigabytes, and wrapped
// its 32-bit index past 65536 x 65536 entries) and without nesting as deep as the slots.
TEST(RevolvePlan, DeepChainsPlanQuickly) {
  for (auto [layers, slots] :
       {std::pair{100000u, 50000u}, std::pair{100000u, 100000u}, std::pair{20000u, 3u}}) {
    const RevolvePlan plan = plan_revolve(layers, slots);
    EXPECT_EQ(plan.recomputations, revolve_minimal_forward_steps(layers, slots)) << layers << " " << slots;
    EXPECT_LE(plan.max_checkpoints, slots) << layers << " " << slots;
    std::uint64_t evaluated = 0;  // the episodes hold every recomputed layer once per evaluation
    for (const auto& e : plan.episodes)
      if (e) evaluated += e->stash.size();
    EXPECT_EQ(evaluated, plan.recomputations) << layers << " " << slots;
  }
}

TEST(RevolveOnTheGrid, RecomputesExactlyThePlansLayersAndHoldsAtMostTheSlots) {
  // Equal widths make every layer's flops 2 T d d, so recompute flops count layer evaluations.
  const std::uint32_t d = 6, tokens = 5;
  for (auto [layers, slots] : {std::pair{7u, 1u}, std::pair{7u, 2u}, std::pair{9u, 3u}, std::pair{12u, 4u}}) {
    const RunResult r =
        run_with({"--model.inputs=6", "--model.width=6", "--model.outputs=6",
                  "--model.depth=" + std::to_string(layers), "--mapping.block=2x2", "--step.tokens=5",
                  "--step.wavefront=5", "--sim.arith=none", "--revolve.slots=" + std::to_string(slots)},
                 "revolve");
    const std::uint64_t per_layer = 2ull * tokens * d * d;
    EXPECT_EQ(r.counters.flops[sim::index(Phase::recompute)],
              per_layer * revolve_minimal_forward_steps(layers, slots))
        << layers << " layers, " << slots << " slots";
    EXPECT_LE(r.max_checkpoints, slots);
    EXPECT_GE(r.max_checkpoints, 1u);
  }
}

TEST(CheckpointOnTheGrid, RecomputesEverySegmentOnceAndKeepsOneCheckpointPerSegment) {
  const std::uint32_t d = 6, tokens = 4, layers = 10;
  for (std::uint32_t segment : {1u, 3u, 4u, 10u}) {
    const RunResult r =
        run_with({"--model.inputs=6", "--model.width=6", "--model.outputs=6", "--model.depth=10",
                  "--mapping.block=2x2", "--step.tokens=4", "--step.wavefront=4", "--sim.arith=none",
                  "--checkpoint.segment=" + std::to_string(segment)},
                 "checkpoint");
    EXPECT_EQ(r.counters.flops[sim::index(Phase::recompute)], 2ull * tokens * d * d * layers) << segment;
    EXPECT_EQ(r.max_checkpoints, (layers + segment - 1) / segment) << segment;
  }
}

// Checkpointing's traffic and SRAM from formulas: the first forward pass moves what any forward pass moves,
// and the recompute phase is one more forward pass of every segment from its checkpoint (MODEL.md section 7):
// every layer's lanes and partial sums once more, the layer boundaries inside a segment once more (a
// segment starts from its checkpoint on the lane entries, not from the previous layer), and per wavefront
// one b_p-byte signal from the segment's last layer's restart column (docs/model.md section 7) to each lane
// entry of its first layer. Expected values from the placement's coordinates and MODEL.md section 4's split,
// on widths that do not divide and blocks with r != c.
struct CheckpointTrafficCase {
  std::string widths;
  std::string block;
  std::string placement;
  std::uint32_t segment;  // as given; 0 = round(sqrt(L))
  std::uint32_t tokens;
  std::uint32_t wavefront;
};

void PrintTo(const CheckpointTrafficCase& c, std::ostream* os) {
  *os << "widths " << c.widths << ", block " << c.block << ", " << c.placement << ", segment " << c.segment
      << ", T " << c.tokens << ", B " << c.wavefront;
}

class CheckpointTraffic : public ::testing::TestWithParam<CheckpointTrafficCase> {};

TEST_P(CheckpointTraffic, ForwardAndRecomputeFromFormulas) {
  using sim::MessageKind;
  using testing_support::manhattan;
  using testing_support::Traffic;
  const CheckpointTrafficCase& c = GetParam();
  const std::vector<std::string> overrides = {
      "--model.widths=" + c.widths, "--mapping.block=" + c.block, "--mapping.placement=" + c.placement,
      "--checkpoint.segment=" + std::to_string(c.segment), "--step.tokens=" + std::to_string(c.tokens),
      "--step.wavefront=" + std::to_string(c.wavefront), "--model.loss=mse",
      // b_p != b_a: a signal or a partial sum sized as an
      // activation shows
      "--machine.psum_bytes=3", "--sim.arith=none"};
  const RunResult r = run_with(overrides, "checkpoint");
  const RunSetup setup = setup_from_config(testing_support::config_with(overrides));
  const std::vector<std::uint32_t>& widths = setup.model.widths;
  const auto L = static_cast<std::uint32_t>(widths.size() - 1);
  const std::uint64_t T = c.tokens, G = (c.tokens + c.wavefront - 1) / c.wavefront;
  const std::uint64_t b_a = setup.bytes.activation, b_p = setup.bytes.partial_sum;
  const std::uint32_t s =
      c.segment != 0 ? c.segment : static_cast<std::uint32_t>(std::lround(std::sqrt(static_cast<double>(L))));
  const auto& blocks = setup.placement.blocks;

  const testing_support::ForwardTraffic f = testing_support::forward_traffic(setup);
  Traffic lane_total, psum_total, boundary_total, inner_boundaries;
  for (std::uint32_t l = 0; l < L; ++l) {
    lane_total += f.lanes[l];
    psum_total += f.psums[l];
    boundary_total += f.boundary[l];
    if ((l + 1) % s != 0) inner_boundaries += f.boundary[l];  // both sides in one segment
  }
  const Traffic& host = f.host;

  auto expect = [&](Phase phase, MessageKind kind, const Traffic& per_token_and_wavefront, const char* what) {
    EXPECT_EQ(r.counters.byte_hops.at(phase, kind), T * per_token_and_wavefront.byte_hops) << what;
    EXPECT_EQ(r.counters.messages.at(phase, kind), G * per_token_and_wavefront.messages) << what;
  };
  expect(Phase::forward, MessageKind::lane, lane_total, "forward lanes");
  expect(Phase::forward, MessageKind::psum, psum_total, "forward partial sums");
  expect(Phase::forward, MessageKind::redistribution, boundary_total, "forward layer boundaries");
  expect(Phase::forward, MessageKind::host, host, "forward host");
  expect(Phase::recompute, MessageKind::lane, lane_total, "recomputed lanes");
  expect(Phase::recompute, MessageKind::psum, psum_total, "recomputed partial sums");
  expect(Phase::recompute, MessageKind::redistribution, inner_boundaries, "recomputed boundaries");
  EXPECT_EQ(r.counters.byte_hops.at(Phase::recompute, MessageKind::host), 0u);
  EXPECT_EQ(r.counters.byte_hops.at(Phase::recompute, MessageKind::rebroadcast), 0u);

  // SRAM (docs/model.md): the first pass reads every weight and bias and writes the checkpoints (the first
  // layer of each segment, on its lane entries); the recomputation reads the weights again, reads each
  // checkpoint back, and writes backprop's stash (X on every tile, Z where an activation follows); the
  // backward pass is backprop's.
  const std::uint64_t b_w = setup.bytes.weight;
  std::uint64_t forward_sram = 0, recompute_sram = 0;
  for (std::uint32_t l = 0; l < L; ++l) {
    const std::uint64_t d_in = widths[l], d_out = widths[l + 1], cols = blocks[l].cols;
    const bool nonlinear = l + 1 < L;
    const std::uint64_t parameters_read = G * (d_in * d_out + d_out) * b_w;
    forward_sram += parameters_read + (l % s == 0 ? b_a * T * d_in : 0);
    recompute_sram += parameters_read + b_a * T * d_in * cols + (nonlinear ? b_a * T * d_out : 0) +
                      (l % s == 0 ? b_a * T * d_in : 0);
  }
  EXPECT_EQ(r.counters.sram_bytes[sim::index(Phase::forward)], forward_sram);
  EXPECT_EQ(r.counters.sram_bytes[sim::index(Phase::recompute)], recompute_sram);
  EXPECT_EQ(r.counters.sram_bytes[sim::index(Phase::backward)],
            testing_support::backprop_backward_sram(setup, T, G));

  // The signals: each segment's last layer signals from its output column nearest to the checkpoint's lane
  // entries (fewest hops in all, the lowest column on a tie), fixed before the run.
  std::uint64_t signal_byte_hops = 0, signals = 0;
  for (std::uint32_t first = 0; first < L; first += s) {
    const std::uint32_t last = std::min(first + s, L) - 1;
    std::uint64_t nearest = UINT64_MAX;
    for (std::uint32_t j = 0; j < blocks[last].cols; ++j) {
      std::uint64_t hops = 0;
      for (std::uint32_t i = 0; i < blocks[first].rows; ++i)
        hops += manhattan(blocks[last].output_tile(j), blocks[first].lane_entry(i));
      nearest = std::min(nearest, hops);
    }
    signal_byte_hops += b_p * nearest;
    signals += blocks[first].rows;
  }
  EXPECT_EQ(r.counters.messages.at(Phase::recompute, MessageKind::scalar), G * signals);
  EXPECT_EQ(r.counters.byte_hops.at(Phase::recompute, MessageKind::scalar), G * signal_byte_hops);
}

INSTANTIATE_TEST_SUITE_P(OddSizes, CheckpointTraffic,
                         ::testing::Values(
                             // 2 x 3 blocks: boundaries gather 2 pieces per lane; segments {0, 1}, {2, 3},
                             // {4}; 5 wavefronts, the last of 3 tokens.
                             CheckpointTrafficCase{"11,13,13,10,7,9", "2x3", "zigzag", 2, 23, 5},
                             // One column per block; segments {0, 1, 2}, {3}.
                             CheckpointTrafficCase{"9,7,12,5,8", "3x1", "rowmajor", 3, 20, 6},
                             // s = round(sqrt(6)) = 2 by default; segments {0, 1}, {2, 3}, {4, 5}.
                             CheckpointTrafficCase{"10,9,9,9,9,9,4", "3x2", "zigzag", 0, 17, 4},
                             // One row per block, layer 0 a segment alone; segments {0}, {1}, {2}, {3}.
                             CheckpointTrafficCase{"7,11,6,9,5", "1x3", "zigzag", 1, 19, 4}),
                         [](const ::testing::TestParamInfo<CheckpointTrafficCase>& param_info) {
                           return testing_support::gtest_name(param_info.param.placement + "_" +
                                                              param_info.param.block + "_s" +
                                                              std::to_string(param_info.param.segment));
                         });

}  // namespace
}  // namespace spatialsim::workloads
