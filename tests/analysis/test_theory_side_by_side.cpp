// The simulated counters beside the closed forms: lane and psum match exactly, redistribution and host
// are explained by the placement and the grid edge, and the fill-and-drain model of the peak stash.
#include "analysis/theory_side_by_side.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "cli/command_line.h"
#include "sim/grid.h"

namespace spatialsim::analysis {
namespace {

TEST(TheorySideBySide, PeakStashReachesTheFullFormOnlyWith2LWavefronts) {
  const std::vector<double> s{3, 5, 7};  // L = 3
  const double full = inflight_of_layers(s, 2);
  EXPECT_DOUBLE_EQ(peak_stash_with_wavefronts(s, 2, 6), full);   // G = 2L
  EXPECT_DOUBLE_EQ(peak_stash_with_wavefronts(s, 2, 50), full);  // more changes nothing
  EXPECT_LT(peak_stash_with_wavefronts(s, 2, 2), full);
  // One wavefront: at t = 1 only layer 0 holds (0 < 1 <= 5); at t = 2 layers 0 and 1 (1 < 2 <= 3).
  EXPECT_DOUBLE_EQ(peak_stash_with_wavefronts(s, 2, 1), 2 * (3 + 5 + 7));
}

TEST(TheorySideBySide, SimulatedBackpropMatchesTheBlockFormsAndExplainsTheRest) {
  sim::Config config = cli::default_config();
  config.set("sim.arith", "none", "test");
  config.set("mapping.placement", "rowmajor", "test");  // redistribution of more than one hop
  const workloads::RunSetup setup = workloads::setup_from_config(config);
  const workloads::RunResult r = workloads::run_schedule(setup, config, "backprop");
  const auto layers = layer_geometry(setup.model.widths, setup.placement);
  const sim::Grid grid(setup.grid_width, setup.grid_height, setup.topology);
  const auto redistribution =
      redistribution_byte_hops_per_token(setup.model.widths, setup.placement, setup.bytes.activation, grid);
  const auto host =
      host_byte_hops_per_token(setup.model.widths, setup.placement, setup.bytes.activation, grid);
  for (sim::Phase phase : {sim::Phase::forward, sim::Phase::backward}) {
    const ByteHopsPerToken block = phase == sim::Phase::forward
                                       ? forward_block_byte_hops_per_token(layers, setup.bytes)
                                       : backward_block_byte_hops_per_token(layers, setup.bytes, false);
    const auto rows = byte_hops_beside_theory(r.counters, phase, block, redistribution, host, setup.tokens);
    ASSERT_FALSE(rows.empty());
    for (const auto& k : rows) EXPECT_EQ(k.unexplained(), 0) << k.kind << " in phase " << int(phase);
  }
  std::ostringstream out;
  write_theory_side_by_side(out, config, setup, {r});
  EXPECT_NE(out.str().find("redistribution between blocks (placement)"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("pipeline fill and drain"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("2 L sqrt(n)"), std::string::npos) << out.str();
}

}  // namespace
}  // namespace spatialsim::analysis
