#pragma once
// The first step's gradient assembled from the tiles against a dense reference's (MODEL.md section 8): the
// check every exact schedule's test makes (docs/extending.md), in one place.
//
// Usage:
//   testing_support::expect_dense_mlp_gradients(overrides, "backprop");   // overrides set sim.arith=fp64
//   testing_support::expect_first_step_gradients(run, expected, 1e-9);   // any reference's Gradients
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "tests/workloads/network_test_support.h"

namespace spatialsim::testing_support {

// Every layer's weight gradient within `tolerance` (relative_error), every bias element within
// tolerance * (1 + |b|), and the loss at which it was taken within 1e-12 of the reference's.
inline void expect_first_step_gradients(const workloads::RunResult& run,
                                        const workloads::reference::Gradients& expected, double tolerance) {
  ASSERT_EQ(run.first_step_gradients.size(), expected.weights.size());
  for (std::size_t l = 0; l < expected.weights.size(); ++l) {
    EXPECT_LE(relative_error(run.first_step_gradients[l].weights, expected.weights[l]), tolerance)
        << "layer " << l;
    ASSERT_EQ(run.first_step_gradients[l].bias.size(), expected.bias[l].size()) << "layer " << l;
    for (std::size_t k = 0; k < expected.bias[l].size(); ++k)
      EXPECT_NEAR(run.first_step_gradients[l].bias[k], expected.bias[l][k],
                  tolerance * (1 + std::abs(expected.bias[l][k])))
          << "layer " << l << " bias " << k;
  }
  ASSERT_FALSE(run.loss_per_step.empty());
  EXPECT_NEAR(run.loss_per_step[0], expected.loss, 1e-12 * std::abs(expected.loss));
}

// Runs `schedule` on an MLP under `overrides` (which set sim.arith=fp64) and checks its first step against
// reference::gradients on the same initial weights and data.
inline void expect_dense_mlp_gradients(const std::vector<std::string>& overrides, const std::string& schedule,
                                       double tolerance = 1e-12) {
  const workloads::RunResult run = run_with(overrides, schedule);
  const workloads::RunSetup setup = workloads::setup_from_config(config_with(overrides));
  const auto net = dense_net(setup.model, run.initial_parameters);
  expect_first_step_gradients(
      run, workloads::reference::gradients(net, run.first_step_data.inputs, run.first_step_data.targets),
      tolerance);
}

}  // namespace spatialsim::testing_support
