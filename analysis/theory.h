#pragma once
// The closed forms the simulator is compared against (MODEL.md section 9, from seed 000 section 6), and
// the exact per-token byte-hops of an MLP on given blocks: the "closed form side" printed beside the
// simulated counters. Symbols are those of MODEL.md and seed 000: d and k the widths of a d x k layer,
// n the tiles of its block, L the layers, T_tau the tokens in flight per layer, c the stash constant in
// bytes per token-layer-d, p the pipeline stages, b the bytes per element on a link. docs/theory.md
// derives each form and says what it leaves out.
//
// Usage:
//   double h = analysis::hops_per_flop(4096, 16384, 256);                    // 4.88e-3 byte-hops per FLOP
//   double s = analysis::inflight_fully_spatial(32, 256, 34, 4096);          // 3.65e10 bytes ("37 GB")
//   double q = analysis::inflight_pipeline(32, 8, 256, 34, 4096);            // 4.56e9 bytes ("4.6 GB")
//   auto layers = analysis::layer_geometry(setup.model.widths, setup.placement);
//   analysis::ByteHopsPerToken f = analysis::forward_byte_hops_per_token(layers, setup.bytes);
//   analysis::PlacementDepth c = analysis::depth_on_placement(widths, setup.placement, grid, false, false);
//   c.forward; c.backprop;                        // seed-grid: 752 and 1503 hops (2 L sqrt(n) = 1024)
//
// Contract: the closed forms are plain arithmetic on doubles (no rounding); the exact functions count
// what MODEL.md sections 4 and 5 prescribe, per token, in whole byte-hops, and throw
// std::invalid_argument for inputs they cannot describe (an empty model, a block larger than its layer,
// widths and blocks of different lengths, unmatched partitions where matching ones are assumed).

#include <cstdint>
#include <string>
#include <vector>

#include "mappings/placement/i_placement.h"
#include "mappings/weight_stationary_block.h"
#include "sim/grid.h"

