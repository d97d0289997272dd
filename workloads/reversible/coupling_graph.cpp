#include "workloads/reversible/coupling_graph.h"

#include <algorithm>
#include <stdexcept>

namespace spatialsim::workloads::reversible {
namespace {

using mappings::Range;

// The part of r inside [lo, hi), in coordinates relative to lo ({0, 0} when disjoint), and where that
// part begins within r.
struct Clipped {
  Range range;
  std::uint32_t offset = 0;
};
Clipped clip(Range r, std::uint32_t lo, std::uint32_t hi) {
  const Range part = mappings::intersect(r, Range{lo, hi - lo});
  if (part.size == 0) return {};
  return {Range{part.begin - lo, part.size}, part.begin - r.begin};
}

}  // namespace

CouplingGraph::CouplingGraph(std::uint32_t blocks, std::uint32_t width,
                             const std::vector<std::vector<Range>>& row_ranges,
                             const std::vector<std::vector<Range>>& col_ranges)
    : m_layers{blocks} {
  if (blocks == 0 || width % 2 != 0) throw std::logic_error("coupling graph: needs L >= 1 and an even width");
  if (row_ranges.size() != m_layers.count() || col_ranges.size() != m_layers.count())
    throw std::logic_error("coupling graph: one range list per dense layer expected");
  const std::uint32_t h = width / 2;
  const std::uint32_t n = value_count();
  m_home_ranges.resize(n);
  m_home_offset.resize(n);
  m_out.resize(n);
  m_lanes_into.resize(m_layers.count());
  m_skip_into.assign(n, kNone);
  m_skip_out.assign(n, kNone);
  for (std::uint32_t v = 0; v < n; ++v) {
    const auto& cols = col_ranges[home_layer(v)];
    for (const Range& J : cols) {
      if (stage(v) == 0) {  // entry columns span both halves: keep this value's part
        const Clipped c = is_a(v) ? clip(J, 0, h) : clip(J, h, width);
        m_home_ranges[v].push_back(c.range);
        m_home_offset[v].push_back(c.offset);
      } else {
        m_home_ranges[v].push_back(J);
        m_home_offset[v].push_back(0);
      }
    }
  }
  auto unclipped = [](const std::vector<Range>& ranges) {
    CouplingEdge e;
    e.consumer_ranges = ranges;
    e.consumer_offset.assign(ranges.size(), 0);
    return e;
  };
  for (std::uint32_t k = 1; k <= blocks; ++k) {
    const std::uint32_t F = m_layers.f(k);
    const std::uint32_t G = m_layers.g(k);
    CouplingEdge e = unclipped(col_ranges[F]);  // a_{k-1} + F_k(b_{k-1}) on F_k's output tiles
    e.value = a(k - 1), e.consumer = Consumer::skip, e.layer = F, e.skip_value = a(k);
    add_edge(std::move(e), m_home_ranges[a(k - 1)]);
    e = unclipped(row_ranges[F]);  // F_k reads b_{k-1}
    e.value = b(k - 1), e.consumer = Consumer::lanes, e.layer = F;
    add_edge(std::move(e), m_home_ranges[b(k - 1)]);
    e = unclipped(col_ranges[G]);  // b_{k-1} + G_k(a_k) on G_k's output tiles
    e.value = b(k - 1), e.consumer = Consumer::skip, e.layer = G, e.skip_value = b(k);
    add_edge(std::move(e), m_home_ranges[b(k - 1)]);
    e = unclipped(row_ranges[G]);  // G_k reads a_k
    e.value = a(k), e.consumer = Consumer::lanes, e.layer = G;
    add_edge(std::move(e), m_home_ranges[a(k)]);
  }
  for (const bool first_half : {true, false}) {  // the exit layer reads [a_L b_L]
    CouplingEdge e;
    e.value = first_half ? a(blocks) : b(blocks);
    e.consumer = Consumer::lanes;
    e.layer = m_layers.exit();
    for (const Range& I : row_ranges[m_layers.exit()]) {
      const Clipped c = first_half ? clip(I, 0, h) : clip(I, h, width);
      e.consumer_ranges.push_back(c.range);
      e.consumer_offset.push_back(c.offset);
    }
    add_edge(std::move(e), m_home_ranges[first_half ? a(blocks) : b(blocks)]);
  }
}

std::uint32_t CouplingGraph::add_edge(CouplingEdge edge, const std::vector<Range>& producer) {
  edge.plan = mappings::plan_redistribution(producer, edge.consumer_ranges);
  const auto id = static_cast<std::uint32_t>(m_edges.size());
  m_out[edge.value].push_back(id);
  if (edge.consumer == Consumer::lanes) {
    m_lanes_into[edge.layer].push_back(id);
  } else {
    m_skip_into[edge.skip_value] = id;
    m_skip_out[edge.value] = id;
  }
  m_first_transfer.push_back(static_cast<std::uint32_t>(m_transfers.size()));
  for (std::uint32_t t = 0; t < edge.plan.transfers.size(); ++t) m_transfers.push_back({id, t});
  m_edges.push_back(std::move(edge));
  return id;
}

std::uint32_t CouplingGraph::home_layer(std::uint32_t value) const {
  const std::uint32_t k = stage(value);
  if (k == 0) return CouplingLayers::entry();
  return is_a(value) ? m_layers.f(k) : m_layers.g(k);
}

std::uint32_t CouplingGraph::value_of_layer(std::uint32_t layer) const {
  if (layer == CouplingLayers::entry() || layer == m_layers.exit()) return kNone;
  const std::uint32_t k = (layer + 1) / 2;
  return layer % 2 == 1 ? a(k) : b(k);
}

std::uint32_t CouplingGraph::lane_pieces(std::uint32_t layer, std::uint32_t row) const {
  std::uint32_t n = 0;
  for (std::uint32_t e : m_lanes_into[layer]) n += m_edges[e].plan.pieces_per_row[row];
  return n;
}

std::uint32_t CouplingGraph::skip_pieces(std::uint32_t value, std::uint32_t j) const {
  return m_skip_into[value] == kNone ? 0 : m_edges[m_skip_into[value]].plan.pieces_per_row[j];
}

std::uint32_t CouplingGraph::gradient_pieces(std::uint32_t value, std::uint32_t j) const {
  std::uint32_t n = 0;
  for (std::uint32_t e : m_out[value]) n += m_edges[e].plan.pieces_per_col[j];
  return n;
}

std::uint32_t CouplingGraph::return_pieces(std::uint32_t value, std::uint32_t j) const {
  return m_skip_out[value] == kNone ? 0 : m_edges[m_skip_out[value]].plan.pieces_per_col[j];
}

}  // namespace spatialsim::workloads::reversible
