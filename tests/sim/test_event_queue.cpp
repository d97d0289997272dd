#include <gtest/gtest.h>

#include <cstdint>
#include <queue>
#include <tuple>
#include <utility>
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

// Same-cycle events, a few cycles ahead, about the window (256), and far beyond it.
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

// Far events scheduled in order wait in a FIFO, the others in a heap; ties across the two still go by
// insertion order.
TEST(EventQueue, FarEventsInAndOutOfOrderKeepCycleThenInsertionOrder) {
  EventQueue<int> q;
  q.push(1000, 0);
  q.push(1000, 1);
  q.push(2000, 2);
  q.push(1500, 3);  // earlier than the last far event: out of order
  q.push(2000, 4);
  q.push(1000, 5);  // out of order, tied with 0 and 1
  q.push(5, 6);     // near
  const std::vector<std::pair<Cycle, int>> want = {{5, 6},    {1000, 0}, {1000, 1}, {1000, 5},
                                                   {1500, 3}, {2000, 2}, {2000, 4}};
  for (const auto& [cycle, item] : want) {
    const auto [got_cycle, got_item] = q.pop();
    EXPECT_EQ(got_cycle, cycle);
    EXPECT_EQ(got_item, item);
  }
  EXPECT_TRUE(q.empty());
}

// A long run with few events pending at once reuses the same storage: the queue's memory is bounded by
// what is pending, not by how many events went through.
TEST(EventQueue, MemoryIsBoundedByThePendingEventsNotByTheirNumber) {
  EventQueue<std::uint64_t> q;
  Cycle now = 0;
  std::uint64_t next = 0;
  for (int k = 0; k < 5; ++k) q.push(now + 1 + k % 3, next++);
  for (int k = 0; k < 100000; ++k) {
    const auto [cycle, item] = q.pop();
    now = cycle;
    q.push(now + 1 + item % 7, next++);  // one out, one in: 5 pending throughout
  }
  EXPECT_EQ(q.size(), 5U);
  // At most 6 buckets hold storage at once (5 events, and the cycle being drained), each for a few events.
  EXPECT_LE(q.near_capacity(), 6U * 8U);
}

}  // namespace
}  // namespace spatialsim::sim
