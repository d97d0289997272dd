// What the reversible schedule costs (docs/reversible.md): nothing of the trunk stashed across the step
// (peak stash independent of depth, in-flight storage linear in it), the recompute's FLOPs (+1/3 of the
// forward and backward total for deep models), the forward pass identical to the inference baseline, and
// counting mode identical to arithmetic mode.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/workloads/network_test_support.h"

namespace spatialsim::workloads {
namespace {

using sim::Phase;
using testing_support::run_with;

std::vector<std::string> reversible_model(std::uint32_t depth, const std::string& arith,
                                          std::uint32_t tokens = 8, std::uint32_t wavefront = 8) {
  return {"--model.kind=reversible",
          "--model.inputs=12",
          "--model.width=16",
          "--model.outputs=6",
          "--mapping.block=2x2",
          "--model.depth=" + std::to_string(depth),
          "--sim.arith=" + arith,
          "--step.tokens=" + std::to_string(tokens),
          "--step.wavefront=" + std::to_string(wavefront)};
}

TEST(ReversibleCounts, CountingModeGivesTheSameCountersAsArithmetic) {
  for (const char* schedule : {"reversible", "forward"}) {
    const RunResult none = run_with(reversible_model(3, "none", 13, 4), schedule);
    for (const char* arith : {"fp32", "fp64"}) {
      const RunResult real = run_with(reversible_model(3, arith, 13, 4), schedule);
      EXPECT_TRUE(real.counters == none.counters) << schedule << " " << arith;
      EXPECT_TRUE(real.tiles == none.tiles) << schedule << " " << arith;
    }
  }
}

TEST(ReversibleCounts, FlopsPerPhaseAreTheClosedForms) {
  // Per token: forward 2 (d_0 d + 2 L h^2 + d d_out); recompute F and G again, 2 (2 L h^2); backward dW of
  // every layer and dX of all but the entry layer: 2 d_0 d + 4 (2 L h^2) + 4 d d_out.
  const std::uint64_t T = 8, d0 = 12, d = 16, h = 8, dout = 6, L = 5;
  const RunResult r = run_with(reversible_model(L, "none"), "reversible");
  EXPECT_EQ(r.counters.flops[sim::index(Phase::forward)], 2 * T * (d0 * d + 2 * L * h * h + d * dout));
  EXPECT_EQ(r.counters.flops[sim::index(Phase::recompute)], 2 * T * 2 * L * h * h);
  EXPECT_EQ(r.counters.flops[sim::index(Phase::backward)], T * (2 * d0 * d + 8 * L * h * h + 4 * d * dout));
}

TEST(ReversibleCounts, RecomputeIsAThirdOfForwardPlusBackwardForDeepModels) {
  // Trunk only: recompute 4 h^2 per block against forward 4 h^2 + backward 8 h^2. Entry and exit layers
  // (not recomputed) pull the ratio below 1/3: at L = 64 it is 16384 / 50496 = 0.3245 here.
  const RunResult r = run_with(reversible_model(64, "none"), "reversible");
  const auto& f = r.counters.flops;
  const double ratio = static_cast<double>(f[sim::index(Phase::recompute)]) /
                       static_cast<double>(f[sim::index(Phase::forward)] + f[sim::index(Phase::backward)]);
  EXPECT_DOUBLE_EQ(ratio, 16384.0 / 50496.0);
}

TEST(ReversibleCounts, TheForwardPassIsTheInferenceBaselines) {
  const RunResult rev = run_with(reversible_model(4, "none", 13, 4), "reversible");
  const RunResult fwd = run_with(reversible_model(4, "none", 13, 4), "forward");
  for (std::size_t k = 0; k < sim::kMessageKindCount; ++k)
    EXPECT_EQ(rev.counters.byte_hops.cells[sim::index(Phase::forward)][k],
              fwd.counters.byte_hops.cells[sim::index(Phase::forward)][k]);
  EXPECT_EQ(rev.counters.flops[sim::index(Phase::forward)], fwd.counters.flops[sim::index(Phase::forward)]);
  EXPECT_EQ(rev.counters.byte_hops.phase_total(Phase::update), 0u);
}

TEST(ReversibleCounts, PeakStashDoesNotGrowWithDepthAndInflightGrowsLinearly) {
  // One wavefront: what is stashed at any time is the entry and exit layers' inputs, the trunk's last
  // output (or the reconstructed values of the block being processed) and one recompute's stash; none of
  // it depends on L. Its lifetime grows with the step's length, which is linear in L.
  std::vector<std::uint64_t> peak, inflight;
  for (std::uint32_t L : {2u, 4u, 8u, 16u}) {
    const RunResult r = run_with(reversible_model(L, "none"), "reversible");
    peak.push_back(r.counters.peak_stash_bytes);
    inflight.push_back(r.counters.inflight_byte_cycles);
  }
  for (std::size_t k = 1; k < peak.size(); ++k) EXPECT_EQ(peak[k], peak[0]) << "depth index " << k;
  // Linear: doubling L from 8 to 16 adds about twice what doubling it from 4 to 8 added.
  const double step_small = static_cast<double>(inflight[2] - inflight[1]);
  const double step_large = static_cast<double>(inflight[3] - inflight[2]);
  // Measured: 38848, 68800, 128704, 248512 byte-cycles (14976 per block), peak 1280 bytes.
  EXPECT_DOUBLE_EQ(step_large / step_small, 2.0);
}

}  // namespace
}  // namespace spatialsim::workloads
