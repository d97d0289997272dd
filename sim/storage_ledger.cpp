#include "sim/storage_ledger.h"

#include <stdexcept>
#include <string>

namespace spatialsim::sim {

StorageLedger::StorageLedger(std::uint32_t tile_count, std::uint64_t capacity_bytes_per_tile)
    : m_tiles(tile_count), m_capacity(capacity_bytes_per_tile) {}

void StorageLedger::advance_to(Cycle now) {
  if (m_finished) throw std::logic_error("storage ledger: change after finish()");
  if (now < m_last_change) throw std::logic_error("storage ledger: change in the past");
  const Cycle dt = now - m_last_change;
  if (dt != 0) {
    for (std::size_t c = 0; c < kStorageCategoryCount; ++c) m_byte_cycles[c] += m_total[c] * dt;
    m_last_change = now;
  }
}

void StorageLedger::add(TileId tile, StorageCategory category, std::uint64_t bytes, Cycle now) {
  advance_to(now);
  const std::size_t c = index(category);
  TileState& t = m_tiles[tile];
  t.held[c] += bytes;
  t.all += bytes;
  m_total[c] += bytes;
  if (t.held[c] > t.peak[c]) t.peak[c] = t.held[c];
  if (t.held[c] > m_peak_tile[c]) m_peak_tile[c] = t.held[c];
  if (m_total[c] > m_peak_total[c]) m_peak_total[c] = m_total[c];
  if (m_capacity != 0 && t.all > m_capacity) {
    const std::uint64_t excess = t.all - m_capacity;
    if (t.overflow_index < 0) {
      t.overflow_index = static_cast<std::int64_t>(m_overflows.size());
      m_overflows.push_back({tile, category, excess, now});
    } else if (excess > m_overflows[static_cast<std::size_t>(t.overflow_index)].excess_bytes) {
      m_overflows[static_cast<std::size_t>(t.overflow_index)].excess_bytes = excess;
    }
  }
}

void StorageLedger::release(TileId tile, StorageCategory category, std::uint64_t bytes, Cycle now) {
  advance_to(now);
  const std::size_t c = index(category);
  TileState& t = m_tiles[tile];
  if (t.held[c] < bytes) {
    throw std::logic_error("storage ledger: tile " + std::to_string(tile) + " releases " +
                           std::to_string(bytes) + " bytes of " + std::string(name(category)) +
                           " but holds " + std::to_string(t.held[c]));
  }
  t.held[c] -= bytes;
  t.all -= bytes;
  m_total[c] -= bytes;
}

void StorageLedger::finish(Cycle end) {
  advance_to(end);
  m_finished = true;
}

}  // namespace spatialsim::sim
