// Counters summed over a run's steps (sim::accumulate_sequential): what adds, what takes the larger value,
// and the sums that could pass 2^62 (the largest count the simulator reports) stopping the run instead of
// wrapping.
#include "sim/counters.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace spatialsim::sim {
namespace {

Counters step_with(std::uint64_t makespan, std::uint64_t integral, std::uint64_t depth, std::uint64_t peak) {
  Counters c;
  c.makespan_cycles = makespan;
  c.inflight_byte_cycles = integral;
  c.depth = depth;
  c.peak_stash_bytes = peak;
  c.events = 7;
  c.byte_hops.at(Phase::forward, MessageKind::lane) = 5;
  return c;
}

TEST(AccumulateSequential, TimeTrafficAndIntegralsAddDepthAndPeaksTakeTheLarger) {
  Counters total = step_with(10, 100, 4, 30);
  accumulate_sequential(total, step_with(12, 50, 6, 20));
  EXPECT_EQ(total.makespan_cycles, 22u);
  EXPECT_EQ(total.inflight_byte_cycles, 150u);
  EXPECT_EQ(total.events, 14u);
  EXPECT_EQ(total.byte_hops.at(Phase::forward, MessageKind::lane), 10u);
  EXPECT_EQ(total.depth, 6u);
  EXPECT_EQ(total.peak_stash_bytes, 30u);
}

// A step's makespan is bounded by its events, but not the sum over many steps: steps of 2^49 cycles (2^17
// wavefronts 2^32 cycles apart) pass 2^62 after 2^13 steps. Two steps of 2^61 reach it.
TEST(AccumulateSequential, MakespanSummedPast2To62StopsTheRun) {
  const std::uint64_t half = std::uint64_t{1} << 61;
  Counters total = step_with(half - 1, 0, 1, 0);
  accumulate_sequential(total, step_with(half, 0, 1, 0));
  EXPECT_EQ(total.makespan_cycles, 2 * half - 1);  // just below: reported
  try {
    accumulate_sequential(total, step_with(1, 0, 1, 0));
    ADD_FAILURE() << "the summed makespan was reported";
  } catch (const CountLimitError& e) {
    EXPECT_NE(std::string(e.what()).find("makespan_cycles, summed over the steps, of this run passed 2^62"),
              std::string::npos)
        << e.what();
  }
}

TEST(AccumulateSequential, StashIntegralSummedPast2To62StopsTheRun) {
  const std::uint64_t half = std::uint64_t{1} << 61;
  Counters total = step_with(1, half, 1, 0);
  EXPECT_THROW(accumulate_sequential(total, step_with(1, half, 1, 0)), CountLimitError);
}

}  // namespace
}  // namespace spatialsim::sim
