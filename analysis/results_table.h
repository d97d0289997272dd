#pragma once
// The console view of a run: a few header lines describing the model and the machine, then one row per
// main metric and one column per schedule, with each schedule's ratios to forward-only (MODEL.md
// section 3).
// The rows are names of run_metrics() (analysis/run_metrics.h), the one schema of measured figures: the
// table knows no metric by itself, it only picks and formats.
//
// Usage:
//   write_setup_header(std::cout, setup);
//   write_results_table(std::cout, results, find_run(results, "forward"), setup.prices);
//   format_number(1234567.0) == "1.235e6";  format_number(std::uint64_t{999999}) == "999999"

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "sim/config.h"
#include "sim/energy_prices.h"
#include "workloads/run_setup.h"
#include "workloads/training_run.h"

namespace spatialsim::analysis {

// The metrics shown by default, in order: byte_hops in total, by phase and by kind; in-flight storage;
// depth and makespan; flops and SRAM bytes; energy in total and by term; events, overflowed tiles, wall
// time and the final loss. The (phase, kind) cells and the remaining figures are in the HDF5 file.
const std::vector<std::string>& default_table_rows();

// Integers below 1e6 exactly; larger ones as 4 significant digits, "1.235e6".
std::string format_number(std::uint64_t value);
// NaN as "-" (the table prints "nan" for a NaN measured by a run that computed values); |v| in [1e-3, 1e6)
// with up to 6 significant digits ("0.125", "1234.5"); otherwise "1.235e6" / "2.5e-4".
std::string format_number(double value);

// A loss a run with values measured: as format_number, but a NaN is "nan" (the values overflowed), not the
// "-" of counting mode, which has no loss.
std::string format_loss(double measured);
// ratio_to_forward with up to 4 significant digits ("2.8", "1", "0.3333"); "-" when it is not defined.
std::string format_ratio(double numerator, double denominator);

// "model", "grid", "step", "arith" and "energy" lines: widths, grid WxH and topology, block and
// placement, tokens and wavefronts, arithmetic and seed, energy preset and the prices used.
void write_setup_header(std::ostream& out, const workloads::RunSetup& setup);
// The "set" line: what changed the defaults, so that a printed table says what made it: each config
// file with how many of its options are in effect (0 when the command line overrode them all), then every
// option set elsewhere (the command line) with its value.
void write_settings_line(std::ostream& out, const sim::Config& config);

// The result of `schedule` among `results`, or nullptr.
const workloads::RunResult* find_run(const std::vector<workloads::RunResult>& results,
                                     const std::string& schedule);

// Contract: one column per result in the order given and, when `forward` (a forward-only run on the same
// setup: one of `results`, or a baseline run for the ratios alone) is given, one `<schedule>/forward`
// column for every other result. A NaN value is "-" from a run that computed no values (counting mode's
// final_loss) and "nan" from one that did. A ratio whose forward value is 0 or not a number, or of a figure
// that is not a machine cost (Metric::machine_cost: the loss, wall time, event rate), prints "-". A row whose
// metric is not in run_metrics() is skipped (a renamed metric must not break the console). Columns are
// right-aligned; the output ends with a newline.
void write_results_table(std::ostream& out, const std::vector<workloads::RunResult>& results,
                         const workloads::RunResult* forward, const sim::EnergyPrices& prices,
                         const std::vector<std::string>& rows = default_table_rows());

// One "note:" line per result whose loss stops being finite (a NaN or an infinity: the values overflowed
// the setup's arithmetic), naming the first such step and the options that keep the values finite (at
// step 1, before any update, the initial weights' gain and the mixture task's spread). Training that
// diverges is a result, not an error: its counts stand. Nothing for results whose losses are all finite,
// or that have none (counting mode).
void write_loss_notes(std::ostream& out, const std::vector<workloads::RunResult>& results,
                      const workloads::RunSetup& setup);

// The options that keep a run's values finite when its loss is not finite from `first_step` (counted from
// 0) on, as "a smaller ...": before the first update (step 0, or a one-step run) the initial weights' gain
// and the mixture task's spread, later the learning rate too. No step when only the last loss is known (a
// sweep's).
std::string finite_values_fix(const workloads::RunSetup& setup, std::optional<std::size_t> first_step);

}  // namespace spatialsim::analysis
