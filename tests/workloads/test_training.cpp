// Training on the grid: local updates (no traffic), the update itself, and a loss that falls.
#include <gtest/gtest.h>

#include <cmath>
#include <ostream>

#include "tests/workloads/network_test_support.h"
#include "workloads/network_program.h"
#include "workloads/optimizers/i_optimizer.h"

namespace spatialsim::workloads {
namespace {

using sim::Phase;
using testing_support::config_with;
using testing_support::run_with;

TEST(Training, TheUpdateCostsNoHopsButCountsItsWork) {
  for (const char* optimizer : {"sgd", "adam"}) {
    const RunResult r = run_with(
        {"--model.widths=37,53,29,11", "--mapping.block=3x5", "--step.tokens=12", "--step.wavefront=4",
         "--train.steps=2", std::string("--train.optimizer=") + optimizer, "--sim.arith=none"},
        "backprop");
    EXPECT_EQ(r.counters.byte_hops.phase_total(Phase::update), 0u) << optimizer;
    EXPECT_EQ(r.counters.messages.phase_total(Phase::update), 0u) << optimizer;
    // Parameters: 37*53 + 53*29 + 29*11 weights and 53 + 29 + 11 biases, updated once per step.
    const std::uint64_t parameters = 37 * 53 + 53 * 29 + 29 * 11 + 53 + 29 + 11;
    const std::uint64_t macs = std::string(optimizer) == "sgd" ? 1 : 5;
    EXPECT_EQ(r.counters.flops[sim::index(Phase::update)], 2 * 2 * parameters * macs) << optimizer;
  }
}

TEST(Training, OneSgdStepOnTheTilesEqualsTheDenseStep) {
  // After one step, the weights on the tiles are w0 - lr * g with g the dense reference gradient.
  const std::vector<std::string> overrides = {"--model.widths=9,14,6", "--mapping.block=2x3",
                                              "--step.tokens=10",      "--step.wavefront=3",
                                              "--train.lr=0.3",        "--sim.arith=fp64"};
  const sim::Config config = config_with(overrides);
  const RunSetup setup = setup_from_config(config);
  const auto schedule = ScheduleRegistry::create("backprop", config);
  const auto sgd = OptimizerRegistry::create("sgd", config);
  const sim::Grid grid(setup.grid_width, setup.grid_height, setup.topology);
  NetworkSetup ns{setup.model, setup.placement, setup.bytes, wavefront_sizes(10, 3), setup.injection_interval,
                  true};
  NetworkProgram<double> program(ns, grid, *schedule);
  const NetworkParameters w0 = init_parameters(setup.model, setup.seed);
  program.load(w0);
  program.set_optimizer(sgd.get(), 0.3);
  const StepData data = make_step_data(setup.data, setup.model, setup.seed, 0, 10);
  sim::Engine engine(grid, setup.timing);
  engine.set_handler(&program);
  program.start_step(engine, &data);
  engine.run();
  program.schedule_update(engine);
  engine.run();
  const auto g = reference::gradients(testing_support::dense_net(setup.model, w0), data.inputs, data.targets);
  const NetworkParameters w1 = program.parameters();
  for (std::size_t l = 0; l < w0.size(); ++l) {
    for (std::size_t k = 0; k < w0[l].weights.size(); ++k)
      EXPECT_NEAR(w1[l].weights.values()[k], w0[l].weights.values()[k] - 0.3 * g.weights[l].values()[k],
                  1e-13);
    for (std::size_t k = 0; k < w0[l].bias.size(); ++k)
      EXPECT_NEAR(w1[l].bias[k], w0[l].bias[k] - 0.3 * g.bias[l][k], 1e-13);
  }
}

// Several steps: the run's losses and final parameters follow a dense training loop on the same data,
// whose sgd and Adam updates are written here from the rules (docs/conventions-math.md), not from the
// optimizers' code. Each step draws new data, so a step that used stale weights or data would show.
TEST(Training, SeveralStepsOnTheTilesFollowTheDenseTrajectory) {
  for (const std::string optimizer : {"sgd", "adam"}) {
    const sim::Config config = config_with(
        {"--model.widths=9,14,6", "--mapping.block=2x3", "--step.tokens=10", "--step.wavefront=3",
         "--train.lr=0.02", "--train.steps=4", "--train.optimizer=" + optimizer, "--sim.arith=fp64"});
    const RunSetup setup = setup_from_config(config);
    const RunResult r = run_schedule(setup, config, "backprop");
    NetworkParameters w = init_parameters(setup.model, setup.seed);
    NetworkParameters m = w, v = w;  // Adam's moments, from 0
    for (auto* moments : {&m, &v})
      for (auto& p : *moments) {
        std::fill(p.weights.values().begin(), p.weights.values().end(), 0.0);
        std::fill(p.bias.begin(), p.bias.end(), 0.0);
      }
    ASSERT_EQ(r.loss_per_step.size(), 4u);
    for (std::uint32_t step = 0; step < 4; ++step) {
      const StepData data = make_step_data(setup.data, setup.model, setup.seed, step, 10);
      const auto g =
          reference::gradients(testing_support::dense_net(setup.model, w), data.inputs, data.targets);
      EXPECT_NEAR(r.loss_per_step[step], g.loss, 1e-13 * g.loss) << optimizer << " step " << step;
      const double t = step + 1;
      const auto update = [&](double& wi, double gi, double& mi, double& vi) {
        if (optimizer == "sgd") {
          wi -= 0.02 * gi;
          return;
        }
        mi = 0.9 * mi + 0.1 * gi;
        vi = 0.999 * vi + 0.001 * gi * gi;
        wi -= 0.02 * (mi / (1 - std::pow(0.9, t))) / (std::sqrt(vi / (1 - std::pow(0.999, t))) + 1e-8);
      };
      for (std::size_t l = 0; l < w.size(); ++l) {
        for (std::size_t k = 0; k < w[l].weights.size(); ++k)
          update(w[l].weights.values()[k], g.weights[l].values()[k], m[l].weights.values()[k],
                 v[l].weights.values()[k]);
        for (std::size_t k = 0; k < w[l].bias.size(); ++k)
          update(w[l].bias[k], g.bias[l][k], m[l].bias[k], v[l].bias[k]);
      }
    }
    ASSERT_EQ(r.final_parameters.size(), w.size());
    for (std::size_t l = 0; l < w.size(); ++l) {
      for (std::size_t k = 0; k < w[l].weights.size(); ++k)
        EXPECT_NEAR(r.final_parameters[l].weights.values()[k], w[l].weights.values()[k], 1e-12)
            << optimizer << " layer " << l << " weight " << k;
      for (std::size_t k = 0; k < w[l].bias.size(); ++k)
        EXPECT_NEAR(r.final_parameters[l].bias[k], w[l].bias[k], 1e-12) << optimizer << " layer " << l;
    }
  }
}

TEST(Training, AdamMomentsAreStoredOnTheTiles) {
  auto optimizer_bytes = [](const char* optimizer) {
    const sim::Config config =
        config_with({"--model.widths=8,8", "--mapping.block=2x2", "--step.tokens=2", "--step.wavefront=2",
                     std::string("--train.optimizer=") + optimizer, "--sim.arith=none"});
    const RunSetup setup = setup_from_config(config);
    const auto schedule = ScheduleRegistry::create("backprop", config);
    const auto opt = OptimizerRegistry::create(optimizer, config);
    const sim::Grid grid(setup.grid_width, setup.grid_height, setup.topology);
    NetworkSetup ns{setup.model,           setup.placement,          setup.bytes,
                    wavefront_sizes(2, 2), setup.injection_interval, false};
    NetworkProgram<float> program(ns, grid, *schedule);
    program.set_optimizer(opt.get(), 0.1);
    sim::Engine engine(grid, setup.timing);
    engine.set_handler(&program);
    program.start_step(engine, nullptr);
    return engine.ledger().total(sim::StorageCategory::optimizer);
  };
  const std::uint64_t parameters = 8 * 8 + 8;
  EXPECT_EQ(optimizer_bytes("sgd"), 2 * parameters);             // the gradient accumulator
  EXPECT_EQ(optimizer_bytes("adam"), 2 * parameters * (1 + 2));  // plus two moments
}

TEST(Training, AdamRefusesStepZeroRatherThanDividingByZero) {
  const auto adam = OptimizerRegistry::create("adam", config_with({}));
  std::vector<double> weights{0.5, -0.25}, gradients{0.1, 0.2}, moments(4, 0.0);
  EXPECT_THROW(adam->update(weights.data(), gradients.data(), moments.data(), 2, 0.1, 0), std::logic_error);
  EXPECT_EQ(weights, (std::vector<double>{0.5, -0.25}));
  // Step 1's bias correction makes m_hat = g and v_hat = g g: each weight moves by lr, against its gradient.
  adam->update(weights.data(), gradients.data(), moments.data(), 2, 0.1, 1);
  EXPECT_NEAR(weights[0], 0.5 - 0.1, 1e-6);
  EXPECT_NEAR(weights[1], -0.25 - 0.1, 1e-6);
}

struct TrainingCase {
  const char* task;
  const char* loss;
  const char* optimizer;
  const char* lr;
};

void PrintTo(const TrainingCase& c, std::ostream* os) {
  *os << c.task << ", " << c.loss << ", " << c.optimizer << ", lr " << c.lr;
}

class LossFalls : public ::testing::TestWithParam<TrainingCase> {};

TEST_P(LossFalls, WithinAFewSteps) {
  const TrainingCase& c = GetParam();
  const RunResult r =
      run_with({"--model.widths=16,32,32,4", "--mapping.block=2x2", "--step.tokens=64", "--step.wavefront=16",
                "--train.steps=8", std::string("--data.task=") + c.task,
                std::string("--model.loss=") + c.loss, std::string("--train.optimizer=") + c.optimizer,
                std::string("--train.lr=") + c.lr, "--model.activation=tanh"},
               "backprop");
  ASSERT_EQ(r.loss_per_step.size(), 8u);
  EXPECT_LT(r.loss_per_step.back(), 0.7 * r.loss_per_step.front())
      << "first " << r.loss_per_step.front() << " last " << r.loss_per_step.back();
}

INSTANTIATE_TEST_SUITE_P(TasksAndOptimizers, LossFalls,
                         ::testing::Values(TrainingCase{"teacher", "mse", "sgd", "0.1"},
                                           TrainingCase{"teacher", "mse", "adam", "0.01"},
                                           TrainingCase{"mixture", "cross-entropy", "sgd", "0.5"},
                                           TrainingCase{"mixture", "cross-entropy", "adam", "0.02"}),
                         [](const auto& test) {
                           return std::string(test.param.task) + "_" + test.param.optimizer;
                         });

}  // namespace
}  // namespace spatialsim::workloads
