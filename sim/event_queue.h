#pragma once
// Pending deliveries ordered by (cycle, insertion sequence): two events at the same cycle run in the
// order they were scheduled, so a run is a pure function of its inputs.
//
// Usage:
//   EventQueue<Message> q;
//   q.push(5, msg);                  // msg is copied (Item: small and trivially copyable)
//   while (!q.empty()) { auto [cycle, m] = q.pop(); ... }
//
// Contract: push(at) with at >= the cycle of the last pop (the engine never schedules into the past).
//
// Why a calendar: a pipelined run keeps thousands of events pending (every injection of inputs is
// scheduled up front), almost all of them a few cycles ahead. A binary heap paid ~log2(n) sift levels per
// event (a third of the counting-mode run time, docs/performance.md). Here events within kWindow cycles
// of the clock go straight into a FIFO per cycle, which keeps the insertion order for free; events further
// out wait outside the window and move into their cycle's FIFO, in (cycle, sequence) order, when the window
// reaches them. A FIFO therefore holds its far arrivals first and then direct pushes, all of which were
// scheduled later: the (cycle, sequence) order is exact.
//
// Far events mostly come in order (a program scheduling its timers up front, one per injection): those wait
// in an ordered FIFO, which admits them without heap operations; an event scheduled earlier than the
// FIFO's last waits in a heap keyed by (cycle, sequence), and admission takes whichever of the two is first.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <queue>
#include <type_traits>
#include <utility>
#include <vector>

#include "sim/types.h"

namespace spatialsim::sim {

template <typename Item>
class EventQueue {
  static_assert(std::is_trivially_copyable_v<Item>, "events are copied in and out of the queue");

 public:
  EventQueue() : m_buckets(kWindow) {}

  // Returns the queued copy, which the caller may still amend before the next push or pop.
  Item& push(Cycle at, const Item& item) {
    ++m_size;
    if (at < m_cursor + kWindow) {
      ++m_near;
      Bucket& b = m_buckets[at & kMask];
      take_spare(b.items);
      return b.items.emplace_back(item);
    }
    return push_far(at, item);
  }

  bool empty() const { return m_size == 0; }
  std::size_t size() const { return m_size; }
  // Items the near buckets' storage (in use and spare) has room for: bounded by the events pending near
  // the clock at once, not by how many went through.
  std::size_t near_capacity() const {
    std::size_t n = 0;
    for (const Bucket& b : m_buckets) n += b.items.capacity();
    for (const std::vector<Item>& v : m_spare) n += v.capacity();
    return n;
  }

  // Copies the earliest event into `item` and returns its cycle. Precondition: !empty().
  // Inline and short: the engine calls it once per event; stepping to the next cycle is out of line.
  Cycle pop(Item& item) {
    Bucket* b = &m_buckets[m_cursor & kMask];
    if (b->head == b->items.size()) b = &step_to_next_event();
    item = b->items[b->head++];
    --m_near;
    --m_size;
    return m_cursor;
  }
  std::pair<Cycle, Item> pop() {
    Item item;
    const Cycle at = pop(item);
    return {at, item};
  }

 private:
  // A power of two. Sends land a route's length of hops ahead, within a few hundred cycles even on the
  // seed grid. A bucket holds storage only while it holds events (a drained one hands its storage on);
  // 1024 buckets, each growing its own storage, once cost 3% of a counting-mode step in reallocations
  // (docs/performance.md).
  static constexpr Cycle kWindow = 256;
  static constexpr Cycle kMask = kWindow - 1;
  static constexpr std::size_t kKeptCapacity = 256;  // items a drained cycle keeps (12 KB of Message)

  struct Bucket {
    std::vector<Item> items;  // one cycle's events, in sequence order
    std::size_t head = 0;     // next to pop
  };
  struct FarEntry {
    Cycle cycle;
    std::uint64_t sequence;
    std::uint32_t slot;
    // std::priority_queue is a max-heap: "less" means "later".
    bool operator<(const FarEntry& o) const {
      return cycle != o.cycle ? cycle > o.cycle : sequence > o.sequence;
    }
  };

  // A bucket without storage (about to take its first event) gets the storage drained last. Why: the
  // events of a run pass through a few buckets at a time, a few cycles ahead of the clock; when every
  // bucket kept its own storage, they cycled the whole window's storage (256 buckets of a few KB) through
  // the data cache, and the counting-mode rate was a quarter lower on a machine with 1 MB of L2
  // (docs/performance.md). Inline and without allocating: with a few events per cycle, every other event
  // pays for it.
  void take_spare(std::vector<Item>& items) {
    if (items.capacity() == 0 && m_spare_count != 0) items.swap(m_spare[--m_spare_count]);
  }
  void hand_on(std::vector<Item>& items) {
    if (m_spare_count == m_spare.size()) m_spare.emplace_back();
    m_spare[m_spare_count++].swap(items);  // leaves `items` without storage
  }

