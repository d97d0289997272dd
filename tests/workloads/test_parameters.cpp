// The run's set-up: init_parameters draws the same weights on any number of threads (one stream per layer,
// row-major within it); loading them onto the tiles and assembling them back is exact, on uneven splits;
// RunOptions::for_checks = false keeps no fp64 copies and changes nothing else.
#include <tbb/global_control.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/workloads/network_test_support.h"
#include "workloads/network_program.h"
#include "workloads/parameters.h"
#include "workloads/random.h"
#include "workloads/schedules/i_schedule.h"

namespace spatialsim::workloads {
namespace {

using testing_support::config_with;
using testing_support::same_bits;

// The documented draw, one layer after the other on the calling thread.
NetworkParameters serial_draw(const ModelSpec& model, std::uint64_t seed) {
  NetworkParameters params;
  const std::vector<DenseLayerShape> shapes = model.dense_layers();
  for (std::uint32_t l = 0; l < shapes.size(); ++l) {
    Random rng(seed, 1000 + l);
    const double scale = model.init_gain / std::sqrt(static_cast<double>(shapes[l].d_in));
    LayerParameters p{sim::Matrix<double>(shapes[l].d_in, shapes[l].d_out), {}};
    for (std::uint32_t r = 0; r < shapes[l].d_in; ++r)
      for (std::uint32_t c = 0; c < shapes[l].d_out; ++c) p.weights(r, c) = scale * rng.normal();
    if (model.bias) p.bias.assign(shapes[l].d_out, 0.0);
    params.push_back(std::move(p));
  }
  return params;
}

TEST(InitParameters, SameBitsAsTheSerialDrawOnAnyThreadCount) {
  const RunSetup setup = setup_from_config(config_with({"--model.widths=33,70,64,17,5,40", "--sim.seed=7"}));
  const NetworkParameters expected = serial_draw(setup.model, setup.seed);
  ASSERT_EQ(expected.size(), 5u);
  for (const std::size_t threads : {1, 2, 8}) {
    const tbb::global_control limit(tbb::global_control::max_allowed_parallelism, threads);
    EXPECT_TRUE(same_bits(init_parameters(setup.model, setup.seed), expected)) << threads << " threads";
  }
}

TEST(InitParameters, PinnedValues) {
  // Tests and docs figures depend on these numbers: a change to the draw must show here first.
  const RunSetup setup = setup_from_config(config_with({"--model.widths=4,3,2"}));
  ASSERT_EQ(setup.seed, 1u);
  ASSERT_EQ(setup.model.init_gain, 1.0);
  const NetworkParameters p = init_parameters(setup.model, setup.seed);
  EXPECT_EQ(p[0].weights(0, 0), -0.0085076702301896557);  // N(0, 1/4), layer 0's first draw
  EXPECT_EQ(p[1].weights(0, 1), (1.0 / std::sqrt(3.0)) * -0.29245510549162762);  // layer 1's second draw
}

TEST(InitParameters, OneLayerIntoAReusedBufferIsThatLayer) {
  const RunSetup setup = setup_from_config(config_with({"--model.widths=6,9,9,4"}));
  const NetworkParameters whole = init_parameters(setup.model, setup.seed);
  const std::vector<DenseLayerShape> shapes = setup.model.dense_layers();
  LayerParameters buffer;
  for (std::uint32_t l = 0; l < shapes.size(); ++l) {  // 6x9, then 9x9, then 9x4: reused once, resized
    init_layer_parameters(setup.model, setup.seed, l, shapes[l], buffer);
    EXPECT_TRUE(same_bits(NetworkParameters{buffer}, NetworkParameters{whole[l]})) << "layer " << l;
  }
}

template <typename T>
void expect_load_then_collect_is_exact() {
  // 9 -> 14 -> 6 on 2x3 blocks: uneven row and column ranges on every layer.
  const std::vector<std::string> overrides = {"--model.widths=9,14,6", "--mapping.block=2x3",
                                              "--step.tokens=4", "--step.wavefront=2"};
  const sim::Config config = config_with(overrides);
  const RunSetup setup = setup_from_config(config);
  const auto schedule = ScheduleRegistry::create("backprop", config);
  const sim::Grid grid(setup.grid_width, setup.grid_height, setup.topology);
  const NetworkSetup ns{setup.model,           setup.placement,          setup.bytes,
                        wavefront_sizes(4, 2), setup.injection_interval, true};
  NetworkProgram<T> program(ns, grid, *schedule);
  NetworkParameters w0 = init_parameters(setup.model, setup.seed);
  for (auto& layer : w0)
    for (std::size_t k = 0; k < layer.bias.size(); ++k) layer.bias[k] = 0.25 * static_cast<double>(k) - 1.0;
  program.load(w0);
  NetworkParameters expected = w0;  // what T holds of each value
  for (auto& layer : expected) {
    for (double& w : layer.weights.values()) w = static_cast<double>(static_cast<T>(w));
    for (double& b : layer.bias) b = static_cast<double>(static_cast<T>(b));
  }
  EXPECT_TRUE(same_bits(program.parameters(), expected));
  const NetworkParameters g = program.gradients();  // zeroed on load
  ASSERT_EQ(g.size(), w0.size());
  for (std::size_t l = 0; l < g.size(); ++l) {
    EXPECT_EQ(g[l].weights.rows(), w0[l].weights.rows());
    EXPECT_EQ(g[l].weights.cols(), w0[l].weights.cols());
    for (double v : g[l].weights.values()) EXPECT_EQ(v, 0.0);
    EXPECT_EQ(g[l].bias, std::vector<double>(w0[l].bias.size(), 0.0));
  }
}

TEST(LoadParameters, LoadThenCollectIsExactFp32) {
  expect_load_then_collect_is_exact<float>();
}
TEST(LoadParameters, LoadThenCollectIsExactFp64) {
  expect_load_then_collect_is_exact<double>();
}

TEST(ForChecks, OffKeepsNoFp64CopiesAndChangesNothingElse) {
  const sim::Config config = config_with({"--model.widths=12,16,8", "--mapping.block=2x2", "--step.tokens=8",
                                          "--step.wavefront=4", "--train.steps=2", "--sim.arith=fp32"});
  const RunSetup setup = setup_from_config(config);
  const RunResult with = run_schedule(setup, config, "backprop");
  const RunResult without = run_schedule(setup, config, "backprop", {.for_checks = false});
  ASSERT_EQ(with.first_step_gradients.size(), 2u);
  EXPECT_TRUE(without.first_step_gradients.empty());
  EXPECT_TRUE(without.initial_parameters.empty());
  EXPECT_TRUE(with.counters == without.counters);
  EXPECT_TRUE(same_bits(with.loss_per_step, without.loss_per_step));
  ASSERT_EQ(with.initial_parameters.size(), 2u);
  EXPECT_TRUE(same_bits(with.first_step_outputs.values(), without.first_step_outputs.values()));

  const std::vector<RunResult> plain = run_schedules(setup, config, {"backprop", "forward"}, {}, false);
  EXPECT_TRUE(plain[0].first_step_gradients.empty());
  EXPECT_TRUE(plain[1].initial_parameters.empty());
  EXPECT_TRUE(same_bits(plain[0].loss_per_step, with.loss_per_step));
  const std::vector<RunResult> checked = run_schedules(setup, config, {"backprop"});
  EXPECT_TRUE(same_bits(checked[0].first_step_gradients, with.first_step_gradients));
}

}  // namespace
}  // namespace spatialsim::workloads
