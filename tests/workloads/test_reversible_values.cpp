// The reversible schedule's counts (docs/reversible.md) that tests/workloads/test_reversible_counts.cpp
// checks only on even sizes or by relations: FLOPs per phase on odd half-widths (h = 5, 7); the forward
// pass's lane, partial-sum and host byte-hops from the block geometry (not by comparison with the
// schedule `forward`); and the in-flight storage, peaks, depth and makespan worked out from the coupling
// graph's timing on 1x1 blocks (latency-only links, instantaneous compute, one cycle per hop), where each
// layer is one tile and each move one route between two tiles.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "tests/test_names.h"
#include "tests/workloads/layout_formulas.h"
#include "tests/workloads/network_test_support.h"
#include "tests/workloads/odd_reversible.h"
#include "tests/workloads/stash_peaks.h"

namespace spatialsim::workloads {
namespace {

using sim::MessageKind;
using sim::Phase;
using testing_support::config_with;
using testing_support::manhattan;
using testing_support::OddReversible;
using testing_support::overrides_of;
using testing_support::run_with;
using testing_support::split_sizes;

// The 2L + 2 dense layers in placement order: entry d_0 -> d, F_1, G_1, ..., F_L, G_L (h -> h, h = d/2),
// exit d -> d_out.
struct Shapes {
  std::vector<std::uint64_t> d_in, d_out;
  explicit Shapes(const OddReversible& c) {
    const std::uint32_t h = c.width / 2;
    d_in.push_back(c.inputs), d_out.push_back(c.width);
    for (std::uint32_t l = 0; l < 2 * c.depth; ++l) d_in.push_back(h), d_out.push_back(h);
    d_in.push_back(c.width), d_out.push_back(c.outputs);
  }
  std::size_t layers() const { return d_in.size(); }
};

class ReversibleOdd : public ::testing::TestWithParam<OddReversible> {
 protected:
  void SetUp() override {
    setup = setup_from_config(config_with(overrides_of(GetParam())));
    result = run_with(overrides_of(GetParam()), "reversible");
  }
  RunSetup setup;
  RunResult result;
};

// FLOPs are 2 per multiply-add of the products performed (docs/model.md, "Work"); a layer's tiles perform
// d_in d_out of them per token between them, whatever the split. Per token: forward every layer once;
// recompute every F_k and G_k once more; backward dW of every layer and dX of every layer but the entry.
// The update (sgd) is one multiply-add per parameter, bias included.
TEST_P(ReversibleOdd, FlopsPerPhaseAreTheClosedFormsOnOddHalfWidths) {
  const OddReversible& c = GetParam();
  const std::uint64_t T = c.tokens, d0 = c.inputs, d = c.width, h = d / 2, dout = c.outputs, L = c.depth;
  ASSERT_EQ(h % 2, 1u) << "the case should have an odd half-width";
  const bool bias = c.bias == "true";
  const std::uint64_t parameters = d0 * d + 2 * L * h * h + d * dout + (bias ? d + 2 * L * h + dout : 0);
  const auto& flops = result.counters.flops;
  EXPECT_EQ(flops[sim::index(Phase::forward)], 2 * T * (d0 * d + 2 * L * h * h + d * dout));
  EXPECT_EQ(flops[sim::index(Phase::recompute)], 2 * T * 2 * L * h * h);
  EXPECT_EQ(flops[sim::index(Phase::backward)], 2 * T * (d0 * d + 2 * (2 * L * h * h) + 2 * d * dout));
  EXPECT_EQ(flops[sim::index(Phase::update)], 2 * parameters);
}

// The forward pass's own traffic, per token: each layer's lanes b_a d_in (c - 1), its columns
// b_p d_out (r - 1); the host's inputs into the entry's lane entries and targets into the exit's output
// tiles, each range through the nearest edge. G wavefronts send r (c - 1) lane and c (r - 1) column
// messages per layer, and r_entry + c_exit host messages. (Redistribution: test_reversible_counts.cpp.)
TEST_P(ReversibleOdd, ForwardLanePsumAndHostByteHopsFromTheBlockGeometry) {
  const OddReversible& c = GetParam();
  const Shapes shapes(c);
  const auto& blocks = setup.placement.blocks;
  ASSERT_EQ(blocks.size(), shapes.layers());
  const std::uint64_t T = c.tokens, b_a = c.act_bytes, b_p = c.psum_bytes;
  const std::uint64_t G = (c.tokens + c.wavefront - 1) / c.wavefront;
  std::uint64_t lane = 0, psum = 0, lane_messages = 0, psum_messages = 0;
  for (std::size_t l = 0; l < shapes.layers(); ++l) {
    const std::uint64_t r = blocks[l].rows, cols = blocks[l].cols;
    lane += b_a * T * shapes.d_in[l] * (cols - 1);
    psum += b_p * T * shapes.d_out[l] * (r - 1);
    lane_messages += G * r * (cols - 1);
    psum_messages += G * cols * (r - 1);
  }
  const mappings::BlockLayout &entry = blocks.front(), &exit = blocks.back();
  std::uint64_t host = 0;
  const auto in_rows = split_sizes(c.inputs, entry.rows), out_cols = split_sizes(c.outputs, exit.cols);
  for (std::uint32_t i = 0; i < entry.rows; ++i)
    host += b_a * T * in_rows[i] * testing_support::host_hops(setup, entry.lane_entry(i));
  for (std::uint32_t j = 0; j < exit.cols; ++j)
    host += b_a * T * out_cols[j] * testing_support::host_hops(setup, exit.output_tile(j));

  const auto& hops = result.counters.byte_hops;
  const auto& messages = result.counters.messages;
  EXPECT_EQ(hops.at(Phase::forward, MessageKind::lane), lane);
  EXPECT_EQ(hops.at(Phase::forward, MessageKind::psum), psum);
  EXPECT_EQ(hops.at(Phase::forward, MessageKind::host), host);
  for (MessageKind kind : {MessageKind::rebroadcast, MessageKind::scalar, MessageKind::tangent})
    EXPECT_EQ(hops.at(Phase::forward, kind), 0u);
  EXPECT_EQ(messages.at(Phase::forward, MessageKind::lane), lane_messages);
  EXPECT_EQ(messages.at(Phase::forward, MessageKind::psum), psum_messages);
  EXPECT_EQ(messages.at(Phase::forward, MessageKind::host), G * (entry.rows + exit.cols));
}

// test_reversible_counts.cpp's cases: F, G 5 x 5 on 3x2 (rows 2, 2, 1; columns 3, 2), T = 13 in 4
// wavefronts; 7 x 7 on 2x3 (rows 4, 3; columns 3, 2, 2), b_p < b_a, no bias, T = 11 in 4 wavefronts.
INSTANTIATE_TEST_SUITE_P(OddHalfWidths, ReversibleOdd,
                         ::testing::ValuesIn(testing_support::kOddReversibleCases),
                         testing_support::odd_reversible_name);

// ---- The stash over time, on 1x1 blocks ----
//
// Each dense layer is one tile; D(p, q) is the Manhattan distance between two layers' tiles (the placement's
// coordinates are inputs), hE and hX the host hops of the entry's and the exit's tiles. Homes: a_0, b_0 on
// the entry tile E, a_k on F_k's tile, b_k on G_k's. Times in cycles from the wavefront's injection, every
// move one message over its route, every product instantaneous.
//
// Forward: X reaches E at hE, and E computes h = (a_0, b_0) at once. a_k = a_{k-1} + F_k(b_{k-1}) exists
// on F_k when b_{k-1} has reached its lane and a_{k-1} its output tile; b_k = b_{k-1} + G_k(a_k) on G_k
// likewise; the exit computes when a_L and b_L are both in its lane; its backward pass starts when the
// target is there too (mse) and its dX pieces go back to a_L's and b_L's homes.
// Recompute, k = L..1 (docs/reversible.md, "The step"): a_k leaves its home for G_k's lane (a_L when the
// first gradient piece, the exit's, reaches F_L; a_k, k < L, as it comes home); G_k recomputes on arrival;
// b_{k-1} = b_k - G_k(a_k) there (b_k, k < L, must be home too); b_{k-1} travels home and from there on
// to F_k's lane; F_k recomputes on arrival; a_{k-1} = a_k - F_k(b_{k-1}) there, and a_{k-1} goes home
// (k >= 2).
// Backward: db_k on G_k is complete when the exit's dX piece (k = L) or G_{k+1}'s skip and F_{k+1}'s dX
// (k < L) are in; G_k starts at the later of that and its recompute, sends its dX to F_k (a_k's home) and
// db_k on along the skip to b_{k-1}'s home. da_k on F_k is complete when G_k's dX and the exit's piece
// (k = L) or F_{k+1}'s skip (k < L) are in; F_k starts at the later of that and its recompute, sends its dX
// to b_{k-1}'s home and da_k to a_{k-1}'s. The entry starts when all of that has reached E.
// Stash (docs/model.md's storage table and reversible rows): the entry's X (b_a d_0 per token) and Z
// (b_a d, activation not identity) on E from hE until its backward start; the exit's X (b_a d) from its
// product until its backward start; a_L on F_L and b_L on G_L from the forward pass until their
// subtraction; a reconstructed a_k, b_k (1 <= k < L) from its return home until its subtraction; F_k's and
// G_k's recompute X (b_a h) and Z (b_a h, activation not identity) from the recompute until their backward
// start. a_0, b_0 are never stashed.
struct Held {
  std::uint32_t layer;  // the tile: one per layer
  std::uint64_t from, until, bytes_per_token;
};

struct Timeline {
  std::vector<Held> stash;
  std::uint64_t latest = 0;  // the last delivery of the wavefront
};

Timeline reversible_timeline(const RunSetup& setup, std::uint32_t L, std::uint64_t d0, std::uint64_t d,
                             std::uint64_t b_a, bool z) {
  const auto& blocks = setup.placement.blocks;
  const std::uint64_t h = d / 2;
  const std::uint32_t E = 0, X = 2 * L + 1;
  auto F = [](std::uint32_t k) { return 2 * k - 1; };
  auto G = [](std::uint32_t k) { return 2 * k; };
  auto home_a = [&](std::uint32_t k) { return k == 0 ? E : F(k); };
  auto home_b = [&](std::uint32_t k) { return k == 0 ? E : G(k); };
  auto D = [&](std::uint32_t p, std::uint32_t q) {
    return manhattan(blocks[p].coord(0, 0), blocks[q].coord(0, 0));
  };
  Timeline out;
  auto arrive = [&](std::uint64_t t) {
    out.latest = std::max(out.latest, t);
    return t;
  };
  auto hold = [&](std::uint32_t layer, std::uint64_t from, std::uint64_t until, std::uint64_t bytes) {
    out.stash.push_back({layer, from, until, bytes});
  };

  // Forward.
  const std::uint64_t hE = arrive(testing_support::host_hops(setup, blocks[E].coord(0, 0)));
  const std::uint64_t hX = arrive(testing_support::host_hops(setup, blocks[X].coord(0, 0)));
  std::vector<std::uint64_t> a(L + 1), b(L + 1);  // when a_k, b_k exist on their homes
  a[0] = b[0] = hE;
  for (std::uint32_t k = 1; k <= L; ++k) {
    a[k] = std::max(arrive(b[k - 1] + D(home_b(k - 1), F(k))), arrive(a[k - 1] + D(home_a(k - 1), F(k))));
    b[k] = std::max(arrive(a[k] + D(F(k), G(k))), arrive(b[k - 1] + D(home_b(k - 1), G(k))));
  }
  const std::uint64_t exit_x = std::max(arrive(a[L] + D(F(L), X)), arrive(b[L] + D(G(L), X)));
  const std::uint64_t exit_start = std::max(exit_x, hX);
  hold(X, exit_x, exit_start, b_a * d);

  // Recompute and backward, block by block.
  std::vector<std::uint64_t> a_home(L + 1), b_home(L + 1);   // when a_k, b_k (k < L) come home rebuilt
  std::uint64_t db_ready = arrive(exit_start + D(X, G(L)));  // db_k complete on G_k
  std::uint64_t da_in = arrive(exit_start + D(X, F(L)));     // the other part of da_k on F_k
  a_home[L] = da_in;                                         // a_L leaves when the first gradient arrives
  std::uint64_t entry_start = 0;
  for (std::uint32_t k = L; k >= 1; --k) {
    const std::uint64_t g_recompute = arrive(a_home[k] + D(F(k), G(k)));
    const std::uint64_t b_subtract = k == L ? g_recompute : std::max(g_recompute, b_home[k]);
    hold(G(k), k == L ? b[L] : b_home[k], b_subtract, b_a * h);
    b_home[k - 1] = arrive(b_subtract + D(G(k), home_b(k - 1)));
    const std::uint64_t f_recompute = arrive(b_home[k - 1] + D(home_b(k - 1), F(k)));
    hold(F(k), k == L ? a[L] : a_home[k], f_recompute, b_a * h);  // a_k until a_{k-1} = a_k - F_k(b_{k-1})
    if (k >= 2) a_home[k - 1] = arrive(f_recompute + D(F(k), F(k - 1)));

    const std::uint64_t g_start = std::max(db_ready, g_recompute);
    hold(G(k), g_recompute, g_start, b_a * h * (z ? 2 : 1));
    const std::uint64_t f_start = std::max({da_in, arrive(g_start + D(G(k), F(k))), f_recompute});
    hold(F(k), f_recompute, f_start, b_a * h * (z ? 2 : 1));
    // db_{k-1} on b_{k-1}'s home: G_k's skip and F_k's dX; da_{k-1} on a_{k-1}'s: F_k's skip.
    const std::uint64_t skip_b = arrive(g_start + D(G(k), home_b(k - 1)));
    const std::uint64_t f_dx = arrive(f_start + D(F(k), home_b(k - 1)));
    const std::uint64_t skip_a = arrive(f_start + D(F(k), home_a(k - 1)));
    db_ready = std::max(skip_b, f_dx);
    da_in = skip_a;
    if (k == 1) entry_start = std::max(db_ready, da_in);
  }
  hold(E, hE, entry_start, b_a * (d0 + (z ? d : 0)));
  return out;
}

struct OneByOne {
  std::uint32_t depth, inputs, width, outputs;
  std::string activation;
  std::uint32_t tokens, wavefront;
};

void PrintTo(const OneByOne& c, std::ostream* os) {
  *os << c.inputs << "," << c.width << "x" << c.depth << "," << c.outputs << " " << c.activation
      << " T=" << c.tokens << "/" << c.wavefront;
}

class ReversibleStashTimeline : public ::testing::TestWithParam<OneByOne> {};

// Wavefronts do not delay one another (latency-only links, instantaneous compute), so each repeats the
// first one's timeline from its injection (I = 1 x (1 + 1 - 1) = 1 cycle on 1x1 blocks), with its own
// tokens' bytes. The peaks: what is held once each cycle's stores and releases are all made.
TEST_P(ReversibleStashTimeline, InflightPeaksDepthAndMakespanByHand) {
  const OneByOne& c = GetParam();
  const std::uint64_t b_a = 2;
  const std::vector<std::string> overrides = {"--model.kind=reversible",
                                              "--model.inputs=" + std::to_string(c.inputs),
                                              "--model.width=" + std::to_string(c.width),
                                              "--model.depth=" + std::to_string(c.depth),
                                              "--model.outputs=" + std::to_string(c.outputs),
                                              "--model.activation=" + c.activation,
                                              "--mapping.block=1x1",
                                              "--step.tokens=" + std::to_string(c.tokens),
                                              "--step.wavefront=" + std::to_string(c.wavefront),
                                              "--sim.arith=none"};
  const RunSetup setup = setup_from_config(config_with(overrides));
  const RunResult result = run_with(overrides, "reversible");
  const Timeline line =
      reversible_timeline(setup, c.depth, c.inputs, c.width, b_a, c.activation != "identity");
  ASSERT_EQ(setup.injection_interval, 1u);

  std::uint64_t per_token = 0;
  for (const Held& e : line.stash) {
    ASSERT_LE(e.from, e.until) << "layer " << e.layer;
    per_token += e.bytes_per_token * (e.until - e.from);
  }
  EXPECT_EQ(result.counters.inflight_byte_cycles, per_token * c.tokens);

  const std::uint64_t G = (c.tokens + c.wavefront - 1) / c.wavefront;
  testing_support::StashPeaks<std::uint32_t> peaks;  // one tile per layer (1x1 blocks)
  for (std::uint64_t g = 0; g < G; ++g) {
    const std::uint64_t at = g * setup.injection_interval;
    const std::uint64_t tokens = std::min<std::uint64_t>(c.wavefront, c.tokens - g * c.wavefront);
    for (const Held& e : line.stash)
      peaks.hold(e.layer, at + e.from, at + e.until, static_cast<std::int64_t>(e.bytes_per_token * tokens));
  }
  EXPECT_EQ(result.counters.peak_stash_bytes, peaks.total());
  EXPECT_EQ(result.counters.peak_tile_stash_bytes, peaks.per_tile());
  // One cycle per hop: a value's time from its injection is its depth stamp.
  EXPECT_EQ(result.counters.depth, line.latest);
  EXPECT_EQ(result.counters.makespan_cycles, (G - 1) * setup.injection_interval + line.latest);
}

// The smallest case written out: L = 1, d_0 = 5, d = 6 (h = 3), d_out = 3, relu, T = 7 in one wavefront,
// b_a = 2. The placement puts E, F_1, G_1 and the exit at (0,0), (0,1), (1,1), (1,0) of a 2x2 grid (read
// from the setup and asserted: the numbers below depend on it), every tile on the edge (host: 1 hop).
//   forward: X and Z on E at 1; a_1 on F_1 at 2 (b_0 and a_0 one hop); b_1 on G_1 at 3 (a_1 one hop, a_0's
//   skip two); the exit's lane complete at 4 (a_1 two hops, b_1 one), its backward start at once (the
//   target came at 1). dX pieces: db_1 on G_1 at 5, da_1 on F_1 at 6.
//   recompute: a_1 leaves F_1 at 6, G_1 recomputes at 7 and rebuilds b_0 (b_1 released); b_0 home at 9, on
//   F_1 at 10: F_1 recomputes and rebuilds a_0 (a_1 released).
//   backward: G_1 starts at 7 (its recompute; db_1 waited), its dX reaches F_1 at 8; F_1 starts at 10 (its
//   recompute); the entry's last gradient piece arrives at 11: X and Z released; the step ends.
// Stash: E's X and Z, 2 x 7 x (5 + 6) = 154 bytes from 1 to 11; a_1, 2 x 7 x 3 = 42 bytes from 2 to 10; b_1,
// 42 bytes from 3 to 7; the recomputes' X and Z are held 0 cycles (their gradient is there first).
TEST(ReversibleStash, OneBlockOnFourTilesByHand) {
  const std::vector<std::string> overrides = {
      "--model.kind=reversible", "--model.inputs=5",   "--model.width=6",
      "--model.depth=1",         "--model.outputs=3",  "--mapping.block=1x1",
      "--step.tokens=7",         "--step.wavefront=7", "--sim.arith=none"};
  const RunSetup setup = setup_from_config(config_with(overrides));
  const std::vector<sim::Coord> tiles = {{0, 0}, {0, 1}, {1, 1}, {1, 0}};
  ASSERT_EQ(setup.placement.blocks.size(), tiles.size());
  for (std::size_t l = 0; l < tiles.size(); ++l) {
    ASSERT_EQ(setup.placement.blocks[l].anchor.x, tiles[l].x) << l;
    ASSERT_EQ(setup.placement.blocks[l].anchor.y, tiles[l].y) << l;
  }
  ASSERT_EQ(setup.grid_width * setup.grid_height, 4u);
  const sim::Counters r = run_with(overrides, "reversible").counters;
  EXPECT_EQ(r.inflight_byte_cycles, 154u * (11 - 1) + 42 * (10 - 2) + 42 * (7 - 3));
  EXPECT_EQ(r.peak_stash_bytes, 154u + 42 + 42);
  EXPECT_EQ(r.peak_tile_stash_bytes, 154u);
  EXPECT_EQ(r.depth, 11u);
  EXPECT_EQ(r.makespan_cycles, 11u);
}

INSTANTIATE_TEST_SUITE_P(
    OneTilePerLayer, ReversibleStashTimeline,
    ::testing::Values(OneByOne{1, 5, 6, 3, "relu", 7, 7}, OneByOne{1, 5, 6, 3, "identity", 7, 4},
                      OneByOne{2, 5, 6, 3, "relu", 7, 4}, OneByOne{2, 3, 10, 7, "tanh", 9, 2},
                      OneByOne{3, 5, 6, 3, "identity", 7, 3}),
    [](const ::testing::TestParamInfo<OneByOne>& param_info) {
      const OneByOne& c = param_info.param;
      return testing_support::gtest_name("L" + std::to_string(c.depth) + "_d" + std::to_string(c.width) +
                                         "_" + c.activation + "_T" + std::to_string(c.tokens) + "_" +
                                         std::to_string(c.wavefront));
    });

}  // namespace
}  // namespace spatialsim::workloads
