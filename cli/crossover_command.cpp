// `spatialsim crossover`: the layer width d below which recomputing a layer's forward pass costs less
// energy than stashing and reloading its inputs, for the configured prices and block, beside seed 000's
// GPU figure (d ~ 190) and why they differ (analysis/crossover.h, docs/crossover.md). Nothing is
// simulated.
//
//   spatialsim crossover
//   spatialsim crossover --mapping.block=8x8 --energy.sram_pj=2 --crossover.widths=128,1024
//
// Exit codes (cli/command.h): 0, or 2 for bad input.

#include <iomanip>
#include <iostream>
#include <memory>
#include <string>

#include "analysis/crossover.h"
#include "analysis/results_table.h"
#include "cli/command.h"
#include "sim/option_spec.h"
#include "workloads/run_setup.h"
#include "workloads/schedules/i_schedule.h"

namespace spatialsim::cli {
namespace {

const sim::OptionRegistration options{
    {"crossover.widths", "list",
     "crossover: the widths d at which the recompute and stash energies are shown"},
    {"crossover.hbm_ratio", "1",
     "crossover: e_B / e_F at HBM for seed 000's GPU figure (67 on A100: d* = 68/24 x 67 ~ 190)"},
};

void print_model(std::ostream& out, const std::string& title, const analysis::CrossoverModel& m) {
  out << "  " << title << "\n    recompute = " << m.flops_per_d2 << " d^2 x " << m.e_flop_pj << " pJ";
  if (m.hop_bytes_per_d > 0) out << " + " << m.hop_bytes_per_d << " d byte-hops x " << m.e_hop_pj << " pJ";
  if (m.weight_bytes_per_d2 > 0)
    out << " + " << m.weight_bytes_per_d2 << " d^2 weight bytes x " << m.e_weight_read_pj << " pJ / "
        << m.tokens_per_weight_read << " tokens";
  out << "\n    stash     = 2 x " << m.stash_bytes_per_d << " d bytes x " << m.e_store_pj
      << " pJ (written once, read once; holding is free: static storage)\n"
      << "    d* = " << analysis::format_number(analysis::crossover_width(m))
      << (analysis::crossover_width(m) > 0
              ? ": recomputing costs less energy below it, stashing above it\n"
              : ": recomputing never costs less energy (its hops alone cost more than the store)\n");
}

// A ratio of energies is positive: one rule, and one message for every value it refuses (get_double's
// or get_nonnegative_double's own would offer -2 or 0 as examples).
double positive_number(const sim::Config& config, const std::string& key) {
  const auto refuse = [&] {
    config.fail(key, "must be a positive finite decimal number (for example 67 or 0.5)");
  };
  double value = 0;
  try {
    value = config.get_double(key);
  } catch (const sim::ConfigError&) {
    refuse();
  }
  if (!(value > 0)) refuse();
  return value;
}

class CrossoverCommand final : public Command {
 public:
  // The model, machine and step, and crossover.*; not schedules' options, nor what only runs, sweeps,
  // compare, kernels or theory read.
  bool reads(const std::string& key) const override {
    const std::string section = key.substr(0, key.find('.'));
    if (key.find('.') != std::string::npos && workloads::ScheduleRegistry::contains(section)) return false;
    return key != "schedule" && key != "out" && key != "theory_side_by_side" &&
           key != "machine.on_overflow" && !is_run_only(key) &&
           !in_any_section(key, {"sweep", "compare", "kernel", "theory", "fg", "splitfg"});
  }
  int execute(const sim::Config& config) override {
    const workloads::RunSetup setup = workloads::setup_from_config(config);
    const auto widths = config.get_positive_list("crossover.widths");
    const double ratio = positive_number(config, "crossover.hbm_ratio");
    const mappings::BlockLayout& block = setup.placement.blocks.front();
    const double b_a = setup.bytes.activation;

    const analysis::CrossoverModel inputs_only = analysis::grid_model(setup, b_a);
    const analysis::CrossoverModel replicated = analysis::grid_model(setup, b_a * block.cols);
    analysis::CrossoverModel seed_on_grid = analysis::seed000_gpu_model(1, setup.prices.flop_pj);
    seed_on_grid.e_store_pj = setup.prices.sram_pj;
    const analysis::CrossoverModel gpu = analysis::seed000_gpu_model(ratio, setup.prices.flop_pj);

    std::ostream& out = std::cout;
    out << "crossover: store versus recompute per token and layer, in energy (docs/crossover.md)\n"
        << "machine: block " << block.rows << "x" << block.cols << ", b_a " << setup.bytes.activation
        << ", b_p " << setup.bytes.partial_sum << ", b_w " << setup.bytes.weight
        << " bytes, weights read once per " << setup.tokens_per_wavefront
        << " tokens (step.wavefront); prices " << setup.prices.preset << ": " << setup.prices.hop_pj
        << " pJ/byte-hop, " << setup.prices.sram_pj << " pJ/SRAM byte, " << setup.prices.flop_pj
        << " pJ/flop\n\n";
    print_model(out, "grid, MLP layer d x d, inputs stashed once (backprop.xstash = rebroadcast)",
                inputs_only);
    print_model(out, "grid, MLP layer d x d, inputs replicated on the c tiles of a row (replicate)",
                replicated);
    print_model(out, "seed 000's transformer constants at the grid's SRAM price (no hops, no weight reads)",
                seed_on_grid);
    print_model(out, "seed 000's GPU figure: HBM at e_B = " + analysis::format_number(ratio) + " e_F", gpu);

    out << "\nper token-layer, pJ (grid, inputs stashed once)\n"
        << "  " << std::setw(8) << "d" << std::setw(14) << "recompute" << std::setw(14) << "stash"
        << "  cheaper\n";
    for (std::uint64_t w : widths) {
      const double d = static_cast<double>(w);
      const double r = analysis::recompute_pj(inputs_only, d);
      const double s = analysis::stash_pj(inputs_only, d);
      out << "  " << std::setw(8) << w << std::setw(14) << analysis::format_number(r) << std::setw(14)
          << analysis::format_number(s) << "  " << (r < s ? "recompute" : "stash") << '\n';
    }
    out << "\nwhy the grid's d* differs from seed 000's ~190: the stash round trip is priced at SRAM ("
        << setup.prices.sram_pj
        << " pJ/byte = " << analysis::format_number(setup.prices.sram_pj / setup.prices.flop_pj)
        << " e_F) instead of HBM (" << analysis::format_number(ratio)
        << " e_F), and the grid's recompute also pays its hops and weight reads, which seed 000 leaves out\n";
    return kExitOk;
  }
};

const CommandRegistry::Registration registration{
    "crossover",
    "the layer width below which recomputing a layer costs less energy than stashing its inputs, for the "
    "configured prices and block, beside seed 000's GPU figure",
    [](const sim::Config&) { return std::make_unique<CrossoverCommand>(); }};

}  // namespace
}  // namespace spatialsim::cli
