#pragma once
// Pending deliveries ordered by (cycle, insertion sequence): two events at the same cycle run in the
// order they were scheduled, so a run is a pure function of its inputs.
//
// Usage:
//   EventQueue<Message> q;
//   q.push(5, msg);
//   while (!q.empty()) { auto [cycle, m] = q.pop(); ... }

#include <cstdint>
#include <queue>
#include <utility>
#include <vector>

#include "sim/types.h"

namespace spatialsim::sim {

template <typename Item>
class EventQueue {
 public:
  void push(Cycle at, Item item) {
    std::uint32_t slot;
    if (m_free.empty()) {
      slot = static_cast<std::uint32_t>(m_items.size());
      m_items.push_back(std::move(item));
    } else {
      slot = m_free.back();
      m_free.pop_back();
      m_items[slot] = std::move(item);
    }
    m_heap.push(Entry{at, m_next_sequence++, slot});
  }

  bool empty() const { return m_heap.empty(); }
  std::size_t size() const { return m_heap.size(); }
  Cycle next_cycle() const { return m_heap.top().cycle; }

  // Removes the earliest event and returns its cycle and item.
  std::pair<Cycle, Item> pop() {
    const Entry top = m_heap.top();
    m_heap.pop();
    Item item = std::move(m_items[top.slot]);
    m_items[top.slot] = Item{};  // drop shared payloads now, not when the slot is reused
    m_free.push_back(top.slot);
    return {top.cycle, std::move(item)};
  }

 private:
  struct Entry {
    Cycle cycle;
    std::uint64_t sequence;
    std::uint32_t slot;
    // std::priority_queue is a max-heap: "less" means "later".
    bool operator<(const Entry& o) const {
      return cycle != o.cycle ? cycle > o.cycle : sequence > o.sequence;
    }
  };

  std::priority_queue<Entry> m_heap;
  std::vector<Item> m_items;  // slab; heap entries stay small
  std::vector<std::uint32_t> m_free;
  std::uint64_t m_next_sequence = 0;
};

}  // namespace spatialsim::sim