namespace spatialsim::analysis {

// ---- closed forms (MODEL.md section 9) ----

// Byte-hops per FLOP of a d x k weight-stationary layer on a sqrt(n) x sqrt(n) block, with b bytes per
// activation and per partial-sum element: b (d + k) sqrt(n) / (2 d k). With b = 2 (bf16) this is seed
// 000's (d + k) sqrt(n) / (d k). It is the per-token traffic b_a d (c-1) + b_p k (r-1) of MODEL.md
// section 4 with r = c = sqrt(n) and c - 1 ~ sqrt(n), over 2 d k FLOPs; it overestimates the exact
// figure by sqrt(n) / (sqrt(n) - 1) (16/15 for n = 256).
double hops_per_flop(double d, double k, double n, double b = 2);
// The same with separate element sizes: (b_a d + b_p k) sqrt(n) / (2 d k).
double hops_per_flop(double d, double k, double n, double b_a, double b_p);

// How the fully spatial in-flight sum sum_l 2 (L - l) T_tau c d is indexed.
enum class StashSum : std::uint8_t {
  seed_l_squared,  // L^2 T_tau c d: seed 000's figures (37 GB, 2.1 GB). Equals sum_{l=0}^{L-1} (2(L-l) - 1):
                   // a stash lives from the middle of layer l's forward latency to the middle of its backward
  from_zero,       // sum_{l=0}^{L-1} 2 (L - l) = L (L + 1): stored on entry, freed after the backward
  from_one,        // sum_{l=1}^{L} 2 (L - l) = L (L - 1): stored on exit, freed when the backward arrives
};

// Peak in-flight activation bytes of a fully spatial mapping (one block per layer, p = L) with the
// pipeline full (G >= 2L wavefronts): sum_l 2 (L - l) T_tau c d under the chosen indexing.
double inflight_fully_spatial(double L, double T_tau, double c, double d,
                              StashSum indexing = StashSum::seed_l_squared);
// Peak in-flight activation bytes of a p-stage 1F1B pipeline: 1/2 L p T_tau c d. At p = L it is half of
// the fully spatial L^2 form: 1F1B admits one micro-batch per forward-plus-backward slot, the grid admits
// T_tau tokens every layer-latency (docs/theory.md). A run with mapping.stages = p is compared with
// inflight_1f1b, the same count summed layer by layer.
double inflight_pipeline(double L, double p, double T_tau, double c, double d);

// Depth of a training step, in hops: about 2 L sqrt(n) (seed 000). What a run counts on a placement is
// depth_on_placement below.
double depth_hops(double L, double n);

// Local reuse: a weight read from SRAM must be applied to at least e_sram / e_mac inputs before the SRAM
// read stops dominating the multiply-add it feeds (seed 000: 1 pJ / 0.1 pJ = 10). Seed 000's form, with
// e_sram per byte and e_mac per multiply-add.
double reuse_threshold(double e_sram_pj, double e_mac_pj);
// The same threshold as the simulator counts energy: reading a weight costs weight_bytes x e_sram, and each
// multiply-add it feeds costs 2 flops x e_flop, so T_local >= weight_bytes e_sram / (2 e_flop). It equals
// reuse_threshold(e_sram, e_flop) only when weight_bytes = 2 (bf16): the two factors of two cancel.
double reuse_threshold_as_counted(double weight_bytes, double e_sram_pj, double e_flop_pj);

// Which d and k stand for a model whose layers have different widths: d is the most frequent width of
// widths[0..L] (the model, or residual, width; ties go to the smaller), k the most frequent output width
// of the layers that take d inputs (the FFN width; ties go to the larger; d itself if no layer takes d).
// For 4096, 16384, 4096, ..., 4096 (33 widths): d = 4096, k = 16384.
struct RepresentativeWidths {
  std::uint32_t d = 0;
  std::uint32_t k = 0;
};
RepresentativeWidths representative_widths(const std::vector<std::uint32_t>& widths);

// ---- exact per-token byte-hops of an MLP on given blocks (MODEL.md sections 4 and 5) ----

struct LayerGeometry {
  std::uint32_t d_in = 1;
  std::uint32_t d_out = 1;
  std::uint32_t rows = 1;  // r: ranges of d_in
  std::uint32_t cols = 1;  // c: ranges of d_out
};

// One LayerGeometry per layer: widths[l] x widths[l + 1] on placement.blocks[l].
std::vector<LayerGeometry> layer_geometry(const std::vector<std::uint32_t>& widths,
                                          const mappings::Placement& placement);

// Per-token byte-hops by kind (MODEL.md section 3). Multiply by T for a step.
struct ByteHopsPerToken {
  std::uint64_t lane = 0;            // forward inputs along rows; backward dY down columns
  std::uint64_t psum = 0;            // forward partial sums down columns; backward dX shares along rows
  std::uint64_t rebroadcast = 0;     // backward X re-sent along rows (xstash = rebroadcast)
  std::uint64_t redistribution = 0;  // between layers
  std::uint64_t total() const { return lane + psum + rebroadcast + redistribution; }
};

// True when layer l's output partition is layer l + 1's input partition (c_l == r_{l+1}; the widths
// match by construction), so that the zigzag placement moves every element exactly one hop.
bool partitions_match(const std::vector<LayerGeometry>& layers);

// Inside the blocks only (redistribution = 0), valid for any placement. Forward: sum_l b_a d_in (c - 1)
// (lanes) + b_p d_out (r - 1) (partial sums). Backward of backprop: sum_l b_a d_out (r - 1) (dY down the
// columns) + b_p d_in (c - 1) for l >= 1 (the first layer's dX is not computed) + b_a d_in (c - 1) with
// rebroadcast. Exact for any split: the ranges of a row or column sum to d_in or d_out.
ByteHopsPerToken forward_block_byte_hops_per_token(const std::vector<LayerGeometry>& layers,
                                                   const mappings::ElementBytes& bytes);
ByteHopsPerToken backward_block_byte_hops_per_token(const std::vector<LayerGeometry>& layers,
                                                    const mappings::ElementBytes& bytes, bool rebroadcast);

// The same plus b_a d_out(l) for each boundary l -> l + 1: one hop per element, the zigzag placement with
// matching partitions. Throws std::invalid_argument when the partitions do not match; then add
// redistribution_byte_hops_per_token of the placement to the block terms instead.
ByteHopsPerToken forward_byte_hops_per_token(const std::vector<LayerGeometry>& layers,
                                             const mappings::ElementBytes& bytes);
ByteHopsPerToken backward_byte_hops_per_token(const std::vector<LayerGeometry>& layers,
                                              const mappings::ElementBytes& bytes, bool rebroadcast);

// Redistribution per token and per direction for any placement: every overlap of a producer column range
// and a consumer row range moves b_a bytes per element from the producer's output tile to the consumer's
// lane entry, over the grid's route. Equals the matched form for zigzag with matching partitions.
std::uint64_t redistribution_byte_hops_per_token(const std::vector<std::uint32_t>& widths,
                                                 const mappings::Placement& placement,
                                                 std::uint32_t activation_bytes, const sim::Grid& grid);
// Host traffic per token in the forward phase: inputs into the first block's lane entries and targets
// into the last block's output tiles, each across the grid edge (sim::Grid::host_hops).
std::uint64_t host_byte_hops_per_token(const std::vector<std::uint32_t>& widths,
                                       const mappings::Placement& placement, std::uint32_t activation_bytes,
                                       const sim::Grid& grid);

// ---- depth on the placement (MODEL.md section 3: the longest chain of hops) ----

// The depth stamps of one wavefront, traced through the configured blocks the way they pass values on
// (mappings/weight_stationary_block.cpp, workloads/network_program.cpp, workloads/loss_stage.cpp).
// Forward: inputs from the grid edge, X along each row from its lane entry, partial sums along each
// column to the output row, outputs to the next block's lane entries over the grid's routes, targets from
// the grid edge, and with cross-entropy the loss's scalars along the last block's output tiles and back.
// Backward (backprop): dY from the output row along each column, dX shares along each row to the lane
// entry (not in layer 0) and back to the previous block's output tiles, and with rebroadcast X along each
// row again from its lane entry. A value takes the largest stamp of its inputs and a message adds its hops;
// a depth is the largest stamp a message arrives with. Nothing is approximated: the simulator's depth is
// exactly this (tests/analysis/test_theory.cpp), and in latency-only mode a stamp times hop_latency is
// also the time since the wavefront was injected.
struct PlacementDepth {
  // Hops each layer adds to the forward chain: the stamp of layer l's latest output minus that of layer
  // l - 1 (layer 0's include the host hops). A layer whose output row lies where the previous layer's
  // latest output enters it adds c_l (its lane and one redistribution hop: the partial sums of the earlier
  // rows have already gone ahead); one whose output row lies at the far side adds r_l + c_l - 1. The
  // zigzag alternates the two (seed-grid: 16 and 31), so seed 000's "sqrt(n) per layer per pass" becomes
  // about 1.5 sqrt(n).
  std::vector<std::uint32_t> forward_layer_hops;
  std::uint32_t forward = 0;   // the `forward` schedule's depth
  std::uint32_t backprop = 0;  // a backprop step's depth: forward pass, loss and backward pass
  // The mean of forward_layer_hops: one layer-latency (tau) of the fully spatial forms, in hops.
  double mean_layer_hops() const;
};
// Why a layer adds the hops it does, for the console (theory, the side by side): true of every placement
// (the zigzag's redistribution route is one hop, the row-major placement's several).
inline constexpr const char* kLayerHopsWhy =
    "a lane and the redistribution route where the output row faces the latest input, also the column where "
    "it does not";
PlacementDepth depth_on_placement(const std::vector<std::uint32_t>& widths,
                                  const mappings::Placement& placement, const sim::Grid& grid,
                                  bool rebroadcast, bool cross_entropy);

// What the simulator's backprop stashes per token for each layer (MODEL.md section 4): X[:, I_i] on every
// tile of row i (replicate: b_a d_in c) or on the lane entry only (rebroadcast: b_a d_in), plus Z on the
// output tiles (b_a d_out) when a hidden layer's activation needs it (`nonlinear`: not identity; never
// the last layer, which has no activation).
std::vector<double> stash_bytes_per_token(const std::vector<LayerGeometry>& layers,
                                          std::uint32_t activation_bytes, bool replicate, bool nonlinear);
// sum_l 2 (L - l) T_tau s_l for per-layer stash bytes per token s_l (l = 0..L-1), indexed as in
// inflight_fully_spatial; with every s_l = c d it is inflight_fully_spatial(L, T_tau, c, d, indexing).
double inflight_of_layers(const std::vector<double>& stash_per_token, double T_tau,
                          StashSum indexing = StashSum::seed_l_squared);

// The p-stage 1F1B pipeline's in-flight bytes summed layer by layer: stage s holds p - s micro-batches of
// T_tau tokens of its layers' stash, sum_l (p - stage(l)) T_tau s_l, with the stages of mapping.stages
// (mappings::stage_of_layer). For L equal layers with s_l = c d and p dividing L it is L (p + 1) / 2 T_tau c
// d: inflight_pipeline's 1/2 L p and the half micro-batch per layer the closed form drops. Throws
// std::invalid_argument unless 1 <= stages <= the layers.
double inflight_1f1b(const std::vector<double>& stash_per_token, std::uint32_t stages, double T_tau);

// FLOPs per token of one forward pass: 2 sum_l d_in d_out.
std::uint64_t forward_flops_per_token(const std::vector<LayerGeometry>& layers);

// ---- printing ----

// x to two significant figures as seed 000 prints it: fixed from 0.1 to 99 ("0.54", "2.1", "37"),
// otherwise scientific with a bare exponent ("4.9e-3", "1.0e4").
std::string two_significant(double x);
// Bytes in GB (1e9 bytes) to two significant figures: "37 GB".
std::string gigabytes(double bytes);

}  // namespace spatialsim::analysis
