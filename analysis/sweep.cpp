#include "analysis/sweep.h"

#include <tbb/global_control.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string_view>
#include <utility>

#include "sim/counters.h"
#include "sim/in_order_jobs.h"
#include "sim/option_spec.h"
#include "sim/text.h"
#include "workloads/run_setup.h"
#include "workloads/schedules/i_schedule.h"
#include "workloads/schedules/schedule_list.h"
#include "workloads/schedules/schedule_models.h"
#include "workloads/training_run.h"

namespace spatialsim::analysis {
namespace {

const sim::OptionRegistration options{
    {"sweep.vary", "list",
     "KEY=V1,V2[;KEY=...]: run every combination of the listed values; empty: one point, the base "
     "configuration (--vary)"},
};

// Keys that say where results go, how fast they come or what the command does with them, not what they
// are: varying them would repeat the same runs (and the sweep applies machine.on_overflow once, to all
// its jobs), and they stay out of the job hash so that a resumed sweep may change them.
const std::set<std::string, std::less<>> kNotResultKeys = {"out",
                                                           "schedule",
                                                           "sim.threads",
                                                           "check",
                                                           "export_check",
                                                           "trace",
                                                           "chrome_trace",
                                                           "check_tolerance",
                                                           "theory_side_by_side",
                                                           "machine.on_overflow"};

// Beyond this many points a typo ("--vary model.depth=1,...,1000" times three more keys) is likelier than
// intent, and every point's setup is held in memory.
constexpr std::size_t kMaxPoints = 100000;

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  while (true) {
    const auto at = s.find(sep);
    out.push_back(s.substr(0, at));
    if (at == std::string_view::npos) return out;
    s.remove_prefix(at + 1);
  }
}

std::optional<double> as_number(std::string_view s) {
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  double v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc{} || ptr != s.data() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

// The value as a whole number, exactly, as (negative, magnitude): a double holds integers exactly only up
// to 2^53, and two seeds above that are different values that as_number reads as one.
std::optional<std::pair<bool, std::uint64_t>> as_whole_number(std::string_view s) {
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  const bool negative = !s.empty() && s.front() == '-';
  if (negative) s.remove_prefix(1);
  std::uint64_t v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc{} || ptr != s.data() + s.size()) return std::nullopt;
  return std::pair{negative && v != 0, v};
}

// Whether a and b are the same number however written (2, 02, +2, 2.0): exactly when both are whole
// numbers, as doubles otherwise.
bool same_number(std::string_view a, std::string_view b) {
  const auto wa = as_whole_number(a);
  const auto wb = as_whole_number(b);
  if (wa && wb) return *wa == *wb;
  const auto na = as_number(a);
  const auto nb = as_number(b);
  return na && nb && *na == *nb;
}

// Whether `key`'s parser reads `a` and `b` as one value, beyond numbers (as_number compares those): true,
// yes, on and 1 of a bool option (the unit it is registered with), 2x2, 2X2 and 02x2 of a block or grid
// (sim::Config::get_dims). Choices and other strings are read as written. Exact: the parser's results are
// compared, and a value it refuses is the same as nothing (the point's validation names it).
bool same_parsed_value(const std::string& key, const std::string& a, const std::string& b) {
  sim::Config probe;
  probe.set("a", a, kSweepOrigin);
  probe.set("b", b, kSweepOrigin);
  try {
    const sim::OptionSpec* spec = sim::OptionTable::find(key);
    if (spec != nullptr && spec->unit == "bool") return probe.get_bool("a") == probe.get_bool("b");
    return probe.get_dims("a") == probe.get_dims("b");
  } catch (const sim::ConfigError&) {
    return false;
  }
}

// Whether `key` can change a result of a sweep's job. Not: where results go and the checks
// (kNotResultKeys), and other commands' options (a config file may hold them). Neither can be varied, so
// two points of one sweep always differ in a hashed key and their jobs never share a hash (a point file's
// name). Options of other schedules, and values-only options in counting mode, are hashed although they
// cannot change the job either: a sweep may vary them for the jobs they do change (checkpoint.segment
// beside a forward job; sim.seed beside sim.arith=none,fp32).
bool can_change_results(const std::string& key) {
  return !kNotResultKeys.contains(key) && workloads::run_reads(key);
}

// `key`'s value as its option reads it, in one spelling, so that the job hash does not change with how a
// value is written: 64 for 064 and +64, 0.001 for 1e-3, true for yes, 2x2 for 2X2, 32,64 for 32, 064;
// anything else (choices, names) as written.
std::string value_as_read(const sim::Config& config, const std::string& key) {
  const std::string& raw = config.raw(key);
  const sim::OptionSpec* spec = sim::OptionTable::find(key);
  try {
    if (spec != nullptr && spec->unit == "bool") return config.get_bool(key) ? "true" : "false";
  } catch (const sim::ConfigError&) {
    return raw;
  }
  if (const auto whole = as_whole_number(raw))
    return (whole->first ? "-" : "") + std::to_string(whole->second);
  if (const auto number = as_number(raw)) {
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, *number);  // shortest text that reads back exactly
    return std::string(buf, r.ptr);
  }
  try {
    if (raw.find_first_of("xX") != std::string::npos) {
      const auto [rows, cols] = config.get_dims(key);
      return std::to_string(rows) + "x" + std::to_string(cols);
    }
    if (raw.find(',') != std::string::npos) {  // model.widths: 32,064,10 is 32,64,10
      std::string list;
      for (const std::uint64_t v : config.get_positive_list(key))
        list += (list.empty() ? "" : ",") + std::to_string(v);
      return list;
    }
  } catch (const sim::ConfigError&) {
  }
  return raw;
}

