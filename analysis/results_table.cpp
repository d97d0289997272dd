#include "analysis/results_table.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <variant>

#include "analysis/run_metrics.h"
#include "sim/blas_kernels.h"
#include "sim/grid.h"
#include "sim/text.h"
#include "sim/types.h"

namespace spatialsim::analysis {
namespace {

// "%.3e" gives "1.235e+06"; people read "1.235e6" faster, and trailing zeros ("1.200e+06") say nothing.
std::string scientific(double v) {
  // printf spells these "inf" and "nan", with no exponent to parse.
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.3e", v);
  const std::string s(buf);
  const auto e = s.find('e');
  std::string mantissa = s.substr(0, e);
  if (mantissa.find('.') != std::string::npos) {
    mantissa.erase(mantissa.find_last_not_of('0') + 1);
    if (mantissa.back() == '.') mantissa.pop_back();
  }
  return mantissa + "e" + std::to_string(std::stoi(s.substr(e + 1)));
}

// printf's %g, falling back to scientific() where %g itself would switch to its "e+06" form.
std::string general(double v, int significant) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.*g", significant, v);
  const std::string s(buf);
  return s.find('e') == std::string::npos ? s : scientific(v);
}

// A NaN is "no value" from a run that computed none (counting mode's final_loss), but a measured NaN from
// one that computed values (they overflowed): "-" would hide it.
std::string format_cell(const Metric& m, const workloads::RunResult& r) {
  if (const double* v = std::get_if<double>(&m.value); v != nullptr && !r.loss_per_step.empty())
    return format_loss(*v);
  return std::visit([](auto v) { return format_number(v); }, m.value);
}

const Metric* lookup(const std::vector<Metric>& metrics, const std::string& name) {
  for (const auto& m : metrics)
    if (m.name == name) return &m;
  return nullptr;
}

std::string widths_text(const std::vector<std::uint32_t>& widths) {
  std::string out;
  for (auto w : widths) {
    if (!out.empty()) out += ',';
    out += std::to_string(w);
  }
  return out;
}

}  // namespace

const std::vector<std::string>& default_table_rows() {
  static const std::vector<std::string> rows = [] {
    std::vector<std::string> r{"byte_hops"};
    for (const auto phase : sim::kPhaseNames) r.push_back("byte_hops_" + std::string(phase));
    for (const auto kind : sim::kMessageKindNames) r.push_back("byte_hops_" + std::string(kind));
    for (const char* name :
         {"inflight_byte_cycles", "peak_stash_bytes", "peak_tile_stash_bytes", "depth", "makespan_cycles",
          "flops", "sram_bytes", "energy_pj", "energy_hop_pj", "energy_sram_pj", "energy_flop_pj", "events",
          "storage_overflow_tiles", "wall_seconds", "events_per_second", "final_loss"})
      r.emplace_back(name);
    return r;
  }();
  return rows;
}

std::string format_number(std::uint64_t value) {
  return value < 1000000 ? std::to_string(value) : scientific(static_cast<double>(value));
}

std::string format_number(double value) {
  if (std::isnan(value)) return "-";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  if (value == 0) return "0";
  const double a = std::abs(value);
  return a >= 1e-3 && a < 1e6 ? general(value, 6) : scientific(value);
}

std::string format_loss(double measured) {
  return std::isnan(measured) ? "nan" : format_number(measured);
}

std::string format_ratio(double numerator, double denominator) {
  const double r = ratio_to_forward(numerator, denominator);
  if (std::isnan(r)) return "-";
  const double a = std::abs(r);
  return r == 0 || (a >= 1e-3 && a < 1e4) ? general(r, 4) : scientific(r);
}

