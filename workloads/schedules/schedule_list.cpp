#include "workloads/schedules/schedule_list.h"

#include <set>

#include "sim/text.h"
#include "workloads/schedules/i_schedule.h"

namespace spatialsim::workloads {

std::vector<std::string> schedules_from_config(const sim::Config& config) {
  const auto registered = ScheduleRegistry::names();
  const auto names = config.get_string_list("schedule");
  if (names.empty())
    config.fail("schedule", "must name at least one schedule; registered: " + sim::joined(registered));
  std::set<std::string> seen;
  for (const auto& n : names) {
    if (!ScheduleRegistry::contains(n))
      config.fail("schedule", "\"" + n + "\" is not a schedule; registered: " + sim::joined(registered));
    if (!seen.insert(n).second) config.fail("schedule", "names " + n + " twice; list each schedule once");
  }
  return names;
}

}  // namespace spatialsim::workloads