std::string point_text(const std::vector<SweepAxis>& axes, const std::vector<std::string>& values) {
  std::string out;
  for (std::size_t a = 0; a < axes.size(); ++a) out += (a ? ", " : "") + axes[a].key + "=" + values[a];
  return out;
}

// Adds the point's name (and the job's schedule, for an error found while a job runs) to an error, keeping
// the key it is about.
[[noreturn]] void fail_at_point(const sim::ConfigError& e, std::string_view point_name, std::size_t index,
                                std::size_t count, const std::string& values,
                                const std::string& schedule = "") {
  throw sim::ConfigError(e.key(), std::string(point_name) + " " + std::to_string(index + 1) + " of " +
                                      std::to_string(count) + (values.empty() ? "" : " (" + values + ")") +
                                      (schedule.empty() ? "" : ", schedule " + schedule) + ": " + e.what());
}

// MODEL.md section 6: the L^2 stash term needs G >= 2L wavefronts in flight. Returns true if it raised T.
bool keep_pipeline_full(SweepPoint& p) {
  const std::uint64_t layers = p.setup.model.layers();
  const std::uint64_t needed = 2 * layers * p.setup.tokens_per_wavefront;
  if (p.setup.tokens >= needed) return false;
  p.config.set("step.tokens", std::to_string(needed), "sweep (G >= 2L, MODEL.md section 6)");
  p.setup = workloads::setup_from_config(p.config);
  return true;
}

}  // namespace

bool pipeline_full(const workloads::RunSetup& setup) {
  return std::uint64_t{setup.wavefront_count()} + 1 >= 2 * std::uint64_t{setup.model.layers()};
}

std::vector<Metric> sweep_metrics(const workloads::RunResult& result, const workloads::RunSetup& setup) {
  std::vector<Metric> metrics = run_metrics(result, setup.prices);
  const auto it = std::find_if(metrics.begin(), metrics.end(),
                               [](const Metric& m) { return m.name == "inflight_byte_cycles"; });
  const double tokens = static_cast<double>(setup.tokens) * static_cast<double>(setup.steps);
  const double per_token = it == metrics.end() ? 0.0 : it->as_double() / tokens;
  // Right after the total, so that the two read together in the table.
  metrics.insert(it == metrics.end() ? it : it + 1,
                 Metric{"inflight_byte_cycles_per_token", "byte-cycles/token", per_token});
  return metrics;
}

std::vector<Metric> sweep_metric_schema() {
  return sweep_metrics(workloads::RunResult(), workloads::RunSetup());
}

