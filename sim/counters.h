#pragma once
// What a run measured (MODEL.md section 3). Plain data, owned by the engine, read by analysis.

#include <algorithm>
#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/types.h"

namespace spatialsim::sim {

// Every count stays below this: front ends refuse sizes whose counts could reach it (each with its own
// over-estimate), so that no 64-bit counter wraps. A long double: bounds are computed in it,
// never overflowing, whatever the sizes asked for.
inline constexpr long double kCountLimit = 4611686018427387904.0L;  // 2^62

struct Counters {
  PerPhaseKind<std::uint64_t> byte_hops;                // bytes x hops, per phase and kind
  PerPhaseKind<std::uint64_t> bytes;                    // bytes injected, per phase and kind
  PerPhaseKind<std::uint64_t> messages;                 // messages sent, per phase and kind
  std::array<std::uint64_t, kPhaseCount> flops{};       // 2 per multiply-add performed
  std::array<std::uint64_t, kPhaseCount> sram_bytes{};  // tile-local reads and writes
  std::uint64_t events = 0;                             // deliveries processed by the engine
  Cycle makespan_cycles = 0;  // cycle of the last event, or the end of the last compute if later
  std::uint32_t depth = 0;    // max depth stamp of any value delivered or computed
  // Storage, from the ledger's timeline.
  std::uint64_t inflight_byte_cycles = 0;   // integral of all tiles' stash bytes over time
  std::uint64_t peak_stash_bytes = 0;       // max over time of the total stash
  std::uint64_t peak_tile_stash_bytes = 0;  // max over tiles and time of one tile's stash

  std::uint64_t total_flops() const {
    std::uint64_t s = 0;
    for (auto f : flops) s += f;
    return s;
  }
  std::uint64_t total_sram_bytes() const {
    std::uint64_t s = 0;
    for (auto b : sram_bytes) s += b;
    return s;
  }
  bool operator==(const Counters&) const = default;
};

// Per-tile totals, for the maps written as grid-shaped datasets.
struct TileCounters {
  std::vector<std::uint64_t> bytes_sent;
  std::vector<std::uint64_t> bytes_received;
  std::vector<std::uint64_t> byte_hops_sent;  // byte-hops of messages this tile sent
  std::vector<std::uint64_t> flops;
  std::vector<std::uint64_t> sram_bytes;
  std::vector<std::uint64_t> peak_stash_bytes;

  explicit TileCounters(std::uint32_t tiles = 0)
      : bytes_sent(tiles),
        bytes_received(tiles),
        byte_hops_sent(tiles),
        flops(tiles),
        sram_bytes(tiles),
        peak_stash_bytes(tiles) {}
  bool operator==(const TileCounters&) const = default;
};

}  // namespace spatialsim::sim

namespace spatialsim::sim {

// A count past kCountLimit that no bound before the run can predict without refusing runs that fit: a
// storage integral (StorageLedger::byte_cycles) and the sums over a run's steps below. The engine says what
// passed; which options of a run made it large is for the caller that knows them to add
// (workloads::run_schedule).
class CountLimitError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

inline std::string count_past_limit(const std::string& what) {
  return what + " of this run passed 2^62, the largest count the simulator reports exactly";
}

// Adds the counters of a step that ran after `total`'s: traffic, work, time and integrals add up; depth
// and peaks take the larger value. Throws CountLimitError if the summed makespan or storage integral
// reaches kCountLimit, the first step's included (it is added to a zero total); traffic, work and events
// are bounded before a run starts (workloads::pass_bound).
inline void accumulate_sequential(Counters& total, const Counters& step) {
  for (std::size_t p = 0; p < kPhaseCount; ++p) {
    for (std::size_t k = 0; k < kMessageKindCount; ++k) {
      total.byte_hops.cells[p][k] += step.byte_hops.cells[p][k];
      total.bytes.cells[p][k] += step.bytes.cells[p][k];
      total.messages.cells[p][k] += step.messages.cells[p][k];
    }
    total.flops[p] += step.flops[p];
    total.sram_bytes[p] += step.sram_bytes[p];
  }
  total.events += step.events;
  const auto add_checked = [](std::uint64_t& sum, std::uint64_t more, const char* what) {
    if (static_cast<long double>(sum) + more >= kCountLimit)
      throw CountLimitError(count_past_limit(std::string(what) + ", summed over the steps,"));
    sum += more;
  };
  add_checked(total.makespan_cycles, step.makespan_cycles, "makespan_cycles");
  total.depth = std::max(total.depth, step.depth);
  add_checked(total.inflight_byte_cycles, step.inflight_byte_cycles, "inflight_byte_cycles");
  total.peak_stash_bytes = std::max(total.peak_stash_bytes, step.peak_stash_bytes);
  total.peak_tile_stash_bytes = std::max(total.peak_tile_stash_bytes, step.peak_tile_stash_bytes);
}

inline void accumulate_sequential(TileCounters& total, const TileCounters& step) {
  for (std::size_t t = 0; t < step.bytes_sent.size(); ++t) {
    total.bytes_sent[t] += step.bytes_sent[t];
    total.bytes_received[t] += step.bytes_received[t];
    total.byte_hops_sent[t] += step.byte_hops_sent[t];
    total.flops[t] += step.flops[t];
    total.sram_bytes[t] += step.sram_bytes[t];
    total.peak_stash_bytes[t] = std::max(total.peak_stash_bytes[t], step.peak_stash_bytes[t]);
  }
}

}  // namespace spatialsim::sim
