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

// Runs one counting-mode step of `schedule` with G wavefronts of 2 tokens on the model `model`; checks that
// nothing is left held (state, stash, transit) and returns the most slots any of the program's pools made.
template <template <typename> class Program>
std::uint32_t slots_after_step(std::vector<std::string> model, const std::string& schedule,
                               std::uint32_t wavefronts) {
  model.insert(model.end(), {"--step.tokens=" + std::to_string(2 * wavefronts), "--step.wavefront=2",
                             "--sim.arith=none", "--schedule=" + schedule});
  const sim::Config config = testing_support::config_with(model);
  const workloads::RunSetup setup = workloads::setup_from_config(config);
  const auto plan = workloads::ScheduleRegistry::create(schedule, config);
  const sim::Grid grid(setup.grid_width, setup.grid_height, setup.topology);
  workloads::NetworkSetup ns{setup.model,
                             setup.placement,
                             setup.bytes,
                             workloads::wavefront_sizes(2 * wavefronts, 2),
                             setup.injection_interval,
                             false};
  Program<float> program(ns, grid, *plan);
  sim::Engine engine(grid, setup.timing);
  engine.set_handler(&program);
  program.start_step(engine, nullptr);
  engine.run();
  EXPECT_EQ(engine.ledger().total(sim::StorageCategory::stash), 0u) << schedule << ": stash left over";
  EXPECT_EQ(engine.ledger().total(sim::StorageCategory::transit), 0u) << schedule << ": transit left over";
  const mappings::SlotCensus census = program.wavefront_census();
  EXPECT_EQ(census.held, 0u) << schedule << ": state still held";
  return census.most_slots;
}

template <template <typename> class Program>
void expect_slots_bounded(const std::vector<std::string>& model, const std::vector<std::string>& schedules) {
  for (const std::string& schedule : schedules) {
    const std::uint32_t few = slots_after_step<Program>(model, schedule, 40);
    const std::uint32_t many = slots_after_step<Program>(model, schedule, 400);
    EXPECT_EQ(few, many) << schedule << ": slots grew with the wavefront count";
    EXPECT_LT(many, 40u) << schedule;
    EXPECT_GE(many, 1u) << schedule;
  }
}

TEST(WavefrontSlots, ANetworkHoldsOnlyTheWavefrontsInFlight) {
  expect_slots_bounded<workloads::NetworkProgram>(
      {"--model.widths=13,17,11,7", "--mapping.block=2x3"},
      testing_support::schedules_running_on(workloads::ModelKind::mlp));
}

// Coupling blocks: the program's value sites, lane gathers and entry-gradient halves too.
TEST(WavefrontSlots, AReversibleProgramHoldsOnlyTheWavefrontsInFlight) {
  expect_slots_bounded<workloads::reversible::ReversibleProgram>(
      {"--model.kind=reversible", "--model.widths=", "--model.inputs=13", "--model.width=18",
       "--model.depth=3", "--model.outputs=7", "--mapping.block=2x3"},
      testing_support::schedules_running_on(workloads::ModelKind::reversible));
}

}  // namespace
}  // namespace spatialsim
