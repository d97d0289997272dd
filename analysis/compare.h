#pragma once
// `spatialsim compare`: every applicable schedule on the same workload, one table, and seed 000's test
// of each schedule (MODEL.md section 7): does it bring the in-flight term from L^2 to L without raising
// byte-hops by more than the +33% that reversibility costs in arithmetic? docs/store-vs-recompute.md
// explains the thresholds and the baseline.
//
// Usage:
// clang-format off
//   auto names = applicable_schedules(setup.model, config);  // forward first, then the registry's that fit
//   write_results_table(std::cout, results, find_run(results, "forward"), setup.prices, compare_table_rows());
//   std::vector<InflightScaling> s = {fit_inflight_scaling("backprop", {4, 8}, {96, 384})};  // slope 2
//   ByteHopsBaseline b = byte_hops_baseline(results);         // backprop's, or 2 x forward's
//   std::vector<Verdict> v = judge_schedules(results, s, b);
//   write_verdicts(std::cout, s, v, b);
// clang-format on
//
// Contract: the functions here are pure (no run, no file); the command runs the schedules and the
// scaling points and hands the results in.

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "analysis/hdf5_file.h"
#include "analysis/slope_fit.h"
#include "workloads/model_spec.h"
#include "workloads/training_run.h"

namespace spatialsim::analysis {

// Seed 000's test, made numeric. L^2 vs L is slope 2 vs 1 on log-log axes; the nearest schedule that does
// not meet it is uniform checkpointing with s = sqrt(L), whose L^2/s + s L grows as L^1.5. 1.25 is the
// midpoint between "L" and that L^1.5, leaving room for the fill and drain offsets of small L.
inline constexpr double kInflightSlopeThreshold = 1.25;
// "Without raising byte-hops by more than +33%": at most 4/3 of the baseline's byte-hops.
inline constexpr double kByteHopsAllowance = 4.0 / 3.0;

// The registered schedules that run on the model's kind, forward first, then registry order
// (workloads::require_schedule_runs_on decides).
std::vector<std::string> applicable_schedules(const workloads::ModelSpec& model);
// The same, less the schedules whose own defaults do not fit the configured model (split-fg on one layer):
// those are not applicable, and each is added to `left_out` (when given) as "name, which this model cannot
// run (why)" when the model's size is the reason, or "name, whose default <key> does not fit this model
// (why); set <key> to compare it" when one of the schedule's own options at its default is. A schedule
// option the user set that does not fit is still an error (rethrown).
std::vector<std::string> applicable_schedules(const workloads::ModelSpec& model, const sim::Config& config,
                                              std::vector<std::string>* left_out = nullptr);

// The rows compare prints (names of run_metrics()): byte-hops by phase (forward, backward, recompute) and in
// total, in-flight byte-cycles, peak stash in total and per tile, depth, flops and energy by term.
const std::vector<std::string>& compare_table_rows();

// The in-flight storage of one schedule measured at several depths (same everything else).
struct InflightScaling {
  std::string schedule;
  std::vector<double> layers;              // L of each point
  std::vector<double> inflight_per_token;  // inflight_byte_cycles / tokens run, at each point
  std::optional<PowerLawFit> fit;          // nullopt: no stash (forward) or fewer than two depths
};
InflightScaling fit_inflight_scaling(std::string schedule, std::vector<double> layers,
                                     std::vector<double> inflight_per_token);

// What a candidate's byte-hops are held against. Seed 000 asks a schedule to replace backprop, so the
// baseline is backprop's total byte-hops on the same workload. When backprop does not run on the model
// (model.kind = reversible) it is 2 x forward's: backprop's backward pass is its forward pass with the
// flow reversed (MODEL.md section 4), so it moves the same bytes again, less the first layer's dX.
struct ByteHopsBaseline {
  std::string name;  // "backprop", "2 x forward", or "" when neither ran
  double byte_hops = 0;
};
ByteHopsBaseline byte_hops_baseline(const std::vector<workloads::RunResult>& results);

enum class TestOutcome { meets, fails, not_applicable };
std::string_view name(TestOutcome outcome);

struct Verdict {
  std::string schedule;
  std::optional<double> inflight_slope;  // nullopt: not measured (no stash at two depths, or no scaling runs)
  double byte_hops_ratio = 0;            // byte_hops / baseline; NaN without a baseline
  TestOutcome outcome = TestOutcome::not_applicable;
  std::string reason;  // one short phrase: why it meets, fails, or is not judged
};

// Contract: one verdict per result, in order. A schedule without a backward pass (forward) is not
// applicable; a schedule whose baseline is missing, or whose slope is missing while it stashes at some
// depth, is not applicable, with the reason. Otherwise it meets the test when its in-flight storage is ~L
// (slope <= kInflightSlopeThreshold, or no stash at any measured depth: forward-gradient) and byte_hops <=
// kByteHopsAllowance x baseline. In-flight storage is inflight_byte_cycles, the `stash` category only
// (MODEL.md section 3): a schedule's `tangent` and `transit` storage is not judged.
std::vector<Verdict> judge_schedules(const std::vector<workloads::RunResult>& results,
                                     const std::vector<InflightScaling>& scaling,
                                     const ByteHopsBaseline& baseline);

// The scaling points and the verdicts, as a console table ending with a newline.
void write_verdicts(std::ostream& out, const std::vector<InflightScaling>& scaling,
                    const std::vector<Verdict>& verdicts, const ByteHopsBaseline& baseline);

// `/compare`: attributes inflight_slope_threshold, byte_hops_allowance, baseline, baseline_byte_hops; per
// schedule `/compare/<schedule>` with attributes outcome, reason, byte_hops_ratio, inflight_slope (NaN when
// not measured) and the datasets `layers` and `inflight_byte_cycles_per_token` of its scaling points.
void write_compare(Hdf5File& file, const std::vector<InflightScaling>& scaling,
                   const std::vector<Verdict>& verdicts, const ByteHopsBaseline& baseline);

}  // namespace spatialsim::analysis
