#pragma once
// The layer-timing model of one training step, worked out in tests independently of the simulator's
// schedules, blocks and routes, for the stash counts of MODEL.md section 3 (inflight_byte_cycles, the peaks),
// the depth and the makespan. With latency-only links and instantaneous compute every value appears
// hop_cycles per hop after its inputs, so a time below is a chain of hops from the wavefront's injection
// (its depth stamp, times hop_cycles), and wavefronts never delay one another: each repeats the first one's
// timeline from its own injection, with bytes that scale with its tokens.
//
// The rules, from docs/model.md ("The layer mapping", "Storage", section 7's schedules and "An episode"):
// - forward through a block: X reaches tile (i, j) |j - entry column| hops after lane entry i; a column's
//   partial sum moves one row per hop toward the output row, but cannot pass a tile before it has its X;
// - between blocks: lane i of layer l + 1 enters once its last piece has come from layer l's output columns,
//   each piece one route (the machine's route length) away; the host is host hops from a tile;
// - mse: column j of the last layer starts backward once its output and its target are both there;
// - backward through a block: dZ reaches tile (i, j) |i - output row| hops after column j's start; the dX
//   shares of row i run from the lane's exit to its entry, one column per hop but not before a tile has its
//   own share; the pieces go back to the previous layer's output tiles, whose dL/dY is complete with the
//   last;
// - stash: `replicate` keeps X[:, I_i] on every tile of row i from its arrival until dZ reaches it;
//   `rebroadcast` keeps it on lane entry i only, which sends it along the row again once its dZ is in;
//   either keeps Z[:, J_j] on output tile j from the column's end until its backward start, on every layer
//   but the last (relu); `checkpoint` keeps X[:, I_i] on lane entry i from its arrival in the pass that
//   takes it until the restart signal of the episode that uses it for the last time reaches that entry;
// - an episode for target layer t from checkpoint layer f: t's output column whose routes to f's lane
//   entries are the fewest hops in all (the lowest on a tie) sends one restart signal to each of them when
//   its dL/dY is there; lane entry i restarts layer f when its signal arrives; layers f..t run forward again
//   under the episode's policies; column j of t starts backward at the later of its dL/dY and its rebuilt
//   column.
// The stores and releases of one cycle count together (stash_peaks.h).
//
// Usage:
//   const WavefrontTimeline one = wavefront_timeline(setup, every_layer(L, XStash::replicate), links);
//   const StepTotals step = step_totals(one, tokens, wavefront, setup.injection_interval, links.hop_cycles);
//   expect_step_counts(result.counters, step);   // stash integral, both peaks, depth, makespan

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

#include "mappings/x_stash.h"
#include "tests/workloads/layout_formulas.h"
#include "tests/workloads/stash_peaks.h"
#include "workloads/run_setup.h"

