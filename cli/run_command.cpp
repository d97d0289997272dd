// `spatialsim run` (also what `spatialsim` does with no command): simulates the configured model under
// each schedule listed in `schedule`, on the same setup, prints a table (analysis/results_table.h) and
// writes the results file `out` (analysis/results_writer.h, docs/hdf5.md).
//
//   spatialsim run --schedule=forward,backprop --model.depth=8 --out=depth8.h5
//
// Everything that can be wrong with the input is found before anything runs: the schedule names, options
// of schedules that are not selected, the setup, schedules that do not run on the model kind,
// machine.on_overflow and whether `out` can be written.
// Exit codes (cli/command.h): 0; 2 for bad input (one line from main); 3 when a tile exceeded
// machine.sram_bytes and machine.on_overflow = error (the results file is written all the same, with the
// overflows in it); 1 if the results file (or the Chrome trace) could not be written after the run.
// `--trace` adds /runs/<schedule>/trace to the results file; `--chrome-trace FILE` writes FILE.

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/check_export.h"
#include "analysis/chrome_trace.h"
#include "analysis/gradient_check.h"
#include "analysis/hdf5_file.h"
#include "analysis/results_table.h"
#include "analysis/results_writer.h"
#include "analysis/theory_side_by_side.h"
#include "analysis/trace_writer.h"
#include "cli/command.h"
#include "cli/command_line.h"
#include "cli/embedded_default_config.h"
#include "cli/overflow_policy.h"
#include "cli/run_options.h"
#include "sim/option_spec.h"
#include "workloads/model_spec.h"
#include "workloads/run_setup.h"
#include "workloads/schedules/i_schedule.h"
#include "workloads/schedules/schedule_list.h"
#include "workloads/schedules/schedule_models.h"
#include "workloads/training_run.h"

