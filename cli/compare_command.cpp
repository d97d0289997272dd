// `spatialsim compare`: runs the configured workload under every registered schedule that runs on the
// model kind, prints one table (byte-hops by phase, in-flight storage, depth, flops, energy by term, each
// also as a ratio to forward), measures how each schedule's in-flight storage scales with depth by
// running it again at the depths model.depth x compare.depth_factors, and marks the schedules that meet
// seed 000's test (analysis/compare.h, docs/store-vs-recompute.md). Writes `out` with the run layout of
// `spatialsim run` (/runs) plus /compare (slopes and verdicts).
//
//   spatialsim compare --sim.arith=none --model.depth=8 --out compare.h5
//   spatialsim compare --model.kind=reversible --sim.arith=none --compare.depth_factors=1,2,4
//
// The `schedule` key is not read: compare takes every applicable schedule from the registry.
// Exit codes (cli/command.h): 0; 2 for bad input, found before anything runs; 1 if `out` could not be
// written after the runs; 3 when a tile exceeded machine.sram_bytes, in the table's runs or in the
// depth-scaling runs, and machine.on_overflow = error.

#include <algorithm>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analysis/compare.h"
#include "analysis/hdf5_file.h"
#include "analysis/results_table.h"
#include "analysis/results_writer.h"
#include "analysis/sweep.h"
#include "analysis/theory_side_by_side.h"
#include "cli/command.h"
#include "cli/command_line.h"
#include "cli/embedded_default_config.h"
#include "cli/overflow_policy.h"
#include "cli/run_options.h"
#include "sim/option_spec.h"
#include "sim/text.h"
#include "workloads/model_spec.h"
#include "workloads/run_setup.h"
#include "workloads/schedules/i_schedule.h"
#include "workloads/schedules/schedule_options.h"
#include "workloads/training_run.h"

