// Forward gradients on the grid: the K scalars d_k the tiles reduce equal an independent dense JVP along
// the same regenerated tangents (and central differences of the loss), the tiles' assembled estimate is
// (1/K) sum_k d_k v_k, split-fg's head gradient is backprop's, and the traffic and storage follow the
// closed forms of docs/forward-gradients.md (SRAM: docs/model.md's rows).
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <memory>
#include <ostream>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "sim/engine.h"
#include "tests/test_names.h"
#include "tests/workloads/forward_gradient_support.h"
#include "tests/workloads/layout_formulas.h"
#include "tests/workloads/network_test_support.h"
#include "workloads/forward_gradient/tangent_scalars.h"
#include "workloads/reference/finite_difference.h"

namespace spatialsim::workloads {
namespace {

using sim::MessageKind;
using sim::Phase;
using testing_support::config_with;
using testing_support::run_with;

struct FgCase {
  std::string schedule;  // forward-gradient | split-fg
  std::string loss;
  std::string tangent;
  std::string block;
  std::string split;
};

void PrintTo(const FgCase& c, std::ostream* os) {
  *os << c.schedule << ", " << c.loss << ", " << c.tangent << " tangents, block " << c.block << ", split "
      << (c.split.empty() ? "-" : c.split);
}

std::vector<std::string> fg_overrides(const FgCase& c) {
  return {"--model.widths=7,6,5,4",
          "--mapping.block=" + c.block,
          "--model.activation=tanh",
          "--model.loss=" + c.loss,
          "--data.task=" + std::string(c.loss == "mse" ? "teacher" : "mixture"),
          "--step.tokens=10",
          "--step.wavefront=4",
          "--sim.arith=fp64",
          "--fg.tangents=3",
          "--fg.tangent=" + c.tangent,
          "--splitfg.split=" + c.split};
}

class ForwardGradientExact : public ::testing::TestWithParam<FgCase> {};

TEST_P(ForwardGradientExact, ScalarsEqualTheDenseJvpAndTheEstimateIsTheirCombination) {
  const FgCase& c = GetParam();
  const auto overrides = fg_overrides(c);
  const RunResult r = run_with(overrides, c.schedule);
  const RunSetup setup = setup_from_config(config_with(overrides));
  const auto net = testing_support::dense_net(setup.model, r.initial_parameters);
  const auto& x = r.first_step_data.inputs;
  const auto& y = r.first_step_data.targets;
  const std::uint32_t L = setup.model.layers();
  const std::uint32_t trunk = c.schedule == "split-fg" ? static_cast<std::uint32_t>(std::stoul(c.split)) : L;
  const TangentGenerator gen(c.tangent == "gaussian" ? TangentKind::gaussian : TangentKind::rademacher,
                             setup.seed, 0);
  const std::uint32_t K = 3;
  ASSERT_EQ(r.first_step_tangent_scalars.size(), K);
  const auto exact = reference::gradients(net, x, y);
  auto estimate = reference::zeros_like(net);
  for (std::uint32_t k = 0; k < K; ++k) {
    const auto v = testing_support::tangent_direction(net, gen, k, trunk);
    const double jvp = reference::directional_derivative(net, x, y, v);
    const double d = r.first_step_tangent_scalars[k];
    EXPECT_LE(std::abs(d - jvp), 1e-10 * std::abs(jvp)) << "k " << k << " d " << d << " jvp " << jvp;
    // The dense JVP is itself the derivative of the loss along v_k: fourth-order central differences
    // (truncation ~h^4, round-off ~eps/h at h = 1e-4) reach the 1e-10 MODEL.md asks for.
    const double h = 1e-4;
    auto f = [&](double e) { return reference::loss_along_direction(net, x, y, v, e); };
    const double fd = (f(-2 * h) - 8 * f(-h) + 8 * f(h) - f(2 * h)) / (12 * h);
    EXPECT_LE(std::abs(fd - jvp), 1e-10 * std::abs(jvp)) << "k " << k << " fd " << fd << " jvp " << jvp;
    for (std::uint32_t l = 0; l < trunk; ++l) {
      for (std::size_t e = 0; e < v.weights[l].size(); ++e)
        estimate.weights[l].values()[e] += d / K * v.weights[l].values()[e];
      for (std::size_t e = 0; e < v.bias[l].size(); ++e) estimate.bias[l][e] += d / K * v.bias[l][e];
    }
  }
  // Trunk: the estimate; head (split-fg): backprop's exact gradient.
  for (std::uint32_t l = trunk; l < L; ++l) {
    estimate.weights[l] = exact.weights[l];
    estimate.bias[l] = exact.bias[l];
  }
  const auto got = testing_support::flatten(r.first_step_gradients, 0, L);
  const auto want = testing_support::flatten(estimate, 0, L);
  ASSERT_EQ(got.size(), want.size());
  double scale = 0;
  for (double w : want) scale = std::max(scale, std::abs(w));
  for (std::size_t e = 0; e < got.size(); ++e)
    EXPECT_NEAR(got[e], want[e], 1e-12 * scale) << "coordinate " << e;
  EXPECT_NEAR(r.loss_per_step[0], exact.loss, 1e-12 * std::abs(exact.loss));
}

INSTANTIATE_TEST_SUITE_P(Schedules, ForwardGradientExact,
                         ::testing::Values(FgCase{"forward-gradient", "mse", "gaussian", "2x2", "1"},
                                           FgCase{"forward-gradient", "cross-entropy", "rademacher", "2x3",
                                                  "1"},
                                           FgCase{"forward-gradient", "mse", "gaussian", "1x1", "1"},
                                           FgCase{"split-fg", "mse", "gaussian", "2x2", "2"},
                                           FgCase{"split-fg", "cross-entropy", "gaussian", "3x2", "1"},
                                           FgCase{"split-fg", "mse", "rademacher", "2x2", "2"}),
                         [](const auto& param_info) {
                           const FgCase& c = param_info.param;
                           return testing_support::gtest_name(c.schedule + "_" + c.loss + "_" + c.tangent +
                                                              "_" + c.block + "_s" + c.split);
                         });

// Counting mode and arithmetic mode count the same; the tangent streams ride every forward lane, partial
// sum and redistribution message: K times the primal's byte-hops, and (1 + 2K) times its multiply-adds.
TEST(ForwardGradientCounts, TangentTrafficIsKTimesTheForwardPassAndNothingIsStashed) {
  const std::vector<std::string> base = {"--model.widths=12,10,8,6", "--mapping.block=2x2",
                                         "--step.tokens=16", "--step.wavefront=4", "--fg.tangents=5"};
  auto with = [&](std::string arith) {
    auto o = base;
    o.push_back("--sim.arith=" + arith);
    return o;
  };
  const RunResult fwd = run_with(with("none"), "forward");
  const RunResult fg = run_with(with("none"), "forward-gradient");
  const RunResult fg_values = run_with(with("fp64"), "forward-gradient");
  EXPECT_EQ(fg.counters.byte_hops, fg_values.counters.byte_hops);
  EXPECT_EQ(fg.counters.depth, fg_values.counters.depth);
  const auto& f = fwd.counters.byte_hops;
  const auto& g = fg.counters.byte_hops;
  const std::uint64_t primal = f.at(Phase::forward, MessageKind::lane) +
                               f.at(Phase::forward, MessageKind::psum) +
                               f.at(Phase::forward, MessageKind::redistribution);
  // Layer 0's lanes carry the network input only (dx_0 = 0): b_a T d_in (c - 1) byte-hops without tangents.
  const std::uint64_t input_lanes = 2 * 16 * 12 * 1;
  EXPECT_EQ(g.at(Phase::forward, MessageKind::tangent), 5 * (primal - input_lanes));
  for (MessageKind k : {MessageKind::lane, MessageKind::psum, MessageKind::redistribution, MessageKind::host})
    EXPECT_EQ(g.at(Phase::forward, k), f.at(Phase::forward, k)) << sim::name(k);
  EXPECT_GT(g.at(Phase::backward, MessageKind::scalar), 0u);
  EXPECT_EQ(g.phase_total(Phase::update), 0u);
  EXPECT_EQ(fg.counters.peak_stash_bytes, 0u);
  EXPECT_EQ(fg.counters.inflight_byte_cycles, 0u);
  // Forward flops: (1 + 2K) per primal multiply-add (1 + K in layer 0, whose dX W is zero), plus the
  // output tiles' K shares <dL/dY, dY_k>.
  const std::uint64_t shares = 2 * 5 * 16 * 6;
  const std::uint64_t layer0 = 2 * 16 * 12 * 10;
  EXPECT_EQ(fg.counters.flops[sim::index(Phase::forward)],
            11 * fwd.counters.flops[sim::index(Phase::forward)] - 5 * layer0 + shares);
}

// The same on odd sizes, by formula (tests/workloads/layout_formulas.h): the companion messages of kind
// `tangent` follow every forward message that carries the K streams: the lanes of every trunk layer but the
// first (the network's input has no tangents), the trunk's partial sums (each layer adds X V_k), and the
// boundaries between trunk layers. forward-gradient's trunk is the whole network; split-fg's is the layers
// before the split. The primal traffic is a forward pass's.
TEST(ForwardGradientCounts, TangentTrafficFollowsTheTrunksForwardMessagesOnOddSizes) {
  using testing_support::Traffic;
  const std::uint64_t K = 3, T = 23, G = 5;  // the last wavefront has 3 tokens
  const std::vector<std::string> o = {"--model.widths=11,13,13,10,7",
                                      "--mapping.block=2x3",
                                      "--step.tokens=23",
                                      "--step.wavefront=5",
                                      "--fg.tangents=3",
                                      "--splitfg.split=2",
                                      "--model.loss=mse",
                                      "--sim.arith=none"};
  const RunSetup setup = setup_from_config(testing_support::config_with(o));
  const testing_support::ForwardTraffic f = testing_support::forward_traffic(setup);
  const std::uint32_t L = setup.model.layers();
  for (const auto& [schedule, trunk] : {std::pair{"forward-gradient", L}, std::pair{"split-fg", 2u}}) {
    const RunResult r = run_with(o, schedule);
    Traffic tangent, lanes, psums, boundaries;
    for (std::uint32_t l = 0; l < L; ++l) {
      lanes += f.lanes[l];
      psums += f.psums[l];
      boundaries += f.boundary[l];
      if (l >= trunk) continue;
      if (l > 0) tangent += f.lanes[l];
      tangent += f.psums[l];
      if (l + 1 < trunk) tangent += f.boundary[l];
    }
    const auto& hops = r.counters.byte_hops;
    const auto& messages = r.counters.messages;
    EXPECT_EQ(hops.at(Phase::forward, MessageKind::tangent), K * T * tangent.byte_hops) << schedule;
    EXPECT_EQ(messages.at(Phase::forward, MessageKind::tangent), G * tangent.messages) << schedule;
    EXPECT_EQ(hops.at(Phase::forward, MessageKind::lane), T * lanes.byte_hops) << schedule;
    EXPECT_EQ(hops.at(Phase::forward, MessageKind::psum), T * psums.byte_hops) << schedule;
    EXPECT_EQ(hops.at(Phase::forward, MessageKind::redistribution), T * boundaries.byte_hops) << schedule;
    EXPECT_EQ(hops.at(Phase::forward, MessageKind::host), T * f.host.byte_hops) << schedule;
  }
}

// The K scalars d_k, by formula (MODEL.md section 6, docs/forward-gradients.md): once per step, the output
// tiles of the last trunk layer reduce their sums to the last of them, which broadcasts the totals to every
// trunk tile. Each tree message is one K * b_p-byte `scalar` message of phase backward. When the trunk
// tiles fill a rectangle (checked below), a member's nearest member on a shortest route from the root is
// its neighbour, so each tree has one one-hop message per member but the root. The output row of a block is
// always a line of neighbours.
struct ScalarCase {
  std::string schedule;
  std::uint32_t trunk;  // layers
  std::vector<std::string> overrides;
};

void PrintTo(const ScalarCase& c, std::ostream* os) {
  *os << c.schedule << ", trunk of " << c.trunk << " layers";
  for (const std::string& o : c.overrides) *os << " " << o;
}

class TangentScalarTraffic : public ::testing::TestWithParam<ScalarCase> {};

TEST_P(TangentScalarTraffic, IsOneHopPerTreeMemberButTheRootPerStep) {
  const ScalarCase& c = GetParam();
  const std::uint64_t K = 3, b_p = 4, steps = 2;
  auto o = c.overrides;
  for (std::string extra :
       {"--fg.tangents=3", "--machine.psum_bytes=4", "--train.steps=2", "--sim.arith=none"})
    o.push_back(extra);
  const RunSetup setup = setup_from_config(config_with(o));
  // The trunk's tiles and their bounding box: the formula needs them to fill it.
  std::set<std::pair<std::int32_t, std::int32_t>> trunk_tiles;
  std::int32_t x0 = INT32_MAX, y0 = INT32_MAX, x1 = INT32_MIN, y1 = INT32_MIN;
  for (std::uint32_t l = 0; l < c.trunk; ++l) {
    const mappings::BlockLayout& b = setup.placement.blocks[l];
    for (std::uint32_t i = 0; i < b.rows; ++i)
      for (std::uint32_t j = 0; j < b.cols; ++j) {
        const sim::Coord t = b.coord(i, j);
        trunk_tiles.emplace(t.x, t.y);
        x0 = std::min(x0, t.x), y0 = std::min(y0, t.y), x1 = std::max(x1, t.x), y1 = std::max(y1, t.y);
      }
  }
  ASSERT_EQ(trunk_tiles.size(), static_cast<std::size_t>((x1 - x0 + 1) * (y1 - y0 + 1)))
      << "the case's trunk must fill its bounding box";
  const std::uint64_t holders = setup.placement.blocks[c.trunk - 1].cols;
  const std::uint64_t messages = (holders - 1) + (trunk_tiles.size() - 1);

  const RunResult r = run_with(o, c.schedule);
  EXPECT_EQ(r.counters.messages.at(Phase::backward, MessageKind::scalar), steps * messages);
  EXPECT_EQ(r.counters.byte_hops.at(Phase::backward, MessageKind::scalar), steps * messages * K * b_p);
  EXPECT_EQ(r.counters.bytes.at(Phase::backward, MessageKind::scalar), steps * messages * K * b_p);
  // With mse there is no other scalar (the loss's log-sum-exp chain is cross-entropy's).
  EXPECT_EQ(r.counters.messages.kind_total(MessageKind::scalar), steps * messages);
}

INSTANTIATE_TEST_SUITE_P(
    OddSizes, TangentScalarTraffic,
    ::testing::Values(
        // 4 layers of 2x2 on the zigzag: a 4x4 square; two holders.
        ScalarCase{"forward-gradient",
                   4,
                   {"--model.widths=11,13,13,10,7", "--mapping.block=2x2", "--step.tokens=23",
                    "--step.wavefront=5", "--model.loss=mse"}},
        // 4 layers of 2x3 in rowmajor cells, two per row: a 6x4 rectangle; three holders.
        ScalarCase{"forward-gradient",
                   4,
                   {"--model.widths=9,7,12,5,3", "--mapping.block=2x3", "--mapping.placement=rowmajor",
                    "--step.tokens=13", "--step.wavefront=4", "--model.loss=mse"}},
        // split-fg with a trunk of 2 layers of 3x3 on the zigzag: a 3x6 rectangle; three holders.
        ScalarCase{"split-fg",
                   2,
                   {"--model.widths=11,13,10,7", "--mapping.block=3x3", "--splitfg.split=2",
                    "--step.tokens=17", "--step.wavefront=4", "--model.loss=mse"}}),
    [](const auto& param_info) {
      const ScalarCase& c = param_info.param;
      return testing_support::gtest_name(c.schedule + "_" + c.overrides[1].substr(16) + "_trunk" +
                                         std::to_string(c.trunk));
    });

// The last holder is the root of both trees (tangent_scalars.h): the other holders' sums travel to it, and
// the totals spread from it to the trunk tiles, nearest first. Holders at the two ends of a 4 x 1 line
// (tiles 0 and 3, the last given being 3) and every tile a trunk tile: 0's share goes to 3, which has the
// totals at once, and they reach 2, 1 and 0 in that order, one hop further each.
struct ScalarHarness : sim::MessageHandler, ScalarListener {
  std::unique_ptr<TangentScalars<double>> scalars;
  std::vector<sim::TileId> reached;  // tiles in the order the totals reached them
  std::vector<std::uint32_t> depth;
  void on_message(sim::Engine& engine, const sim::Message& m) override { scalars->on_message(engine, m); }
  void on_scalars(sim::Engine&, sim::TileId tile, const std::vector<double>& d, std::uint32_t at,
                  sim::Cycle) override {
    EXPECT_EQ(d, std::vector<double>{3.0}) << tile;
    reached.push_back(tile);
    depth.push_back(at);
  }
};

TEST(TangentScalarTrees, TheLastHolderIsTheRootOfBothTrees) {
  const sim::Grid grid(4, 1, sim::Topology::mesh);
  sim::Engine engine(grid, sim::MachineTiming{});
  ScalarHarness h;
  TangentScalarsSetup s;
  s.holders = {0, 3};
  s.trunk_tiles = {0, 1, 2, 3};
  s.reduce_port = 1;
  s.broadcast_port = 2;
  h.scalars = std::make_unique<TangentScalars<double>>(s, grid, h);
  engine.set_handler(&h);
  h.scalars->add_share(engine, /*holder=*/0, {1.0}, 0, 0);
  h.scalars->add_share(engine, /*holder=*/1, {2.0}, 0, 0);
  engine.run();
  EXPECT_EQ(h.reached, (std::vector<sim::TileId>{3, 2, 1, 0}));
  EXPECT_EQ(h.depth, (std::vector<std::uint32_t>{3, 4, 5, 6}));  // 3 hops in, then one per tile out
  EXPECT_EQ(h.scalars->totals(), std::vector<double>{3.0});
}

TEST(ForwardGradientCounts, SplitFgStashesTheHeadAndTheSplitTangentsOnly) {
  const std::vector<std::string> o = {"--model.widths=12,10,8,6", "--mapping.block=2x2", "--step.tokens=16",
                                      "--step.wavefront=4",       "--splitfg.split=2",   "--sim.arith=none"};
  const auto with_tangents = [&](std::uint32_t k) {
    std::vector<std::string> ok = o;
    ok.push_back("--fg.tangents=" + std::to_string(k));
    return run_with(ok, "split-fg");
  };
  const RunResult bp = run_with(o, "backprop");
  const RunResult sf = with_tangents(5);
  EXPECT_GT(sf.counters.peak_stash_bytes, 0u);
  EXPECT_LT(sf.counters.peak_stash_bytes, bp.counters.peak_stash_bytes);
  const auto& g = sf.counters.byte_hops;
  EXPECT_GT(g.at(Phase::forward, MessageKind::tangent), 0u);
  EXPECT_GT(g.at(Phase::backward, MessageKind::scalar), 0u);
  EXPECT_EQ(g.at(Phase::backward, MessageKind::tangent), 0u);
  // The stash is the head's activations, which do not depend on K, plus the K tangents dh_k held at the
  // split until u = dL/dh returns (MODEL.md section 7). With latency-only links the timing is the same for
  // every K, so the stash grows linearly in K, and each tangent holds b_a T d_split bytes (d_split = 8) for
  // at least a cycle.
  const RunResult one = with_tangents(1);
  const RunResult two = with_tangents(2);
  const std::uint64_t per_tangent = two.counters.inflight_byte_cycles - one.counters.inflight_byte_cycles;
  EXPECT_GE(per_tangent, 2u * 16 * 8);
  EXPECT_EQ(sf.counters.inflight_byte_cycles, one.counters.inflight_byte_cycles + 4 * per_tangent);
  // Wavefront 0's K b_a T_g d_split bytes are all held before its first u returns (the head's round trip
  // is longer than the stagger of the split's columns); every wavefront's together is the most.
  EXPECT_GE(sf.counters.peak_stash_bytes, one.counters.peak_stash_bytes);
  EXPECT_GE(sf.counters.peak_stash_bytes, 5u * 2 * 4 * 8);
  EXPECT_LE(sf.counters.peak_stash_bytes, one.counters.peak_stash_bytes + 4u * 2 * 16 * 8);
}

// SRAM bytes per phase, by docs/model.md's rows, on odd sizes: widths 11 -> 13 -> 10 -> 7 -> 9 on 2x3 blocks
// (uneven splits), T = 23 tokens in wavefronts of 5 (G = 5, the last 3 tokens), K = 3, 2 steps, b_a = 2,
// b_w = 4 (apart, so that an activation and a weight charge cannot stand in for each other), relu, bias.
// Per step: a trunk layer reads its weights and bias once per wavefront (one read serves the 1 + K streams
// and X V_k) and stashes nothing; once the K scalars arrive, every trunk tile reads and writes its
// gradient accumulator once, 2 b_w x its parameters, whatever K and G. split-fg also writes the K tangents
// dh_k at the split, K b_a T d_S in all, reads them back in the backward pass, and runs backprop's head.
const std::vector<std::string> kSramOdd = {"--model.widths=11,13,10,7,9",
                                           "--mapping.block=2x3",
                                           "--step.tokens=23",
                                           "--step.wavefront=5",
                                           "--fg.tangents=3",
                                           "--splitfg.split=2",
                                           "--train.steps=2",
                                           "--machine.act_bytes=2",
                                           "--machine.weight_bytes=4",
                                           "--sim.arith=none"};
const std::vector<std::uint64_t> kSramWidths = {11, 13, 10, 7, 9};
constexpr std::uint64_t kSramT = 23, kSramG = 5, kSramK = 3, kSramSteps = 2, kSramBa = 2, kSramBw = 4;
constexpr std::uint64_t kSramCols = 3;

// Weights and biases of layers [first, last).
std::uint64_t parameters(std::size_t first, std::size_t last) {
  std::uint64_t p = 0;
  for (std::size_t l = first; l < last; ++l) p += kSramWidths[l] * kSramWidths[l + 1] + kSramWidths[l + 1];
  return p;
}

TEST(ForwardGradientCounts, SramIsWeightReadsPerWavefrontAndOneAccumulatorPassPerStep) {
  const std::size_t L = kSramWidths.size() - 1;
  const RunResult r = run_with(kSramOdd, "forward-gradient");
  const auto& sram = r.counters.sram_bytes;
  const std::uint64_t P = parameters(0, L);
  EXPECT_EQ(sram[sim::index(Phase::forward)], kSramSteps * kSramG * kSramBw * P);
  EXPECT_EQ(sram[sim::index(Phase::backward)], kSramSteps * 2 * kSramBw * P);
  EXPECT_EQ(sram[sim::index(Phase::recompute)], 0u);
  // SGD: parameter and gradient read, parameter written.
  EXPECT_EQ(sram[sim::index(Phase::update)], kSramSteps * 3 * kSramBw * P);
}

TEST(ForwardGradientCounts, SplitFgSramAddsTheTangentsAtTheSplitAndTheHeadsBackprop) {
  const std::size_t L = kSramWidths.size() - 1, S = 2;
  const RunResult r = run_with(kSramOdd, "split-fg");
  const auto& sram = r.counters.sram_bytes;
  // dh_k of every column of the split layer S - 1: K b_a T_g n_j per wavefront and column.
  const std::uint64_t tangents = kSramK * kSramBa * kSramT * kSramWidths[S];
  std::uint64_t forward = kSramG * kSramBw * parameters(0, L) + tangents;
  for (std::size_t l = S; l < L; ++l) {
    forward += kSramBa * kSramT * kSramWidths[l] * kSramCols;         // X on every tile of the head
    if (l + 1 < L) forward += kSramBa * kSramT * kSramWidths[l + 1];  // Z where a relu follows
  }
  const RunSetup setup = setup_from_config(config_with(kSramOdd));
  const std::uint64_t head = testing_support::backprop_backward_sram(setup, kSramT, kSramG, S);
  const std::uint64_t backward = 2 * kSramBw * parameters(0, S) + tangents + head;
  EXPECT_EQ(sram[sim::index(Phase::forward)], kSramSteps * forward);
  EXPECT_EQ(sram[sim::index(Phase::backward)], kSramSteps * backward);
  EXPECT_EQ(sram[sim::index(Phase::recompute)], 0u);
  EXPECT_EQ(sram[sim::index(Phase::update)], kSramSteps * 3 * kSramBw * parameters(0, L));
}

}  // namespace
}  // namespace spatialsim::workloads

namespace spatialsim::workloads {
namespace {

// Bad input is a sim::ConfigError naming the key (the binary prints it as one line, exit code 2).
TEST(ForwardGradientBadInput, TangentCountSplitAndRhoAreChecked) {
  const std::vector<std::string> base = {"--model.widths=7,6,5,4", "--sim.arith=fp64"};
  struct Bad {
    std::string option;
    std::string schedule;
    std::string key;
  };
  for (const Bad& b : {Bad{"--fg.tangents=0", "forward-gradient", "fg.tangents"},
                       Bad{"--splitfg.split=7", "split-fg", "splitfg.split"},
                       Bad{"--splitfg.split=3", "split-fg", "splitfg.split"},
                       Bad{"--splitfg.rho=-0.1", "split-fg", "splitfg.rho"}}) {
    auto o = base;
    o.push_back(b.option);
    try {
      (void)run_with(o, b.schedule);
      ADD_FAILURE() << b.option << " was accepted";
    } catch (const sim::ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find(b.key), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace spatialsim::workloads
