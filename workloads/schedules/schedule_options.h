#pragma once
// Which schedules own the options of a config section. A section named after a schedule belongs to it
// (backprop.xstash); a schedule whose options live in other sections says so from its own file, so that
// the front end can refuse an option that no selected schedule reads (fg.tangents without
// forward-gradient or split-fg).
//
// Usage (in a schedule's .cpp):
//   const ScheduleOptionSections sections{"split-fg", {"fg", "splitfg"}};
//   owners_of_section("fg");   // {"forward-gradient", "split-fg"}

#include <string>
#include <vector>

namespace spatialsim::workloads {

struct ScheduleOptionSections {
  ScheduleOptionSections(std::string schedule, std::vector<std::string> sections);
};

// The schedules owning `section`, sorted: those that declared it, and the schedule named like it.
std::vector<std::string> owners_of_section(const std::string& section);

}  // namespace spatialsim::workloads
