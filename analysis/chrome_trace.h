#pragma once
// `--chrome-trace FILE.json`: the recorded timeline in the Trace Event Format, which Perfetto
// (ui.perfetto.dev) and chrome://tracing open. Layout and how to read it: docs/traces-and-plots.md.
//
// Usage:
//   std::vector<ScheduleTrace> runs{{"forward", &traces.data(0)}, {"backprop", &traces.data(1)}};
//   write_chrome_trace("run.json", runs);   // temp name + rename: complete or absent
//
// What the viewer shows, per schedule (one process each, named after it):
//   - a track "steps" with one slice per training step;
//   - per layer, tracks "layer l" (and "layer l #2", ... when messages overlap), one complete slice
//     ("ph":"X") per message from its send to its delivery, named by its kind, args src, dst, bytes, hops,
//     phase, wavefront, step. Trace viewers require the slices of one track to nest, and a layer's
//     messages overlap freely, so each message goes to the first of its layer's tracks that is free;
//   - counters ("ph":"C"): "stash bytes" (the total) and "stash bytes by layer" (stacked).
// Time: 1 cycle is shown as 1 us. Steps are laid end to end (step k starts at the sum of the earlier
// steps' makespans), like RunResult::counters.makespan_cycles.

#include <string>
#include <vector>

#include "analysis/message_trace.h"

namespace spatialsim::analysis {

struct ScheduleTrace {
  std::string schedule;
  const TraceData* data = nullptr;
};

// Contract: writes "<path>.tmp-<pid>", then renames it to `path`; on any failure the temporary file is
// removed and OutputError names `path` (an interrupt removes it too: analysis/output_guard.h). Every
// `data` is non-null.
void write_chrome_trace(const std::string& path, const std::vector<ScheduleTrace>& runs);

}  // namespace spatialsim::analysis
