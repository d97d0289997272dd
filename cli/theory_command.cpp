// `spatialsim theory`: evaluates MODEL.md section 9's closed forms (seed 000, section 6) for the
// configured model and machine, with every input, unit and number, and beside them the exact per-token
// byte-hops and the depth of the configured blocks and placement, which is what `spatialsim run` counts.
// Nothing is simulated, so it is instant even for seed 000's 32-layer, 8192-tile configuration
// (docs/theory.md).
//
//   spatialsim theory --config configs/seed-grid.ini
//   spatialsim theory --config configs/seed-grid.ini --theory.stash_constant=34 --theory.pipeline_stages=4
//
// Exit codes (cli/command.h): 0, or 2 for bad input (reported as one line by main()).

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <iostream>
#include <limits>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <utility>

#include "analysis/theory.h"
#include "cli/command.h"
#include "sim/energy_prices.h"
#include "sim/grid.h"
#include "sim/option_spec.h"
#include "sim/text.h"
#include "workloads/run_setup.h"
#include "workloads/schedules/i_schedule.h"

namespace spatialsim::cli {
namespace {

const sim::OptionRegistration options{
    {"theory.stash_constant", "bytes",
     "c: bytes stashed per token, layer and element of d (2 = bf16 inputs only; 34 = a transformer's "
     "store-all)"},
    {"theory.pipeline_stages", "stages",
     "p: stages of seed 000's 1F1B pipeline in the closed form of its in-flight storage (mapping.stages "
     "simulates a pipelined mapping; a real one has p <= L)"},
    {"theory.tokens", "tokens", "T_tau: tokens in flight per layer; 0 = step.wavefront"},
};

// Seed 000's two stash constants: a transformer layer storing everything the backward pass reads
// (Korthikanti et al. 2022, 34 bytes per token per d, without attention scores) and bf16 inputs only.
constexpr double kStoreAllStash = 34;
constexpr double kInputsOnlyStash = 2;

std::string full(double x) {
  std::ostringstream s;
  s.precision(10);
  s << x;
  return s.str();
}

std::string bytes_text(double bytes) {
  std::ostringstream s;
  // Whole counts digit by digit (llround is only defined below 2^63); a fractional count (a stash constant
  // such as 0.475 on a tiny model) or a huge one in full precision, never rounded to a whole byte.
  s << analysis::gigabytes(bytes) << " (";
  if (bytes < 9.2e18 && bytes == std::floor(bytes)) {
    s << std::llround(bytes);
  } else {
    s << full(bytes);
  }
  s << (bytes == 1 ? " byte)" : " bytes)");
  return s.str();
}

// The largest number of two significant figures not above x, as two_significant prints it: a limit that
// is suggested must itself be accepted (1.8e304 was suggested for a limit of 1.7556e304).
std::string two_significant_at_most(double x) {
  const double step = std::pow(10.0, std::floor(std::log10(x)) - 1);
  double v = std::floor(x / step) * step;
  while (v > 0 && std::stod(analysis::two_significant(v)) > x) v -= step;
  return analysis::two_significant(v);
}

class TheoryCommand final : public Command {
 public:
  // theory.* and what reaches the printed figures: the model's layers, activation and loss (the loss's
  // scalars lengthen the depth), the blocks, placement and grid (routes, the grid edge), the bytes on links
  // and per weight, the step's tokens, the SRAM and flop prices and backprop.xstash. Not what only a
  // simulation uses (timing, SRAM size, data, training, seeds, arithmetic, the other schedules' options, the
  // outputs): given on the command line, they could not change a number, and are refused.
  bool reads(const std::string& key) const override {
    static const std::set<std::string, std::less<>> kPrinted = {
        "model.kind",       "model.widths",      "model.depth",        "model.inputs",
        "model.width",      "model.outputs",     "model.activation",   "model.loss",
        "mapping.block",    "mapping.placement", "mapping.stages",     "mapping.grid",
        "machine.topology", "machine.act_bytes", "machine.psum_bytes", "machine.weight_bytes",
        "step.tokens",      "step.wavefront",    "energy.preset",      "energy.sram_pj",
        "energy.flop_pj",   "backprop.xstash"};
    return in_any_section(key, {"theory"}) || kPrinted.contains(key);
  }
  int execute(const sim::Config& config) override {
    // Nothing is simulated, so no value is allocated: a model too large for this host's memory in fp32
    // still has closed forms (setup_from_config refuses such a model unless it only counts).
    sim::Config counted = config;
    counted.set("sim.arith", "none", "theory: computes no values");
    const workloads::RunSetup setup = workloads::setup_from_config(counted);
    if (setup.model.kind != workloads::ModelKind::mlp)
      config.fail("model.kind",
                  "theory evaluates MODEL.md section 9's closed forms for an MLP; use model.kind=mlp");
    const auto& widths = setup.model.widths;
    const double L = setup.model.layers();

    const double c = config.get_nonnegative_double("theory.stash_constant");
    const std::uint64_t p = config.get_positive("theory.pipeline_stages");
    const std::uint64_t tokens_option = config.get_uint("theory.tokens");
    const std::uint64_t tokens_in_flight = tokens_option == 0 ? setup.tokens_per_wavefront : tokens_option;
    const double T_tau = static_cast<double>(tokens_in_flight);
    const analysis::RepresentativeWidths dk = analysis::representative_widths(widths);
    require_finite_storage(config, L, static_cast<double>(p), setup.placement.stages, T_tau, c, dk.d);

    const double d = dk.d;
    const double k = dk.k;
    const mappings::BlockLayout& block = setup.placement.blocks.front();
    const double n = block.tile_count();
    const double b_a = setup.bytes.activation;
    const double b_p = setup.bytes.partial_sum;
    const double e_sram = setup.prices.sram_pj;
    // Seed 000's e_mac is its datapath price per multiply-add, 0.1 pJ: the configured price per flop.
    const double e_mac = setup.prices.flop_pj;

    std::ostream& out = std::cout;
    out << "theory: closed forms of MODEL.md section 9 (seed 000, section 6) for the configured model and "
           "machine\n"
        << "units: GB = 1e9 bytes; byte-hops = bytes x hops; storage is the peak with the pipeline full\n\n";

    out << "inputs\n"
        << "  L = " << sim::counted(setup.model.layers(), "layer", "layers") << "\n"
        << "  d = " << dk.d << ", k = " << dk.k << " elements";
    if (std::set<std::uint32_t>(widths.begin(), widths.end()).size() > 1) {
      out << " (the layer widths differ: d = the most frequent width, the model width; k = the most frequent "
             "output width of the layers that take d inputs, the FFN width)";
    }
    out << "\n  n = " << sim::counted(block.tile_count(), "tile", "tiles")
        << " per layer (mapping.block = " << block.rows << "x" << block.cols
        << ", sqrt(n) = " << full(std::sqrt(n)) << ")";
    if (block.rows != block.cols)
      out << " (the block is not square: the closed forms assume sqrt(n) x sqrt(n))";
    out << "\n  b_a = " << sim::counted(setup.bytes.activation, "byte", "bytes")
        << " per activation, b_p = " << sim::counted(setup.bytes.partial_sum, "byte", "bytes")
        << " per partial sum (machine.act_bytes, machine.psum_bytes)\n"
        << "  T_tau = " << sim::counted(tokens_in_flight, "token", "tokens") << " in flight per layer ("
        << (tokens_option == 0 ? "theory.tokens = 0: step.wavefront" : "theory.tokens") << ")\n"
        << "  c = " << full(c) << (c == 1 ? " byte" : " bytes")
        << " per token-layer-d (theory.stash_constant)\n"
        << "  p = " << sim::counted(p, "pipeline stage", "pipeline stages") << " (theory.pipeline_stages)"
        << (p > setup.model.layers() ? " (more stages than layers: the pipeline figures are formal, kept for "
                                       "comparison with seed 000's 8 stages)"
                                     : "")
        << "\n"
        << "  e_sram = " << full(e_sram) << " pJ/byte, e_mac = " << full(e_mac)
        << " pJ (energy.sram_pj and energy.flop_pj; prices " << sim::prices_source(setup.prices) << ")\n\n";

    out << "closed forms\n";
    const double hpf = analysis::hops_per_flop(d, k, n, b_a, b_p);
    out << "  hops_per_flop = "
        << (b_a == 2 && b_p == 2 ? "(d + k) sqrt(n) / (d k)" : "(b_a d + b_p k) sqrt(n) / (2 d k)") << " = "
        << analysis::two_significant(hpf) << " byte-hops per FLOP (" << full(hpf) << ")\n";
    print_storage(out, L, p, setup.placement.stages, T_tau, c, d);
    const double depth = analysis::depth_hops(L, n);
    out << "  depth = 2 L sqrt(n) = " << full(depth) << " hops\n";
    // No ratio to print when it is not a number: e_mac = 0 (-0 too), or so small that e_sram / e_mac
    // overflows a double (energy.flop_pj = 1e-320 printed inf). print_reuse says so of the counted form.
    if (!std::isfinite(analysis::reuse_threshold(e_sram, e_mac)) || e_mac == 0) {
      out << "  reuse_threshold = e_sram / e_mac: none, energy.flop_pj = " << full(e_mac)
          << (e_mac == 0 ? " (a multiply-add costs nothing" : " (a multiply-add costs next to nothing")
          << ", so no reuse brings a weight read's energy per input down to it)\n\n";
    } else {
      print_reuse(out, e_sram, e_mac, setup.bytes.weight);
    }
    print_exact(out, config, setup, T_tau);
    return kExitOk;
  }

