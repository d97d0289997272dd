#include "analysis/in_order_jobs.h"

#include <gtest/gtest.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <numeric>
#include <stdexcept>
#include <thread>
#include <vector>

namespace spatialsim::analysis {
namespace {

using std::chrono::milliseconds;

// Records the order in which jobs start and the most that ran at once.
struct StartLog {
  std::mutex lock;
  std::vector<std::size_t> started;
  std::atomic<int> running{0};
  std::atomic<int> most_running{0};

  void start(std::size_t i) {
    {
      const std::lock_guard g(lock);
      started.push_back(i);
    }
    const int now = ++running;
    int seen = most_running.load();
    while (now > seen && !most_running.compare_exchange_weak(seen, now)) {
    }
  }
  void stop() { --running; }
};

std::vector<std::size_t> zero_to(std::size_t n) {
  std::vector<std::size_t> v(n);
  std::iota(v.begin(), v.end(), std::size_t{0});
  return v;
}

// The property the sweep relies on: a list written longest first starts longest first on every thread.
// tbb::parallel_for over the jobs fails this: the second worker starts with the far half of the range.
TEST(RunInOrder, StartsEveryJobOnceInListOrder) {
  for (const std::size_t threads : {1, 2, 3}) {
    StartLog log;
    run_in_order(13, threads, [&](std::size_t i) {
      log.start(i);
      std::this_thread::sleep_for(milliseconds(i % 3 == 0 ? 6 : 2));
      log.stop();
    });
    // Two workers can take consecutive jobs at the same moment and log them either way round, so a job
    // may be logged up to threads - 1 places from its own index, never further.
    std::vector<std::size_t> sorted = log.started;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(sorted, zero_to(13)) << threads << " threads";
    for (std::size_t at = 0; at < log.started.size(); ++at) {
      const std::size_t i = log.started[at];
      EXPECT_LE(std::max(i, at) - std::min(i, at), threads - 1)
          << "job " << i << " started at position " << at << " on " << threads << " threads";
    }
    EXPECT_LE(log.most_running.load(), static_cast<int>(threads)) << threads << " threads";
  }
}

TEST(RunInOrder, NoJobsCallsNothing) {
  bool called = false;
  run_in_order(0, 2, [&](std::size_t) { called = true; });
  EXPECT_FALSE(called);
}

TEST(RunInOrder, AFailingJobStopsTheListAndItsErrorIsRethrown) {
  StartLog log;
  try {
    run_in_order(60, 2, [&](std::size_t i) {
      log.start(i);
      std::this_thread::sleep_for(milliseconds(2));
      log.stop();
      if (i == 5) throw std::runtime_error("job 5 failed");
    });
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "job 5 failed");
  }
  // Jobs 0..5 started; the other worker may have taken one or two more around the failure.
  std::vector<std::size_t> sorted = log.started;
  std::sort(sorted.begin(), sorted.end());
  ASSERT_GE(sorted.size(), 6u);
  EXPECT_LE(sorted.size(), 8u);
  EXPECT_EQ(std::vector(sorted.begin(), sorted.begin() + 6), zero_to(6));
}

// A job may use TBB itself (the schedules draw their weights in parallel); isolation keeps the waiting
// worker from running other jobs inside it, and every nested loop completes.
TEST(RunInOrder, JobsMayRunNestedParallelLoops) {
  std::vector<long> sums(8, 0);
  run_in_order(sums.size(), 2, [&](std::size_t i) {
    std::vector<long> parts(1000, 0);
    tbb::parallel_for(std::size_t{0}, parts.size(),
                      [&](std::size_t k) { parts[k] = static_cast<long>(k * i); });
    sums[i] = std::accumulate(parts.begin(), parts.end(), 0L);
  });
  for (std::size_t i = 0; i < sums.size(); ++i) EXPECT_EQ(sums[i], static_cast<long>(999 * 1000 / 2 * i));
}

}  // namespace
}  // namespace spatialsim::analysis
