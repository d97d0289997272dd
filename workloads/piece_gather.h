#pragma once
// One matrix assembled on a tile from pieces that arrive in several messages (redistribution between
// partitions that do not match, or a gradient summed over several edges). Pieces are summed into place
// (disjoint pieces simply fill it); pieces that wait for the rest are counted as `transit` storage.
// Both programs gather this way: the network program's lane inputs and output gradients, and the
// reversible program's skip operands, lanes, reconstructions and gradients.
//
// Usage:
//   PieceGather<float> g;
//   if (g.add(engine, message, tokens, width, offset, expected, tile, /*consumed=*/true, with_values)) {
//     g.release(engine, tile, tag);  auto values = g.take(with_values);  g = {};
//   }
//
// Value streams: a forward piece inside a forward-gradient trunk carries the primal and K tangents stacked
// by rows (1 + K streams of `tokens` rows), while its message counts the primal's bytes only (the tangents'
// ride in a companion message); a waiting piece holds all its streams.

#include <algorithm>
#include <cstdint>

#include "mappings/values.h"
#include "sim/engine.h"

namespace spatialsim::workloads {

template <typename T>
struct PieceGather {
  sim::Matrix<T> values;
  std::uint32_t pieces = 0;
  std::uint64_t held_bytes = 0;
  std::uint32_t depth = 0;
  sim::Cycle ready = 0;

  // Adds message m's piece at column `offset` of a (streams x tokens) x width matrix; returns whether it
  // was the `expected`-th. The piece is held as transit on `tile` unless it completes the matrix and the
  // caller consumes it at once (`consumed`).
  bool add(sim::Engine& engine, const sim::Message& m, std::uint32_t tokens, std::uint32_t width,
           std::uint32_t offset, std::uint32_t expected, sim::TileId tile, bool consumed, bool with_values,
           std::uint32_t streams = 1) {
    if (with_values) {
      if (pieces == 0) values = sim::Matrix<T>(tokens * streams, width);
      const sim::Matrix<T>& piece = mappings::values_of<T>(engine.payload(m))->matrix;
      for (std::uint32_t t = 0; t < piece.rows(); ++t)
        for (std::uint32_t k = 0; k < piece.cols(); ++k) values(t, offset + k) += piece(t, k);
    }
    depth = std::max(depth, m.depth);
    ready = std::max(ready, engine.now());
    const bool complete = ++pieces == expected;
    if (!complete || !consumed) {
      const std::uint64_t bytes = m.bytes * streams;
      engine.store(tile, sim::StorageCategory::transit, bytes, m.group);
      held_bytes += bytes;
    }
    return complete;
  }
  // Releases the transit storage of the pieces that waited.
  void release(sim::Engine& engine, sim::TileId tile, std::uint32_t tag) {
    if (held_bytes != 0) engine.release(tile, sim::StorageCategory::transit, held_bytes, tag);
    held_bytes = 0;
  }
  mappings::ValuesPtr<T> take(bool with_values) {
    return with_values ? mappings::make_values(std::move(values)) : nullptr;
  }
};

}  // namespace spatialsim::workloads
