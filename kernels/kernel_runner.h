#pragma once
// Runs one kernel on a machine built from a few numbers and returns what it measured, together with the
// terms of the makespan lower bound (docs/kernels.md, "Makespan against the lower bound").
//
// Usage:
//   auto kernel = kernels::KernelRegistry::create("cannon", config);
//   kernels::KernelResult r = kernels::run_kernel(*kernel, {.width = 8, .height = 8,
//                                                           .topology = sim::Topology::torus,
//                                                           .link_bytes_per_cycle = 2});
//   if (!r.check_passed || r.makespan_cycles < r.bound.cycles) ...

#include <cstdint>

#include "kernels/i_kernel.h"
#include "sim/counters.h"
#include "sim/grid.h"

namespace spatialsim::kernels {

struct KernelMachine {
  std::uint32_t width = 0;
  std::uint32_t height = 0;
  sim::Topology topology = sim::Topology::mesh;
  std::uint64_t element_bytes = 4;         // bytes per element; every kernel message carries one element
  std::uint64_t link_bytes_per_cycle = 0;  // 0: unlimited bandwidth (latency-only links)
  sim::Cycle hop_latency = 1;              // cycles per hop
};

// The makespan lower bound and its terms, all measured from the simulated traffic. With unlimited
// bandwidth only the depth term applies (the link terms are 0).
struct MakespanBound {
  std::uint64_t busiest_link_bytes = 0;  // C: most bytes through one directed link
  sim::Cycle busiest_link_cycles = 0;    // C in cycles: sum over its messages of ceil(bytes / bandwidth)
  std::uint64_t byte_hops = 0;           // E: total byte-hops
  sim::Cycle link_cycles = 0;            // E in cycles: sum over messages of hops x ceil(bytes / bandwidth)
  std::uint64_t links = 0;               // N: directed links of the grid that routes can use
  std::uint32_t longest_route_hops = 0;  // L: most hops of any one message
  std::uint32_t depth = 0;               // D: the run's depth (longest chain of hops)
  sim::Cycle min_serialization = 0;      // the fewest cycles any message occupies a link
  sim::Cycle busiest_link_term = 0;      // C + hop_latency (the last message still crosses a link)
  sim::Cycle average_link_term = 0;      // ceil(E / N) + hop_latency (never above the previous term)
  sim::Cycle depth_term = 0;             // D x hop_latency + min_serialization
  sim::Cycle cycles = 0;                 // the bound: the largest term
};

struct KernelResult {
  std::uint64_t byte_hops = 0;
  std::uint64_t element_hops = 0;  // byte_hops / element_bytes
  std::uint32_t depth = 0;
  sim::Cycle makespan_cycles = 0;
  std::uint64_t events = 0;
  bool check_passed = false;
  MakespanBound bound;
  sim::Counters counters;  // everything the engine counted, by phase and kind
};

// Validates the grid for `kernel` (std::invalid_argument, one line), runs it once and gathers the figures.
// Contract: `kernel` is fresh (run at most once); the element size must be at least one byte.
KernelResult run_kernel(Kernel& kernel, const KernelMachine& machine);

// Directed links of a W x H grid the XY routes can use (N in the bound): 2 (n - 1) per line of n tiles on
// a mesh, 2 n per ring of n >= 3 on a torus (a ring of 2 has no wrap link: its routes use 2 links).
std::uint64_t usable_links(std::uint32_t width, std::uint32_t height, sim::Topology topology);

}  // namespace spatialsim::kernels
