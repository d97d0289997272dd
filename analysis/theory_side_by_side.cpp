#include "analysis/theory_side_by_side.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>
#include <stdexcept>

#include "analysis/results_table.h"
#include "mappings/partition.h"
#include "mappings/placement/pipeline_stages.h"
#include "sim/engine.h"
#include "sim/grid.h"
#include "sim/text.h"
#include "workloads/network_setup.h"
#include "workloads/schedules/i_schedule.h"

namespace spatialsim::analysis {
namespace {

// About how many cycles a pipeline stage's busiest tile (logical (0, 0): split hands it the largest
// ranges) computes per wavefront of `tokens` in a training step: each layer's product forward, and the
// two of its backward (dX, which layer 0 skips, and dW), one at a time. 0 when compute takes no time.
std::uint64_t stage_compute_cycles(const std::vector<LayerGeometry>& layers, std::uint32_t stages,
                                   std::uint64_t tokens, const sim::MachineTiming& timing) {
  if (timing.flops_per_cycle == 0) return 0;
  const auto L = static_cast<std::uint32_t>(layers.size());
  std::vector<std::uint64_t> per_stage(stages, 0);
  for (std::uint32_t l = 0; l < L; ++l) {
    const LayerGeometry& g = layers[l];
    const std::uint64_t products = l == 0 ? 2 : 3;
    per_stage[mappings::stage_of_layer(l, L, stages)] +=
        products *
        timing.compute_cycles(mappings::busiest_tile_product_flops(tokens, g.d_in, g.d_out, g.rows, g.cols));
  }
  return *std::max_element(per_stage.begin(), per_stage.end());
}

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

std::string three_decimals(double x) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(3) << x;
  return s.str();
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

// An integral figure as an integer, signed when `sign`; otherwise one decimal.
std::string term_text(double v, bool sign) {
  std::ostringstream s;
  if (sign && v > 0) s << '+';
  if (std::abs(v - std::round(v)) < 1e-6) {
    s << static_cast<std::int64_t>(std::llround(v));
  } else {
    s << std::fixed << std::setprecision(1) << v;
  }
  return s.str();
}

void print_decomposition(std::ostream& out, const ByteHopsDecomposition& d, sim::Phase phase,
                         double simulated_per_token) {
  const bool forward = phase == sim::Phase::forward;
  out << "    per token: MODEL.md section 9's b (d + k) sqrt(n) per layer and what it leaves out\n";
  const auto line = [&](const std::string& label, double v, bool sign) {
    out << "      " << std::left << std::setw(58) << label << std::right << std::setw(14)
        << term_text(v, sign) << '\n';
  };
  line(forward ? "section 9 form, sum_l (b_a d_in + b_p d_out) sqrt(n)"
               : "section 9 form, sum_l (b_a d_out + b_p d_in) sqrt(n)",
       d.section9, false);
  line("array edge (c - 1 links per lane, r - 1 per column)", d.array_edge, true);
  if (!forward) line("layer 0's dX (not computed)", d.layer0_dx, true);
  if (d.rebroadcast != 0) line("rebroadcast (backprop.xstash = rebroadcast)", d.rebroadcast, true);
  line("redistribution between layers (placement)", d.redistribution, true);
  if (forward) line("host (inputs and targets across the grid edge)", d.host, true);
  line("= sum", d.total(), false);
  out << "      simulated " << term_text(simulated_per_token, false) << "; difference "
      << term_text(simulated_per_token - d.total(), true) << "\n";
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
      r.cause = "redistribution between layers (placement)";
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

ByteHopsDecomposition byte_hops_decomposition(const std::vector<LayerGeometry>& layers,
                                              const mappings::ElementBytes& bytes, sim::Phase phase,
                                              bool rebroadcast, std::uint64_t redistribution_per_token,
                                              std::uint64_t host_per_token) {
  if (phase != sim::Phase::forward && phase != sim::Phase::backward)
    throw std::invalid_argument("byte_hops_decomposition: forward or backward");
  const bool forward = phase == sim::Phase::forward;
  ByteHopsDecomposition d;
  double exact = 0;  // lane + psum of every layer, layer 0's dX included
  for (const LayerGeometry& g : layers) {
    const double b_a = bytes.activation;
    const double b_p = bytes.partial_sum;
    // Forward: inputs (d_in) along c - 1 lane links, partial sums (d_out) down r - 1 column links.
    // Backward: dY (d_out) down the columns, dX shares (d_in) along the rows.
    const double along_lane = forward ? b_a * g.d_in : b_p * g.d_in;
    const double down_column = forward ? b_p * g.d_out : b_a * g.d_out;
    d.section9 += (along_lane + down_column) * std::sqrt(double(g.rows) * double(g.cols));
    exact += along_lane * (g.cols - 1.0) + down_column * (g.rows - 1.0);
    if (!forward && rebroadcast) d.rebroadcast += b_a * g.d_in * (g.cols - 1.0);
  }
  d.array_edge = exact - d.section9;
  if (!forward) d.layer0_dx = -double(bytes.partial_sum) * layers.front().d_in * (layers.front().cols - 1.0);
  d.redistribution = static_cast<double>(redistribution_per_token);
  d.host = forward ? static_cast<double>(host_per_token) : 0.0;
  return d;
}

double peak_stash_with_wavefronts(const std::vector<double>& stash_per_token,
                                  const std::vector<std::uint32_t>& wavefront_tokens, double spacing) {
  if (!(spacing > 0)) throw std::invalid_argument("peak_stash_with_wavefronts: spacing must be > 0");
  const std::int64_t G = static_cast<std::int64_t>(wavefront_tokens.size());
  for (std::int64_t w = 1; w < G; ++w)
    if (wavefront_tokens[w] > wavefront_tokens[0] ||
        (w + 1 < G && wavefront_tokens[w] != wavefront_tokens[0]))
      throw std::invalid_argument(
          "peak_stash_with_wavefronts: every wavefront but the last must hold the same "
          "tokens, the last no more");
  const std::int64_t L = static_cast<std::int64_t>(stash_per_token.size());
  // tokens_before[w]: the tokens of wavefronts 0..w-1, so that any run of wavefronts sums in one step.
  std::vector<double> tokens_before(wavefront_tokens.size() + 1, 0.0);
  for (std::int64_t w = 0; w < G; ++w) tokens_before[w + 1] = tokens_before[w] + wavefront_tokens[w];
  // A stash lives 2L - 1 layer-latencies at most, so at most 2L / spacing + 1 wavefronts overlap. The
  // peak is found near either end of the step: in between, every probe sees the same number of full
  // wavefronts as one near the start once the pipeline is full.
  const auto overlapping = static_cast<std::int64_t>(std::ceil(2.0 * static_cast<double>(L) / spacing)) + 1;
  // Time in layer-latencies: wavefront w holds layer l's stash on the open interval
  // (w s + l + 1/2, w s + 2L - l - 1/2). The total changes only at these ends, so the peak is taken just
  // after some start; the probe sits eps after it, past any end at the same instant.
  const double eps = 1e-6 * std::min(1.0, spacing);
  double peak = 0;
  for (std::int64_t w0 = 0; w0 < G; ++w0) {
    if (w0 == overlapping && G - overlapping > w0) w0 = G - overlapping;  // skip the steady middle
    for (std::int64_t l0 = 0; l0 < L; ++l0) {
      const double t = static_cast<double>(w0) * spacing + static_cast<double>(l0) + 0.5 + eps;
      double total = 0;
      for (std::int64_t l = 0; l < L; ++l) {
        // The w with w s < t - l - 1/2 and w s > t - 2L + l + 1/2, among 0..G-1.
        const double last = std::ceil((t - static_cast<double>(l) - 0.5) / spacing) - 1;
        const double first = std::floor((t - static_cast<double>(2 * L - l) + 0.5) / spacing) + 1;
        const auto from = static_cast<std::int64_t>(std::max(first, 0.0));
        const auto to = static_cast<std::int64_t>(std::min(last, static_cast<double>(G - 1)));
        if (to >= from) total += (tokens_before[to + 1] - tokens_before[from]) * stash_per_token[l];
      }
      peak = std::max(peak, total);
    }
  }
  return peak;
}

double inflight_byte_cycles_per_token(const std::vector<double>& stash_per_token,
                                      double layer_latency_cycles) {
  return layer_latency_cycles * inflight_of_layers(stash_per_token, 1.0);
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
  // Asked of the schedule, which reads backprop.xstash: the closed forms follow what the simulated one does.
  const bool rebroadcast = workloads::ScheduleRegistry::create("backprop", config)->forward_stash(0) ==
                           mappings::XStash::rebroadcast;
  const PlacementDepth depth = depth_on_placement(widths, setup.placement, grid, rebroadcast,
                                                  setup.model.loss == workloads::Loss::cross_entropy);

  if (find(results, "forward") == nullptr && find(results, "backprop") == nullptr) {
    // run refuses --theory_side_by_side without them; a config file may still ask for it.
    out << "  nothing to compare: the closed forms are forward's and backprop's, and neither ran\n";
    return;
  }
  for (const char* name : {"forward", "backprop"}) {
    const workloads::RunResult* r = find(results, name);
    if (r == nullptr) continue;
    out << name << " (T x steps = " << tokens << " tokens)\n";
    const auto per_token = [&](sim::Phase phase) {
      return static_cast<double>(r->counters.byte_hops.phase_total(phase)) / static_cast<double>(tokens);
    };
    print_kinds(out, "byte-hops, phase forward (closed form: MODEL.md section 4's exact block count)",
                byte_hops_beside_theory(r->counters, sim::Phase::forward,
                                        forward_block_byte_hops_per_token(layers, setup.bytes),
                                        redistribution, host, tokens));
    print_decomposition(
        out, byte_hops_decomposition(layers, setup.bytes, sim::Phase::forward, false, redistribution, host),
        sim::Phase::forward, per_token(sim::Phase::forward));
    if (std::string_view(name) != "backprop") continue;
    print_kinds(out,
                "byte-hops, phase backward (backprop.xstash = " +
                    std::string(rebroadcast ? "rebroadcast" : "replicate") +
                    "; closed form: MODEL.md section 4's exact block count)",
                byte_hops_beside_theory(r->counters, sim::Phase::backward,
                                        backward_block_byte_hops_per_token(layers, setup.bytes, rebroadcast),
                                        redistribution, host, tokens));
    print_decomposition(
        out,
        byte_hops_decomposition(layers, setup.bytes, sim::Phase::backward, rebroadcast, redistribution, host),
        sim::Phase::backward, per_token(sim::Phase::backward));

    const bool nonlinear = setup.model.activation != mappings::Activation::identity;
    const auto stash = stash_bytes_per_token(layers, setup.bytes.activation, !rebroadcast, nonlinear);
    const double T_g = setup.tokens_per_wavefront;
    const double full = inflight_of_layers(stash, T_g);
    const std::vector<std::uint32_t> wavefronts =
        workloads::wavefront_sizes(setup.tokens, setup.tokens_per_wavefront);
    const double filled = peak_stash_with_wavefronts(stash, wavefronts);
    const double simulated = static_cast<double>(r->counters.peak_stash_bytes);
    out << "  peak stash, bytes: simulated " << format_number(simulated)
        << "; fully spatial closed form sum_l (2 (L - l) - 1) T_g s_l " << format_number(full) << "\n"
        << "    pipeline fill and drain (G = " << wavefronts.size() << " wavefronts one per layer-latency"
        << (wavefronts.back() != setup.tokens_per_wavefront
                ? ", the last of " + sim::counted(wavefronts.back(), "token", "tokens")
                : std::string())
        << ", full needs 2L - 1 = " << 2 * layers.size() - 1
        << " full ones): " << format_number(filled - full) << " -> " << format_number(filled) << "\n";
    // In cycles a layer-latency is its hops only when nothing else takes time; then the placement's
    // chains give it exactly, and the injection interval can be set against it.
    const bool hops_only = setup.timing.link_bytes_per_cycle == 0 && setup.timing.flops_per_cycle == 0;
    double modelled = filled;
    double tau = 0;
    if (hops_only) {
      tau = static_cast<double>(setup.timing.hop_latency) * depth.mean_layer_hops();
      const double I = static_cast<double>(setup.injection_interval);
      modelled = peak_stash_with_wavefronts(stash, wavefronts, I / tau);
      const bool default_interval = config.get_uint("step.interval") == 0;
      out << "    injection interval against layer latency: I = " << setup.injection_interval << " cycles"
          << (default_interval ? " (step.interval = 0: hop_latency x the first block's r + c - 1)"
                               : " (step.interval)")
          << ", tau = " << format_number(tau) << " cycles (the placement's forward chain / L, layers "
          << *std::min_element(depth.forward_layer_hops.begin(), depth.forward_layer_hops.end()) << " to "
          << *std::max_element(depth.forward_layer_hops.begin(), depth.forward_layer_hops.end())
          << " hops); tau / I = " << three_decimals(tau / I)
          << " as many wavefronts in flight: " << format_number(modelled - filled) << " -> "
          << format_number(modelled) << "\n"
          << "    cycle-level timing (residual): " << format_number(simulated - modelled)
          << " (where in a layer-latency each stash starts and ends; links latency-only: no contention)\n";
    } else {
      out << "    injection interval, contention and cycle-level timing (residual): "
          << format_number(simulated - filled)
          << " (links with finite bandwidth or timed compute: a layer-latency is not its hops, so the "
             "interval is not set against it)\n";
    }
    if (setup.placement.stages != 0) {
      const std::uint32_t p = setup.placement.stages;
      const double pipeline = inflight_1f1b(stash, p, T_g);
      double mean_stash = 0;
      for (double s_l : stash) mean_stash += s_l / static_cast<double>(stash.size());
      out << "    pipeline, mapping.stages = " << p
          << ": 1F1B (stage s holds p - s wavefronts) sum_l (p - stage(l)) "
          << "T_g s_l " << format_number(pipeline) << " (seed 000's 1/2 L p T_g s with s the mean s_l: "
          << format_number(inflight_pipeline(double(stash.size()), p, T_g, mean_stash, 1.0))
          << "); simulated - 1F1B " << format_number(simulated - pipeline) << "\n";
      const std::uint64_t stage_cycles =
          stage_compute_cycles(layers, p, setup.tokens_per_wavefront, setup.timing);
      if (stage_cycles == 0) {
        out << "      (machine.flops_per_cycle = 0: a stage's layers never wait for each other, so the fully "
               "spatial count above applies, not 1F1B's)\n";
      } else {
        out << "      1F1B's count assumes one wavefront per stage's work: about " << stage_cycles
            << " cycles of compute per wavefront on the busiest stage (forward and backward); step.interval "
               "= "
            << setup.injection_interval << " (docs/theory.md)\n";
      }
    }
    const double inflight =
        static_cast<double>(r->counters.inflight_byte_cycles) / static_cast<double>(tokens);
    out << "  in-flight byte-cycles per token: simulated " << format_number(inflight);
    if (hops_only) {
      const double form = inflight_byte_cycles_per_token(stash, tau);
      out << "; tau sum_l (2 (L - l) - 1) s_l = " << format_number(form) << "; difference "
          << format_number(inflight - form) << " (cycle-level timing; neither depends on G or I)\n";
    } else {
      out << " (no closed form here: a layer-latency is not its hops)\n";
    }
    const double n = setup.placement.blocks.front().tile_count();
    const double closed_depth = depth_hops(static_cast<double>(layers.size()), n);
    out << "  depth, hops: simulated " << r->counters.depth
        << "; 2 L sqrt(n) = " << format_number(closed_depth)
        << " (sqrt(n) per layer per pass); the placement's chains " << depth.backprop << " (forward "
        << depth.forward << ", mean " << format_number(depth.mean_layer_hops())
        << " hops per layer: " << kLayerHopsWhy << "); difference from the chains "
        << static_cast<std::int64_t>(r->counters.depth) - static_cast<std::int64_t>(depth.backprop) << "\n";
  }
}

}  // namespace spatialsim::analysis
