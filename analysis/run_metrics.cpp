#include "analysis/run_metrics.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace spatialsim::analysis {

EnergyBreakdown energy(const sim::Counters& c, const sim::EnergyPrices& p) {
  return {static_cast<double>(c.byte_hops.total()) * p.hop_pj,
          static_cast<double>(c.total_sram_bytes()) * p.sram_pj,
          static_cast<double>(c.total_flops()) * p.flop_pj};
}

double Metric::as_double() const {
  return std::holds_alternative<std::uint64_t>(value) ? static_cast<double>(std::get<std::uint64_t>(value))
                                                      : std::get<double>(value);
}

std::string Metric::text() const {
  if (std::holds_alternative<std::uint64_t>(value)) return std::to_string(std::get<std::uint64_t>(value));
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, std::get<double>(value));  // shortest exact form
  return std::string(buf, r.ptr);
}

std::vector<Metric> run_metrics(const workloads::RunResult& r, const sim::EnergyPrices& prices) {
  const sim::Counters& c = r.counters;
  std::vector<Metric> m;
  auto add = [&m](std::string name, std::string unit, auto value, bool machine_cost = true,
                  bool timing = false) {
    if constexpr (std::is_floating_point_v<decltype(value)>) {
      m.push_back({std::move(name), std::move(unit), static_cast<double>(value), machine_cost, timing});
    } else {
      m.push_back(
          {std::move(name), std::move(unit), static_cast<std::uint64_t>(value), machine_cost, timing});
    }
  };
  add("byte_hops", "byte-hops", c.byte_hops.total());
  for (std::size_t p = 0; p < sim::kPhaseCount; ++p)
    add("byte_hops_" + std::string(sim::kPhaseNames[p]), "byte-hops", c.byte_hops.phase_total(sim::Phase(p)));
  for (std::size_t k = 0; k < sim::kMessageKindCount; ++k)
    add("byte_hops_" + std::string(sim::kMessageKindNames[k]), "byte-hops",
        c.byte_hops.kind_total(sim::MessageKind(k)));
  for (std::size_t p = 0; p < sim::kPhaseCount; ++p)
    for (std::size_t k = 0; k < sim::kMessageKindCount; ++k)
      add("byte_hops_" + std::string(sim::kPhaseNames[p]) + "_" + std::string(sim::kMessageKindNames[k]),
          "byte-hops", c.byte_hops.cells[p][k]);
  add("bytes_sent", "bytes", c.bytes.total());
  add("messages", "messages", c.messages.total());
  add("inflight_byte_cycles", "byte-cycles", c.inflight_byte_cycles);
  add("peak_stash_bytes", "bytes", c.peak_stash_bytes);
  add("peak_tile_stash_bytes", "bytes", c.peak_tile_stash_bytes);
  add("depth", "hops", c.depth);
  add("max_checkpoints", "checkpoints", r.max_checkpoints);
  add("makespan_cycles", "cycles", c.makespan_cycles);
  add("flops", "flops", c.total_flops());
  for (std::size_t p = 0; p < sim::kPhaseCount; ++p)
    add("flops_" + std::string(sim::kPhaseNames[p]), "flops", c.flops[p]);
  add("sram_bytes", "bytes", c.total_sram_bytes());
  for (std::size_t p = 0; p < sim::kPhaseCount; ++p)
    add("sram_bytes_" + std::string(sim::kPhaseNames[p]), "bytes", c.sram_bytes[p]);
  add("events", "events", c.events);
  const EnergyBreakdown e = energy(c, prices);
  add("energy_pj", "pJ", e.total_pj());
  add("energy_hop_pj", "pJ", e.hop_pj);
  add("energy_sram_pj", "pJ", e.sram_pj);
  add("energy_flop_pj", "pJ", e.flop_pj);
  add("storage_overflow_tiles", "tiles", r.overflows.size());
  // NaN in counting mode (no values, no loss), which keeps the schema the same in both modes. A run with
  // values whose loss overflowed measures a NaN or an infinity too: the console tells the two NaNs apart by
  // whether the run has losses (results_table.h), a file by its sim.arith.
  add("final_loss", "1",
      r.loss_per_step.empty() ? std::numeric_limits<double>::quiet_NaN() : r.loss_per_step.back(), false);
  add("wall_seconds", "s", r.wall_seconds, false, true);
  add("events_per_second", "events/s",
      r.wall_seconds > 0 ? static_cast<double>(c.events) / r.wall_seconds : 0.0, false, true);
  return m;
}

double ratio_to_forward(double cost, double forward_cost) {
  if (forward_cost == 0 || !std::isfinite(forward_cost) || !std::isfinite(cost))
    return std::numeric_limits<double>::quiet_NaN();
  return cost / forward_cost;
}

const Metric& find_metric(const std::vector<Metric>& metrics, const std::string& name) {
  for (const auto& m : metrics)
    if (m.name == name) return m;
  throw std::out_of_range("no metric named " + name);
}

}  // namespace spatialsim::analysis
