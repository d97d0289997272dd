// The stash of the recomputing schedules, checkpoint and revolve (MODEL.md sections 3 and 7):
// inflight_byte_cycles, peak_stash_bytes, peak_tile_stash_bytes, depth and makespan against a timeline of
// every stashed slice, computed independently from the layer timings (tests/workloads/layer_timeline.h: the
// timing model test_backprop.cpp's BackpropTimeline checks backprop with, run as a plan of passes so that a
// recomputation can run layers forward again). Latency-only links at 1 cycle per hop, instantaneous compute.
//
// What a schedule keeps and when it recomputes is written here from docs/model.md section 7 (the schedules'
// table and "An episode"), not taken from workloads/schedules/: checkpointing's segments and revolve's
// episodes below, as the plans layer_timeline.h runs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "mappings/x_stash.h"
#include "sim/text.h"
#include "tests/test_names.h"
#include "tests/workloads/layer_timeline.h"
#include "tests/workloads/network_test_support.h"

namespace spatialsim::workloads {
namespace {

using mappings::XStash;
using testing_support::config_with;
using testing_support::Episode;
using testing_support::run_with;
using testing_support::StashPlan;
using testing_support::step_totals;
using testing_support::wavefront_timeline;
using testing_support::WavefrontTimeline;

// ---- what a schedule keeps and recomputes (docs/model.md section 7) ----

// Uniform checkpointing with segments of s layers, the last one shorter when s does not divide L: the first
// pass keeps a checkpoint on layers l mod s = 0 and nothing else (not even Z); before the backward pass
// enters the last layer of a segment, the segment runs again, every layer `replicate`.
StashPlan uniform_checkpointing(std::uint32_t L, std::uint32_t s) {
  StashPlan p;
  p.before_backward.resize(L);
  for (std::uint32_t l = 0; l < L; ++l)
    p.first_pass.push_back(l % s == 0 ? XStash::checkpoint : XStash::none);
  for (std::uint32_t start = 0; start < L; start += s) {
    const std::uint32_t last = std::min(start + s, L) - 1;
    p.before_backward[last] = Episode{start, true, std::vector<XStash>(last - start + 1, XStash::replicate)};
  }
  return p;
}

// Revolve, L = 5 layers and m = 2 slots (the input one of them), by hand from Griewank and Walther's
// recursion. Reversing n layers with s slots costs
//   t(n, s) = min_k [k + t(n - k, s - 1) + t(k, s)],  t(1, s) = 0,  t(n, 1) = n (n - 1) / 2,
// so t(2, 2) = 1, t(3, 2) = 2 and t(5, 2) = 6 at k = 2 (k = 2 and 3 tie; the first wins), which is
// p(5, 2) = 2 x 5 - C(4, 3). The first pass checkpoints layers 0 and 2 and reverses layer 4 itself. Layers 3
// and 2 are rebuilt from the checkpoint on 2 with one slot left: 3 from 2 keeping it, then 2, its last use.
// The left part, layers 0..1 with two slots, splits at k = 1, whose checkpoint would serve its own target at
// once and is not taken: layer 1 from 0 keeping it, then 0. Recomputed layers: 2 + 1 + 2 + 1 = 6.
StashPlan revolve_5_layers_2_slots() {
  using enum XStash;
  StashPlan p;
  p.first_pass = {checkpoint, none, checkpoint, none, replicate};
  p.before_backward.resize(5);
  p.before_backward[3] = Episode{2, false, {none, replicate}};
  p.before_backward[2] = Episode{2, true, {replicate}};
  p.before_backward[1] = Episode{0, false, {none, replicate}};
  p.before_backward[0] = Episode{0, true, {replicate}};
  return p;
}

// ---- the tests ----

struct StashCase {
  std::string schedule;
  std::uint32_t knob;  // checkpoint.segment, or revolve.slots (backprop: unused)
  std::string widths;
  std::string block;
  std::string placement;
  std::uint32_t tokens;
  std::uint32_t wavefront;
};

std::vector<std::string> overrides_for(const StashCase& c) {
  std::vector<std::string> out = {"--model.widths=" + c.widths,
                                  "--mapping.block=" + c.block,
                                  "--mapping.placement=" + c.placement,
                                  "--model.activation=relu",
                                  "--model.loss=mse",
                                  "--data.task=teacher",
                                  "--step.tokens=" + std::to_string(c.tokens),
                                  "--step.wavefront=" + std::to_string(c.wavefront),
                                  "--sim.arith=none"};
  if (c.schedule == "checkpoint") out.push_back("--checkpoint.segment=" + std::to_string(c.knob));
  if (c.schedule == "revolve") out.push_back("--revolve.slots=" + std::to_string(c.knob));
  return out;
}

// gtest prints a failing case by its name, not its bytes.
void PrintTo(const StashCase& c, std::ostream* os) {
  *os << c.schedule << " " << c.knob << ", widths " << c.widths << ", " << c.block << " " << c.placement
      << ", " << c.tokens << " tokens in wavefronts of " << c.wavefront;
}

StashPlan plan_for(const StashCase& c, std::uint32_t layers) {
  if (c.schedule == "backprop")
    return testing_support::every_layer(layers, XStash::replicate);  // no recompute
  if (c.schedule == "checkpoint") return uniform_checkpointing(layers, c.knob);
  if (layers != 5 || c.knob != 2) throw std::logic_error("revolve: only the hand plan for 5 layers, 2 slots");
  return revolve_5_layers_2_slots();
}

// Two things the timeline shows about these schedules with latency-only links: a target's rebuilt column ends
// after its dL/dY is there (the recomputation starts from the restart column's dL/dY and goes through the
// block again), so the target's Z is stored and released in the same cycle and holds 0 byte-cycles; and no
// case here (nor any of several hundred placements tried while writing this test) has two restart columns
// tied, so the tie rule does not show in these counts.
class RecomputeTimeline : public ::testing::TestWithParam<StashCase> {};

TEST_P(RecomputeTimeline, InflightPeaksDepthAndMakespanFromLayerTimings) {
  const StashCase& c = GetParam();
  const std::vector<std::string> overrides = overrides_for(c);
  const RunResult res = run_with(overrides, c.schedule);
  const RunSetup setup = setup_from_config(config_with(overrides));
  // The timeline reads the bytes per activation and the widths from the setup: pinned to the case here.
  ASSERT_EQ(setup.bytes.activation, 2u);
  ASSERT_EQ(sim::joined(setup.model.widths, ","), c.widths);
  const WavefrontTimeline one =
      wavefront_timeline(setup, plan_for(c, setup.model.layers()), testing_support::mesh_links(setup));
  const testing_support::StepTotals step = step_totals(one, c.tokens, c.wavefront, setup.injection_interval);
  testing_support::expect_step_counts(res.counters, step);
}

INSTANTIATE_TEST_SUITE_P(
    OddSizes, RecomputeTimeline,
    ::testing::Values(
        // The simplest: one wavefront, one tile per layer, segments [0, 1] and [2].
        StashCase{"checkpoint", 2, "5,4,6,3", "1x1", "zigzag", 3, 3},
        // r != c (13 features leave 3 columns and enter 2 lanes), 61 tokens in 13 wavefronts (G >= 2L), the
        // last of 1. L = 6: segments of 2 (equal), 4 (a short last one, [4, 5]), 5 (a last one of one
        // layer), 1 (every layer its own) and 6 (the whole network).
        StashCase{"checkpoint", 2, "11,13,13,10,7,9,6", "2x3", "zigzag", 61, 5},
        StashCase{"checkpoint", 4, "11,13,13,10,7,9,6", "2x3", "zigzag", 61, 5},
        StashCase{"checkpoint", 5, "11,13,13,10,7,9,6", "2x3", "zigzag", 61, 5},
        StashCase{"checkpoint", 1, "11,13,13,10,7,9,6", "2x3", "zigzag", 61, 5},
        StashCase{"checkpoint", 6, "11,13,13,10,7,9,6", "2x3", "zigzag", 61, 5},
        // L = 5 with segments of 2: [0, 1], [2, 3], [4]; 43 tokens in 9 wavefronts, the last of 3.
        StashCase{"checkpoint", 2, "11,13,13,10,7,9", "2x3", "zigzag", 43, 5},
        // rowmajor: layer boundaries and restart signals several hops long; 3 x 2 blocks.
        StashCase{"checkpoint", 2, "9,7,12,5,8", "3x2", "rowmajor", 20, 6},
        StashCase{"checkpoint", 3, "9,7,12,5,8", "3x2", "rowmajor", 20, 6},
        // Blocks of one row or one column (test_recompute.cpp: a column's backward pass can start while the
        // recomputation's lane is still on its way to the next column).
        StashCase{"checkpoint", 1, "9,14,11,8,7,5", "1x3", "zigzag", 13, 3},
        StashCase{"checkpoint", 2, "9,14,11,8,7,5", "3x1", "zigzag", 13, 3},
        // revolve, 5 layers, 2 slots: the hand plan above.
        StashCase{"revolve", 2, "11,13,13,10,7,9", "2x3", "zigzag", 43, 5},
        StashCase{"revolve", 2, "9,7,12,5,8,6", "3x2", "rowmajor", 20, 6},
        StashCase{"revolve", 2, "9,14,11,8,7,5", "1x3", "zigzag", 13, 3},
        // Nothing recomputed: backprop, as BackpropTimeline checks it, on this file's sizes.
        StashCase{"backprop", 0, "11,13,13,10,7,9,6", "2x3", "zigzag", 61, 5}),
    [](const ::testing::TestParamInfo<StashCase>& param_info) {
      const StashCase& c = param_info.param;
      return testing_support::gtest_name(c.schedule + (c.knob > 0 ? std::to_string(c.knob) : "") + "_L" +
                                         std::to_string(std::count(c.widths.begin(), c.widths.end(), ',')) +
                                         "_" + c.block + "_" + c.placement);
    });

}  // namespace
}  // namespace spatialsim::workloads
