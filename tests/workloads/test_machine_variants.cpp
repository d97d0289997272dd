// Backprop's counts on machines other than the default latency-1 mesh with unlimited links (MODEL.md
// section 2): a torus (wrap-around routes), hop_latency > 1, and finite link bandwidth. Expectations are
// worked out here, not read from the simulator's routing (no grid.hops, no plan_redistribution, no split):
// - a route's length is the Manhattan distance on a mesh and the wrap-around minimum in each dimension on a
//   torus, min(|dx|, W - |dx|) + min(|dy|, H - |dy|); the host reaches a tile through the nearest edge tile,
//   1 + min(x, y, W - 1 - x, H - 1 - y), on a torus as on a mesh (docs/model.md, "The host at the grid
//   edge");
// - with latency-only links and instantaneous compute, every value appears hop_latency cycles per hop
//   after its inputs, so the layer-timing model of tests/workloads/layer_timeline.h (BackpropTimeline's)
//   holds in cycles, each hop costing hop_latency cycles and each route its length on the machine: it gives
//   the stash integral, the peaks, the depth (in hops) and the makespan (in cycles);
// - with finite bandwidth, one layer on 1x3 tiles with two wavefronts is timed by hand from the cut-through
//   rule of docs/model.md ("Finite bandwidth"): a message occupies each link of its route ceil(bytes / bw)
//   cycles, links are reserved in send order, and it arrives hops x hop_latency + ceil(bytes / bw) cycles
//   after it starts.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <ostream>
#include <string>
#include <vector>

#include "tests/test_names.h"
#include "tests/workloads/layer_timeline.h"
#include "tests/workloads/layout_formulas.h"
#include "tests/workloads/network_test_support.h"

