// Smoke test: every registered component can be built from the default configuration, and
// every schedule runs a tiny step on a model it accepts, in counting and in arithmetic mode.
#include <gtest/gtest.h>

#include "cli/command.h"
#include "kernels/i_kernel.h"
#include "mappings/placement/i_placement.h"
#include "tests/workloads/network_test_support.h"
#include "workloads/optimizers/i_optimizer.h"
#include "workloads/reversible/reversible_model.h"
#include "workloads/schedules/i_schedule.h"
#include "workloads/schedules/schedule_models.h"

namespace spatialsim {
namespace {

TEST(RegistrySmoke, EveryComponentBuildsFromTheDefaults) {
  const sim::Config config = cli::default_config();
  EXPECT_FALSE(cli::CommandRegistry::names().empty());
  for (const auto& n : cli::CommandRegistry::names())
    EXPECT_NE(cli::CommandRegistry::create(n, config), nullptr) << n;
  for (const auto& n : kernels::KernelRegistry::names())
    EXPECT_NE(kernels::KernelRegistry::create(n, config), nullptr) << n;
  for (const auto& n : mappings::PlacementRegistry::names()) {
    const auto p = mappings::PlacementRegistry::create(n, config);
    EXPECT_EQ(p->place({{2, 2}, {2, 2}}).blocks.size(), 2u) << n;
  }
  for (const auto& n : workloads::OptimizerRegistry::names())
    EXPECT_NE(workloads::OptimizerRegistry::create(n, config), nullptr) << n;
  for (const auto& n : workloads::ScheduleRegistry::names())
    EXPECT_NE(workloads::ScheduleRegistry::create(n, config), nullptr) << n;
}

TEST(RegistrySmoke, EveryScheduleRunsATinyStepOnAModelItAccepts) {
  for (const auto& schedule : workloads::ScheduleRegistry::names()) {
    for (const char* kind : {"mlp", "reversible"}) {
      for (const char* arith : {"none", "fp64"}) {
        const std::vector<std::string> overrides = {std::string("--model.kind=") + kind,
                                                    "--model.depth=3",
                                                    "--model.width=8",
                                                    "--step.tokens=6",
                                                    "--step.wavefront=3",
                                                    std::string("--sim.arith=") + arith};
        const sim::Config config = testing_support::config_with(overrides);
        const workloads::RunSetup setup = workloads::setup_from_config(config);
        try {
          workloads::require_schedule_runs_on(setup.model, schedule);
        } catch (const sim::ConfigError&) {
          continue;  // not a combination that runs (documented in docs/reversible.md)
        }
        const workloads::RunResult r = workloads::run_schedule(setup, config, schedule);
        EXPECT_GT(r.counters.events, 0u) << schedule << " " << kind << " " << arith;
        EXPECT_GT(r.counters.byte_hops.total(), 0u) << schedule << " " << kind << " " << arith;
      }
    }
  }
}

}  // namespace
}  // namespace spatialsim
