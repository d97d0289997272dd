// forward_gradient_plan: the fg section read once for both forward-gradient schedules, which then differ
// only in the split and the trunk's learning rate.
#include <gtest/gtest.h>

#include "tests/workloads/network_test_support.h"
#include "workloads/schedules/forward_gradient_plan.h"

namespace spatialsim::workloads {
namespace {

using testing_support::config_with;

TEST(ForwardGradientPlan, ReadsTheFgSectionAndLeavesTheWholeNetworkAsTrunk) {
  const sim::Config config = config_with({"--fg.tangents=3", "--fg.tangent=rademacher", "--fg.seed=9"});
  const ForwardGradientPlan plan = forward_gradient_plan(config);
  EXPECT_EQ(plan.tangents, 3u);
  EXPECT_EQ(plan.kind, TangentKind::rademacher);
  EXPECT_EQ(plan.seed, 9u);
  EXPECT_EQ(plan.split, 0u);
  EXPECT_EQ(plan.trunk_lr_scale, 1.0);
}

TEST(ForwardGradientPlan, BothSchedulesCarryItAndSplitFgAddsItsSplitAndRate) {
  const sim::Config config =
      config_with({"--model.widths=7,6,5,4", "--fg.tangents=2", "--fg.tangent=rademacher", "--fg.seed=5",
                   "--splitfg.split=2", "--splitfg.rho=0.5"});
  for (const char* name : {"forward-gradient", "split-fg"}) {
    const auto schedule = ScheduleRegistry::create(name, config);
    const ForwardGradientPlan* plan = schedule->forward_gradient();
    ASSERT_NE(plan, nullptr) << name;
    EXPECT_EQ(plan->tangents, 2u) << name;
    EXPECT_EQ(plan->kind, TangentKind::rademacher) << name;
    EXPECT_EQ(plan->seed, 5u) << name;
  }
  const auto split_fg = ScheduleRegistry::create("split-fg", config);
  EXPECT_EQ(split_fg->forward_gradient()->split, 2u);
  EXPECT_EQ(split_fg->forward_gradient()->trunk_lr_scale, 0.5);
  EXPECT_EQ(ScheduleRegistry::create("forward-gradient", config)->forward_gradient()->split, 0u);
}

TEST(ForwardGradientPlan, AZeroTangentCountNamesTheKey) {
  try {
    (void)forward_gradient_plan(config_with({"--fg.tangents=0"}));
    ADD_FAILURE() << "fg.tangents=0 was accepted";
  } catch (const sim::ConfigError& e) {
    EXPECT_EQ(e.key(), "fg.tangents");
  }
}

}  // namespace
}  // namespace spatialsim::workloads
