// Uniform checkpointing's default segment, checkpoint.segment = 0, which docs/model.md section 7 and the
// option's help define as s = round(sqrt(L)). tests/workloads/test_recompute_counts.cpp (CheckpointCounts)
// checks the counts that do not depend on s; test_checkpoint_stash.cpp gives s explicitly. Here the default
// runs on depths where rounding differs from truncating (L = 3, 7, 13) or from rounding up (L = 5), and
// every count that depends on s is checked against s written as a literal:
//  - the literal itself against the rule, in integers: round(sqrt(L)) = s exactly when s^2 - s < L <= s^2 + s
//    (sqrt(L) lies in (s - 1/2, s + 1/2); L is an integer, so no tie);
//  - the counts of the segments [0, s), [s, 2s), ..., by hand (docs/model.md sections 2, 3 and 7, "An
//    episode"): the first pass's checkpoint writes (SRAM, phase forward); per segment, the restart signals
//    (kind scalar, phase recompute), the checkpoint read, the boundaries inside the segment (kind
//    redistribution, phase recompute: the boundary into a segment's first layer is its checkpoint, not
//    recomputed), the rebuilt layers' lanes, partial sums, SRAM and flops; the most checkpoints a wavefront
//    holds, ceil(L / s);
//  - the stash, depth and makespan (inflight_byte_cycles, peak_stash_bytes, peak_tile_stash_bytes, depth,
//    makespan_cycles) against tests/workloads/layer_timeline.h's timing model run on the same segments;
//  - segment = 0 gives exactly the counters and per-tile maps of segment = s; and the run with the segment a
//    wrong rule would give (truncating, or rounding up for L = 5) matches the hand counts for that segment,
//    which differ from s's, so the test itself shows that the counts tell the two apart.
// Expected values come from formulas written here and in tests/workloads/layout_formulas.h, from the
// placement's coordinates and the machine's sizes (inputs), never from mappings::split, plan_redistribution,
// grid.hops or the schedule's own segments. Sizes are odd: widths that do not divide among the tiles, r != c,
// token counts that leave a smaller last wavefront, segments that do not divide L, b_p != b_a.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <ostream>
#include <string>
#include <vector>

#include "mappings/x_stash.h"
#include "tests/test_names.h"
#include "tests/workloads/layer_timeline.h"
#include "tests/workloads/layout_formulas.h"
#include "tests/workloads/network_test_support.h"