 private:
  static void print_reuse(std::ostream& out, double e_sram, double e_mac, double b_w) {
    const double reuse = analysis::reuse_threshold(e_sram, e_mac);
    const double counted = analysis::reuse_threshold_as_counted(b_w, e_sram, e_mac);
    out << "  reuse_threshold = e_sram / e_mac = " << analysis::two_significant(reuse)
        << " inputs per weight read from SRAM (T_local >= " << full(reuse)
        << "; e_mac = energy.flop_pj, seed 000's price per multiply-add)\n"
        << "    as the simulator counts energy (a weight read is b_w = " << b_w
        << " bytes of e_sram, a multiply-add 2 flops of e_flop): b_w e_sram / (2 e_flop) = ";
    if (std::isfinite(counted)) {
      out << analysis::two_significant(counted) << " (" << full(counted) << ")"
          << (b_w == 2 ? ": the same, since b_w = 2" : "") << "\n\n";
    } else {  // b_w e_sram overflows where e_sram alone did not
      out << "none, beyond a double's range\n\n";
    }
  }

  // The in-flight figures multiply c by L^2 T_tau d (or L p T_tau d): a c that makes one of them infinite is
  // refused before anything is printed, with the largest c that keeps them all finite.
  static void require_finite_storage(const sim::Config& config, double L, double p, std::uint32_t mapped,
                                     double T_tau, double c, double d) {
    using analysis::StashSum;
    double per_unit_c = 0;
    for (const double figure : {analysis::inflight_fully_spatial(L, T_tau, 1, d),
                                analysis::inflight_fully_spatial(L, T_tau, 1, d, StashSum::from_zero),
                                analysis::inflight_fully_spatial(L, T_tau, 1, d, StashSum::from_one),
                                analysis::inflight_pipeline(L, p, T_tau, 1, d),
                                analysis::inflight_pipeline(L, mapped, T_tau, 1, d)})
      per_unit_c = std::max(per_unit_c, figure);
    if (std::isfinite(per_unit_c * c)) return;
    config.fail(
        "theory.stash_constant",
        "makes the in-flight figures (c x L^2 T_tau d and c x L p T_tau d / 2) pass the largest number "
        "a double holds; give at most " +
            two_significant_at_most(std::numeric_limits<double>::max() / per_unit_c) +
            " bytes per token-layer-d");
  }

