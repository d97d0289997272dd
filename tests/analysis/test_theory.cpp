// The closed forms of MODEL.md section 9 at seed 000's numbers, the exact per-token byte-hops on small,
// non-dividing blocks worked out by hand, and the exact forms against what the simulator counts.
#include "analysis/theory.h"

#include <gtest/gtest.h>

#include <cmath>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/command_line.h"
#include "mappings/partition.h"
#include "mappings/redistribution.h"
#include "workloads/run_setup.h"
#include "workloads/training_run.h"

namespace spatialsim::analysis {
namespace {

// Seed 000, section 6: L = 32, d = 4096, k = 16384 = 4d, n = 256 tiles, T_tau = 256, p = 8.
constexpr double kL = 32, kD = 4096, kK = 16384, kN = 256, kT = 256, kP = 8;

TEST(TheoryClosedForms, HopsPerFlopIsSeed000s4point9e3) {
  const double h = hops_per_flop(kD, kK, kN);
  EXPECT_LT(std::abs(h - 4.9e-3), 0.05e-3) << h;
  EXPECT_DOUBLE_EQ(h, (kD + kK) * 16 / (kD * kK));  // b = 2 makes b / 2 = 1: (d + k) sqrt(n) / (d k)
  EXPECT_EQ(two_significant(h), "4.9e-3");
  // b scales it linearly; separate sizes weight d and k.
  EXPECT_DOUBLE_EQ(hops_per_flop(kD, kK, kN, 4), 2 * h);
  EXPECT_DOUBLE_EQ(hops_per_flop(kD, kK, kN, 2, 4), (2 * kD + 4 * kK) * 16 / (2 * kD * kK));
}

TEST(TheoryClosedForms, StorageIsSeed000s37And2point1And4point6GB) {
  const double store_all = inflight_fully_spatial(kL, kT, 34, kD);
  const double inputs_only = inflight_fully_spatial(kL, kT, 2, kD);
  const double pipeline = inflight_pipeline(kL, kP, kT, 34, kD);
  EXPECT_DOUBLE_EQ(store_all, kL * kL * kT * 34 * kD);
  EXPECT_EQ(gigabytes(store_all), "37 GB");     // 36.5e9 bytes
  EXPECT_EQ(gigabytes(inputs_only), "2.1 GB");  // 2.15e9 bytes
  EXPECT_EQ(gigabytes(pipeline), "4.6 GB");     // 4.56e9 bytes
  EXPECT_NEAR(store_all / 1e9, 37, 0.5);
  EXPECT_NEAR(inputs_only / 1e9, 2.1, 0.05);
  EXPECT_NEAR(pipeline / 1e9, 4.6, 0.05);
}

TEST(TheoryClosedForms, TheExactSumsBracketTheSeedsLSquared) {
  // sum_{l=0}^{L-1} 2 (L - l) = L (L + 1) gives 38 GB and 2.2 GB: not the seed's figures; sum_{l=1}^{L}
  // gives L (L - 1): 35 GB. Seed 000 printed L^2, their mean.
  const double from_zero = inflight_fully_spatial(kL, kT, 34, kD, StashSum::from_zero);
  const double from_one = inflight_fully_spatial(kL, kT, 34, kD, StashSum::from_one);
  EXPECT_DOUBLE_EQ(from_zero, kL * (kL + 1) * kT * 34 * kD);
  EXPECT_DOUBLE_EQ(from_one, kL * (kL - 1) * kT * 34 * kD);
  EXPECT_EQ(gigabytes(from_zero), "38 GB");
  EXPECT_EQ(gigabytes(from_one), "35 GB");
  EXPECT_EQ(gigabytes(inflight_fully_spatial(kL, kT, 2, kD, StashSum::from_zero)), "2.2 GB");
  EXPECT_DOUBLE_EQ((from_zero + from_one) / 2, inflight_fully_spatial(kL, kT, 34, kD));
}

TEST(TheoryClosedForms, PipelineAtPEqualsLIsHalfTheFullySpatialForm) {
  EXPECT_DOUBLE_EQ(inflight_pipeline(kL, kL, kT, 2, kD), 0.5 * inflight_fully_spatial(kL, kT, 2, kD));
}

TEST(TheoryClosedForms, The1F1BSumIsHalfLPPlusHalfAMicroBatchPerLayerWhenPDividesL) {
  const std::vector<double> uniform(32, 34 * kD);
  for (std::uint32_t p : {1u, 2u, 4u, 8u, 16u, 32u})
    EXPECT_DOUBLE_EQ(inflight_1f1b(uniform, p, kT),
                     inflight_pipeline(kL, p, kT, 34, kD) + 0.5 * kL * kT * 34 * kD)
        << p;
}

TEST(TheoryClosedForms, The1F1BSumCountsEachLayersStashOncePerWavefrontItsStageHolds) {
  // 5 layers on 3 stages: layers 0-1 (stage 0, 3 wavefronts), 2-3 (stage 1, 2), 4 (stage 2, 1).
  const std::vector<double> s{1, 10, 100, 1000, 10000};
  EXPECT_DOUBLE_EQ(inflight_1f1b(s, 3, 2), 2 * (3 * (1 + 10) + 2 * (100 + 1000) + 1 * 10000));
  EXPECT_THROW(inflight_1f1b(s, 6, 2), std::invalid_argument);
  EXPECT_THROW(inflight_1f1b(s, 0, 2), std::invalid_argument);
}

TEST(TheoryClosedForms, PerLayerStashSumReducesToTheUniformForm) {
  const std::vector<double> uniform(32, 34 * kD);
  for (StashSum s : {StashSum::seed_l_squared, StashSum::from_zero, StashSum::from_one})
    EXPECT_DOUBLE_EQ(inflight_of_layers(uniform, kT, s), inflight_fully_spatial(kL, kT, 34, kD, s));
}

TEST(TheoryClosedForms, DepthAndReuseThreshold) {
  EXPECT_DOUBLE_EQ(depth_hops(kL, kN), 1024);  // 2 L sqrt(n) = 2 * 32 * 16
  EXPECT_DOUBLE_EQ(depth_hops(3, 25), 30);
  EXPECT_DOUBLE_EQ(reuse_threshold(1.0, 0.1), 10);  // seed 000: 1 pJ SRAM byte / 0.1 pJ MAC
  // As the simulator counts: a bf16 weight read (2 x 1 pJ) against a multiply-add (2 x 0.1 pJ) is the same
  // 10; fp32 weights double it.
  EXPECT_DOUBLE_EQ(reuse_threshold_as_counted(2, 1.0, 0.1), 10);
  EXPECT_DOUBLE_EQ(reuse_threshold_as_counted(4, 1.0, 0.1), 20);
}

TEST(TheoryClosedForms, TwoSignificantFigures) {
  EXPECT_EQ(two_significant(4.8828125e-3), "4.9e-3");
  EXPECT_EQ(two_significant(36.507), "37");
  EXPECT_EQ(two_significant(2.147), "2.1");
  EXPECT_EQ(two_significant(0.5432), "0.54");
  EXPECT_EQ(two_significant(99.6), "1.0e2");
  EXPECT_EQ(two_significant(9.96), "10");
  EXPECT_EQ(two_significant(12345), "1.2e4");
  EXPECT_EQ(two_significant(0), "0");
}

TEST(TheoryClosedForms, RepresentativeWidthsOfSeed000sFfnModel) {
  std::vector<std::uint32_t> widths;
  for (int i = 0; i <= 32; ++i) widths.push_back(i % 2 == 0 ? 4096 : 16384);
  const RepresentativeWidths dk = representative_widths(widths);
  EXPECT_EQ(dk.d, 4096u);
  EXPECT_EQ(dk.k, 16384u);
  const RepresentativeWidths uniform = representative_widths({32, 64, 64, 64, 10});
  EXPECT_EQ(uniform.d, 64u);
  EXPECT_EQ(uniform.k, 64u);
}

// ---- exact per-token byte-hops ----

const mappings::ElementBytes kBf16{2, 2, 2};

TEST(TheoryExact, OneLayerOfOddSizesOnThreeByFive) {
  // d_in = 37 split in 3 rows (13, 12, 12), d_out = 53 in 5 columns (11, 11, 11, 10, 10). Each row's lane
  // crosses c - 1 = 4 links: 2 * (13 + 12 + 12) * 4 = 296. Each column's partial sums cross r - 1 = 2:
  // 2 * (11 + 11 + 11 + 10 + 10) * 2 = 212.
  const std::vector<LayerGeometry> layer{{37, 53, 3, 5}};
  const ByteHopsPerToken f = forward_byte_hops_per_token(layer, kBf16);
  EXPECT_EQ(f.lane, 296u);
  EXPECT_EQ(f.psum, 212u);
  EXPECT_EQ(f.redistribution, 0u);
  EXPECT_EQ(f.total(), 508u);
  EXPECT_EQ(forward_flops_per_token(layer), 2u * 37 * 53);
  // Backward: dY down the columns 2 * 53 * 2 = 212; the only layer computes no dX; rebroadcast 296.
  const ByteHopsPerToken b = backward_byte_hops_per_token(layer, kBf16, true);
  EXPECT_EQ(b.lane, 212u);
  EXPECT_EQ(b.psum, 0u);
  EXPECT_EQ(b.rebroadcast, 296u);
}

TEST(TheoryExact, TwoLayersWithMatchingPartitionsAddOneHopPerElement) {
  // 37 -> 53 on 3x5, then 53 -> 29 on 5x4: c = 5 = next r, so 53 elements move one hop each (2 bytes).
  // Layer 1: lane 2 * 53 * 3 = 318, psum 2 * 29 * 4 = 232. b_p = 4 doubles the partial sums only.
  const std::vector<LayerGeometry> layers{{37, 53, 3, 5}, {53, 29, 5, 4}};
  const ByteHopsPerToken f = forward_byte_hops_per_token(layers, {2, 4, 2});
  EXPECT_EQ(f.lane, 296u + 318u);
  EXPECT_EQ(f.psum, 2 * 212u + 2 * 232u);
  EXPECT_EQ(f.redistribution, 106u);
  // Backward: dY lanes 2 * 53 * 2 + 2 * 29 * 4 = 444; dX shares of layer 1 only: 4 * 53 * 3 = 636.
  const ByteHopsPerToken b = backward_byte_hops_per_token(layers, {2, 4, 2}, false);
  EXPECT_EQ(b.lane, 212u + 232u);
  EXPECT_EQ(b.psum, 636u);
  EXPECT_EQ(b.rebroadcast, 0u);
  EXPECT_EQ(b.redistribution, 106u);
}

TEST(TheoryExact, UnmatchedPartitionsNeedThePlacement) {
  const std::vector<LayerGeometry> layers{{37, 53, 3, 5}, {53, 29, 3, 5}};
  EXPECT_FALSE(partitions_match(layers));
  EXPECT_THROW(forward_byte_hops_per_token(layers, kBf16), std::invalid_argument);
  EXPECT_EQ(forward_block_byte_hops_per_token(layers, kBf16).total(), 296u + 212u + 2 * 53 * 4 + 2 * 29 * 2);
  EXPECT_THROW(forward_byte_hops_per_token({{4, 4, 5, 1}}, kBf16), std::invalid_argument);  // r > d_in
}

mappings::Placement place(const std::string& name, std::vector<mappings::BlockShape> shapes) {
  return mappings::PlacementRegistry::create(name, sim::Config{})->place(shapes);
}

// Element by element, independently of the range overlaps the function walks.
std::uint64_t redistribution_by_element(const std::vector<std::uint32_t>& widths,
                                        const mappings::Placement& p, const sim::Grid& grid) {
  std::uint64_t sum = 0;
  for (std::size_t l = 0; l + 1 < p.blocks.size(); ++l) {
    const auto cols = mappings::split(widths[l + 1], p.blocks[l].cols);
    const auto rows = mappings::split(widths[l + 1], p.blocks[l + 1].rows);
    for (std::uint32_t e = 0; e < widths[l + 1]; ++e) {
      std::uint32_t j = 0;
      while (e >= cols[j].end()) ++j;
      std::uint32_t i = 0;
      while (e >= rows[i].end()) ++i;
      const sim::Coord a = p.blocks[l].output_tile(j);
      const sim::Coord b = p.blocks[l + 1].lane_entry(i);
      sum += 2 * grid.hops(grid.tile_id(a.x, a.y), grid.tile_id(b.x, b.y));
    }
  }
  return sum;
}

TEST(TheoryExact, ZigZagWithMatchingPartitionsIsOneHopPerElement) {
  const std::vector<std::uint32_t> widths{37, 53, 29, 41};
  const auto p = place("zigzag", {{3, 5}, {5, 4}, {4, 3}});
  const sim::Grid grid(p.width, p.height, sim::Topology::mesh);
  const auto layers = layer_geometry(widths, p);
  ASSERT_TRUE(partitions_match(layers));
  const std::uint64_t routed = redistribution_byte_hops_per_token(widths, p, 2, grid);
  EXPECT_EQ(routed, forward_byte_hops_per_token(layers, kBf16).redistribution);
  EXPECT_EQ(routed, 2u * (53 + 29));
  EXPECT_EQ(routed, redistribution_by_element(widths, p, grid));
}

TEST(TheoryExact, RowMajorAndUnmatchedRedistributionFollowsTheRoutes) {
  const std::vector<std::uint32_t> widths{37, 53, 29};
  for (const std::string name : {"zigzag", "rowmajor"}) {
    const auto p = place(name, {{3, 5}, {3, 5}});
    const sim::Grid grid(p.width, p.height, sim::Topology::mesh);
    const std::uint64_t routed = redistribution_byte_hops_per_token(widths, p, 2, grid);
    EXPECT_EQ(routed, redistribution_by_element(widths, p, grid)) << name;
    EXPECT_GT(routed, 2u * 53) << name;  // unmatched: some elements travel more than one hop
  }
}

// The exact forms against the simulator's own counters, in counting mode, for matched and unmatched
// partitions: a run's forward and backward byte-hops by kind are T times the per-token figures.
struct SimulatedCase {
  const char* name;
  const char* widths;
  const char* block;
  const char* xstash;
};

void PrintTo(const SimulatedCase& c, std::ostream* os) {
  *os << c.name;
}

class TheoryAgainstSimulator : public ::testing::TestWithParam<SimulatedCase> {};

TEST_P(TheoryAgainstSimulator, ByteHopsByKindAreTTimesThePerTokenForms) {
  const SimulatedCase& c = GetParam();
  sim::Config config = cli::default_config();
  config.set("model.widths", c.widths, "test");
  config.set("mapping.block", c.block, "test");
  config.set("backprop.xstash", c.xstash, "test");
  config.set("sim.arith", "none", "test");
  config.set("step.tokens", "10", "test");
  config.set("step.wavefront", "4", "test");  // wavefronts of 4, 4, 2: per-token forms must not care
  const workloads::RunSetup setup = workloads::setup_from_config(config);
  const workloads::RunResult r = workloads::run_schedule(setup, config, "backprop");

  const auto layers = layer_geometry(setup.model.widths, setup.placement);
  const sim::Grid grid(setup.grid_width, setup.grid_height, setup.topology);
  const bool rebroadcast = std::string(c.xstash) == "rebroadcast";
  const ByteHopsPerToken f = forward_block_byte_hops_per_token(layers, setup.bytes);
  const ByteHopsPerToken b = backward_block_byte_hops_per_token(layers, setup.bytes, rebroadcast);
  const std::uint64_t redistribution =
      redistribution_byte_hops_per_token(setup.model.widths, setup.placement, setup.bytes.activation, grid);
  const std::uint64_t T = setup.tokens;
  using sim::MessageKind;
  using sim::Phase;
  const auto& h = r.counters.byte_hops;
  EXPECT_EQ(h.at(Phase::forward, MessageKind::lane), T * f.lane);
  EXPECT_EQ(h.at(Phase::forward, MessageKind::psum), T * f.psum);
  EXPECT_EQ(h.at(Phase::forward, MessageKind::redistribution), T * redistribution);
  EXPECT_EQ(h.at(Phase::forward, MessageKind::host),
            T * host_byte_hops_per_token(setup.model.widths, setup.placement, setup.bytes.activation, grid));
  EXPECT_EQ(h.at(Phase::backward, MessageKind::lane), T * b.lane);
  EXPECT_EQ(h.at(Phase::backward, MessageKind::psum), T * b.psum);
  EXPECT_EQ(h.at(Phase::backward, MessageKind::rebroadcast), T * b.rebroadcast);
  EXPECT_EQ(h.at(Phase::backward, MessageKind::redistribution), T * redistribution);
  EXPECT_EQ(r.counters.flops[sim::index(Phase::forward)], T * forward_flops_per_token(layers));
}

INSTANTIATE_TEST_SUITE_P(Blocks, TheoryAgainstSimulator,
                         ::testing::Values(SimulatedCase{"matched", "37,53,29,41", "4x4", "replicate"},
                                           SimulatedCase{"unmatched", "37,53,29", "3x5", "rebroadcast"},
                                           SimulatedCase{"single", "37,53", "3x5", "replicate"}),
                         [](const ::testing::TestParamInfo<SimulatedCase>& p) {
                           return std::string(p.param.name);
                         });

// ---- depth on the placement ----

TEST(TheoryDepth, ZigZagLayersAlternateCAndRPlusCMinusOneHops) {
  // Seed-grid's 16x16 blocks (any widths >= 16 give the same chains): layer 0 crosses its whole block
  // after one host hop (1 + 15 + 15); then odd layers add c = 16 and even layers r + c - 1 = 31.
  const std::vector<std::uint32_t> widths(33, 64);
  const auto p = place("zigzag", std::vector<mappings::BlockShape>(32, {16, 16}));
  const sim::Grid grid(p.width, p.height, sim::Topology::mesh);
  const PlacementDepth d = depth_on_placement(widths, p, grid, false, false);
  ASSERT_EQ(d.forward_layer_hops.size(), 32u);
  EXPECT_EQ(d.forward_layer_hops[0], 31u);
  for (std::size_t l = 1; l < 32; ++l) EXPECT_EQ(d.forward_layer_hops[l], l % 2 == 1 ? 16u : 31u) << l;
  EXPECT_EQ(d.forward, 752u);  // 31 + 16 x 16 + 15 x 31
  EXPECT_DOUBLE_EQ(d.mean_layer_hops(), 23.5);
  EXPECT_EQ(d.backprop, 1503u);
}

// The traced chains against the simulator's depth counter, forward and backprop, on placements, block
// shapes, partitions, losses and topologies that each change some chain.
struct DepthCase {
  const char* name;
  const char* widths;
  const char* block;
  const char* placement;
  const char* xstash;
  const char* loss;
  const char* topology;
};

void PrintTo(const DepthCase& c, std::ostream* os) {
  *os << c.name;
}

class DepthAgainstSimulator : public ::testing::TestWithParam<DepthCase> {};

TEST_P(DepthAgainstSimulator, IsTheSimulatedDepth) {
  const DepthCase& c = GetParam();
  sim::Config config = cli::default_config();
  config.set("model.widths", c.widths, "test");
  config.set("mapping.block", c.block, "test");
  config.set("mapping.placement", c.placement, "test");
  config.set("backprop.xstash", c.xstash, "test");
  config.set("model.loss", c.loss, "test");
  config.set("machine.topology", c.topology, "test");
  config.set("sim.arith", "none", "test");
  config.set("step.tokens", "8", "test");
  config.set("step.wavefront", "4", "test");
  const workloads::RunSetup setup = workloads::setup_from_config(config);
  const sim::Grid grid(setup.grid_width, setup.grid_height, setup.topology);
  const PlacementDepth d =
      depth_on_placement(setup.model.widths, setup.placement, grid, std::string(c.xstash) == "rebroadcast",
                         std::string(c.loss) == "cross-entropy");
  EXPECT_EQ(workloads::run_schedule(setup, config, "forward").counters.depth, d.forward);
  EXPECT_EQ(workloads::run_schedule(setup, config, "backprop").counters.depth, d.backprop);
}

INSTANTIATE_TEST_SUITE_P(
    Placements, DepthAgainstSimulator,
    ::testing::Values(
        DepthCase{"zigzag_L1", "16,16", "4x4", "zigzag", "replicate", "mse", "mesh"},
        DepthCase{"zigzag_L2", "16,16,16", "4x4", "zigzag", "replicate", "mse", "mesh"},
        DepthCase{"zigzag_L5", "16,32,16,32,16,16", "4x4", "zigzag", "replicate", "mse", "mesh"},
        DepthCase{"zigzag_L9", "16,16,16,16,16,16,16,16,16,16", "3x3", "zigzag", "replicate", "mse", "mesh"},
        DepthCase{"zigzag_unmatched", "37,53,29,41", "3x5", "zigzag", "rebroadcast", "mse", "mesh"},
        // Blocks whose columns do not line up with the next block's rows (c != r): a row's pieces, and
        // a column's dX pieces on the way back, come from several tiles at unequal distances.
        DepthCase{"wide_blocks", "32,64,64,64,10", "2x3", "zigzag", "replicate", "mse", "mesh"},
        DepthCase{"tall_blocks_rowmajor", "32,64,64,64,10", "3x2", "rowmajor", "replicate", "mse", "mesh"},
        DepthCase{"wide_blocks_torus", "32,64,64,64,10", "3x4", "zigzag", "rebroadcast", "cross-entropy",
                  "torus"},
        DepthCase{"rowmajor", "37,53,29,41", "4x4", "rowmajor", "replicate", "mse", "mesh"},
        DepthCase{"rowmajor_torus", "37,53,29,41", "3x5", "rowmajor", "rebroadcast", "mse", "torus"},
        DepthCase{"cross_entropy", "16,16,16,16", "4x4", "zigzag", "rebroadcast", "cross-entropy", "mesh"},
        DepthCase{"one_tile", "5,7,3", "1x1", "zigzag", "replicate", "cross-entropy", "mesh"}),
    [](const ::testing::TestParamInfo<DepthCase>& p) { return std::string(p.param.name); });

}  // namespace
}  // namespace spatialsim::analysis
