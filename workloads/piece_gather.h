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
//   if (auto x = gather_item(engine, lanes, wf, lane, tile, tag, with_values,
//                            [&](PieceGather<float>& g) { return g.add(engine, message, ...); }))
//     use(x->values, x->depth, x->ready);
//
// Value streams: a forward piece inside a forward-gradient trunk carries the primal and K tangents stacked
// by rows (1 + K streams of `tokens` rows), while its message counts the primal's bytes only (the tangents'
// ride in a companion message); a waiting piece holds all its streams.

#include <algorithm>
#include <cstdint>
#include <optional>
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
    return add(
        engine,
        GatherPiece<T>{.values = with_values ? &mappings::values_of<T>(engine.payload(m))->matrix : nullptr,
                       .depth = m.depth,
                       .ready = engine.now(),
                       .bytes = m.bytes,
                       .tag = m.group},
        tokens, width, offset, expected, tile, consumed, streams);
  }
  // As above, for a piece already on the tile.
  bool add(sim::Engine& engine, const GatherPiece<T>& piece, std::uint32_t tokens, std::uint32_t width,
           std::uint32_t offset, std::uint32_t expected, sim::TileId tile, bool consumed,
           std::uint32_t streams = 1) {
    if (piece.values != nullptr) {
      if (pieces == 0) values = sim::Matrix<T>(tokens * streams, width);
      const sim::Matrix<T>& v = *piece.values;
      for (std::uint32_t t = 0; t < v.rows(); ++t)
        for (std::uint32_t k = 0; k < v.cols(); ++k) values(t, offset + k) += v(t, k);
    }
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
  // and leaves the gather empty for its next use.
  Gathered<T> finish(sim::Engine& engine, sim::TileId tile, std::uint32_t tag, bool with_values) {
    release(engine, tile, tag);
    Gathered<T> out{.values = take(with_values), .depth = depth, .ready = ready};
    *this = PieceGather{};
    return out;
  }
};

// One gather per item (a lane, an output column) for each wavefront in flight.
template <typename T>
using PieceGathers = mappings::ItemSlots<PieceGather<T>>;

// Adds a piece to gather `item` of wavefront `wf` through `add_piece`, a callable that takes the
// PieceGather<T>&, adds the piece with one of its add()s and returns whether that completed it. The
// wavefront holds a slot of `gathers` while any of its gathers is open. Returns the matrix once complete
// (finished on `tile` under `tag`), else nothing. Inline: it is on the event path.
template <typename T, typename AddPiece>
std::optional<Gathered<T>> gather_item(sim::Engine& engine, PieceGathers<T>& gathers, std::uint32_t wf,
                                       std::uint32_t item, sim::TileId tile, std::uint32_t tag,
                                       bool with_values, AddPiece&& add_piece) {
  mappings::WavefrontItems<PieceGather<T>>& items = gathers.at(wf);
  PieceGather<T>& g = items.items[item];
  if (g.pieces == 0) ++items.open;
  if (!add_piece(g)) return std::nullopt;
  Gathered<T> out = g.finish(engine, tile, tag, with_values);
  if (--items.open == 0) gathers.release(wf);
  return out;
}

}  // namespace spatialsim::workloads
