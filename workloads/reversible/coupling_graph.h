#pragma once
// Where a reversible model's trunk values live on the grid and which way they move (docs/reversible.md).
//
// The trunk state after coupling block k is two halves a_k and b_k (a_0, b_0: the entry layer's output,
// split in two). Each value has a home, the output tiles of the layer that computes it: F_k's for a_k,
// G_k's for b_k, and the entry layer's for a_0 and b_0 (each entry column holds the part of its range that
// falls in that half). An edge carries a value from its home to a consumer: the lanes of a layer (F_k reads
// b_{k-1}, G_k reads a_k, the exit layer reads a_L and b_L), or, for a skip addition, the output tiles of
// the layer whose output it is added to (a_{k-1} meets F_k(b_{k-1}) on F_k's output tiles, b_{k-1} meets
// G_k(a_k) on G_k's). Each edge is one redistribution plan; the backward pass runs the same plans in
// reverse (gradients; reconstructed values going home) or forward again (values resent for a recompute).
//
// Feature ranges are in half coordinates (0 .. d/2 within a or b). Pure topology: no engine, no values.
//
// Usage:
//   CouplingGraph graph(blocks, d, row_ranges, col_ranges);   // per dense layer, CouplingLayers order
//   for (std::uint32_t e : graph.out_edges(CouplingGraph::a(k))) graph.edge(e).plan.by_col[j] ...

#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "mappings/partition.h"
#include "mappings/redistribution.h"
#include "workloads/reversible/reversible_model.h"

namespace spatialsim::workloads::reversible {

enum class Consumer : std::uint8_t { lanes, skip };

struct CouplingEdge {
  std::uint32_t value = 0;  // the producer: its home columns are the plan's producer columns
  Consumer consumer = Consumer::lanes;
  std::uint32_t layer = 0;       // lanes: the layer reading the value; skip: the layer whose outputs it meets
  std::uint32_t skip_value = 0;  // skip: the value computed there (whose home the consumer columns are)
  std::vector<mappings::Range> consumer_ranges;  // per consumer row (lanes) or column (skip)
  std::vector<std::uint32_t> consumer_offset;    // where consumer_ranges[i] begins in that row's matrix
  mappings::RedistributionPlan plan;
};

class CouplingGraph {
 public:
  static constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
  static constexpr std::uint32_t a(std::uint32_t k) { return 2 * k; }
  static constexpr std::uint32_t b(std::uint32_t k) { return 2 * k + 1; }
  static constexpr std::uint32_t stage(std::uint32_t value) { return value / 2; }  // k of a_k, b_k
  static constexpr bool is_a(std::uint32_t value) { return value % 2 == 0; }

  // Contract: row_ranges[l] and col_ranges[l] are layer l's I_i and J_j (CouplingLayers order); the entry
  // layer's columns cover 0..d, the exit layer's rows 0..d, F's and G's rows and columns 0..d/2.
  CouplingGraph(std::uint32_t blocks, std::uint32_t width,
                const std::vector<std::vector<mappings::Range>>& row_ranges,
                const std::vector<std::vector<mappings::Range>>& col_ranges);

  const CouplingLayers& layers() const { return m_layers; }
  std::uint32_t value_count() const { return 2 * m_layers.blocks + 2; }
  bool is_last(std::uint32_t value) const { return stage(value) == m_layers.blocks; }
  std::uint32_t home_layer(std::uint32_t value) const;
  // The value whose home is `layer`'s output tiles (F_k: a_k, G_k: b_k); kNone for entry and exit.
  std::uint32_t value_of_layer(std::uint32_t layer) const;
  const std::vector<mappings::Range>& home_ranges(std::uint32_t value) const { return m_home_ranges[value]; }
  // Where home_ranges(value)[j] begins in home column j's output matrix (non-zero only on the entry layer).
  std::uint32_t home_offset(std::uint32_t value, std::uint32_t j) const { return m_home_offset[value][j]; }

  const CouplingEdge& edge(std::uint32_t id) const { return m_edges[id]; }
  // Every edge's transfers, numbered in one sequence: a message names its edge and transfer in one field
  // (Message::slot), so that Message::group can name the layer it reaches, as everywhere else.
  struct TransferRef {
    std::uint32_t edge = 0;
    std::uint32_t transfer = 0;  // index into edge(edge).plan.transfers
  };
  std::uint32_t transfer_slot(std::uint32_t edge, std::uint32_t transfer) const {
    return m_first_transfer[edge] + transfer;
  }
  // The edge a message's slot names, and its transfer.
  std::pair<const CouplingEdge&, const mappings::Transfer&> edge_and_transfer(std::uint32_t slot) const {
    const TransferRef& ref = m_transfers[slot];
    const CouplingEdge& e = m_edges[ref.edge];
    return {e, e.plan.transfers[ref.transfer]};
  }
  const std::vector<std::uint32_t>& out_edges(std::uint32_t value) const { return m_out[value]; }
  const std::vector<std::uint32_t>& lanes_into(std::uint32_t layer) const { return m_lanes_into[layer]; }
  std::uint32_t skip_into(std::uint32_t value) const { return m_skip_into[value]; }  // kNone for a_0, b_0

  // Pieces arriving at lane `row` of `layer` (over all edges into it).
  std::uint32_t lane_pieces(std::uint32_t layer, std::uint32_t row) const;
  // Skip pieces meeting the layer output on home column j of `value`.
  std::uint32_t skip_pieces(std::uint32_t value, std::uint32_t j) const;
  // Gradient pieces returning to home column j of `value` (over all its edges, reversed).
  std::uint32_t gradient_pieces(std::uint32_t value, std::uint32_t j) const;
  // Reconstructed pieces returning to home column j of `value` along its outgoing skip edge, reversed.
  std::uint32_t return_pieces(std::uint32_t value, std::uint32_t j) const;

 private:
  std::uint32_t add_edge(CouplingEdge edge, const std::vector<mappings::Range>& producer);

  CouplingLayers m_layers;
  std::vector<std::vector<mappings::Range>> m_home_ranges;
  std::vector<std::vector<std::uint32_t>> m_home_offset;
  std::vector<CouplingEdge> m_edges;
  std::vector<std::uint32_t> m_first_transfer;  // per edge: its first transfer's slot
  std::vector<TransferRef> m_transfers;         // per slot
  std::vector<std::vector<std::uint32_t>> m_out;
  std::vector<std::vector<std::uint32_t>> m_lanes_into;
  std::vector<std::uint32_t> m_skip_into;
  std::vector<std::uint32_t> m_skip_out;
};

}  // namespace spatialsim::workloads::reversible
