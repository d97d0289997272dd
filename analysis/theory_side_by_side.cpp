#include "analysis/theory_side_by_side.h"

#include <algorithm>
#include <cmath>
#include <iomanip>

#include "analysis/results_table.h"
#include "sim/grid.h"

namespace spatialsim::analysis {
namespace {

std::uint64_t block_term(const ByteHopsPerToken& h, sim::MessageKind kind) {
  switch (kind) {
    case sim::MessageKind::lane:
      return h.lane;
    case sim::MessageKind::psum:
      return h.psum;
    case sim::MessageKind::rebroadcast:
      return h.rebroadcast;
    default:
      return 0;
  }
}

std::string signed_text(std::int64_t v) {
  std::string s = std::to_string(v);
  if (v > 0) s.insert(s.begin(), '+');
  return s;
}

void print_kinds(std::ostream& out, const std::string& title, const std::vector<KindBesideTheory>& rows) {
  out << "  " << title << "\n    " << std::left << std::setw(16) << "kind" << std::right << std::setw(14)
      << "simulated" << std::setw(14) << "closed form" << std::setw(14) << "explained" << std::setw(14)
      << "unexplained"
      << "  cause of the difference\n";
  for (const auto& r : rows) {
    out << "    " << std::left << std::setw(16) << r.kind << std::right << std::setw(14) << r.simulated
        << std::setw(14) << r.closed_form << std::setw(14) << r.explained << std::setw(14)
        << signed_text(r.unexplained()) << "  " << (r.cause.empty() ? "-" : r.cause) << '\n';
  }
}

const workloads::RunResult* find(const std::vector<workloads::RunResult>& results, std::string_view name) {
  for (const auto& r : results)
    if (r.schedule == name) return &r;
  return nullptr;
}

}  // namespace

std::vector<KindBesideTheory> byte_hops_beside_theory(const sim::Counters& counters, sim::Phase phase,
                                                      const ByteHopsPerToken& block_form,
                                                      std::uint64_t redistribution_per_token,
                                                      std::uint64_t host_per_token, std::uint64_t tokens) {
  std::vector<KindBesideTheory> out;
  for (std::size_t k = 0; k < sim::kMessageKindCount; ++k) {
    const auto kind = static_cast<sim::MessageKind>(k);
    KindBesideTheory r;
    r.kind = std::string(sim::kMessageKindNames[k]);
    r.simulated = counters.byte_hops.cells[static_cast<std::size_t>(phase)][k];
    r.closed_form = block_term(block_form, kind) * tokens;
    if (kind == sim::MessageKind::redistribution) {
      r.explained = redistribution_per_token * tokens;
      r.cause = "redistribution between blocks (placement)";
    } else if (kind == sim::MessageKind::host) {
      r.explained = phase == sim::Phase::forward ? host_per_token * tokens : 0;
      r.cause = "edge hops (host inputs and targets)";
    } else if (kind == sim::MessageKind::scalar) {
      r.cause = "loss statistics (not modelled)";
    } else if (r.closed_form == 0 && r.simulated != 0) {
      r.cause = "not modelled";
    }
    if (r.simulated == 0 && r.closed_form == 0 && r.explained == 0) continue;
    out.push_back(std::move(r));
  }
  return out;
}

double peak_stash_with_wavefronts(const std::vector<double>& stash_per_token, double tokens_per_wavefront,
                                  std::uint64_t wavefronts) {
  const std::int64_t L = static_cast<std::int64_t>(stash_per_token.size());
  // Beyond 2L wavefronts the window is full: more of them change nothing but the run's length.
  const std::int64_t G = static_cast<std::int64_t>(std::min<std::uint64_t>(wavefronts, 2 * L));
  double peak = 0;
  // Time in layer-latencies; wavefront w stashes layer l on (w + l + 1/2, w + 2L - l - 1/2), so at the
  // integer time t it holds it when w + l < t <= w + 2L - l - 1.
  for (std::int64_t t = 0; t <= G + 2 * L; ++t) {
    double total = 0;
    for (std::int64_t w = 0; w < G; ++w)
      for (std::int64_t l = 0; l < L; ++l)
        if (w + l < t && t <= w + 2 * L - l - 1) total += stash_per_token[l] * tokens_per_wavefront;
    peak = std::max(peak, total);
  }
  return peak;
}

void write_theory_side_by_side(std::ostream& out, const sim::Config& config, const workloads::RunSetup& setup,
                               const std::vector<workloads::RunResult>& results) {
  out << "\nsimulated beside the closed forms (docs/theory.md, \"What the closed forms leave out\")\n";
  if (setup.model.kind != workloads::ModelKind::mlp) {
    out << "  skipped: the closed forms describe the MLP of MODEL.md section 4, not model.kind = "
           "reversible\n";
    return;
  }
  const auto& widths = setup.model.widths;
  const auto layers = layer_geometry(widths, setup.placement);
  const sim::Grid grid(setup.grid_width, setup.grid_height, setup.topology);
  const std::uint64_t redistribution =
      redistribution_byte_hops_per_token(widths, setup.placement, setup.bytes.activation, grid);
  const std::uint64_t host = host_byte_hops_per_token(widths, setup.placement, setup.bytes.activation, grid);
  const std::uint64_t tokens = std::uint64_t{setup.tokens} * setup.steps;
  const bool rebroadcast =
      config.get_choice("backprop.xstash", {"replicate", "rebroadcast"}) == "rebroadcast";

  if (find(results, "forward") == nullptr && find(results, "backprop") == nullptr) {
    // run refuses --theory_side_by_side without them; a config file may still ask for it.
    out << "  nothing to compare: the closed forms are forward's and backprop's, and neither ran\n";
    return;
  }
  for (const char* name : {"forward", "backprop"}) {
    const workloads::RunResult* r = find(results, name);
    if (r == nullptr) continue;
    out << name << " (T x steps = " << tokens << " tokens)\n";
    print_kinds(out, "byte-hops, phase forward",
                byte_hops_beside_theory(r->counters, sim::Phase::forward,
                                        forward_block_byte_hops_per_token(layers, setup.bytes),
                                        redistribution, host, tokens));
    if (std::string_view(name) != "backprop") continue;
    print_kinds(out,
                "byte-hops, phase backward (backprop.xstash = " +
                    std::string(rebroadcast ? "rebroadcast" : "replicate") + ")",
                byte_hops_beside_theory(r->counters, sim::Phase::backward,
                                        backward_block_byte_hops_per_token(layers, setup.bytes, rebroadcast),
                                        redistribution, host, tokens));

    const bool nonlinear = setup.model.activation != mappings::Activation::identity;
    const auto stash = stash_bytes_per_token(layers, setup.bytes.activation, !rebroadcast, nonlinear);
    const double T_g = setup.tokens_per_wavefront;
    const std::uint64_t G = (setup.tokens + setup.tokens_per_wavefront - 1) / setup.tokens_per_wavefront;
    const double full = inflight_of_layers(stash, T_g);
    const double filled = peak_stash_with_wavefronts(stash, T_g, G);
    const double simulated = static_cast<double>(r->counters.peak_stash_bytes);
    out << "  peak stash, bytes: simulated " << format_number(simulated)
        << "; fully spatial closed form sum_l (2 (L - l) - 1) T_g s_l " << format_number(full) << "\n"
        << "    pipeline fill and drain (G = " << G << " wavefronts, full needs 2L = " << 2 * layers.size()
        << "): " << format_number(filled - full) << " -> " << format_number(filled) << "\n"
        << "    contention and cycle-level timing (residual): " << format_number(simulated - filled)
        << (setup.timing.link_bytes_per_cycle == 0 ? " (links latency-only: no contention)" : "") << "\n";
    const double n = setup.placement.blocks.front().tile_count();
    const double closed_depth = depth_hops(static_cast<double>(layers.size()), n);
    out << "  depth, hops: simulated " << r->counters.depth
        << "; 2 L sqrt(n) = " << format_number(closed_depth) << "; difference "
        << format_number(r->counters.depth - closed_depth)
        << " (a block's chain is a lane then a column, (c - 1) + (r - 1) ~ 2 sqrt(n) per pass, plus "
           "redistribution and host hops)\n";
  }
}

}  // namespace spatialsim::analysis
