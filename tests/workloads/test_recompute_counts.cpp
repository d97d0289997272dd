// Checkpoint and revolve, count by count (MODEL.md section 3), where tests/workloads/test_recompute.cpp
// stops:
//  - CheckpointCounts: uniform checkpointing's backward byte-hops and messages per kind equal backprop's
//    backward closed forms (MODEL.md section 4, docs/model.md sections 3 and 5: every layer is rebuilt with
//    a `replicate` stash before its backward pass), and its flops per phase are 2 T d_in d_out per layer and
//    pass, every layer recomputed exactly once (docs/model.md section 7: each segment again, the last
//    included).
//  - RevolveEpisodes: for small chains, revolve's episodes written out by hand from Griewank's recursion
//    (which layers each reruns, from which checkpoint, what each layer keeps), checked against the plan, and
//    every count they imply: byte-hops and messages per phase and kind (restart signals included), SRAM
//    bytes and flops per phase, the most checkpoints a wavefront holds.
//  - RevolveMinimalSteps: literal values of revolve's minimal forward steps p(l, s), verified here by the
//    optimal-split recursion and by an exhaustive search over every checkpointing strategy, then checked
//    against the plan, the closed form and the recompute flops of a grid run.
// Expected values come from formulas written here and in tests/workloads/layout_formulas.h, from the
// placement's coordinates and the machine's sizes (inputs), never from mappings::split,
// plan_redistribution, grid.hops, plan_revolve or revolve_minimal_forward_steps (which are checked, not
// used). Sizes are odd on purpose: widths that do not divide among the tiles, r != c, token counts that
// leave a smaller last wavefront, segments that do not divide L, b_p != b_a.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <deque>
#include <limits>
#include <ostream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "tests/test_names.h"
#include "tests/workloads/layout_formulas.h"
#include "tests/workloads/network_test_support.h"
#include "workloads/schedules/revolve_plan.h"

