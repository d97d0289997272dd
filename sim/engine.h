#pragma once
// The discrete-event engine: delivers messages between tiles of a grid, in (cycle, sequence) order, and
// counts what they cost. Programs (a schedule running a model, a collective kernel) implement
// MessageHandler; they never call each other, they send messages.
//
// Usage:
//   sim::Engine engine(grid, sim::MachineTiming{});
//   engine.set_handler(&program);
//   engine.send(msg, engine.now());      // counted; delivered to program.on_message at arrival
//   engine.run();                        // until no event is left
//   engine.finish();  const sim::Counters& c = engine.counters();
//
// Lifecycle: construct, set_handler (and add_observer), seed the first events, run, finish. After
// finish() the counters are final.

#include <cstdint>
#include <memory>
#include <vector>

#include "sim/counters.h"
#include "sim/event_queue.h"
#include "sim/grid.h"
#include "sim/message.h"
#include "sim/storage_ledger.h"

namespace spatialsim::sim {

struct MachineTiming {
  Cycle hop_latency = 1;                   // cycles per hop
  std::uint64_t link_bytes_per_cycle = 0;  // 0: unlimited (latency-only links, no contention)
  std::uint64_t flops_per_cycle = 0;       // per tile; 0: compute takes no time
  std::uint64_t sram_bytes_per_tile = 0;   // 0: unlimited local memory

  // The cycles a tile takes for `flops`: rounded up, 0 when compute takes no time.
  Cycle compute_cycles(std::uint64_t flops) const {
    return flops_per_cycle == 0 ? 0 : ceil_div(flops, flops_per_cycle);
  }
};

class Engine;

// Contract: on_message is called once per delivered message, at engine.now() == arrival cycle, with
// message.depth already including the hops travelled.
class MessageHandler {
 public:
  virtual ~MessageHandler() = default;
  virtual void on_message(Engine& engine, const Message& message) = 0;
};

// Read-only instrumentation (tracing). Contract: observers see every counted send and every storage
// change; they must not send messages or change storage.
class EngineObserver {
 public:
  virtual ~EngineObserver() = default;
  virtual void on_send(const Message& /*message*/, Cycle /*depart*/, Cycle /*arrive*/,
                       std::uint32_t /*hops*/) {}
  virtual void on_storage(TileId /*tile*/, StorageCategory /*category*/, std::int64_t /*delta_bytes*/,
                          std::uint32_t /*group*/, Cycle /*now*/) {}
};

class Engine {
 public:
  Engine(const Grid& grid, const MachineTiming& timing);

  void set_handler(MessageHandler* handler) { m_handler = handler; }
  void add_observer(EngineObserver* observer) { m_observers.push_back(observer); }

  // Sends `message` leaving its source at `depart` (>= now). Counts bytes and byte-hops under the
  // message's phase and kind, and schedules its delivery. src or dst may be kHostTile (grid-edge I/O).
  // Returns the arrival cycle. `values` (may be null: counting mode) travel with it, readable at delivery
  // with payload(); the engine holds them until the receiver's on_message returns.
  // Inline: every event sends about one message.
  Cycle send(const Message& message, Cycle depart) { return send_held(message, depart, kNoPayload); }
  Cycle send(const Message& message, Cycle depart, PayloadPtr values) {
    return send_held(message, depart, values ? hold(std::move(values)) : kNoPayload);
  }
  // Delivers `message` to its own destination at `at` without any traffic: a timer, not a transfer.
  void post_local(const Message& message, Cycle at) {
    if (at < m_now) throw_in_the_past("timer");
    m_queue.push(at, message).payload = kNoPayload;
  }
  // The values `message` carries (null if none), while it is being delivered: the values themselves live
  // until on_message returns, this reference to their pointer only until the next send. Copy the pointer
  // to keep them.
  const PayloadPtr& payload(const Message& message) const { return m_payloads[message.payload]; }

  // Performs `flops` on `tile` once its inputs are ready at `ready`; returns the cycle it finishes.
  // A tile computes one thing at a time.
  Cycle compute(TileId tile, std::uint64_t flops, Phase phase, Cycle ready) {
    m_counters.flops[index(phase)] += flops;
    m_tile_counters.flops[tile] += flops;
    return m_timing.flops_per_cycle == 0 ? ready : occupy(tile, flops, ready);
  }
  // Tile-local memory traffic (reads and writes), for the sram energy term.
  void access_sram(TileId tile, std::uint64_t bytes, Phase phase) {
    m_counters.sram_bytes[index(phase)] += bytes;
    m_tile_counters.sram_bytes[tile] += bytes;
  }
  // Storage: written or released at now(). `group` labels the change for observers (the program's own label).
  void store(TileId tile, StorageCategory category, std::uint64_t bytes, std::uint32_t group = 0) {
    if (!m_deferred.empty()) apply_deferred(m_now);
    m_ledger.add(tile, category, bytes, m_now);
    if (!m_observers.empty()) notify_storage(tile, category, static_cast<std::int64_t>(bytes), group, m_now);
  }
  void release(TileId tile, StorageCategory category, std::uint64_t bytes, std::uint32_t group = 0) {
    if (!m_deferred.empty()) apply_deferred(m_now);
    m_ledger.release(tile, category, bytes, m_now);
    if (!m_observers.empty()) notify_storage(tile, category, -static_cast<std::int64_t>(bytes), group, m_now);
  }
  // Storage written or released at `at` (>= now) by work that ends then: a computation's result exists from
  // the cycle it finishes, and the inputs it reads are held until then (machine.flops_per_cycle > 0; at
  // now, these are store and release). Applied in time order with every other change.
  void store_at(TileId tile, StorageCategory category, std::uint64_t bytes, std::uint32_t group, Cycle at) {
    if (at == m_now) return store(tile, category, bytes, group);
    defer(tile, category, static_cast<std::int64_t>(bytes), group, at);
  }
  void release_at(TileId tile, StorageCategory category, std::uint64_t bytes, std::uint32_t group, Cycle at) {
    if (at == m_now) return release(tile, category, bytes, group);
    defer(tile, category, -static_cast<std::int64_t>(bytes), group, at);
  }
  // A value computed without a message (from local inputs) still counts toward depth.
  void note_depth(std::uint32_t stamp) {
    if (stamp > m_counters.depth) m_counters.depth = stamp;
  }

