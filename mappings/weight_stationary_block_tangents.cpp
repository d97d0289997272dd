// Forward gradients through a weight-stationary block (BlockSpec::tangents = K > 0): the K tangent streams
// that ride with each forward message, the tiles' X V_k products, and the output tile's bias tangents and
// act'(Z) (docs/forward-gradients.md). The block's own dataflow is in weight_stationary_block.cpp.
#include <algorithm>
#include <stdexcept>

#include "mappings/weight_stationary_block.h"
#include "sim/matrix_kernels.h"

namespace spatialsim::mappings {

using sim::Cycle;
using sim::Phase;

template <typename T>
void WeightStationaryBlock<T>::finish_tangent_column(sim::Engine& engine, PassState& pass, std::uint32_t wf,
                                                     std::uint32_t j, const ValuesPtr<T>& sum,
                                                     std::uint32_t depth, Cycle ready, Phase phase) {
  // Nothing is stashed: the tangents need act'(Z) only here and now, and no backward pass follows.
  if (prepares_backward(pass.stash))
    throw std::logic_error("block: a tangent-carrying layer cannot prepare a backward pass");
  TileSlice& t = m_tiles[local(m_spec.layout.output_row(), j)];
  const bool nonlinear = has_nonlinearity();
  if (m_spec.has_bias) engine.access_sram(t.id, std::uint64_t{m_cols[j].size} * m_spec.bytes.weight, phase);
  ValuesPtr<T> y = sum;
  if (m_spec.with_values) {
    const std::uint32_t n = tokens(wf);
    const Range J = m_cols[j];
    sim::Matrix<T> out = sum->matrix;  // (1 + K) n rows
    std::vector<T> db(J.size);
    for (std::uint32_t s = 0; s <= m_spec.tangents; ++s) {
      if (m_spec.has_bias) {
        if (s == 0) {
          db.assign(t.bias.begin(), t.bias.end());
        } else {
          m_tangent_source->fill_bias(m_spec.layer, s - 1, J, db.data());
        }
        sim::add_to_rows(out, s * n, n, db.data());
      }
    }
    if (nonlinear) {
      // Tangents first: they need Z, which the primal rows hold until they are activated.
      for (std::uint32_t r = 0; r < n; ++r) {
        T* z = out.row(r);
        for (std::uint32_t c = 0; c < J.size; ++c) {
          const T d = activation_derivative(m_spec.activation, z[c]);
          for (std::uint32_t s = 1; s <= m_spec.tangents; ++s) out.row(s * n + r)[c] *= d;
          z[c] = activate(m_spec.activation, z[c]);
        }
      }
    }
    y = make_values(std::move(out));
  }
  m_listener.on_forward_output(engine, m_spec.layer, wf, j, std::move(y), depth, ready, phase);
}

template <typename T>
void WeightStationaryBlock<T>::add_tangent_products(std::uint32_t wf, std::uint32_t i, std::uint32_t j,
                                                    const sim::Matrix<T>& x, sim::Matrix<T>& partial) const {
  if (m_tangent_source == nullptr) throw std::logic_error("block: tangent streams without a tangent source");
  const std::uint32_t n = tokens(wf);
  const Range I = m_rows[i];
  const Range J = m_cols[j];
  sim::Matrix<T> primal(n, I.size);
  for (std::uint32_t r = 0; r < n; ++r) std::copy(x.row(r), x.row(r) + I.size, primal.row(r));
  if (partial.rows() == n) {  // inputs without tangents: the tangent rows start at zero
    sim::Matrix<T> stacked(n * (1 + m_spec.tangents), J.size);
    std::copy(partial.data(), partial.data() + partial.size(), stacked.data());
    partial = std::move(stacked);
  }
  sim::Matrix<T> v(I.size, J.size);
  sim::Matrix<T> xv;
  for (std::uint32_t k = 0; k < m_spec.tangents; ++k) {
    m_tangent_source->fill_weights(m_spec.layer, k, I, J, m_spec.d_out, v.data());
    sim::multiply(primal, v, xv);
    for (std::uint32_t r = 0; r < n; ++r) {
      T* out = partial.row((k + 1) * n + r);
      const T* add_row = xv.row(r);
      for (std::uint32_t c = 0; c < J.size; ++c) out[c] += add_row[c];
    }
  }
}

// The class is instantiated in weight_stationary_block.cpp; these members are defined only here.
template void WeightStationaryBlock<float>::finish_tangent_column(sim::Engine&, PassState&, std::uint32_t,
                                                                  std::uint32_t, const ValuesPtr<float>&,
                                                                  std::uint32_t, Cycle, Phase);
template void WeightStationaryBlock<float>::add_tangent_products(std::uint32_t, std::uint32_t, std::uint32_t,
                                                                 const sim::Matrix<float>&,
                                                                 sim::Matrix<float>&) const;
template void WeightStationaryBlock<double>::finish_tangent_column(sim::Engine&, PassState&, std::uint32_t,
                                                                   std::uint32_t, const ValuesPtr<double>&,
                                                                   std::uint32_t, Cycle, Phase);
template void WeightStationaryBlock<double>::add_tangent_products(std::uint32_t, std::uint32_t, std::uint32_t,
                                                                  const sim::Matrix<double>&,
                                                                  sim::Matrix<double>&) const;

}  // namespace spatialsim::mappings