  // p: theory.pipeline_stages; mapped: mapping.stages (0: fully spatial), printed too when it differs.
  static void print_storage(std::ostream& out, double L, std::uint64_t p, std::uint32_t mapped, double T_tau,
                            double c, double d) {
    using analysis::StashSum;
    const double P = static_cast<double>(p);
    out << "  inflight_fully_spatial = sum_l 2 (L - l) T_tau c d ~ L^2 T_tau c d\n";
    for (const auto& [stash, why] : {std::pair<double, const char*>{kStoreAllStash, "store-all, transformer"},
                                     {kInputsOnlyStash, "seed 000's bf16 inputs only"},
                                     {c, "configured"}}) {
      out << "    c = " << full(stash) << " (" << why
          << "): " << bytes_text(analysis::inflight_fully_spatial(L, T_tau, stash, d))
          << "; exact sums: l = 0..L-1 "
          << bytes_text(analysis::inflight_fully_spatial(L, T_tau, stash, d, StashSum::from_zero))
          << ", l = 1..L "
          << bytes_text(analysis::inflight_fully_spatial(L, T_tau, stash, d, StashSum::from_one)) << "\n";
    }
    out << "  inflight_pipeline = 1/2 L p T_tau c d (seed 000's 1F1B form; mapping.stages = p simulates the "
           "mapping, docs/theory.md)\n";
    out << "    p = " << p << ", c = " << full(kStoreAllStash)
        << " (store-all): " << bytes_text(analysis::inflight_pipeline(L, P, T_tau, kStoreAllStash, d))
        << "\n";
    out << "    p = " << p << ", c = " << full(c)
        << " (configured): " << bytes_text(analysis::inflight_pipeline(L, P, T_tau, c, d)) << "\n";
    if (mapped != 0 && mapped != p) {
      out << "    p = " << mapped << " (mapping.stages), c = " << full(c)
          << " (configured): " << bytes_text(analysis::inflight_pipeline(L, mapped, T_tau, c, d)) << "\n";
    }
  }

