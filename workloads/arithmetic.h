#pragma once
// What the tiles compute in: real values in fp32 or fp64, or none (counting mode: the same messages and
// counts, no values). Read by the run's setup and by the schedules that check their rates against it.

#include <cstdint>
#include <string_view>

#include "sim/config.h"

namespace spatialsim::workloads {

enum class Arithmetic : std::uint8_t { none, fp32, fp64 };

std::string_view name(Arithmetic a);

// sim.arith; throws sim::ConfigError naming it for any other value.
Arithmetic arithmetic_from_config(const sim::Config& config);

// The largest learning rate the tiles' arithmetic holds: fp32's largest float, or the largest double. A
// rate beyond it rounds to inf, and a zero gradient's update becomes inf * 0 = NaN (with fp32 SGD every
// weight whose gradient was exactly 0 came back NaN at train.lr=1e39).
double largest_learning_rate(Arithmetic a);

}  // namespace spatialsim::workloads
