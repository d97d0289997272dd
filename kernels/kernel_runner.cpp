#include "kernels/kernel_runner.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/engine.h"

namespace spatialsim::kernels {
namespace {

// Watches every send and charges its bytes and link time to the links of its route: the engine counts
// byte-hops per phase and kind, not per link, and the bound needs the busiest link.
class LinkLoad final : public sim::EngineObserver {
 public:
  LinkLoad(const sim::Grid& grid, std::uint64_t link_bytes_per_cycle)
      : m_grid(grid),
        m_bandwidth(link_bytes_per_cycle),
        m_bytes(grid.link_count(), 0),
        m_cycles(grid.link_count(), 0) {}

  void on_send(const sim::Message& message, sim::Cycle /*depart*/, sim::Cycle /*arrive*/,
               std::uint32_t hops) override {
    if (message.src == sim::kHostTile || message.dst == sim::kHostTile) return;  // kernels use no host I/O
    const sim::Cycle serialization = m_bandwidth == 0 ? 0 : sim::ceil_div(message.bytes, m_bandwidth);
    m_grid.for_each_link_on_route(message.src, message.dst, [&](sim::LinkId link) {
      m_bytes[link] += message.bytes;
      m_cycles[link] += serialization;
    });
    m_link_cycles += hops * serialization;
    m_longest_route = std::max(m_longest_route, hops);
    if (hops > 0) m_min_serialization = std::min(m_min_serialization, serialization);
  }

  void fill(MakespanBound& b) const {
    b.busiest_link_bytes = *std::max_element(m_bytes.begin(), m_bytes.end());
    b.busiest_link_cycles = *std::max_element(m_cycles.begin(), m_cycles.end());
    b.link_cycles = m_link_cycles;
    b.longest_route_hops = m_longest_route;
    b.min_serialization = m_longest_route == 0 ? 0 : m_min_serialization;
  }

 private:
  const sim::Grid& m_grid;
  std::uint64_t m_bandwidth;
  std::vector<std::uint64_t> m_bytes;  // per LinkId
  std::vector<sim::Cycle> m_cycles;    // per LinkId
  sim::Cycle m_link_cycles = 0;
  std::uint32_t m_longest_route = 0;
  sim::Cycle m_min_serialization = std::numeric_limits<sim::Cycle>::max();
};

std::uint64_t line_links(std::uint32_t n, sim::Topology topology) {
  if (topology == sim::Topology::torus && n >= 3) return 2ull * n;
  return 2ull * (n - 1);
}

}  // namespace

std::uint64_t usable_links(std::uint32_t width, std::uint32_t height, sim::Topology topology) {
  return std::uint64_t{height} * line_links(width, topology) +
         std::uint64_t{width} * line_links(height, topology);
}

KernelResult run_kernel(Kernel& kernel, const KernelMachine& machine) {
  kernel.validate({machine.width, machine.height});
  if (machine.element_bytes == 0)
    throw std::invalid_argument("kernel " + std::string(kernel.name()) +
                                ": an element needs at least 1 byte");
  const sim::Grid grid(machine.width, machine.height, machine.topology);
  sim::Engine engine(
      grid, {.hop_latency = machine.hop_latency, .link_bytes_per_cycle = machine.link_bytes_per_cycle});
  LinkLoad load(grid, machine.link_bytes_per_cycle);
  engine.add_observer(&load);
  kernel.run(engine, machine.element_bytes);
  engine.finish();

  KernelResult r;
  r.counters = engine.counters();
  r.byte_hops = r.counters.byte_hops.total();
  r.element_hops = r.byte_hops / machine.element_bytes;
  r.depth = r.counters.depth;
  r.makespan_cycles = r.counters.makespan_cycles;
  r.events = r.counters.events;
  r.check_passed = kernel.check();

  MakespanBound& b = r.bound;
  load.fill(b);
  b.byte_hops = r.byte_hops;
  b.links = usable_links(machine.width, machine.height, machine.topology);
  b.depth = r.depth;
  const bool finite = machine.link_bytes_per_cycle != 0;
  if (finite && b.longest_route_hops > 0) {
    // Each link serves one message at a time, starting no earlier than cycle 0; the message that frees
    // the busiest link last still needs at least one hop latency before its tail arrives.
    b.busiest_link_term = b.busiest_link_cycles + machine.hop_latency;
    b.average_link_term = (b.link_cycles + b.links - 1) / b.links + machine.hop_latency;
  }
  // A chain of messages D hops long: every hop costs the latency, and at least one message's tail must
  // follow its head.
  if (b.depth > 0) b.depth_term = b.depth * machine.hop_latency + b.min_serialization;
  b.cycles = std::max({b.busiest_link_term, b.average_link_term, b.depth_term});
  return r;
}

}  // namespace spatialsim::kernels
