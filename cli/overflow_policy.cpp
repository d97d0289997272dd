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
     "than machine.sram_bytes; either way the overflows are printed and recorded in `out`"},
};

}  // namespace

OverflowPolicy::OverflowPolicy(const sim::Config& config)
    : m_stop(config.get_choice("machine.on_overflow", {"error", "report"}) == "error") {}

int OverflowPolicy::finish(const std::vector<workloads::RunResult>& results, std::uint64_t capacity,
                           const std::string& recorded_in) const {
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
  if (count == 0) return kExitOk;
  return verdict(
      std::to_string(count) + " tile overflow(s) of machine.sram_bytes = " + std::to_string(capacity),
      recorded_in);
}

int OverflowPolicy::finish_sweep(const std::vector<std::string>& points,
                                 const std::string& recorded_in) const {
  for (const auto& p : points) std::cerr << "spatialsim: storage overflow: " << p << '\n';
  if (points.empty()) return kExitOk;
  return verdict(std::to_string(points.size()) + " sweep point(s) with tiles over machine.sram_bytes",
                 recorded_in + " (column storage_overflow_tiles)");
}

int OverflowPolicy::verdict(const std::string& what, const std::string& recorded_in) const {
  const std::string where = what + " recorded in " + recorded_in;
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
