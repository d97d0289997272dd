#include "cli/overflow_policy.h"

#include <iostream>

#include "cli/command.h"
#include "cli/command_line.h"
#include "sim/option_spec.h"

namespace spatialsim::cli {
namespace {

const sim::OptionRegistration options{
    {"machine.on_overflow", "choice",
     "error (exit code 3) | report (warn on stderr): what run, compare and sweep do when a tile holds more "
     "than machine.sram_bytes; either way the overflows are printed and recorded in `out` (a sweep keeps "
     "the number of tiles per job); a sweep applies one policy to all its jobs"},
};

}  // namespace

OverflowPolicy::OverflowPolicy(const sim::Config& config)
    : m_stop(config.get_choice("machine.on_overflow", {"error", "report"}) == "error") {}

std::size_t OverflowPolicy::print_tiles(const std::vector<workloads::RunResult>& results,
                                        std::uint64_t capacity) {
  std::size_t count = 0;
  for (const auto& r : results) {
    for (const auto& o : r.overflows) {
      ++count;
      std::cerr << "spatialsim: storage overflow: schedule " << r.schedule << ", tile " << o.tile << " (x "
                << o.tile % r.grid_width << ", y " << o.tile / r.grid_width
                << "): exceeded machine.sram_bytes = " << capacity << " by " << o.excess_bytes << " bytes ("
                << sim::name(o.category) << " write at cycle " << o.first_cycle << ")\n";
    }
  }
  return count;
}

void OverflowPolicy::print_points(const std::vector<std::string>& points) {
  for (const auto& p : points) std::cerr << "spatialsim: storage overflow: " << p << '\n';
}

int OverflowPolicy::finish(const std::vector<workloads::RunResult>& results, std::uint64_t capacity,
                           const std::string& recorded_in) const {
  const std::size_t count = print_tiles(results, capacity);
  if (count == 0) return kExitOk;
  return verdict(
      std::to_string(count) + " tile overflow(s) of machine.sram_bytes = " + std::to_string(capacity),
      recorded_in);
}

int OverflowPolicy::finish_sweep(const std::vector<std::string>& jobs, const std::string& recorded_in) const {
  print_points(jobs);
  if (jobs.empty()) return kExitOk;
  // Jobs, not points: each line names a point under one schedule.
  return verdict(std::to_string(jobs.size()) + " sweep job(s) (a point under one schedule) with tiles over " +
                     "machine.sram_bytes",
                 recorded_in + " (column storage_overflow_tiles)");
}

int OverflowPolicy::finish_compare(const std::vector<workloads::RunResult>& results, std::uint64_t capacity,
                                   const std::string& recorded_in,
                                   const std::vector<std::string>& scaling_points) const {
  const std::size_t tiles = print_tiles(results, capacity);
  print_points(scaling_points);
  if (tiles == 0 && scaling_points.empty()) return kExitOk;
  std::string what;
  if (tiles != 0)
    what = std::to_string(tiles) + " tile overflow(s) of machine.sram_bytes = " + std::to_string(capacity) +
           " recorded in " + recorded_in;
  if (!scaling_points.empty())
    what += (what.empty() ? "" : "; ") + std::to_string(scaling_points.size()) +
            " depth-scaling run(s) (compare.depth_factors) with tiles over machine.sram_bytes";
  return verdict(what, "");
}

std::vector<std::string> overflowed_points(const analysis::SweepPlan& plan,
                                           const std::vector<analysis::SweepRow>& rows) {
  std::vector<std::string> out;
  for (std::size_t j = 0; j < plan.jobs.size(); ++j) {
    const double tiles = analysis::find_metric(rows[j].metrics, "storage_overflow_tiles").as_double();
    if (tiles == 0) continue;
    out.push_back(analysis::job_label(plan, j) + ": " + std::to_string(static_cast<std::uint64_t>(tiles)) +
                  " tiles");
  }
  return out;
}

int OverflowPolicy::verdict(const std::string& what, const std::string& recorded_in) const {
  const std::string where = recorded_in.empty() ? what : what + " recorded in " + recorded_in;
  if (m_stop) {
    std::cerr << error_line(
                     where +
                     " (machine.on_overflow = error); raise machine.sram_bytes, shrink the run, or set "
                     "machine.on_overflow=report")
              << '\n';
    return kExitStorageOverflow;
  }
  std::cerr << "spatialsim: warning: " << where << " (machine.on_overflow = report)\n";
  return kExitOk;
}

}  // namespace spatialsim::cli
