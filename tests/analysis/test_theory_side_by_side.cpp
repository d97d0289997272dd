// The simulated counters beside the closed forms: lane and psum match exactly, redistribution and host
// are explained by the placement and the grid edge; the peak stash by the fill and drain and by the
// injection interval against the layer latency; in-flight byte-cycles by the layer latency.
#include "analysis/theory_side_by_side.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/command_line.h"
#include "sim/grid.h"

namespace spatialsim::analysis {
namespace {

// G wavefronts of T_g tokens each, as a step of G T_g tokens splits them.
std::vector<std::uint32_t> full_wavefronts(std::uint32_t tokens_per_wavefront, std::size_t G) {
  return std::vector<std::uint32_t>(G, tokens_per_wavefront);
}

TEST(TheorySideBySide, PeakStashReachesTheFullFormWith2LMinusOneWavefronts) {
  const std::vector<double> s{3, 5, 7};  // L = 3
  const double full = inflight_of_layers(s, 2);
  EXPECT_DOUBLE_EQ(peak_stash_with_wavefronts(s, full_wavefronts(2, 6)), full);  // G = 2L
  EXPECT_DOUBLE_EQ(peak_stash_with_wavefronts(s, full_wavefronts(2, 5)), full);  // already at G = 2L - 1
  EXPECT_LT(peak_stash_with_wavefronts(s, full_wavefronts(2, 4)), full);
  EXPECT_DOUBLE_EQ(peak_stash_with_wavefronts(s, full_wavefronts(2, 50)), full);  // more changes nothing
  EXPECT_LT(peak_stash_with_wavefronts(s, full_wavefronts(2, 2)), full);
  // One wavefront: at t = 1 only layer 0 holds (0 < 1 <= 5); at t = 2 layers 0 and 1 (1 < 2 <= 3).
  EXPECT_DOUBLE_EQ(peak_stash_with_wavefronts(s, full_wavefronts(2, 1)), 2 * (3 + 5 + 7));
}

// A step whose tokens do not divide into wavefronts ends with a smaller one, which holds only its own
// tokens' stash. L = 2, s = {3, 5}, wavefronts {4, 4, 1} one per layer-latency: layer 0's stash of
// wavefront w lives on (w + 1/2, w + 7/2) and layer 1's on (w + 3/2, w + 5/2). Just after t = 5/2 layer 0
// holds all three wavefronts, (4 + 4 + 1) x 3 = 27, and layer 1 wavefront 1, 4 x 5 = 20: 47, where three
// full wavefronts would hold 12 x 3 + 20 = 56.
TEST(TheorySideBySide, PeakStashWeighsAPartialLastWavefrontByItsTokens) {
  EXPECT_DOUBLE_EQ(peak_stash_with_wavefronts({3, 5}, {4, 4, 1}), 47);
  EXPECT_DOUBLE_EQ(peak_stash_with_wavefronts({3, 5}, {4, 4, 4}), 56);
  // One layer, its stash living one layer-latency: wavefronts one apart never overlap, half apart do.
  EXPECT_DOUBLE_EQ(peak_stash_with_wavefronts({2}, {8, 3}), 16);
  EXPECT_DOUBLE_EQ(peak_stash_with_wavefronts({2}, {8, 3}, 0.5), 22);
  EXPECT_DOUBLE_EQ(peak_stash_with_wavefronts({2}, {}), 0);
  EXPECT_THROW(peak_stash_with_wavefronts({2}, {3, 8, 8}), std::invalid_argument);  // only the last smaller
}

// Against a brute-force reference that samples the step's timeline on a fine grid between the interval
// ends (every end is a multiple of 1/2 plus a multiple of the spacing, so a 1/64 grid offset by 1/128
// never lands on one): ragged steps, deep enough that the skipped middle of a long step is steady.
TEST(TheorySideBySide, PeakStashMatchesASampledTimeline) {
  const auto sampled = [](const std::vector<double>& s, const std::vector<std::uint32_t>& tokens,
                          double spacing) {
    const double L = static_cast<double>(s.size());
    const double end = static_cast<double>(tokens.size()) * spacing + 2 * L;
    double peak = 0;
    for (double t = 1.0 / 128; t < end; t += 1.0 / 64) {
      double total = 0;
      for (std::size_t w = 0; w < tokens.size(); ++w)
        for (std::size_t l = 0; l < s.size(); ++l) {
          const double start = static_cast<double>(w) * spacing + static_cast<double>(l) + 0.5;
          const double stop = static_cast<double>(w) * spacing + 2 * L - static_cast<double>(l) - 0.5;
          if (start < t && t < stop) total += s[l] * tokens[w];
        }
      peak = std::max(peak, total);
    }
    return peak;
  };
  const std::vector<double> s{3, 1, 4, 1, 5};  // L = 5
  for (const std::size_t G : {1, 2, 5, 9, 10, 23, 40})
    for (const std::uint32_t last : {1u, 6u, 7u})
      for (const double spacing : {1.0, 0.5, 3.0}) {
        std::vector<std::uint32_t> tokens = full_wavefronts(7, G);
        tokens.back() = last;
        EXPECT_DOUBLE_EQ(peak_stash_with_wavefronts(s, tokens, spacing), sampled(s, tokens, spacing))
            << "G " << G << " last " << last << " spacing " << spacing;
      }
}

// Layer 0's stash lives 2L - 1 layer-latencies, so 2L - 1 wavefronts one per layer-latency are the
// first to hold every layer's stash of the form at once, whatever the stash sizes; the printed threshold
// says so.
TEST(TheorySideBySide, FullFormNeeds2LMinusOneWavefrontsForAnyDepth) {
  for (std::size_t L = 1; L <= 7; ++L) {
    std::vector<double> s(L);
    for (std::size_t l = 0; l < L; ++l) s[l] = double(1 + (7 * l) % 5);
    const double full = inflight_of_layers(s, 1);
    EXPECT_DOUBLE_EQ(peak_stash_with_wavefronts(s, full_wavefronts(1, 2 * L - 1)), full) << L;
    if (L > 1) {
      EXPECT_LT(peak_stash_with_wavefronts(s, full_wavefronts(1, 2 * L - 2)), full) << L;
    }
  }
  sim::Config config = cli::default_config();  // 4 layers
  config.set("sim.arith", "none", "test");
  const workloads::RunSetup setup = workloads::setup_from_config(config);
  std::ostringstream out;
  write_theory_side_by_side(out, config, setup, {workloads::run_schedule(setup, config, "backprop")});
  EXPECT_NE(out.str().find("full needs 2L - 1 = 7 full ones)"), std::string::npos) << out.str();
}

// G counts the wavefronts the step splits into, even where T + T_g passes 2^32 (it printed G = 0 there).
TEST(TheorySideBySide, WavefrontCountAtTheLargestStep) {
  sim::Config config = cli::default_config();
  config.set("sim.arith", "none", "test");
  config.set("step.tokens", "4294967295", "test");
  config.set("step.wavefront", "2147483648", "test");
  const workloads::RunSetup setup = workloads::setup_from_config(config);
  std::ostringstream out;
  write_theory_side_by_side(out, config, setup, {workloads::run_schedule(setup, config, "backprop")});
  EXPECT_NE(out.str().find("(G = 2 wavefronts one per layer-latency, the last of 2147483647 tokens"),
            std::string::npos)
      << out.str();
}

// MODEL.md section 9's byte-hops, b (d + k) sqrt(n) per layer, and the terms it leaves out, each counted
// here by hand for 12 -> 20 -> 12 on 4 x 4 blocks (sqrt(n) = 4 links charged per lane and column, 3 in
// the block), add up to the simulated byte-hops per token in both phases.
TEST(TheorySideBySide, Section9FormAndItsOmissionsAddUpToTheSimulatedByteHops) {
  for (const bool rebroadcast : {false, true}) {
    sim::Config config = cli::default_config();
    config.set("sim.arith", "none", "test");
    config.set("model.widths", "12,20,12", "test");
    config.set("mapping.block", "4x4", "test");
    if (rebroadcast) config.set("backprop.xstash", "rebroadcast", "test");
    const workloads::RunSetup setup = workloads::setup_from_config(config);
    const workloads::RunResult r = workloads::run_schedule(setup, config, "backprop");
    const std::uint64_t T = setup.tokens;
    const auto kind = [&](sim::Phase p, sim::MessageKind k) {
      return r.counters.byte_hops.cells[static_cast<std::size_t>(p)][static_cast<std::size_t>(k)] / T;
    };
    // b = 2: section 9 charges (12 + 20) x 2 bytes x 4 links per layer, 2 layers; the blocks have 3.
    const std::int64_t section9 = 2 * (2 * 12 + 2 * 20) * 4;  // 512
    const std::int64_t edge = -2 * (2 * 12 + 2 * 20) * 1;     // -128
    const std::int64_t layer0_dx = -2 * 12 * 3;               // -72
    const std::int64_t redistribution = 2 * 20;               // one hop per element, zigzag
    const std::int64_t rebroadcast_hops = rebroadcast ? 2 * (12 + 20) * 3 : 0;
    const auto host = static_cast<std::int64_t>(kind(sim::Phase::forward, sim::MessageKind::host));
    ASSERT_GT(host, 0);
    const std::int64_t forward = section9 + edge + redistribution + host;
    const std::int64_t backward = section9 + edge + layer0_dx + rebroadcast_hops + redistribution;
    ASSERT_EQ(r.counters.byte_hops.phase_total(sim::Phase::forward), std::uint64_t(forward) * T);
    ASSERT_EQ(r.counters.byte_hops.phase_total(sim::Phase::backward), std::uint64_t(backward) * T);

    std::ostringstream out;
    write_theory_side_by_side(out, config, setup, {r});
    const std::string text = out.str();
    // Every term but the section 9 form is printed with its sign.
    const auto term = [&](const std::string& label, std::int64_t v) {
      const bool form = label.starts_with("section 9 form");
      const std::size_t at = text.find(label);
      if (at == std::string::npos) return std::string("no line ") + label;
      const std::string line = text.substr(at, text.find('\n', at) - at);
      const std::string value = (v > 0 && !form ? "+" : "") + std::to_string(v);
      return line.size() >= value.size() && line.substr(line.size() - value.size()) == value ? std::string()
                                                                                             : line;
    };
    EXPECT_EQ(term("section 9 form, sum_l (b_a d_in + b_p d_out) sqrt(n)", section9), "") << text;
    EXPECT_EQ(term("section 9 form, sum_l (b_a d_out + b_p d_in) sqrt(n)", section9), "") << text;
    EXPECT_EQ(term("array edge (c - 1 links per lane, r - 1 per column)", edge), "") << text;
    EXPECT_EQ(term("layer 0's dX (not computed)", layer0_dx), "") << text;
    EXPECT_EQ(term("host (inputs and targets across the grid edge)", host), "") << text;
    EXPECT_EQ(text.find("rebroadcast (backprop.xstash") != std::string::npos, rebroadcast) << text;
    if (rebroadcast) {
      EXPECT_EQ(term("rebroadcast (backprop.xstash = rebroadcast)", rebroadcast_hops), "") << text;
    }
    for (const std::int64_t total : {forward, backward})
      EXPECT_NE(text.find("simulated " + std::to_string(total) + "; difference 0"), std::string::npos)
          << total << "\n"
          << text;
  }
}

TEST(TheorySideBySide, WavefrontsFartherApartThanALayerLatencyHoldFewerInFlight) {
  // L = 2, s = {3, 5}: layer 0 lives 3 layer-latencies, layer 1 one. One wavefront per layer-latency holds
  // 3 x 3 + 1 x 5 = 14 per token of a wavefront; two layer-latencies apart, at most one wavefront's layer 1
  // (with its own layer 0) or two wavefronts' layer 0: max(3 + 5, 2 x 3) = 8.
  const std::vector<double> s{3, 5};
  EXPECT_DOUBLE_EQ(peak_stash_with_wavefronts(s, full_wavefronts(2, 10), 1.0), 2 * 14);
  EXPECT_DOUBLE_EQ(peak_stash_with_wavefronts(s, full_wavefronts(2, 10), 2.0), 2 * 8);
  // Half a layer-latency apart: twice the wavefronts in flight, once 4L of them have entered.
  const std::vector<double> one{7};  // L = 1: a stash lives one layer-latency
  EXPECT_DOUBLE_EQ(peak_stash_with_wavefronts(one, full_wavefronts(1, 50), 1.0), 7);
  EXPECT_DOUBLE_EQ(peak_stash_with_wavefronts(one, full_wavefronts(1, 50), 0.5), 14);
  // Seed-grid's spacing, 31 cycles against 23.5 (L = 32): about 23.5 / 31 of the full form.
  const std::vector<double> uniform(32, 1.0);
  EXPECT_NEAR(
      peak_stash_with_wavefronts(uniform, full_wavefronts(1, 64), 31 / 23.5) / inflight_of_layers(uniform, 1),
      23.5 / 31, 0.01);
  EXPECT_THROW(peak_stash_with_wavefronts(s, full_wavefronts(2, 10), 0.0), std::invalid_argument);
}

TEST(TheorySideBySide, InflightByteCyclesPerTokenHoldEachLayerItsLayerLatencies) {
  // tau (2 (L - l) - 1) s_l summed: 10 x (3 x 3 + 1 x 5).
  EXPECT_DOUBLE_EQ(inflight_byte_cycles_per_token({3, 5}, 10), 140);
}

// Seed-grid's shape at L = 8 with narrow layers: 16x16 blocks on the zigzag, so the default interval
// (31 cycles, the first block's r + c - 1) is longer than the mean layer latency (23.5 cycles: the layers
// alternate 31 and 16 hops). Set against the interval, the form comes within 5% of the simulated peak;
// with one wavefront per layer-latency it is 25% too high.
TEST(TheorySideBySide, TheInjectionIntervalAgainstTheLayerLatencyExplainsThePeak) {
  sim::Config config = cli::default_config();
  config.set("sim.arith", "none", "test");
  config.set("model.widths", "32,32,32,32,32,32,32,32,32", "test");
  config.set("mapping.block", "16x16", "test");
  config.set("step.wavefront", "4", "test");
  config.set("step.tokens", "64", "test");  // G = 16 = 2L
  const workloads::RunSetup setup = workloads::setup_from_config(config);
  ASSERT_EQ(setup.injection_interval, 31u);
  const workloads::RunResult r = workloads::run_schedule(setup, config, "backprop");
  const auto layers = layer_geometry(setup.model.widths, setup.placement);
  const sim::Grid grid(setup.grid_width, setup.grid_height, setup.topology);
  const PlacementDepth depth = depth_on_placement(setup.model.widths, setup.placement, grid, false, false);
  ASSERT_DOUBLE_EQ(depth.mean_layer_hops(), 23.5);
  const auto stash = stash_bytes_per_token(layers, setup.bytes.activation, true, true);
  const double simulated = static_cast<double>(r.counters.peak_stash_bytes);
  const double one_per_latency = peak_stash_with_wavefronts(stash, full_wavefronts(4, 16));
  const double spaced = peak_stash_with_wavefronts(stash, full_wavefronts(4, 16), 31 / 23.5);
  EXPECT_GT(one_per_latency / simulated, 1.25);
  EXPECT_NEAR(spaced / simulated, 1, 0.05);
  const double inflight = static_cast<double>(r.counters.inflight_byte_cycles) / 64;
  EXPECT_NEAR(inflight_byte_cycles_per_token(stash, 23.5) / inflight, 1, 0.03);

  std::ostringstream out;
  write_theory_side_by_side(out, config, setup, {r});
  for (const char* s : {"injection interval against layer latency: I = 31 cycles", "tau = 23.5 cycles",
                        "tau / I = 0.758", "cycle-level timing (residual)", "in-flight byte-cycles per token",
                        "the placement's chains 375 (forward 188", "difference from the chains 0"})
    EXPECT_NE(out.str().find(s), std::string::npos) << s << "\n" << out.str();
}

// With finite links a layer-latency in cycles is not its hops: the interval is not set against it, and the
// residual says what it holds.
TEST(TheorySideBySide, FiniteLinksLeaveTheIntervalInTheResidual) {
  sim::Config config = cli::default_config();
  config.set("sim.arith", "none", "test");
  config.set("machine.link_bytes_per_cycle", "64", "test");
  const workloads::RunSetup setup = workloads::setup_from_config(config);
  std::ostringstream out;
  write_theory_side_by_side(out, config, setup, {workloads::run_schedule(setup, config, "backprop")});
  EXPECT_NE(out.str().find("injection interval, contention and cycle-level timing (residual)"),
            std::string::npos)
      << out.str();
  EXPECT_EQ(out.str().find("tau / I"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("no closed form here"), std::string::npos) << out.str();
}

// The pipelined mapping reproduces the 1F1B pipeline's in-flight count when wavefronts enter one per stage's
// work: 8 equal layers (identity, rebroadcast: s_l = b_a d_in per token) on 1, 2, 3, 4 and 8 stages, each
// layer-wavefront 144 cycles of compute on a tile (2 x 8 tokens x 24 x 24 / 64), 3 per layer in a step.
// The peak grows with p as the 1F1B sum does, within 10% of it (seed 000's 1/2 L p drops half a
// wavefront per layer, which at p = 1 is half the count).
TEST(TheorySideBySide, PipelineStagesHoldWhatThe1F1BSumCounts) {
  double previous = 0;
  for (std::uint32_t p : {1u, 2u, 3u, 4u, 8u}) {
    sim::Config config = cli::default_config();
    config.set("sim.arith", "none", "test");
    config.set("model.widths", "48,48,48,48,48,48,48,48,48", "test");
    config.set("model.activation", "identity", "test");
    config.set("backprop.xstash", "rebroadcast", "test");
    config.set("mapping.stages", std::to_string(p), "test");
    config.set("machine.flops_per_cycle", "64", "test");
    config.set("step.wavefront", "8", "test");
    config.set("step.tokens", "256", "test");
    const std::uint32_t longest_stage = (8 + p - 1) / p;
    config.set("step.interval", std::to_string(3 * longest_stage * 144), "test");
    const workloads::RunSetup setup = workloads::setup_from_config(config);
    const workloads::RunResult r = workloads::run_schedule(setup, config, "backprop");
    const auto layers = layer_geometry(setup.model.widths, setup.placement);
    const auto stash = stash_bytes_per_token(layers, setup.bytes.activation, false, false);
    const double counted = inflight_1f1b(stash, p, 8);
    const double simulated = static_cast<double>(r.counters.peak_stash_bytes);
    EXPECT_NEAR(simulated / counted, 1, 0.1) << p << " stages: " << simulated << " against " << counted;
    EXPECT_GT(simulated, previous) << p;
    previous = simulated;
    std::ostringstream out;
    write_theory_side_by_side(out, config, setup, {r});
    for (const std::string& s : {"pipeline, mapping.stages = " + std::to_string(p),
                                 "about " + std::to_string(3 * 144 * longest_stage - (p == 1 ? 144 : 0)) +
                                     " cycles of compute per wavefront on the busiest stage"})
      EXPECT_NE(out.str().find(s), std::string::npos) << s << "\n" << out.str();
  }
}

TEST(TheorySideBySide, SimulatedBackpropMatchesTheBlockFormsAndExplainsTheRest) {
  sim::Config config = cli::default_config();
  config.set("sim.arith", "none", "test");
  config.set("mapping.placement", "rowmajor", "test");  // redistribution of more than one hop
  const workloads::RunSetup setup = workloads::setup_from_config(config);
  const workloads::RunResult r = workloads::run_schedule(setup, config, "backprop");
  const auto layers = layer_geometry(setup.model.widths, setup.placement);
  const sim::Grid grid(setup.grid_width, setup.grid_height, setup.topology);
  const auto redistribution =
      redistribution_byte_hops_per_token(setup.model.widths, setup.placement, setup.bytes.activation, grid);
  const auto host =
      host_byte_hops_per_token(setup.model.widths, setup.placement, setup.bytes.activation, grid);
  for (sim::Phase phase : {sim::Phase::forward, sim::Phase::backward}) {
    const ByteHopsPerToken block = phase == sim::Phase::forward
                                       ? forward_block_byte_hops_per_token(layers, setup.bytes)
                                       : backward_block_byte_hops_per_token(layers, setup.bytes, false);
    const auto rows = byte_hops_beside_theory(r.counters, phase, block, redistribution, host, setup.tokens);
    ASSERT_FALSE(rows.empty());
    for (const auto& k : rows) EXPECT_EQ(k.unexplained(), 0) << k.kind << " in phase " << int(phase);
  }
  std::ostringstream out;
  write_theory_side_by_side(out, config, setup, {r});
  EXPECT_NE(out.str().find("redistribution between layers (placement)"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("pipeline fill and drain"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("2 L sqrt(n)"), std::string::npos) << out.str();
}

}  // namespace
}  // namespace spatialsim::analysis