std::vector<SweepAxis> parse_vary(const sim::Config& base) {
  std::vector<SweepAxis> axes;
  const std::string text = base.get_string("sweep.vary");
  if (sim::trim_blanks(text).empty()) return axes;
  for (const std::string_view part : split(text, ';')) {
    const auto eq = part.find('=');
    const std::string key(sim::trim_blanks(part.substr(0, eq)));
    const std::string shown = "\"" + std::string(sim::trim_blanks(part)) + "\"";
    if (eq == std::string_view::npos || key.empty())
      base.fail("sweep.vary", shown + " must be KEY=V1,V2,... (for example model.depth=2,4,8)");
    if (key.starts_with("sweep."))
      base.fail("sweep.vary", key + ": the sweep's own options cannot be varied");
    if (key == "schedule")
      base.fail("sweep.vary", "schedule: give the schedules with --schedule A,B instead");
    if (kNotResultKeys.contains(key))
      base.fail("sweep.vary", key + " cannot be varied: it does not change a run's results");
    if (sim::OptionTable::find(key) == nullptr || !base.has(key))
      base.fail("sweep.vary", "unknown key " + key + " (spatialsim --help lists the options)");
    for (const auto& a : axes)
      if (a.key == key)
        base.fail("sweep.vary",
                  key + " is varied twice; give all its values in one --vary " + key + "=V1,V2");
    // A bool is not a quantity, however its values are written (1,0 as much as true,false): no number
    // column, no slopes.
    SweepAxis axis{key, {}, sim::OptionTable::find(key)->unit != "bool", {}};
    for (const std::string_view raw : split(part.substr(eq + 1), ',')) {
      const std::string value(sim::trim_blanks(raw));
      if (value.empty())
        base.fail("sweep.vary", key + " must list at least one value, comma-separated, without empty values");
      if (std::find(axis.values.begin(), axis.values.end(), value) != axis.values.end())
        base.fail("sweep.vary", key + " lists the value " + value + " twice; give each value once");
      const auto number = as_number(value);
      // 2, 02 and +2 are one value of a numeric key: the same point twice.
      for (std::size_t v = 0; number && v < axis.values.size(); ++v)
        if (same_number(axis.values[v], value))
          base.fail("sweep.vary", key + " lists " + axis.values[v] + " and " + value +
                                      ", the same number twice; give each value once");
      // So are true and yes of a bool, 2x2 and 2X2 of a block: the value the option's parser reads.
      for (const auto& earlier : axis.values)
        if (same_parsed_value(key, earlier, value))
          base.fail("sweep.vary", key + " lists " + earlier + " and " + value + ", which " + key +
                                      " reads as the same value; give each value once");
      axis.numeric = axis.numeric && number.has_value();
      axis.numbers.push_back(number.value_or(0.0));
      axis.values.push_back(value);
    }
    if (!axis.numeric) axis.numbers.clear();
    axes.push_back(std::move(axis));
  }
  return axes;
}

SweepPlan plan_sweep(const sim::Config& base, std::string_view point_name) {
  SweepPlan plan;
  plan.base = base;
  plan.point_name = point_name;
  plan.axes = parse_vary(base);
  plan.schedules = workloads::schedules_from_config(base);
  plan.threads = workloads::threads_from_config(base);

  std::size_t count = 1;
  for (const auto& a : plan.axes) {
    if (count > kMaxPoints / a.values.size())
      base.fail("sweep.vary", "gives more than " + std::to_string(kMaxPoints) + " points; split the sweep");
    count *= a.values.size();
  }
  bool depth_varied = false;
  bool tokens_varied = false;
  for (const auto& a : plan.axes) {
    depth_varied = depth_varied || a.key == "model.depth" || a.key == "model.widths";
    tokens_varied = tokens_varied || a.key == "step.tokens";
  }
  const bool fill_pipeline = depth_varied && !tokens_varied && !base.is_explicit("step.tokens");

  plan.points.resize(count);
  for (std::size_t i = 0; i < count; ++i) {
    SweepPoint& p = plan.points[i];
    p.index = i;
    p.config = base;
    // Mixed radix, last axis fastest: the table reads like nested loops in the order the keys were given.
    std::size_t rest = i;
    p.values.resize(plan.axes.size());
    for (std::size_t a = plan.axes.size(); a-- > 0;) {
      p.values[a] = plan.axes[a].values[rest % plan.axes[a].values.size()];
      rest /= plan.axes[a].values.size();
      p.config.set(plan.axes[a].key, p.values[a], kSweepOrigin);
    }
    try {
      p.setup = workloads::setup_from_config(p.config);
      if (fill_pipeline) p.tokens_raised = keep_pipeline_full(p);
      for (const auto& s : plan.schedules) {
        workloads::require_schedule_runs_on(p.setup.model, s);  // as run checks it
        workloads::ScheduleRegistry::create(s, p.config);
      }
    } catch (const sim::ConfigError& e) {
      fail_at_point(e, point_name, i, count, point_text(plan.axes, p.values));
    } catch (const std::invalid_argument& e) {  // bad input found by a component (docs/cli.md): exit 2 too
      fail_at_point(sim::ConfigError("", e.what()), point_name, i, count, point_text(plan.axes, p.values));
    }
    for (const auto& s : plan.schedules) plan.jobs.push_back({i, s, job_config_hash(p.config, s)});
  }
  return plan;
}

std::string job_label(const SweepPlan& plan, std::size_t job) {
  const SweepPoint& p = plan.points[plan.jobs[job].point];
  std::string values;
  for (std::size_t a = 0; a < plan.axes.size(); ++a)
    values += (a == 0 ? " (" : ", ") + plan.axes[a].key + " = " + p.values[a] +
              (a + 1 == plan.axes.size() ? ")" : "");
  return "point " + std::to_string(p.index) + values + ", schedule " + plan.jobs[job].schedule;
}

