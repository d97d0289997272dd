#pragma once
// Runs one schedule on the configured model, data and machine for the configured number of steps, each
// step a fresh engine run on the same grid, and gathers what was measured.
//
// Usage:
//   RunSetup setup = setup_from_config(config);
//   RunResult r = run_schedule(setup, config, "backprop");
//   r.counters.byte_hops.total();  r.loss_per_step;  r.first_step_gradients[l].weights;

#include <optional>
#include <string>
#include <vector>

#include "sim/counters.h"
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
  NetworkParameters initial_parameters;
  NetworkParameters first_step_gradients;  // assembled from the tiles before the update; empty if no backward
  StepData first_step_data;
  sim::Matrix<double> first_step_outputs;
  std::vector<sim::StorageOverflow> overflows;  // per tile, largest excess, over all steps
  // A reversible model trained by `reversible` (arithmetic mode): how far the first step's reconstructed
  // trunk values are from its forward values. Empty otherwise.
  std::optional<reversible::ReconstructionDrift> reconstruction_drift;
  double wall_seconds = 0;
};

// Throws sim::ConfigError (key `schedule`) when the schedule does not run on the model
// (reversible::require_schedule_fits_model).
RunResult run_schedule(const RunSetup& setup, const sim::Config& config, const std::string& schedule);

// Runs several schedules on the same setup, in parallel on up to setup.threads worker threads (0: all
// cores). Each run is independent and deterministic, so the results, returned in the order of
// `schedules`, do not depend on the thread count.
std::vector<RunResult> run_schedules(const RunSetup& setup, const sim::Config& config,
                                     const std::vector<std::string>& schedules);

}  // namespace spatialsim::workloads
