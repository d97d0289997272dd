#include "workloads/arithmetic.h"

#include <limits>
#include <string>

namespace spatialsim::workloads {

std::string_view name(Arithmetic a) {
  switch (a) {
    case Arithmetic::none:
      return "none";
    case Arithmetic::fp32:
      return "fp32";
    case Arithmetic::fp64:
      return "fp64";
  }
  return "?";
}

Arithmetic arithmetic_from_config(const sim::Config& config) {
  const std::string arith = config.get_choice("sim.arith", {"none", "fp32", "fp64"});
  return arith == "none" ? Arithmetic::none : arith == "fp32" ? Arithmetic::fp32 : Arithmetic::fp64;
}

double largest_learning_rate(Arithmetic a) {
  return a == Arithmetic::fp32 ? static_cast<double>(std::numeric_limits<float>::max())
                               : std::numeric_limits<double>::max();
}

}  // namespace spatialsim::workloads
