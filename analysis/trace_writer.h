#pragma once
// Writes what the trace recorders saw into a results file, next to the run's figures:
// `/runs/<schedule>/trace/{messages,stash,steps}` (docs/traces-and-plots.md, docs/hdf5.md "Traces").
//
// Usage (what `spatialsim run --trace` does):
//   analysis::RunTraces traces(schedules.size(), /*enabled=*/true);
//   auto results = workloads::run_schedules(setup, config, schedules, traces.observers());
//   Hdf5File file(out);  write_results(file, config, setup, results, version);
//   for (std::size_t k = 0; k < results.size(); ++k)
//     write_trace(file, run_group(results[k].schedule), traces.data(k));
//   file.commit();

#include <cstddef>
#include <memory>
#include <string_view>
#include <vector>

#include "analysis/hdf5_file.h"
#include "analysis/message_trace.h"
#include "workloads/training_run.h"

namespace spatialsim::analysis {

// One recorder per schedule of a run, or none at all. Disabled, observers() is empty, so that
// run_schedules attaches nothing and the run pays nothing for tracing.
class RunTraces {
 public:
  RunTraces(std::size_t schedules, bool enabled);

  // For workloads::run_schedules: one per schedule, in order; empty when disabled.
  const std::vector<workloads::StepObserver*>& observers() const { return m_observers; }
  // Contract: constructed enabled, and k < schedules.
  const TraceData& data(std::size_t k) const { return m_recorders.at(k)->data(); }

 private:
  std::vector<std::unique_ptr<MessageTraceRecorder>> m_recorders;
  std::vector<workloads::StepObserver*> m_observers;
};

// Contract: writes `<run_group>/trace/messages`, `<run_group>/trace/stash` and `<run_group>/trace/steps`
// as tables (contiguous when small, else chunked and compressed; docs/hdf5.md "Tables"), and the
// attributes `layers` and `host_tile` on `<run_group>/trace`. Throws OutputError if any of them exists
// already.
void write_trace(Hdf5File& file, std::string_view run_group, const TraceData& data);

}  // namespace spatialsim::analysis
