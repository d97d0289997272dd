#pragma once
// Writes simulated runs into an HDF5 results file (layout: docs/hdf5.md, "Layout of a results file").
//
// The writer never opens, commits or names the file: the command owns the Hdf5File and decides when it is
// complete. That is what lets other outputs (checks, exports, traces, sweeps) add their own groups to the
// same file, next to these, without touching this code: write these, write yours, commit.
//
// Usage:
//   check_output_path(out);                  // before running anything
//   ... run every schedule ...
//   Hdf5File file(out);
//   write_results(file, config, setup, results, kProgramVersion);   // root attributes and /runs/<schedule>
//   my_check_writer(file, run_group("backprop") + "/check");       // any further group
//   file.commit();

#include <string>
#include <string_view>
#include <vector>

#include "analysis/hdf5_file.h"
#include "sim/config.h"
#include "sim/counters.h"
#include "sim/energy_prices.h"
#include "workloads/run_setup.h"
#include "workloads/training_run.h"

namespace spatialsim::analysis {

// Where the datasets of one schedule's run live: "/runs/<schedule>".
std::string run_group(std::string_view schedule);

// Root attributes that say where a file came from: `config.<key>` = the value text, for every key of the
// resolved configuration, and `spatialsim_version`. Any command writing a file calls this.
void write_config_attributes(Hdf5File& file, const sim::Config& config, std::string_view program_version);

// Root attributes of the machine a run used: `energy_preset`, `energy_hop_pj`, `energy_sram_pj`,
// `energy_flop_pj` (the prices actually used, overrides applied), `grid_width`, `grid_height`.
void write_setup_attributes(Hdf5File& file, const workloads::RunSetup& setup);

// `<group>/byte_hops_by_phase_kind`, `bytes_by_phase_kind`, `messages_by_phase_kind`: uint64 arrays shaped
// (phase, kind), each with string-array attributes `phases` and `kinds` naming the rows and columns.
void write_phase_kind_counters(Hdf5File& file, std::string_view group, const sim::Counters& counters);

// Per-tile energy, pJ, in tile id order (y * width + x): byte_hops_sent x e_hop + sram_bytes x e_sram +
// flops x e_flop. Messages sent by the host (grid-edge inputs) belong to no tile; their energy is
// `host_pj`, so that sum(tile_pj) + host_pj == energy_pj of the run, up to round-off.
struct TileEnergy {
  std::vector<double> tile_pj;
  std::uint64_t host_byte_hops = 0;  // byte-hops of messages the host sent
  double host_pj = 0;
};
TileEnergy tile_energy(const workloads::RunResult& result, const sim::EnergyPrices& prices);

// Contract: writes `run_group(result.schedule)` and everything under it: every run_metrics() figure as a
// scalar dataset with its unit, the (phase, kind) counters, `loss` (1-D, per step; empty in counting
// mode), the per-tile maps under `tiles/` shaped (height, width), and the `overflows` table when a tile
// exceeded machine.sram_bytes. Throws OutputError if the group already holds any of these, and
// std::logic_error if the tile energy map does not add up to the run's energy (a counting bug).
// Returns the group path.
std::string write_run(Hdf5File& file, const workloads::RunResult& result, const sim::EnergyPrices& prices);

// `<group>/to_forward`: `result`'s machine costs (Metric::machine_cost) as ratios to `forward`'s, a
// forward-only run on the same setup (MODEL.md section 3): `metrics` (names, run_metrics() order) and
// `ratios` (float64, NaN where forward's figure is 0), with attribute `baseline` saying where forward's
// figures are.
void write_ratios_to_forward(Hdf5File& file, std::string_view group, const workloads::RunResult& result,
                             const workloads::RunResult& forward, std::string_view baseline,
                             const sim::EnergyPrices& prices);

// Everything the run command writes: config and setup attributes, `/runs/schedules` (the names, in run
// order), one group per result and, when `forward` is given (one of `results`, or a baseline run counted
// for the ratios alone), every other result's ratios to it.
void write_results(Hdf5File& file, const sim::Config& config, const workloads::RunSetup& setup,
                   const std::vector<workloads::RunResult>& results, const workloads::RunResult* forward,
                   std::string_view program_version);

}  // namespace spatialsim::analysis
