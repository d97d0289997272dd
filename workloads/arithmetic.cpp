#include "workloads/arithmetic.h"

#include <limits>
#include <string>

#include "sim/enum_names.h"

namespace spatialsim::workloads {

namespace {

constexpr sim::EnumNames<Arithmetic, 3> kArithmeticNames{
    {{{Arithmetic::none, "none"}, {Arithmetic::fp32, "fp32"}, {Arithmetic::fp64, "fp64"}}}};

}  // namespace

std::string_view name(Arithmetic a) {
  return kArithmeticNames.name(a);
}

Arithmetic arithmetic_from_config(const sim::Config& config) {
  return kArithmeticNames.from_config(config, "sim.arith");
}

double largest_learning_rate(Arithmetic a) {
  return a == Arithmetic::fp32 ? static_cast<double>(std::numeric_limits<float>::max())
                               : std::numeric_limits<double>::max();
}

}  // namespace spatialsim::workloads