  static void print_exact(std::ostream& out, const sim::Config& config, const workloads::RunSetup& setup,
                          double T_tau) {
    const bool nonlinear = setup.model.activation != mappings::Activation::identity;
    const auto& widths = setup.model.widths;
    const auto layers = analysis::layer_geometry(widths, setup.placement);
    const sim::Grid grid(setup.grid_width, setup.grid_height, setup.topology);
    // Asked of the schedule, which reads backprop.xstash: the forms follow what the simulated one does.
    const bool rebroadcast = workloads::ScheduleRegistry::create("backprop", config)->forward_stash(0) ==
                             mappings::XStash::rebroadcast;
    const std::uint64_t redistribution =
        analysis::redistribution_byte_hops_per_token(widths, setup.placement, setup.bytes.activation, grid);
    const std::uint64_t host =
        analysis::host_byte_hops_per_token(widths, setup.placement, setup.bytes.activation, grid);
    const std::uint64_t flops = analysis::forward_flops_per_token(layers);

    // The block terms do not depend on the placement; redistribution is routed on the placement itself.
    analysis::ByteHopsPerToken fwd = analysis::forward_block_byte_hops_per_token(layers, setup.bytes);
    analysis::ByteHopsPerToken bwd =
        analysis::backward_block_byte_hops_per_token(layers, setup.bytes, rebroadcast);
    fwd.redistribution = redistribution;
    bwd.redistribution = redistribution;

    const std::uint64_t T = setup.tokens;
    out << "exact, per token, on the configured blocks and " << setup.placement_name
        << " placement (MODEL.md sections 4 and 5: what a run counts)\n"
        << "  forward lane = sum_l b_a d_in (c - 1) = " << fwd.lane << " byte-hops\n"
        << "  forward psum = sum_l b_p d_out (r - 1) = " << fwd.psum << " byte-hops\n"
        << "  forward redistribution = " << fwd.redistribution << " byte-hops"
        << (analysis::partitions_match(layers) && setup.placement_name == "zigzag" &&
                    (setup.placement.stages == 0 || setup.placement.stages == layers.size())
                ? " (one hop per element: zigzag with matching partitions)"
                : "")
        << "\n  forward total = " << fwd.total() << " byte-hops; flops = 2 sum_l d_in d_out = " << flops
        << "\n  forward byte-hops per FLOP = " << analysis::two_significant(double(fwd.total()) / flops)
        << " (" << full(double(fwd.total()) / flops) << "); intra-layer only "
        << analysis::two_significant(double(fwd.lane + fwd.psum) / flops) << " ("
        << full(double(fwd.lane + fwd.psum) / flops) << ")\n"
        << "  host (inputs and targets across the grid edge, kind host) = " << host << " byte-hops\n"
        << "  backward (backprop, backprop.xstash = " << (rebroadcast ? "rebroadcast" : "replicate")
        << "): lane (dY down columns) = " << bwd.lane << ", psum (dX shares, not for layer 0) = " << bwd.psum
        << ", rebroadcast = " << bwd.rebroadcast << ", redistribution = " << bwd.redistribution
        << ", total = " << bwd.total() << " byte-hops\n"
        << "  in-flight storage as backprop stashes it here, sum_l (2 (L - l) - 1) T_tau s_l with s_l = "
           "b_a d_in(l) (x the c_l tiles of a row with replicate) + b_a d_out(l) when the activation needs "
           "Z:\n"
        << "    replicate: "
        << bytes_text(analysis::inflight_of_layers(
               analysis::stash_bytes_per_token(layers, setup.bytes.activation, true, nonlinear), T_tau))
        << "\n    rebroadcast: "
        << bytes_text(analysis::inflight_of_layers(
               analysis::stash_bytes_per_token(layers, setup.bytes.activation, false, nonlinear), T_tau))
        << "\n    inputs only (b_a d_in(l), no Z, no replication): "
        << bytes_text(analysis::inflight_of_layers(
               analysis::stash_bytes_per_token(layers, setup.bytes.activation, false, false), T_tau))
        << "\n";
    if (const std::uint32_t stages = setup.placement.stages; stages != 0) {
      out << "  in-flight storage on the mapping.stages = " << stages
          << " stages, as 1F1B holds it (stage s holds p - s wavefronts), sum_l (p - stage(l)) T_tau s_l: "
             "replicate "
          << bytes_text(analysis::inflight_1f1b(
                 analysis::stash_bytes_per_token(layers, setup.bytes.activation, true, nonlinear), stages,
                 T_tau))
          << ", rebroadcast "
          << bytes_text(analysis::inflight_1f1b(
                 analysis::stash_bytes_per_token(layers, setup.bytes.activation, false, nonlinear), stages,
                 T_tau))
          << " (a run holds this when wavefronts enter one per stage's work: docs/theory.md)\n";
    }
    out << "  per step (T = " << setup.tokens << " tokens): forward " << fwd.total() * T << ", host "
        << host * T << ", backward " << bwd.total() * T << " byte-hops\n";
    if (setup.model.loss == workloads::Loss::cross_entropy)
      out << "  not in these figures: cross-entropy's loss statistics (kind scalar, reduced and broadcast "
             "across the last layer's output tiles), which a run counts as byte_hops_scalar\n";
    const analysis::PlacementDepth depth = analysis::depth_on_placement(
        widths, setup.placement, grid, rebroadcast, setup.model.loss == workloads::Loss::cross_entropy);
    const auto [fewest, most] =
        std::minmax_element(depth.forward_layer_hops.begin(), depth.forward_layer_hops.end());
    out << "  depth, the longest chain of hops traced through the blocks and placement: forward "
        << depth.forward << ", backprop step " << depth.backprop << " hops; the layers add " << *fewest
        << " to " << *most << " hops to the forward chain, mean " << full(depth.mean_layer_hops()) << " = "
        << full(depth.mean_layer_hops() / std::sqrt(double(setup.placement.blocks.front().tile_count())))
        << " sqrt(n) (" << analysis::kLayerHopsWhy << ")\n";
  }
};

const CommandRegistry::Registration registration{
    "theory",
    "print MODEL.md section 9's closed forms (hops per FLOP, in-flight storage, depth, reuse) and the "
    "exact per-token byte-hops and depth for the configured model and machine",
    [](const sim::Config&) { return std::make_unique<TheoryCommand>(); }};

}  // namespace
}  // namespace spatialsim::cli