  void run();
  // Applies the storage changes still deferred, closes the storage integrals at the makespan and copies the
  // ledger's figures into the counters.
  void finish();

  Cycle now() const { return m_now; }
  const Grid& grid() const { return m_grid; }
  const MachineTiming& timing() const { return m_timing; }
  const StorageLedger& ledger() const { return m_ledger; }
  const Counters& counters() const { return m_counters; }
  const TileCounters& tile_counters() const { return m_tile_counters; }

 private:
  std::uint32_t host_hops_of(const Message& m) const;
  Cycle send_held(const Message& message, Cycle depart, PayloadId payload) {
    if (depart < m_now) throw_in_the_past("send departs");
    const bool via_host = message.src == kHostTile || message.dst == kHostTile;
    const std::uint32_t hops = via_host ? host_hops_of(message) : m_grid.hops(message.src, message.dst);
    // Host links are not modelled for contention, and a message to its own tile crosses no link.
    const bool latency_only = m_timing.link_bytes_per_cycle == 0 || via_host || hops == 0;
    const Cycle arrive = latency_only ? depart + hops * m_timing.hop_latency : reserve_links(message, depart);
    const std::uint64_t byte_hops = message.bytes * hops;
    const auto p = message.phase;
    const auto k = message.kind;
    m_counters.byte_hops.at(p, k) += byte_hops;
    m_counters.bytes.at(p, k) += message.bytes;
    m_counters.messages.at(p, k) += 1;
    if (message.src != kHostTile) {
      m_tile_counters.bytes_sent[message.src] += message.bytes;
      m_tile_counters.byte_hops_sent[message.src] += byte_hops;
    }
    if (message.dst != kHostTile) m_tile_counters.bytes_received[message.dst] += message.bytes;
    if (!m_observers.empty()) notify_send(message, depart, arrive, hops);
    Message& queued = m_queue.push(arrive, message);
    queued.depth += hops;
    queued.payload = payload;
    return arrive;
  }
  // Payloads in flight: a slot per message that carries values, reused once it has been delivered.
  PayloadId hold(PayloadPtr values);
  void drop(PayloadId id) {
    m_payloads[id].reset();
    m_free_payloads.push_back(id);
  }
  // Finite-bandwidth links: reserves the links of the route; returns the arrival of the tail.
  Cycle reserve_links(const Message& m, Cycle depart);
  [[noreturn]] static void throw_in_the_past(const char* what);
  // Out of line, so that the event path without observers (every run but a traced one) keeps no state
  // alive across virtual calls.
  [[gnu::noinline]] void notify_send(const Message& message, Cycle depart, Cycle arrive, std::uint32_t hops);
  [[gnu::noinline]] void notify_storage(TileId tile, StorageCategory category, std::int64_t delta,
                                        std::uint32_t group, Cycle at);
  // A storage change for a later cycle (store_at, release_at), and applying those due by `until`.
  struct DeferredChange {
    Cycle at;
    std::uint64_t sequence;  // the order they were asked in, among changes of one cycle
    TileId tile;
    StorageCategory category;
    std::int64_t delta_bytes;
    std::uint32_t group;
    // std::push_heap keeps a max-heap: "less" means "later".
    bool operator<(const DeferredChange& o) const { return at != o.at ? at > o.at : sequence > o.sequence; }
  };
  void defer(TileId tile, StorageCategory category, std::int64_t delta, std::uint32_t group, Cycle at);
  [[gnu::noinline]] void apply_deferred(Cycle until);
  // Finite compute rate: the tile works on one thing at a time; returns the cycle it finishes.
  Cycle occupy(TileId tile, std::uint64_t flops, Cycle ready);

  const Grid& m_grid;
  MachineTiming m_timing;
  MessageHandler* m_handler = nullptr;
  std::vector<EngineObserver*> m_observers;
  EventQueue<Message> m_queue;
  std::vector<PayloadPtr> m_payloads{1};  // [kNoPayload] stays null
  std::vector<PayloadId> m_free_payloads;
  StorageLedger m_ledger;
  Counters m_counters;
  TileCounters m_tile_counters;
  std::vector<Cycle> m_link_free_at;       // per directed link, when finite bandwidth is modelled
  std::vector<Cycle> m_tile_free_at;       // per tile compute unit
  std::vector<DeferredChange> m_deferred;  // a heap, earliest on top
  std::uint64_t m_deferred_sequence = 0;
  Cycle m_last_compute_end = 0;  // work finishing after the last delivery still counts toward makespan
  Cycle m_now = 0;
};

}  // namespace spatialsim::sim
