// NetworkProgram's forward-gradient part (docs/forward-gradients.md): the step's tangents, the tangent
// bytes of redistributed pieces, the split-fg stash of dh_k, the K scalars, and the estimate each trunk
// tile forms on its own slice.

#include <stdexcept>

#include "workloads/network_program.h"

namespace spatialsim::workloads {

using mappings::make_values;
using mappings::Range;
using mappings::ValuesPtr;
using sim::Cycle;
using sim::Phase;
using sim::StorageCategory;

template <typename T>
void NetworkProgram<T>::setup_forward_gradient() {
  const auto& split = *m_blocks[m_trunk - 1];
  TangentScalarsSetup ts;
  ts.tangents = m_fg->tangents;
  ts.wavefronts = static_cast<std::uint32_t>(m_setup.wavefront_tokens.size());
  for (std::uint32_t j = 0; j < split.spec().layout.cols; ++j) ts.holders.push_back(split.output_tile(j));
  m_trunk_slices.assign(m_grid.tile_count(), {});
  for (std::uint32_t l = 0; l < m_trunk; ++l) {
    const auto& tiles = m_blocks[l]->tiles();
    for (std::uint32_t k = 0; k < tiles.size(); ++k) m_trunk_slices[tiles[k].id].push_back({l, k});
  }
  for (sim::TileId tile = 0; tile < m_trunk_slices.size(); ++tile)  // the broadcast tree, by ascending id
    if (!m_trunk_slices[tile].empty()) ts.trunk_tiles.push_back(tile);
  ts.bytes_per_scalar = m_setup.bytes.partial_sum;
  ts.reduce_port = port_id(Port::scalar_reduce);
  ts.broadcast_port = port_id(Port::scalar_broadcast);
  ts.group = m_trunk - 1;
  ts.with_values = m_setup.with_values;
  m_scalars = std::make_unique<TangentScalars<T>>(std::move(ts), m_grid, *this);
  m_split_tangents.assign(m_setup.wavefront_tokens.size() * split.spec().layout.cols, nullptr);
}

template <typename T>
void NetworkProgram<T>::begin_forward_gradient_step() {
  m_tangents = std::make_unique<GeneratedTangents>(
      TangentGenerator(m_fg->kind, m_fg->seed_in(m_setup.seed), m_steps_started));
  for (std::uint32_t l = 0; l < m_trunk; ++l) m_blocks[l]->set_tangent_source(m_tangents.get());
  m_scalars->reset();
}

template <typename T>
void NetworkProgram<T>::send_tangent_shadow(sim::Engine& engine, const sim::Message& primal, Cycle ready) {
  sim::Message m = primal;
  m.bytes = primal.bytes * m_fg->tangents;
  m.kind = sim::MessageKind::tangent;
  m.port = port_id(Port::tangent_shadow);
  engine.send(m, ready);  // no values: they rode in the primal piece
}

template <typename T>
ValuesPtr<T> NetworkProgram<T>::split_off_tangents(sim::Engine& engine, std::uint32_t wf, std::uint32_t col,
                                                   const ValuesPtr<T>& y, Cycle ready) {
  auto& block = *m_blocks[m_trunk - 1];
  const std::uint32_t width = block.col_ranges()[col].size;
  const std::uint64_t bytes = activation_bytes(wf, width) * m_fg->tangents;
  // dh_k waits here for u = dL/dh: split-fg's stash at the split (MODEL.md section 7), labelled with the
  // trunk's last layer, which stashes nothing else.
  engine.store_at(block.output_tile(col), StorageCategory::stash, bytes, m_trunk - 1, ready);
  engine.access_sram(block.output_tile(col), bytes, Phase::forward);
  if (!y) return y;
  const std::uint32_t n = tokens(wf);
  sim::Matrix<T> primal(n, width);
  sim::Matrix<T> tangents(n * m_fg->tangents, width);
  for (std::uint32_t r = 0; r < n; ++r) std::copy(y->matrix.row(r), y->matrix.row(r) + width, primal.row(r));
  for (std::uint32_t r = 0; r < tangents.rows(); ++r)
    std::copy(y->matrix.row(n + r), y->matrix.row(n + r) + width, tangents.row(r));
  m_split_tangents[std::size_t{wf} * block.spec().layout.cols + col] = make_values(std::move(tangents));
  return make_values(std::move(primal));
}

template <typename T>
void NetworkProgram<T>::take_split_gradient(sim::Engine& engine, std::uint32_t wf, std::uint32_t col,
                                            const ValuesPtr<T>& u, std::uint32_t depth, Cycle ready) {
  auto& block = *m_blocks[m_trunk - 1];
  const sim::TileId here = block.output_tile(col);
  const std::uint32_t width = block.col_ranges()[col].size;
  const std::uint64_t bytes = activation_bytes(wf, width) * m_fg->tangents;
  engine.access_sram(here, bytes, Phase::backward);
  const Cycle done =
      engine.compute(here, 2 * std::uint64_t{m_fg->tangents} * tokens(wf) * width, Phase::backward, ready);
  engine.release_at(here, StorageCategory::stash, bytes, m_trunk - 1, done);  // read by the d_k shares
  std::vector<double> shares;
  ValuesPtr<T>& stashed = m_split_tangents[std::size_t{wf} * block.spec().layout.cols + col];
  if (u) {
    const std::uint32_t n = tokens(wf);
    shares.assign(m_fg->tangents, 0.0);
    for (std::uint32_t k = 0; k < m_fg->tangents; ++k) {
      for (std::uint32_t r = 0; r < n; ++r) {
        const T* a = u->matrix.row(r);
        const T* b = stashed->matrix.row(k * n + r);
        for (std::uint32_t c = 0; c < width; ++c)
          shares[k] += static_cast<double>(a[c]) * static_cast<double>(b[c]);
      }
    }
  }
  stashed.reset();
  m_scalars->add_share(engine, col, shares, depth, done);
}

template <typename T>
void NetworkProgram<T>::on_tangent_partials(sim::Engine& engine, std::uint32_t wf, std::uint32_t col,
                                            std::vector<double> partials, std::uint32_t depth, Cycle ready) {
  const auto& last = *m_blocks.back();
  const Cycle done = engine.compute(
      last.output_tile(col), 2 * std::uint64_t{m_fg->tangents} * tokens(wf) * last.col_ranges()[col].size,
      Phase::forward, ready);
  m_scalars->add_share(engine, col, partials, depth, done);
}

template <typename T>
void NetworkProgram<T>::on_scalars(sim::Engine& engine, sim::TileId tile, const std::vector<double>& d,
                                   std::uint32_t /*depth*/, Cycle ready) {
  for (const TrunkSlice& s : m_trunk_slices[tile]) add_estimate(engine, s.layer, s.tile_index, d, ready);
}

template <typename T>
void NetworkProgram<T>::add_estimate(sim::Engine& engine, std::uint32_t layer, std::uint32_t tile_index,
                                     const std::vector<double>& d, Cycle ready) {
  auto& block = *m_blocks[layer];
  auto& t = block.tiles()[tile_index];
  const std::uint64_t parameters = block.parameter_count(tile_index);
  const std::uint32_t K = m_fg->tangents;
  // grad += (1/K) sum_k d_k v_k with v_k regenerated: K multiply-adds per parameter; the accumulator is
  // read and written once.
  engine.access_sram(t.id, 2 * parameters * m_setup.bytes.weight, Phase::backward);
  engine.compute(t.id, 2 * parameters * K, Phase::backward, ready);
  if (!m_setup.with_values) return;
  const Range I = block.row_ranges()[t.row];
  const Range J = block.col_ranges()[t.col];
  std::vector<T> v(std::size_t{I.size} * J.size);
  std::vector<T> vb(J.size);
  for (std::uint32_t k = 0; k < K; ++k) {
    const T scale = static_cast<T>(d[k] / K);
    m_tangents->fill_weights(layer, k, I, J, block.spec().d_out, v.data());
    T* g = t.grad.data();
    for (std::size_t e = 0; e < v.size(); ++e) g[e] += scale * v[e];
    if (!t.bias.empty()) {
      m_tangents->fill_bias(layer, k, J, vb.data());
      for (std::uint32_t c = 0; c < J.size; ++c) t.bias_grad[c] += scale * vb[c];
    }
  }
}

template <typename T>
double NetworkProgram<T>::learning_rate(std::uint32_t layer) const {
  return m_fg != nullptr && layer < m_trunk ? m_lr * m_fg->trunk_lr_scale : m_lr;
}

// The class itself is instantiated in network_program.cpp; these members are defined only here.
template void NetworkProgram<float>::setup_forward_gradient();
template void NetworkProgram<float>::begin_forward_gradient_step();
template void NetworkProgram<float>::send_tangent_shadow(sim::Engine&, const sim::Message&, Cycle);
template ValuesPtr<float> NetworkProgram<float>::split_off_tangents(sim::Engine&, std::uint32_t,
                                                                    std::uint32_t, const ValuesPtr<float>&,
                                                                    Cycle);
template void NetworkProgram<float>::take_split_gradient(sim::Engine&, std::uint32_t, std::uint32_t,
                                                         const ValuesPtr<float>&, std::uint32_t, Cycle);
template void NetworkProgram<float>::on_tangent_partials(sim::Engine&, std::uint32_t, std::uint32_t,
                                                         std::vector<double>, std::uint32_t, Cycle);
template void NetworkProgram<float>::on_scalars(sim::Engine&, sim::TileId, const std::vector<double>&,
                                                std::uint32_t, Cycle);
template void NetworkProgram<float>::add_estimate(sim::Engine&, std::uint32_t, std::uint32_t,
                                                  const std::vector<double>&, Cycle);
template double NetworkProgram<float>::learning_rate(std::uint32_t) const;
template void NetworkProgram<double>::setup_forward_gradient();
template void NetworkProgram<double>::begin_forward_gradient_step();
template void NetworkProgram<double>::send_tangent_shadow(sim::Engine&, const sim::Message&, Cycle);
template ValuesPtr<double> NetworkProgram<double>::split_off_tangents(sim::Engine&, std::uint32_t,
                                                                      std::uint32_t, const ValuesPtr<double>&,
                                                                      Cycle);
template void NetworkProgram<double>::take_split_gradient(sim::Engine&, std::uint32_t, std::uint32_t,
                                                          const ValuesPtr<double>&, std::uint32_t, Cycle);
template void NetworkProgram<double>::on_tangent_partials(sim::Engine&, std::uint32_t, std::uint32_t,
                                                          std::vector<double>, std::uint32_t, Cycle);
template void NetworkProgram<double>::on_scalars(sim::Engine&, sim::TileId, const std::vector<double>&,
                                                 std::uint32_t, Cycle);
template void NetworkProgram<double>::add_estimate(sim::Engine&, std::uint32_t, std::uint32_t,
                                                   const std::vector<double>&, Cycle);
template double NetworkProgram<double>::learning_rate(std::uint32_t) const;

}  // namespace spatialsim::workloads
