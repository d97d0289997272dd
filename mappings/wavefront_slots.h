#pragma once
// State a program keeps per wavefront, held only while that wavefront is in flight.
//
// Why: a step of G wavefronts runs through a pipeline that holds only some of them at once (about 2L for
// backprop, a few for a forward pass). Sizing per-wavefront state for all G up front made memory and
// cache misses grow with G (docs/performance.md). Here a wavefront takes a slot when it first needs state
// and gives it back when its state is empty again; slots are reused, never freed, so a slot's buffers are
// allocated once, and the memory is bounded by the most wavefronts ever in flight at once.
//
// Usage:
//   WavefrontSlots<State> slots(G, [&] { return State(tiles); });
//   State& s = slots.at(wf);          // takes a slot on first use
//   if (State* s = slots.find(wf)) ...
//   slots.release(wf);                // the caller has emptied the state (State::reset() is called)
//
// Contract: State has `void reset()` that returns it to its freshly made condition, keeping its buffers.
// References returned by at() and find() stay valid while other wavefronts take slots (states live in
// their own allocations); a released state's reference must not be used for the released wavefront.

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <vector>

namespace spatialsim::mappings {

template <typename State>
class WavefrontSlots {
 public:
  WavefrontSlots(std::uint32_t wavefronts, std::function<State()> make)
      : m_state_of(wavefronts, nullptr), m_make(std::move(make)) {}

  // On the event path: one load when the wavefront holds a slot already. Precondition: wf < wavefronts.
  State& at(std::uint32_t wf) {
    State* s = m_state_of[wf];
    return s != nullptr ? *s : take(wf);
  }
  State* find(std::uint32_t wf) const { return m_state_of[wf]; }

  void release(std::uint32_t wf) {
    State*& s = m_state_of.at(wf);
    if (s == nullptr) throw std::logic_error("wavefront slots: releasing a wavefront that holds no slot");
    s->reset();
    m_free.push_back(s);
    s = nullptr;
  }

  // Slots ever made: the most wavefronts whose state was held at once.
  std::uint32_t capacity() const { return static_cast<std::uint32_t>(m_states.size()); }
  std::uint32_t in_use() const { return capacity() - static_cast<std::uint32_t>(m_free.size()); }

 private:
  [[gnu::noinline]] State& take(std::uint32_t wf) {
    State*& s = m_state_of.at(wf);
    if (m_free.empty()) {
      m_states.push_back(std::make_unique<State>(m_make()));
      s = m_states.back().get();
    } else {
      s = m_free.back();
      m_free.pop_back();
    }
    return *s;
  }

  std::vector<State*> m_state_of;                // per wavefront of the step: its state, or null
  std::vector<std::unique_ptr<State>> m_states;  // every slot made
  std::vector<State*> m_free;
  std::function<State()> m_make;
};

// One wavefront's items of one kind (one per lane or per output column, say), `open` of them in use: the
// state of a program that gathers pieces per lane or per column, held in a pool while any item is open.
template <typename Item>
struct WavefrontItems {
  std::vector<Item> items;
  std::uint32_t open = 0;
  void reset() { open = 0; }
};
template <typename Item>
using ItemSlots = WavefrontSlots<WavefrontItems<Item>>;

// A pool of `count` items per wavefront, for a step of `wavefronts`.
template <typename Item>
ItemSlots<Item> item_slots(std::uint32_t wavefronts, std::uint32_t count) {
  return ItemSlots<Item>(wavefronts, [count] { return WavefrontItems<Item>{std::vector<Item>(count)}; });
}

// What several pools hold, for tests and reports: the wavefront states held now (summed) and the most slots
// any one pool made.
struct SlotCensus {
  std::uint32_t held = 0;
  std::uint32_t most_slots = 0;

  template <typename State>
  void count(const WavefrontSlots<State>& pool) {
    held += pool.in_use();
    most_slots = std::max(most_slots, pool.capacity());
  }
  void count(const SlotCensus& other) {
    held += other.held;
    most_slots = std::max(most_slots, other.most_slots);
  }
};

}  // namespace spatialsim::mappings