namespace spatialsim::workloads {
namespace {

using sim::MessageKind;
using sim::Phase;
using testing_support::config_with;
using testing_support::manhattan;
using testing_support::run_with;
using testing_support::Traffic;

struct DefaultSegmentCase {
  std::string widths;
  std::string block;
  std::string placement;
  std::uint32_t tokens;
  std::uint32_t wavefront;
  std::uint32_t segment;  // round(sqrt(L)), written by hand
  std::uint32_t wrong;    // what a plausible wrong rule gives: truncation, or rounding up where they agree
};

std::vector<std::string> overrides_for(const DefaultSegmentCase& c, std::uint32_t segment) {
  return {"--model.widths=" + c.widths, "--mapping.block=" + c.block, "--mapping.placement=" + c.placement,
          "--step.tokens=" + std::to_string(c.tokens), "--step.wavefront=" + std::to_string(c.wavefront),
          // relu: every layer but the last stashes Z where it is rebuilt; mse: no loss scalars, so every
          // scalar is a restart signal.
          "--model.activation=relu", "--model.loss=mse",
          // b_p != b_a: a restart signal sized as an activation would show.
          "--machine.psum_bytes=3", "--checkpoint.segment=" + std::to_string(segment), "--sim.arith=none"};
}

// The segments of s layers, the last one shorter when s does not divide L (docs/model.md section 7): the
// first pass checkpoints their first layers; before the backward pass enters a segment's last layer, the
// segment runs again from its checkpoint, every layer `replicate`, and the checkpoint is released.
testing_support::StashPlan segments_of(std::uint32_t L, std::uint32_t s) {
  testing_support::StashPlan p;
  p.before_backward.resize(L);
  for (std::uint32_t l = 0; l < L; ++l)
    p.first_pass.push_back(l % s == 0 ? mappings::XStash::checkpoint : mappings::XStash::none);
  for (std::uint32_t start = 0; start < L; start += s) {
    const std::uint32_t last = std::min(start + s, L) - 1;
    p.before_backward[last] = testing_support::Episode{
        start, true, std::vector<mappings::XStash>(last - start + 1, mappings::XStash::replicate)};
  }
  return p;
}

// The counts of uniform checkpointing with segments of s layers that depend on s, per step; the traffic
// per token (byte-hops) and per wavefront (messages).
struct SegmentCounts {
  std::uint64_t forward_sram = 0;
  Traffic recompute_lanes, recompute_psums, recompute_boundaries, signals;
  std::uint64_t recompute_sram = 0, recompute_flops = 0;
  std::uint32_t most_checkpoints = 0;
};

SegmentCounts segment_counts(const RunSetup& setup, std::uint32_t s, std::uint64_t T, std::uint64_t G) {
  const std::vector<std::uint32_t>& widths = setup.model.widths;
  const auto L = static_cast<std::uint32_t>(widths.size() - 1);
  const std::uint64_t b_a = setup.bytes.activation, b_p = setup.bytes.partial_sum, b_w = setup.bytes.weight;
  const auto& blocks = setup.placement.blocks;
  const testing_support::ForwardTraffic f = testing_support::forward_traffic(setup);
  // SRAM (docs/model.md section 2): every pass of a layer reads its weights and bias once per wavefront.
  auto parameters_read = [&](std::uint32_t l) {
    return G * (std::uint64_t{widths[l]} * widths[l + 1] + widths[l + 1]) * b_w;
  };
  SegmentCounts n;
  // The first pass: a checkpoint (X on the lane entries, b_a T d_in) on the first layer of each segment,
  // nothing else, not even Z.
  for (std::uint32_t l = 0; l < L; ++l)
    n.forward_sram += parameters_read(l) + (l % s == 0 ? b_a * T * widths[l] : 0);
  for (std::uint32_t from = 0; from < L; from += s) {
    const std::uint32_t target = std::min(from + s, L) - 1;
    ++n.most_checkpoints;  // all taken by the first pass before the first restart
    // The restart signals: one b_p-byte scalar per wavefront from the target's output column with the fewest
    // hops in all to `from`'s lane entries (the lowest on a tie), to each of them.
    std::uint64_t nearest = std::numeric_limits<std::uint64_t>::max();
    for (std::uint32_t j = 0; j < blocks[target].cols; ++j) {
      std::uint64_t hops = 0;
      for (std::uint32_t i = 0; i < blocks[from].rows; ++i)
        hops += manhattan(blocks[target].output_tile(j), blocks[from].lane_entry(i));
      nearest = std::min(nearest, hops);
    }
    n.signals.byte_hops += b_p * nearest;
    n.signals.messages += blocks[from].rows;
    n.recompute_sram += b_a * T * widths[from];  // the checkpoint read back
    // from..target forward again, each `replicate`: X on every tile of its row, Z on the output tiles where
    // an activation follows; the boundaries between them (the target feeds nobody).
    for (std::uint32_t l = from; l <= target; ++l) {
      n.recompute_lanes += f.lanes[l];
      n.recompute_psums += f.psums[l];
      if (l < target) n.recompute_boundaries += f.boundary[l];
      n.recompute_sram += parameters_read(l) + b_a * T * widths[l] * blocks[l].cols +
                          (l + 1 < L ? b_a * T * widths[l + 1] : 0);
      n.recompute_flops += 2 * T * widths[l] * widths[l + 1];
    }
  }
  return n;
}

void expect_segment_counts(const RunResult& r, const SegmentCounts& n, std::uint64_t T, std::uint64_t G) {
  EXPECT_EQ(r.counters.sram_bytes[sim::index(Phase::forward)], n.forward_sram) << "checkpoint writes";
  EXPECT_EQ(r.counters.byte_hops.at(Phase::recompute, MessageKind::scalar), G * n.signals.byte_hops)
      << "restart signals";
  EXPECT_EQ(r.counters.messages.at(Phase::recompute, MessageKind::scalar), G * n.signals.messages)
      << "restart signals";
  EXPECT_EQ(r.counters.byte_hops.at(Phase::recompute, MessageKind::redistribution),
            T * n.recompute_boundaries.byte_hops)
      << "boundaries inside the segments";
  EXPECT_EQ(r.counters.messages.at(Phase::recompute, MessageKind::redistribution),
            G * n.recompute_boundaries.messages)
      << "boundaries inside the segments";
  EXPECT_EQ(r.counters.byte_hops.at(Phase::recompute, MessageKind::lane), T * n.recompute_lanes.byte_hops);
  EXPECT_EQ(r.counters.messages.at(Phase::recompute, MessageKind::lane), G * n.recompute_lanes.messages);
  EXPECT_EQ(r.counters.byte_hops.at(Phase::recompute, MessageKind::psum), T * n.recompute_psums.byte_hops);
  EXPECT_EQ(r.counters.messages.at(Phase::recompute, MessageKind::psum), G * n.recompute_psums.messages);
  for (MessageKind kind : {MessageKind::rebroadcast, MessageKind::host, MessageKind::tangent})
    EXPECT_EQ(r.counters.byte_hops.at(Phase::recompute, kind), 0u) << static_cast<int>(kind);
  EXPECT_EQ(r.counters.sram_bytes[sim::index(Phase::recompute)], n.recompute_sram);
  EXPECT_EQ(r.counters.flops[sim::index(Phase::recompute)], n.recompute_flops);
  EXPECT_EQ(r.max_checkpoints, n.most_checkpoints);
}

// gtest prints a failing case by its name, not its bytes.
void PrintTo(const DefaultSegmentCase& c, std::ostream* os) {
  *os << "widths " << c.widths << ", " << c.block << " " << c.placement << ", " << c.tokens
      << " tokens in wavefronts of " << c.wavefront << ", s " << c.segment << " (wrong: " << c.wrong << ")";
}

class CheckpointDefaultSegment : public ::testing::TestWithParam<DefaultSegmentCase> {};

TEST_P(CheckpointDefaultSegment, IsRoundSqrtLWithEveryCountThatDependsOnIt) {
  const DefaultSegmentCase& c = GetParam();
  const RunSetup setup = setup_from_config(config_with(overrides_for(c, 0)));
  const auto L = static_cast<std::uint32_t>(setup.model.widths.size() - 1);
  const std::uint64_t T = c.tokens, G = (c.tokens + c.wavefront - 1) / c.wavefront;
  const std::uint32_t s = c.segment;

  // The literal is round(sqrt(L)); the wrong one is not.
  ASSERT_TRUE(s * s - s < L && L <= s * s + s) << "round(sqrt(" << L << ")) is not " << s;
  ASSERT_FALSE(c.wrong * c.wrong - c.wrong < L && L <= c.wrong * c.wrong + c.wrong);

  // The hand counts of the two segments differ, in the restart signals (one per segment and lane entry of
  // its first layer) and the checkpoints a wavefront holds (one per segment). (Other counts may agree by
  // chance: on L = 7 below, the boundaries recomputed inside segments of 3 and of 2 carry 178 byte-hops per
  // token both.)
  const SegmentCounts expected = segment_counts(setup, s, T, G);
  const SegmentCounts wrong = segment_counts(setup, c.wrong, T, G);
  ASSERT_NE(expected.signals.messages, wrong.signals.messages);
  ASSERT_NE(expected.most_checkpoints, wrong.most_checkpoints);

  const RunResult by_default = run_with(overrides_for(c, 0), "checkpoint");
  {
    SCOPED_TRACE("checkpoint.segment = 0 against segments of " + std::to_string(s));
    expect_segment_counts(by_default, expected, T, G);
    // The stash and its timing (latency-only links at one cycle per hop, instantaneous compute: the
    // defaults).
    const testing_support::WavefrontTimeline one =
        testing_support::wavefront_timeline(setup, segments_of(L, s), testing_support::mesh_links(setup));
    testing_support::expect_step_counts(
        by_default.counters, testing_support::step_totals(one, T, c.wavefront, setup.injection_interval));
  }

  // The default is the literal segment, counter for counter and tile for tile.
  const RunResult literal = run_with(overrides_for(c, s), "checkpoint");
  EXPECT_TRUE(by_default.counters == literal.counters);
  EXPECT_TRUE(by_default.tiles == literal.tiles);
  EXPECT_EQ(by_default.max_checkpoints, literal.max_checkpoints);

  // The wrong segment runs as its own hand counts say, so the counts above tell it apart.
  const RunResult wrong_run = run_with(overrides_for(c, c.wrong), "checkpoint");
  SCOPED_TRACE("checkpoint.segment = " + std::to_string(c.wrong));
  expect_segment_counts(wrong_run, wrong, T, G);
  EXPECT_FALSE(by_default.counters == wrong_run.counters);
}

INSTANTIATE_TEST_SUITE_P(
    OddDepths, CheckpointDefaultSegment,
    ::testing::Values(
        // L = 3: sqrt 1.73, s = 2 (truncated: 1). Segments {0, 1}, {2}; 2 x 3 blocks (13 features leave 3
        // columns, enter 2 lanes), 17 tokens in 5 wavefronts, the last of 1.
        DefaultSegmentCase{"9,13,11,7", "2x3", "zigzag", 17, 4, 2, 1},
        // L = 5: sqrt 2.24, s = 2, which truncation also gives; rounding up gives 3. Segments {0, 1}, {2, 3},
        // {4}; rowmajor: boundaries and signals several hops long.
        DefaultSegmentCase{"10,9,13,8,11,7", "3x2", "rowmajor", 19, 5, 2, 3},
        // L = 7: sqrt 2.65, s = 3 (truncated: 2). Segments {0, 1, 2}, {3, 4, 5}, {6}; 23 tokens in 5
        // wavefronts, the last of 3.
        DefaultSegmentCase{"11,13,10,9,12,7,8,5", "2x3", "zigzag", 23, 5, 3, 2},
        // L = 13: sqrt 3.61, s = 4 (truncated: 3). Segments {0..3}, {4..7}, {8..11}, {12}; 3 x 2 blocks.
        DefaultSegmentCase{"7,9,6,8,5,9,7,6,8,5,7,9,6,5", "3x2", "zigzag", 13, 4, 4, 3}),
    [](const ::testing::TestParamInfo<DefaultSegmentCase>& param_info) {
      const DefaultSegmentCase& c = param_info.param;
      const auto L = std::count(c.widths.begin(), c.widths.end(), ',');
      // Appended piece by piece: GCC 12 warns (-Wrestrict, a false positive) on "L" + std::to_string(L).
      std::string name = "L";
      name += std::to_string(L);
      name += "_s" + std::to_string(c.segment) + "_" + c.placement + "_" + c.block;
      return testing_support::gtest_name(name);
    });

}  // namespace
}  // namespace spatialsim::workloads
