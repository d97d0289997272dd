#pragma once
// Limits on the machine's options that every command reading them applies, so that `run` and `kernel`
// refuse the same values with the same message.
//
// Usage:
//   if (hop_latency > sim::kMaxHopLatency) config.fail("machine.hop_latency", sim::hop_latency_limit());

#include <cstdint>
#include <string>

namespace spatialsim::sim {

// A million cycles per hop: with at most 2^22 tiles, routes of at most a few thousand hops and at most
// 2^32 messages per link, no cycle count can reach 2^62 and wrap. (An unbounded latency made the kernel
// command's event loop wrap its clock and never finish.)
inline constexpr std::uint64_t kMaxHopLatency = std::uint64_t{1} << 20;

// The refusal's text after "machine.hop_latency = "...": ".
inline std::string hop_latency_limit() {
  return "must be at most " + std::to_string(kMaxHopLatency) + " cycles per hop";
}

}  // namespace spatialsim::sim
