// What the reversible schedule costs (docs/reversible.md): nothing of the trunk stashed across the step
// (peak stash independent of depth, in-flight storage linear in it), the recompute's FLOPs (+1/3 of the
// forward and backward total for deep models), the forward pass identical to the inference baseline,
// counting mode identical to arithmetic mode, and the byte-hops per phase and kind and the SRAM bytes per
// phase against closed forms on odd sizes.
#include <gtest/gtest.h>

#include <memory>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/test_names.h"
#include "tests/workloads/layout_formulas.h"
#include "tests/workloads/network_test_support.h"
#include "tests/workloads/odd_reversible.h"

namespace spatialsim::workloads {
namespace {

using sim::MessageKind;
using sim::Phase;
using testing_support::config_with;
using testing_support::OddReversible;
using testing_support::overrides_of;
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
  // Measured: 38848, 68800, 128704, 248512 byte-cycles (14976 per block), peak 1152 bytes.
  EXPECT_DOUBLE_EQ(step_large / step_small, 2.0);
}

// ---- Traffic and SRAM per phase and kind against closed forms (docs/reversible.md, docs/model.md) ----
//
// Computed from the model's sizes and the placement's geometry only (where each block's lane entries and
// output tiles are): the splits, the homes of the trunk values and the per-element hop counts are worked
// out here, not read from mappings/ (no plan_redistribution, no CouplingGraph).

// The 2L + 2 dense layers in placement order: entry (layer 0), F_k (2k - 1), G_k (2k), exit (2L + 1).
// Trunk values a_k (home: F_k's output tiles; a_0: the entry's, features 0..h) and b_k (G_k's; b_0: the
// entry's, features h..d), h = d/2 features each.
class Coupling {
 public:
  Coupling(const OddReversible& c, const RunSetup& s)
      : L(c.depth), h(c.width / 2), m_blocks(s.placement.blocks) {
    if (m_blocks.size() != 2 * L + 2) throw std::logic_error("one block per dense layer expected");
    d_in.push_back(c.inputs), d_out.push_back(c.width);
    for (std::uint32_t l = 0; l < 2 * L; ++l) d_in.push_back(h), d_out.push_back(h);
    d_in.push_back(c.width), d_out.push_back(c.outputs);
  }
  const std::uint32_t L, h;
  std::vector<std::uint64_t> d_in, d_out;
  std::uint32_t layers() const { return 2 * L + 2; }
  std::uint32_t f(std::uint32_t k) const { return 2 * k - 1; }
  std::uint32_t g(std::uint32_t k) const { return 2 * k; }
  std::uint32_t exit() const { return 2 * L + 1; }
  const mappings::BlockLayout& block(std::uint32_t l) const { return m_blocks[l]; }

  // Value a_k or b_k: its home tile for its feature e (0 <= e < h).
  sim::Coord home(bool a, std::uint32_t k, std::uint32_t e) const {
    if (k == 0) return output_tile(0, a ? e : h + e);
    return output_tile(a ? f(k) : g(k), e);
  }
  // Where feature e of layer l's input enters (its lane), and where feature e of its output is complete.
  sim::Coord lane_tile(std::uint32_t l, std::uint32_t e) const {
    return m_blocks[l].lane_entry(part_of(e, d_in[l], m_blocks[l].rows));
  }
  sim::Coord output_tile(std::uint32_t l, std::uint32_t e) const {
    return m_blocks[l].output_tile(part_of(e, d_out[l], m_blocks[l].cols));
  }
  // Element-hops of one token's value a_k / b_k going from its home to layer l's lanes (offset: where the
  // value begins in that layer's input) or to layer l's output tiles (skip: the same features).
  std::uint64_t to_lanes(bool a, std::uint32_t k, std::uint32_t l, std::uint32_t offset) const {
    std::uint64_t hops = 0;
    for (std::uint32_t e = 0; e < h; ++e)
      hops += testing_support::manhattan(home(a, k, e), lane_tile(l, offset + e));
    return hops;
  }
  std::uint64_t to_outputs(bool a, std::uint32_t k, std::uint32_t l) const {
    std::uint64_t hops = 0;
    for (std::uint32_t e = 0; e < h; ++e)
      hops += testing_support::manhattan(home(a, k, e), output_tile(l, e));
    return hops;
  }
  // The edges of docs/reversible.md, in element-hops per token.
  std::uint64_t lane_edge_b_to_f(std::uint32_t k) const { return to_lanes(false, k - 1, f(k), 0); }
  std::uint64_t lane_edge_a_to_g(std::uint32_t k) const { return to_lanes(true, k, g(k), 0); }
  std::uint64_t skip_edge_a(std::uint32_t k) const {
    return to_outputs(true, k - 1, f(k));
  }  // a_{k-1} -> F_k
  std::uint64_t skip_edge_b(std::uint32_t k) const {
    return to_outputs(false, k - 1, g(k));
  }  // b_{k-1} -> G_k
  std::uint64_t exit_edges() const { return to_lanes(true, L, exit(), 0) + to_lanes(false, L, exit(), h); }
  // Every edge once: what the forward pass and the backward pass (reversed) each carry.
  std::uint64_t every_edge() const {
    std::uint64_t hops = exit_edges();
    for (std::uint32_t k = 1; k <= L; ++k)
      hops += lane_edge_b_to_f(k) + lane_edge_a_to_g(k) + skip_edge_a(k) + skip_edge_b(k);
    return hops;
  }

