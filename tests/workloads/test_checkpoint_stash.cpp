// The stash of the recomputing schedules, checkpoint and revolve (MODEL.md sections 3 and 7):
// inflight_byte_cycles, peak_stash_bytes, peak_tile_stash_bytes, depth and makespan against a timeline of
// every stashed slice, computed independently from the layer timings.
//
// The timing model is BackpropTimeline's (tests/workloads/test_backprop.cpp): its pieces are copied here (the
// pass through a block, the redistribution between blocks, the backward pass through a block) and cut into
// passes, so that a recomputation can run layers forward again. Latency-only links at 1 cycle per hop and
// instantaneous compute: a value's time from its wavefront's injection is its depth stamp, and wavefronts
// never delay one another, so every wavefront's timeline is the first one's shifted by its injection time,
// with bytes that scale with its tokens.
//
// What a schedule keeps and when it recomputes is written here from docs/model.md section 7 (the schedules'
// table and "An episode"), not taken from workloads/schedules/:
// - a checkpoint is X[:, I_i] on lane entry i of its layer, from its arrival in the pass that takes it until
//   the restart signal of the episode that uses it for the last time reaches that lane entry;
// - `replicate` keeps X[:, I_i] on every tile of row i from its arrival until dZ reaches the tile (its dW),
//   and Z[:, J_j] on output tile j from the column's end until the column's backward start (every layer but
//   the last has an activation, relu);
// - an episode for target layer t from checkpoint layer f: t's output column whose signals to f's lane
//   entries travel the fewest hops in all (the lowest on a tie) sends one signal to each of them when its
//   dL/dY is there; lane entry i restarts layer f when its signal arrives; layers f..t run forward again
//   under the episode's stash policies; column j of t starts its backward pass at the later of its dL/dY and
//   its rebuilt column.
// The stores and releases of one cycle count together (docs/model.md, "Storage").
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "mappings/x_stash.h"
#include "tests/test_names.h"
#include "tests/workloads/layout_formulas.h"
#include "tests/workloads/network_test_support.h"
#include "tests/workloads/stash_peaks.h"

