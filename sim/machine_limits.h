#pragma once
// Limits on the machine's options that every command reading them applies, so that `run` and `kernel`
// refuse the same values with the same message.
//
// Usage:
//   const std::uint64_t hop_latency = sim::hop_latency_from_config(config);

#include <cstdint>

#include "sim/config.h"

namespace spatialsim::sim {

// A million cycles per hop: with at most 2^22 tiles, routes of at most a few thousand hops and at most
// 2^32 messages per link, no cycle count can reach 2^62 and wrap. (An unbounded latency made the kernel
// command's event loop wrap its clock and never finish.)
inline constexpr std::uint64_t kMaxHopLatency = std::uint64_t{1} << 20;

// machine.hop_latency, in 1..kMaxHopLatency.
inline std::uint64_t hop_latency_from_config(const Config& config) {
  return config.get_whole_in("machine.hop_latency", 1, kMaxHopLatency, "cycles per hop");
}

}  // namespace spatialsim::sim
