#include "workloads/schedules/schedule_options.h"

#include <algorithm>
#include <map>
#include <set>

#include "workloads/schedules/i_schedule.h"

namespace spatialsim::workloads {
namespace {

std::map<std::string, std::set<std::string>>& declared() {
  static std::map<std::string, std::set<std::string>> table;  // section -> schedules; built on first use
  return table;
}

}  // namespace

ScheduleOptionSections::ScheduleOptionSections(std::string schedule, std::vector<std::string> sections) {
  for (auto& s : sections) declared()[std::move(s)].insert(schedule);
}

std::vector<std::string> owners_of_section(const std::string& section) {
  std::set<std::string> owners;
  if (const auto it = declared().find(section); it != declared().end()) owners = it->second;
  if (ScheduleRegistry::contains(section)) owners.insert(section);
  return {owners.begin(), owners.end()};
}

}  // namespace spatialsim::workloads
