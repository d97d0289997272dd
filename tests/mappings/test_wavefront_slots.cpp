// Per-wavefront state is held only while a wavefront is in flight: the pool itself, and the blocks of a
// real step, whose slots must not grow with the number of wavefronts (docs/performance.md).
#include <gtest/gtest.h>

#include <string>

#include "mappings/wavefront_slots.h"
#include "tests/workloads/network_test_support.h"
#include "workloads/network_program.h"
#include "workloads/reversible/reversible_program.h"

namespace spatialsim {
namespace {

struct Counter {
  int value = 0;
  void reset() { value = 0; }
};

TEST(WavefrontSlots, ReusesAReleasedSlotAndResetsItsState) {
  int made = 0;
  mappings::WavefrontSlots<Counter> slots(10, [&] {
    ++made;
    return Counter{};
  });
  EXPECT_EQ(slots.find(3), nullptr);
  slots.at(3).value = 7;
  slots.at(5).value = 9;
  EXPECT_EQ(slots.at(3).value, 7);  // the same state, not a new one
  EXPECT_EQ(slots.in_use(), 2u);
  slots.release(3);
  EXPECT_EQ(slots.find(3), nullptr);
  EXPECT_EQ(slots.at(8).value, 0);  // 3's slot, reset
  EXPECT_EQ(made, 2);
  EXPECT_EQ(slots.capacity(), 2u);
  EXPECT_EQ(slots.find(5)->value, 9);
  EXPECT_THROW(slots.release(3), std::logic_error);
}

TEST(WavefrontSlots, StatesStayPutWhileOthersAreMade) {
  mappings::WavefrontSlots<Counter> slots(1000, [] { return Counter{}; });
  Counter* first = &slots.at(0);
  for (std::uint32_t wf = 1; wf < 1000; ++wf) slots.at(wf);
  EXPECT_EQ(first, &slots.at(0));
}

// Runs one counting-mode step of `schedule` with G wavefronts of 2 tokens on a 3-layer model; returns the
// largest number of slots any block made, after checking that every block gave all of them back.
std::uint32_t block_slots(const std::string& schedule, std::uint32_t wavefronts) {
  const sim::Config config = testing_support::config_with(
      {"--model.widths=13,17,11,7", "--mapping.block=2x3", "--step.tokens=" + std::to_string(2 * wavefronts),
       "--step.wavefront=2", "--sim.arith=none", "--schedule=" + schedule});
  const workloads::RunSetup setup = workloads::setup_from_config(config);
  const auto plan = workloads::ScheduleRegistry::create(schedule, config);
  const sim::Grid grid(setup.grid_width, setup.grid_height, setup.topology);
  workloads::NetworkSetup ns{setup.model,
                             setup.placement,
                             setup.bytes,
                             workloads::wavefront_sizes(2 * wavefronts, 2),
                             setup.injection_interval,
                             false};
  workloads::NetworkProgram<float> program(ns, grid, *plan);
  sim::Engine engine(grid, setup.timing);
  engine.set_handler(&program);
  program.start_step(engine, nullptr);
  engine.run();
  EXPECT_EQ(engine.ledger().total(sim::StorageCategory::stash), 0u) << schedule << ": stash left over";
  EXPECT_EQ(engine.ledger().total(sim::StorageCategory::transit), 0u) << schedule << ": transit left over";
  std::uint32_t most = 0;
  for (const auto& block : program.blocks()) {
    EXPECT_EQ(block->wavefronts_held(), 0u) << schedule << ": layer " << block->spec().layer;
    most = std::max(most, block->wavefront_slots());
  }
  return most;
}

TEST(WavefrontSlots, ABlockHoldsOnlyTheWavefrontsInFlight) {
  for (const char* schedule :
       {"forward", "backprop", "checkpoint", "revolve", "forward-gradient", "split-fg"}) {
    const std::uint32_t few = block_slots(schedule, 40);
    const std::uint32_t many = block_slots(schedule, 400);
    EXPECT_EQ(few, many) << schedule << ": slots grew with the wavefront count";
    EXPECT_LT(many, 40u) << schedule;
    EXPECT_GE(many, 1u) << schedule;
  }
}

// The same for a reversible model (coupling blocks: the program's value sites and lane gathers too).
std::uint32_t reversible_slots(const std::string& schedule, std::uint32_t wavefronts) {
  const sim::Config config =
      testing_support::config_with({"--model.kind=reversible", "--model.widths=", "--model.inputs=13",
                                    "--model.width=18", "--model.depth=3", "--model.outputs=7",
                                    "--mapping.block=2x3", "--step.tokens=" + std::to_string(2 * wavefronts),
                                    "--step.wavefront=2", "--sim.arith=none", "--schedule=" + schedule});
  const workloads::RunSetup setup = workloads::setup_from_config(config);
  const auto plan = workloads::ScheduleRegistry::create(schedule, config);
  const sim::Grid grid(setup.grid_width, setup.grid_height, setup.topology);
  workloads::NetworkSetup ns{setup.model,
                             setup.placement,
                             setup.bytes,
                             workloads::wavefront_sizes(2 * wavefronts, 2),
                             setup.injection_interval,
                             false};
  workloads::reversible::ReversibleProgram<float> program(ns, grid, *plan);
  sim::Engine engine(grid, setup.timing);
  engine.set_handler(&program);
  program.start_step(engine, nullptr);
  engine.run();
  EXPECT_EQ(engine.ledger().total(sim::StorageCategory::stash), 0u) << schedule << ": stash left over";
  EXPECT_EQ(engine.ledger().total(sim::StorageCategory::transit), 0u) << schedule << ": transit left over";
  EXPECT_EQ(program.wavefronts_held(), 0u) << schedule;
  return program.wavefront_slots();
}

TEST(WavefrontSlots, AReversibleProgramHoldsOnlyTheWavefrontsInFlight) {
  for (const char* schedule : {"forward", "reversible"}) {
    const std::uint32_t few = reversible_slots(schedule, 40);
    const std::uint32_t many = reversible_slots(schedule, 400);
    EXPECT_EQ(few, many) << schedule << ": slots grew with the wavefront count";
    EXPECT_LT(many, 40u) << schedule;
    EXPECT_GE(many, 1u) << schedule;
  }
}

}  // namespace
}  // namespace spatialsim