std::uint64_t job_config_hash(const sim::Config& point_config, const std::string& schedule) {
  std::string text;
  for (const auto& key : point_config.keys()) {
    if (!can_change_results(key)) continue;
    text += key + "=" + value_as_read(point_config, key) + "\n";
  }
  text += "schedule=" + schedule + "\n";
  std::uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a, 64 bit: stable across builds and platforms
  for (const unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

SweepRow run_sweep_job(const SweepPlan& plan, std::size_t job) {
  const SweepJob& j = plan.jobs.at(job);
  const SweepPoint& p = plan.points.at(j.point);
  try {
    const workloads::RunResult result =  // no sweep metric reads the check data
        workloads::run_schedule(p.setup, p.config, j.schedule, {.for_checks = false});
    return SweepRow{sweep_metrics(result, p.setup), false};
  } catch (const sim::CountLimitError& e) {  // a count past 2^62: found only while the job runs
    fail_at_point(sim::ConfigError("", e.what()), plan.point_name, j.point, plan.points.size(),
                  point_text(plan.axes, p.values), j.schedule);
  }
}

std::size_t run_sweep_jobs(const SweepPlan& plan, std::vector<std::optional<SweepRow>>& rows,
                           const JobFinished& on_finished) {
  if (rows.size() != plan.jobs.size()) throw std::invalid_argument("run_sweep_jobs: one row per job");
  std::vector<std::size_t> todo;
  for (std::size_t j = 0; j < rows.size(); ++j)
    if (!rows[j]) todo.push_back(j);
  // A sweep is usually written smallest first, so starting from the end starts the longest runs first and
  // shortens the tail where one worker runs alone (run_in_order keeps that order on every thread). The
  // order never changes a result, only when it is ready.
  std::reverse(todo.begin(), todo.end());
  std::optional<tbb::global_control> limit;
  if (plan.threads != 0) limit.emplace(tbb::global_control::max_allowed_parallelism, plan.threads);
  std::mutex finished;
  sim::run_in_order(todo.size(), plan.threads, [&](std::size_t i) {
    const std::size_t job = todo[i];
    SweepRow row = run_sweep_job(plan, job);
    const std::lock_guard lock(finished);
    rows[job] = std::move(row);
    if (on_finished) on_finished(job);
  });
  return todo.size();
}

std::vector<SlopeRow> sweep_slopes(const SweepPlan& plan, const std::vector<SweepRow>& rows) {
  std::vector<SlopeRow> out;
  if (rows.size() != plan.jobs.size()) throw std::invalid_argument("sweep_slopes: one row per job");
  for (std::size_t a = 0; a < plan.axes.size(); ++a) {
    const SweepAxis& axis = plan.axes[a];
    if (!axis.numeric || std::set<double>(axis.numbers.begin(), axis.numbers.end()).size() < 2) continue;
    for (std::size_t s = 0; s < plan.schedules.size(); ++s) {
      // Groups: the points that agree on every other axis, in order of first appearance.
      std::vector<std::string> group_names;
      std::map<std::string, std::vector<std::size_t>> groups;
      for (const SweepPoint& p : plan.points) {
        std::string at;
        for (std::size_t b = 0; b < plan.axes.size(); ++b) {
          if (b == a || plan.axes[b].values.size() < 2) continue;
          at += (at.empty() ? "" : ", ") + plan.axes[b].key + "=" + p.values[b];
        }
        if (!groups.contains(at)) group_names.push_back(at);
        groups[at].push_back(p.index);
      }
      for (const auto& at : group_names) {
        for (const char* metric : kSlopeMetrics) {
          std::vector<double> x;
          std::vector<double> y;
          for (const std::size_t point : groups[at]) {
            const std::size_t job = point * plan.schedules.size() + s;
            x.push_back(
                axis.numbers[std::find(axis.values.begin(), axis.values.end(), plan.points[point].values[a]) -
                             axis.values.begin()]);
            y.push_back(find_metric(rows[job].metrics, metric).as_double());
          }
          SlopeRow row{plan.schedules[s], axis.key, at, metric, fit_power_law(x, y), "fit"};
          if (std::string_view(metric) == "peak_stash_bytes") {
            for (std::size_t i = 0; i < y.size(); ++i)
              if (x[i] > 0 && y[i] > 0 && !pipeline_full(plan.points[groups[at][i]].setup)) ++row.not_full;
          }
          if (std::all_of(y.begin(), y.end(), [](double v) { return v == 0; })) {
            row.status = "no stash";
          } else if (!row.fit) {
            row.status = "too few points";
          }
          out.push_back(std::move(row));
        }
      }
    }
  }
  return out;
}

}  // namespace spatialsim::analysis
