#pragma once
// One matrix assembled on a tile from pieces that arrive in several messages (redistribution between
// partitions that do not match, or a gradient summed over several edges). Pieces are summed into place
// (disjoint pieces simply fill it); pieces that wait for the rest are counted as `transit` storage.
// Both programs gather this way: the network program's lane inputs and output gradients, and the
// reversible program's skip operands, lanes, reconstructions and gradients (the entry layer's too).
//
// Usage:
//   PieceGather<float> g;
//   if (g.add(engine, message, tokens, width, offset, expected, tile, /*consumed=*/true, with_values)) {
//     Gathered<float> x = g.finish(engine, tile, tag, with_values);   // g is empty again
//   }
//   // One gather per lane of every wavefront in flight, the wavefront's slot given back with its last one:
//   PieceGathers<float> lanes = mappings::item_slots<PieceGather<float>>(wavefronts, rows);
//   if (open_gather(lanes, wf, lane).add(engine, message, ...)) {
//     Gathered<float> x = close_gather(engine, lanes, wf, lane, tile, tag, with_values);  ...
//   }
//
// Value streams: a forward piece inside a forward-gradient trunk carries the primal and K tangents stacked
// by rows (1 + K streams of `tokens` rows), while its message counts the primal's bytes only (the tangents'
// ride in a companion message); a waiting piece holds all its streams.

#include <algorithm>
#include <cstdint>
#include <utility>

#include "mappings/values.h"
#include "mappings/wavefront_slots.h"
#include "sim/engine.h"

namespace spatialsim::workloads {

// A gathered matrix (null in counting mode), with the latest depth and ready cycle of its pieces.
template <typename T>
struct Gathered {
  mappings::ValuesPtr<T> values;
  std::uint32_t depth = 0;
  sim::Cycle ready = 0;
};

// A piece that is already on the tile rather than in a message: its values (null in counting mode), its
// stamps, its bytes (one stream) and the storage tag it waits under.
template <typename T>
struct GatherPiece {
  const sim::Matrix<T>* values = nullptr;
  std::uint32_t depth = 0;
  sim::Cycle ready = 0;
  std::uint64_t bytes = 0;
  std::uint32_t tag = 0;
};

template <typename T>
struct PieceGather {
  sim::Matrix<T> values;
  std::uint32_t pieces = 0;
  std::uint64_t held_bytes = 0;
  std::uint32_t depth = 0;
  sim::Cycle ready = 0;

  // Adds message m's piece at column `offset` of a (streams x tokens) x width matrix; returns whether it
  // was the `expected`-th. The piece is held as transit on `tile` (tag m.group) unless it completes the
  // matrix and the caller consumes it at once (`consumed`).
  bool add(sim::Engine& engine, const sim::Message& m, std::uint32_t tokens, std::uint32_t width,
           std::uint32_t offset, std::uint32_t expected, sim::TileId tile, bool consumed, bool with_values,
           std::uint32_t streams = 1) {
    if (with_values)
      sum_in(mappings::values_of<T>(engine.payload(m))->matrix, tokens * streams, width, offset);
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
  // As above, for a piece already on the tile. (The message add keeps its own few lines rather than
  // building a GatherPiece and calling this: that cost the event path its inlined Engine::store.)
  bool add(sim::Engine& engine, const GatherPiece<T>& piece, std::uint32_t tokens, std::uint32_t width,
           std::uint32_t offset, std::uint32_t expected, sim::TileId tile, bool consumed,
           std::uint32_t streams = 1) {
    if (piece.values != nullptr) sum_in(*piece.values, tokens * streams, width, offset);
    depth = std::max(depth, piece.depth);
    ready = std::max(ready, piece.ready);
    const bool complete = ++pieces == expected;
    if (!complete || !consumed) {
      const std::uint64_t bytes = piece.bytes * streams;
      engine.store(tile, sim::StorageCategory::transit, bytes, piece.tag);
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
  // Once complete: releases the waiting pieces' storage (on `tile`, under `tag`), hands the matrix over
  // and leaves the gather empty for its next use. Always inline: ReversibleProgram's handlers, which use
  // it per message, are not flattened.
  [[gnu::always_inline]] Gathered<T> finish(sim::Engine& engine, sim::TileId tile, std::uint32_t tag,
                                            bool with_values) {
    release(engine, tile, tag);
    Gathered<T> out{.values = take(with_values), .depth = depth, .ready = ready};
    *this = PieceGather{};
    return out;
  }

 private:
  // Sums a piece's values into place, making the matrix (rows x width) with the first piece.
  void sum_in(const sim::Matrix<T>& piece, std::uint32_t rows, std::uint32_t width, std::uint32_t offset) {
    if (pieces == 0) values = sim::Matrix<T>(rows, width);
    for (std::uint32_t t = 0; t < piece.rows(); ++t)
      for (std::uint32_t k = 0; k < piece.cols(); ++k) values(t, offset + k) += piece(t, k);
  }
};

// One gather per item (a lane, an output column) for each wavefront in flight.
template <typename T>
using PieceGathers = mappings::ItemSlots<PieceGather<T>>;

// Gather `item` of wavefront `wf`, for the caller to add a piece to; the wavefront takes a slot of
// `gathers` with the first piece of any of its gathers. open_gather and close_gather bracket the caller's
// add instead of one call taking the add as a callable: through a lambda, GCC left Engine::store out of
// line in NetworkProgram's flattened handler.
template <typename T>
[[gnu::always_inline]] inline PieceGather<T>& open_gather(PieceGathers<T>& gathers, std::uint32_t wf,
                                                          std::uint32_t item) {
  mappings::WavefrontItems<PieceGather<T>>& items = gathers.at(wf);
  PieceGather<T>& g = items.items[item];
  if (g.pieces == 0) ++items.open;
  return g;
}

// Once the piece added to open_gather(gathers, wf, item) completed it: finishes it on `tile` (under
// `tag`) and gives the wavefront's slot back when none of its gathers is open any more.
template <typename T>
[[gnu::always_inline]] inline Gathered<T> close_gather(sim::Engine& engine, PieceGathers<T>& gathers,
                                                       std::uint32_t wf, std::uint32_t item, sim::TileId tile,
                                                       std::uint32_t tag, bool with_values) {
  mappings::WavefrontItems<PieceGather<T>>& items = gathers.at(wf);
  Gathered<T> out = items.items[item].finish(engine, tile, tag, with_values);
  if (--items.open == 0) gathers.release(wf);
  return out;
}

}  // namespace spatialsim::workloads
