// The reversible coupling network on the grid (docs/reversible.md): gradients against the independent
// dense reference in fp64, the reconstruction drift measured and reported, the inference baseline, and
// bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <ostream>
#include <string>
#include <vector>

#include "tests/test_names.h"
#include "tests/workloads/gradient_expectations.h"
#include "tests/workloads/network_test_support.h"
#include "workloads/reference/dense_reversible.h"

namespace spatialsim::workloads {
namespace {

using testing_support::config_with;
using testing_support::relative_error;
using testing_support::run_with;

reference::DenseReversible dense_reversible(const ModelSpec& model, const NetworkParameters& params) {
  std::vector<reference::DenseLayer> layers;
  for (const auto& p : params) layers.push_back({p.weights, p.bias});
  reference::DenseReversible net;
  net.activation = model.activation;
  net.loss = model.loss;
  return reference::with_layers(net, std::move(layers));
}

struct ReversibleCase {
  std::uint32_t inputs, width, depth, outputs;
  std::string block, activation, loss, placement, bias;
  std::uint32_t tokens, wavefront;
};

void PrintTo(const ReversibleCase& c, std::ostream* os) {
  *os << c.inputs << " -> " << c.width << " x " << c.depth << " -> " << c.outputs << ", block " << c.block
      << ", " << c.activation << ", " << c.loss << ", " << c.placement << ", bias " << c.bias << ", T "
      << c.tokens << ", B " << c.wavefront;
}

std::vector<std::string> overrides_of(const ReversibleCase& c, const std::string& arith) {
  return {"--model.kind=reversible",
          "--model.inputs=" + std::to_string(c.inputs),
          "--model.width=" + std::to_string(c.width),
          "--model.depth=" + std::to_string(c.depth),
          "--model.outputs=" + std::to_string(c.outputs),
          "--mapping.block=" + c.block,
          "--model.activation=" + c.activation,
          "--model.loss=" + c.loss,
          "--model.bias=" + c.bias,
          "--mapping.placement=" + c.placement,
          "--step.tokens=" + std::to_string(c.tokens),
          "--step.wavefront=" + std::to_string(c.wavefront),
          "--sim.arith=" + arith,
          "--data.task=" + std::string(c.loss == "mse" ? "teacher" : "mixture")};
}

class ReversibleGradient : public ::testing::TestWithParam<ReversibleCase> {};

TEST_P(ReversibleGradient, EqualsTheDenseReferenceInFp64AndReportsTheDrift) {
  const auto overrides = overrides_of(GetParam(), "fp64");
  const RunResult r = run_with(overrides, "reversible");
  const RunSetup setup = setup_from_config(config_with(overrides));
  const auto net = dense_reversible(setup.model, r.initial_parameters);
  ASSERT_EQ(r.first_step_gradients.size(), 2 * GetParam().depth + 2);
  testing_support::expect_first_step_gradients(
      r, reference::gradients(net, r.first_step_data.inputs, r.first_step_data.targets), 1e-9);
  // Drift is measured over the whole trunk and reported; in fp64 it is round-off.
  ASSERT_TRUE(r.reconstruction_drift.has_value());
  EXPECT_GT(r.reconstruction_drift->max_abs_value, 0.0);
  EXPECT_LE(r.reconstruction_drift->relative(), 1e-13);
}

INSTANTIATE_TEST_SUITE_P(
    OddSizesUnevenSplits, ReversibleGradient,
    ::testing::Values(ReversibleCase{7, 10, 3, 5, "3x3", "tanh", "mse", "zigzag", "true", 13, 4},
                      ReversibleCase{9, 14, 2, 6, "3x2", "gelu", "cross-entropy", "rowmajor", "true", 11, 3},
                      ReversibleCase{5, 8, 4, 3, "1x1", "gelu", "mse", "zigzag", "true", 7, 7},
                      // relu with one block only: docs/reversible.md, "relu and exact zeros".
                      ReversibleCase{5, 8, 1, 3, "2x2", "relu", "mse", "zigzag", "true", 7, 3},
                      ReversibleCase{6, 12, 1, 4, "4x4", "identity", "cross-entropy", "zigzag", "false", 9,
                                     2},
                      ReversibleCase{13, 22, 3, 7, "3x5", "tanh", "mse", "rowmajor", "true", 10, 3}),
    [](const auto& test) {
      const ReversibleCase& c = test.param;
      return testing_support::gtest_name(std::to_string(c.width) + "_L" + std::to_string(c.depth) + "_" +
                                         c.block + "_" + c.activation + "_" + c.loss + "_" + c.placement +
                                         "_bias" + c.bias);
    });

TEST(ReversibleDrift, IsMeasuredNotHiddenInFp32) {
  // fp32 rounding makes (a + F(b)) - F(b) differ from a: the drift is visible, and small.
  const ReversibleCase c{7, 10, 6, 5, "2x2", "tanh", "mse", "zigzag", "true", 13, 4};
  const RunResult r = run_with(overrides_of(c, "fp32"), "reversible");
  ASSERT_TRUE(r.reconstruction_drift.has_value());
  EXPECT_GT(r.reconstruction_drift->max_abs_error, 0.0);
  EXPECT_LT(r.reconstruction_drift->relative(), 1e-5);
}

TEST(ReversibleForward, IsTheInferenceBaselineAndMatchesTheReferenceOutputs) {
  const ReversibleCase c{9, 14, 2, 6, "3x2", "gelu", "cross-entropy", "zigzag", "true", 11, 3};
  const auto overrides = overrides_of(c, "fp64");
  const RunResult r = run_with(overrides, "forward");
  EXPECT_TRUE(r.first_step_gradients.empty());
  EXPECT_FALSE(r.reconstruction_drift.has_value());
  EXPECT_EQ(r.counters.peak_stash_bytes, 0u);
  EXPECT_EQ(r.counters.byte_hops.phase_total(sim::Phase::backward), 0u);
  const RunSetup setup = setup_from_config(config_with(overrides));
  const auto trace =
      reference::forward(dense_reversible(setup.model, r.initial_parameters), r.first_step_data.inputs);
  EXPECT_LE(relative_error(r.first_step_outputs, trace.outputs), 1e-13);
}

// ---- bad input ----

std::string config_error_key(const std::vector<std::string>& overrides, const std::string& schedule) {
  try {
    run_with(overrides, schedule);
  } catch (const sim::ConfigError& e) {
    return e.key();
  }
  return "(no error)";
}

TEST(ReversibleConfig, AnOddWidthNamesModelWidth) {
  EXPECT_EQ(config_error_key({"--model.kind=reversible", "--model.width=63"}, "reversible"), "model.width");
}

TEST(ReversibleConfig, ModelWidthsCannotDescribeAReversibleModel) {
  EXPECT_EQ(config_error_key({"--model.kind=reversible", "--model.widths=8,8,8"}, "reversible"),
            "model.widths");
}

TEST(ReversibleConfig, ABlockThatDoesNotFitFOrGNamesMappingBlock) {
  // F and G are width/2 x width/2 = 3 x 3: a 4 x 2 block does not fit them.
  EXPECT_EQ(
      config_error_key({"--model.kind=reversible", "--model.width=6", "--mapping.block=4x2"}, "reversible"),
      "mapping.block");
}

TEST(ReversibleConfig, SchedulesAndModelKindsMustMatch) {
  EXPECT_EQ(config_error_key({"--model.kind=mlp"}, "reversible"), "schedule");
  EXPECT_EQ(config_error_key({"--model.kind=reversible"}, "backprop"), "schedule");
  EXPECT_EQ(config_error_key({"--model.kind=reversible", "--sim.arith=none"}, "forward"), "(no error)");
}

}  // namespace
}  // namespace spatialsim::workloads
