#include "workloads/forward_gradient/tangent_scalars.h"

#include <algorithm>
#include <stdexcept>

#include "mappings/values.h"

namespace spatialsim::workloads {

template <typename T>
TangentScalars<T>::TangentScalars(TangentScalarsSetup setup, const sim::Grid& grid, ScalarListener& listener)
    : m_setup(std::move(setup)), m_listener(listener) {
  if (m_setup.holders.empty()) throw std::logic_error("tangent scalars: no holder tiles");
  const sim::TileId root = m_setup.holders.back();
  m_reduce = mappings::build_scalar_tree(grid, root, m_setup.holders);
  m_broadcast = mappings::build_scalar_tree(grid, root, m_setup.trunk_tiles);
  for (sim::TileId t : m_setup.holders) m_holder_member.push_back(m_reduce.index_of(t));
  reset();
}

template <typename T>
void TangentScalars<T>::reset() {
  m_nodes.assign(m_reduce.members.size(), Node{});
  for (Node& n : m_nodes) n.sum.assign(m_setup.with_values ? m_setup.tangents : 0, 0.0);
  m_totals.clear();
}

template <typename T>
void TangentScalars<T>::add(Node& node, const std::vector<double>& values, std::uint32_t depth,
                            sim::Cycle ready) {
  for (std::size_t k = 0; k < values.size(); ++k) node.sum[k] += values[k];
  node.depth = std::max(node.depth, depth);
  node.ready = std::max(node.ready, ready);
}

template <typename T>
void TangentScalars<T>::add_share(sim::Engine& engine, std::uint32_t holder,
                                  const std::vector<double>& shares, std::uint32_t depth, sim::Cycle ready) {
  const std::uint32_t member = m_holder_member.at(holder);
  Node& node = m_nodes[member];
  add(node, shares, depth, ready);
  ++node.shares;
  try_reduce(engine, member);
}

template <typename T>
void TangentScalars<T>::try_reduce(sim::Engine& engine, std::uint32_t member) {
  Node& node = m_nodes[member];
  // Holders wait for every wavefront; relays of the tree (holders only, here) for every child.
  if (node.shares < m_setup.wavefronts || node.children < m_reduce.children[member].size()) return;
  if (member == 0) {
    m_totals = node.sum;
    broadcast(engine, 0, node.sum, node.depth, node.ready);
    return;
  }
  const auto parent = static_cast<std::uint32_t>(m_reduce.parent[member]);
  send(engine, m_setup.reduce_port, m_reduce.members[member], m_reduce.members[parent], parent, node.sum,
       node.depth, node.ready);
}

template <typename T>
void TangentScalars<T>::broadcast(sim::Engine& engine, std::uint32_t member, const std::vector<double>& d,
                                  std::uint32_t depth, sim::Cycle ready) {
  for (std::uint32_t child : m_broadcast.children[member])
    send(engine, m_setup.broadcast_port, m_broadcast.members[member], m_broadcast.members[child], child, d,
         depth, ready);
  m_listener.on_scalars(engine, m_broadcast.members[member], d, depth, ready);
}

template <typename T>
void TangentScalars<T>::send(sim::Engine& engine, std::uint32_t port, sim::TileId from, sim::TileId to,
                             std::uint32_t slot, const std::vector<double>& d, std::uint32_t depth,
                             sim::Cycle ready) {
  mappings::ValuesPtr<T> payload;
  if (m_setup.with_values) {  // the scalars travel at the arithmetic precision
    sim::Matrix<T> m(1, m_setup.tangents);
    for (std::uint32_t k = 0; k < m_setup.tangents; ++k) m(0, k) = static_cast<T>(d[k]);
    payload = mappings::make_values(std::move(m));
  }
  engine.send(sim::Message{.src = from,
                           .dst = to,
                           .bytes = std::uint64_t{m_setup.bytes_per_scalar} * m_setup.tangents,
                           .kind = sim::MessageKind::scalar,
                           .phase = sim::Phase::backward,
                           .depth = depth,
                           .port = port,
                           .group = m_setup.group,
                           .slot = slot},
              ready, std::move(payload));
}

template <typename T>
void TangentScalars<T>::on_message(sim::Engine& engine, const sim::Message& m) {
  std::vector<double> d;
  if (m_setup.with_values) {
    const auto v = mappings::values_of<T>(engine.payload(m));
    for (std::uint32_t k = 0; k < m_setup.tangents; ++k) d.push_back(static_cast<double>(v->matrix(0, k)));
  }
  if (m.port == m_setup.reduce_port) {
    Node& node = m_nodes[m.slot];
    add(node, d, m.depth, engine.now());
    ++node.children;
    try_reduce(engine, m.slot);
  } else if (m.port == m_setup.broadcast_port) {
    broadcast(engine, m.slot, d, m.depth, engine.now());
  } else {
    throw std::logic_error("tangent scalars: unknown port");
  }
}

template class TangentScalars<float>;
template class TangentScalars<double>;

}  // namespace spatialsim::workloads