namespace spatialsim::workloads {
namespace {

using sim::MessageKind;
using sim::Phase;
using testing_support::config_with;
using testing_support::for_each_piece;
using testing_support::run_with;
using testing_support::split_sizes;

// Route length between two tiles: Manhattan on a mesh, the shorter way round each ring on a torus.
struct Distance {
  bool torus = false;
  std::int32_t width = 0, height = 0;
  std::uint64_t operator()(sim::Coord a, sim::Coord b) const {
    std::int32_t dx = std::abs(a.x - b.x), dy = std::abs(a.y - b.y);
    if (torus) dx = std::min(dx, width - dx), dy = std::min(dy, height - dy);
    return static_cast<std::uint64_t>(dx + dy);
  }
};

struct MachineCase {
  std::string topology;  // mesh | torus
  std::string grid;      // mapping.grid: auto (the placement's bounding box) or WxH
  std::uint32_t hop_latency;
  std::string xstash;
};

// gtest prints a failing case's parameter with this (not as raw bytes).
void PrintTo(const MachineCase& c, std::ostream* os) {
  *os << c.topology << " " << c.grid << " hop_latency=" << c.hop_latency << " xstash=" << c.xstash;
}

// Widths that divide neither 3 rows nor 2 columns, on the rowmajor placement (boundaries several hops
// long); 20 tokens in wavefronts of 6, the last of 2.
const std::vector<std::uint32_t> kWidths = {9, 7, 12, 5};
constexpr std::uint64_t kTokens = 20, kWavefront = 6, kBa = 2, kBp = 2;

std::vector<std::string> overrides_for(const MachineCase& c, std::uint32_t hop_latency) {
  return {"--model.widths=9,7,12,5",
          "--mapping.block=3x2",
          "--mapping.placement=rowmajor",
          "--model.activation=relu",
          "--model.loss=mse",
          "--step.tokens=20",
          "--step.wavefront=6",
          "--backprop.xstash=" + c.xstash,
          "--machine.topology=" + c.topology,
          "--mapping.grid=" + c.grid,
          "--machine.hop_latency=" + std::to_string(hop_latency),
          "--sim.arith=none"};
}

class BackpropOnMachine : public ::testing::TestWithParam<MachineCase> {
 protected:
  void SetUp() override {
    const MachineCase& c = GetParam();
    setup = setup_from_config(config_with(overrides_for(c, c.hop_latency)));
    result = run_with(overrides_for(c, c.hop_latency), "backprop");
    dist = Distance{c.topology == "torus", static_cast<std::int32_t>(setup.grid_width),
                    static_cast<std::int32_t>(setup.grid_height)};
  }
  // Element-hops of one token across layer l's boundary (its output tiles to layer l + 1's lane entries).
  std::uint64_t boundary_hops(std::uint32_t l, const Distance& d) const {
    std::uint64_t hops = 0;
    const auto& blocks = setup.placement.blocks;
    for_each_piece(setup, l, [&](std::uint32_t j, std::uint32_t i, std::uint32_t elements) {
      hops += elements * d(blocks[l].output_tile(j), blocks[l + 1].lane_entry(i));
    });
    return hops;
  }
  RunSetup setup;
  RunResult result;
  Distance dist;
};

// Per token: lanes b_a d_in (c - 1) and columns b_p d_out (r - 1) in each direction (dX shares not for the
// first layer), the same on every machine (neighbour hops); redistribution the pieces' route lengths, once
// forward and once back; the host's inputs and targets through the nearest edge.
TEST_P(BackpropOnMachine, ByteHopsPerKindFollowTheRouteLengths) {
  const MachineCase& c = GetParam();
  const auto& blocks = setup.placement.blocks;
  const std::uint32_t L = setup.model.layers();
  std::uint64_t lane = 0, psum = 0, back_lane = 0, back_psum = 0, rebroadcast = 0, redistribution = 0;
  std::uint64_t mesh_redistribution = 0;
  for (std::uint32_t l = 0; l < L; ++l) {
    const std::uint64_t d_in = kWidths[l], d_out = kWidths[l + 1], r = blocks[l].rows, cols = blocks[l].cols;
    lane += kBa * d_in * (cols - 1);
    psum += kBp * d_out * (r - 1);
    back_lane += kBa * d_out * (r - 1);
    if (l > 0) back_psum += kBp * d_in * (cols - 1);
    rebroadcast += kBa * d_in * (cols - 1);
    if (l + 1 < L) {
      redistribution += kBa * boundary_hops(l, dist);
      mesh_redistribution += kBa * boundary_hops(l, Distance{});
    }
  }
  if (c.topology == "torus") {  // the case must exercise the wrap-around
    ASSERT_LT(redistribution, mesh_redistribution);
  }
  std::uint64_t host = 0;
  const auto in_rows = split_sizes(kWidths[0], blocks[0].rows);
  const auto out_cols = split_sizes(kWidths[L], blocks[L - 1].cols);
  for (std::uint32_t i = 0; i < in_rows.size(); ++i)
    host += kBa * in_rows[i] * testing_support::host_hops(setup, blocks[0].lane_entry(i));
  for (std::uint32_t j = 0; j < out_cols.size(); ++j)
    host += kBa * out_cols[j] * testing_support::host_hops(setup, blocks[L - 1].output_tile(j));

  const auto& hops = result.counters.byte_hops;
  EXPECT_EQ(hops.at(Phase::forward, MessageKind::lane), kTokens * lane);
  EXPECT_EQ(hops.at(Phase::forward, MessageKind::psum), kTokens * psum);
  EXPECT_EQ(hops.at(Phase::forward, MessageKind::redistribution), kTokens * redistribution);
  EXPECT_EQ(hops.at(Phase::forward, MessageKind::host), kTokens * host);
  EXPECT_EQ(hops.phase_total(Phase::forward), kTokens * (lane + psum + redistribution + host));
  EXPECT_EQ(hops.at(Phase::backward, MessageKind::lane), kTokens * back_lane);
  EXPECT_EQ(hops.at(Phase::backward, MessageKind::psum), kTokens * back_psum);
  EXPECT_EQ(hops.at(Phase::backward, MessageKind::redistribution), kTokens * redistribution);
  const std::uint64_t back_rebroadcast = c.xstash == "rebroadcast" ? kTokens * rebroadcast : 0;
  EXPECT_EQ(hops.at(Phase::backward, MessageKind::rebroadcast), back_rebroadcast);
  EXPECT_EQ(hops.phase_total(Phase::backward),
            kTokens * (back_lane + back_psum + redistribution) + back_rebroadcast);
  EXPECT_EQ(hops.phase_total(Phase::update), 0u);
}

// test_backprop.cpp's BackpropTimeline in cycles (tests/workloads/layer_timeline.h): a hop costs hop_latency
// cycles (host hops included), a route between blocks its length on the machine. X is stashed on a tile
// from its arrival until dZ reaches it (only on the lane entry under rebroadcast), Z on an output tile from
// the column's end until its backward start. Wavefronts do not delay one another (latency-only links,
// instantaneous compute): each repeats the first one's timeline from its injection, at multiples of
// I = hop_latency (r_0 + c_0 - 1) (docs/model.md, "The injection interval").
TEST_P(BackpropOnMachine, InflightPeaksDepthAndMakespanFromLayerTimingsInCycles) {
  const MachineCase& c = GetParam();
  const std::uint64_t lat = c.hop_latency;
  // The timeline reads the bytes per activation and the widths from the setup: pinned to the case here.
  ASSERT_EQ(setup.bytes.activation, kBa);
  ASSERT_EQ(setup.model.widths, kWidths);
  const auto policy = c.xstash == "rebroadcast" ? mappings::XStash::rebroadcast : mappings::XStash::replicate;
  const testing_support::LinkTiming links{lat, dist,
                                          [&](sim::Coord t) { return testing_support::host_hops(setup, t); }};
  const testing_support::WavefrontTimeline one = testing_support::wavefront_timeline(
      setup, testing_support::every_layer(setup.model.layers(), policy), links);

  const auto& blocks = setup.placement.blocks;
  const std::uint64_t interval = lat * (blocks[0].rows + blocks[0].cols - 1);
  EXPECT_EQ(setup.injection_interval, interval);
  // Depth is in hops: every time above is hop_latency times a chain of hops.
  ASSERT_EQ(one.latest % lat, 0u);
  testing_support::expect_step_counts(result.counters,
                                      testing_support::step_totals(one, kTokens, kWavefront, interval, lat));
}

// What a slower hop changes and what it does not: with nothing but hops taking time, every event of the
// step (the injections included, the interval being hop_latency (r_0 + c_0 - 1)) happens hop_latency times
// later than with one cycle per hop. So the makespan and the stash integral scale by hop_latency, while the
// depth (in hops), the peaks (the same overlaps, stretched) and every traffic count stay.
class SlowerHop : public BackpropOnMachine {};

TEST_P(SlowerHop, StretchesTimeButNotDepthPeaksOrTraffic) {
  const MachineCase& c = GetParam();
  ASSERT_GT(c.hop_latency, 1u);
  const sim::Counters one = run_with(overrides_for(c, 1), "backprop").counters;
  const sim::Counters& slow = result.counters;
  EXPECT_EQ(slow.makespan_cycles, c.hop_latency * one.makespan_cycles);
  EXPECT_EQ(slow.inflight_byte_cycles, c.hop_latency * one.inflight_byte_cycles);
  EXPECT_EQ(slow.depth, one.depth);
  EXPECT_EQ(slow.peak_stash_bytes, one.peak_stash_bytes);
  EXPECT_EQ(slow.peak_tile_stash_bytes, one.peak_tile_stash_bytes);
  EXPECT_TRUE(slow.byte_hops == one.byte_hops);
  EXPECT_TRUE(slow.messages == one.messages);
}

std::string case_name(const ::testing::TestParamInfo<MachineCase>& param_info) {
  const MachineCase& c = param_info.param;
  return testing_support::gtest_name(c.topology + "_" + c.grid + "_latency" + std::to_string(c.hop_latency) +
                                     "_" + c.xstash);
}

// The placement's own 4x6 box as a torus: layer 1's outputs at x = 2, 3 reach layer 2's lanes at x = 0 the
// short way round (3 hops become 1; 2 is a tie on the even ring). A 5x7 torus: still shorter x routes, and
// the last block's output row (y = 5) is no longer on the edge, so the targets take 2 host hops.
const MachineCase kTorusAuto{"torus", "auto", 1, "replicate"};
const MachineCase kTorus5x7{"torus", "5x7", 1, "rebroadcast"};
const MachineCase kTorus5x7Slow{"torus", "5x7", 2, "replicate"};
const MachineCase kMesh5x7Slow{"mesh", "5x7", 3, "rebroadcast"};
const MachineCase kMeshAutoSlow{"mesh", "auto", 2, "replicate"};

INSTANTIATE_TEST_SUITE_P(RowMajorOddWidths, BackpropOnMachine,
                         ::testing::Values(kTorusAuto, kTorus5x7, kTorus5x7Slow, kMesh5x7Slow, kMeshAutoSlow),
                         case_name);
INSTANTIATE_TEST_SUITE_P(RowMajorOddWidths, SlowerHop,
                         ::testing::Values(kTorus5x7Slow, kMesh5x7Slow, kMeshAutoSlow), case_name);

// Finite bandwidth, by hand. One layer 5 -> 7 on 1x3 tiles (one row: every tile is its column's output
// tile, so nothing travels in columns, and the backward pass sends nothing), cross-entropy, 5 tokens in
// wavefronts of 3 and 2, link_bytes_per_cycle = 3, one cycle per hop. Messages (s: serialization cycles):
// lane X, b_a T_g 5 = 30 bytes (s = 10) or 20 bytes (s = 7); the log-sum-exp running value and total,
// b_p T_g = 6 or 4 bytes (s = 2). The interval is I = (1 + 3 - 1) + ceil(30 / 3) = 13. Host messages (X
// into tile 0, targets into every tile; all tiles are on the edge) take 1 cycle, no serialization.
// Wavefront 0, from 0:
//   1: X at tile 0, sent on to tile 1 (link 0->1 busy 1..11, arrives 12); then its lse (waits: 11..13,
//      arrives 14).
//  12: X at tile 1, sent on (link 1->2 busy 12..22, arrives 23). 14: lse merged and sent (22..24, arrives
//      25).
//  23: X at tile 2. 25: the total there: column 2's dL/dy and dW (X on tile 2 released); the total goes
//      back west, 25 + 1 + 2 = 28 at tile 1 (released), 31 at tile 0 (released).
// Wavefront 1, from 13:
//  14: X at tile 0, sent on (link 0->1 free since 13: busy 14..21, arrives 22); its lse (21..23, arrives 24).
//  22: X at tile 1, sent on, but link 1->2 is wavefront 0's until 24 (24..31, arrives 32). 24: lse merged,
//      sent behind it (31..33, arrives 34).
//  32: X at tile 2. 34: the total, released; back west: 37 at tile 1, 40 at tile 0. The step ends at 40.
// X (replicate: every tile stashes all 5 features): 30 bytes for wavefront 0, held 30, 16 and 2 cycles on
// tiles 0, 1, 2; 20 bytes for wavefront 1, held 26, 15 and 2. The largest total is at 23..24: 30 on each
// tile for wavefront 0 and 20 on tiles 0 and 1 for wavefront 1; the largest on one tile 30 + 20. Depth
// (hops): the host's 1, the lse chain's 2 to tile 2, the total's 2 back: 5. Unlimited links would end the
// step at 13 + 5.
TEST(FiniteBandwidth, OneLayerOnOneRowTwoWavefrontsByHand) {
  const std::vector<std::string> overrides = {
      "--model.widths=5,7", "--mapping.block=1x3", "--model.loss=cross-entropy",      "--step.tokens=5",
      "--step.wavefront=3", "--sim.arith=none",    "--machine.link_bytes_per_cycle=3"};
  const RunSetup setup = setup_from_config(config_with(overrides));
  ASSERT_EQ(setup.grid_width * setup.grid_height, 3u);  // one row of three tiles, all on the edge
  EXPECT_EQ(setup.injection_interval, 13u);
  const sim::Counters r = run_with(overrides, "backprop").counters;
  EXPECT_EQ(r.makespan_cycles, 40u);
  EXPECT_EQ(r.inflight_byte_cycles, 30u * (30 + 16 + 2) + 20u * (26 + 15 + 2));
  EXPECT_EQ(r.peak_stash_bytes, 3u * 30 + 2 * 20);
  EXPECT_EQ(r.peak_tile_stash_bytes, 30u + 20);
  EXPECT_EQ(r.depth, 5u);
  // Bandwidth changes no count but time: per token, the lane's 2 hops of b_a 5 bytes, the lse chain's 2
  // hops out and 2 back of b_p bytes, the host's 1 hop for 5 input and 7 target features.
  EXPECT_EQ(r.byte_hops.at(Phase::forward, MessageKind::lane), 5u * 2 * 5 * 2);
  EXPECT_EQ(r.byte_hops.at(Phase::forward, MessageKind::scalar), 5u * 2 * 4);
  EXPECT_EQ(r.byte_hops.at(Phase::forward, MessageKind::host), 5u * 2 * (5 + 7));
  EXPECT_EQ(r.byte_hops.phase_total(Phase::backward), 0u);
}

}  // namespace
}  // namespace spatialsim::workloads
