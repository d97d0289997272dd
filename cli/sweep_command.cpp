// `spatialsim sweep`: runs every combination of the --vary values under every --schedule, in parallel,
// prints one row per (point, schedule) and the fitted log-log slopes, and writes them all to --out
// (docs/sweeps.md).
//
//   spatialsim sweep --vary model.depth=4,8,16,32,64 --schedule forward,backprop --sim.arith=none
//
// Exit codes (cli/command.h): 0; 2 for bad input (an unknown or unsettable sweep key, a key both set and
// varied, a value that does not parse or does not fit at some point, an unwritable --out, --sweep.resume on
// an --out holding results of another sweep), found before any point runs and before any file is created; 3
// when a point's run exceeded machine.sram_bytes and machine.on_overflow = error (the file is written all the
// same: column storage_overflow_tiles).

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analysis/output_guard.h"
#include "analysis/results_table.h"
#include "analysis/sweep.h"
#include "analysis/sweep_store.h"
#include "cli/command.h"
#include "cli/command_line.h"
#include "cli/embedded_default_config.h"
#include "cli/overflow_policy.h"
#include "cli/run_options.h"
#include "sim/option_spec.h"
#include "sim/text.h"
#include "workloads/run_setup.h"
#include "workloads/schedules/i_schedule.h"

