// `spatialsim crossover`: the layer width d below which recomputing a layer's forward pass costs less
// energy than stashing and reloading its inputs, for the configured prices and block, beside seed 000's
// GPU figure (d ~ 190) and why they differ (analysis/crossover.h, docs/crossover.md). Nothing is
// simulated.
//
//   spatialsim crossover
//   spatialsim crossover --mapping.block=8x8 --energy.sram_pj=2 --crossover.widths=128,1024
//
// Exit codes (cli/command.h): 0, or 2 for bad input.

#include <algorithm>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <iomanip>
#include <iostream>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "analysis/crossover.h"
#include "analysis/results_table.h"
#include "cli/command.h"
#include "sim/energy_prices.h"
#include "sim/grid.h"
#include "sim/option_spec.h"
#include "sim/text.h"
#include "workloads/run_setup.h"

namespace spatialsim::cli {
namespace {

const sim::OptionRegistration options{
    {"crossover.widths", "list",
     "crossover: the widths d at which the recompute and stash energies are shown"},
    {"crossover.hbm_ratio", "1",
     "crossover: e_B / e_F at HBM for seed 000's GPU figure (67 on A100: d* = 68/24 x 67 ~ 190)"},
};

void print_model(std::ostream& out, const std::string& title, const analysis::CrossoverModel& m) {
  const double d_star = analysis::crossover_width(m);
  out << "  " << title << "\n    recompute = " << m.flops_per_d2 << " d^2 x " << m.e_flop_pj << " pJ";
  if (m.hop_bytes_per_d > 0) out << " + " << m.hop_bytes_per_d << " d byte-hops x " << m.e_hop_pj << " pJ";
  if (m.weight_bytes_per_d2 > 0)
    out << " + " << m.weight_bytes_per_d2 << " d^2 weight bytes x " << m.e_weight_read_pj << " pJ / "
        << m.tokens_per_weight_read << " tokens";
  out << "\n    stash     = 2 x " << m.stash_bytes_per_d << " d bytes x " << m.e_store_pj
      << " pJ (written once, read once; holding is free: static storage)\n"
      << "    d* = " << analysis::format_number(d_star);
  if (d_star > 0) {
    out << ": recomputing costs less energy below it, stashing above it\n";
    return;
  }
  // Both sides are d times a price here: the store's and the recompute's hops (the d^2 terms only add).
  out << ": recomputing never costs less energy (the stash's round trip, "
      << analysis::format_number(2.0 * m.stash_bytes_per_d * m.e_store_pj)
      << " pJ per d, is no more than the recompute's hops alone, "
      << analysis::format_number(m.hop_bytes_per_d * m.e_hop_pj) << " pJ per d)\n";
}

// A ratio of energies is positive, and at most the largest price (energy.*, 1e6): one rule, and one message
// for every value it refuses (get_double's or get_nonnegative_double's own would offer -2 or 0 as
// examples; 1e308 made d* infinite).
double positive_ratio(const sim::Config& config, const std::string& key) {
  const auto refuse = [&] {
    config.fail(key, "must be a positive decimal number at most 1e6 (for example 67 or 0.5)");
  };
  double value = 0;
  try {
    value = config.get_double(key);
  } catch (const sim::ConfigError&) {
    refuse();
  }
  if (!(value > 0) || value > 1e6) refuse();
  return value;
}

// The configuration with the model replaced by one layer the block fits, a step of one wavefront, an auto
// grid and the zigzag placement, fully spatial (the one the hop term assumes, analysis/crossover.h). The
// setup then holds the block, bytes, wavefront and prices crossover prints, and the model, step.tokens,
// mapping.grid, mapping.placement and mapping.stages, which it does not read, can neither change nor refuse
// its output (a 16x16 block needs no wider model, a wavefront of 128 no longer step, one layer no fewer
// stages).
sim::Config one_layer_stand_in(const sim::Config& config) {
  const auto [rows, cols] = config.get_dims("mapping.block");
  // The block is the whole grid here: a block too large for a grid is named by its own key.
  if (std::uint64_t{rows} * cols > sim::Grid::kMaxTiles)
    config.fail("mapping.block", "has " + std::to_string(std::uint64_t{rows} * cols) +
                                     " tiles, more than the " + std::to_string(sim::Grid::kMaxTiles) +
                                     " a grid may have; give a smaller block");
  const std::string side = std::to_string(std::max(rows, cols));
  // At most 2^32 - 1 so that a wavefront too large is reported by its own key, not by step.tokens.
  const std::string tokens =
      std::to_string(std::min<std::uint64_t>(config.get_positive("step.wavefront"), 0xFFFFFFFFull));
  sim::Config stand_in = config;
  for (const auto& [key, value] :
       std::vector<std::pair<std::string, std::string>>{{"model.kind", "mlp"},
                                                        {"model.widths", ""},
                                                        {"model.depth", "1"},
                                                        {"model.inputs", side},
                                                        {"model.width", side},
                                                        {"model.outputs", side},
                                                        {"step.tokens", tokens},
                                                        {"mapping.grid", "auto"},
                                                        {"mapping.placement", "zigzag"},
                                                        {"mapping.stages", "0"}})
    stand_in.set(key, value, "crossover's one-layer stand-in");
  return stand_in;
}

class CrossoverCommand final : public Command {
 public:
  // crossover.* and what reaches the printed figures: the block, the bytes per element, the wavefront
  // (weights read once per wavefront) and the prices. Not the model (the layer is d x d for each d in
  // crossover.widths), step.tokens, the grid, the placement, timing, data, training or the schedules'
  // options: given on the command line, they could not change a number, and are refused.
  bool reads(const std::string& key) const override {
    static const std::set<std::string, std::less<>> kPrinted = {
        "mapping.block", "machine.act_bytes", "machine.psum_bytes", "machine.weight_bytes", "step.wavefront"};
    return in_any_section(key, {"crossover", "energy"}) || kPrinted.contains(key);
  }
  int execute(const sim::Config& config) override {
    const workloads::RunSetup setup = workloads::setup_from_config(one_layer_stand_in(config));
    auto widths = config.get_positive_list("crossover.widths");
    if (widths.empty())  // it printed the table's header alone
      config.fail("crossover.widths", "lists no width; give one or more, such as 64,512,4096");
    for (std::size_t i = 0; i < widths.size(); ++i)  // a repeat printed its row twice
      if (std::find(widths.begin(), widths.begin() + static_cast<std::ptrdiff_t>(i), widths[i]) !=
          widths.begin() + static_cast<std::ptrdiff_t>(i))
        config.fail("crossover.widths", "lists " + std::to_string(widths[i]) +
                                            " twice, which would print one row twice; list each width once");
    const double ratio = positive_ratio(config, "crossover.hbm_ratio");
    const mappings::BlockLayout& block = setup.placement.blocks.front();
    // A d x d layer splits d_in over the block's r rows and d_out over its c columns (MODEL.md section 4):
    // a narrower layer has no r x c mapping, and `run` refuses it; so is a table row for it that the user
    // asked for. The default widths serve any block: those below it are left out, and a note says which.
    const std::uint32_t narrowest = std::max(block.rows, block.cols);
    const std::string block_text = std::to_string(block.rows) + "x" + std::to_string(block.cols);
    const bool asked = config.is_explicit("crossover.widths");
    std::vector<std::uint64_t> left_out;
    for (std::uint64_t w : widths) {
      if (w >= narrowest) continue;
      if (asked)
        config.fail("crossover.widths", "lists " + std::to_string(w) + ", narrower than the " + block_text +
                                            " block (mapping.block): a d x d layer on it needs d >= " +
                                            std::to_string(narrowest) + "; give widths of at least " +
                                            std::to_string(narrowest) + " or a smaller mapping.block");
      left_out.push_back(w);
    }
    std::erase_if(widths, [&](std::uint64_t w) { return w < narrowest; });
    if (widths.empty())
      config.fail("crossover.widths", "has no width of at least " + std::to_string(narrowest) + ", which a " +
                                          block_text +
                                          " block (mapping.block) needs; give such widths or a "
                                          "smaller mapping.block");
    const double b_a = setup.bytes.activation;

    const analysis::CrossoverModel inputs_only = analysis::grid_model(setup, b_a);
    const analysis::CrossoverModel replicated = analysis::grid_model(setup, b_a * block.cols);
    analysis::CrossoverModel seed_on_grid = analysis::seed000_gpu_model(1, setup.prices.flop_pj);
    seed_on_grid.e_store_pj = setup.prices.sram_pj;
    const analysis::CrossoverModel gpu = analysis::seed000_gpu_model(ratio, setup.prices.flop_pj);

    // Seed 000's two models price recomputing by its FLOPs alone: at 0 pJ per FLOP recomputing costs
    // nothing and there is no crossover width. Refused before anything is printed.
    for (const analysis::CrossoverModel* m : std::initializer_list<const analysis::CrossoverModel*>{
             &inputs_only, &replicated, &seed_on_grid, &gpu}) {
      try {
        analysis::crossover_width(*m);
      } catch (const std::invalid_argument&) {
        config.fail("energy.flop_pj",
                    "prices a FLOP at 0 pJ, and seed 000's crossover models price recomputing by its FLOPs "
                    "alone, so recomputing would cost nothing and no crossover width exists; give a "
                    "positive energy.flop_pj, or leave it empty for the preset's price");
      } catch (const std::overflow_error&) {
        config.fail("energy.flop_pj",
                    "prices a FLOP so near 0 pJ that a crossover width, where recomputing stops costing less "
                    "than stashing, is beyond a double's range; give a larger energy.flop_pj, or leave it "
                    "empty for the preset's price");
      }
    }

    std::ostream& out = std::cout;
    out << "crossover: store versus recompute per token and layer, in energy (docs/crossover.md)\n"
        << "machine: block " << block.rows << "x" << block.cols << ", b_a " << setup.bytes.activation
        << ", b_p " << setup.bytes.partial_sum << ", b_w " << setup.bytes.weight
        << " bytes, weights read once per " << setup.tokens_per_wavefront
        << " tokens (step.wavefront); prices " << sim::prices_source(setup.prices) << ": "
        << setup.prices.hop_pj << " pJ/byte-hop, " << setup.prices.sram_pj << " pJ/SRAM byte, "
        << setup.prices.flop_pj << " pJ/flop\n";
    if (!left_out.empty())
      out << "note: the default crossover.widths narrower than the " << block_text
          << " block, which has no mapping of them, are left out of the table: " << sim::joined(left_out)
          << "\n";
    if (block.rows != block.cols)
      out << "note: h counts one redistribution hop per element, which the zigzag placement achieves for "
             "square blocks only; between "
          << block.rows << "x" << block.cols
          << " blocks the layers' partitions differ and a boundary costs more (spatialsim theory gives a "
             "model's exact byte-hops), so the grid's d* below are upper bounds\n";
    out << '\n';
    print_model(out, "grid, MLP layer d x d, inputs stashed once (backprop.xstash = rebroadcast)",
                inputs_only);
    print_model(out, "grid, MLP layer d x d, inputs replicated on the c tiles of a row (replicate)",
                replicated);
    print_model(out, "seed 000's transformer constants at the grid's SRAM price (no hops, no weight reads)",
                seed_on_grid);
    print_model(out,
                "seed 000's GPU figure: HBM at e_B = " + analysis::format_number(ratio) +
                    " e_F (at the grid's pJ per flop; d* depends on the ratio only)",
                gpu);

    out << "\nper token-layer, pJ (grid, inputs stashed once)\n"
        << "  " << std::setw(8) << "d" << std::setw(14) << "recompute" << std::setw(14) << "stash"
        << "  cheaper\n";
    for (std::uint64_t w : widths) {
      const double d = static_cast<double>(w);
      const double r = analysis::recompute_pj(inputs_only, d);
      const double s = analysis::stash_pj(inputs_only, d);
      out << "  " << std::setw(8) << w << std::setw(14) << analysis::format_number(r) << std::setw(14)
          << analysis::format_number(s) << "  "
          << (r < s   ? "recompute"
              : r > s ? "stash"
                      : "equal")
          << '\n';
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
    "find the layer width below which recomputing a layer costs less energy than stashing its inputs, "
    "for the configured prices and block, beside seed 000's GPU figure",
    [](const sim::Config&) { return std::make_unique<CrossoverCommand>(); }};

}  // namespace
}  // namespace spatialsim::cli
