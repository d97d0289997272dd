#pragma once
// Basic vocabulary of the engine: ids, time, and the enums that index every counter.
// The labels are MODEL.md section 3's: the kinds, phases and storage categories the counts are reported
// by, which is why their comments speak of layers and gradients. The engine only indexes counters with
// whatever label the caller gives (a fixed list, so no string lookups on the event path) and never
// branches on one, except to report the stash category's integral and peaks (Engine::finish). The collective
// kernels (kernels/), which have no layers, label their messages with the nearest kind (docs/kernels.md).

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace spatialsim::sim {

using Cycle = std::uint64_t;

// ceil(x / d) for d > 0, without the overflow of (x + d - 1) / d: a rate near 2^64 (link bytes or flops
// per cycle) made that 0 cycles.
constexpr std::uint64_t ceil_div(std::uint64_t x, std::uint64_t d) {
  return x / d + (x % d != 0);
}
using TileId = std::uint32_t;
inline constexpr TileId kHostTile = 0xFFFFFFFFu;  // the host at the grid edge (inputs, targets, outputs)

enum class MessageKind : std::uint8_t {
  lane,            // a layer's input along its lane (forward), its output gradient down a column (backward)
  psum,            // partial sums accumulated along a column (forward) or a row (backward)
  rebroadcast,     // stashed inputs sent along the lane again for the weight gradient
  redistribution,  // values moved between the blocks of consecutive layers
  scalar,          // reductions and broadcasts of scalars (softmax statistics, forward-gradient d_k)
  host,            // traffic between the host and the grid edge
  tangent,         // tangent (JVP) streams riding with the forward pass
};
inline constexpr std::size_t kMessageKindCount = 7;

enum class Phase : std::uint8_t { forward, backward, recompute, update };
inline constexpr std::size_t kPhaseCount = 4;

// What a tile's memory holds, by purpose. `stash` is what the in-flight counters integrate.
// Everything a schedule keeps from its forward pass for its backward pass is `stash`, whatever it is
// (activations, or split-fg's tangents at the split).
enum class StorageCategory : std::uint8_t { weights, optimizer, stash, transit };
inline constexpr std::size_t kStorageCategoryCount = 4;

inline constexpr std::array<std::string_view, kMessageKindCount> kMessageKindNames = {
    "lane", "psum", "rebroadcast", "redistribution", "scalar", "host", "tangent"};
inline constexpr std::array<std::string_view, kPhaseCount> kPhaseNames = {"forward", "backward", "recompute",
                                                                          "update"};
inline constexpr std::array<std::string_view, kStorageCategoryCount> kStorageCategoryNames = {
    "weights", "optimizer", "stash", "transit"};

constexpr std::size_t index(MessageKind k) {
  return static_cast<std::size_t>(k);
}
constexpr std::size_t index(Phase p) {
  return static_cast<std::size_t>(p);
}
constexpr std::size_t index(StorageCategory c) {
  return static_cast<std::size_t>(c);
}
constexpr std::string_view name(MessageKind k) {
  return kMessageKindNames[index(k)];
}
constexpr std::string_view name(Phase p) {
  return kPhaseNames[index(p)];
}
constexpr std::string_view name(StorageCategory c) {
  return kStorageCategoryNames[index(c)];
}

// A table of T indexed by (phase, kind): the natural shape of traffic counters (Timeloop's PerDataSpace).
template <typename T>
struct PerPhaseKind {
  std::array<std::array<T, kMessageKindCount>, kPhaseCount> cells{};

  T& at(Phase p, MessageKind k) { return cells[index(p)][index(k)]; }
  const T& at(Phase p, MessageKind k) const { return cells[index(p)][index(k)]; }
  T phase_total(Phase p) const {
    T sum{};
    for (const T& v : cells[index(p)]) sum += v;
    return sum;
  }
  T kind_total(MessageKind k) const {
    T sum{};
    for (const auto& row : cells) sum += row[index(k)];
    return sum;
  }
  T total() const {
    T sum{};
    for (const auto& row : cells)
      for (const T& v : row) sum += v;
    return sum;
  }
  bool operator==(const PerPhaseKind&) const = default;
};

}  // namespace spatialsim::sim