namespace spatialsim::cli {
namespace {

const sim::OptionRegistration options{
    {"sweep.resume", "bool", "skip the sweep points already present in the output file"},
};

// The columns of the console table besides the point's values; the file has every metric.
constexpr const char* kShownMetrics[] = {"byte_hops", "peak_stash_bytes", "inflight_byte_cycles_per_token",
                                         "depth",     "makespan_cycles",  "energy_pj"};

std::string number_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string metric_text(const analysis::Metric& m) {
  return std::holds_alternative<std::uint64_t>(m.value) ? m.text() : number_text(m.as_double());
}

void print_aligned(std::ostream& out, const std::vector<std::vector<std::string>>& cells) {
  std::vector<std::size_t> width;
  for (const auto& row : cells) {
    width.resize(std::max(width.size(), row.size()));
    for (std::size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  }
  for (const auto& row : cells) {
    std::string line;
    for (std::size_t c = 0; c < row.size(); ++c) {
      std::string cell = row[c];
      if (c + 1 < row.size()) cell.resize(width[c] + 2, ' ');
      line += cell;
    }
    out << line << '\n';
  }
}

void print_points(std::ostream& out, const analysis::SweepPlan& plan,
                  const std::vector<analysis::SweepRow>& rows) {
  std::vector<std::vector<std::string>> cells;
  std::vector<std::string> head = {"point", "schedule"};
  for (const auto& a : plan.axes) head.push_back(a.key);
  head.push_back("tokens");
  head.emplace_back("pipeline_full");  // G >= 2L - 1 (analysis::pipeline_full)
  for (const char* m : kShownMetrics) head.emplace_back(m);
  // Only a sweep with values has a loss to show (the file has the column either way).
  const bool any_values = std::any_of(plan.points.begin(), plan.points.end(), [](const auto& p) {
    return p.setup.arithmetic != workloads::Arithmetic::none;
  });
  if (any_values) head.emplace_back("final_loss");
  cells.push_back(head);
  for (std::size_t j = 0; j < plan.jobs.size(); ++j) {
    const analysis::SweepPoint& p = plan.points[plan.jobs[j].point];
    std::vector<std::string> row = {std::to_string(p.index), plan.jobs[j].schedule};
    for (const auto& v : p.values) row.push_back(v);
    row.push_back(std::to_string(p.setup.tokens) + (p.tokens_raised ? "*" : ""));
    row.emplace_back(analysis::pipeline_full(p.setup) ? "yes" : "no");
    for (const char* m : kShownMetrics) row.push_back(metric_text(analysis::find_metric(rows[j].metrics, m)));
    if (any_values)  // "-" where a point counts only, "nan" where its values overflowed
      row.push_back(
          p.setup.arithmetic == workloads::Arithmetic::none
              ? "-"
              : analysis::format_loss(analysis::find_metric(rows[j].metrics, "final_loss").as_double()));
    cells.push_back(row);
  }
  print_aligned(out, cells);
  bool raised = false;
  for (const auto& p : plan.points) raised = raised || p.tokens_raised;
  if (raised) out << "* step.tokens raised to 2 * L * step.wavefront so that G >= 2L (MODEL.md section 6)\n";
}

// Training that diverges is a result, not an error (as in `run`, analysis::write_loss_notes): one note per
// job with values whose final loss is not finite. A sweep keeps only the last loss, so the step it stopped
// at is unknown, unless the schedule does not train: its loss is step 0's at every step.
void note_losses_not_finite(std::ostream& out, const analysis::SweepPlan& plan,
                            const std::vector<analysis::SweepRow>& rows) {
  for (std::size_t j = 0; j < plan.jobs.size(); ++j) {
    const analysis::SweepPoint& point = plan.points[plan.jobs[j].point];
    const workloads::RunSetup& setup = point.setup;
    const double loss = analysis::find_metric(rows[j].metrics, "final_loss").as_double();
    if (setup.arithmetic == workloads::Arithmetic::none || std::isfinite(loss)) continue;
    const bool trains = workloads::ScheduleRegistry::create(plan.jobs[j].schedule, point.config)->trains();
    out << "note: " << analysis::job_label(plan, j) << ": the final loss is not finite ("
        << analysis::format_loss(loss) << "): its " << workloads::name(setup.arithmetic)
        << " values overflowed; "
        << analysis::finite_values_fix(setup, trains ? std::nullopt : std::optional<std::size_t>{0})
        << " keeps them finite\n";
  }
}

void print_slopes(std::ostream& out, const std::vector<analysis::SlopeRow>& slopes) {
  out << '\n';
  if (slopes.empty()) {
    out << "slopes: not applicable (no numeric key varies over two or more values)\n";
    return;
  }
  bool any_at = false;
  bool any_not_full = false;
  for (const auto& s : slopes) {
    any_at = any_at || !s.at.empty();
    any_not_full = any_not_full || s.not_full > 0;
  }
  out << "log-log slopes (least squares over the points where the key and the metric are > 0):\n";
  std::vector<std::vector<std::string>> cells;
  std::vector<std::string> head = {"schedule", "key"};
  if (any_at) head.emplace_back("at");
  for (const std::string h : {"metric", "slope", "points"}) head.push_back(h);
  if (any_not_full) head.emplace_back("note");
  cells.push_back(head);
  for (const auto& s : slopes) {
    std::vector<std::string> row = {s.schedule, s.key};
    if (any_at) row.push_back(s.at);
    row.push_back(s.metric);
    if (s.fit) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.4f", s.fit->slope);
      row.emplace_back(buf);
      row.push_back(std::to_string(s.fit->points));
    } else {
      row.push_back(s.status);
      row.emplace_back("-");
    }
    if (s.fit && s.not_full > 0) {
      row.push_back("G < 2L - 1 at " + std::to_string(s.not_full) + " of " + std::to_string(s.fit->points) +
                    " points: the pipeline is not full there (MODEL.md section 6)");
    }
    cells.push_back(row);
  }
  print_aligned(out, cells);
}

// "jobs 3/10, 12.3 s elapsed, ~28 s left" on one line that is rewritten in place; only on a terminal,
// so that logs and pipes get no carriage returns.
class ProgressLine {
 public:
  ProgressLine() : m_enabled(::isatty(STDERR_FILENO) == 1) {}
  ~ProgressLine() { finish(); }  // also when a job throws, so that main's error line starts a line
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;
  void update(const analysis::SweepProgress& p) {
    if (!m_enabled) return;
    char line[96];
    const int n =
        std::snprintf(line, sizeof line, "jobs %zu/%zu, %.1f s elapsed", p.done, p.total, p.elapsed_seconds);
    if (p.ran > 0 && p.ran < p.to_run) {
      // The mean time per job so far: rough (points differ in cost), hence the "~".
      const double left =
          p.elapsed_seconds / static_cast<double>(p.ran) * static_cast<double>(p.to_run - p.ran);
      std::snprintf(line + n, sizeof line - static_cast<std::size_t>(n), ", ~%.0f s left", left);
    }
    std::string text = line;
    const std::size_t shown = text.size();
    if (shown < m_last) text.append(m_last - shown, ' ');  // erase the end of a longer previous line
    m_last = shown;
    std::cerr << '\r' << text << std::flush;
    analysis::set_stderr_line_open(true);  // an interrupt's lines start below it
  }
  void finish() {
    if (m_enabled && m_last > 0) std::cerr << '\n';
    m_last = 0;
    analysis::set_stderr_line_open(false);
  }

