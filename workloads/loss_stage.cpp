#include "workloads/loss_stage.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "workloads/chain_ports.h"

namespace spatialsim::workloads {

using mappings::make_values;
using mappings::ValuesPtr;
using sim::Cycle;
using sim::Phase;
using sim::StorageCategory;

template <typename T>
LossStageSetup loss_stage_setup(const NetworkSetup& setup, const mappings::WeightStationaryBlock<T>& last) {
  LossStageSetup ls;
  ls.loss = setup.model.loss;
  ls.cols = last.col_ranges();
  for (std::uint32_t j = 0; j < last.spec().layout.cols; ++j) ls.output_tiles.push_back(last.output_tile(j));
  ls.wavefront_tokens = setup.wavefront_tokens;
  ls.total_tokens = std::accumulate(setup.wavefront_tokens.begin(), setup.wavefront_tokens.end(), 0u);
  ls.activation_bytes = setup.bytes.activation;
  ls.partial_sum_bytes = setup.bytes.partial_sum;
  ls.layer_tag = last.spec().layer;
  ls.reduce_port = port_id(ChainPort::loss_reduce);
  ls.broadcast_port = port_id(ChainPort::loss_broadcast);
  ls.with_values = setup.with_values;
  return ls;
}

template <typename T>
LossStage<T>::LossStage(LossStageSetup setup, LossGradientListener<T>& listener)
    : m_setup(std::move(setup)), m_listener(listener) {
  m_columns.assign(m_setup.wavefront_tokens.size(), std::vector<Column>(m_setup.cols.size()));
  std::uint32_t first = 0;
  for (std::uint32_t n : m_setup.wavefront_tokens) {
    m_first_token.push_back(first);
    first += n;
  }
}

template <typename T>
void LossStage<T>::reset(std::uint32_t outputs) {
  m_loss = 0;
  m_outputs =
      m_setup.with_values ? sim::Matrix<double>(m_setup.total_tokens, outputs) : sim::Matrix<double>();
}

template <typename T>
void LossStage<T>::on_target(sim::Engine& engine, std::uint32_t wf, std::uint32_t col, ValuesPtr<T> target,
                             std::uint32_t depth) {
  Column& c = m_columns[wf][col];
  // Targets wait on the output tile until the outputs arrive.
  engine.store(m_setup.output_tiles[col], StorageCategory::transit,
               std::uint64_t{m_setup.activation_bytes} * tokens(wf) * m_setup.cols[col].size,
               m_setup.layer_tag);
  c.target = std::move(target);
  c.have_target = true;
  c.depth = std::max(c.depth, depth);
  c.ready = std::max(c.ready, engine.now());
  try_start(engine, wf, col);
}

template <typename T>
void LossStage<T>::on_output(sim::Engine& engine, std::uint32_t wf, std::uint32_t col, ValuesPtr<T> y,
                             std::uint32_t depth, Cycle ready) {
  Column& c = m_columns[wf][col];
  c.y = std::move(y);
  c.have_y = true;
  c.depth = std::max(c.depth, depth);
  c.ready = std::max(c.ready, ready);
  try_start(engine, wf, col);
}

template <typename T>
void LossStage<T>::try_start(sim::Engine& engine, std::uint32_t wf, std::uint32_t col) {
  Column& c = m_columns[wf][col];
  if (!c.have_y || !c.have_target) return;
  if (m_setup.loss == Loss::mse) {
    finish(engine, wf, col, nullptr);
    return;
  }
  // Cross-entropy: this tile's own log-sum-exp over its outputs, per token.
  if (m_setup.with_values) {
    const sim::Matrix<T>& y = c.y->matrix;
    sim::Matrix<T> lse(tokens(wf), 1);  // primal rows only (tangent streams follow them)
    for (std::uint32_t t = 0; t < tokens(wf); ++t) lse(t, 0) = log_sum_exp(y.row(t), y.cols());
    c.partial_lse = make_values(std::move(lse));
  }
  try_reduce(engine, wf, col);
}

template <typename T>
void LossStage<T>::try_reduce(sim::Engine& engine, std::uint32_t wf, std::uint32_t col) {
  Column& c = m_columns[wf][col];
  if (!c.have_y || !c.have_target) return;
  if (col > 0 && !c.have_incoming) return;
  ValuesPtr<T> running = c.partial_lse;
  if (col > 0 && m_setup.with_values) {
    sim::Matrix<T> merged = c.partial_lse->matrix;
    const sim::Matrix<T>& in = c.incoming_lse->matrix;
    for (std::uint32_t t = 0; t < merged.rows(); ++t) merged(t, 0) = log_add_exp(merged(t, 0), in(t, 0));
    running = make_values(std::move(merged));
  }
  const auto last = static_cast<std::uint32_t>(m_setup.cols.size() - 1);
  if (col < last) {
    send(engine, m_setup.reduce_port, wf, col, col + 1, running, c.depth, c.ready);
    return;
  }
  // The last column holds the total: broadcast it back along the chain, and finish here.
  if (col > 0) send(engine, m_setup.broadcast_port, wf, col, col - 1, running, c.depth, c.ready);
  finish(engine, wf, col, running);
}

template <typename T>
void LossStage<T>::send(sim::Engine& engine, std::uint32_t port, std::uint32_t wf, std::uint32_t from_col,
                        std::uint32_t to_col, ValuesPtr<T> lse, std::uint32_t depth, Cycle ready) {
  engine.send(sim::Message{.src = m_setup.output_tiles[from_col],
                           .dst = m_setup.output_tiles[to_col],
                           .bytes = scalar_bytes(wf),
                           .kind = sim::MessageKind::scalar,
                           .phase = Phase::forward,
                           .depth = depth,
                           .port = port,
                           .group = m_setup.layer_tag,
                           .serial = wf,
                           .slot = to_col},
              ready, std::move(lse));
}

template <typename T>
void LossStage<T>::on_message(sim::Engine& engine, const sim::Message& m) {
  Column& c = m_columns[m.serial][m.slot];
  c.depth = std::max(c.depth, m.depth);
  c.ready = std::max(c.ready, engine.now());
  if (m.port == m_setup.reduce_port) {
    c.incoming_lse = mappings::values_of<T>(engine.payload(m));
    c.have_incoming = true;
    try_reduce(engine, m.serial, m.slot);
  } else if (m.port == m_setup.broadcast_port) {
    if (m.slot > 0)
      send(engine, m_setup.broadcast_port, m.serial, m.slot, m.slot - 1,
           mappings::values_of<T>(engine.payload(m)), c.depth, c.ready);
    finish(engine, m.serial, m.slot, mappings::values_of<T>(engine.payload(m)));
  } else {
    throw std::logic_error("loss stage: unknown port");
  }
}

template <typename T>
void LossStage<T>::finish(sim::Engine& engine, std::uint32_t wf, std::uint32_t col,
                          const ValuesPtr<T>& total_lse) {
  Column& c = m_columns[wf][col];
  const double inv_tokens = 1.0 / m_setup.total_tokens;
  ValuesPtr<T> dy;
  std::vector<double> partials;
  if (m_setup.with_values) {
    const sim::Matrix<T>& y = c.y->matrix;
    const sim::Matrix<T>& t = c.target->matrix;
    const std::uint32_t n = tokens(wf);  // primal rows; tangent streams follow them
    const std::uint32_t width = y.cols();
    sim::Matrix<T> g(n, width);
    double loss = 0;  // summed over this tile's rows in order, then scaled once
    for (std::uint32_t r = 0; r < n; ++r) {
      for (std::uint32_t k = 0; k < width; ++k)
        m_outputs(m_first_token[wf] + r, m_setup.cols[col].begin + k) = static_cast<double>(y(r, k));
      if (m_setup.loss == Loss::mse) {
        loss = add_mse(y.row(r), t.row(r), width, loss);
        mse_gradient(y.row(r), t.row(r), width, inv_tokens, g.row(r));
      } else {
        const T lse = total_lse->matrix(r, 0);
        loss = add_cross_entropy(y.row(r), t.row(r), width, lse, loss);
        cross_entropy_gradient(y.row(r), t.row(r), width, lse, inv_tokens, g.row(r));
      }
    }
    m_loss += loss * inv_tokens;
    if (m_setup.tangents > 0) partials = tangent_partials(g, y);
    dy = make_values(std::move(g));
  }
  engine.release(m_setup.output_tiles[col], StorageCategory::transit,
                 std::uint64_t{m_setup.activation_bytes} * tokens(wf) * m_setup.cols[col].size,
                 m_setup.layer_tag);
  const std::uint32_t depth = c.depth;
  const Cycle ready = c.ready;
  c = Column{};
  if (m_setup.tangents > 0)
    m_listener.on_tangent_partials(engine, wf, col, std::move(partials), depth, ready);
  if (m_setup.wants_gradient) m_listener.on_loss_gradient(engine, wf, col, std::move(dy), depth, ready);
}

template <typename T>
std::vector<double> LossStage<T>::tangent_partials(const sim::Matrix<T>& dy, const sim::Matrix<T>& y) const {
  const std::uint32_t n = dy.rows();
  std::vector<double> partials(m_setup.tangents, 0.0);
  for (std::uint32_t k = 0; k < m_setup.tangents; ++k) {
    double sum = 0;
    for (std::uint32_t r = 0; r < n; ++r) {
      const T* g = dy.row(r);
      const T* dyk = y.row((k + 1) * n + r);
      for (std::uint32_t c = 0; c < dy.cols(); ++c)
        sum += static_cast<double>(g[c]) * static_cast<double>(dyk[c]);
    }
    partials[k] = sum;
  }
  return partials;
}

template LossStageSetup loss_stage_setup(const NetworkSetup&, const mappings::WeightStationaryBlock<float>&);
template LossStageSetup loss_stage_setup(const NetworkSetup&, const mappings::WeightStationaryBlock<double>&);
template class LossStage<float>;
template class LossStage<double>;

}  // namespace spatialsim::workloads
