#pragma once
// The simulated counters beside the closed forms (MODEL.md section 9), with the difference split by cause
// (docs/theory.md, "What the closed forms leave out"): `--theory_side_by_side` on `run` and `compare`.
//
// Byte-hops: the closed-form column is MODEL.md section 4 inside the blocks (lane, psum, rebroadcast), exact
// per token (analysis/theory.h) times the tokens run; those kinds must match exactly. Below each table,
// section 9's b (d + k) sqrt(n) per layer and the terms it leaves out (array edge, layer 0's dX,
// rebroadcast, redistribution, host) add up to the simulated byte-hops per token. What the closed form
// leaves out is attributed to its cause: redistribution between layers (routed on the placement), host
// traffic at the grid edge, and anything else (scalar loss traffic) as "not modelled".
// In-flight storage: the fully spatial form with the pipeline full, the same form with only the G
// wavefronts the step has (pipeline fill and drain: it reaches the full form only when G >= 2L - 1, layer
// 0's stash living 2L - 1 layer-latencies), then
// with those wavefronts entering I cycles apart rather than one per layer-latency tau (the injection
// interval against the layer latency; tau from the placement's forward chain, analysis::PlacementDepth),
// and the rest (contention, and where inside a layer-latency a stash starts and ends) as residual.
// In-flight byte-cycles per token beside tau sum_l (2 (L - l) - 1) s_l; depth beside 2 L sqrt(n) and
// the placement's traced chains.
//
// Usage:
//   auto rows = byte_hops_beside_theory(result.counters, sim::Phase::forward, block_form, redist, host, T);
//   auto wavefronts = workloads::wavefront_sizes(T, T_g);
//   double p = peak_stash_with_wavefronts(stash_per_token, wavefronts);  // full form if G >= 2L - 1
//   double q = peak_stash_with_wavefronts(stash_per_token, wavefronts, I / tau);  // ~ p tau / I
//   write_theory_side_by_side(std::cout, config, setup, results);     // forward and backprop, mlp only

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "analysis/theory.h"
#include "sim/config.h"
#include "sim/counters.h"
#include "workloads/run_setup.h"
#include "workloads/training_run.h"

namespace spatialsim::analysis {

struct KindBesideTheory {
  std::string kind;               // sim::kMessageKindNames
  std::uint64_t simulated = 0;    // counted in the phase
  std::uint64_t closed_form = 0;  // MODEL.md section 4 inside the blocks, per token x tokens
  std::uint64_t explained = 0;    // what the closed form leaves out, counted exactly for `cause`
  std::string cause;              // "" when the closed form covers the kind
  std::int64_t unexplained() const {
    return static_cast<std::int64_t>(simulated) - static_cast<std::int64_t>(closed_form) -
           static_cast<std::int64_t>(explained);
  }
};

// Contract: one row per message kind with traffic in the phase or a closed-form term, in
// sim::kMessageKindNames order. `block_form` is per token; redistribution and host are per token and are
// the explained part of their kinds (host only in the forward phase, where inputs and targets enter).
std::vector<KindBesideTheory> byte_hops_beside_theory(const sim::Counters& counters, sim::Phase phase,
                                                      const ByteHopsPerToken& block_form,
                                                      std::uint64_t redistribution_per_token,
                                                      std::uint64_t host_per_token, std::uint64_t tokens);

// MODEL.md section 9's byte-hops per token of one phase and what it leaves out, term by term, so that the
// terms add up to what a run counts per token (with no scalar loss traffic). section9 is b (d + k) sqrt(n)
// per layer (hops_per_flop x 2 d k FLOPs) with sqrt(n) = sqrt(r c): forward b_a d_in + b_p d_out (inputs
// along the lanes, partial sums down the columns), backward b_a d_out + b_p d_in (dY down the columns, dX
// shares along the rows). The block terms of byte_hops_beside_theory's closed-form column are
// section9 + array_edge + layer0_dx (+ rebroadcast).
struct ByteHopsDecomposition {
  double section9 = 0;
  // The blocks' lanes have c - 1 links and columns r - 1, where the form charges sqrt(n) = sqrt(r c) to
  // each: < 0 on square blocks; on r != c it also holds the block's shape, of either sign (a 1 x 16
  // block's lanes cross 15 links against sqrt(n) = 4).
  double array_edge = 0;
  double layer0_dx = 0;       // backward: layer 0's dX, b_p d_0 (c_0 - 1), is not computed: <= 0
  double rebroadcast = 0;     // backward with xstash = rebroadcast: b_a d_in (c - 1) per layer
  double redistribution = 0;  // between layers, routed on the placement (per direction)
  double host = 0;            // forward: the host's inputs and targets across the grid edge
  double total() const { return section9 + array_edge + layer0_dx + rebroadcast + redistribution + host; }
};
// Contract: phase is forward or backward; redistribution and host per token as for byte_hops_beside_theory.
ByteHopsDecomposition byte_hops_decomposition(const std::vector<LayerGeometry>& layers,
                                              const mappings::ElementBytes& bytes, sim::Phase phase,
                                              bool rebroadcast, std::uint64_t redistribution_per_token,
                                              std::uint64_t host_per_token);

// Peak stash bytes of a fully spatial mapping when only the step's wavefronts enter, `spacing`
// layer-latencies apart, wavefront w holding wavefront_tokens[w] tokens: layer l's stash lives
// 2 (L - l) - 1 layer-latencies (the seed 000 indexing of analysis::inflight_of_layers). With spacing 1
// (the forms' one wavefront per layer-latency) and G wavefronts of T_g it equals
// inflight_of_layers(stash, T_g) once G >= 2L - 1 and is smaller before: the pipeline fill and drain. A
// spacing s > 1 holds about 1/s as many wavefronts in flight, and needs only about (2L - 1) / s of them to
// fill. A smaller last wavefront (tokens that do not divide into wavefronts) holds only its own tokens'
// stash. Throws std::invalid_argument unless spacing > 0 and every wavefront but the last holds the same
// tokens, the last no more (how workloads::wavefront_sizes splits a step).
double peak_stash_with_wavefronts(const std::vector<double>& stash_per_token,
                                  const std::vector<std::uint32_t>& wavefront_tokens, double spacing = 1.0);

// In-flight byte-cycles per token of the fully spatial form: each layer's stash s_l held
// 2 (L - l) - 1 layer-latencies of `layer_latency_cycles`, tau sum_l (2 (L - l) - 1) s_l. Unlike the
// peak, it does not depend on how many wavefronts there are or how far apart they enter.
double inflight_byte_cycles_per_token(const std::vector<double>& stash_per_token,
                                      double layer_latency_cycles);

// Prints, for the `forward` and `backprop` results (others are skipped: the closed forms are backprop's),
// the byte-hops by kind beside the closed form, peak stash and in-flight byte-cycles beside the fully
// spatial form, and depth beside 2 L sqrt(n) and the placement's chains. A reversible model gets a
// one-line note instead: the closed forms describe the MLP.
void write_theory_side_by_side(std::ostream& out, const sim::Config& config, const workloads::RunSetup& setup,
                               const std::vector<workloads::RunResult>& results);

}  // namespace spatialsim::analysis
