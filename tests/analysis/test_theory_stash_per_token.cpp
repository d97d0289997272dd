// analysis::stash_bytes_per_token, layer by layer, against values worked out here by hand from the rule of
// docs/theory.md ("stash") and analysis/theory.h: layer l keeps X on every tile of its rows (replicate:
// b_a d_in c) or on the lane entries only (rebroadcast: b_a d_in), plus Z on its output tiles (b_a d_out)
// when the activation needs it (any but identity), on every layer but the last, which has no activation.
// The last layer is checked on its own in every case, with a nonlinear activation too: a Z there would be
// b_a d_out more. The figures feed the theory's in-flight and peak forms (inflight_of_layers,
// peak_stash_with_wavefronts) and the side by side, whose tests compare sums only.
// Then the same hand values against what the simulator's backprop writes per token in its forward pass
// (docs/model.md section 2, SRAM rows: the stash writes), so that the rule checked is the simulator's.
#include <gtest/gtest.h>

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "analysis/theory.h"
#include "cli/command_line.h"
#include "workloads/run_setup.h"
#include "workloads/training_run.h"

namespace spatialsim::analysis {
namespace {

struct StashCase {
  const char* name;
  std::vector<LayerGeometry> layers;  // {d_in, d_out, rows, cols}
  std::uint32_t activation_bytes;
  bool replicate;
  bool nonlinear;
  std::vector<double> expected;  // per layer, by hand
};

void PrintTo(const StashCase& c, std::ostream* os) {
  *os << c.name;
}

class StashPerToken : public ::testing::TestWithParam<StashCase> {};

TEST_P(StashPerToken, EveryLayerAndTheLastOneWithoutZ) {
  const StashCase& c = GetParam();
  const std::vector<double> got =
      stash_bytes_per_token(c.layers, c.activation_bytes, c.replicate, c.nonlinear);
  ASSERT_EQ(got.size(), c.expected.size());
  for (std::size_t l = 0; l < got.size(); ++l) EXPECT_DOUBLE_EQ(got[l], c.expected[l]) << "layer " << l;
  // The last layer: X only, whatever the activation.
  const LayerGeometry& last = c.layers.back();
  EXPECT_DOUBLE_EQ(got.back(), double(c.activation_bytes) * last.d_in * (c.replicate ? last.cols : 1));
}

// 7 -> 11 -> 5 -> 9 on 2 x 3 blocks (odd widths, none divisible by the 3 columns), b_a = 2:
//   replicate:   X 2 * 7 * 3 = 42, 2 * 11 * 3 = 66, 2 * 5 * 3 = 30;  rebroadcast: X 14, 22, 10;
//   Z (nonlinear, layers 0 and 1): 2 * 11 = 22, 2 * 5 = 10; on the last layer it would be 2 * 9 = 18.
const std::vector<LayerGeometry> kThreeLayers{{7, 11, 2, 3}, {11, 5, 2, 3}, {5, 9, 2, 3}};
// 9 -> 7 -> 3 on blocks of different shapes, 3 x 2 then 1 x 3, b_a = 4:
//   replicate: X 4 * 9 * 2 = 72, 4 * 7 * 3 = 84; rebroadcast: 36, 28; Z on layer 0: 4 * 7 = 28 (layer 1's
//   would be 12).
const std::vector<LayerGeometry> kTwoLayers{{9, 7, 3, 2}, {7, 3, 1, 3}};

INSTANTIATE_TEST_SUITE_P(
    HandValues, StashPerToken,
    ::testing::Values(
        StashCase{"three_replicate_nonlinear", kThreeLayers, 2, true, true, {42 + 22, 66 + 10, 30}},
        StashCase{"three_rebroadcast_nonlinear", kThreeLayers, 2, false, true, {14 + 22, 22 + 10, 10}},
        StashCase{"three_replicate_identity", kThreeLayers, 2, true, false, {42, 66, 30}},
        StashCase{"three_rebroadcast_identity", kThreeLayers, 2, false, false, {14, 22, 10}},
        StashCase{"two_replicate_nonlinear", kTwoLayers, 4, true, true, {72 + 28, 84}},
        StashCase{"two_rebroadcast_nonlinear", kTwoLayers, 4, false, true, {36 + 28, 28}},
        // One layer is the last: X only, 3 * 5 * 3 = 45 (a Z would add 3 * 3 = 9).
        StashCase{"one_replicate_nonlinear", {{5, 3, 2, 3}}, 3, true, true, {45}}),
    [](const ::testing::TestParamInfo<StashCase>& p) { return std::string(p.param.name); });

// The three-layer hand values are what the simulator's backprop stashes: on 7,11,5,9 with 2 x 3 blocks its
// forward SRAM is the weight and bias reads, b_w (d_in d_out + d_out) per layer and wavefront, plus the
// stash writes, T times the per-token stash summed over the layers.
struct SimulatedStashCase {
  const char* name;
  const char* activation;
  const char* xstash;
  std::vector<double> per_token;  // the hand values above
};

void PrintTo(const SimulatedStashCase& c, std::ostream* os) {
  *os << c.name;
}

class StashPerTokenAgainstSimulator : public ::testing::TestWithParam<SimulatedStashCase> {};

TEST_P(StashPerTokenAgainstSimulator, BackpropWritesTTimesTheHandValues) {
  const SimulatedStashCase& c = GetParam();
  sim::Config config = cli::default_config();
  config.set("model.widths", "7,11,5,9", "test");
  config.set("mapping.block", "2x3", "test");
  config.set("model.activation", c.activation, "test");
  config.set("model.bias", "true", "test");
  config.set("backprop.xstash", c.xstash, "test");
  config.set("machine.act_bytes", "2", "test");
  config.set("machine.weight_bytes", "3", "test");  // b_w != b_a: a weight read sized as a stash would show
  config.set("sim.arith", "none", "test");
  config.set("step.tokens", "13", "test");
  config.set("step.wavefront", "4", "test");  // 4 wavefronts, the last of 1
  const workloads::RunSetup setup = workloads::setup_from_config(config);
  const workloads::RunResult r = workloads::run_schedule(setup, config, "backprop");
  const std::uint64_t T = 13, G = 4, b_w = 3;
  const std::uint64_t parameters = (7 * 11 + 11) + (11 * 5 + 5) + (5 * 9 + 9);
  double stash = 0;
  for (double s : c.per_token) stash += s;
  EXPECT_DOUBLE_EQ(double(r.counters.sram_bytes[sim::index(sim::Phase::forward)]),
                   double(G * b_w * parameters) + double(T) * stash);
}

INSTANTIATE_TEST_SUITE_P(
    ThreeLayers, StashPerTokenAgainstSimulator,
    ::testing::Values(SimulatedStashCase{"gelu_replicate", "gelu", "replicate", {42 + 22, 66 + 10, 30}},
                      SimulatedStashCase{"gelu_rebroadcast", "gelu", "rebroadcast", {14 + 22, 22 + 10, 10}},
                      SimulatedStashCase{"identity_replicate", "identity", "replicate", {42, 66, 30}}),
    [](const ::testing::TestParamInfo<SimulatedStashCase>& p) { return std::string(p.param.name); });

}  // namespace
}  // namespace spatialsim::analysis
