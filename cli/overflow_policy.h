#pragma once
// machine.on_overflow for every command that runs schedules (run, compare, sweep): when a tile holds
// more than machine.sram_bytes, the run goes on (the counts stay exact) and the command says so at the
// end: one line per overflowed tile (or sweep point) on stderr, then either exit code 3
// (machine.on_overflow = error) or a warning (report). The results file is written either way, with the
// overflows in it.
//
// Usage:
//   const OverflowPolicy policy(config);   // validates machine.on_overflow before anything runs
//   ... run, write the results file ...
//   return policy.finish(results, setup.timing.sram_bytes_per_tile, out);
//   return policy.finish_sweep(overflowed_points(plan, rows), out);   // sweep

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/sweep.h"
#include "sim/config.h"
#include "workloads/training_run.h"

namespace spatialsim::cli {

class OverflowPolicy {
 public:
  explicit OverflowPolicy(const sim::Config& config);

  // Prints one line per overflowed tile of each schedule; returns the command's exit code.
  int finish(const std::vector<workloads::RunResult>& results, std::uint64_t capacity,
             const std::string& recorded_in) const;
  // A sweep keeps per job (a point under one schedule) only how many tiles overflowed: `jobs` lists the
  // ones that did (overflowed_points); machine.sram_bytes may differ between points.
  int finish_sweep(const std::vector<std::string>& jobs, const std::string& recorded_in) const;
  // compare: the table's runs, recorded in `recorded_in`, and its depth-scaling runs (`scaling_points`,
  // which only their fitted slopes record); one verdict for both.
  int finish_compare(const std::vector<workloads::RunResult>& results, std::uint64_t capacity,
                     const std::string& recorded_in, const std::vector<std::string>& scaling_points) const;

 private:
  static std::size_t print_tiles(const std::vector<workloads::RunResult>& results, std::uint64_t capacity);
  static void print_points(const std::vector<std::string>& points);
  int verdict(const std::string& what, const std::string& recorded_in) const;
  bool m_stop = true;  // machine.on_overflow = error
};

// One line per job of a finished sweep whose run had tiles over machine.sram_bytes: "point 3 (model.depth =
// 64), schedule backprop: 12 tiles". rows[j] is job j's.
std::vector<std::string> overflowed_points(const analysis::SweepPlan& plan,
                                           const std::vector<analysis::SweepRow>& rows);

}  // namespace spatialsim::cli