  // The cursor's cycle is drained: empties its bucket and steps the window one cycle at a time,
  // or jumps to the earliest far event when nothing near is left, until a bucket holds an event.
  [[gnu::noinline]] Bucket& step_to_next_event() {
    for (;;) {
      Bucket& drained = m_buckets[m_cursor & kMask];
      // Hand a small storage on to the next bucket that starts (take_spare); give back a burst's, so that
      // the queue never keeps many copies of the busiest cycle's storage.
      drained.items.clear();
      drained.head = 0;
      if (drained.items.capacity() > kKeptCapacity) {
        std::vector<Item>().swap(drained.items);
      } else if (drained.items.capacity() != 0) {  // a cycle stepped over had no storage to hand on
        hand_on(drained.items);
      }
      m_cursor = m_near == 0 ? next_far_cycle() : m_cursor + 1;
      admit_far();
      Bucket& b = m_buckets[m_cursor & kMask];
      if (b.head < b.items.size()) return b;
    }
  }

  // An event beyond the window: into the ordered FIFO if it is not earlier than the FIFO's last, else the
  // heap.
  [[gnu::noinline]] Item& push_far(Cycle at, const Item& item) {
    const std::uint64_t sequence = m_next_sequence++;
    if (m_ordered.empty() || at >= m_ordered.back().cycle) {
      m_ordered.push_back(OrderedEntry{at, sequence, item});
      return m_ordered.back().item;
    }
    std::uint32_t slot;
    if (m_free.empty()) {
      slot = static_cast<std::uint32_t>(m_far_items.size());
      m_far_items.push_back(item);
    } else {
      slot = m_free.back();
      m_free.pop_back();
      m_far_items[slot] = item;
    }
    m_far.push(FarEntry{at, sequence, slot});
    return m_far_items[slot];
  }

  // The earliest far cycle. Precondition: a far event exists (m_size > 0 and m_near == 0).
  Cycle next_far_cycle() const {
    if (m_ordered.empty()) return m_far.top().cycle;
    if (m_far.empty()) return m_ordered.front().cycle;
    return std::min(m_ordered.front().cycle, m_far.top().cycle);
  }

  // Moves every far event that the window [m_cursor, m_cursor + kWindow) now covers into its FIFO, in
  // (cycle, sequence) order across the ordered FIFO and the heap.
  void admit_far() {
    const Cycle end = m_cursor + kWindow;
    for (;;) {
      const bool ordered_due = !m_ordered.empty() && m_ordered.front().cycle < end;
      const bool heap_due = !m_far.empty() && m_far.top().cycle < end;
      if (!ordered_due && !heap_due) return;
      const bool take_ordered =
          ordered_due && (!heap_due || std::pair(m_ordered.front().cycle, m_ordered.front().sequence) <
                                           std::pair(m_far.top().cycle, m_far.top().sequence));
      if (take_ordered) {
        const OrderedEntry& e = m_ordered.front();
        std::vector<Item>& items = m_buckets[e.cycle & kMask].items;
        take_spare(items);
        items.push_back(e.item);
        m_ordered.pop_front();
      } else {
        const FarEntry e = m_far.top();
        m_far.pop();
        std::vector<Item>& items = m_buckets[e.cycle & kMask].items;
        take_spare(items);
        items.push_back(m_far_items[e.slot]);
        m_free.push_back(e.slot);
      }
      ++m_near;
    }
  }

  std::vector<Bucket> m_buckets;  // m_buckets[c & kMask]: cycle c, for c in the window
  // Storage of drained buckets, the last drained on top: m_spare[0, m_spare_count) (the others are
  // vectors without storage, kept so that handing on never allocates).
  std::vector<std::vector<Item>> m_spare;
  std::size_t m_spare_count = 0;
  Cycle m_cursor = 0;      // the window's first cycle: the cycle of the last pop
  std::size_t m_near = 0;  // events in the buckets
  std::size_t m_size = 0;
  struct OrderedEntry {
    Cycle cycle;
    std::uint64_t sequence;
    Item item;
  };
  std::deque<OrderedEntry> m_ordered;   // far events scheduled in non-decreasing cycle order
  std::priority_queue<FarEntry> m_far;  // the others
  std::vector<Item> m_far_items;        // slab; heap entries stay small
  std::vector<std::uint32_t> m_free;
  std::uint64_t m_next_sequence = 0;
};

}  // namespace spatialsim::sim
