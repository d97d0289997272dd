#include "sim/storage_ledger.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "sim/counters.h"

namespace spatialsim::sim {

StorageLedger::StorageLedger(std::uint32_t tile_count, std::uint64_t capacity_bytes_per_tile)
    : m_tiles(tile_count), m_capacity(capacity_bytes_per_tile) {}

void StorageLedger::throw_bad_time() const {
  if (m_finished) throw std::logic_error("storage ledger: change after finish()");
  throw std::logic_error("storage ledger: change in the past");
}

void StorageLedger::throw_over_release(TileId tile, StorageCategory category, std::uint64_t bytes) const {
  throw std::logic_error("storage ledger: tile " + std::to_string(tile) + " releases " +
                         std::to_string(bytes) + " bytes of " + std::string(name(category)) + " but holds " +
                         std::to_string(m_tiles[tile].held[index(category)]));
}

void StorageLedger::record_overflow(TileId tile, StorageCategory category, Cycle now) {
  TileState& t = m_tiles[tile];
  const std::uint64_t excess = t.all() - m_capacity;
  if (t.overflow_index < 0) {
    t.overflow_index = static_cast<std::int64_t>(m_overflows.size());
    m_overflows.push_back({tile, category, excess, now});
  } else if (excess > m_overflows[static_cast<std::size_t>(t.overflow_index)].excess_bytes) {
    m_overflows[static_cast<std::size_t>(t.overflow_index)].excess_bytes = excess;
  }
}

// The category an overflow is put down to, from the writes of the cycle the tile ended over the capacity
// (they happen together, so their order cannot decide): the first category, in category order, whose
// writes alone would have taken the tile over, that is with everything it holds at the cycle's end but the
// other categories' writes of the cycle; if no one category would have, the one most written.
StorageCategory StorageLedger::overflow_cause(const TileState& t) const {
  std::uint64_t written = 0;
  for (std::uint64_t b : t.written_this_cycle) written += b;
  const std::uint64_t held = t.all();
  for (std::size_t c = 0; c < kStorageCategoryCount; ++c)
    if (t.written_this_cycle[c] > 0 && held + t.written_this_cycle[c] > m_capacity + written)  // no wrap
      return static_cast<StorageCategory>(c);
  const auto most = std::max_element(t.written_this_cycle.begin(), t.written_this_cycle.end());
  return static_cast<StorageCategory>(most - t.written_this_cycle.begin());
}

void StorageLedger::close_cycle() {
  for (std::size_t c = 0; c < kStorageCategoryCount; ++c)
    m_peak_total[c] = std::max(m_peak_total[c], m_total[c]);
  for (TileId tile : m_stored_this_cycle) {
    TileState& t = m_tiles[tile];
    for (std::size_t c = 0; c < kStorageCategoryCount; ++c)
      if ((t.stored_this_cycle >> c) & 1u) t.peak[c] = std::max(t.peak[c], t.held[c]);
    if (m_capacity != 0 && t.all() > m_capacity) record_overflow(tile, overflow_cause(t), m_cycle);
    t.written_this_cycle.fill(0);
    t.stored_this_cycle = 0;
  }
  m_stored_this_cycle.clear();
}

std::uint64_t StorageLedger::peak_tile(StorageCategory category) const {
  std::uint64_t peak = 0;
  for (const TileState& t : m_tiles) peak = std::max(peak, t.peak[index(category)]);
  return peak;
}

std::uint64_t StorageLedger::byte_cycles(StorageCategory category) const {
  const ByteCycles v = m_weighted[index(category)];
  if (static_cast<long double>(v) >= kCountLimit) {
    throw CountLimitError(count_past_limit(category == StorageCategory::stash
                                               ? "inflight_byte_cycles"
                                               : std::string(name(category)) + " byte-cycles"));
  }
  return static_cast<std::uint64_t>(v);
}

void StorageLedger::finish(Cycle end) {
  advance_to(end);
  close_cycle();
  for (std::size_t c = 0; c < kStorageCategoryCount; ++c) m_weighted[c] += ByteCycles{m_total[c]} * end;
  m_finished = true;
}

}  // namespace spatialsim::sim
