#include "analysis/compare.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <limits>
#include <sstream>

#include "analysis/results_table.h"
#include "sim/config.h"
#include "workloads/schedules/i_schedule.h"
#include "workloads/schedules/schedule_models.h"

namespace spatialsim::analysis {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

const workloads::RunResult* find_result(const std::vector<workloads::RunResult>& results,
                                        std::string_view schedule) {
  for (const auto& r : results)
    if (r.schedule == schedule) return &r;
  return nullptr;
}

const InflightScaling* find_scaling(const std::vector<InflightScaling>& scaling, std::string_view schedule) {
  for (const auto& s : scaling)
    if (s.schedule == schedule) return &s;
  return nullptr;
}

// A schedule that stashes nothing and sends nothing back has no backward pass to replace backprop's.
bool runs_backward(const workloads::RunResult& r) {
  return r.counters.byte_hops.phase_total(sim::Phase::backward) > 0 ||
         r.counters.flops[static_cast<std::size_t>(sim::Phase::backward)] > 0;
}

std::string fixed(double x, int digits) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(digits) << x;
  return s.str();
}

// The decimals that tell a value from its limit: `digits`, or as many more as it takes not to print the
// two alike when they differ (a slope of 1.2549 against 1.25 is "1.255 > 1.250", not "1.25 > 1.25").
int decimals_to_tell(double value, double limit, int digits) {
  int d = digits;
  while (d < 15 && value != limit && fixed(value, d) == fixed(limit, d)) ++d;
  return d;
}

}  // namespace

std::vector<std::string> applicable_schedules(const workloads::ModelSpec& model) {
  std::vector<std::string> out;
  // forward first: it is the baseline of every ratio column, so it reads best as the first column.
  std::vector<std::string> names = workloads::ScheduleRegistry::names();
  std::stable_partition(names.begin(), names.end(), [](const std::string& n) { return n == "forward"; });
  for (const auto& n : names)
    if (workloads::runs_on(n, model.kind)) out.push_back(n);  // others are not applicable, not an error
  return out;
}

std::vector<std::string> applicable_schedules(const workloads::ModelSpec& model, const sim::Config& config,
                                              std::vector<std::string>* left_out) {
  std::vector<std::string> out;
  for (const auto& n : applicable_schedules(model)) {
    try {
      workloads::ScheduleRegistry::create(n, config);
      out.push_back(n);
    } catch (const sim::ConfigError& e) {
      // A schedule option the user set is theirs to fix; the model's size only makes it inapplicable.
      const bool users_schedule_option = !e.key().empty() && e.key().rfind("model.", 0) != 0 &&
                                         config.has(e.key()) && config.is_explicit(e.key());
      if (users_schedule_option) throw;
      if (left_out == nullptr) continue;
      if (e.key().rfind("model.", 0) == 0 || e.key().empty())
        left_out->push_back(n + ", which this model cannot run (" + e.what() + ")");
      else  // the schedule's own option at its default: it runs with that option set
        left_out->push_back(n + ", whose default " + e.key() + " does not fit this model (" + e.what() +
                            "); set " + e.key() + " to compare it");
    }
  }
  return out;
}

const std::vector<std::string>& compare_table_rows() {
  static const std::vector<std::string> rows{"byte_hops_forward",
                                             "byte_hops_backward",
                                             "byte_hops_recompute",
                                             "byte_hops",
                                             "inflight_byte_cycles",
                                             "peak_stash_bytes",
                                             "peak_tile_stash_bytes",
                                             "depth",
                                             "flops",
                                             "energy_pj",
                                             "energy_hop_pj",
                                             "energy_sram_pj",
                                             "energy_flop_pj"};
  return rows;
}

InflightScaling fit_inflight_scaling(std::string schedule, std::vector<double> layers,
                                     std::vector<double> inflight_per_token) {
  InflightScaling s{std::move(schedule), std::move(layers), std::move(inflight_per_token), std::nullopt};
  s.fit = fit_power_law(s.layers, s.inflight_per_token);
  return s;
}

ByteHopsBaseline byte_hops_baseline(const std::vector<workloads::RunResult>& results) {
  if (const auto* b = find_result(results, "backprop"))
    return {"backprop", static_cast<double>(b->counters.byte_hops.total())};
  if (const auto* f = find_result(results, "forward"))
    return {"2 x forward", 2.0 * static_cast<double>(f->counters.byte_hops.total())};
  return {"", 0};
}

std::string_view name(TestOutcome outcome) {
  switch (outcome) {
    case TestOutcome::meets:
      return "meets";
    case TestOutcome::fails:
      return "fails";
    case TestOutcome::not_applicable:
      break;
  }
  return "n/a";
}

