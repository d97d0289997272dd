#include "analysis/crossover.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace spatialsim::analysis {

double stash_pj(const CrossoverModel& m, double d) {
  return 2.0 * m.stash_bytes_per_d * d * m.e_store_pj;
}

double recompute_pj(const CrossoverModel& m, double d) {
  return m.flops_per_d2 * d * d * m.e_flop_pj + m.hop_bytes_per_d * d * m.e_hop_pj +
         m.weight_bytes_per_d2 * d * d * m.e_weight_read_pj / m.tokens_per_weight_read;
}

double crossover_width(const CrossoverModel& m) {
  // stash - recompute = d (2 c e_store - h e_hop) - d^2 (f e_flop + b_w e_w / T): zero at d = 0 and at d*.
  const double quadratic =
      m.flops_per_d2 * m.e_flop_pj + m.weight_bytes_per_d2 * m.e_weight_read_pj / m.tokens_per_weight_read;
  if (!(quadratic > 0))
    throw std::invalid_argument("crossover: no FLOPs and no weight reads; recomputing would cost nothing");
  const double linear = 2.0 * m.stash_bytes_per_d * m.e_store_pj - m.hop_bytes_per_d * m.e_hop_pj;
  const double width = std::max(0.0, linear / quadratic);
  if (!std::isfinite(width))
    throw std::overflow_error("crossover: recomputing costs so little that the crossover width overflows");
  return width;
}

CrossoverModel seed000_gpu_model(double hbm_byte_over_flop_ratio, double e_flop_pj) {
  CrossoverModel m;
  m.flops_per_d2 = 24;       // a transformer layer's forward: 12 d^2 weights, 2 FLOPs each
  m.stash_bytes_per_d = 34;  // what its backward reads (Korthikanti et al. 2022), stored and read: 68 d
  m.hop_bytes_per_d = 0;
  m.weight_bytes_per_d2 = 0;  // seed 000 leaves the recompute's own weight traffic out
  m.e_flop_pj = e_flop_pj;
  m.e_store_pj = hbm_byte_over_flop_ratio * e_flop_pj;
  return m;
}

CrossoverModel grid_model(const workloads::RunSetup& setup, double stash_bytes_per_d) {
  const mappings::BlockLayout& block = setup.placement.blocks.front();
  const double b_a = setup.bytes.activation;
  const double b_p = setup.bytes.partial_sum;
  CrossoverModel m;
  m.flops_per_d2 = 2;
  m.stash_bytes_per_d = stash_bytes_per_d;
  // MODEL.md section 4 per token for a d x d layer, plus one redistribution hop per output element (the
  // zigzag placement with matching partitions).
  m.hop_bytes_per_d = b_a * (block.cols - 1.0) + b_p * (block.rows - 1.0) + b_a;
  m.weight_bytes_per_d2 = setup.bytes.weight;
  m.tokens_per_weight_read = std::max<double>(1.0, setup.tokens_per_wavefront);
  m.e_flop_pj = setup.prices.flop_pj;
  m.e_store_pj = setup.prices.sram_pj;
  m.e_hop_pj = setup.prices.hop_pj;
  m.e_weight_read_pj = setup.prices.sram_pj;
  return m;
}

}  // namespace spatialsim::analysis
