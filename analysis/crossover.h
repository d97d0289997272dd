#pragma once
// Store versus recompute, in energy, per token and layer (seed 000 section 6, "Store versus recompute";
// docs/crossover.md derives every term). Keeping a layer's inputs costs writing and reading them once
// (stash_pj); recomputing them costs the layer's forward pass again: its FLOPs, its lane, partial-sum and
// redistribution hops on the grid, and its weights read from SRAM once per `tokens_per_weight_read`
// tokens (recompute_pj). Holding the stash costs no energy: SRAM is static (seed 000), so holding only
// costs capacity, which is what checkpointing buys. Both costs are linear (store) and quadratic
// (recompute) in d, so recomputing wins below one width, the crossover d*.
//
// Usage:
// clang-format off
//   CrossoverModel gpu = seed000_gpu_model(67.0);                 // HBM: e_B / e_F = 67 (A100)
//   crossover_width(gpu);                                         // 189.8: seed 000's "d ~ 190"
//   CrossoverModel grid = grid_model(setup, setup.bytes.activation);  // inputs stashed once (rebroadcast)
//   crossover_width(grid);  recompute_pj(grid, 512);  stash_pj(grid, 512);
// clang-format on
//
// Contract: plain arithmetic on doubles; crossover_width is 0 when recomputing never costs less (the hops
// of the recompute alone cost more than the store), and throws std::invalid_argument when the model has no
// quadratic term (no FLOPs and no weight reads: the crossover would be infinite), and std::overflow_error
// when the term is so small that d* overflows a double (energy.flop_pj = 1e-320 gave "d* = inf").

#include "workloads/run_setup.h"

namespace spatialsim::analysis {

struct CrossoverModel {
  double flops_per_d2 = 2;            // FLOPs of one forward pass per token-layer / d^2 (2: a d x d layer)
  double stash_bytes_per_d = 2;       // bytes stashed per token-layer / d (b_a: inputs only; x c: replicated)
  double hop_bytes_per_d = 0;         // byte-hops of one forward pass per token-layer / d (grid only)
  double weight_bytes_per_d2 = 0;     // weight bytes read from SRAM per forward pass / d^2 (b_w)
  double tokens_per_weight_read = 1;  // T_local: tokens that share one read of a weight
  double e_flop_pj = 0.1;
  double e_store_pj = 1;  // per byte written or read back: SRAM on the grid, HBM on a GPU
  double e_hop_pj = 0.4;
  double e_weight_read_pj = 1;  // per weight byte read from SRAM
};

// 2 x stash_bytes_per_d x d x e_store: written once in the forward pass, read once in the backward.
double stash_pj(const CrossoverModel& m, double d);
// flops_per_d2 d^2 e_flop + hop_bytes_per_d d e_hop + weight_bytes_per_d2 d^2 e_weight_read / T_local.
double recompute_pj(const CrossoverModel& m, double d);
// d* where the two are equal: (2 c e_store - h e_hop) / (f e_flop + b_w e_weight_read / T_local), or 0.
double crossover_width(const CrossoverModel& m);

// Seed 000's GPU figure: a transformer layer recomputes 24 d^2 FLOPs and stores 34 d bytes, round-tripped
// through HBM at e_B = ratio x e_F; no hops, weights not counted. crossover_width = 68 / 24 x ratio.
CrossoverModel seed000_gpu_model(double hbm_byte_over_flop_ratio, double e_flop_pj = 0.1);

// The configured machine: an MLP layer (2 d^2 FLOPs) on the configured block of r x c tiles, stashing
// `stash_bytes_per_d` per token-layer (b_a for its inputs; b_a x c with backprop.xstash = replicate),
// recompute hops b_a (c - 1) + b_p (r - 1) + b_a x (one redistribution hop) per d, weights b_w per d^2
// read once per wavefront of step.wavefront tokens, and the configured prices.
CrossoverModel grid_model(const workloads::RunSetup& setup, double stash_bytes_per_d);

}  // namespace spatialsim::analysis
