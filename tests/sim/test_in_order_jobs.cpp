#include "sim/in_order_jobs.h"

#include <gtest/gtest.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <numeric>
#include <stdexcept>
#include <thread>
#include <vector>

namespace spatialsim::sim {
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
TEST(RunInOrder, OneWorkerRunsTheListInOrder) {
  StartLog log;
  run_in_order(13, 1, [&](std::size_t i) {
    log.start(i);
    log.stop();
  });
  EXPECT_EQ(log.started, zero_to(13));
  EXPECT_EQ(log.most_running.load(), 1);
}

// Jobs 2k and 2k + 1 wait for each other: with the list handed out in order, two workers always hold such
// a pair, whatever the scheduler does. tbb::parallel_for over the jobs fails this (its second worker starts
// with the far half of the range, and job 0 waits for job 1 in vain).
TEST(RunInOrder, TwoWorkersTakeTheListPairByPair) {
  if (tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism) < 2)
    GTEST_SKIP() << "needs two threads";
  constexpr std::size_t kJobs = 12;
  std::mutex lock;
  std::condition_variable arrived;
  std::vector<int> at_meeting(kJobs / 2, 0);
  std::atomic<int> partners_missed{0};
  StartLog log;
  run_in_order(kJobs, 2, [&](std::size_t i) {
    log.start(i);
    std::unique_lock g(lock);
    ++at_meeting[i / 2];
    arrived.notify_all();
    if (!arrived.wait_for(g, std::chrono::seconds(5), [&] { return at_meeting[i / 2] == 2; }))
      ++partners_missed;
    g.unlock();
    log.stop();
  });
  EXPECT_EQ(partners_missed.load(), 0);
  std::vector<std::size_t> sorted = log.started;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, zero_to(kJobs));  // each job once
  EXPECT_EQ(log.most_running.load(), 2);
}

TEST(RunInOrder, NeverMoreWorkersThanAsked) {
  for (const std::size_t threads : {1, 2}) {
    StartLog log;
    run_in_order(9, threads, [&](std::size_t i) {
      log.start(i);
      std::this_thread::sleep_for(milliseconds(2));
      log.stop();
    });
    EXPECT_EQ(log.started.size(), 9u);
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
}  // namespace spatialsim::sim
