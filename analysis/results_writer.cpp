#include "analysis/results_writer.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <span>
#include <stdexcept>
#include <variant>

#include "analysis/run_metrics.h"
#include "sim/blas_kernels.h"
#include "sim/types.h"

namespace spatialsim::analysis {
namespace {

template <std::size_t N>
std::vector<std::string> names_of(const std::array<std::string_view, N>& names) {
  return {names.begin(), names.end()};
}

void write_phase_kind(Hdf5File& file, const std::string& path, const sim::PerPhaseKind<std::uint64_t>& table,
                      std::string_view unit) {
  std::vector<std::uint64_t> cells;
  cells.reserve(sim::kPhaseCount * sim::kMessageKindCount);
  for (const auto& row : table.cells) cells.insert(cells.end(), row.begin(), row.end());
  file.write_array(path, std::span<const std::uint64_t>(cells), {sim::kPhaseCount, sim::kMessageKindCount},
                   unit);
  file.set_attribute(path, "phases", names_of(sim::kPhaseNames));
  file.set_attribute(path, "kinds", names_of(sim::kMessageKindNames));
}

void write_tile_maps(Hdf5File& file, const std::string& group, const workloads::RunResult& r,
                     const sim::EnergyPrices& prices) {
  const ArrayShape shape{r.grid_height, r.grid_width};
  const sim::TileCounters& t = r.tiles;
  const auto map = [&](const char* name, const std::vector<std::uint64_t>& values, const char* unit) {
    file.write_array(group + "/" + name, std::span<const std::uint64_t>(values), shape, unit);
  };
  map("bytes_sent", t.bytes_sent, "bytes");
  map("bytes_received", t.bytes_received, "bytes");
  map("byte_hops_sent", t.byte_hops_sent, "byte-hops");
  map("peak_stash_bytes", t.peak_stash_bytes, "bytes");
  map("flops", t.flops, "flops");
  map("sram_bytes", t.sram_bytes, "bytes");

  const TileEnergy e = tile_energy(r, prices);
  const double total = energy(r.counters, prices).total_pj();
  const double summed = std::accumulate(e.tile_pj.begin(), e.tile_pj.end(), 0.0) + e.host_pj;
  // Each tile's terms are exact products of integers and prices; only the summation order differs.
  if (std::abs(summed - total) > 1e-9 * std::max(1.0, std::abs(total))) {
    throw std::logic_error("results writer, schedule " + r.schedule + ": the tiles' energy (" +
                           std::to_string(summed) + " pJ with the host's) does not add up to energy_pj (" +
                           std::to_string(total) + " pJ): the per-tile counters disagree with the totals");
  }
  file.write_array(group + "/energy_pj", std::span<const double>(e.tile_pj), shape, "pJ");
  file.write_scalar(group + "/host_byte_hops_sent", e.host_byte_hops, "byte-hops");
  file.write_scalar(group + "/host_energy_pj", e.host_pj, "pJ");
}

void write_overflows(Hdf5File& file, const std::string& path, const workloads::RunResult& r) {
  std::size_t longest = 1;
  for (const auto name : sim::kStorageCategoryNames) longest = std::max(longest, name.size());
  TableWriter table = file.create_table(path, {{"tile", ColumnType::uint64, "1"},
                                               {"x", ColumnType::uint64, "tiles"},
                                               {"y", ColumnType::uint64, "tiles"},
                                               {"category", ColumnType::string, "", longest},
                                               {"excess_bytes", ColumnType::uint64, "bytes"},
                                               {"first_cycle", ColumnType::uint64, "cycles"}});
  for (const sim::StorageOverflow& o : r.overflows) {
    const std::uint64_t x = r.grid_width == 0 ? 0 : o.tile % r.grid_width;
    const std::uint64_t y = r.grid_width == 0 ? 0 : o.tile / r.grid_width;
    table.append({static_cast<std::uint64_t>(o.tile), x, y, sim::name(o.category), o.excess_bytes,
                  static_cast<std::uint64_t>(o.first_cycle)});
  }
  table.close();
}

}  // namespace

std::string run_group(std::string_view schedule) {
  return "/runs/" + std::string(schedule);
}

void write_config_attributes(Hdf5File& file, const sim::Config& config, std::string_view program_version) {
  for (const auto& key : config.keys()) file.set_attribute("/", "config." + key, config.raw(key));
  file.set_attribute("/", "config_set", sim::joined(config.explicit_settings(), "\n"));
  file.set_attribute("/", "spatialsim_version", program_version);
  file.set_attribute("/", "blas", sim::blas_configuration());  // its kernels round fp32 products
}

void write_setup_attributes(Hdf5File& file, const workloads::RunSetup& setup) {
  file.set_attribute("/", "energy_preset", setup.prices.preset);
  file.set_attribute("/", "energy_hop_pj", setup.prices.hop_pj);
  file.set_attribute("/", "energy_sram_pj", setup.prices.sram_pj);
  file.set_attribute("/", "energy_flop_pj", setup.prices.flop_pj);
  file.set_attribute("/", "grid_width", setup.grid_width);
  file.set_attribute("/", "grid_height", setup.grid_height);
}

void write_phase_kind_counters(Hdf5File& file, std::string_view group, const sim::Counters& counters) {
  const std::string g(group);
  write_phase_kind(file, g + "/byte_hops_by_phase_kind", counters.byte_hops, "byte-hops");
  write_phase_kind(file, g + "/bytes_by_phase_kind", counters.bytes, "bytes");
  write_phase_kind(file, g + "/messages_by_phase_kind", counters.messages, "messages");
}

TileEnergy tile_energy(const workloads::RunResult& r, const sim::EnergyPrices& prices) {
  const sim::TileCounters& t = r.tiles;
  TileEnergy e;
  e.tile_pj.resize(t.byte_hops_sent.size());
  std::uint64_t tile_byte_hops = 0;
  for (std::size_t i = 0; i < e.tile_pj.size(); ++i) {
    e.tile_pj[i] = static_cast<double>(t.byte_hops_sent[i]) * prices.hop_pj +
                   static_cast<double>(t.sram_bytes[i]) * prices.sram_pj +
                   static_cast<double>(t.flops[i]) * prices.flop_pj;
    tile_byte_hops += t.byte_hops_sent[i];
  }
  const std::uint64_t total = r.counters.byte_hops.total();
  e.host_byte_hops = total >= tile_byte_hops ? total - tile_byte_hops : 0;
  e.host_pj = static_cast<double>(e.host_byte_hops) * prices.hop_pj;
  return e;
}

std::string write_run(Hdf5File& file, const workloads::RunResult& r, const sim::EnergyPrices& prices) {
  const std::string group = run_group(r.schedule);
  file.set_attribute(group, "schedule", r.schedule);
  for (const Metric& m : run_metrics(r, prices)) {
    std::visit([&](auto value) { file.write_scalar(group + "/" + m.name, value, m.unit); }, m.value);
  }
  write_phase_kind_counters(file, group, r.counters);
  file.write_array(group + "/loss", std::span<const double>(r.loss_per_step), {}, "1");
  file.set_attribute(group + "/loss", "axis", "step");
  write_tile_maps(file, group + "/tiles", r, prices);
  if (!r.overflows.empty()) write_overflows(file, group + "/overflows", r);
  return group;
}

void write_ratios_to_forward(Hdf5File& file, std::string_view group, const workloads::RunResult& result,
                             const workloads::RunResult& forward, std::string_view baseline,
                             const sim::EnergyPrices& prices) {
  const std::vector<Metric> base = run_metrics(forward, prices);
  std::vector<std::string> names;
  std::vector<double> ratios;
  for (const Metric& m : run_metrics(result, prices)) {
    if (!m.machine_cost) continue;
    const double f = find_metric(base, m.name).as_double();
    names.push_back(m.name);
    ratios.push_back(ratio_to_forward(m.as_double(), f));
  }
  const std::string g = std::string(group) + "/to_forward";
  file.write_strings(g + "/metrics", names);
  file.write_array(g + "/ratios", std::span<const double>(ratios), {}, "1");
  file.set_attribute(g, "baseline", std::string(baseline));
}

void write_results(Hdf5File& file, const sim::Config& config, const workloads::RunSetup& setup,
                   const std::vector<workloads::RunResult>& results, const workloads::RunResult* forward,
                   std::string_view program_version) {
  write_config_attributes(file, config, program_version);
  write_setup_attributes(file, setup);
  std::vector<std::string> schedules;
  for (const auto& r : results) schedules.push_back(r.schedule);
  file.write_strings("/runs/schedules", schedules);
  const bool forward_ran = std::any_of(results.begin(), results.end(),
                                       [&](const workloads::RunResult& r) { return &r == forward; });
  for (const auto& r : results) {
    const std::string group = write_run(file, r, setup.prices);
    if (forward != nullptr && &r != forward)
      write_ratios_to_forward(
          file, group, r, *forward,
          forward_ran ? "/runs/forward" : "a forward run counted for these ratios alone (not in /runs)",
          setup.prices);
  }
}

}  // namespace spatialsim::analysis
