#include "sim/engine.h"

#include <algorithm>
#include <stdexcept>

namespace spatialsim::sim {

Engine::Engine(const Grid& grid, const MachineTiming& timing)
    : m_grid(grid),
      m_timing(timing),
      m_ledger(grid.tile_count(), timing.sram_bytes_per_tile),
      m_tile_counters(grid.tile_count()),
      m_link_free_at(timing.link_bytes_per_cycle != 0 ? grid.link_count() : 0, 0),
      m_tile_free_at(timing.flops_per_cycle != 0 ? grid.tile_count() : 0, 0) {}

std::uint32_t Engine::hops_of(const Message& m) const {
  if (m.src == kHostTile && m.dst == kHostTile) throw std::logic_error("engine: host to host message");
  if (m.src == kHostTile) return m_grid.host_hops(m.dst);
  if (m.dst == kHostTile) return m_grid.host_hops(m.src);
  return m_grid.hops(m.src, m.dst);
}

Cycle Engine::arrival(const Message& m, Cycle depart, std::uint32_t hops) {
  const Cycle bw = m_timing.link_bytes_per_cycle;
  // Latency-only links, and host links (outside the grid, not modelled for contention).
  if (bw == 0 || m.src == kHostTile || m.dst == kHostTile) return depart + hops * m_timing.hop_latency;
  // Cut-through with finite bandwidth: the head moves one hop per hop_latency once a link is free; each
  // link it crosses stays busy for the message's serialization time; the tail arrives that long after
  // the head. Links are reserved in the order sends are processed (deterministic).
  const Cycle serialization = (m.bytes + bw - 1) / bw;
  Cycle head = depart;
  m_grid.for_each_link_on_route(m.src, m.dst, [&](LinkId link) {
    const Cycle start = std::max(head, m_link_free_at[link]);
    m_link_free_at[link] = start + serialization;
    head = start + m_timing.hop_latency;
  });
  return head + serialization;
}

Cycle Engine::send(Message message, Cycle depart) {
  if (depart < m_now) throw std::logic_error("engine: send departs in the past");
  const std::uint32_t hops = hops_of(message);
  const Cycle arrive = arrival(message, depart, hops);
  const auto p = message.phase;
  const auto k = message.kind;
  m_counters.byte_hops.at(p, k) += message.bytes * hops;
  m_counters.bytes.at(p, k) += message.bytes;
  m_counters.messages.at(p, k) += 1;
  if (message.src != kHostTile) {
    m_tile_counters.bytes_sent[message.src] += message.bytes;
    m_tile_counters.byte_hops_sent[message.src] += message.bytes * hops;
  }
  if (message.dst != kHostTile) m_tile_counters.bytes_received[message.dst] += message.bytes;
  for (EngineObserver* o : m_observers) o->on_send(message, depart, arrive, hops);
  message.depth += hops;
  m_queue.push(arrive, std::move(message));
  return arrive;
}

void Engine::post_local(Message message, Cycle at) {
  if (at < m_now) throw std::logic_error("engine: timer in the past");
  m_queue.push(at, std::move(message));
}

Cycle Engine::compute(TileId tile, std::uint64_t flops, Phase phase, Cycle ready) {
  m_counters.flops[index(phase)] += flops;
  m_tile_counters.flops[tile] += flops;
  if (m_timing.flops_per_cycle == 0) return ready;
  const Cycle duration = (flops + m_timing.flops_per_cycle - 1) / m_timing.flops_per_cycle;
  const Cycle start = std::max(ready, m_tile_free_at[tile]);
  m_tile_free_at[tile] = start + duration;
  m_last_compute_end = std::max(m_last_compute_end, start + duration);
  return start + duration;
}

void Engine::store(TileId tile, StorageCategory category, std::uint64_t bytes, std::uint32_t group) {
  m_ledger.add(tile, category, bytes, m_now);
  for (EngineObserver* o : m_observers)
    o->on_storage(tile, category, static_cast<std::int64_t>(bytes), group, m_now);
}

void Engine::release(TileId tile, StorageCategory category, std::uint64_t bytes, std::uint32_t group) {
  m_ledger.release(tile, category, bytes, m_now);
  for (EngineObserver* o : m_observers)
    o->on_storage(tile, category, -static_cast<std::int64_t>(bytes), group, m_now);
}

void Engine::run() {
  if (m_handler == nullptr) throw std::logic_error("engine: run() without a message handler");
  while (!m_queue.empty()) {
    auto [cycle, message] = m_queue.pop();
    m_now = cycle;
    ++m_counters.events;
    if (message.depth > m_counters.depth) m_counters.depth = message.depth;
    m_handler->on_message(*this, message);
  }
  m_counters.makespan_cycles = std::max({m_counters.makespan_cycles, m_now, m_last_compute_end});
}

void Engine::finish() {
  m_ledger.finish(m_counters.makespan_cycles);
  m_counters.inflight_byte_cycles = m_ledger.byte_cycles(StorageCategory::stash);
  m_counters.peak_stash_bytes = m_ledger.peak_total(StorageCategory::stash);
  m_counters.peak_tile_stash_bytes = m_ledger.peak_tile(StorageCategory::stash);
  m_counters.tangent_byte_cycles = m_ledger.byte_cycles(StorageCategory::tangent);
  m_counters.peak_tangent_bytes = m_ledger.peak_total(StorageCategory::tangent);
  for (TileId t = 0; t < m_grid.tile_count(); ++t)
    m_tile_counters.peak_stash_bytes[t] = m_ledger.peak_of_tile(t, StorageCategory::stash);
}

}  // namespace spatialsim::sim
