#pragma once
// Limits on the machine's options that every command reading them applies, so that `run` and `kernel`
// refuse the same values with the same message.
//
// Usage:
//   const std::uint64_t hop_latency = sim::hop_latency_from_config(config);

#include <cstdint>

#include "sim/config.h"

namespace spatialsim::sim {

// A million cycles per hop. A route crosses fewer than 2^23 links (a grid has at most 2^22 tiles), so one
// message takes under 2^43 cycles, and a clock would pass 2^62 only after 2^19 such messages one after
// another. (An unbounded latency made the kernel command's event loop wrap its clock and never finish.)
inline constexpr std::uint64_t kMaxHopLatency = std::uint64_t{1} << 20;

// machine.hop_latency, in 1..kMaxHopLatency.
inline std::uint64_t hop_latency_from_config(const Config& config) {
  return config.get_whole_in("machine.hop_latency", 1, kMaxHopLatency, "cycles per hop");
}

}  // namespace spatialsim::sim
