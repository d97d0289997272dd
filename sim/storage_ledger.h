#pragma once
// Per-tile storage by category, integrated over simulated time.
//
// Usage:
//   StorageLedger ledger(grid.tile_count());
//   ledger.add(tile, StorageCategory::stash, 512, now);      // written at `now`
//   ledger.release(tile, StorageCategory::stash, 512, later); // last read at `later`
//   ledger.finish(end);  ledger.byte_cycles(StorageCategory::stash) == 512 * (later - now)
//
// Contract: changes arrive in non-decreasing time order (the engine's clock). Releasing more than is held
// is a program error and throws. Exceeding the optional per-tile capacity never stops the ledger: it is
// recorded per tile (largest excess and the category whose write caused it) for the caller to report.

#include <array>
#include <cstdint>
#include <vector>

#include "sim/types.h"

namespace spatialsim::sim {

struct StorageOverflow {
  TileId tile = 0;
  StorageCategory category = StorageCategory::stash;  // the write that first went over
  std::uint64_t excess_bytes = 0;                     // the largest excess seen on this tile
  Cycle first_cycle = 0;
};

class StorageLedger {
 public:
  explicit StorageLedger(std::uint32_t tile_count, std::uint64_t capacity_bytes_per_tile = 0);

  // On the event path (several times per event): inline, with the rare cases out of line.
  void add(TileId tile, StorageCategory category, std::uint64_t bytes, Cycle now) {
    check_time(now);
    const std::size_t c = index(category);
    TileState& t = m_tiles[tile];
    t.held[c] += bytes;
    m_total[c] += bytes;
    m_weighted[c] -= bytes * now;
    if (t.held[c] > t.peak[c]) t.peak[c] = t.held[c];
    if (m_total[c] > m_peak_total[c]) m_peak_total[c] = m_total[c];
    if (m_capacity != 0 && t.all() > m_capacity) record_overflow(tile, category, now);
  }
  void release(TileId tile, StorageCategory category, std::uint64_t bytes, Cycle now) {
    check_time(now);
    const std::size_t c = index(category);
    TileState& t = m_tiles[tile];
    if (t.held[c] < bytes) throw_over_release(tile, category, bytes);
    t.held[c] -= bytes;
    m_total[c] -= bytes;
    m_weighted[c] += bytes * now;
  }
  // Closes the time integrals at `end` (the makespan). Further changes are a program error.
  void finish(Cycle end);

  std::uint64_t bytes(TileId tile, StorageCategory category) const {
    return m_tiles[tile].held[index(category)];
  }
  std::uint64_t total(StorageCategory category) const { return m_total[index(category)]; }
  // Integral over time of the total held in `category` (byte-cycles). Final after finish().
  std::uint64_t byte_cycles(StorageCategory category) const { return m_weighted[index(category)]; }
  std::uint64_t peak_total(StorageCategory category) const { return m_peak_total[index(category)]; }
  // The largest peak of one tile (computed when asked: the event path keeps per-tile peaks only).
  std::uint64_t peak_tile(StorageCategory category) const;
  std::uint64_t peak_of_tile(TileId tile, StorageCategory category) const {
    return m_tiles[tile].peak[index(category)];
  }
  std::uint32_t tile_count() const { return static_cast<std::uint32_t>(m_tiles.size()); }
  const std::vector<StorageOverflow>& overflows() const { return m_overflows; }

 private:
  struct TileState {
    std::array<std::uint64_t, kStorageCategoryCount> held{};
    std::array<std::uint64_t, kStorageCategoryCount> peak{};
    std::int64_t overflow_index = -1;
    // Everything this tile holds (summed when a capacity is checked, not kept on the event path).
    std::uint64_t all() const {
      std::uint64_t sum = 0;
      for (std::uint64_t b : held) sum += b;
      return sum;
    }
  };
  void check_time(Cycle now) {
    if (now < m_last_change || m_finished) throw_bad_time();
    m_last_change = now;
  }
  [[noreturn]] void throw_bad_time() const;
  [[noreturn]] void throw_over_release(TileId tile, StorageCategory category, std::uint64_t bytes) const;
  void record_overflow(TileId tile, StorageCategory category, Cycle now);

  std::vector<TileState> m_tiles;
  std::uint64_t m_capacity;
  std::array<std::uint64_t, kStorageCategoryCount> m_total{};
  // The integral of the total over time, kept without stepping through time: each byte adds
  // (release cycle - store cycle), so a store subtracts bytes * now and a release (or finish) adds it.
  // Unsigned arithmetic wraps, and the final value is exact (it is a sum of non-negative terms).
  std::array<std::uint64_t, kStorageCategoryCount> m_weighted{};
  std::array<std::uint64_t, kStorageCategoryCount> m_peak_total{};
  std::vector<StorageOverflow> m_overflows;
  Cycle m_last_change = 0;
  bool m_finished = false;
};

}  // namespace spatialsim::sim
