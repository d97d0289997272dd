#pragma once
// Tracing (`--trace`, `--chrome-trace`): an engine observer that records every message and every change
// of stashed storage during one schedule's run, step by step. The writers (analysis/trace_writer.h for
// HDF5, analysis/chrome_trace.h for Perfetto / chrome://tracing) turn the records into files after the
// run; docs/traces-and-plots.md describes both layouts.
//
// Usage:
//   analysis::MessageTraceRecorder recorder;
//   workloads::run_schedule(setup, config, "backprop", {.observer = &recorder});
//   const analysis::TraceData& t = recorder.data();
//   t.messages[0].delivered;  t.stash.back().stash_bytes;  t.steps[1].start_cycle;
//
// Memory: the recorder keeps one MessageRecord (56 bytes) per message and one StashRecord (48 bytes) per
// change of a tile's stash, for the whole run, because the HDF5 file is written after
// every schedule has run. That is what `--trace` costs, and why it is meant for small runs. A run without
// tracing creates no recorder and attaches no observer, so it pays nothing.

#include <cstdint>
#include <vector>

#include "sim/counters.h"
#include "sim/types.h"
#include "workloads/training_run.h"

namespace spatialsim::analysis {

// One message, as the engine counted it. Cycles are within the step (each step's engine starts at 0).
struct MessageRecord {
  sim::Cycle sent = 0;       // departure from the source
  sim::Cycle delivered = 0;  // arrival at the destination (when the receiver sees it)
  std::uint64_t bytes = 0;
  sim::TileId src = 0;  // sim::kHostTile for the host at the grid edge
  sim::TileId dst = 0;
  std::uint32_t hops = 0;
  std::uint32_t layer = 0;      // message.group: the layer whose tiles receive it (docs/traces-and-plots.md)
  std::uint32_t wavefront = 0;  // message.serial
  std::uint32_t step = 0;
  sim::MessageKind kind = sim::MessageKind::lane;
  sim::Phase phase = sim::Phase::forward;
};

// One change of one tile's stash, with the totals right after it.
struct StashRecord {
  sim::Cycle cycle = 0;           // within the step
  std::int64_t delta_bytes = 0;   // + stored, - released
  std::uint64_t layer_bytes = 0;  // all tiles' stash bytes of this layer, after the change
  std::uint64_t stash_bytes = 0;  // all tiles' stash bytes, after the change
  sim::TileId tile = 0;
  std::uint32_t layer = 0;  // the change's group
  std::uint32_t step = 0;
};

// Where a step sits on the run's timeline: steps run one after another, so step k starts when the steps
// before it have finished (the sum of their makespans, as in RunResult::counters.makespan_cycles).
struct StepSpan {
  std::uint32_t step = 0;
  sim::Cycle start_cycle = 0;
  sim::Cycle makespan_cycles = 0;
};

struct TraceData {
  std::vector<MessageRecord> messages;  // in send order
  std::vector<StashRecord> stash;       // in the order of the changes (time order within a step)
  std::vector<StepSpan> steps;
  std::uint32_t layers = 0;  // 1 + the largest layer (group) seen in a message or a stash change
};

// Contract: attach to one run only (workloads::RunOptions::observer). Records only; never sends or
// stores. Stash rows integrate exactly to the run's inflight_byte_cycles: within each step, the sum of
// stash_bytes x (next row's cycle - this row's cycle), the last row running to the step's makespan.
class MessageTraceRecorder final : public workloads::StepObserver {
 public:
  void begin_step(std::uint32_t step) override;
  void end_step(std::uint32_t step, const sim::Counters& step_counters) override;
  void on_send(const sim::Message& message, sim::Cycle depart, sim::Cycle arrive,
               std::uint32_t hops) override;
  void on_storage(sim::TileId tile, sim::StorageCategory category, std::int64_t delta_bytes,
                  std::uint32_t group, sim::Cycle now) override;

  const TraceData& data() const { return m_data; }

 private:
  void note_layer(std::uint32_t layer);

  TraceData m_data;
  std::uint32_t m_step = 0;
  sim::Cycle m_step_start = 0;
  // Running totals of the current step (a fresh engine holds nothing when a step begins).
  std::uint64_t m_stash_total = 0;
  std::vector<std::uint64_t> m_stash_by_layer;
};

// The whole run's stash integral from the records: sum over steps of the step-wise constant total stash,
// the same quantity as RunResult::counters.inflight_byte_cycles (tests use it to check the records).
std::uint64_t stash_byte_cycles(const TraceData& data);

}  // namespace spatialsim::analysis
