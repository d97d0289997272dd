#include <gtest/gtest.h>

#include <cstdint>
#include <queue>
#include <tuple>
#include <vector>

#include "sim/event_queue.h"

namespace spatialsim::sim {
namespace {

// The reference order: a binary heap on (cycle, insertion sequence), as the queue was first written.
using Key = std::tuple<Cycle, std::uint64_t>;

// Pops interleaved with pushes at delays drawn from `max_delay` (near the clock, across the calendar's
// window, and far beyond it), never into the past, and checks every pop against the reference.
void check_against_heap(std::uint64_t max_delay, std::uint64_t seed) {
  EventQueue<std::uint64_t> queue;
  std::priority_queue<Key, std::vector<Key>, std::greater<>> reference;
  std::uint64_t rng = seed, sequence = 0;
  auto draw = [&](std::uint64_t bound) {
    rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return (rng >> 33) % bound;
  };
  Cycle now = 0;
  auto push = [&](Cycle at) {
    queue.push(at, sequence);
    reference.emplace(at, sequence++);
  };
  for (int k = 0; k < 200; ++k) push(draw(max_delay));
  for (int step = 0; step < 20000; ++step) {
    if (!reference.empty() && draw(3) != 0) {
      const auto [cycle, item] = queue.pop();
      const auto [want_cycle, want_item] = reference.top();
      reference.pop();
      ASSERT_EQ(cycle, want_cycle) << "step " << step;
      ASSERT_EQ(item, want_item) << "step " << step;
      now = cycle;
    } else {
      push(now + draw(max_delay));
    }
    ASSERT_EQ(queue.size(), reference.size());
  }
  while (!reference.empty()) {
    ASSERT_EQ(queue.pop().second, std::get<1>(reference.top()));
    reference.pop();
  }
  EXPECT_TRUE(queue.empty());
}

class EventQueueOrder : public ::testing::TestWithParam<std::uint64_t> {};

TEST_P(EventQueueOrder, MatchesCycleThenInsertionOrder) {
  for (std::uint64_t seed = 1; seed <= 3; ++seed) check_against_heap(GetParam(), seed);
}

// Same-cycle events, a few cycles ahead, about the window (1024), and far beyond it.
INSTANTIATE_TEST_SUITE_P(Delays, EventQueueOrder, ::testing::Values(1, 8, 1500, 100000));

TEST(EventQueue, SameCyclePushWhileDrainingComesLast) {
  EventQueue<int> q;
  q.push(3, 1);
  q.push(3, 2);
  EXPECT_EQ(q.pop().second, 1);
  q.push(3, 3);  // a timer at now
  EXPECT_EQ(q.pop().second, 2);
  EXPECT_EQ(q.pop().second, 3);
  EXPECT_TRUE(q.empty());
}

}  // namespace
}  // namespace spatialsim::sim
