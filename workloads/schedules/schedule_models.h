#pragma once
// Which model kinds a schedule runs on (model.kind), declared from the schedule's own file; a schedule
// that declares nothing runs on the mlp only. run, sweep and compare ask before a schedule reads its
// options, so that a schedule the model cannot run is named as such.
//
// Usage (in a schedule's .cpp):
//   const ScheduleModelKinds kinds{"reversible", {ModelKind::reversible}};
//   require_schedule_runs_on(model, "backprop");   // throws for a reversible model

#include <string>
#include <vector>

#include "workloads/model_spec.h"

namespace spatialsim::workloads {

struct ScheduleModelKinds {
  ScheduleModelKinds(std::string schedule, std::vector<ModelKind> kinds);
};

bool runs_on(const std::string& schedule, ModelKind kind);

// Throws sim::ConfigError (key `schedule`) when `schedule` does not run on `model`'s kind, saying which
// schedules do and which model.kind the schedule needs.
void require_schedule_runs_on(const ModelSpec& model, const std::string& schedule);

}  // namespace spatialsim::workloads