void write_setup_header(std::ostream& out, const workloads::RunSetup& s) {
  out << "model   widths " << widths_text(s.model.widths) << " (";
  if (s.model.widths.empty())
    out << "0 layers";
  else if (s.model.kind == workloads::ModelKind::reversible)  // widths are stages: entry, L blocks, exit
    out << sim::counted(s.model.coupling_blocks(), "coupling block", "coupling blocks") << ": "
        << s.model.dense_layers().size() << " dense layers";
  else
    out << sim::counted(s.model.layers(), "layer", "layers");
  out << ")\n";
  out << "grid    " << s.grid_width << "x" << s.grid_height << " " << sim::name(s.topology);
  if (!s.placement.blocks.empty())
    out << "; block " << s.placement.blocks[0].rows << "x" << s.placement.blocks[0].cols << " per layer";
  out << ", placement " << s.placement_name;
  if (const std::uint32_t p = s.placement.stages; p != 0) {
    if (p == s.placement.blocks.size())
      out << ", " << sim::counted(p, "pipeline stage of one layer", "pipeline stages of one layer each")
          << " (fully spatial)";
    else
      out << ", " << sim::counted(p, "pipeline stage", "pipeline stages")
          << " (layers sharing a stage's block)";
  }
  out << "\n";
  out << "step    " << sim::counted(s.tokens, "token", "tokens") << " in "
      << sim::counted(s.wavefront_count(), "wavefront", "wavefronts") << " of " << s.tokens_per_wavefront
      << ", injected every " << sim::counted(s.injection_interval, "cycle", "cycles") << "; "
      << sim::counted(s.steps, "step", "steps") << "\n";
  // Counting mode computes no values, so no seed reaches its numbers (cli/run_options.h).
  if (s.arithmetic == workloads::Arithmetic::none)
    out << "arith   none (counting only: no values, so no seed)\n";
  else  // the BLAS kernels decide an fp32 product's rounding, and how fast it runs
    out << "arith   " << workloads::name(s.arithmetic) << ", seed " << s.seed << ", OpenBLAS "
        << sim::blas_kernels() << " kernels\n";
  if (s.arithmetic != workloads::Arithmetic::none)
    if (const std::string advice = sim::blas_advice(); !advice.empty()) out << "note    " << advice << "\n";
  out << "energy  " << sim::prices_source(s.prices) << ": " << format_number(s.prices.hop_pj)
      << " pJ/byte-hop, " << format_number(s.prices.sram_pj) << " pJ/SRAM byte, "
      << format_number(s.prices.flop_pj) << " pJ/flop\n";
}

void write_settings_line(std::ostream& out, const sim::Config& config) {
  // A config file's values in effect are counted, not listed (a file such as seed-grid.ini sets two
  // dozen, the widths alone 170 characters): the file names them, and the results file's config_set lists
  // each. A file whose every value the command line overrode is named too, with none in effect. Values
  // from anywhere else (the command line) are listed, quoted and escaped, so that the line stays one.
  // In the order read (Config::files); a FILE:LINE origin set some other way comes after.
  std::vector<std::pair<std::string, std::size_t>> files;
  for (const std::string& file : config.files())
    if (std::none_of(files.begin(), files.end(), [&](const auto& f) { return f.first == file; }))
      files.emplace_back(file, 0);
  std::vector<std::string> listed;
  for (const std::string& key : config.keys()) {
    const std::string& origin = config.origin(key);
    if (origin == "default") continue;
    const auto colon = origin.rfind(':');
    const bool file_line = colon != std::string::npos && colon + 1 < origin.size() &&
                           origin.find_first_not_of("0123456789", colon + 1) == std::string::npos;
    if (!file_line) {
      listed.push_back(key + " = " + sim::quoted_value(config.raw(key)) + " (" + origin + ")");
      continue;
    }
    const std::string file = origin.substr(0, colon);
    auto it = std::find_if(files.begin(), files.end(), [&](const auto& f) { return f.first == file; });
    if (it == files.end())
      files.emplace_back(file, 1);
    else
      ++it->second;
  }
  std::vector<std::string> parts;
  for (const auto& [file, count] : files)
    parts.push_back(file + " (" + sim::counted(count, "option", "options") + " in effect)");
  parts.insert(parts.end(), listed.begin(), listed.end());
  // one_line: a file name or value that is not UTF-8 shows its bytes as \xNN, as on an error line.
  out << "set     "
      << (parts.empty() ? "nothing: every option at its default (configs/default.ini)"
                        : sim::one_line(sim::joined(parts, "; ")))
      << "\n";
}

const workloads::RunResult* find_run(const std::vector<workloads::RunResult>& results,
                                     const std::string& schedule) {
  for (const auto& r : results)
    if (r.schedule == schedule) return &r;
  return nullptr;
}