namespace spatialsim::cli {
namespace {

const sim::OptionRegistration options{
    {"compare.depth_factors", "list",
     "compare: the in-flight scaling runs every schedule again at model.depth times each factor (1,2 = L "
     "and 2L); 1 alone skips the scaling test (another single factor is refused)"},
    {"theory_side_by_side", "bool",
     "run and compare: also print forward's and backprop's byte-hops by kind, peak stash, in-flight "
     "byte-cycles and depth beside the closed forms, the difference split by cause (docs/theory.md)"},
};

// The scaling runs as a sweep over model.depth, so that they follow the sweep's G >= 2L rule (step.tokens
// raised unless the user set it) and its validation. Returns an empty plan when there is one factor.
std::optional<analysis::SweepPlan> plan_scaling(const sim::Config& config,
                                                const std::vector<std::string>& schedules) {
  const std::vector<std::uint64_t> factors = config.get_positive_list("compare.depth_factors");
  // An empty list skipped the test as 1 does, without a word: 1 is the one way to say so.
  if (factors.empty())
    config.fail("compare.depth_factors",
                "lists no factor; give two or more (such as 1,2,4), or 1 to skip the "
                "scaling test");
  // A factor given twice would run one depth twice; the sweep would refuse the repeated depth, but naming
  // its sweep.vary, which the user never set.
  for (auto f = factors.begin(); f != factors.end(); ++f)
    if (std::find(factors.begin(), f, *f) != f)
      config.fail("compare.depth_factors",
                  "lists the factor " + std::to_string(*f) +
                      " twice, which would run one depth twice; list each factor once");
  // One factor other than 1 would be one more depth and no slope: it used to be dropped without a word.
  if (factors.size() == 1 && factors[0] != 1)
    config.fail("compare.depth_factors",
                "gives one depth, and the scaling test needs at least two; give 1 to skip the test, or two "
                "or more factors such as 1," +
                    std::to_string(factors[0]));
  if (factors.size() < 2) return std::nullopt;
  if (workloads::widths_given(config))
    config.fail("compare.depth_factors",
                "the scaling runs multiply model.depth, which model.widths leaves unset; use "
                "model.inputs/width/depth/outputs, or set compare.depth_factors=1 to skip the scaling test");
  const std::uint64_t depth = config.get_positive("model.depth");
  std::string values;
  for (std::uint64_t f : factors) {
    // Each depth must be one the model accepts: a product that wraps ran a small depth without a word (L =
    // 8 for a factor of 2^62 + 2), and a refused one was blamed on model.depth "from sweep".
    const std::string scaled =
        f > std::numeric_limits<std::uint64_t>::max() / depth ? std::string() : std::to_string(depth * f);
    std::string refused;
    if (scaled.empty()) {
      refused = "passes 2^64";
    } else {
      sim::Config probe = config;
      probe.set("model.depth", scaled, "compare.depth_factors");
      try {
        workloads::model_from_config(probe);
      } catch (const sim::ConfigError& e) {
        refused = "is refused (" + std::string(e.what()) + ")";
      }
    }
    if (!refused.empty())
      config.fail("compare.depth_factors", "the factor " + std::to_string(f) + " makes the scaling runs' " +
                                               "model.depth " + std::to_string(depth) + " x " +
                                               std::to_string(f) + ", which " + refused +
                                               "; give smaller factors");
    if (!values.empty()) values += ',';
    values += scaled;
  }
  sim::Config base = config;
  base.set("sweep.vary", "model.depth=" + values, "compare (compare.depth_factors)");
  base.set("schedule", sim::joined(schedules, ","), "compare (every applicable schedule)");
  return analysis::plan_sweep(base, "depth-scaling run (compare.depth_factors)");
}

// What the depth-scaling runs give: each schedule's in-flight scaling, and the runs that overflowed a tile.
struct ScalingOutcome {
  std::vector<analysis::InflightScaling> scaling;
  std::vector<std::string> overflowed;  // cli::overflowed_points
};

ScalingOutcome run_scaling(const analysis::SweepPlan& plan) {
  std::vector<std::optional<analysis::SweepRow>> finished(plan.jobs.size());
  try {
    analysis::run_sweep_jobs(plan, finished, {});
  } catch (const sim::ConfigError& e) {  // a count past 2^62 at a scaled depth: the factors are a lever too
    throw sim::ConfigError(e.key(), std::string(e.what()) + "; or give smaller compare.depth_factors");
  }
  std::vector<analysis::SweepRow> rows;
  for (auto& row : finished) rows.push_back(std::move(*row));
  ScalingOutcome out;
  for (const auto& schedule : plan.schedules) {
    std::vector<double> depth;
    std::vector<double> per_token;
    for (std::size_t j = 0; j < plan.jobs.size(); ++j) {
      if (plan.jobs[j].schedule != schedule) continue;
      depth.push_back(plan.axes.front().numbers.at(plan.jobs[j].point));
      per_token.push_back(
          analysis::find_metric(rows[j].metrics, "inflight_byte_cycles_per_token").as_double());
    }
    out.scaling.push_back(analysis::fit_inflight_scaling(schedule, std::move(depth), std::move(per_token)));
  }
  out.overflowed = overflowed_points(plan, rows);
  return out;
}

// The scaling runs fill the pipeline (G >= 2L - 1 wavefronts) unless step.tokens is set. With compute or
// link time, per-token in-flight then depends on G, and a slope between depths of unequal fill need not
// show L's (revolve's slope fell from 1.70 to 1.04 at the default tokens given explicitly): say so.
void note_unfilled_pipelines(std::ostream& out, const analysis::SweepPlan& plan,
                             const workloads::RunSetup& setup) {
  std::string depths;
  bool by_stages = false;
  for (const auto& p : plan.points) {
    if (analysis::pipeline_full(p.setup)) continue;
    // L as the scaling table prints it: model.depth. A reversible model's pipeline has more stages than
    // coupling blocks, and the wavefronts are held against the stages.
    depths += (depths.empty() ? "" : ", ") + p.values.front();
    if (const std::string stages = std::to_string(p.setup.model.layers()); stages != p.values.front()) {
      depths += " (" + stages + " stages)";
      by_stages = true;
    }
  }
  if (depths.empty()) return;
  const bool timed = setup.timing.flops_per_cycle != 0 || setup.timing.link_bytes_per_cycle != 0;
  out << "  note: the pipeline is not full at L = " << depths
      << (by_stages ? " (fewer than 2S - 1 wavefronts for S stages" : " (fewer than 2L - 1 wavefronts")
      << ": step.tokens is set, so compare does not raise it)"
      << (timed ? "; with compute or link time per-token in-flight then depends on the wavefront count, and "
                  "the slopes need not show L's: leave step.tokens unset, or give at least " +
                      std::string(by_stages ? "2 S" : "2 L") + " step.wavefront"
                : std::string())
      << '\n';
}

// Options compare's runs would ignore (cli/run_options.h): a schedule's options when that schedule does not
// run on this model kind or is left out (`left_out`: "<schedule>, which ..." or "<schedule>, whose ..."),
// and the options that apply only with another option's value.
void reject_options_compare_ignores(const sim::Config& config, const std::vector<std::string>& schedules,
                                    const std::vector<std::string>& left_out) {
  const std::string runs = sim::joined(schedules);
  for (const auto& key : config.keys()) {
    const auto ignored = why_a_run_ignores(config, schedules, key);
    if (!ignored) continue;
    const auto dot = key.find('.');
    const std::vector<std::string> owners = dot == std::string::npos
                                                ? std::vector<std::string>{}
                                                : workloads::owners_of_section(key.substr(0, dot));
    // Only when no schedule that runs reads it: else the run ignores it for another reason (counting mode).
    const bool an_owner_runs = std::any_of(owners.begin(), owners.end(), [&](const std::string& owner) {
      return std::find(schedules.begin(), schedules.end(), owner) != schedules.end();
    });
    for (const auto& owner : owners)
      for (const auto& why : left_out)
        if (!an_owner_runs && why.starts_with(owner + ", "))
          config.fail(key, "is an option of " + why + "; remove it");
    if (!owners.empty() && !an_owner_runs)
      config.fail(key, "is an option of a schedule that does not run on this model (compare runs " + runs +
                           "); remove it");
    refuse_ignored_option(config, key, *ignored);
  }
}

class CompareCommand final : public Command {
 public:
  // Not `schedule` (every applicable schedule runs), nor run's checks and traces, nor other commands' keys
  // (theory.* too: the side by side uses none of them).
  bool reads(const std::string& key) const override {
    return key != "schedule" && !is_run_only(key) &&
           !in_any_section(key, {"sweep", "kernel", "crossover", "theory"});
  }
  int execute(const sim::Config& config) override {
    const workloads::RunSetup setup = workloads::setup_from_config(config);
    std::vector<std::string> left_out;  // said, not dropped without a word (revolve's slots on 1 layer)
    const std::vector<std::string> schedules = analysis::applicable_schedules(setup.model, config, &left_out);
    reject_options_compare_ignores(config, schedules, left_out);
    for (const auto& s : schedules) workloads::ScheduleRegistry::create(s, config);  // options, up front
    const std::optional<analysis::SweepPlan> scaling_plan = plan_scaling(config, schedules);
    const bool side_by_side = config.get_bool("theory_side_by_side");
    const OverflowPolicy overflow_policy(config);
    const std::string out = config.get_string("out");
    try {
      analysis::check_output_path(out, "out");
    } catch (const analysis::OutputError& e) {
      config.fail("out", e.problem());  // bad input: exit 2, with the value's origin
    }

    const std::vector<workloads::RunResult> results =
        workloads::run_schedules(setup, config, schedules, {}, /*for_checks=*/false);
    const ScalingOutcome scaling_runs = scaling_plan ? run_scaling(*scaling_plan) : ScalingOutcome{};
    const std::vector<analysis::InflightScaling>& scaling = scaling_runs.scaling;
    const analysis::ByteHopsBaseline baseline = analysis::byte_hops_baseline(results);
    const std::vector<analysis::Verdict> verdicts = analysis::judge_schedules(results, scaling, baseline);

    analysis::write_setup_header(std::cout, setup);
    analysis::write_settings_line(std::cout, config);
    std::cout << "compare: every schedule that runs on model.kind = " << workloads::name(setup.model.kind)
              << ": " << sim::joined(schedules) << "\n";
    for (const auto& why : left_out) std::cout << "compare: left out: " << why << '\n';
    std::cout << '\n';
    analysis::write_results_table(std::cout, results, analysis::find_run(results, "forward"), setup.prices,
                                  analysis::compare_table_rows());
    analysis::write_loss_notes(std::cout, results, setup);
    std::cout << '\n';
    analysis::write_verdicts(std::cout, scaling, verdicts, baseline);
    if (scaling_plan) note_unfilled_pipelines(std::cout, *scaling_plan, setup);
    if (side_by_side) analysis::write_theory_side_by_side(std::cout, config, setup, results);
    std::cout.flush();

    try {
      analysis::Hdf5File file(out);
      // config.schedule as run: compare does not read `schedule`, so the root attribute names the
      // schedules it took from the registry (the same list as /runs/schedules), not the default's.
      sim::Config recorded = config;
      recorded.set("schedule", sim::joined(schedules, ","), "compare (every applicable schedule)");
      analysis::write_results(file, recorded, setup, results, analysis::find_run(results, "forward"),
                              kProgramVersion);
      analysis::write_compare(file, scaling, verdicts, baseline);
      file.commit();
    } catch (const analysis::OutputError& e) {
      std::cerr << error_line(e.what()) << '\n';
      return kExitCheckFailed;
    }
    return overflow_policy.finish_compare(results, setup.timing.sram_bytes_per_tile, out,
                                          scaling_runs.overflowed);
  }
};

const CommandRegistry::Registration registration{
    "compare",
    "run every schedule that fits the model on the same workload; one table with ratios to forward, the "
    "in-flight scaling with depth and seed 000's test per schedule",
    [](const sim::Config&) { return std::make_unique<CompareCommand>(); }};

}  // namespace
}  // namespace spatialsim::cli
