// Sizes the simulator cannot count are refused before anything runs, naming the option (no counter may wrap,
// no grid may outgrow memory, no cycle count may overflow), and the bound behind the count limit really is
// an over-estimate of what runs count.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "sim/counters.h"
#include "sim/grid.h"
#include "tests/workloads/network_test_support.h"
#include "workloads/schedules/i_schedule.h"
#include "workloads/tangent_generator.h"

namespace spatialsim::workloads {
namespace {

using testing_support::config_with;
using testing_support::run_with;

// The key setup_from_config names when it refuses `overrides`, or "" if it accepts them.
std::string refused_key(const std::vector<std::string>& overrides) {
  try {
    setup_from_config(config_with(overrides));
    return "";
  } catch (const sim::ConfigError& e) {
    return e.key();
  }
}

TEST(RunSetupLimits, RefusesWhatCannotBeCountedAndAcceptsTheLimitItself) {
  EXPECT_EQ(refused_key({"--model.width=5000000000"}), "model.width");  // not silently truncated to 32 bits
  EXPECT_EQ(refused_key({"--model.outputs=4294967296"}), "model.outputs");
  // Fits 32 bits, not the counters (counting mode: the values' memory is refused first otherwise, below).
  EXPECT_EQ(refused_key({"--model.width=4000000000", "--sim.arith=none"}), "model.width");
  // Of the options set, the one that grew the bound the most over its default: the tokens 62.5 million
  // times (4e9 / 64) over a width grown 1.8 million times (the weights, 2e10 / 10944), or the width 180
  // million times (2e12 / 10944) over tokens grown 6.25 million times.
  EXPECT_EQ(refused_key({"--model.width=100000", "--step.tokens=4000000000", "--sim.arith=none"}),
            "step.tokens");
  EXPECT_EQ(refused_key({"--model.width=1000000", "--step.tokens=400000000", "--sim.arith=none"}),
            "model.width");
  EXPECT_EQ(refused_key({"--step.tokens=4000000000", "--model.widths=100000,100000", "--sim.arith=none"}),
            "step.tokens");
  EXPECT_EQ(refused_key({"--step.tokens=400000000", "--model.widths=1000000,1000000", "--sim.arith=none"}),
            "model.widths");

  EXPECT_EQ(refused_key({"--mapping.grid=2049x2048"}), "mapping.grid");
  EXPECT_EQ(refused_key({"--mapping.grid=100000x100000"}), "mapping.grid");  // 10^10 tiles: beyond 32 bits
  EXPECT_EQ(refused_key({"--mapping.grid=2048x2048"}), "");
  // auto: the zigzag bounding box of 1100 layers of 64x64 blocks, 35200 x 128 tiles, is beyond the limit.
  EXPECT_EQ(refused_key({"--model.depth=1100", "--model.width=64", "--model.inputs=64", "--model.outputs=64",
                         "--mapping.block=64x64"}),
            "mapping.grid");

  EXPECT_EQ(refused_key({"--machine.hop_latency=1048577"}), "machine.hop_latency");
  EXPECT_EQ(refused_key({"--machine.hop_latency=1048576"}), "");
  EXPECT_EQ(refused_key({"--step.interval=4294967296"}), "step.interval");
  EXPECT_EQ(refused_key({"--step.interval=4294967295"}), "");
}

// Arithmetic mode's values must fit in the host's memory (checked before any allocation): the refusal names
// the largest part (the model's weights and gradients, the step's data, the teacher's matrices); counting
// mode holds no values and is not refused for them.
TEST(RunSetupLimits, ValuesBeyondTheHostsMemoryAreRefusedInArithmeticModeOnly) {
  // 4 x 10^12 weights: 32 TB of fp32 weights and gradients, beyond any machine this runs on.
  EXPECT_EQ(refused_key({"--model.width=2000000"}), "model.width");
  EXPECT_EQ(refused_key({"--model.width=2000000", "--sim.arith=fp64"}), "model.width");
  EXPECT_EQ(refused_key({"--model.widths=32,2000000,2000000,10"}), "model.widths");
  EXPECT_EQ(refused_key({"--model.width=2000000", "--sim.arith=none", "--schedule=forward"}), "");
  // 4 x 10^9 tokens of 42 fp64 inputs and targets: 1.3 TB; a teacher 4 x 10^9 wide: 3.4 TB.
  EXPECT_EQ(refused_key({"--step.tokens=4000000000"}), "step.tokens");
  EXPECT_EQ(refused_key({"--data.teacher_width=4000000000"}), "data.teacher_width");
  // The mixture task builds no teacher (the front end refuses the option there as one that does not apply).
  EXPECT_EQ(refused_key({"--data.teacher_width=4000000000", "--data.task=mixture"}), "");
  EXPECT_EQ(refused_key({}), "");
}

// run used to accept up to 2^32 - 1 threads (a billion: std::bad_alloc) while sweep refused above 4096.
TEST(RunSetupLimits, ThreadsAboveTheSweepsLimitAreRefusedByEveryCommand) {
  EXPECT_EQ(refused_key({"--sim.threads=4097"}), "sim.threads");
  EXPECT_EQ(refused_key({"--sim.threads=1000000000"}), "sim.threads");
  EXPECT_EQ(refused_key({"--sim.threads=4096"}), "");
  EXPECT_EQ(refused_key({"--sim.threads=0"}), "");
}

// A price of 1e308 pJ made energy_pj inf in the table and the HDF5 file.
TEST(RunSetupLimits, EnergyPricesThatWouldMakeAnEnergyAbsurdAreRefusedNamingTheirOption) {
  for (const char* key : {"energy.hop_pj", "energy.sram_pj", "energy.flop_pj"}) {
    const std::string k = key;
    EXPECT_EQ(refused_key({"--" + k + "=1e308"}), k);
    EXPECT_EQ(refused_key({"--" + k + "=1000001"}), k);
    EXPECT_EQ(refused_key({"--" + k + "=1e6"}), "");
    EXPECT_EQ(refused_key({"--" + k + "=0.5"}), "");
  }
}

TEST(RunSetupLimits, GridConstructorRefusesMoreThanTheTileLimit) {
  EXPECT_THROW(sim::Grid(4096, 1025, sim::Topology::mesh), std::invalid_argument);
  EXPECT_NO_THROW(sim::Grid(4096, 2, sim::Topology::mesh));
}

TEST(RunSetupLimits, TangentCountsThatCouldWrapAreRefusedNamingTheirOption) {
  // d = 4096, 32 layers, 16384 tokens: K tangents multiply the forward pass's flops by 1 + 2K.
  const std::vector<std::string> big = {
      "--model.width=4096",    "--model.inputs=4096", "--model.outputs=4096", "--model.depth=32",
      "--mapping.block=16x16", "--step.tokens=16384", "--step.wavefront=256"};
  for (const char* schedule : {"forward-gradient", "split-fg"}) {
    std::vector<std::string> many = big;
    many.push_back("--fg.tangents=65536");
    try {
      ScheduleRegistry::create(schedule, config_with(many));
      ADD_FAILURE() << schedule << " accepted 65536 tangents";
    } catch (const sim::ConfigError& e) {
      EXPECT_EQ(e.key(), "fg.tangents") << e.what();
    }
    std::vector<std::string> few = big;
    few.push_back("--fg.tangents=1000");
    EXPECT_NO_THROW(ScheduleRegistry::create(schedule, config_with(few))) << schedule;
  }
}

// The refusal is exact, not merely safe: K tangents ride the forward pass as 1 + 2K streams (X W and X V_k)
// and split-fg's head adds at most three backward products, 4 + 2K passes of pass_bound each. The largest K
// whose 4 + 2K passes stay below 2^62 is accepted and the next refused; both computed here from that rule.
TEST(RunSetupLimits, TheTangentLimitIsTheLargestKWhoseFourPlusTwoKPassesStayBelow2To62) {
  const sim::Config config =
      config_with({"--model.width=4096", "--model.inputs=4096", "--model.outputs=4096", "--model.depth=32",
                   "--mapping.block=16x16", "--step.tokens=16384", "--step.wavefront=256"});
  const long double pass = pass_bound(setup_from_config(config));
  const auto most = static_cast<std::uint32_t>((sim::kCountLimit / pass - 4) / 2);
  ASSERT_LT(pass * (4 + 2.0L * most), sim::kCountLimit);
  ASSERT_GE(pass * (4 + 2.0L * (most + 1)), sim::kCountLimit);
  ASSERT_LT(most + 1, TangentGenerator::kMaxTangents);  // the layout's own limit is not what refuses
  EXPECT_NO_THROW(require_tangent_counts_fit(config, most));
  try {
    require_tangent_counts_fit(config, most + 1);
    ADD_FAILURE() << most + 1 << " tangents were accepted";
  } catch (const sim::ConfigError& e) {
    EXPECT_EQ(e.key(), "fg.tangents") << e.what();
    EXPECT_NE(std::string(e.what()).find("give at most " + std::to_string(most)), std::string::npos)
        << e.what();
  }
}

// The hint names a count that is accepted, also where the quotient is whole: with pass = 2^59, K = 2 gives
// 2^59 x 8 = 2^62, which is refused, so the most is 1.
TEST(RunSetupLimits, TheMostTangentsThatFitStayBelow2To62EvenWhenTheQuotientIsWhole) {
  const long double two_to_59 = sim::kCountLimit / 8;
  EXPECT_EQ(most_tangents_that_fit(two_to_59), 1u);
  EXPECT_EQ(most_tangents_that_fit(two_to_59 * 0.999L), 2u);    // 8 passes just fit
  EXPECT_EQ(most_tangents_that_fit(sim::kCountLimit / 6), 0u);  // K = 1: 6 passes reach 2^62
  EXPECT_EQ(most_tangents_that_fit(sim::kCountLimit), 0u);
  EXPECT_EQ(most_tangents_that_fit(1.0L), (std::uint64_t{1} << 61) - 3);  // 4 + 2K < 2^62: K < 2^61 - 2
}

// The bound is only useful if it bounds: every count of real runs (the most recomputing schedule, the
// forward gradient with its tangent streams) stays below it.
TEST(RunSetupLimits, PassBoundOverEstimatesEveryCountOfRealRuns) {
  const std::vector<std::string> base = {"--model.widths=11,13,13,10,7",
                                         "--mapping.block=2x3",
                                         "--step.tokens=23",
                                         "--step.wavefront=5",
                                         "--train.steps=2",
                                         "--sim.arith=none",
                                         "--revolve.slots=1",
                                         "--fg.tangents=3"};
  const RunSetup setup = setup_from_config(config_with(base));
  const long double pass = pass_bound(setup);
  const auto layers = static_cast<long double>(setup.model.layers());
  for (const char* schedule : {"backprop", "checkpoint", "revolve", "forward-gradient"}) {
    const RunResult r = run_with(base, schedule);  // each schedule reads only its own options
    const long double bound =
        std::string(schedule) == "forward-gradient" ? pass * (4 + 2 * 3) : pass * (4 + layers);
    const auto largest = static_cast<long double>(
        std::max({r.counters.byte_hops.total(), r.counters.total_flops(), r.counters.total_sram_bytes()}));
    EXPECT_LE(largest, bound) << schedule;
    EXPECT_GT(largest, 0.0L) << schedule;
  }
}

// inflight_byte_cycles integrates the stash over time; the ledger sums it exactly (128 bits) and a run whose
// integral reaches 2^62 fails with one line instead of reporting a wrapped count. Layer 0's input (2^30
// elements of 2 bytes per token) waits on its tile from the forward pass to the backward one: 4 hops of
// 2^20 cycles, 2^22 cycles. 256 tokens hold 2^39 bytes for it: 2^61 byte-cycles, reported; 512 tokens
// reach 2^62, and 4096 (2^65, past 2^64) would wrap.
TEST(RunSetupLimits, StashByteCyclesPast2To62FailTheRunInsteadOfWrapping) {
  auto run = [](std::uint32_t tokens) {
    return run_with(
        {"--model.widths=1073741824,1,1,1", "--mapping.block=1x1", "--step.tokens=" + std::to_string(tokens),
         "--step.wavefront=" + std::to_string(tokens), "--machine.hop_latency=1048576", "--sim.arith=none"},
        "backprop");
  };
  // Layer 0's 2^61, plus the one-element inputs and outputs of the other layers (512 bytes each, for at most
  // the run's 5 x 2^20 cycles: below 2^32 each).
  const std::uint64_t held = run(256).counters.inflight_byte_cycles;
  EXPECT_GE(held, std::uint64_t{1} << 61);
  EXPECT_LT(held, (std::uint64_t{1} << 61) + (std::uint64_t{1} << 36));
  for (std::uint32_t tokens : {512u, 4096u}) {
    try {
      run(tokens);
      ADD_FAILURE() << tokens << " tokens: the integral was reported";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("inflight_byte_cycles of this run passed 2^62"), std::string::npos)
          << e.what();
      EXPECT_NE(std::string(e.what()).find("step.tokens"), std::string::npos) << e.what();
    }
  }
  // Two steps of 2^61 each: the sum reaches 2^62.
  EXPECT_THROW(run_with({"--model.widths=1073741824,1,1,1", "--mapping.block=1x1", "--step.tokens=256",
                         "--step.wavefront=256", "--machine.hop_latency=1048576", "--sim.arith=none",
                         "--train.steps=2"},
                        "backprop"),
               std::invalid_argument);
}

}  // namespace
}  // namespace spatialsim::workloads
