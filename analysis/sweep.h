#pragma once
// A parameter sweep: the cross product of `sweep.vary` (KEY=V1,V2;KEY2=...) times the `schedule` list,
// planned and validated before anything runs, then run in parallel with results that do not depend on
// the thread count, and summarized by fitted log-log slopes (docs/sweeps.md).
//
// Usage:
//   SweepPlan plan = plan_sweep(config);                  // throws sim::ConfigError naming key and point
//   std::vector<std::optional<SweepRow>> rows(plan.jobs.size());
//   run_sweep_jobs(plan, rows, [](std::size_t job) { /* a row is ready: save it */ });
//   std::vector<SweepRow> done = ...;                     // every rows[j] is set now
//   for (const SlopeRow& s : sweep_slopes(plan, done)) std::cout << s.schedule << " " << s.fit->slope;
//
// Files (per-point results, resume, the final table) are analysis/sweep_store.h's business.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/run_metrics.h"
#include "analysis/slope_fit.h"
#include "sim/config.h"
#include "workloads/run_setup.h"

namespace spatialsim::analysis {

// One varied key with its values as written (`--vary model.depth=4,8`).
struct SweepAxis {
  std::string key;
  std::vector<std::string> values;
  bool numeric = false;         // every value is a finite decimal number, and the option is not a bool
  std::vector<double> numbers;  // the values as numbers, when numeric
};

// The origin sim::Config records for a value a sweep set for its point (as cli::kCommandLineOrigin is the
// command line's): the run options tell it from what a config file set (cli/run_options.h).
inline constexpr const char* kSweepOrigin = "sweep";

// One combination of the axes' values, with everything a run needs already resolved and validated.
struct SweepPoint {
  std::size_t index = 0;            // in the cross product, the first axis varying slowest
  std::vector<std::string> values;  // one per axis
  sim::Config config;               // the base configuration with the values set (kSweepOrigin)
  workloads::RunSetup setup;
  bool tokens_raised = false;  // step.tokens was raised so that G >= 2L (MODEL.md section 6)
};

// G >= 2L - 1: the step's G = ceil(step.tokens / step.wavefront) wavefronts fill the fully spatial
// pipeline of L layers, so the peak stash can reach the L^2 form (MODEL.md section 6; layer 0's stash
// lives 2L - 1 layer-latencies, so 2L - 1 wavefronts suffice, analysis::peak_stash_with_wavefronts);
// with fewer the peak is the fill and drain's. plan_sweep's rule raises step.tokens to 2L wavefronts.
bool pipeline_full(const workloads::RunSetup& setup);

// One run: a point under one schedule. Jobs are point-major: job = point * schedules + schedule.
struct SweepJob {
  std::size_t point = 0;
  std::string schedule;
  std::uint64_t config_hash = 0;  // job_config_hash(point config, schedule): identifies a stored result
};

struct SweepPlan {
  sim::Config base;  // as given, before any point's values
  std::vector<SweepAxis> axes;
  std::vector<std::string> schedules;
  std::vector<SweepPoint> points;
  std::vector<SweepJob> jobs;
  std::uint32_t threads = 0;               // sim.threads; 0 = all cores
  std::string point_name = "sweep point";  // how errors name a point ("sweep point 2 of 4 (...)")
};

// The measured figures of one job: run_metrics() plus inflight_byte_cycles_per_token.
struct SweepRow {
  std::vector<Metric> metrics;
  bool reused = false;  // read back from an earlier, interrupted or completed sweep (--resume)
};

// How the console names a job beside the sweep's table, by the table's 0-based point index:
// "point 1 (model.depth = 16), schedule backprop" (no parentheses when nothing is varied).
std::string job_label(const SweepPlan& plan, std::size_t job);

// Parses `sweep.vary`. Contract: every KEY is registered (sim::OptionTable) and present in `base`, is not
// a key that cannot change a result (out, schedule, sim.threads, sweep.*, ...), appears once and lists at
// least one value, without empty or repeated values (repeated as the option reads them: 2 and 02, true and
// yes, 2x2 and 2X2). Empty `sweep.vary` gives no axes (one point).
// Throws sim::ConfigError naming sweep.vary and the offending key.
std::vector<SweepAxis> parse_vary(const sim::Config& base);

// Parses the axes and the schedule list, builds every point and validates each one completely
// (workloads::setup_from_config and every schedule's options) before anything runs, so that a bad value
// fails up front with its point named. Applies the G >= 2L rule: when model.depth or model.widths is
// varied and step.tokens is neither set by the user nor varied, a point whose step has fewer than 2L
// wavefronts gets step.tokens = 2 * L * step.wavefront. `point_name` names a point in those errors
// ("sweep point 2 of 3 (model.depth=8): ..."): compare plans its depth-scaling runs as a sweep the user
// never wrote, and names them as its own.
SweepPlan plan_sweep(const sim::Config& base, std::string_view point_name = "sweep point");

// A stable 64-bit hash (FNV-1a) of every key but those that cannot change a result and cannot be varied
// (out, sweep.*, sim.threads, the checks and traces, machine.on_overflow, other commands' options), each
// value as its option reads it (064 is 64), together with the schedule. Equal hashes mean a stored result
// may be reused; the jobs of one sweep never share one.
std::uint64_t job_config_hash(const sim::Config& point_config, const std::string& schedule);

// A sweep row's metrics: run_metrics() with inflight_byte_cycles_per_token (T x steps tokens) inserted
// after inflight_byte_cycles. With a default RunResult and RunSetup it gives the schema (names, units,
// types) of every row.
std::vector<Metric> sweep_metrics(const workloads::RunResult& result, const workloads::RunSetup& setup);
std::vector<Metric> sweep_metric_schema();  // sweep_metrics of an empty run: the names, units and types

// Runs one job and returns its metrics. Thread-safe and deterministic. A count that passes 2^62 while the
// job runs is a sim::ConfigError naming the point and the schedule ("sweep point 2 of 2 (model.depth=68),
// schedule backprop: ...").
SweepRow run_sweep_job(const SweepPlan& plan, std::size_t job);

// Runs every job whose row is empty, in parallel (TBB, at most plan.threads workers; 0 = all cores), and
// stores each result at its job index. `on_finished(job)` is called after rows[job] was set, one call
// at a time (under a lock), so it may write files. Returns how many jobs ran.
// Contract: rows.size() == plan.jobs.size(); the results are the same whatever the thread count; an
// exception from a job or from on_finished stops the sweep and is rethrown, and rows already finished
// (and on_finished calls already made) stay.
using JobFinished = std::function<void(std::size_t job)>;
std::size_t run_sweep_jobs(const SweepPlan& plan, std::vector<std::optional<SweepRow>>& rows,
                           const JobFinished& on_finished);

// The metrics whose scaling a sweep reports.
inline constexpr const char* kSlopeMetrics[] = {"peak_stash_bytes", "inflight_byte_cycles_per_token"};

// One fitted slope: `metric` against the numeric key `key`, for `schedule`, with the other varied keys
// fixed at `at` ("" when only one key varies over several values).
struct SlopeRow {
  std::string schedule;
  std::string key;
  std::string at;  // "step.wavefront=8, mapping.block=2x2"
  std::string metric;
  std::optional<PowerLawFit> fit;
  std::string status;  // "fit", "no stash" (the metric is 0 at every point), "too few points"
  // peak_stash_bytes only: of the fitted points (metric > 0), how many have G < 2L (!pipeline_full), so
  // that the slope there is partly the fill and drain's, not the full pipeline's. 0 for other metrics.
  std::size_t not_full = 0;
};

// Log-log slopes of kSlopeMetrics against every numeric axis with at least two distinct values, per
// schedule and per combination of the other axes. Contract: rows[j] belongs to plan.jobs[j].
std::vector<SlopeRow> sweep_slopes(const SweepPlan& plan, const std::vector<SweepRow>& rows);

}  // namespace spatialsim::analysis