namespace spatialsim::testing_support {

// How long hops take on the machine: every hop hop_cycles, a route between blocks `route` hops, the host
// `host` hops from a tile.
struct LinkTiming {
  std::uint64_t hop_cycles = 1;
  std::function<std::uint64_t(sim::Coord, sim::Coord)> route;
  std::function<std::uint64_t(sim::Coord)> host;
};

// The default machine: a mesh at one cycle per hop.
inline LinkTiming mesh_links(const workloads::RunSetup& setup) {
  return {1, manhattan, [&setup](sim::Coord t) { return host_hops(setup, t); }};
}

// Before the backward pass enters a target layer: restart from the checkpoint on `from`'s lane entries and
// run layers from..target forward again, layer l under keep[l - from].
struct Episode {
  std::uint32_t from = 0;
  bool releases = true;  // the checkpoint's last use
  std::vector<mappings::XStash> keep;
};

// What a schedule keeps and recomputes, written by the test from the schedule's rules.
struct StashPlan {
  std::vector<mappings::XStash> first_pass;             // per layer
  std::vector<std::optional<Episode>> before_backward;  // per layer
};

// One policy on every layer, nothing recomputed (backprop).
inline StashPlan every_layer(std::uint32_t layers, mappings::XStash policy) {
  return {std::vector<mappings::XStash>(layers, policy), std::vector<std::optional<Episode>>(layers)};
}

// One slice held on a tile, in cycles from its wavefront's injection.
struct StashSlice {
  sim::Coord tile;
  std::uint64_t stored = 0, released = 0;
  std::uint64_t bytes_per_token = 0;
};

struct WavefrontTimeline {
  std::vector<StashSlice> stash;
  std::uint64_t latest = 0;  // cycles to the wavefront's last delivery
};

namespace layer_timeline_detail {

inline std::uint64_t steps(std::uint32_t a, std::uint32_t b) {
  return a > b ? a - b : b - a;
}

struct ForwardTimes {
  std::vector<std::uint64_t> x_arrival;   // per tile, i * cols + j
  std::vector<std::uint64_t> column_end;  // per column: its output complete on the output tile
};

inline ForwardTimes forward_through(const mappings::BlockLayout& b, const std::vector<std::uint64_t>& entry,
                                    std::uint64_t hop) {
  ForwardTimes f;
  f.x_arrival.assign(b.rows * b.cols, 0);
  for (std::uint32_t i = 0; i < b.rows; ++i)
    for (std::uint32_t j = 0; j < b.cols; ++j)
      f.x_arrival[i * b.cols + j] = entry[i] + hop * steps(j, b.entry_col());
  f.column_end.assign(b.cols, 0);
  for (std::uint32_t j = 0; j < b.cols; ++j) {
    std::uint64_t t = 0;  // the running partial sum, row by row toward the output row
    for (std::uint32_t step = 0; step < b.rows; ++step) {
      const std::uint32_t i = b.outputs_at_first_row ? b.rows - 1 - step : step;
      t = std::max(step == 0 ? 0 : t + hop, f.x_arrival[i * b.cols + j]);
    }
    f.column_end[j] = t;
  }
  return f;
}

inline std::vector<std::uint64_t> next_entries(const workloads::RunSetup& setup, std::uint32_t l,
                                               const std::vector<std::uint64_t>& column_end,
                                               const LinkTiming& links) {
  const mappings::BlockLayout& b = setup.placement.blocks[l];
  const mappings::BlockLayout& next = setup.placement.blocks[l + 1];
  std::vector<std::uint64_t> entry(next.rows, 0);
  for_each_piece(setup, l, [&](std::uint32_t j, std::uint32_t i, std::uint32_t /*elements*/) {
    entry[i] = std::max(entry[i],
                        column_end[j] + links.hop_cycles * links.route(b.output_tile(j), next.lane_entry(i)));
  });
  return entry;
}

inline std::vector<std::uint64_t> dz_arrivals(const mappings::BlockLayout& b,
                                              const std::vector<std::uint64_t>& start, std::uint64_t hop) {
  std::vector<std::uint64_t> dz(b.rows * b.cols);
  for (std::uint32_t i = 0; i < b.rows; ++i)
    for (std::uint32_t j = 0; j < b.cols; ++j) dz[i * b.cols + j] = start[j] + hop * steps(i, b.output_row());
  return dz;
}

inline std::vector<std::uint64_t> previous_gradients(const workloads::RunSetup& setup, std::uint32_t l,
                                                     const std::vector<std::uint64_t>& dz,
                                                     const LinkTiming& links) {
  const mappings::BlockLayout& b = setup.placement.blocks[l];
  const mappings::BlockLayout& prev = setup.placement.blocks[l - 1];
  std::vector<std::uint64_t> dx_ready(b.rows);
  for (std::uint32_t i = 0; i < b.rows; ++i) {
    std::uint64_t t = 0;
    for (std::uint32_t step = 0; step < b.cols; ++step) {
      const std::uint32_t j = b.lanes_enter_at_last_col ? step : b.cols - 1 - step;
      t = std::max(step == 0 ? 0 : t + links.hop_cycles, dz[i * b.cols + j]);
    }
    dx_ready[i] = t;
  }
  std::vector<std::uint64_t> dy(prev.cols, 0);
  for_each_piece(setup, l - 1, [&](std::uint32_t j, std::uint32_t i, std::uint32_t /*elements*/) {
    dy[j] =
        std::max(dy[j], dx_ready[i] + links.hop_cycles * links.route(b.lane_entry(i), prev.output_tile(j)));
  });
  return dy;
}

}  // namespace layer_timeline_detail

// One wavefront's stash slices and last delivery under `plan`. Throws std::logic_error for a plan that
// cannot run (a restart without its checkpoint, a backward pass without a stash, a checkpoint never
// released), so a mistake in a test's plan fails loudly.
inline WavefrontTimeline wavefront_timeline(const workloads::RunSetup& setup, const StashPlan& plan,
                                            const LinkTiming& links) {
  using namespace layer_timeline_detail;
  using mappings::XStash;
  const std::vector<mappings::BlockLayout>& blocks = setup.placement.blocks;
  const std::vector<std::uint32_t>& widths = setup.model.widths;
  const std::uint32_t L = setup.model.layers();
  const std::uint64_t b_a = setup.bytes.activation, hop = links.hop_cycles;
  WavefrontTimeline out;
  auto seen = [&](const std::vector<std::uint64_t>& times) {
    for (std::uint64_t t : times) out.latest = std::max(out.latest, t);
  };
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint64_t> checkpoints;  // (layer, row): stored
  struct Kept {
    ForwardTimes times;
    XStash policy;
  };
  std::vector<std::optional<Kept>> kept(L);  // the pass whose stash a layer's backward pass reads

  // Layers from..to forward from the lane entry times of `from`, layer l under keep[l - from].
  auto run = [&](std::uint32_t from, std::uint32_t to, std::vector<std::uint64_t> entry,
                 const std::vector<XStash>& keep) {
    for (std::uint32_t l = from;; ++l) {
      ForwardTimes f = forward_through(blocks[l], entry, hop);
      seen(f.x_arrival);
      seen(f.column_end);
      const XStash policy = keep.at(l - from);
      if (policy == XStash::checkpoint)
        for (std::uint32_t i = 0; i < blocks[l].rows; ++i)
          if (!checkpoints.emplace(std::pair{l, i}, entry[i]).second)
            throw std::logic_error("plan: a second checkpoint of one input");
      if (mappings::prepares_backward(policy)) kept[l] = Kept{f, policy};
      if (l == to) return f;
      entry = next_entries(setup, l, f.column_end, links);
    }
  };

  std::vector<std::uint64_t> entry;
  for (std::uint32_t i = 0; i < blocks[0].rows; ++i)
    entry.push_back(hop * links.host(blocks[0].lane_entry(i)));
  const ForwardTimes last = run(0, L - 1, entry, plan.first_pass);
  std::vector<std::uint64_t> dy(blocks[L - 1].cols);
  for (std::uint32_t j = 0; j < dy.size(); ++j)
    dy[j] = std::max(last.column_end[j], hop * links.host(blocks[L - 1].output_tile(j)));
  seen(dy);

  for (std::uint32_t l = L; l-- > 0;) {
    const mappings::BlockLayout& b = blocks[l];
    std::vector<std::uint64_t> start = dy;
    if (plan.before_backward[l]) {
      const Episode& e = *plan.before_backward[l];
      const mappings::BlockLayout& f = blocks[e.from];
      std::uint32_t restart = 0;
      std::uint64_t fewest = UINT64_MAX;
      for (std::uint32_t j = 0; j < b.cols; ++j) {
        std::uint64_t hops = 0;
        for (std::uint32_t i = 0; i < f.rows; ++i) hops += links.route(b.output_tile(j), f.lane_entry(i));
        if (hops < fewest) {
          restart = j;
          fewest = hops;
        }
      }
      const auto rows = split_sizes(widths[e.from], f.rows);
      std::vector<std::uint64_t> signal(f.rows);
      for (std::uint32_t i = 0; i < f.rows; ++i) {
        signal[i] = dy[restart] + hop * links.route(b.output_tile(restart), f.lane_entry(i));
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
    const ForwardTimes& x = kept[l]->times;
    const bool rebroadcast = kept[l]->policy == XStash::rebroadcast;
    const auto row_sizes = split_sizes(widths[l], b.rows), col_sizes = split_sizes(widths[l + 1], b.cols);
    const std::vector<std::uint64_t> dz = dz_arrivals(b, start, hop);
    seen(dz);
    for (std::uint32_t i = 0; i < b.rows; ++i)
      for (std::uint32_t j = 0; j < b.cols; ++j)
        if (!rebroadcast || j == b.entry_col())
          out.stash.push_back(
              {b.coord(i, j), x.x_arrival[i * b.cols + j], dz[i * b.cols + j], b_a * row_sizes[i]});
    if (rebroadcast)  // the lane entry sends its X along the row again once its dZ is in
      for (std::uint32_t i = 0; i < b.rows; ++i)
        for (std::uint32_t j = 0; j < b.cols; ++j)
          out.latest = std::max(out.latest, dz[i * b.cols + b.entry_col()] + hop * steps(j, b.entry_col()));
    if (l + 1 < L)
      for (std::uint32_t j = 0; j < b.cols; ++j)
        out.stash.push_back({b.output_tile(j), x.column_end[j], start[j], b_a * col_sizes[j]});
    kept[l].reset();
    if (l == 0) break;
    dy = previous_gradients(setup, l, dz, links);
    seen(dy);
  }
  if (!checkpoints.empty()) throw std::logic_error("plan: a checkpoint never released");
  return out;
}

// A step's counts from one wavefront's timeline: `tokens` in wavefronts of `wavefront` (the last one
// smaller when it does not divide), injected every `interval` cycles, on links of `hop_cycles` per hop.
struct StepTotals {
  std::uint64_t inflight_byte_cycles = 0;
  std::uint64_t peak_stash_bytes = 0;
  std::uint64_t peak_tile_stash_bytes = 0;
  std::uint64_t depth = 0;  // hops: the wavefront's last delivery is hop_cycles per hop of its chain
  std::uint64_t makespan_cycles = 0;  // the last wavefront's last delivery
};

inline StepTotals step_totals(const WavefrontTimeline& one, std::uint64_t tokens, std::uint64_t wavefront,
                              std::uint64_t interval, std::uint64_t hop_cycles = 1) {
  StepTotals t;
  std::uint64_t per_token = 0;
  for (const StashSlice& s : one.stash) per_token += s.bytes_per_token * (s.released - s.stored);
  t.inflight_byte_cycles = per_token * tokens;
  const std::uint64_t G = (tokens + wavefront - 1) / wavefront;
  StashPeaks<std::pair<std::int32_t, std::int32_t>> peaks;
  for (std::uint64_t g = 0; g < G; ++g) {
    const std::uint64_t at = g * interval, its_tokens = std::min(wavefront, tokens - g * wavefront);
    for (const StashSlice& s : one.stash)
      peaks.hold({s.tile.x, s.tile.y}, at + s.stored, at + s.released,
                 static_cast<std::int64_t>(s.bytes_per_token * its_tokens));
  }
  t.peak_stash_bytes = peaks.total();
  t.peak_tile_stash_bytes = peaks.per_tile();
  t.depth = one.latest / hop_cycles;
  t.makespan_cycles = (G - 1) * interval + one.latest;
  return t;
}

// The run's stash and timing counts against the timeline's.
inline void expect_step_counts(const sim::Counters& run, const StepTotals& expected) {
  EXPECT_EQ(run.inflight_byte_cycles, expected.inflight_byte_cycles);
  EXPECT_EQ(run.peak_stash_bytes, expected.peak_stash_bytes);
  EXPECT_EQ(run.peak_tile_stash_bytes, expected.peak_tile_stash_bytes);
  EXPECT_EQ(run.depth, expected.depth);
  EXPECT_EQ(run.makespan_cycles, expected.makespan_cycles);
}

}  // namespace spatialsim::testing_support