namespace spatialsim::cli {
namespace {

const sim::OptionRegistration options{
    {"check_tolerance", "1",
     "--check fails past this relative error; 0 = MODEL.md's bound for the arithmetic (1e-12 fp64, 1e-9 fp64 "
     "with model.kind=reversible, 1e-4 fp32)"},
};

// --check: per schedule and layer, the tiles' gradient (or outputs) against the dense reference.
// Returns whether every schedule is within the tolerance.
bool print_checks(std::ostream& out, const sim::Config& config, const workloads::RunSetup& setup,
                  const std::vector<workloads::RunResult>& results, double tolerance) {
  bool all_passed = true;
  // The reference starts from the initial weights, so only the first step is checked (docs/hdf5.md): a run
  // of several steps says so, or a later step's overflowed loss would sit under a "passed" that never saw it.
  out << "\ncheck ";
  if (setup.steps > 1) out << "of step 0 of steps 0.." << setup.steps - 1 << " ";
  out << "against the dense reference (max relative error, tolerance " << tolerance << "):\n";
  for (const auto& r : results) {
    const auto schedule = workloads::ScheduleRegistry::create(r.schedule, config);
    const analysis::GradientCheck c =
        schedule->forward_gradient() != nullptr
            ? analysis::check_forward_gradient(setup, r, *schedule->forward_gradient())
            : analysis::check_against_reference(setup, r);
    // Six digits, as the tolerance prints: 2.048e-07 "passed" beside a tolerance of 2.04761e-07 read wrong.
    for (const auto& l : c.layers) {
      out << "  " << std::left << std::setw(18) << r.schedule << std::setw(10) << l.what
          << (l.gradient ? " weights " : " values  ") << std::scientific << std::setprecision(5)
          << l.weight_error << "  bias ";
      if (l.bias_error) {
        out << *l.bias_error;
      } else {
        out << "-";  // no bias in this row: not a measured zero
      }
      out << std::defaultfloat << '\n';
    }
    if (c.drift) {  // reversible: reported, not corrected (docs/reversible.md)
      out << "  " << std::left << std::setw(18) << r.schedule << "reconstruction drift max |x_rec - x_fwd| "
          << std::scientific << std::setprecision(3) << c.drift->max_abs_error << " (relative "
          << c.drift->relative() << ")" << std::defaultfloat << '\n';
    }
    const bool passed = c.passed(tolerance);
    out << "  " << r.schedule << ": " << (passed ? "passed" : "FAILED") << '\n';
    // Why a reversible check can fail without a program error (docs/reversible.md). One block rebuilds
    // b_0 = b_1 - G(a_1) from its stored output, so a half that was exactly 0 comes back exactly 0 and no
    // relu slope flips there: the kink note needs two blocks or more.
    const bool relu = setup.model.activation == mappings::Activation::relu;
    if (!passed && c.drift && relu && setup.model.coupling_blocks() >= 2)
      out << "  note: with relu, a pre-activation of exactly 0 in the forward pass can come back as +-1e-17 "
             "from the reconstruction and take relu's other slope (docs/reversible.md, \"relu and exact "
             "zeros\"); tanh or gelu have no kink\n";
    if (!passed && c.drift)  // relu too: its drift grows through the blocks as well
      out << "  note: the backward pass runs on reconstructed values, whose rounding grows through the "
             "blocks with the weights' size (model.init_gain) and again in the gradients, so the errors can "
             "pass the drift shown (docs/reversible.md, \"Reconstruction drift\")\n";
    all_passed = all_passed && passed;
  }
  return all_passed;
}

// The selected schedules, in the order given. Each must be registered, once, and run on the model (a
// schedule the model cannot run is named before its options are read: revolve.slots above a reversible
// model's count was refused first). Each then reads and checks its options, before any run.
std::vector<std::string> selected_schedules(const sim::Config& config) {
  const auto names = workloads::schedules_from_config(config);
  const workloads::ModelSpec model = workloads::model_from_config(config);
  for (const auto& n : names) workloads::require_schedule_runs_on(model, n);
  for (const auto& n : names) workloads::ScheduleRegistry::create(n, config);
  return names;
}

// Options this run ignores with these values (cli/run_options.h): refused, because silently ignoring one
// would report a run the user did not ask for.
void reject_options_this_run_ignores(const sim::Config& config, const std::vector<std::string>& selected) {
  for (const auto& key : config.keys()) {
    if (const auto ignored = why_a_run_ignores(config, selected, key))
      refuse_ignored_option(config, key, *ignored);
  }
}

class RunCommand final : public Command {
 public:
  bool reads(const std::string& key) const override { return workloads::run_reads(key); }
  int execute(const sim::Config& config) override {
    const auto schedules = selected_schedules(config);
    reject_options_this_run_ignores(config, schedules);
    const workloads::RunSetup setup = workloads::setup_from_config(config);
    const OverflowPolicy overflow_policy(config);
    const std::string out = config.get_string("out");
    try {
      analysis::check_output_path(out, "out");
    } catch (const analysis::OutputError& e) {
      config.fail("out", e.problem());  // bad input: one line with the value's origin, exit code 2
    }
    const bool check = config.get_bool("check");
    const bool export_check = config.get_bool("export_check");
    if ((check || export_check) && setup.arithmetic == workloads::Arithmetic::none)
      config.fail(check ? "check" : "export_check", "needs real arithmetic; set sim.arith=fp32 or fp64");
    double tolerance = config.get_nonnegative_double("check_tolerance");
    if (tolerance == 0) tolerance = analysis::default_tolerance(setup);
    // Tracing (docs/traces-and-plots.md): recorders only when a trace is asked for.
    const bool trace = config.get_bool("trace");
    const std::string chrome_trace = config.get_string("chrome_trace");
    if (!chrome_trace.empty()) {
      try {
        analysis::check_output_path(chrome_trace, "chrome_trace", "trace.json");
      } catch (const analysis::OutputError& e) {
        config.fail("chrome_trace", e.problem());
      }
    }
    const analysis::RunTraces traces(schedules.size(), trace || !chrome_trace.empty());
    const bool side_by_side = config.get_bool("theory_side_by_side");  // closed forms beside the counters

    const std::vector<workloads::RunResult> results =
        workloads::run_schedules(setup, config, schedules, traces.observers(),
                                 /*for_checks=*/check || export_check);

    // Every schedule is also reported as ratios to forward-only (MODEL.md section 3). Without forward in
    // `schedule`, a forward run in counting mode (the same counts, no values: docs/model.md) is the baseline.
    std::optional<workloads::RunResult> baseline;
    const workloads::RunResult* forward = analysis::find_run(results, "forward");
    if (forward == nullptr) {
      workloads::RunSetup counting = setup;
      counting.arithmetic = workloads::Arithmetic::none;
      baseline = workloads::run_schedules(counting, config, {"forward"}, {}, /*for_checks=*/false).front();
      forward = &*baseline;
    }

    analysis::write_setup_header(std::cout, setup);
    analysis::write_settings_line(std::cout, config);
    if (baseline) std::cout << "ratios  to forward, counted for them alone (schedule has no forward)\n";
    std::cout << '\n';
    analysis::write_results_table(std::cout, results, forward, setup.prices);
    for (const auto& r : results) {
      if (r.loss_per_step.size() < 2) continue;  // one step: the table's final_loss says it all
      std::cout << "\nloss per step, " << r.schedule << ":";
      for (double l : r.loss_per_step) {
        std::cout << ' ';
        if (std::isnan(l))
          std::cout << "nan";  // not the "-nan" the stream spells a NaN with its sign bit set
        else
          std::cout << l;
      }
      std::cout << '\n';
    }
    analysis::write_loss_notes(std::cout, results, setup);
    if (side_by_side) analysis::write_theory_side_by_side(std::cout, config, setup, results);
    const bool checks_passed = !check || print_checks(std::cout, config, setup, results, tolerance);
    std::cout.flush();

    try {
      analysis::Hdf5File file(out);
      analysis::write_results(file, config, setup, results, forward, kProgramVersion);
      if (export_check)
        for (const auto& r : results) {
          analysis::write_check_export(file, setup, r);
          const auto schedule = workloads::ScheduleRegistry::create(r.schedule, config);
          if (schedule->forward_gradient() != nullptr)
            analysis::write_tangent_export(file, setup, r, *schedule->forward_gradient());
        }
      for (std::size_t k = 0; trace && k < results.size(); ++k)  // tracing
        analysis::write_trace(file, analysis::run_group(results[k].schedule), traces.data(k));
      file.commit();
      if (!chrome_trace.empty()) {  // tracing
        std::vector<analysis::ScheduleTrace> runs;
        for (std::size_t k = 0; k < results.size(); ++k)
          runs.push_back({results[k].schedule, &traces.data(k)});
        analysis::write_chrome_trace(chrome_trace, runs);
      }
    } catch (const analysis::OutputError& e) {
      std::cerr << error_line(e.what()) << '\n';
      return kExitCheckFailed;
    }

    if (!checks_passed) {
      std::cerr << error_line(
                       "check failed: a checked value (the gradients; forward's outputs, the "
                       "forward-gradient trunk's d_k) differs from the dense reference by more than " +
                       [&] {
                         std::ostringstream t;
                         t << tolerance;
                         return t.str();
                       }() +
                       " (relative), or is not a number; see the check table above")
                << '\n';
      return kExitCheckFailed;
    }
    return overflow_policy.finish(results, setup.timing.sram_bytes_per_tile, out);
  }
};

const CommandRegistry::Registration registration{
    "run", "simulate the configured model under each schedule in `schedule`; print a table and write `out`",
    [](const sim::Config&) { return std::make_unique<RunCommand>(); }};

}  // namespace
}  // namespace spatialsim::cli
