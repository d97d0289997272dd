// Which schedules run on which model kind, as each schedule's file declares it, and the refusal's words.
#include "workloads/schedules/schedule_models.h"

#include <gtest/gtest.h>

#include <string>

#include "sim/config.h"
#include "workloads/schedules/i_schedule.h"

namespace spatialsim::workloads {
namespace {

TEST(ScheduleModels, ForwardRunsOnBothKindsReversibleOnItsOwnTheRestOnTheMlp) {
  for (const auto& n : ScheduleRegistry::names()) {
    EXPECT_EQ(runs_on(n, ModelKind::mlp), n != "reversible") << n;
    EXPECT_EQ(runs_on(n, ModelKind::reversible), n == "forward" || n == "reversible") << n;
  }
}

TEST(ScheduleModels, TheRefusalSaysWhatRunsAndWhatToSet) {
  ModelSpec mlp;
  ModelSpec reversible;
  reversible.kind = ModelKind::reversible;
  EXPECT_NO_THROW(require_schedule_runs_on(mlp, "backprop"));
  EXPECT_NO_THROW(require_schedule_runs_on(reversible, "forward"));
  try {
    require_schedule_runs_on(reversible, "split-fg");
    ADD_FAILURE() << "split-fg accepted on a reversible model";
  } catch (const sim::ConfigError& e) {
    EXPECT_EQ(e.key(), "schedule");
    EXPECT_STREQ(e.what(),
                 "schedule: split-fg does not run on a reversible model (model.kind=reversible runs forward "
                 "and reversible); remove split-fg from schedule or set model.kind=mlp");
  }
  try {
    require_schedule_runs_on(mlp, "reversible");
    ADD_FAILURE() << "reversible accepted on an mlp";
  } catch (const sim::ConfigError& e) {
    EXPECT_STREQ(
        e.what(),
        "schedule: reversible needs a reversible model; set model.kind=reversible (model.kind is mlp)");
  }
}

}  // namespace
}  // namespace spatialsim::workloads