std::vector<Verdict> judge_schedules(const std::vector<workloads::RunResult>& results,
                                     const std::vector<InflightScaling>& scaling,
                                     const ByteHopsBaseline& baseline) {
  std::vector<Verdict> out;
  for (const auto& r : results) {
    Verdict v;
    v.schedule = r.schedule;
    const double hops = static_cast<double>(r.counters.byte_hops.total());
    v.byte_hops_ratio = baseline.byte_hops > 0 ? hops / baseline.byte_hops : kNaN;
    const InflightScaling* s = find_scaling(scaling, r.schedule);
    if (s != nullptr && s->fit) v.inflight_slope = s->fit->slope;
    const bool measured = s != nullptr && s->layers.size() >= 2;
    // Nothing in flight at any depth has no slope, and needs none: 0 is not L^2. Such a schedule is judged
    // on its byte-hops alone.
    const bool never_stashes =
        measured && std::all_of(s->inflight_per_token.begin(), s->inflight_per_token.end(),
                                [](double x) { return x == 0; });
    if (!runs_backward(r)) {
      v.reason = "no backward pass (the inference baseline)";
    } else if (baseline.byte_hops <= 0) {
      v.reason = "no baseline: neither backprop nor forward ran";
    } else if (!v.inflight_slope && !never_stashes) {
      v.reason = !measured ? "in-flight scaling not measured (one depth)"
                           : "in-flight scaling not measured (a stash at fewer than two depths)";
    } else {
      const bool slope_ok = never_stashes || *v.inflight_slope <= kInflightSlopeThreshold;
      const bool hops_ok = v.byte_hops_ratio <= kByteHopsAllowance;
      v.outcome = slope_ok && hops_ok ? TestOutcome::meets : TestOutcome::fails;
      const int slope_digits =
          v.inflight_slope ? decimals_to_tell(*v.inflight_slope, kInflightSlopeThreshold, 2) : 2;
      const int hops_digits = decimals_to_tell(v.byte_hops_ratio, kByteHopsAllowance, 3);
      const std::string inflight =
          never_stashes
              ? std::string("no stash at any depth (in-flight 0, not L^2)")
              : std::string(slope_ok ? "in-flight at most ~L" : "in-flight grows faster than L") +
                    " (slope " + fixed(*v.inflight_slope, slope_digits) + (slope_ok ? " <= " : " > ") +
                    fixed(kInflightSlopeThreshold, slope_digits) + ")";
      v.reason = inflight + ", byte-hops " + fixed(v.byte_hops_ratio, hops_digits) + " x " + baseline.name +
                 (hops_ok ? " <= " : " > ") + fixed(kByteHopsAllowance, hops_digits);
    }
    out.push_back(std::move(v));
  }
  return out;
}

void write_verdicts(std::ostream& out, const std::vector<InflightScaling>& scaling,
                    const std::vector<Verdict>& verdicts, const ByteHopsBaseline& baseline) {
  // The schedule column: as wide as the longest name plus a space, at least 12 (a schedule named by a
  // later registration may be longer than today's).
  std::size_t width = 12;
  for (const auto& v : verdicts) width = std::max(width, v.schedule.size() + 1);
  for (const auto& s : scaling) width = std::max(width, s.schedule.size() + 1);
  const int w = static_cast<int>(width);
  out << "in-flight scaling: inflight_byte_cycles per token at each depth L, log-log slope\n";
  for (const auto& s : scaling) {
    out << "  " << std::left << std::setw(w) << s.schedule << std::right;
    for (std::size_t i = 0; i < s.layers.size(); ++i)
      out << "  L=" << s.layers[i] << ": " << format_number(s.inflight_per_token[i]);
    out << "  slope " << (s.fit ? fixed(s.fit->slope, 3) : std::string("-")) << '\n';
  }
  out << "\nseed 000's test (MODEL.md section 7): in-flight slope <= " << fixed(kInflightSlopeThreshold, 2)
      << " (L, not L^2) and byte_hops <= " << fixed(kByteHopsAllowance, 3) << " x "
      << (baseline.name.empty() ? std::string("(no baseline)") : baseline.name) << "\n";
  for (const auto& v : verdicts) {
    out << "  " << std::left << std::setw(w) << v.schedule << std::setw(6) << name(v.outcome) << std::right
        << v.reason << '\n';
  }
}

void write_compare(Hdf5File& file, const std::vector<InflightScaling>& scaling,
                   const std::vector<Verdict>& verdicts, const ByteHopsBaseline& baseline) {
  file.ensure_group("/compare");
  file.set_attribute("/compare", "inflight_slope_threshold", kInflightSlopeThreshold);
  file.set_attribute("/compare", "byte_hops_allowance", kByteHopsAllowance);
  file.set_attribute("/compare", "baseline", baseline.name);
  file.set_attribute("/compare", "baseline_byte_hops", baseline.byte_hops);
  std::vector<std::string> names;
  for (const auto& v : verdicts) names.push_back(v.schedule);
  file.write_strings("/compare/schedules", names);
  for (const auto& v : verdicts) {
    const std::string group = "/compare/" + v.schedule;
    file.ensure_group(group);
    file.set_attribute(group, "outcome", std::string(name(v.outcome)));
    file.set_attribute(group, "reason", v.reason);
    file.set_attribute(group, "byte_hops_ratio", v.byte_hops_ratio);
    file.set_attribute(group, "inflight_slope", v.inflight_slope.value_or(kNaN));
    if (const InflightScaling* s = find_scaling(scaling, v.schedule)) {
      file.write_array(group + "/layers", s->layers, {}, "layers");
      file.write_array(group + "/inflight_byte_cycles_per_token", s->inflight_per_token, {},
                       "byte-cycles/token");
    }
  }
}

}  // namespace spatialsim::analysis
