// The store-versus-recompute crossover (analysis/crossover.h) on hand values: seed 000's GPU figure
// (d ~ 190), a grid layer worked out by hand, the edge cases, and the model built from a setup.
#include "analysis/crossover.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "cli/command_line.h"

namespace spatialsim::analysis {
namespace {

TEST(Crossover, Seed000GpuFigureIs190) {
  const CrossoverModel gpu = seed000_gpu_model(67);             // A100: e_B / e_F = 67
  EXPECT_NEAR(crossover_width(gpu), 68.0 / 24.0 * 67.0, 1e-9);  // 189.8: "storing wins for d > ~190"
  EXPECT_NEAR(crossover_width(gpu), 190, 0.5);
  EXPECT_NEAR(recompute_pj(gpu, 190), 24 * 190.0 * 190 * 0.1, 1e-6);
  EXPECT_NEAR(stash_pj(gpu, 190), 68 * 190 * 6.7, 1e-6);
}

TEST(Crossover, GridLayerByHand) {
  CrossoverModel m;
  m.flops_per_d2 = 2;
  m.stash_bytes_per_d = 2;       // b_a, inputs only
  m.hop_bytes_per_d = 6;         // 2x2 block: b_a (c-1) + b_p (r-1) + b_a = 2 + 2 + 2
  m.weight_bytes_per_d2 = 2;     // bf16 weights
  m.tokens_per_weight_read = 8;  // one read per wavefront of 8
  m.e_flop_pj = 0.1;
  m.e_store_pj = 1;
  m.e_hop_pj = 0.4;
  m.e_weight_read_pj = 1;
  // (2 x 2 x 1 - 6 x 0.4) / (2 x 0.1 + 2 x 1 / 8) = 1.6 / 0.45
  const double d = crossover_width(m);
  EXPECT_NEAR(d, 1.6 / 0.45, 1e-12);
  EXPECT_NEAR(recompute_pj(m, d), stash_pj(m, d), 1e-12);
  EXPECT_LT(recompute_pj(m, 2), stash_pj(m, 2));
  EXPECT_GT(recompute_pj(m, 64), stash_pj(m, 64));
  EXPECT_NEAR(stash_pj(m, 64), 2 * 2 * 64 * 1.0, 1e-12);
  EXPECT_NEAR(recompute_pj(m, 64), 2 * 64.0 * 64 * 0.1 + 6 * 64 * 0.4 + 2 * 64.0 * 64 / 8, 1e-9);

  m.hop_bytes_per_d = 20;  // the recompute's hops alone cost more than the store: never recompute
  EXPECT_EQ(crossover_width(m), 0);
  m.flops_per_d2 = 0;
  m.weight_bytes_per_d2 = 0;
  EXPECT_THROW(crossover_width(m), std::invalid_argument);
  // A quadratic term so small that d* passes a double's range: refused, not "inf".
  CrossoverModel nearly_free = seed000_gpu_model(67, 1e-320);
  EXPECT_NEAR(crossover_width(nearly_free), 68.0 / 24.0 * 67.0, 1e-9);  // the ratio alone: finite
  nearly_free.e_store_pj = 1;  // at the grid's SRAM price: 68 / (24 x 1e-320)
  EXPECT_THROW(crossover_width(nearly_free), std::overflow_error);
}

TEST(Crossover, GridModelReadsTheSetup) {
  sim::Config config = cli::default_config();
  config.set("mapping.block", "3x4", "test");
  config.set("step.wavefront", "16", "test");
  const workloads::RunSetup setup = workloads::setup_from_config(config);
  const CrossoverModel m = grid_model(setup, 2);
  EXPECT_DOUBLE_EQ(m.hop_bytes_per_d, 2 * 3 + 2 * 2 + 2);  // b_a (c - 1) + b_p (r - 1) + b_a
  EXPECT_DOUBLE_EQ(m.tokens_per_weight_read, 16);
  EXPECT_DOUBLE_EQ(m.e_store_pj, setup.prices.sram_pj);
  EXPECT_DOUBLE_EQ(m.e_hop_pj, setup.prices.hop_pj);
  EXPECT_DOUBLE_EQ(m.e_flop_pj, setup.prices.flop_pj);
}

}  // namespace
}  // namespace spatialsim::analysis