namespace spatialsim::workloads {
namespace {

using sim::MessageKind;
using sim::Phase;
using testing_support::config_with;
using testing_support::for_each_piece;
using testing_support::manhattan;
using testing_support::run_with;
using testing_support::split_sizes;
using testing_support::Traffic;

// Backprop's backward pass of an mlp, per token (byte-hops) and per wavefront (messages), from MODEL.md
// section 4 and docs/model.md section 3: dZ down every column (kind lane, b_a n_j per hop, r - 1 hops); the
// dX shares along every row toward the lane entry (kind psum, b_p m_i per hop, c - 1 hops), not on layer 0;
// the dX pieces back from layer l + 1's lane entries to layer l's output tiles (kind redistribution, b_a
// per element and hop), one per overlap of a column range of l with a lane range of l + 1.
struct BackwardFormulas {
  Traffic lane, psum, redistribution;
};

BackwardFormulas backward_formulas(const RunSetup& s) {
  const std::vector<std::uint32_t>& widths = s.model.widths;
  const auto L = static_cast<std::uint32_t>(widths.size() - 1);
  const std::uint64_t b_a = s.bytes.activation, b_p = s.bytes.partial_sum;
  const auto& blocks = s.placement.blocks;
  BackwardFormulas b;
  for (std::uint32_t l = 0; l < L; ++l) {
    const mappings::BlockLayout& block = blocks[l];
    for (std::uint32_t n_j : split_sizes(widths[l + 1], block.cols))
      b.lane.byte_hops += b_a * n_j * (block.rows - 1);
    b.lane.messages += block.cols * (block.rows - 1);
    if (l > 0) {
      for (std::uint32_t m_i : split_sizes(widths[l], block.rows))
        b.psum.byte_hops += b_p * m_i * (block.cols - 1);
      b.psum.messages += block.rows * (block.cols - 1);
    }
    if (l + 1 < L)
      for_each_piece(s, l, [&](std::uint32_t j, std::uint32_t i, std::uint32_t elements) {
        b.redistribution.byte_hops +=
            b_a * elements * manhattan(blocks[l + 1].lane_entry(i), block.output_tile(j));
        ++b.redistribution.messages;
      });
  }
  return b;
}

// One layer's matrix product over all T tokens (MODEL.md section 4): forward, each recomputation, dW, dX.
std::uint64_t product_flops(const std::vector<std::uint32_t>& widths, std::uint64_t tokens, std::uint32_t l) {
  return 2 * tokens * widths[l] * widths[l + 1];
}

// Backward flops (docs/model.md section 2): dW on every layer, dX on every layer but the first.
std::uint64_t backward_flops(const std::vector<std::uint32_t>& widths, std::uint64_t tokens) {
  std::uint64_t flops = 0;
  for (std::uint32_t l = 0; l + 1 < widths.size(); ++l)
    flops += (l > 0 ? 2 : 1) * product_flops(widths, tokens, l);
  return flops;
}

void expect_traffic(const RunResult& r, Phase phase, MessageKind kind, const Traffic& per_token_and_wavefront,
                    std::uint64_t T, std::uint64_t G, const std::string& what) {
  EXPECT_EQ(r.counters.byte_hops.at(phase, kind), T * per_token_and_wavefront.byte_hops) << what;
  EXPECT_EQ(r.counters.messages.at(phase, kind), G * per_token_and_wavefront.messages) << what;
}

// The backward pass of a recomputing schedule finds every layer's `replicate` stash (rebuilt by an
// episode, or kept by the first pass): it is backprop's, kind by kind, with backprop's SRAM and flops;
// rebroadcast, host, scalar (mse) and tangent carry nothing, and the update moves nothing.
void expect_backprops_backward(const RunResult& r, const RunSetup& setup, std::uint64_t T, std::uint64_t G) {
  const BackwardFormulas b = backward_formulas(setup);
  expect_traffic(r, Phase::backward, MessageKind::lane, b.lane, T, G, "backward dZ down the columns");
  expect_traffic(r, Phase::backward, MessageKind::psum, b.psum, T, G, "backward dX shares along the rows");
  expect_traffic(r, Phase::backward, MessageKind::redistribution, b.redistribution, T, G,
                 "backward dX pieces between layers");
  for (MessageKind kind :
       {MessageKind::rebroadcast, MessageKind::scalar, MessageKind::host, MessageKind::tangent})
    EXPECT_EQ(r.counters.byte_hops.at(Phase::backward, kind), 0u) << static_cast<int>(kind);
  EXPECT_EQ(r.counters.sram_bytes[sim::index(Phase::backward)],
            testing_support::backprop_backward_sram(setup, T, G));
  EXPECT_EQ(r.counters.flops[sim::index(Phase::backward)], backward_flops(setup.model.widths, T));
  EXPECT_EQ(r.counters.byte_hops.phase_total(Phase::update), 0u);
}

struct RunCase {
  std::string widths;
  std::string block;
  std::string placement;
  std::uint32_t tokens;
  std::uint32_t wavefront;
};

void PrintTo(const RunCase& c, std::ostream* os) {
  *os << "widths " << c.widths << ", block " << c.block << ", " << c.placement << ", T " << c.tokens << ", B "
      << c.wavefront;
}

std::vector<std::string> overrides_for(const RunCase& c) {
  return {"--model.widths=" + c.widths, "--mapping.block=" + c.block, "--mapping.placement=" + c.placement,
          "--step.tokens=" + std::to_string(c.tokens), "--step.wavefront=" + std::to_string(c.wavefront),
          // mse: the loss sends no scalars of its own, so every scalar is a restart signal.
          "--model.loss=mse",
          // b_p != b_a: a partial sum or a signal sized as an activation shows.
          "--machine.psum_bytes=3", "--sim.arith=none"};
}

// --- Uniform checkpointing: the backward pass and the flops --------------------------------------------

struct CheckpointCase {
  RunCase run;
  std::uint32_t segment;  // 0 = round(sqrt(L))
};

void PrintTo(const CheckpointCase& c, std::ostream* os) {
  PrintTo(c.run, os);
  *os << ", segment " << c.segment;
}

class CheckpointCounts : public ::testing::TestWithParam<CheckpointCase> {};

TEST_P(CheckpointCounts, BackwardPerKindIsBackpropsAndFlopsPerPhaseFromTheWidths) {
  const CheckpointCase& c = GetParam();
  std::vector<std::string> overrides = overrides_for(c.run);
  overrides.push_back("--checkpoint.segment=" + std::to_string(c.segment));
  const RunResult r = run_with(overrides, "checkpoint");
  const RunSetup setup = setup_from_config(config_with(overrides));
  const std::vector<std::uint32_t>& widths = setup.model.widths;
  const auto L = static_cast<std::uint32_t>(widths.size() - 1);
  const std::uint64_t T = c.run.tokens, G = (c.run.tokens + c.run.wavefront - 1) / c.run.wavefront;

  // Every layer's backward pass finds a `replicate` stash, rebuilt by its segment's episode.
  expect_backprops_backward(r, setup, T, G);

  // Flops: the first pass evaluates every layer once; the recomputation rebuilds every segment once, the
  // last one included, so every layer is evaluated exactly once more whatever s (and whether s divides L).
  std::uint64_t one_pass = 0;
  for (std::uint32_t l = 0; l < L; ++l) one_pass += product_flops(widths, T, l);
  EXPECT_EQ(r.counters.flops[sim::index(Phase::forward)], one_pass);
  EXPECT_EQ(r.counters.flops[sim::index(Phase::recompute)], one_pass);
}

INSTANTIATE_TEST_SUITE_P(
    OddSizes, CheckpointCounts,
    ::testing::Values(
        // 2 x 3 blocks: 13 features leave 3 columns (5, 4, 4) and enter 2 lanes (7, 6); segments {0, 1},
        // {2, 3}, {4}; 23 tokens in 5 wavefronts, the last of 3.
        CheckpointCase{{"11,13,13,10,7,9", "2x3", "zigzag", 23, 5}, 2},
        // rowmajor: boundaries several hops long; one column per block (no backward dX shares move).
        CheckpointCase{{"9,7,12,5,8", "3x1", "rowmajor", 20, 6}, 3},
        // 3 x 2 blocks, s = 4 on 6 layers: segments {0..3}, {4, 5}.
        CheckpointCase{{"10,9,13,9,11,9,4", "3x2", "zigzag", 17, 4}, 4},
        // s = round(sqrt(5)) = 2 by default; one row per block (no dZ moves down a column).
        CheckpointCase{{"7,11,6,9,5,8", "1x3", "zigzag", 19, 4}, 0}),
    [](const ::testing::TestParamInfo<CheckpointCase>& param_info) {
      return testing_support::gtest_name(param_info.param.run.placement + "_" + param_info.param.run.block +
                                         "_s" + std::to_string(param_info.param.segment));
    });

// --- Revolve: the episodes by hand and what they cost ---------------------------------------------------

// One recomputation episode before the backward pass of `target` (docs/model.md section 7): restart from
// the checkpoint on `from`'s lane entries and rerun layers from..target, each keeping what `stash` says,
// one letter per layer: 'n' nothing, 'c' a checkpoint (X on the lane entries), 'r' replicate (X on every
// tile, Z where an activation follows).
struct HandEpisode {
  std::uint32_t target;
  std::uint32_t from;
  std::string stash;
};

struct RevolveCase {
  RunCase run;
  std::uint32_t slots;
  std::string first_pass;             // one letter per layer, as above
  std::vector<HandEpisode> episodes;  // in the order the backward pass needs them: target L - 2 down to 0
};

void PrintTo(const RevolveCase& c, std::ostream* os) {
  PrintTo(c.run, os);
  *os << ", " << c.slots << " slots, first pass " << c.first_pass << ", " << c.episodes.size() << " episodes";
}

mappings::XStash stash_of(char letter) {
  switch (letter) {
    case 'n':
      return mappings::XStash::none;
    case 'c':
      return mappings::XStash::checkpoint;
    case 'r':
      return mappings::XStash::replicate;
  }
  throw std::invalid_argument(std::string("stash letter ") + letter);
}

// The fewest layer evaluations after the first pass, by the optimal-split recursion (Griewank 1992): to
// reverse n steps from a checkpoint at their start with s checkpoints in all, advance k steps, checkpoint
// there, reverse the n - k on the right with s - 1, then the k on the left with s. F(1, s) = 0 (the step is
// reversed from its own checkpoint), F(n, 1) = 0 + 1 + ... + (n - 1).
std::uint64_t fewest_by_recursion(std::uint32_t n, std::uint32_t s) {
  std::vector<std::vector<std::uint64_t>> F(n + 1, std::vector<std::uint64_t>(s + 1, 0));
  for (std::uint32_t m = 2; m <= n; ++m) {
    F[m][1] = std::uint64_t{m} * (m - 1) / 2;
    for (std::uint32_t q = 2; q <= s; ++q) {
      F[m][q] = std::numeric_limits<std::uint64_t>::max();
      for (std::uint32_t k = 1; k < m; ++k) F[m][q] = std::min(F[m][q], k + F[m - k][q - 1] + F[k][q]);
    }
  }
  return F[n][s];
}

class RevolveEpisodes : public ::testing::TestWithParam<RevolveCase> {};

TEST_P(RevolveEpisodes, TheHandPlanAndItsCountsPerPhaseAndKind) {
  const RevolveCase& c = GetParam();
  std::vector<std::string> overrides = overrides_for(c.run);
  overrides.push_back("--revolve.slots=" + std::to_string(c.slots));
  const RunSetup setup = setup_from_config(config_with(overrides));
  const std::vector<std::uint32_t>& widths = setup.model.widths;
  const auto L = static_cast<std::uint32_t>(widths.size() - 1);
  ASSERT_EQ(c.first_pass.size(), L);
  ASSERT_EQ(c.episodes.size(), L - 1) << "one episode per layer but the last, which the first pass reverses";

  // The hand plan is a revolve schedule: each episode restarts from a checkpoint held at the time, a
  // checkpoint is dropped by the reversal of its own layer (its last use), at most `slots` are held at
  // once, and its recomputations are the fewest possible. Per wavefront the episodes run one after the
  // other (each target's backward pass waits for its own), so the most held at once is counted in order.
  std::vector<bool> held(L, false);
  std::uint32_t holding = 0, most = 0, recomputations = 0;
  auto take = [&](std::uint32_t l) {
    EXPECT_FALSE(held[l]) << "checkpoint " << l << " taken twice";
    held[l] = true;
    most = std::max(most, ++holding);
  };
  for (std::uint32_t l = 0; l < L; ++l)
    if (c.first_pass[l] == 'c') take(l);
  for (std::uint32_t k = 0; k < c.episodes.size(); ++k) {
    const HandEpisode& e = c.episodes[k];
    ASSERT_EQ(e.target, L - 2 - k);
    ASSERT_EQ(e.stash.size(), e.target - e.from + 1);
    ASSERT_EQ(e.stash.back(), 'r');
    ASSERT_TRUE(held[e.from]) << "episode for layer " << e.target << " restarts from no checkpoint";
    if (e.from == e.target) {
      held[e.from] = false;
      --holding;
    }
    for (std::uint32_t l = e.from; l < e.target; ++l)
      if (e.stash[l - e.from] == 'c') take(l);
    recomputations += e.target - e.from + 1;
  }
  EXPECT_EQ(holding, 0u);
  EXPECT_LE(most, c.slots);
  EXPECT_EQ(recomputations, fewest_by_recursion(L, c.slots));

  // The plan the schedule runs is this one (checked, not used below).
  const RevolvePlan plan = plan_revolve(L, c.slots);
  for (std::uint32_t l = 0; l < L; ++l)
    EXPECT_EQ(plan.first_pass[l], stash_of(c.first_pass[l])) << "first pass, layer " << l;
  EXPECT_FALSE(plan.episodes[L - 1].has_value());
  for (const HandEpisode& e : c.episodes) {
    ASSERT_TRUE(plan.episodes[e.target].has_value()) << "layer " << e.target;
    const RecomputeEpisode& p = *plan.episodes[e.target];
    EXPECT_EQ(p.from_layer, e.from) << "layer " << e.target;
    EXPECT_EQ(p.release_checkpoint, e.from == e.target) << "layer " << e.target;
    ASSERT_EQ(p.stash.size(), e.stash.size()) << "layer " << e.target;
    for (std::uint32_t k = 0; k < e.stash.size(); ++k)
      EXPECT_EQ(p.stash[k], stash_of(e.stash[k]))
          << "episode of layer " << e.target << ", layer " << e.from + k;
  }
  EXPECT_EQ(plan.recomputations, recomputations);

  const RunResult r = run_with(overrides, "revolve");
  const std::uint64_t T = c.run.tokens, G = (c.run.tokens + c.run.wavefront - 1) / c.run.wavefront;
  const std::uint64_t b_a = setup.bytes.activation, b_p = setup.bytes.partial_sum, b_w = setup.bytes.weight;
  const auto& blocks = setup.placement.blocks;
  const testing_support::ForwardTraffic f = testing_support::forward_traffic(setup);

  // SRAM (docs/model.md section 2): every pass of a layer reads its weights and bias once per wavefront; a
  // checkpoint writes X on the lane entries, b_a T d_in; replicate writes X on every tile, b_a T d_in c, and
  // Z on the output tiles where an activation follows (every layer but the last); a restart reads the
  // checkpoint back, b_a T d_in.
  auto parameters_read = [&](std::uint32_t l) {
    return G * (std::uint64_t{widths[l]} * widths[l + 1] + widths[l + 1]) * b_w;
  };
  auto stash_written = [&](std::uint32_t l, char letter) -> std::uint64_t {
    const std::uint64_t x = b_a * T * widths[l];
    if (letter == 'c') return x;
    if (letter == 'r') return x * blocks[l].cols + (l + 1 < L ? b_a * T * widths[l + 1] : 0);
    return 0;
  };

  // The first pass: a forward pass (its traffic is any forward pass's), stashing as first_pass says.
  Traffic lanes, psums, boundaries;
  std::uint64_t forward_sram = 0, forward_flops = 0;
  for (std::uint32_t l = 0; l < L; ++l) {
    lanes += f.lanes[l];
    psums += f.psums[l];
    boundaries += f.boundary[l];
    forward_sram += parameters_read(l) + stash_written(l, c.first_pass[l]);
    forward_flops += product_flops(widths, T, l);
  }
  expect_traffic(r, Phase::forward, MessageKind::lane, lanes, T, G, "forward lanes");
  expect_traffic(r, Phase::forward, MessageKind::psum, psums, T, G, "forward partial sums");
  expect_traffic(r, Phase::forward, MessageKind::redistribution, boundaries, T, G,
                 "forward layer boundaries");
  expect_traffic(r, Phase::forward, MessageKind::host, f.host, T, G, "forward host");
  for (MessageKind kind : {MessageKind::rebroadcast, MessageKind::scalar, MessageKind::tangent})
    EXPECT_EQ(r.counters.byte_hops.at(Phase::forward, kind), 0u) << static_cast<int>(kind);
  EXPECT_EQ(r.counters.sram_bytes[sim::index(Phase::forward)], forward_sram);
  EXPECT_EQ(r.counters.flops[sim::index(Phase::forward)], forward_flops);

  // The episodes: per wavefront, each one's restart signals (one b_p-byte scalar from the target's restart
  // column, the output column with the fewest hops in all to `from`'s lane entries, the lowest on a tie, to
  // each of them), then layers from..target forward again: their lanes and partial sums, the boundaries
  // between them (`from` is fed by its checkpoint, not by the layer before; the target feeds nobody).
  Traffic rc_lanes, rc_psums, rc_boundaries, signals;
  std::uint64_t recompute_sram = 0, recompute_flops = 0;
  for (const HandEpisode& e : c.episodes) {
    std::uint64_t nearest = std::numeric_limits<std::uint64_t>::max();
    for (std::uint32_t j = 0; j < blocks[e.target].cols; ++j) {
      std::uint64_t hops = 0;
      for (std::uint32_t i = 0; i < blocks[e.from].rows; ++i)
        hops += manhattan(blocks[e.target].output_tile(j), blocks[e.from].lane_entry(i));
      nearest = std::min(nearest, hops);
    }
    signals.byte_hops += b_p * nearest;  // per wavefront: a signal is b_p bytes whatever the tokens
    signals.messages += blocks[e.from].rows;
    recompute_sram += b_a * T * widths[e.from];  // the checkpoint read back
    for (std::uint32_t l = e.from; l <= e.target; ++l) {
      rc_lanes += f.lanes[l];
      rc_psums += f.psums[l];
      if (l < e.target) rc_boundaries += f.boundary[l];
      recompute_sram += parameters_read(l) + stash_written(l, e.stash[l - e.from]);
      recompute_flops += product_flops(widths, T, l);
    }
  }
  expect_traffic(r, Phase::recompute, MessageKind::lane, rc_lanes, T, G, "recomputed lanes");
  expect_traffic(r, Phase::recompute, MessageKind::psum, rc_psums, T, G, "recomputed partial sums");
  expect_traffic(r, Phase::recompute, MessageKind::redistribution, rc_boundaries, T, G,
                 "recomputed boundaries");
  EXPECT_EQ(r.counters.byte_hops.at(Phase::recompute, MessageKind::scalar), G * signals.byte_hops);
  EXPECT_EQ(r.counters.messages.at(Phase::recompute, MessageKind::scalar), G * signals.messages);
  for (MessageKind kind : {MessageKind::rebroadcast, MessageKind::host, MessageKind::tangent})
    EXPECT_EQ(r.counters.byte_hops.at(Phase::recompute, kind), 0u) << static_cast<int>(kind);
  EXPECT_EQ(r.counters.sram_bytes[sim::index(Phase::recompute)], recompute_sram);
  EXPECT_EQ(r.counters.flops[sim::index(Phase::recompute)], recompute_flops);

  // The backward pass finds every layer's `replicate` stash.
  expect_backprops_backward(r, setup, T, G);

  EXPECT_EQ(r.max_checkpoints, most);
}

// Each plan below follows the recursion: the first pass advances to the split k of [0, L) (taking a
// checkpoint there), on to the split of [k, L) with one slot fewer, and so on until one slot is left, then
// reverses the last layer; one slot over [a, b) reruns every layer from a, target b - 2 down to a; a
// checkpoint at k serves [k, b) and is dropped when layer k is reversed; then [a, k) is reversed with the
// slots it had. Where several splits cost the same (the docs do not say which one the plan takes), the plan
// takes the smallest, and so does the hand plan; the comments say where that happens.
INSTANTIATE_TEST_SUITE_P(
    SmallChains, RevolveEpisodes,
    ::testing::Values(
        // L = 5, 2 slots, p = 6. Splitting [0, 5) at 2 or 3 costs the same (2 + 3 + 1 = 3 + 1 + 2); the
        // smallest: checkpoint 2, [2, 5) with one slot (4 in the first pass, then 3 and 2 from 2), then
        // [0, 2) with two: its split 1 is layer 1's own reversal, so no checkpoint is kept there.
        RevolveCase{{"9,14,11,8,7,5", "2x3", "zigzag", 23, 5},
                    2,
                    "cncnr",
                    {{3, 2, "nr"}, {2, 2, "r"}, {1, 0, "nr"}, {0, 0, "r"}}},
        // L = 6, 2 slots, p = 8, every split unique: 3, then [0, 3) at 1, whose checkpoint is taken by the
        // episode of layer 2 (a checkpoint written in phase recompute).
        RevolveCase{{"13,10,7,12,9,11,6", "2x3", "zigzag", 29, 8},
                    2,
                    "cnncnr",
                    {{4, 3, "nr"}, {3, 3, "r"}, {2, 0, "ncr"}, {1, 1, "r"}, {0, 0, "r"}}},
        // L = 10, 3 slots, p = 15, every split unique: [0, 10) at 4, [4, 10) at 7 (two slots), [7, 10) with
        // one; [4, 7) at 5; [0, 4) at 1 (three slots), [1, 4) at 2 (two slots).
        RevolveCase{{"10,9,13,8,11,7,9,12,6,8,5", "3x2", "rowmajor", 17, 4},
                    3,
                    "cnnncnncnr",
                    {{8, 7, "nr"},
                     {7, 7, "r"},
                     {6, 4, "ncr"},
                     {5, 5, "r"},
                     {4, 4, "r"},
                     {3, 0, "nccr"},
                     {2, 2, "r"},
                     {1, 1, "r"},
                     {0, 0, "r"}}},
        // L = 6, 1 slot (the input), p = 15: every layer rebuilt from the input.
        RevolveCase{{"7,11,6,9,5,8,4", "1x3", "zigzag", 19, 4},
                    1,
                    "cnnnnr",
                    {{4, 0, "nnnnr"}, {3, 0, "nnnr"}, {2, 0, "nnr"}, {1, 0, "nr"}, {0, 0, "r"}}}),
    [](const ::testing::TestParamInfo<RevolveCase>& param_info) {
      const RevolveCase& c = param_info.param;
      // Appended piece by piece: GCC 12 warns falsely (-Wrestrict, bug 105651) on "L" + std::to_string(...).
      std::string name = "L";
      name.append(std::to_string(c.first_pass.size())).append("_m").append(std::to_string(c.slots));
      name.append("_").append(c.run.placement).append("_").append(c.run.block);
      return testing_support::gtest_name(name);
    });

// --- Revolve's minimal forward steps: literals, two brute forces, the grid ------------------------------

// The fewest advances to reverse a chain of n steps holding at most s states at once, the initial one
// included, by exhaustive search over every strategy (no assumption on its shape). A state is (the
// positions held, e = the steps not yet reversed, the current position or none); the moves: restore a held
// position (free), drop one (free), store the current one if a slot is free (free), advance one step (1),
// and reverse step e - 1 when standing at position e - 1 (free: that step's own forward is the reversal's,
// counted apart, as the first pass's last layer is). Positions >= e are never needed again and are dropped.
// 0-1 breadth-first search from (held {0}, e = n, at 0) to e = 0.
std::uint64_t fewest_by_search(std::uint32_t n, std::uint32_t s) {
  const std::uint32_t nowhere = n, side = n + 1;
  auto key = [&](std::uint32_t held, std::uint32_t e, std::uint32_t at) {
    return (std::size_t{held} * side + e) * side + at;
  };
  std::vector<std::uint64_t> cost((std::size_t{1} << n) * side * side,
                                  std::numeric_limits<std::uint64_t>::max());
  using State = std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>;
  std::deque<std::pair<State, std::uint64_t>> queue;
  // A free move goes to the front of the queue, an advance to the back.
  auto reach = [&](State next, std::uint64_t c, bool advance) {
    const auto [held, e, at] = next;
    std::uint64_t& known = cost[key(held, e, at)];
    if (c >= known) return;
    known = c;
    if (advance)
      queue.emplace_back(next, c);
    else
      queue.emplace_front(next, c);
  };
  reach({1u, n, 0u}, 0, false);
  while (!queue.empty()) {
    const auto [state, c] = queue.front();
    queue.pop_front();
    const auto [held, e, at] = state;
    if (c > cost[key(held, e, at)]) continue;  // reached more cheaply since
    if (e == 0) return c;
    for (std::uint32_t p = 0; p < e; ++p) {
      if (!(held >> p & 1u)) continue;
      reach({held, e, p}, c, false);                // restore
      reach({held & ~(1u << p), e, at}, c, false);  // drop
    }
    if (at == nowhere) continue;
    if (!(held >> at & 1u) && static_cast<std::uint32_t>(std::popcount(held)) < s)
      reach({held | 1u << at, e, at}, c, false);                                       // store
    if (at + 1 < e) reach({held, e, at + 1}, c + 1, true);                             // advance
    if (at + 1 == e) reach({held & ((1u << (e - 1)) - 1), e - 1, nowhere}, c, false);  // reverse step e - 1
  }
  return std::numeric_limits<std::uint64_t>::max();
}

TEST(RevolveBruteForce, TheRecursionEqualsTheExhaustiveSearchOnSmallChains) {
  // The recursion assumes the shape of an optimal strategy; the search does not.
  for (std::uint32_t n = 1; n <= 9; ++n)
    for (std::uint32_t s = 1; s <= std::min(n, 4u); ++s)
      EXPECT_EQ(fewest_by_search(n, s), fewest_by_recursion(n, s)) << n << " steps, " << s << " slots";
}

struct MinimalStepsCase {
  std::uint32_t layers;
  std::uint32_t slots;
  std::uint64_t steps;  // p(layers, slots), known
};

void PrintTo(const MinimalStepsCase& c, std::ostream* os) {
  *os << "p(" << c.layers << ", " << c.slots << ") = " << c.steps;
}

class RevolveMinimalSteps : public ::testing::TestWithParam<MinimalStepsCase> {};

TEST_P(RevolveMinimalSteps, LiteralsAgainstBruteForceThePlanAndTheGrid) {
  const MinimalStepsCase& c = GetParam();
  EXPECT_EQ(fewest_by_recursion(c.layers, c.slots), c.steps);
  EXPECT_EQ(fewest_by_search(c.layers, c.slots), c.steps);
  EXPECT_EQ(revolve_minimal_forward_steps(c.layers, c.slots), c.steps);
  EXPECT_EQ(plan_revolve(c.layers, c.slots).recomputations, c.steps);

  // On the grid, equal widths make every layer's product 2 T d^2 flops, so each phase's flops count layer
  // evaluations: L in the first pass, p in the recomputation, 2 L - 1 products in the backward pass.
  // 3 x 2 blocks, 7 tokens in wavefronts of 3 (the last of 1).
  const std::uint64_t d = 7, T = 7;
  const RunResult r =
      run_with({"--model.inputs=7", "--model.width=7", "--model.outputs=7",
                "--model.depth=" + std::to_string(c.layers), "--mapping.block=3x2", "--step.tokens=7",
                "--step.wavefront=3", "--sim.arith=none", "--revolve.slots=" + std::to_string(c.slots)},
               "revolve");
  const std::uint64_t per_layer = 2 * T * d * d;
  EXPECT_EQ(r.counters.flops[sim::index(Phase::forward)], per_layer * c.layers);
  EXPECT_EQ(r.counters.flops[sim::index(Phase::recompute)], per_layer * c.steps);
  EXPECT_EQ(r.counters.flops[sim::index(Phase::backward)], per_layer * (2 * c.layers - 1));
  EXPECT_LE(r.max_checkpoints, c.slots);
}

// Griewank's binomial result, p(l, s) = r l - C(s + r, s + 1) with C(s + r - 1, s) < l <= C(s + r, s):
// p(7, 1): r = 6, 42 - C(7, 2) = 0 + 1 + ... + 6 = 21; p(7, 2): r = 3, 21 - C(5, 3) = 11; p(9, 3): r = 2,
// 18 - C(5, 4) = 13; p(12, 4): r = 2, 24 - C(6, 5) = 18.
INSTANTIATE_TEST_SUITE_P(KnownValues, RevolveMinimalSteps,
                         ::testing::Values(MinimalStepsCase{7, 1, 21}, MinimalStepsCase{7, 2, 11},
                                           MinimalStepsCase{9, 3, 13}, MinimalStepsCase{12, 4, 18}),
                         [](const ::testing::TestParamInfo<MinimalStepsCase>& param_info) {
                           return "p_" + std::to_string(param_info.param.layers) + "_" +
                                  std::to_string(param_info.param.slots);
                         });

}  // namespace
}  // namespace spatialsim::workloads