 private:
  bool m_enabled;
  std::size_t m_last = 0;
};

class SweepCommand final : public Command {
 public:
  // Its own sweep.*, and what its runs read (cli/run_options.h) but run's checks, traces and side by side.
  bool reads(const std::string& key) const override {
    return in_any_section(key, {"sweep"}) ||
           (workloads::run_reads(key) && !is_run_only(key) && key != "theory_side_by_side");
  }
  int execute(const sim::Config& config) override {
    // Interrupting a sweep must leave only complete point files behind (output_guard.h); idempotent.
    analysis::install_interrupt_handlers();
    reject_fixed_and_varied(config);
    const analysis::SweepPlan plan = analysis::plan_sweep(config);  // every point validated: exit 2 early
    reject_what_its_runs_ignore(plan);
    const std::string out = config.get_string("out");
    if (out.empty()) config.fail("out", "must name the sweep's results file");
    const bool resume = config.get_bool("sweep.resume");
    try {
      analysis::check_sweep_writable(out, resume);  // <out> and <out>.points, where finished points are kept
      if (resume) analysis::check_sweep_resumable(plan, out);  // no stored result of another sweep dropped
    } catch (const analysis::OutputError& e) {
      config.fail("out", e.problem());  // bad input: exit 2 before anything runs, with the value's origin
    }
    const OverflowPolicy overflow_policy(config);

    ProgressLine progress;
    analysis::SweepOutcome outcome;
    try {
      outcome = analysis::run_sweep_to_file(plan, out, resume, std::string(kProgramVersion),
                                            [&](const analysis::SweepProgress& p) { progress.update(p); });
    } catch (const analysis::OutputError& e) {
      // A file that could not be written after its runs (a full disk): one line, as run says it.
      progress.finish();
      std::cerr << error_line(e.what()) << '\n';
      return kExitCheckFailed;
    }
    progress.finish();
    for (const auto& note : outcome.notes) std::cerr << "spatialsim: note: " << note << '\n';
    if (resume) {  // jobs, the unit results are stored in: a job is a point under one schedule
      std::cerr << "spatialsim: resumed " << outcome.reused << " of "
                << sim::counted(plan.jobs.size(), "job", "jobs") << " ("
                << sim::counted(plan.points.size(), "point", "points") << " x "
                << sim::counted(plan.schedules.size(), "schedule", "schedules") << ")\n";
    }

    print_points(std::cout, plan, outcome.rows);
    note_losses_not_finite(std::cout, plan, outcome.rows);
    print_slopes(std::cout, outcome.slopes);
    std::cout << "\nwrote " << sim::one_line(out) << " (" << plan.jobs.size() << " rows in /sweep/points)\n";
    std::cout.flush();
    return overflow_policy.finish_sweep(overflowed_points(plan, outcome.rows), out);
  }

 private:
  // How the user asked for an axis, as they wrote it: "--vary train.lr=0.1,0.2", or
  // "sweep.vary (train.lr=0.1,0.2, from s.ini)" when it came from a --config file.
  static std::string varied_by(const sim::Config& config, const analysis::SweepAxis& axis) {
    const std::string values = sim::joined(axis.values, ",");
    const std::string& vary_origin = config.origin("sweep.vary");
    return vary_origin == kCommandLineOrigin
               ? "--vary " + axis.key + "=" + values
               : "sweep.vary (" + axis.key + "=" + values + ", from " + vary_origin + ")";
  }

  // A key the user set (on the command line or in a --config file) and also varies: every point's value
  // would replace the one they set, which would be dropped without a word. A value of the embedded default
  // configuration is not the user's, and varying it is what a sweep is for. This is the sweep command's rule,
  // not analysis::plan_sweep's: compare varies model.depth over the user's own model.depth.
  static void reject_fixed_and_varied(const sim::Config& config) {
    for (const auto& axis : analysis::parse_vary(config))
      if (config.is_explicit(axis.key))
        config.fail(axis.key, "is also varied by " + varied_by(config, axis) +
                                  ", whose values would replace it at every point; remove one of them");
  }

  // The sweep's runs read what `run` reads (cli/run_options.h): a varied key they never read, or an option
  // every point's runs ignore (a schedule's option without the schedule, data.mixture_spread with the
  // teacher task), would give identical points or silently drop what the user asked for.
  void reject_what_its_runs_ignore(const analysis::SweepPlan& plan) const {
    for (const auto& axis : plan.axes)
      if (!reads(axis.key))
        throw sim::ConfigError("sweep.vary", varied_by(plan.base, axis) +
                                                 ": is not read by the runs of a sweep; do not vary it");
    for (const auto& key : plan.base.keys()) {
      std::optional<IgnoredOption> ignored;
      for (const auto& p : plan.points)
        if (!(ignored = why_a_run_ignores(p.config, plan.schedules, key))) break;  // read at this point
      if (!ignored) continue;
      const auto axis =
          std::find_if(plan.axes.begin(), plan.axes.end(), [&](const auto& a) { return a.key == key; });
      if (axis != plan.axes.end())
        throw sim::ConfigError("sweep.vary", varied_by(plan.base, *axis) + ": " + ignored->why +
                                                 "; do not vary it, or " + ignored->fix);
      refuse_ignored_option(plan.base, key, *ignored);
    }
  }
};

const CommandRegistry::Registration registration{
    "sweep",
    "run every combination of --vary KEY=V1,V2 under each --schedule; table, slopes and one HDF5 file",
    [](const sim::Config&) { return std::make_unique<SweepCommand>(); }};

}  // namespace
}  // namespace spatialsim::cli
