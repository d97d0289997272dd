#pragma once
// The measured figures of a run as a flat list of named values with units: the one schema that the
// console table, the HDF5 results file and the sweep table all use (MODEL.md section 3).
//
// Usage:
//   for (const Metric& m : run_metrics(result, prices))
//     std::cout << m.name << " " << m.text() << " " << m.unit << "\n";
//   EnergyBreakdown e = energy(result.counters, prices);

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "sim/counters.h"
#include "sim/energy_prices.h"
#include "workloads/training_run.h"

namespace spatialsim::analysis {

struct EnergyBreakdown {
  double hop_pj = 0;   // byte_hops x e_hop
  double sram_pj = 0;  // sram_bytes x e_sram
  double flop_pj = 0;  // flops x e_flop
  double total_pj() const { return hop_pj + sram_pj + flop_pj; }
};

EnergyBreakdown energy(const sim::Counters& counters, const sim::EnergyPrices& prices);

struct Metric {
  std::string name;  // snake_case, e.g. byte_hops_backward_psum
  std::string unit;  // "byte-hops", "byte-cycles", "bytes", "cycles", "hops", "flops", "pJ", "1", ...
  std::variant<std::uint64_t, double> value;
  // A cost of the simulated machine (MODEL.md section 3), reported also as a ratio to forward-only; false
  // for the loss and for the simulator's own wall time and event rate.
  bool machine_cost = true;
  // The simulator's own wall time and event rate: the only values that differ between two runs of one
  // configuration (the console table keeps them out of its column widths).
  bool timing = false;
  double as_double() const;
  std::string text() const;  // full precision
};

// Every counter: totals, per phase, per kind and per (phase, kind) for traffic; storage, depth, time,
// work, energy by term, the loss after the last step (final_loss: NaN in counting mode), and the run's
// wall time and event rate.
std::vector<Metric> run_metrics(const workloads::RunResult& result, const sim::EnergyPrices& prices);

// A schedule's cost as a multiple of forward-only's: NaN where that is undefined (forward's is zero, or
// either is not finite). The console table prints NaN as "-"; the HDF5 results store it.
double ratio_to_forward(double cost, double forward_cost);

// Looks a metric up by name; throws std::out_of_range if absent.
const Metric& find_metric(const std::vector<Metric>& metrics, const std::string& name);

}  // namespace spatialsim::analysis
