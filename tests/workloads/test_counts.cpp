// The remaining counts of MODEL.md section 3, each against an independent formula on odd, non-dividing
// sizes: SRAM traffic, the per-tile stash peak, events and energy.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <vector>

#include "analysis/run_metrics.h"
#include "mappings/partition.h"
#include "tests/workloads/layout_formulas.h"
#include "tests/workloads/network_test_support.h"

namespace spatialsim::workloads {
namespace {

using sim::Phase;
using testing_support::run_with;

// widths 37 -> 53 -> 29 -> 11 on 3x5 blocks (uneven splits), T = 23 tokens in wavefronts of 5 (G = 5, the
// last one 3 tokens), b_a = 2, b_p = 4, 2-byte weights, bias on.
const std::vector<std::string> kOdd = {"--model.widths=37,53,29,11", "--mapping.block=3x5",
                                       "--step.tokens=23",           "--step.wavefront=5",
                                       "--machine.psum_bytes=4",     "--sim.arith=none"};
const std::vector<std::uint64_t> kWidths = {37, 53, 29, 11};
constexpr std::uint64_t kT = 23, kG = 5, kBa = 2, kWb = 2, kC = 5;

TEST(Counts, ForwardSramIsEachWeightAndBiasReadOncePerWavefront) {
  const RunResult r = run_with(kOdd, "forward");
  std::uint64_t expected = 0;
  for (std::size_t l = 0; l + 1 < kWidths.size(); ++l)
    expected += kG * (kWidths[l] * kWidths[l + 1] + kWidths[l + 1]) * kWb;
  EXPECT_EQ(r.counters.sram_bytes[sim::index(Phase::forward)], expected);
  EXPECT_EQ(r.counters.total_sram_bytes(), expected);
}

// Backprop's forward SRAM on kOdd: weights and bias read per wavefront, X written on `stash_tiles` tiles of
// each row (every tile under replicate, the lane entry under rebroadcast), Z where an activation follows.
std::uint64_t backprop_forward_sram(std::uint64_t stash_tiles) {
  const std::size_t L = kWidths.size() - 1;
  std::uint64_t bytes = 0;
  for (std::size_t l = 0; l < L; ++l) {
    const std::uint64_t d_in = kWidths[l], d_out = kWidths[l + 1];
    bytes += kG * (d_in * d_out + d_out) * kWb + kBa * kT * d_in * stash_tiles;
    if (l + 1 < L) bytes += kBa * kT * d_out;  // no activation after the last layer: no Z kept
  }
  return bytes;
}

std::uint64_t backprop_backward_sram() {
  return testing_support::backprop_backward_sram(setup_from_config(testing_support::config_with(kOdd)), kT,
                                                 kG);
}

std::uint64_t parameter_count() {
  std::uint64_t parameters = 0;
  for (std::size_t l = 0; l + 1 < kWidths.size(); ++l)
    parameters += kWidths[l] * kWidths[l + 1] + kWidths[l + 1];
  return parameters;
}

TEST(Counts, BackpropSramAddsStashWritesReadsAndGradientAccumulation) {
  const RunResult r = run_with(kOdd, "backprop");
  EXPECT_EQ(r.counters.sram_bytes[sim::index(Phase::forward)], backprop_forward_sram(kC));
  EXPECT_EQ(r.counters.sram_bytes[sim::index(Phase::backward)], backprop_backward_sram());
  // SGD: each parameter and its gradient read, the parameter written: 3 per parameter, once.
  EXPECT_EQ(r.counters.sram_bytes[sim::index(Phase::update)], 3 * parameter_count() * kWb);
}

TEST(Counts, AdamUpdateSramReadsParameterGradientAndTwoMomentsAndWritesThreeValues) {
  std::vector<std::string> overrides = kOdd;
  overrides.push_back("--train.optimizer=adam");
  const RunResult r = run_with(overrides, "backprop");
  // Read parameter, gradient, m and v; write parameter, m and v: 7 values of b_w bytes per parameter.
  EXPECT_EQ(r.counters.sram_bytes[sim::index(Phase::update)], 7 * parameter_count() * kWb);
}

// The per-tile maps (tiles/sram_bytes, tiles/flops) of backprop with SGD on kOdd, tile by tile from
// docs/model.md's rows: tile (i, j) of layer l (|I_i| = m, |J_j| = n) reads its weight slice per
// wavefront and stashes X in forward; its output tiles read the bias and write Z (not after the last
// layer); backward reads Z and the bias gradient on output tiles, the weights again for dX (not layer 0),
// and the dW accumulator and X on every tile; the update reads parameter and gradient and writes the
// parameter. Flops: X W, the dX share (not layer 0), dW, and one multiply-add per parameter. With
// mapping.stages = 2 layers 0 and 1 share their tiles, whose figures then add up.
TEST(Counts, PerTileSramAndFlopsMapsAreEachTilesOwnRows) {
  for (const char* stages : {"3", "2"}) {
    std::vector<std::string> overrides = kOdd;
    overrides.push_back(std::string("--mapping.stages=") + stages);
    const RunSetup setup = setup_from_config(testing_support::config_with(overrides));
    const RunResult r = run_with(overrides, "backprop");
    const std::size_t L = kWidths.size() - 1;
    std::vector<std::uint64_t> sram(r.tiles.sram_bytes.size(), 0), flops(sram.size(), 0);
    for (std::size_t l = 0; l < L; ++l) {
      const mappings::BlockLayout& block = setup.placement.blocks[l];
      const auto m_sizes = testing_support::split_sizes(static_cast<std::uint32_t>(kWidths[l]), block.rows);
      const auto n_sizes =
          testing_support::split_sizes(static_cast<std::uint32_t>(kWidths[l + 1]), block.cols);
      const bool hidden = l + 1 < L;  // an activation follows: Z is stashed
      for (std::uint32_t i = 0; i < block.rows; ++i)
        for (std::uint32_t j = 0; j < block.cols; ++j) {
          const std::uint64_t m = m_sizes[i], n = n_sizes[j];
          const bool output = i == block.output_row();
          const sim::Coord at = block.coord(i, j);
          const std::size_t tile = static_cast<std::size_t>(at.y) * setup.grid_width + at.x;
          std::uint64_t bytes = kG * kWb * m * n + kBa * kT * m;                          // forward
          bytes += (l > 0 ? kG * kWb * m * n : 0) + kG * 2 * kWb * m * n + kBa * kT * m;  // backward
          const std::uint64_t parameters = m * n + (output ? n : 0);
          bytes += 3 * kWb * parameters;  // update
          if (output) bytes += kG * kWb * n + (hidden ? 2 * kBa * kT * n : 0) + kG * 2 * kWb * n;
          sram[tile] += bytes;
          flops[tile] += 2 * kT * m * n * (l > 0 ? 3 : 2) + 2 * parameters;
        }
    }
    EXPECT_EQ(r.tiles.sram_bytes, sram) << "mapping.stages=" << stages;
    EXPECT_EQ(r.tiles.flops, flops) << "mapping.stages=" << stages;
  }
}

TEST(Counts, RebroadcastSramStashesOnlyTheLaneEntryAndNeverChargesTransit) {
  // backprop.xstash=rebroadcast: X is written on the lane entry only; the other tiles use the rebroadcast X
  // (waiting as transit, not charged, when it comes before dZ), and every tile's dW still reads X. The
  // count does not depend on timing: the same with links of 64 bytes per cycle, where contention makes some
  // rebroadcast X arrive before dZ.
  const std::uint64_t forward = backprop_forward_sram(1), backward = backprop_backward_sram();
  for (const char* link_bytes_per_cycle : {"0", "64"}) {
    std::vector<std::string> overrides = kOdd;
    overrides.push_back("--backprop.xstash=rebroadcast");
    overrides.push_back(std::string("--machine.link_bytes_per_cycle=") + link_bytes_per_cycle);
    const RunResult r = run_with(overrides, "backprop");
    EXPECT_EQ(r.counters.sram_bytes[sim::index(Phase::forward)], forward) << link_bytes_per_cycle;
    EXPECT_EQ(r.counters.sram_bytes[sim::index(Phase::backward)], backward) << link_bytes_per_cycle;
  }
}

TEST(Counts, PeakTileStashIsTheWidestLaneSliceWhenEverythingIsStashedAtOnce) {
  // One layer, one wavefront, r = 3 > c = 2: every tile has X before the first dZ arrives (docs/model.md);
  // the busiest tile holds the largest row range of d_in = 31 split 3 ways: 11 elements.
  const RunResult r = run_with({"--model.widths=31,20", "--mapping.block=3x2", "--step.tokens=7",
                                "--step.wavefront=7", "--sim.arith=none"},
                               "backprop");
  EXPECT_EQ(mappings::split(31, 3)[0].size, 11u);
  EXPECT_EQ(r.counters.peak_tile_stash_bytes, 2ull * 7 * 11);
  EXPECT_EQ(r.counters.peak_stash_bytes, 2ull * 7 * 31 * 2);
  // The per-tile map (tiles/peak_stash_bytes): tile (i, j) peaks at b_a T |I_i| (no Z after the last
  // layer), |I_i| = 11, 10, 10 on both tiles of each row; every other tile of the grid at 0.
  std::vector<std::uint64_t> peaks;
  for (const std::uint64_t p : r.tiles.peak_stash_bytes)
    if (p != 0) peaks.push_back(p);
  std::sort(peaks.begin(), peaks.end());
  EXPECT_EQ(peaks, (std::vector<std::uint64_t>{140, 140, 140, 140, 154, 154}));
}

// Every message once, by formula (forward on kOdd: in-block messages cross one hop each, so their bytes are
// what the layout gives): lanes b_a T d_in (c - 1) and partial sums b_p T d_out (r - 1) per layer, each
// hidden width redistributed once (b_a T d_l), and the host's inputs and targets b_a T (d_0 + d_L). The
// results' bytes_sent metric is their total; every message is received by a tile, and all but the host's
// are sent by one (the per-tile maps).
TEST(Counts, BytesAndMessagesAreEveryMessageOnce) {
  const RunResult r = run_with(kOdd, "forward");
  constexpr std::uint64_t kR = 3, kBp = 4;
  const std::size_t L = kWidths.size() - 1;
  std::uint64_t lane = 0, psum = 0, redistribution = 0;
  std::uint64_t lane_messages = 0, psum_messages = 0, redistribution_messages = 0;
  for (std::size_t l = 0; l < L; ++l) {
    lane += kBa * kT * kWidths[l] * (kC - 1);
    psum += kBp * kT * kWidths[l + 1] * (kR - 1);
    lane_messages += kG * kR * (kC - 1);
    psum_messages += kG * kC * (kR - 1);
    if (l + 1 < L) {
      redistribution += kBa * kT * kWidths[l + 1];
      // One piece per (output column, next lane) whose ranges overlap.
      for (const mappings::Range col : mappings::split(static_cast<std::uint32_t>(kWidths[l + 1]), kC))
        for (const mappings::Range lane_range :
             mappings::split(static_cast<std::uint32_t>(kWidths[l + 1]), kR))
          if (mappings::intersect(col, lane_range).size != 0) redistribution_messages += kG;
    }
  }
  const std::uint64_t host = kBa * kT * (kWidths.front() + kWidths.back());
  const std::uint64_t host_messages = kG * (kR + kC);  // inputs per lane, targets per output column
  const auto& bytes = r.counters.bytes;
  EXPECT_EQ(bytes.at(Phase::forward, sim::MessageKind::lane), lane);
  EXPECT_EQ(bytes.at(Phase::forward, sim::MessageKind::psum), psum);
  EXPECT_EQ(bytes.at(Phase::forward, sim::MessageKind::redistribution), redistribution);
  EXPECT_EQ(bytes.at(Phase::forward, sim::MessageKind::host), host);
  const std::uint64_t total = lane + psum + redistribution + host;
  const auto metrics = analysis::run_metrics(r, sim::energy_preset("dally2023"));
  EXPECT_EQ(analysis::find_metric(metrics, "bytes_sent").as_double(), static_cast<double>(total));
  EXPECT_EQ(analysis::find_metric(metrics, "messages").as_double(),
            static_cast<double>(lane_messages + psum_messages + redistribution_messages + host_messages));

  const auto sum = [](const std::vector<std::uint64_t>& v) {
    return std::accumulate(v.begin(), v.end(), 0ull);
  };
  EXPECT_EQ(sum(r.tiles.bytes_received), total);
  EXPECT_EQ(sum(r.tiles.bytes_sent), total - host);
  EXPECT_EQ(sum(r.tiles.byte_hops_sent),
            r.counters.byte_hops.total() - r.counters.byte_hops.kind_total(sim::MessageKind::host));

  // Training: the metric is every phase's bytes, as every tile received them.
  const RunResult b = run_with(kOdd, "backprop");
  ASSERT_GT(b.counters.bytes.phase_total(Phase::backward), 0u);
  EXPECT_EQ(analysis::find_metric(analysis::run_metrics(b, sim::energy_preset("dally2023")), "bytes_sent")
                .as_double(),
            static_cast<double>(sum(b.tiles.bytes_received)));
  EXPECT_EQ(sum(b.tiles.bytes_sent), sum(b.tiles.bytes_received) - host);
}

TEST(Counts, EventsAreTheMessagesPlusOneInjectionTimerPerWavefrontPlusOneUpdatePerTileOfEachLayer) {
  const RunResult f = run_with(kOdd, "forward");
  EXPECT_EQ(f.counters.events, f.counters.messages.total() + kG);
  const RunResult b = run_with(kOdd, "backprop");
  const std::uint64_t tiles = 3 * 3 * 5;  // three layers of 3x5 tiles
  EXPECT_EQ(b.counters.events, b.counters.messages.total() + kG + tiles);
}

TEST(Counts, EnergyIsTheThreeTermsAtThePresetPrices) {
  const RunResult r = run_with(kOdd, "backprop");
  const sim::EnergyPrices prices = sim::energy_preset("dally2023");
  const auto metrics = analysis::run_metrics(r, prices);
  const double hop = 0.4 * static_cast<double>(r.counters.byte_hops.total());
  const double sram = 1.0 * static_cast<double>(r.counters.total_sram_bytes());
  const double flop = 0.1 * static_cast<double>(r.counters.total_flops());
  EXPECT_DOUBLE_EQ(analysis::find_metric(metrics, "energy_hop_pj").as_double(), hop);
  EXPECT_DOUBLE_EQ(analysis::find_metric(metrics, "energy_sram_pj").as_double(), sram);
  EXPECT_DOUBLE_EQ(analysis::find_metric(metrics, "energy_flop_pj").as_double(), flop);
  EXPECT_DOUBLE_EQ(analysis::find_metric(metrics, "energy_pj").as_double(), hop + sram + flop);
}

}  // namespace
}  // namespace spatialsim::workloads
