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
// recorded per tile (largest excess, and the category whose writes caused it, overflow_cause()) for the
// caller to report.
//
// What "held at a cycle" means: what is held once every change of that cycle is made. The changes of one
// cycle happen at the same time, and the order in which a program makes them is not a property of the
// machine, so peaks and overflows are taken when a cycle closes (at the first change of a later cycle, or
// at finish()), never between two changes of the same cycle. This is the integral's convention too: bytes
// stored and released in the same cycle are held for 0 cycles and never count. Peaks and overflows are
// final after finish().

#include <array>
#include <cstdint>
#include <vector>

#include "sim/types.h"

namespace spatialsim::sim {

struct StorageOverflow {
  TileId tile = 0;
  StorageCategory category = StorageCategory::stash;  // the writes that took it over (overflow_cause())
  std::uint64_t excess_bytes = 0;                     // the largest excess seen on this tile
  Cycle first_cycle = 0;
};

class StorageLedger {
 public:
  explicit StorageLedger(std::uint32_t tile_count, std::uint64_t capacity_bytes_per_tile = 0);

  // On the event path (several times per event): inline, with the rare cases out of line.
  void add(TileId tile, StorageCategory category, std::uint64_t bytes, Cycle now) {
    advance_to(now);
    const std::size_t c = index(category);
    TileState& t = m_tiles[tile];
    t.held[c] += bytes;
    m_total[c] += bytes;
    m_weighted[c] -= ByteCycles{bytes} * now;
    // Only a store can raise a peak: the categories stored to in this cycle, tile by tile, are looked at
    // when it closes.
    t.written_this_cycle[c] += bytes;
    if (t.stored_this_cycle == 0) m_stored_this_cycle.push_back(tile);
    t.stored_this_cycle |= static_cast<std::uint8_t>(1u << c);
  }
  void release(TileId tile, StorageCategory category, std::uint64_t bytes, Cycle now) {
    advance_to(now);
    const std::size_t c = index(category);
    TileState& t = m_tiles[tile];
    if (t.held[c] < bytes) throw_over_release(tile, category, bytes);
    t.held[c] -= bytes;
    m_total[c] -= bytes;
    m_weighted[c] += ByteCycles{bytes} * now;
  }
  // Closes the time integrals and the last cycle at `end` (the makespan). Further changes are a program
  // error.
  void finish(Cycle end);

  std::uint64_t bytes(TileId tile, StorageCategory category) const {
    return m_tiles[tile].held[index(category)];
  }
  std::uint64_t total(StorageCategory category) const { return m_total[index(category)]; }
  // Integral over time of the total held in `category` (byte-cycles). Final after finish(). Throws
  // CountLimitError naming the count (the run adds the options that make it large) if it reached 2^62
  // (kCountLimit, the largest count the simulator reports): it is summed exactly, so the test is exact too.
  std::uint64_t byte_cycles(StorageCategory category) const;
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
    std::uint8_t stored_this_cycle = 0;  // a bit per category
    static_assert(kStorageCategoryCount <= 8);
    // Bytes written per category in the open cycle, for overflow_cause().
    std::array<std::uint64_t, kStorageCategoryCount> written_this_cycle{};
    // Everything this tile holds (summed when a capacity is checked, not kept on the event path).
    std::uint64_t all() const {
      std::uint64_t sum = 0;
      for (std::uint64_t b : held) sum += b;
      return sum;
    }
  };
  // A change at `now`: closes the open cycle first if `now` is later.
  void advance_to(Cycle now) {
    if (now == m_cycle && !m_finished) return;  // most changes share their cycle with the one before
    if (now < m_cycle || m_finished) throw_bad_time();
    if (!m_stored_this_cycle.empty()) close_cycle();  // a cycle that only released raised no peak
    m_cycle = now;
  }
  // Folds what is held at the end of the open cycle into the peaks, and checks the capacity of the tiles
  // stored to in it. Only stores raise what is held: a cycle without any needs no closing.
  void close_cycle();
  [[noreturn]] void throw_bad_time() const;
  [[noreturn]] void throw_over_release(TileId tile, StorageCategory category, std::uint64_t bytes) const;
  void record_overflow(TileId tile, StorageCategory category, Cycle now);
  StorageCategory overflow_cause(const TileState& t) const;

  std::vector<TileState> m_tiles;
  std::uint64_t m_capacity;
  std::array<std::uint64_t, kStorageCategoryCount> m_total{};
  // The integral of the total over time, kept without stepping through time: each byte adds
  // (release cycle - store cycle), so a store subtracts bytes * now and a release (or finish) adds it.
  // Unsigned arithmetic wraps, and the final value is exact (it is a sum of non-negative terms) as long as
  // it stays below 2^128: 128 bits, so that an integral past 2^64 (at most bytes < 2^64 times cycles
  // < 2^64) is seen rather than wrapped. One wide multiply per change on the event path.
  // (__extension__: a GCC and Clang type that -Wpedantic would otherwise warn about in every file.)
  __extension__ typedef unsigned __int128 ByteCycles;
  std::array<ByteCycles, kStorageCategoryCount> m_weighted{};
  std::array<std::uint64_t, kStorageCategoryCount> m_peak_total{};
  std::vector<StorageOverflow> m_overflows;
  std::vector<TileId> m_stored_this_cycle;
  Cycle m_cycle = 0;  // the open cycle: of the last change
  bool m_finished = false;
};

}  // namespace spatialsim::sim
