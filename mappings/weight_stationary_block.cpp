#include "mappings/weight_stationary_block.h"

#include <algorithm>
#include <stdexcept>

#include "sim/matrix_kernels.h"

namespace spatialsim::mappings {

using sim::Cycle;
using sim::MessageKind;
using sim::Phase;
using sim::StorageCategory;

template <typename T>
WeightStationaryBlock<T>::WeightStationaryBlock(BlockSpec spec, const sim::Grid& grid,
                                                BlockListener<T>& listener)
    : m_spec(std::move(spec)),
      m_listener(listener),
      m_first_passes(static_cast<std::uint32_t>(m_spec.wavefront_tokens.size()),
                     [this] { return PassState{.joins = std::vector<Join>(m_tiles.size())}; }),
      m_recomputations(static_cast<std::uint32_t>(m_spec.wavefront_tokens.size()),
                       [this] { return PassState{.joins = std::vector<Join>(m_tiles.size())}; }),
      m_stashes(static_cast<std::uint32_t>(m_spec.wavefront_tokens.size()),
                [this] {
                  StashState s;
                  if (m_spec.with_values) {  // counting mode keeps only what is held, not values
                    s.x.resize(m_tiles.size());
                    s.z.resize(m_spec.layout.cols);
                  }
                  s.lanes.resize(m_spec.layout.rows);
                  return s;
                }),
      m_backward_passes(static_cast<std::uint32_t>(m_spec.wavefront_tokens.size()), [this] {
        return BackwardPassState{.tiles = std::vector<TileBackward>(m_tiles.size())};
      }) {
  const BlockLayout& L = m_spec.layout;
  m_rows = split(m_spec.d_in, L.rows);
  m_cols = split(m_spec.d_out, L.cols);
  m_tiles.resize(L.tile_count());
  for (std::uint32_t i = 0; i < L.rows; ++i) {
    for (std::uint32_t j = 0; j < L.cols; ++j) {
      const sim::Coord c = L.coord(i, j);
      if (!grid.contains(c)) throw std::logic_error("block: tile outside the grid");
      TileSlice& t = m_tiles[local(i, j)];
      t.id = grid.tile_id(static_cast<std::uint32_t>(c.x), static_cast<std::uint32_t>(c.y));
      t.row = i;
      t.col = j;
    }
  }
  build_flows();
}

template <typename T>
void WeightStationaryBlock<T>::build_flows() {
  const BlockLayout& L = m_spec.layout;
  const ElementBytes& b = m_spec.bytes;
  // The template of the message tile (i, j) sends to tile (to_i, to_j) through `port`.
  auto path = [&](std::uint32_t i, std::uint32_t j, std::uint32_t to_i, std::uint32_t to_j, BlockPort port,
                  MessageKind kind, std::uint64_t bytes_per_token) {
    return MessageTemplate{.base = {.src = tile(i, j),
                                    .dst = tile(to_i, to_j),
                                    .kind = kind,
                                    .port = static_cast<std::uint32_t>(port),
                                    .group = m_spec.layer,
                                    .slot = local(to_i, to_j)},
                           .bytes_per_token = bytes_per_token};
  };
  m_flows.resize(m_tiles.size());
  for (std::uint32_t i = 0; i < L.rows; ++i) {
    for (std::uint32_t j = 0; j < L.cols; ++j) {
      TileFlows& f = m_flows[local(i, j)];
      const std::uint64_t x_elems = m_rows[i].size;
      const std::uint64_t y_elems = m_cols[j].size;
      f.x_bytes_per_token = b.activation * x_elems;
      f.y_bytes_per_token = b.activation * y_elems;
      f.weight_count = x_elems * y_elems;
      f.lane_entry = j == L.entry_col();
      f.lane_exit = j == L.exit_col();
      f.first_psum_row = i == L.first_psum_row();
      f.output_row = i == L.output_row();
      if (!f.lane_exit) {
        const std::uint32_t next = L.lane_next(j);
        f.lane = path(i, j, i, next, BlockPort::lane, MessageKind::lane, f.x_bytes_per_token);
        f.rebroadcast =
            path(i, j, i, next, BlockPort::rebroadcast, MessageKind::rebroadcast, f.x_bytes_per_token);
      }
      if (!f.output_row)
        f.psum = path(i, j, L.psum_next(i), j, BlockPort::psum, MessageKind::psum, b.partial_sum * y_elems);
      if (!f.first_psum_row)
        f.grad_column =
            path(i, j, L.psum_prev(i), j, BlockPort::grad_column, MessageKind::lane, f.y_bytes_per_token);
      if (!f.lane_entry)
        f.grad_share =
            path(i, j, i, L.lane_prev(j), BlockPort::grad_share, MessageKind::psum, b.partial_sum * x_elems);
    }
  }
}

template <typename T>
std::uint64_t WeightStationaryBlock<T>::x_bytes(std::uint32_t wf, std::uint32_t k) const {
  return m_flows[k].x_bytes_per_token * tokens(wf);
}

template <typename T>
std::uint64_t WeightStationaryBlock<T>::y_bytes(std::uint32_t wf, std::uint32_t k) const {
  return m_flows[k].y_bytes_per_token * tokens(wf);
}

template <typename T>
void WeightStationaryBlock<T>::load_parameters(const sim::Matrix<double>& weights,
                                               const std::vector<double>& bias) {
  if (weights.rows() != m_spec.d_in || weights.cols() != m_spec.d_out)
    throw std::logic_error("block: weight shape differs from the layer");
  if (!m_spec.with_values) return;
  if (m_spec.has_bias && bias.size() < m_spec.d_out)
    throw std::logic_error("block: bias shorter than the layer");
  for (TileSlice& t : m_tiles) {
    const Range I = m_rows[t.row];
    const Range J = m_cols[t.col];
    t.weights = sim::Matrix<T>(I.size, J.size);
    for (std::uint32_t a = 0; a < I.size; ++a) {  // row by row: contiguous on both sides
      const double* from = weights.row(I.begin + a) + J.begin;
      std::transform(from, from + J.size, t.weights.row(a), [](double w) { return static_cast<T>(w); });
    }
    t.bias.clear();
    if (m_spec.has_bias && t.row == m_spec.layout.output_row()) {
      t.bias.resize(J.size);
      std::transform(bias.begin() + J.begin, bias.begin() + J.begin + J.size, t.bias.begin(),
                     [](double b) { return static_cast<T>(b); });
    }
  }
  zero_gradients();
}

template <typename T>
std::uint64_t WeightStationaryBlock<T>::parameter_count(std::uint32_t tile_index) const {
  const TileSlice& t = m_tiles[tile_index];
  const bool holds_bias = m_spec.has_bias && t.row == m_spec.layout.output_row();
  return std::uint64_t{m_rows[t.row].size} * m_cols[t.col].size + (holds_bias ? m_cols[t.col].size : 0);
}

template <typename T>
void WeightStationaryBlock<T>::record_resident_storage(sim::Engine& engine, bool with_gradients) const {
  for (std::uint32_t k = 0; k < m_tiles.size(); ++k) {
    const TileSlice& t = m_tiles[k];
    const std::uint64_t bytes = parameter_count(k) * m_spec.bytes.weight;
    engine.store(t.id, StorageCategory::weights, bytes, m_spec.layer);
    if (with_gradients) engine.store(t.id, StorageCategory::optimizer, bytes, m_spec.layer);
  }
}

template <typename T>
void WeightStationaryBlock<T>::zero_gradients() {
  if (!m_spec.with_values) return;
  for (TileSlice& t : m_tiles) {
    t.grad = sim::Matrix<T>(m_rows[t.row].size, m_cols[t.col].size);
    t.bias_grad.assign(t.bias.size(), T{0});  // bias slices live on output tiles only
  }
}

// ---- arithmetic (with values only) ----

template <typename T>
ValuesPtr<T> WeightStationaryBlock<T>::partial_product(std::uint32_t wf, std::uint32_t k,
                                                       const sim::Matrix<T>& x) const {
  const TileSlice& t = m_tiles[k];
  sim::Matrix<T> partial;
  sim::multiply(x, t.weights, partial);
  if (m_spec.tangents > 0) add_tangent_products(wf, t.row, t.col, x, partial);
  return make_values(std::move(partial));
}

template <typename T>
ValuesPtr<T> WeightStationaryBlock<T>::output_values(const TileSlice& t, const sim::Matrix<T>& sum,
                                                     bool nonlinear, StashState* stash,
                                                     std::uint32_t j) const {
  sim::Matrix<T> z = sum;
  if (m_spec.has_bias) sim::add_to_rows(z, 0, z.rows(), t.bias.data());
  sim::Matrix<T> out = z;
  if (nonlinear) {
    T* v = out.data();
    for (std::size_t e = 0; e < out.size(); ++e) v[e] = activate(m_spec.activation, v[e]);
  }
  if (stash != nullptr) stash->z[j] = make_values(std::move(z));
  return make_values(std::move(out));
}

template <typename T>
ValuesPtr<T> WeightStationaryBlock<T>::through_activation(const sim::Matrix<T>& dy,
                                                          const sim::Matrix<T>& z) const {
  sim::Matrix<T> g = dy;
  const T* zv = z.data();
  T* v = g.data();
  for (std::size_t e = 0; e < g.size(); ++e) v[e] *= activation_derivative(m_spec.activation, zv[e]);
  return make_values(std::move(g));
}

template <typename T>
void WeightStationaryBlock<T>::add_bias_gradient(TileSlice& t, const sim::Matrix<T>& dz) {
  for (std::uint32_t r = 0; r < dz.rows(); ++r)
    for (std::uint32_t c = 0; c < dz.cols(); ++c) t.bias_grad[c] += dz(r, c);
}

template <typename T>
ValuesPtr<T> WeightStationaryBlock<T>::input_gradient_share(const TileSlice& t, const sim::Matrix<T>& dz) {
  sim::Matrix<T> share;
  sim::multiply_a_bt(dz, t.weights, share);
  return make_values(std::move(share));
}

// ---- forward ----

template <typename T>
void WeightStationaryBlock<T>::enter_lane(sim::Engine& engine, std::uint32_t wf, std::uint32_t row,
                                          ValuesPtr<T> x, std::uint32_t depth, Cycle ready, XStash stash,
                                          Phase phase) {
  PassState& pass = passes(phase).at(wf);
  pass.stash = stash;
  receive_lane(engine, pass, wf, local(row, m_spec.layout.entry_col()), x, depth, ready, phase);
  settle(passes(phase), pass, wf);
}

template <typename T>
void WeightStationaryBlock<T>::receive_lane(sim::Engine& engine, PassState& pass, std::uint32_t wf,
                                            std::uint32_t k, const ValuesPtr<T>& x, std::uint32_t depth,
                                            Cycle ready, Phase phase) {
  const TileFlows& f = m_flows[k];
  const sim::TileId id = m_tiles[k].id;
  const std::uint64_t n = tokens(wf);
  const std::uint64_t xb = x_bytes(wf, k);
  if (!f.lane_exit) {
    // The tangent bytes first: on finite links the primal then arrives last, when the values are all in.
    if (m_spec.input_tangents) send_tangent_shadow(engine, pass.live, f.lane, wf, phase, depth, ready);
    send(engine, pass.live, f.lane, wf, phase, depth, ready, x);
  }

  if (keeps_x(pass.stash, f.lane_entry)) {
    StashState& st = stash_written_by(wf, pass.stash);
    engine.store(id, StorageCategory::stash, xb, m_spec.layer);
    engine.access_sram(id, xb, phase);
    if (m_spec.with_values) st.x[k] = x;
    ++st.live;
  }
  if (pass.stash == XStash::checkpoint && f.lane_entry) {
    StashState& st = m_stashes.at(wf);
    LaneState& lane = st.lanes[m_tiles[k].row];
    if (lane.has_checkpoint) throw std::logic_error("block: a second checkpoint of the same input");
    engine.store(id, StorageCategory::stash, xb, m_spec.layer);
    engine.access_sram(id, xb, phase);
    lane.checkpoint_x = x;
    lane.has_checkpoint = true;
    ++st.live;
  }

  engine.access_sram(id, f.weight_count * m_spec.bytes.weight, phase);
  // With K tangents: the stacked (1 + K) streams times W (the primal only when the inputs carry no
  // tangents), plus X V_k for each k.
  const std::uint64_t tangent_factor = 1 + std::uint64_t{m_spec.tangents} * (m_spec.input_tangents ? 2 : 1);
  const Cycle done = engine.compute(id, 2 * n * f.weight_count * tangent_factor, phase, ready);
  Join& jn = pass.joins[k];
  if (m_spec.with_values) jn.mine = partial_product(wf, k, x->matrix);
  if (jn.add_mine(depth, done)) ++pass.live;  // the join starts holding
  join_forward(engine, pass, wf, k, phase);
}

template <typename T>
void WeightStationaryBlock<T>::join_forward(sim::Engine& engine, PassState& pass, std::uint32_t wf,
                                            std::uint32_t k, Phase phase) {
  const TileFlows& f = m_flows[k];
  Join& jn = pass.joins[k];
  if (!jn.complete(f.first_psum_row)) return;
  ValuesPtr<T> sum = jn.sum(f.first_psum_row);
  const std::uint32_t depth = jn.depth;
  const Cycle ready = jn.ready;
  jn.clear();
  --pass.live;
  if (f.output_row) {
    finish_column(engine, pass, wf, m_tiles[k].col, sum, depth, ready, phase);
  } else {
    send_tangent_shadow(engine, pass.live, f.psum, wf, phase, depth, ready);  // first: see receive_lane
    send(engine, pass.live, f.psum, wf, phase, depth, ready, sum);
  }
}

template <typename T>
void WeightStationaryBlock<T>::finish_column(sim::Engine& engine, PassState& pass, std::uint32_t wf,
                                             std::uint32_t j, const ValuesPtr<T>& sum, std::uint32_t depth,
                                             Cycle ready, Phase phase) {
  if (m_spec.tangents > 0) {
    finish_tangent_column(engine, pass, wf, j, sum, depth, ready, phase);
    return;
  }
  TileSlice& t = m_tiles[local(m_spec.layout.output_row(), j)];
  const bool nonlinear = has_nonlinearity();
  if (m_spec.has_bias) engine.access_sram(t.id, std::uint64_t{m_cols[j].size} * m_spec.bytes.weight, phase);
  // The activation derivative needs Z in the backward pass: it stays on the output tile, from the cycle the
  // column's sum is complete.
  StashState* st = nullptr;
  if (nonlinear && prepares_backward(pass.stash)) {
    st = &stash_written_by(wf, pass.stash);
    const std::uint64_t zb = y_bytes(wf, local(m_spec.layout.output_row(), j));
    engine.store_at(t.id, StorageCategory::stash, zb, m_spec.layer, ready);
    engine.access_sram(t.id, zb, phase);
    ++st->live;
  }
  ValuesPtr<T> y = m_spec.with_values ? output_values(t, sum->matrix, nonlinear, st, j) : sum;
  // Last: the listener may start this wavefront's backward pass here (no reference above survives it).
  m_listener.on_forward_output(engine, m_spec.layer, wf, j, std::move(y), depth, ready, phase);
}

template <typename T>
void WeightStationaryBlock<T>::send_tangent_shadow(sim::Engine& engine, std::uint32_t& live,
                                                   const MessageTemplate& path, std::uint32_t wf, Phase phase,
                                                   std::uint32_t depth, Cycle ready) const {
  if (m_spec.tangents == 0) return;
  MessageTemplate shadow = path;  // the same route, K streams of the primal's size
  shadow.base.kind = MessageKind::tangent;
  shadow.base.port = static_cast<std::uint32_t>(BlockPort::tangent_shadow);
  shadow.bytes_per_token *= m_spec.tangents;
  send(engine, live, shadow, wf, phase, depth, ready, nullptr);
}

template <typename T>
void WeightStationaryBlock<T>::start_backward(sim::Engine& engine, std::uint32_t wf, std::uint32_t col,
                                              ValuesPtr<T> dy, std::uint32_t depth, Cycle ready) {
  // The stash can be empty already when this is not the first column (rebroadcast: the lane entries have
  // done their dW); the running backward pass keeps the policy.
  StashState* st = m_stashes.find(wf);
  BackwardPassState* running = m_backward_passes.find(wf);
  const XStash policy = running != nullptr ? running->policy : st != nullptr ? st->policy : XStash::none;
  if (!prepares_backward(policy)) throw std::logic_error("block: backward pass without a stash");
  BackwardPassState& bp = running != nullptr ? *running : m_backward_passes.at(wf);
  bp.policy = policy;
  const std::uint32_t k = local(m_spec.layout.output_row(), col);
  TileSlice& t = m_tiles[k];
  const bool nonlinear = has_nonlinearity();
  ValuesPtr<T> dz = std::move(dy);
  if (nonlinear) {
    if (st == nullptr) throw std::logic_error("block: backward pass without its stashed Z");
    const std::uint64_t zb = y_bytes(wf, k);
    engine.access_sram(t.id, zb, Phase::backward);
    engine.release_at(t.id, StorageCategory::stash, zb, m_spec.layer, ready);  // read by dZ = dY act'(Z)
    if (m_spec.with_values) {
      dz = through_activation(dz->matrix, st->z[col]->matrix);
      st->z[col].reset();
    }
    --st->live;
  }
  if (m_spec.has_bias) {
    engine.access_sram(t.id, 2 * std::uint64_t{m_cols[col].size} * m_spec.bytes.weight, Phase::backward);
    if (m_spec.with_values) add_bias_gradient(t, dz->matrix);
  }
  receive_dz(engine, bp, wf, k, dz, depth, ready);
  settle(m_backward_passes, bp, wf);
  settle_stash(wf);
}

template <typename T>
ValuesPtr<T> WeightStationaryBlock<T>::take_checkpoint(sim::Engine& engine, std::uint32_t wf,
                                                       std::uint32_t row, bool release) {
  StashState* st = m_stashes.find(wf);
  if (st == nullptr || !st->lanes.at(row).has_checkpoint)
    throw std::logic_error("block: no checkpoint to restart from");
  LaneState& lane = st->lanes[row];
  const sim::TileId entry = lane_entry_tile(row);
  const std::uint64_t xb = x_bytes(wf, local(row, m_spec.layout.entry_col()));
  engine.access_sram(entry, xb, Phase::recompute);
  ValuesPtr<T> x = lane.checkpoint_x;
  if (release) {
    engine.release(entry, StorageCategory::stash, xb, m_spec.layer);
    lane.checkpoint_x.reset();
    lane.has_checkpoint = false;
    --st->live;
    settle(m_stashes, *st, wf);
  }
  return x;
}

// ---- backward ----

template <typename T>
void WeightStationaryBlock<T>::receive_dz(sim::Engine& engine, BackwardPassState& bp, std::uint32_t wf,
                                          std::uint32_t k, const ValuesPtr<T>& dz, std::uint32_t depth,
                                          Cycle ready) {
  const TileFlows& f = m_flows[k];
  TileSlice& t = m_tiles[k];
  TileBackward& tb = bp.tiles[k];
  if (!f.first_psum_row) send(engine, bp.live, f.grad_column, wf, Phase::backward, depth, ready, dz);
  WeightGradientInputs& bs = tb.dw_inputs;
  if (!bs.have_x) ++bp.live;  // the weight-gradient state starts holding
  bs.dz = dz;
  bs.have_dz = true;
  bs.depth = std::max(bs.depth, depth);
  bs.ready = std::max(bs.ready, ready);
  const XStash stash = bp.policy;
  if (keeps_x(stash, f.lane_entry)) {
    if (m_spec.with_values) bs.x = held_stash(wf).x[k];  // held until this tile's dW
    bs.have_x = true;
    bs.x_from_stash = true;
  }
  if (stash == XStash::rebroadcast && f.lane_entry && !f.lane_exit) {
    // The lane entry sends its stashed inputs along the row again, for the other tiles' dW.
    send(engine, bp.live, f.rebroadcast, wf, Phase::backward, depth, ready, bs.x);
  }
  if (m_spec.computes_input_gradient) {
    engine.access_sram(t.id, f.weight_count * m_spec.bytes.weight, Phase::backward);
    const Cycle done =
        engine.compute(t.id, 2 * std::uint64_t{tokens(wf)} * f.weight_count, Phase::backward, ready);
    if (m_spec.with_values) tb.join.mine = input_gradient_share(t, dz->matrix);
    if (tb.join.add_mine(depth, done)) ++bp.live;  // the join starts holding
    join_backward(engine, bp, wf, k);
  }
  try_weight_gradient(engine, bp, wf, k);
}

template <typename T>
void WeightStationaryBlock<T>::receive_rebroadcast(sim::Engine& engine, BackwardPassState& bp,
                                                   std::uint32_t wf, std::uint32_t k, const ValuesPtr<T>& x,
                                                   std::uint32_t depth, Cycle ready) {
  const TileFlows& f = m_flows[k];
  if (!f.lane_exit) send(engine, bp.live, f.rebroadcast, wf, Phase::backward, depth, ready, x);
  WeightGradientInputs& bs = bp.tiles[k].dw_inputs;
  if (!bs.have_dz) ++bp.live;  // the weight-gradient state starts holding
  bs.x = x;
  bs.have_x = true;
  bs.depth = std::max(bs.depth, depth);
  bs.ready = std::max(bs.ready, ready);
  if (!bs.have_dz) {
    // Arrived before this tile's dZ: it waits here, and that storage is counted. Like every transit write
    // it is not charged to SRAM (docs/model.md): the SRAM count does not depend on which arrived first.
    bs.x_in_transit = true;
    engine.store(m_tiles[k].id, StorageCategory::transit, x_bytes(wf, k), m_spec.layer);
  }
  try_weight_gradient(engine, bp, wf, k);
}

template <typename T>
void WeightStationaryBlock<T>::try_weight_gradient(sim::Engine& engine, BackwardPassState& bp,
                                                   std::uint32_t wf, std::uint32_t k) {
  WeightGradientInputs& bs = bp.tiles[k].dw_inputs;
  if (!bs.have_dz || !bs.have_x) return;
  const TileFlows& f = m_flows[k];
  TileSlice& t = m_tiles[k];
  const std::uint64_t n = tokens(wf);
  const std::uint64_t xb = x_bytes(wf, k);
  // dW slice: read and write the accumulator; the inputs are read from the stash (or the transit buffer).
  engine.access_sram(t.id, 2 * f.weight_count * m_spec.bytes.weight + xb, Phase::backward);
  // X is read until the product is done.
  const Cycle done = engine.compute(t.id, 2 * n * f.weight_count, Phase::backward, bs.ready);
  if (m_spec.with_values) sim::multiply_add_at_b(bs.x->matrix, bs.dz->matrix, t.grad);
  if (bs.x_in_transit) {
    engine.release_at(t.id, StorageCategory::transit, xb, m_spec.layer, done);
  } else if (bs.x_from_stash) {
    engine.release_at(t.id, StorageCategory::stash, xb, m_spec.layer, done);
    StashState& st = held_stash(wf);
    if (m_spec.with_values) st.x[k].reset();
    --st.live;
  }
  bs.clear();
  --bp.live;
}

template <typename T>
void WeightStationaryBlock<T>::join_backward(sim::Engine& engine, BackwardPassState& bp, std::uint32_t wf,
                                             std::uint32_t k) {
  const TileFlows& f = m_flows[k];
  Join& jb = bp.tiles[k].join;
  if (!jb.complete(f.lane_exit)) return;
  ValuesPtr<T> sum = jb.sum(f.lane_exit);
  const std::uint32_t depth = jb.depth;
  const Cycle ready = jb.ready;
  jb.clear();
  --bp.live;
  if (f.lane_entry) {
    m_listener.on_backward_output(engine, m_spec.layer, wf, m_tiles[k].row, std::move(sum), depth, ready);
  } else {
    send(engine, bp.live, f.grad_share, wf, Phase::backward, depth, ready, sum);
  }
}

template <typename T>
void WeightStationaryBlock<T>::on_message(sim::Engine& engine, const sim::Message& m) {
  // Each port's handler is its own function, so this dispatcher saves nothing and calls it in tail position.
  switch (static_cast<BlockPort>(m.port)) {
    case BlockPort::lane:
      return on_lane(engine, m);
    case BlockPort::psum:
      return on_psum(engine, m);
    case BlockPort::tangent_shadow:
      return on_tangent_shadow(engine, m);
    case BlockPort::grad_column:
      return on_grad_column(engine, m);
    case BlockPort::grad_share:
      return on_grad_share(engine, m);
    case BlockPort::rebroadcast:
      return on_rebroadcast(engine, m);
  }
  throw std::logic_error("block: unknown port");
}

template <typename T>
void WeightStationaryBlock<T>::on_lane(sim::Engine& engine, const sim::Message& m) {
  PassState& pass = passes(m.phase).at(m.serial);
  --pass.live;  // delivered
  receive_lane(engine, pass, m.serial, m.slot, values_of<T>(engine.payload(m)), m.depth, engine.now(),
               m.phase);
  settle(passes(m.phase), pass, m.serial);
}

template <typename T>
void WeightStationaryBlock<T>::on_psum(sim::Engine& engine, const sim::Message& m) {
  PassState& pass = passes(m.phase).at(m.serial);
  if (pass.joins[m.slot].add_incoming(engine.payload(m), m.depth, engine.now()))
    --pass.live;  // delivered into a join that holds already
  join_forward(engine, pass, m.serial, m.slot, m.phase);
  settle(passes(m.phase), pass, m.serial);
}

template <typename T>
void WeightStationaryBlock<T>::on_tangent_shadow(sim::Engine& /*engine*/, const sim::Message& m) {
  // Only counted: the values rode in the primal message.
  PassState& pass = passes(m.phase).at(m.serial);
  --pass.live;
  settle(passes(m.phase), pass, m.serial);
}

template <typename T>
void WeightStationaryBlock<T>::on_grad_column(sim::Engine& engine, const sim::Message& m) {
  BackwardPassState& bp = m_backward_passes.at(m.serial);
  --bp.live;
  receive_dz(engine, bp, m.serial, m.slot, values_of<T>(engine.payload(m)), m.depth, engine.now());
  settle(m_backward_passes, bp, m.serial);
  settle_stash(m.serial);
}

template <typename T>
void WeightStationaryBlock<T>::on_grad_share(sim::Engine& engine, const sim::Message& m) {
  BackwardPassState& bp = m_backward_passes.at(m.serial);
  if (bp.tiles[m.slot].join.add_incoming(engine.payload(m), m.depth, engine.now()))
    --bp.live;  // delivered into a join that holds already
  join_backward(engine, bp, m.serial, m.slot);
  settle(m_backward_passes, bp, m.serial);
}

template <typename T>
void WeightStationaryBlock<T>::on_rebroadcast(sim::Engine& engine, const sim::Message& m) {
  BackwardPassState& bp = m_backward_passes.at(m.serial);
  --bp.live;
  receive_rebroadcast(engine, bp, m.serial, m.slot, values_of<T>(engine.payload(m)), m.depth, engine.now());
  settle(m_backward_passes, bp, m.serial);
  settle_stash(m.serial);
}

template <typename T>
void WeightStationaryBlock<T>::assemble(sim::Matrix<T> TileSlice::*slice,
                                        std::vector<T> TileSlice::*bias_slice, sim::Matrix<double>& weights,
                                        std::vector<double>& bias) const {
  weights = sim::Matrix<double>(m_spec.d_in, m_spec.d_out);
  bias.assign(m_spec.has_bias ? m_spec.d_out : 0, 0.0);
  if (!m_spec.with_values) return;
  for (const TileSlice& t : m_tiles) {
    const Range I = m_rows[t.row];
    const Range J = m_cols[t.col];
    const sim::Matrix<T>& w = t.*slice;
    for (std::uint32_t a = 0; a < I.size; ++a)  // row by row: contiguous on both sides
      std::copy(w.row(a), w.row(a) + J.size, weights.row(I.begin + a) + J.begin);
    const std::vector<T>& v = t.*bias_slice;
    std::copy(v.begin(), v.end(), bias.begin() + J.begin);
  }
}

template <typename T>
void WeightStationaryBlock<T>::collect_gradients(sim::Matrix<double>& weights,
                                                 std::vector<double>& bias) const {
  assemble(&TileSlice::grad, &TileSlice::bias_grad, weights, bias);
}

template <typename T>
void WeightStationaryBlock<T>::collect_parameters(sim::Matrix<double>& weights,
                                                  std::vector<double>& bias) const {
  assemble(&TileSlice::weights, &TileSlice::bias, weights, bias);
}

template class WeightStationaryBlock<float>;
template class WeightStationaryBlock<double>;

}  // namespace spatialsim::mappings
