#pragma once
// GoogleTest prints a parameter it has no printer for as raw bytes ("1-byte object <01>"). These print the
// option enums by the names the config files use. Each PrintTo sits in its enum's namespace, where
// GoogleTest finds it by argument-dependent lookup.
#include <ostream>

#include "mappings/activation.h"
#include "sim/grid.h"
#include "workloads/loss.h"
#include "workloads/tangent_generator.h"

namespace spatialsim::mappings {
inline void PrintTo(Activation a, std::ostream* os) {
  *os << name(a);
}
}  // namespace spatialsim::mappings

namespace spatialsim::sim {
inline void PrintTo(Topology t, std::ostream* os) {
  *os << name(t);
}
}  // namespace spatialsim::sim

namespace spatialsim::workloads {
inline void PrintTo(Loss loss, std::ostream* os) {
  *os << name(loss);
}
inline void PrintTo(TangentKind kind, std::ostream* os) {
  *os << name(kind);
}
}  // namespace spatialsim::workloads
