#include "sim/in_order_jobs.h"

#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>

namespace spatialsim::sim {

void run_in_order(std::size_t count, std::size_t threads, const std::function<void(std::size_t)>& job) {
  if (count == 0) return;
  std::size_t workers = tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism);
  if (threads != 0) workers = std::min(workers, threads);
  workers = std::clamp<std::size_t>(workers, 1, count);
  // One ticket counter is the whole queue: taking a ticket is starting the job it names.
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  tbb::parallel_for(
      std::size_t{0}, workers,
      [&](std::size_t) {
        while (!failed.load(std::memory_order_relaxed)) {
          const std::size_t i = next.fetch_add(1, std::memory_order_relaxed);
          if (i >= count) return;
          try {
            // Isolated: a worker waiting inside the job's own parallel loops must not pick up the other
            // worker's loop, which would run the rest of the list nested inside this job.
            tbb::this_task_arena::isolate([&] { job(i); });
          } catch (...) {
            failed.store(true, std::memory_order_relaxed);
            throw;  // TBB rethrows the first one from parallel_for
          }
        }
      },
      tbb::simple_partitioner{});
}

}  // namespace spatialsim::sim
