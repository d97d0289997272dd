#pragma once
// Runs one schedule on the configured model, data and machine for the configured number of steps, each
// step a fresh engine run on the same grid, and gathers what was measured.
//
// Usage:
//   RunSetup setup = setup_from_config(config);
//   RunResult r = run_schedule(setup, config, "backprop");
//   r.counters.byte_hops.total();  r.loss_per_step;  r.first_step_gradients[l].weights;
//   analysis::MessageTraceRecorder trace;                    // any StepObserver (tracing)
//   run_schedule(setup, config, "backprop", {.observer = &trace});
//   run_schedule(setup, config, "backprop", {.for_checks = false});  // no gradient check will follow

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sim/counters.h"
#include "sim/engine.h"
#include "sim/storage_ledger.h"
#include "workloads/parameters.h"
#include "workloads/reversible/reconstruction_drift.h"
#include "workloads/run_setup.h"

namespace spatialsim::workloads {

struct RunResult {
  std::string schedule;
  sim::Counters counters;   // over all steps: sums, with depth and peaks as maxima
  sim::TileCounters tiles;  // per tile, over all steps
  std::uint32_t grid_width = 0;
  std::uint32_t grid_height = 0;
  std::vector<double> loss_per_step;  // empty in counting mode
  // The first step, for checks and export (arithmetic mode only).
  NetworkParameters initial_parameters;  // empty if RunOptions::for_checks is false
  // Assembled from the tiles before the update; empty if no backward or RunOptions::for_checks is false.
  NetworkParameters first_step_gradients;
  // The parameters the tiles hold after the first step's update (as the tiles keep them: fp32 in an fp32
  // run); empty when first_step_gradients is.
  NetworkParameters first_step_updated_parameters;
  // The parameters after the last step's update (the whole run's training, for a multi-step check);
  // empty when first_step_gradients is.
  NetworkParameters final_parameters;
  StepData first_step_data;
  sim::Matrix<double> first_step_outputs;
  // Forward-gradient schedules: d_1..d_K of the first step, as the trunk tiles received them (arithmetic
  // mode).
  std::vector<double> first_step_tangent_scalars;
  std::uint32_t max_checkpoints = 0;  // most checkpoints one wavefront held at once (recompute schedules)
  std::vector<sim::StorageOverflow> overflows;  // per tile, largest excess, over all steps
  // Reversible models: how far the inputs reconstructed in the backward pass drift from the forward pass's.
  std::optional<reversible::ReconstructionDrift> reconstruction_drift;
  double wall_seconds = 0;
};

// --- Instrumentation (tracing: analysis/message_trace.h) -------------------------------------------
// An engine observer that is also told where steps begin and end: every step runs on a fresh engine whose
// clock starts at 0, so an observer of a whole run needs the step boundaries to place what it sees.
// Contract: for each step k in order, begin_step(k) is called before that step's engine sends or stores
// anything (the observer is then attached to it), and end_step(k, c) after engine.finish(), with the
// step's own counters. An observer belongs to one run: runs of several schedules never share one.
class StepObserver : public sim::EngineObserver {
 public:
  virtual void begin_step(std::uint32_t step) = 0;
  virtual void end_step(std::uint32_t step, const sim::Counters& step_counters) = 0;
};

struct RunOptions {
  // Not owned. Null (the default): no observer is attached, so a run without tracing pays nothing for it.
  StepObserver* observer = nullptr;
  // Whether to keep RunResult::initial_parameters and first_step_gradients (arithmetic mode): whole fp64
  // d_in x d_out copies per layer that only the gradient checks and their export read
  // (analysis/gradient_check.h, analysis/check_export.h). False: an mlp's weights are drawn one layer at a
  // time into one buffer and loaded onto the tiles (the same numbers), and no gradient is assembled.
  // Callers that never check pass false.
  bool for_checks = true;
};
// ------------------------------------------------------------------------------------------------------

// Throws sim::ConfigError (key `schedule`) when the schedule does not run on the model
// (require_schedule_runs_on).
RunResult run_schedule(const RunSetup& setup, const sim::Config& config, const std::string& schedule,
                       const RunOptions& options = {});

// Runs several schedules on the same setup, in parallel on up to setup.threads worker threads (0: all
// cores), the last of the list started first. Each run is independent and deterministic, so the results,
// returned in the order of `schedules`, do not depend on the thread count or on which ran first. `observers`
// is empty (none) or holds one observer per schedule, in the same order (null entries allowed);
// std::invalid_argument otherwise. `for_checks`: RunOptions::for_checks of every run.
std::vector<RunResult> run_schedules(const RunSetup& setup, const sim::Config& config,
                                     const std::vector<std::string>& schedules,
                                     std::span<StepObserver* const> observers = {}, bool for_checks = true);

}  // namespace spatialsim::workloads
