// The forward-gradient estimators over many independent tangent draws (fg.seed = 1..N, same weights and
// data): the mean matches the exact gradient within 4 standard errors per coordinate, and the measured
// per-coordinate variance matches MODEL.md section 7: (||g||^2 + g_i^2)/K with Gaussian tangents,
// (||g||^2 - g_i^2)/K with Rademacher ones, g restricted to the trunk for split-fg, whose head equals
// backprop's gradient exactly.
#include <gtest/gtest.h>

#include <cmath>
#include <ostream>
#include <string>

#include "tests/test_names.h"
#include "tests/workloads/forward_gradient_support.h"
#include "tests/workloads/network_test_support.h"

namespace spatialsim::workloads {
namespace {

using testing_support::config_with;
using testing_support::run_with;

struct StatCase {
  std::string schedule;
  std::string tangent;
  std::uint32_t split;  // trunk layers for split-fg
};

void PrintTo(const StatCase& c, std::ostream* os) {
  *os << c.schedule << ", " << c.tangent << " tangents, split " << c.split;
}

class ForwardGradientStatistics : public ::testing::TestWithParam<StatCase> {};

TEST_P(ForwardGradientStatistics, MeanAndVarianceMatchTheFormulas) {
  const StatCase& c = GetParam();
  constexpr std::uint32_t kDraws = 300;
  constexpr std::uint32_t K = 2;
  const std::vector<std::string> base = {
      "--model.widths=5,4,3", "--mapping.block=2x2",       "--model.activation=tanh",
      "--step.tokens=6",      "--step.wavefront=3",        "--sim.arith=fp64",
      "--fg.tangents=2",      "--fg.tangent=" + c.tangent, "--splitfg.split=" + std::to_string(c.split)};
  const RunSetup setup = setup_from_config(config_with(base));
  const std::uint32_t L = setup.model.layers();
  const std::uint32_t trunk = c.schedule == "split-fg" ? c.split : L;

  std::vector<double> sum;
  std::vector<double> sum_sq;
  std::vector<std::vector<double>> draws;
  RunResult first;
  for (std::uint32_t s = 1; s <= kDraws; ++s) {
    auto o = base;
    o.push_back("--fg.seed=" + std::to_string(s));
    RunResult r = run_with(o, c.schedule);
    draws.push_back(testing_support::flatten(r.first_step_gradients, 0, L));
    if (s == 1) first = std::move(r);
  }
  const auto net = testing_support::dense_net(setup.model, first.initial_parameters);
  const auto exact = reference::gradients(net, first.first_step_data.inputs, first.first_step_data.targets);
  const auto g = testing_support::flatten(exact, 0, L);
  const std::size_t trunk_size = testing_support::flatten(exact, 0, trunk).size();
  double trunk_norm2 = 0;
  for (std::size_t i = 0; i < trunk_size; ++i) trunk_norm2 += g[i] * g[i];

  for (std::size_t i = 0; i < g.size(); ++i) {
    if (i >= trunk_size) {  // split-fg's head: backprop, the same in every draw
      for (const auto& d : draws)
        EXPECT_NEAR(d[i], g[i], 1e-12 * std::sqrt(trunk_norm2)) << "head coordinate " << i;
      continue;
    }
    double mean = 0;
    for (const auto& d : draws) mean += d[i];
    mean /= kDraws;
    double var = 0;
    double m4 = 0;
    for (const auto& d : draws) {
      const double e = d[i] - mean;
      var += e * e;
      m4 += e * e * e * e;
    }
    var /= kDraws - 1;
    m4 /= kDraws;
    EXPECT_LE(std::abs(mean - g[i]), 4 * std::sqrt(var / kDraws)) << "coordinate " << i;
    const double expected =
        (c.tangent == "gaussian" ? trunk_norm2 + g[i] * g[i] : trunk_norm2 - g[i] * g[i]) / K;
    // The sample variance's own standard error, from the fourth central moment.
    const double var_error = std::sqrt(std::max(m4 - var * var, 0.0) / kDraws);
    EXPECT_LE(std::abs(var - expected), 5 * var_error + 1e-12 * expected)
        << "coordinate " << i << " measured " << var << " formula " << expected;
  }
}

INSTANTIATE_TEST_SUITE_P(Estimators, ForwardGradientStatistics,
                         ::testing::Values(StatCase{"forward-gradient", "gaussian", 1},
                                           StatCase{"forward-gradient", "rademacher", 1},
                                           StatCase{"split-fg", "gaussian", 1}),
                         [](const auto& param_info) {
                           return testing_support::gtest_name(param_info.param.schedule + "_" +
                                                              param_info.param.tangent);
                         });

}  // namespace
}  // namespace spatialsim::workloads
