// Store versus recompute: checkpoint and revolve rebuild what backprop stashes, give backprop's gradients,
// and recompute exactly as many layers as their plans (and revolve's closed form) say.
#include <gtest/gtest.h>

#include <cmath>

#include "tests/test_names.h"
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
};

class RecomputeGradient : public ::testing::TestWithParam<RecomputeCase> {};

TEST_P(RecomputeGradient, EqualsBackpropsInFp64) {
  const RecomputeCase& c = GetParam();
  std::vector<std::string> base = {"--model.widths=" + c.widths,
                                   "--mapping.block=2x3",
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
        RecomputeCase{"revolve", "--revolve.slots=3", "9,14,11,8,7,5,6,9", "relu", "mse"}),
    [](const auto& test) {
      return testing_support::gtest_name(test.param.schedule +
                                         test.param.option.substr(test.param.option.find('=')) + "_" +
                                         test.param.activation);
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

}  // namespace
}  // namespace spatialsim::workloads
