#pragma once
// The `schedule` option: the schedules a run or a sweep runs on the same model, in the order given.
//
// Usage:
//   const std::vector<std::string> names = schedules_from_config(config);   // {"forward", "backprop"}

#include <string>
#include <vector>

#include "sim/config.h"

namespace spatialsim::workloads {

// Throws sim::ConfigError naming `schedule` for an empty list, a name no schedule is registered under, or
// a name given twice; each message lists the registered schedules or the repeated one.
std::vector<std::string> schedules_from_config(const sim::Config& config);

}  // namespace spatialsim::workloads
