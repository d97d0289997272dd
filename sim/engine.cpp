#include "sim/engine.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace spatialsim::sim {

Engine::Engine(const Grid& grid, const MachineTiming& timing)
    : m_grid(grid),
      m_timing(timing),
      m_ledger(grid.tile_count(), timing.sram_bytes_per_tile),
      m_tile_counters(grid.tile_count()),
      m_link_free_at(timing.link_bytes_per_cycle != 0 ? grid.link_count() : 0, 0),
      m_tile_free_at(timing.flops_per_cycle != 0 ? grid.tile_count() : 0, 0) {}

std::uint32_t Engine::host_hops_of(const Message& m) const {
  if (m.src == kHostTile && m.dst == kHostTile) throw std::logic_error("engine: host to host message");
  return m_grid.host_hops(m.src == kHostTile ? m.dst : m.src);
}

PayloadId Engine::hold(PayloadPtr values) {
  if (m_free_payloads.empty()) {
    m_payloads.push_back(std::move(values));
    return static_cast<PayloadId>(m_payloads.size() - 1);
  }
  const PayloadId id = m_free_payloads.back();
  m_free_payloads.pop_back();
  m_payloads[id] = std::move(values);
  return id;
}

void Engine::throw_in_the_past(const char* what) {
  throw std::logic_error(std::string("engine: ") + what + " in the past");
}

Cycle Engine::reserve_links(const Message& m, Cycle depart) {
  // Cut-through with finite bandwidth: the head moves one hop per hop_latency once a link is free; each
  // link it crosses stays busy for the message's serialization time; the tail arrives that long after
  // the head. Links are reserved in the order sends are processed (deterministic). Host links (outside
  // the grid) are not modelled for contention: send() takes the latency-only path for them.
  const Cycle bw = m_timing.link_bytes_per_cycle;
  const Cycle serialization = ceil_div(m.bytes, bw);
  Cycle head = depart;
  m_grid.for_each_link_on_route(m.src, m.dst, [&](LinkId link) {
    const Cycle start = std::max(head, m_link_free_at[link]);
    m_link_free_at[link] = start + serialization;
    head = start + m_timing.hop_latency;
  });
  return head + serialization;
}

Cycle Engine::occupy(TileId tile, std::uint64_t flops, Cycle ready) {
  const Cycle duration = m_timing.compute_cycles(flops);
  const Cycle start = std::max(ready, m_tile_free_at[tile]);
  m_tile_free_at[tile] = start + duration;
  m_last_compute_end = std::max(m_last_compute_end, start + duration);
  return start + duration;
}

void Engine::notify_send(const Message& message, Cycle depart, Cycle arrive, std::uint32_t hops) {
  for (EngineObserver* o : m_observers) o->on_send(message, depart, arrive, hops);
}

void Engine::notify_storage(TileId tile, StorageCategory category, std::int64_t delta, std::uint32_t group,
                            Cycle at) {
  for (EngineObserver* o : m_observers) o->on_storage(tile, category, delta, group, at);
}

void Engine::defer(TileId tile, StorageCategory category, std::int64_t delta, std::uint32_t group, Cycle at) {
  if (at < m_now) throw_in_the_past("storage change");
  m_deferred.push_back({at, m_deferred_sequence++, tile, category, delta, group});
  std::push_heap(m_deferred.begin(), m_deferred.end());
}

void Engine::apply_deferred(Cycle until) {
  while (!m_deferred.empty() && m_deferred.front().at <= until) {
    std::pop_heap(m_deferred.begin(), m_deferred.end());
    const DeferredChange c = m_deferred.back();
    m_deferred.pop_back();
    const auto bytes = static_cast<std::uint64_t>(c.delta_bytes < 0 ? -c.delta_bytes : c.delta_bytes);
    if (c.delta_bytes >= 0)
      m_ledger.add(c.tile, c.category, bytes, c.at);
    else
      m_ledger.release(c.tile, c.category, bytes, c.at);
    if (!m_observers.empty()) notify_storage(c.tile, c.category, c.delta_bytes, c.group, c.at);
  }
}

void Engine::run() {
  if (m_handler == nullptr) throw std::logic_error("engine: run() without a message handler");
  Message message;
  while (!m_queue.empty()) {
    m_now = m_queue.pop(message);
    ++m_counters.events;
    if (message.depth > m_counters.depth) m_counters.depth = message.depth;
    m_handler->on_message(*this, message);
    if (message.payload != kNoPayload) drop(message.payload);
  }
  m_counters.makespan_cycles = std::max({m_counters.makespan_cycles, m_now, m_last_compute_end});
}

void Engine::finish() {
  // Every deferred change is due by the makespan: it comes from a computation, which ends by then.
  apply_deferred(m_counters.makespan_cycles);
  if (!m_deferred.empty()) throw std::logic_error("engine: a storage change after the makespan");
  m_ledger.finish(m_counters.makespan_cycles);
  m_counters.inflight_byte_cycles = m_ledger.byte_cycles(StorageCategory::stash);
  m_counters.peak_stash_bytes = m_ledger.peak_total(StorageCategory::stash);
  m_counters.peak_tile_stash_bytes = m_ledger.peak_tile(StorageCategory::stash);
  for (TileId t = 0; t < m_grid.tile_count(); ++t)
    m_tile_counters.peak_stash_bytes[t] = m_ledger.peak_of_tile(t, StorageCategory::stash);
}

}  // namespace spatialsim::sim