 private:
  // Feature e of n split over k parts, the first n % k of them one larger (docs/model.md section 3).
  static std::uint32_t part_of(std::uint32_t e, std::uint64_t n, std::uint32_t k) {
    const auto sizes = testing_support::split_sizes(static_cast<std::uint32_t>(n), k);
    std::uint32_t p = 0;
    for (std::uint32_t begin = 0; e >= begin + sizes[p]; ++p) begin += sizes[p];
    return p;
  }
  const std::vector<mappings::BlockLayout>& m_blocks;
};

class ReversibleTraffic : public ::testing::TestWithParam<OddReversible> {
 protected:
  void SetUp() override {
    const auto overrides = overrides_of(GetParam());
    setup = setup_from_config(config_with(overrides));
    result = run_with(overrides, "reversible");
    net = std::make_unique<Coupling>(GetParam(), setup);
  }
  RunSetup setup;
  RunResult result;
  std::unique_ptr<Coupling> net;
};

// Backward, per token: each layer's dZ back along its columns, b_a d_out (r - 1); the dX shares back along
// the rows, b_p d_in (c - 1), for every layer but the entry (whose dX nobody needs); every gradient back
// along every edge of the forward pass, reversed: the exit's and F's and G's dX from their lanes to the
// homes of the values they read, and the skip gradient from a_k's (b_k's) home to a_{k-1}'s (b_{k-1}'s),
// for k = 1..L. Nothing else travels in the backward phase.
TEST_P(ReversibleTraffic, BackwardByteHopsPerKindAreTheClosedForms) {
  const OddReversible& c = GetParam();
  const Coupling& n = *net;
  const std::uint64_t T = c.tokens, b_a = c.act_bytes, b_p = c.psum_bytes;
  std::uint64_t lane = 0, psum = 0;
  for (std::uint32_t l = 0; l < n.layers(); ++l) {
    lane += b_a * T * n.d_out[l] * (n.block(l).rows - 1);
    if (l > 0) psum += b_p * T * n.d_in[l] * (n.block(l).cols - 1);
  }
  const std::uint64_t redistribution = b_a * T * n.every_edge();
  const auto& hops = result.counters.byte_hops;
  EXPECT_EQ(hops.at(Phase::backward, MessageKind::lane), lane);
  EXPECT_EQ(hops.at(Phase::backward, MessageKind::psum), psum);
  EXPECT_EQ(hops.at(Phase::backward, MessageKind::redistribution), redistribution);
  EXPECT_EQ(hops.phase_total(Phase::backward), lane + psum + redistribution);
}

// Recompute, per token: F_k and G_k run forward again, b_a h (c - 1) on their lanes and b_p h (r - 1) on
// their columns; a_k goes from its home to G_k's lanes (k = L..1), b_{k-1} from G_k's output tiles home
// (its skip edge reversed) and on to F_k's lanes, a_{k-1} from F_k's output tiles home (k >= 2: nobody needs
// a_0 again). The exit edges carry nothing in this phase.
TEST_P(ReversibleTraffic, RecomputeByteHopsPerKindAreTheClosedForms) {
  const OddReversible& c = GetParam();
  const Coupling& n = *net;
  const std::uint64_t T = c.tokens, b_a = c.act_bytes, b_p = c.psum_bytes;
  std::uint64_t lane = 0, psum = 0, redistribution = 0;
  for (std::uint32_t k = 1; k <= n.L; ++k) {
    for (std::uint32_t l : {n.f(k), n.g(k)}) {
      lane += b_a * T * n.h * (n.block(l).cols - 1);
      psum += b_p * T * n.h * (n.block(l).rows - 1);
    }
    redistribution += n.lane_edge_a_to_g(k) + n.skip_edge_b(k) + n.lane_edge_b_to_f(k);
    if (k >= 2) redistribution += n.skip_edge_a(k);
  }
  redistribution *= b_a * T;
  const auto& hops = result.counters.byte_hops;
  EXPECT_EQ(hops.at(Phase::recompute, MessageKind::lane), lane);
  EXPECT_EQ(hops.at(Phase::recompute, MessageKind::psum), psum);
  EXPECT_EQ(hops.at(Phase::recompute, MessageKind::redistribution), redistribution);
  EXPECT_EQ(hops.phase_total(Phase::recompute), lane + psum + redistribution);
}

// Forward: every edge once (the geometry above against the simulator's plans, on the forward pass).
TEST_P(ReversibleTraffic, ForwardRedistributionIsEveryEdgeOnce) {
  EXPECT_EQ(result.counters.byte_hops.at(Phase::forward, MessageKind::redistribution),
            std::uint64_t{GetParam().act_bytes} * GetParam().tokens * net->every_edge());
}

// SRAM per phase, docs/model.md's table (G wavefronts, T tokens, b_w weight bytes; "Z" where the layer has
// an activation other than identity, never on the exit layer):
// - forward: every layer's weights (and bias) read once per wavefront; the entry's and the exit's X written
//   on every tile of each row (replicate), b_a T d_in c; the entry's Z, b_a T d; a_L and b_L written on
//   their homes, b_a T d. F and G stash nothing.
// - recompute: F_k and G_k as a forward pass with replicate (weights, bias, X on every tile, Z); each of
//   a_1..a_L, b_1..b_L read from its home's stash at its subtraction, b_a T h each; each of
//   a_1..a_{L-1}, b_1..b_{L-1} written there when it comes home reconstructed, b_a T h each (a_0, b_0 are
//   not kept: the entry needs its own inputs only).
// - backward: as backprop per layer: Z read, bias gradient read and written, weights read for dX (not
//   the entry), the dW accumulator read and written and X read on every tile.
// - update (sgd): parameter, gradient read and parameter written.
TEST_P(ReversibleTraffic, SramBytesPerPhaseAreTheClosedForms) {
  const OddReversible& c = GetParam();
  const Coupling& n = *net;
  const std::uint64_t T = c.tokens, b_a = c.act_bytes, b_w = c.weight_bytes, h = n.h, d = c.width;
  const std::uint64_t G = (c.tokens + c.wavefront - 1) / c.wavefront;
  const bool bias = c.bias == "true", z = c.activation != "identity";
  auto weights = [&](std::uint32_t l) {
    return G * b_w * (n.d_in[l] * n.d_out[l] + (bias ? n.d_out[l] : 0));
  };
  auto x_replicated = [&](std::uint32_t l) { return b_a * T * n.d_in[l] * n.block(l).cols; };
  auto z_bytes = [&](std::uint32_t l) { return z && l != n.exit() ? b_a * T * n.d_out[l] : 0; };

  std::uint64_t forward = 0, recompute = 0, backward = 0, parameters = 0;
  for (std::uint32_t l = 0; l < n.layers(); ++l) {
    forward += weights(l);
    const bool trunk = l != 0 && l != n.exit();
    if (trunk)
      recompute += weights(l) + x_replicated(l) + z_bytes(l);
    else
      forward += x_replicated(l) + z_bytes(l);
    backward += z_bytes(l) + (bias ? G * 2 * b_w * n.d_out[l] : 0);
    if (l > 0) backward += G * b_w * n.d_in[l] * n.d_out[l];
    backward += G * 2 * b_w * n.d_in[l] * n.d_out[l] + x_replicated(l);
    parameters += n.d_in[l] * n.d_out[l] + (bias ? n.d_out[l] : 0);
  }
  forward += b_a * T * d;                    // a_L, b_L stashed
  recompute += 2 * n.L * b_a * T * h;        // the subtractions' stash reads
  recompute += 2 * (n.L - 1) * b_a * T * h;  // reconstructed values held at home
  const auto& sram = result.counters.sram_bytes;
  EXPECT_EQ(sram[sim::index(Phase::forward)], forward);
  EXPECT_EQ(sram[sim::index(Phase::recompute)], recompute);
  EXPECT_EQ(sram[sim::index(Phase::backward)], backward);
  EXPECT_EQ(sram[sim::index(Phase::update)], 3 * parameters * b_w);
  EXPECT_EQ(result.counters.total_sram_bytes(), forward + recompute + backward + 3 * parameters * b_w);
}

INSTANTIATE_TEST_SUITE_P(OddSizesUnevenSplits, ReversibleTraffic,
                         ::testing::ValuesIn(testing_support::kOddReversibleCases),
                         testing_support::odd_reversible_name);

}  // namespace
}  // namespace spatialsim::workloads
