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

#include <cstdint>
#include <string>
#include <vector>

#include "sim/config.h"
#include "workloads/training_run.h"

namespace spatialsim::cli {

class OverflowPolicy {
 public:
  explicit OverflowPolicy(const sim::Config& config);

  // Prints one line per overflowed tile of each schedule; returns the command's exit code.
  int finish(const std::vector<workloads::RunResult>& results, std::uint64_t capacity,
             const std::string& recorded_in) const;
  // A sweep keeps per point only how many tiles overflowed: `points` lists them ("point 3 (model.depth =
  // 64), schedule backprop: 12 tiles"); machine.sram_bytes may differ between points.
  int finish_sweep(const std::vector<std::string>& points, const std::string& recorded_in) const;

 private:
  int verdict(const std::string& what, const std::string& recorded_in) const;
  bool m_stop = true;  // machine.on_overflow = error
};

}  // namespace spatialsim::cli
