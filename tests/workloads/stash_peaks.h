#pragma once
// The peaks of a stash timeline worked out by hand in a test: every slice held from one cycle until
// another, on some tile, summed per cycle. The level a peak reads is the one at the end of a cycle, once all
// of that cycle's stores and releases are made (MODEL.md section 3; docs/model.md, "Storage": the order of
// a cycle's events does not count), so a slice stored and released in the same cycle never shows.
//
// Usage:
//   StashPeaks<std::pair<int, int>> peaks;
//   peaks.hold({x, y}, stored_cycle, released_cycle, bytes);   // once per slice and wavefront
//   EXPECT_EQ(result.counters.peak_stash_bytes, peaks.total());
//   EXPECT_EQ(result.counters.peak_tile_stash_bytes, peaks.per_tile());

#include <algorithm>
#include <cstdint>
#include <map>

namespace spatialsim::testing_support {

template <typename Tile>
class StashPeaks {
 public:
  void hold(const Tile& tile, std::uint64_t stored, std::uint64_t released, std::int64_t bytes) {
    for (Changes* changes : {&m_total, &m_per_tile[tile]}) {
      (*changes)[stored] += bytes;
      (*changes)[released] -= bytes;
    }
  }
  // The most held at the end of any cycle, over all tiles.
  std::uint64_t total() const { return peak_of(m_total); }
  // The most any one tile held at the end of any cycle.
  std::uint64_t per_tile() const {
    std::uint64_t peak = 0;
    for (const auto& [tile, changes] : m_per_tile) peak = std::max(peak, peak_of(changes));
    return peak;
  }

 private:
  using Changes = std::map<std::uint64_t, std::int64_t>;  // cycle -> net change of that cycle

  static std::uint64_t peak_of(const Changes& changes) {
    std::int64_t held = 0, peak = 0;
    for (const auto& [cycle, change] : changes) peak = std::max(peak, held += change);
    return static_cast<std::uint64_t>(peak);
  }

  Changes m_total;
  std::map<Tile, Changes> m_per_tile;
};

}  // namespace spatialsim::testing_support
