#include "workloads/schedules/schedule_models.h"

#include <map>
#include <set>
#include <utility>

#include "sim/config.h"
#include "sim/text.h"
#include "workloads/schedules/i_schedule.h"

namespace spatialsim::workloads {
namespace {

std::map<std::string, std::set<ModelKind>>& declared() {
  static std::map<std::string, std::set<ModelKind>> table;  // schedule -> kinds; built on first use
  return table;
}

std::set<ModelKind> kinds_of(const std::string& schedule) {
  const auto it = declared().find(schedule);
  return it == declared().end() ? std::set<ModelKind>{ModelKind::mlp} : it->second;
}

}  // namespace

ScheduleModelKinds::ScheduleModelKinds(std::string schedule, std::vector<ModelKind> kinds) {
  declared()[std::move(schedule)].insert(kinds.begin(), kinds.end());
}

bool runs_on(const std::string& schedule, ModelKind kind) {
  return kinds_of(schedule).contains(kind);
}

void require_schedule_runs_on(const ModelSpec& model, const std::string& schedule) {
  if (runs_on(schedule, model.kind)) return;
  const std::set<ModelKind> kinds = kinds_of(schedule);
  const std::string needed(name(*kinds.begin()));
  const std::string kind(name(model.kind));
  if (kinds.size() == 1 && model.kind == ModelKind::mlp)
    throw sim::ConfigError("schedule", "schedule: " + schedule + " needs a " + needed +
                                           " model; set model.kind=" + needed + " (model.kind is " + kind +
                                           ")");
  std::vector<std::string> running;
  for (const auto& n : ScheduleRegistry::names())
    if (runs_on(n, model.kind)) running.push_back(n);
  std::string list = sim::joined(running);
  if (const auto last = list.rfind(", "); last != std::string::npos) list.replace(last, 2, " and ");
  throw sim::ConfigError("schedule", "schedule: " + schedule + " does not run on a " + kind +
                                         " model (model.kind=" + kind + " runs " + list + "); remove " +
                                         schedule + " from schedule or set model.kind=" + needed);
}

}  // namespace spatialsim::workloads