namespace spatialsim::workloads {
namespace {

using mappings::BlockLayout;
using mappings::XStash;
using testing_support::config_with;
using testing_support::for_each_piece;
using testing_support::manhattan;
using testing_support::run_with;
using testing_support::split_sizes;

// ---- what a schedule keeps and recomputes (docs/model.md section 7) ----

// Before the backward pass enters its target: restart from the checkpoint on `from`'s lane entries and run
// layers from..target forward again, layer l under keep[l - from].
struct Episode {
  std::uint32_t from = 0;
  bool releases = true;  // the checkpoint's last use
  std::vector<XStash> keep;
};

struct Plan {
  std::vector<XStash> first_pass;                       // per layer
  std::vector<std::optional<Episode>> before_backward;  // per layer
};

// Uniform checkpointing with segments of s layers, the last one shorter when s does not divide L: the first
// pass keeps a checkpoint on layers l mod s = 0 and nothing else (not even Z); before the backward pass
// enters the last layer of a segment, the segment runs again, every layer `replicate`.
Plan uniform_checkpointing(std::uint32_t L, std::uint32_t s) {
  Plan p;
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
Plan revolve_5_layers_2_slots() {
  using enum XStash;
  Plan p;
  p.first_pass = {checkpoint, none, checkpoint, none, replicate};
  p.before_backward.resize(5);
  p.before_backward[3] = Episode{2, false, {none, replicate}};
  p.before_backward[2] = Episode{2, true, {replicate}};
  p.before_backward[1] = Episode{0, false, {none, replicate}};
  p.before_backward[0] = Episode{0, true, {replicate}};
  return p;
}

// ---- the timing model (pieces copied from BackpropTimeline, test_backprop.cpp) ----

// One forward pass through a block, from its lanes' entry times: X reaches tile (i, j) its distance from lane
// entry i later; a column's partial sum advances one row per cycle toward the output row but cannot pass a
// tile before that tile has its X.
struct ForwardTimes {
  std::vector<std::uint64_t> x_arrival;   // per tile, i * cols + j
  std::vector<std::uint64_t> column_end;  // per column: its output complete on the output tile
};

ForwardTimes forward_through(const BlockLayout& b, const std::vector<std::uint64_t>& entry) {
  ForwardTimes f;
  f.x_arrival.assign(b.rows * b.cols, 0);
  for (std::uint32_t i = 0; i < b.rows; ++i)
    for (std::uint32_t j = 0; j < b.cols; ++j)
      f.x_arrival[i * b.cols + j] = entry[i] + manhattan(b.coord(i, j), b.lane_entry(i));
  f.column_end.assign(b.cols, 0);
  for (std::uint32_t j = 0; j < b.cols; ++j) {
    std::uint64_t t = 0;
    for (std::uint32_t step = 0; step < b.rows; ++step) {
      const std::uint32_t i = b.outputs_at_first_row ? b.rows - 1 - step : step;
      t = std::max(step == 0 ? 0 : t + 1, f.x_arrival[i * b.cols + j]);
    }
    f.column_end[j] = t;
  }
  return f;
}

// Each lane of layer l + 1 enters once its last piece has arrived from layer l's output columns.
std::vector<std::uint64_t> next_entries(const RunSetup& setup, std::uint32_t l,
                                        const std::vector<std::uint64_t>& column_end) {
  const BlockLayout& b = setup.placement.blocks[l];
  const BlockLayout& next = setup.placement.blocks[l + 1];
  std::vector<std::uint64_t> entry(next.rows, 0);
  for_each_piece(setup, l, [&](std::uint32_t j, std::uint32_t i, std::uint32_t /*elements*/) {
    entry[i] = std::max(entry[i], column_end[j] + manhattan(b.output_tile(j), next.lane_entry(i)));
  });
  return entry;
}

// Backward through a block from its columns' start times: dZ reaches tile (i, j) its distance from output
// tile j later.
std::vector<std::uint64_t> dz_arrivals(const BlockLayout& b, const std::vector<std::uint64_t>& start) {
  std::vector<std::uint64_t> dz(b.rows * b.cols);
  for (std::uint32_t i = 0; i < b.rows; ++i)
    for (std::uint32_t j = 0; j < b.cols; ++j)
      dz[i * b.cols + j] = start[j] + manhattan(b.coord(i, j), b.output_tile(j));
  return dz;
}

// The dX shares of row i run from the lane's exit to its entry, one column per cycle, but not before a tile
// has its own share; the pieces go back to the previous layer's output tiles, whose dL/dY is complete with
// the last one.
std::vector<std::uint64_t> previous_gradients(const RunSetup& setup, std::uint32_t l,
                                              const std::vector<std::uint64_t>& dz) {
  const BlockLayout& b = setup.placement.blocks[l];
  const BlockLayout& prev = setup.placement.blocks[l - 1];
  std::vector<std::uint64_t> dx_ready(b.rows);
  for (std::uint32_t i = 0; i < b.rows; ++i) {
    std::uint64_t t = 0;
    for (std::uint32_t step = 0; step < b.cols; ++step) {
      const std::uint32_t j = b.lanes_enter_at_last_col ? step : b.cols - 1 - step;
      t = std::max(step == 0 ? 0 : t + 1, dz[i * b.cols + j]);
    }
    dx_ready[i] = t;
  }
  std::vector<std::uint64_t> dy(prev.cols, 0);
  for_each_piece(setup, l - 1, [&](std::uint32_t j, std::uint32_t i, std::uint32_t /*elements*/) {
    dy[j] = std::max(dy[j], dx_ready[i] + manhattan(b.lane_entry(i), prev.output_tile(j)));
  });
  return dy;
}

// ---- one wavefront's stash ----

struct StashEntry {
  sim::Coord tile;
  std::uint64_t stored, released;  // times from the wavefront's injection
  std::uint64_t bytes_per_token;
};

struct WavefrontTimeline {
  std::vector<StashEntry> stash;
  std::uint64_t latest = 0;  // the wavefront's last delivery: its last dZ on layer 0
};

WavefrontTimeline wavefront_timeline(const RunSetup& setup, const Plan& plan) {
  const std::vector<BlockLayout>& blocks = setup.placement.blocks;
  const std::vector<std::uint32_t>& widths = setup.model.widths;
  const std::uint32_t L = setup.model.layers();
  const std::uint64_t b_a = setup.bytes.activation;
  auto host_hops = [&](sim::Coord t) { return testing_support::host_hops(setup, t); };
  WavefrontTimeline out;
  auto seen = [&](const std::vector<std::uint64_t>& times) {
    for (std::uint64_t t : times) out.latest = std::max(out.latest, t);
  };
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint64_t> checkpoints;  // (layer, row): stored
  std::vector<std::optional<ForwardTimes>> kept(L);  // the pass whose `replicate` stash a layer's dW reads

  // Layers from..to forward from the lane entry times of `from`, layer l under keep[l - from].
  auto run = [&](std::uint32_t from, std::uint32_t to, std::vector<std::uint64_t> entry,
                 const std::vector<XStash>& keep) {
    for (std::uint32_t l = from;; ++l) {
      ForwardTimes f = forward_through(blocks[l], entry);
      seen(f.x_arrival);
      seen(f.column_end);
      if (keep.at(l - from) == XStash::checkpoint)
        for (std::uint32_t i = 0; i < blocks[l].rows; ++i)
          if (!checkpoints.emplace(std::pair{l, i}, entry[i]).second)
            throw std::logic_error("plan: a second checkpoint of one input");
      if (keep.at(l - from) == XStash::replicate) kept[l] = f;
      if (l == to) return f;
      entry = next_entries(setup, l, f.column_end);
    }
  };

  std::vector<std::uint64_t> entry;
  for (std::uint32_t i = 0; i < blocks[0].rows; ++i) entry.push_back(host_hops(blocks[0].lane_entry(i)));
  const ForwardTimes last = run(0, L - 1, entry, plan.first_pass);
  // mse: dL/dY once the output column and its target are both on the output tile.
  std::vector<std::uint64_t> dy(blocks[L - 1].cols);
  for (std::uint32_t j = 0; j < dy.size(); ++j)
    dy[j] = std::max(last.column_end[j], host_hops(blocks[L - 1].output_tile(j)));
  seen(dy);

  for (std::uint32_t l = L; l-- > 0;) {
    const BlockLayout& b = blocks[l];
    std::vector<std::uint64_t> start = dy;
    if (plan.before_backward[l]) {
      const Episode& e = *plan.before_backward[l];
      const BlockLayout& f = blocks[e.from];
      std::uint32_t restart = 0;
      std::uint64_t fewest = UINT64_MAX;
      for (std::uint32_t j = 0; j < b.cols; ++j) {
        std::uint64_t hops = 0;
        for (std::uint32_t i = 0; i < f.rows; ++i) hops += manhattan(b.output_tile(j), f.lane_entry(i));
        if (hops < fewest) {
          restart = j;
          fewest = hops;
        }
      }
      const auto rows = split_sizes(widths[e.from], f.rows);
      std::vector<std::uint64_t> signal(f.rows);
      for (std::uint32_t i = 0; i < f.rows; ++i) {
        signal[i] = dy[restart] + manhattan(b.output_tile(restart), f.lane_entry(i));
        const auto held = checkpoints.find({e.from, i});
        if (held == checkpoints.end()) throw std::logic_error("plan: no checkpoint to restart from");
        if (e.releases) {
          out.stash.push_back({f.lane_entry(i), held->second, signal[i], b_a * rows[i]});
          checkpoints.erase(held);
        }
      }
      seen(signal);
      const ForwardTimes rebuilt = run(e.from, l, signal, e.keep);
      for (std::uint32_t j = 0; j < b.cols; ++j) start[j] = std::max(dy[j], rebuilt.column_end[j]);
    }
    if (!kept[l]) throw std::logic_error("plan: a backward pass without a stash");
    const ForwardTimes& x = *kept[l];
    const auto row_sizes = split_sizes(widths[l], b.rows), col_sizes = split_sizes(widths[l + 1], b.cols);
    const std::vector<std::uint64_t> dz = dz_arrivals(b, start);
    seen(dz);
    for (std::uint32_t i = 0; i < b.rows; ++i)
      for (std::uint32_t j = 0; j < b.cols; ++j)
        out.stash.push_back(
            {b.coord(i, j), x.x_arrival[i * b.cols + j], dz[i * b.cols + j], b_a * row_sizes[i]});
    if (l + 1 < L)
      for (std::uint32_t j = 0; j < b.cols; ++j)
        out.stash.push_back({b.output_tile(j), x.column_end[j], start[j], b_a * col_sizes[j]});
    kept[l].reset();
    if (l == 0) break;
    dy = previous_gradients(setup, l, dz);
    seen(dy);
  }
  if (!checkpoints.empty()) throw std::logic_error("plan: a checkpoint never released");
  return out;
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

Plan plan_for(const StashCase& c, std::uint32_t layers) {
  if (c.schedule == "backprop") {  // every layer `replicate` in the first pass, nothing recomputed
    Plan p;
    p.first_pass.assign(layers, XStash::replicate);
    p.before_backward.resize(layers);
    return p;
  }
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
  const WavefrontTimeline one = wavefront_timeline(setup, plan_for(c, setup.model.layers()));

  const std::uint64_t G = (c.tokens + c.wavefront - 1) / c.wavefront;
  std::uint64_t per_token = 0;
  for (const StashEntry& e : one.stash) per_token += e.bytes_per_token * (e.released - e.stored);
  EXPECT_EQ(res.counters.inflight_byte_cycles, per_token * c.tokens);
  // Every wavefront's entries, shifted by its injection time, with its own tokens (the last one fewer).
  testing_support::StashPeaks<std::pair<std::int32_t, std::int32_t>> peaks;
  for (std::uint64_t g = 0; g < G; ++g) {
    const std::uint64_t at = g * setup.injection_interval;
    const std::uint64_t tokens = std::min<std::uint64_t>(c.wavefront, c.tokens - g * c.wavefront);
    for (const StashEntry& e : one.stash)
      peaks.hold({e.tile.x, e.tile.y}, at + e.stored, at + e.released,
                 static_cast<std::int64_t>(e.bytes_per_token * tokens));
  }
  EXPECT_EQ(res.counters.peak_stash_bytes, peaks.total());
  EXPECT_EQ(res.counters.peak_tile_stash_bytes, peaks.per_tile());
  EXPECT_EQ(res.counters.depth, one.latest);
  EXPECT_EQ(res.counters.makespan_cycles, (G - 1) * setup.injection_interval + one.latest);
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
        // Nothing recomputed: the model is then BackpropTimeline's, the anchor the passes above extend.
        StashCase{"backprop", 0, "11,13,13,10,7,9,6", "2x3", "zigzag", 61, 5}),
    [](const ::testing::TestParamInfo<StashCase>& param_info) {
      const StashCase& c = param_info.param;
      return testing_support::gtest_name(c.schedule + (c.knob > 0 ? std::to_string(c.knob) : "") + "_L" +
                                         std::to_string(std::count(c.widths.begin(), c.widths.end(), ',')) +
                                         "_" + c.block + "_" + c.placement);
    });

}  // namespace
}  // namespace spatialsim::workloads