void write_results_table(std::ostream& out, const std::vector<workloads::RunResult>& results,
                         const workloads::RunResult* forward, const sim::EnergyPrices& prices,
                         const std::vector<std::string>& rows) {
  std::vector<std::vector<Metric>> metrics;
  for (const auto& r : results) metrics.push_back(run_metrics(r, prices));
  const std::vector<Metric> forward_metrics =
      forward != nullptr ? run_metrics(*forward, prices) : std::vector<Metric>{};
  const auto is_forward = [&](std::size_t i) { return &results[i] == forward; };

  std::vector<std::vector<std::string>> cells;
  std::vector<std::string> header{"metric", "unit"};
  for (const auto& r : results) header.push_back(r.schedule);
  if (forward)
    for (std::size_t i = 0; i < results.size(); ++i)
      if (!is_forward(i)) header.push_back(results[i].schedule + "/forward");
  cells.push_back(std::move(header));

  for (const auto& name : rows) {
    if (metrics.empty()) break;
    const Metric* first = lookup(metrics.front(), name);
    if (first == nullptr) continue;
    std::vector<std::string> row{name, first->unit};
    for (std::size_t i = 0; i < metrics.size(); ++i) {
      const Metric* v = lookup(metrics[i], name);
      row.push_back(v == nullptr ? "-" : format_cell(*v, results[i]));
    }
    if (forward) {
      const Metric* base = lookup(forward_metrics, name);
      for (std::size_t i = 0; i < metrics.size(); ++i) {
        if (is_forward(i)) continue;
        const Metric* v = lookup(metrics[i], name);
        row.push_back(v == nullptr || base == nullptr || !v->machine_cost
                          ? "-"
                          : format_ratio(v->as_double(), base->as_double()));
      }
    }
    cells.push_back(std::move(row));
  }

  // Column widths leave the timing rows' values out, so that two runs of one configuration print the same
  // table but for those values: a schedule's column is at least as wide as any positive value
  // format_number prints (10 characters: "0.00123457", "1.235e-308").
  const auto timing = [&](const std::string& name) {
    const Metric* m = metrics.empty() ? nullptr : lookup(metrics.front(), name);
    return m != nullptr && m->timing;
  };
  constexpr std::size_t kTimingWidth = 10;
  std::vector<std::size_t> widths(cells.front().size(), 0);
  if (std::any_of(cells.begin(), cells.end(), [&](const auto& row) { return timing(row.front()); }))
    for (std::size_t c = 2; c < 2 + results.size(); ++c) widths[c] = kTimingWidth;
  for (const auto& row : cells)
    for (std::size_t c = 0; c < (timing(row.front()) ? 2 : row.size()); ++c)
      widths[c] = std::max(widths[c], row[c].size());
  for (const auto& row : cells) {
    std::string line;
    for (std::size_t c = 0; c < row.size(); ++c) {
      const std::string pad(widths[c] - std::min(widths[c], row[c].size()), ' ');
      if (c > 0) line += "  ";
      line += c < 2 ? row[c] + pad : pad + row[c];  // names left, numbers right
    }
    line.erase(line.find_last_not_of(' ') + 1);
    out << line << '\n';
  }
}

std::string finite_values_fix(const workloads::RunSetup& setup, std::optional<std::size_t> first_step) {
  const bool mixture = setup.data.task == workloads::Task::mixture;
  // Before the first update only the initial weights and the data can have overflowed.
  if (first_step == 0 || setup.steps == 1)
    return mixture ? "a smaller model.init_gain or data.mixture_spread" : "a smaller model.init_gain";
  if (!first_step && mixture) return "a smaller train.lr, model.init_gain or data.mixture_spread";
  return "a smaller train.lr or model.init_gain";
}

void write_loss_notes(std::ostream& out, const std::vector<workloads::RunResult>& results,
                      const workloads::RunSetup& setup) {
  for (const auto& r : results) {
    const auto bad = std::find_if(r.loss_per_step.begin(), r.loss_per_step.end(),
                                  [](double loss) { return !std::isfinite(loss); });
    if (bad == r.loss_per_step.end()) continue;
    // Steps count from 0, as the file's loss, the traces and the plots count them.
    const auto step = static_cast<std::size_t>(bad - r.loss_per_step.begin());
    const std::size_t steps = r.loss_per_step.size();
    out << "note: " << r.schedule << "'s loss is not finite (" << format_loss(*bad) << ") "
        << (steps == 1 ? std::string("at step 0, its only step")
                       : "from step " + std::to_string(step) + " of steps 0.." + std::to_string(steps - 1))
        << ": its " << workloads::name(setup.arithmetic) << " values overflowed; "
        << finite_values_fix(setup, step) << " keeps them finite\n";
  }
}

}  // namespace spatialsim::analysis
