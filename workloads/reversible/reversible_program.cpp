#include "workloads/reversible/reversible_program.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace spatialsim::workloads::reversible {

using mappings::combine;
using mappings::make_values;
using mappings::Range;
using mappings::slice_columns;
using mappings::ValuesPtr;
using mappings::XStash;
using sim::Cycle;
using sim::MessageKind;
using sim::Phase;
using sim::StorageCategory;

namespace {

// The dense layers in CouplingLayers order: the entry layer first (no dX), the exit layer last (linear).
template <typename T>
BlockChain<T> coupling_blocks(const NetworkSetup& setup, const sim::Grid& grid,
                              mappings::BlockListener<T>& listener) {
  if (setup.model.kind != ModelKind::reversible)
    throw std::logic_error("reversible program: a reversible model expected");
  return make_blocks<T>(block_specs(setup), grid, listener);
}

template <typename T>
CouplingGraph make_graph(const NetworkSetup& setup, const BlockChain<T>& blocks) {
  std::vector<std::vector<Range>> rows;
  std::vector<std::vector<Range>> cols;
  for (const auto& b : blocks) {
    rows.push_back(b->row_ranges());
    cols.push_back(b->col_ranges());
  }
  return CouplingGraph(setup.model.coupling_blocks(), setup.model.widths.at(1), rows, cols);
}

}  // namespace

template <typename T>
ReversibleProgram<T>::ReversibleProgram(const NetworkSetup& setup, const sim::Grid& grid,
                                        const Schedule& schedule)
    : m_setup(setup),
      m_grid(grid),
      m_schedule(schedule),
      m_blocks(coupling_blocks<T>(setup, grid, *this)),
      m_graph(make_graph(setup, m_blocks)),
      m_injection(setup, /*target_group=*/m_graph.layers().exit()) {
  LossStageSetup ls = loss_stage_setup(m_setup, block(m_graph.layers().exit()));
  ls.wants_gradient = trains();
  m_loss = std::make_unique<LossStage<T>>(std::move(ls), *this);
}

template <typename T>
void ReversibleProgram<T>::load(const NetworkParameters& parameters) {
  load_parameters(m_blocks, parameters);
}

template <typename T>
void ReversibleProgram<T>::set_optimizer(const Optimizer* optimizer, double lr) {
  m_updates.configure(optimizer, std::vector<double>(m_blocks.size(), lr), m_blocks, m_setup.with_values);
}

template <typename T>
void ReversibleProgram<T>::schedule_update(sim::Engine& engine) {
  m_updates.schedule(engine, m_blocks);
}

template <typename T>
void ReversibleProgram<T>::start_step(sim::Engine& engine, const StepData* data) {
  if (m_setup.with_values && data == nullptr)
    throw std::logic_error("reversible program: arithmetic mode needs step data");
  m_data = data;
  m_drift = ReconstructionDrift{};
  m_loss->reset(m_setup.model.outputs());
  record_resident_storage(engine, m_blocks, m_updates, trains(), m_setup.bytes.weight);

  const auto G = static_cast<std::uint32_t>(m_setup.wavefront_tokens.size());
  m_sites.clear();
  m_forward_values.assign(m_graph.value_count(), {});
  for (std::uint32_t v = 0; v < m_graph.value_count(); ++v) {
    const std::size_t columns = m_graph.home_ranges(v).size();
    m_sites.emplace_back(G, [columns] { return ValueSites{std::vector<Site>(columns)}; });
    if (m_setup.with_values && trains() && !m_graph.is_last(v))
      for (std::uint32_t wf = 0; wf < G; ++wf)
        m_forward_values[v].emplace_back(tokens(wf), m_setup.model.widths.at(1) / 2);
  }
  m_lanes.clear();
  for (std::uint32_t l = 0; l < m_blocks.size(); ++l) {
    const std::uint32_t rows = block(l).spec().layout.rows;
    m_lanes.push_back(mappings::item_slots<Gather>(G, rows));
  }
  const std::uint32_t entry_columns = block(CouplingLayers::entry()).spec().layout.cols;
  m_entry_gradient = std::make_unique<PieceGathers<T>>(mappings::item_slots<Gather>(G, entry_columns));

  m_injection.schedule(engine, block(CouplingLayers::entry()));
}

template <typename T>
mappings::SlotCensus ReversibleProgram<T>::wavefront_census() const {
  mappings::SlotCensus c;
  if (m_entry_gradient) c.count(*m_entry_gradient);
  for (const auto& pool : m_sites) c.count(pool);
  for (const auto& pool : m_lanes) c.count(pool);
  for (const auto& b : m_blocks) c.count(b->wavefront_census());
  return c;
}

template <typename T>
void ReversibleProgram<T>::settle_sites(std::uint32_t value, std::uint32_t wf) {
  const ValueSites* sites = m_sites[value].find(wf);
  if (sites == nullptr) return;
  for (const Site& s : sites->columns)
    if (!s.idle()) return;
  m_sites[value].release(wf);
}

// ---- plumbing ----

template <typename T>
void ReversibleProgram<T>::send_along(sim::Engine& engine, std::uint32_t edge, std::uint32_t wf,
                                      std::uint32_t j, const ValuesPtr<T>& v, std::uint32_t depth,
                                      Cycle ready, Phase phase) {
  const CouplingEdge& e = m_graph.edge(edge);
  const Range home = home_range(e.value, j);
  for (std::uint32_t id : e.plan.by_col[j]) {
    const mappings::Transfer& tr = e.plan.transfers[id];
    const auto& consumer = block(e.layer);
    engine.send(sim::Message{.src = home_tile(e.value, j),
                             .dst = e.consumer == Consumer::lanes ? consumer.lane_entry_tile(tr.consumer_row)
                                                                  : consumer.output_tile(tr.consumer_row),
                             .bytes = activation_bytes(wf, tr.features.size),
                             .kind = MessageKind::redistribution,
                             .phase = phase,
                             .depth = depth,
                             .port = port_id(Port::value),
                             .group = e.layer,
                             .serial = wf,
                             .slot = m_graph.transfer_slot(edge, id)},
                std::max(ready, engine.now()),
                slice_columns(v, tr.features.begin - home.begin, tr.features.size));
  }
}

template <typename T>
void ReversibleProgram<T>::on_message(sim::Engine& engine, const sim::Message& m) {
  if (m.port < mappings::kFirstProgramPort) {
    m_blocks[m.group]->on_message(engine, m);
    return;
  }
  switch (m.port) {
    case port_id(ChainPort::inject):
      m_injection.inject(engine, block(CouplingLayers::entry()), block(m_graph.layers().exit()), m.serial,
                         m_data);
      return;
    case port_id(ChainPort::host_input):
      // The entry layer keeps its inputs (and Z) for its own backward pass, as backprop would.
      block(CouplingLayers::entry())
          .enter_lane(engine, m.serial, m.slot, mappings::values_of<T>(engine.payload(m)), m.depth,
                      engine.now(), trains() ? XStash::replicate : XStash::none, Phase::forward);
      return;
    case port_id(Port::value):
      receive_value(engine, m);
      return;
    case port_id(Port::gradient):
      receive_gradient(engine, m);
      return;
    case port_id(Port::reconstructed):
      receive_reconstructed(engine, m);
      return;
    default:
      if (serve_shared_port(engine, m, *m_loss, m_updates, m_blocks, m_setup.bytes.weight)) return;
  }
  throw std::logic_error("reversible program: unknown port");
}

// ---- forward (and recompute) ----

template <typename T>
void ReversibleProgram<T>::receive_value(sim::Engine& engine, const sim::Message& m) {
  const auto [e, tr] = m_graph.edge_and_transfer(m.slot);
  const std::uint32_t at = tr.consumer_row;  // a lane (lanes) or a home column (skip)
  const std::uint32_t offset = e.consumer_offset[at] + tr.features.begin - e.consumer_ranges[at].begin;
  auto& consumer = block(e.layer);
  if (e.consumer == Consumer::skip) {
    Site& s = site(e.skip_value, m.serial, at);
    const bool complete = s.skip.add(engine, m, tokens(m.serial), home_range(e.skip_value, at).size, offset,
                                     m_graph.skip_pieces(e.skip_value, at), consumer.output_tile(at),
                                     s.layer_out.present, m_setup.with_values);
    if (complete) try_forward_sum(engine, e.skip_value, m.serial, at);
    settle_sites(e.skip_value, m.serial);
    return;
  }
  const sim::TileId entry_tile = consumer.lane_entry_tile(at);
  if (!open_gather(m_lanes[e.layer], m.serial, at)
           .add(engine, m, tokens(m.serial), consumer.row_ranges()[at].size, offset,
                m_graph.lane_pieces(e.layer, at), entry_tile, true, m_setup.with_values))
    return;
  Gathered<T> x =
      close_gather(engine, m_lanes[e.layer], m.serial, at, entry_tile, e.layer, m_setup.with_values);
  // F and G stash nothing in the forward pass; a recompute keeps its inputs for the backward pass that
  // follows it; the exit layer keeps its inputs as backprop would.
  XStash stash = XStash::none;
  if (m.phase == Phase::recompute || (e.layer == m_graph.layers().exit() && trains()))
    stash = XStash::replicate;
  consumer.enter_lane(engine, m.serial, at, std::move(x.values), x.depth, x.ready, stash, m.phase);
}

template <typename T>
void ReversibleProgram<T>::on_forward_output(sim::Engine& engine, std::uint32_t layer, std::uint32_t wf,
                                             std::uint32_t col, ValuesPtr<T> y, std::uint32_t depth,
                                             Cycle ready, Phase phase) {
  if (layer == m_graph.layers().exit()) {
    m_loss->on_output(engine, wf, col, std::move(y), depth, ready);
    return;
  }
  if (layer == CouplingLayers::entry()) {  // split the column into its a_0 and b_0 parts
    for (std::uint32_t v : {CouplingGraph::a(0), CouplingGraph::b(0)}) {
      const Range r = home_range(v, col);
      if (r.size != 0) {
        value_computed(engine, v, wf, col, slice_columns(y, m_graph.home_offset(v, col), r.size), depth,
                       ready);
        settle_sites(v, wf);
      }
    }
    return;
  }
  const std::uint32_t v = m_graph.value_of_layer(layer);
  Site& s = site(v, wf, col);
  if (phase == Phase::forward) {
    s.layer_out = {std::move(y), depth, ready, true};
    try_forward_sum(engine, v, wf, col);
  } else {
    s.recomputed = {std::move(y), depth, ready, true};
    try_subtract(engine, v, wf, col);
    try_backward(engine, v, wf, col);
  }
  settle_sites(v, wf);
}

template <typename T>
void ReversibleProgram<T>::try_forward_sum(sim::Engine& engine, std::uint32_t value, std::uint32_t wf,
                                           std::uint32_t j) {
  Site& s = site(value, wf, j);
  if (!s.layer_out.present || s.skip.pieces < m_graph.skip_pieces(value, j)) return;
  const Gathered<T> skip =
      s.skip.finish(engine, home_tile(value, j), m_graph.home_layer(value), m_setup.with_values);
  const std::uint32_t depth = std::max(s.layer_out.depth, skip.depth);
  const Cycle ready = std::max(s.layer_out.ready, skip.ready);
  ValuesPtr<T> sum = combine(skip.values, s.layer_out.values, T{1});  // x1 + F(x2), or x2 + G(y1)
  s.layer_out = Stamped{};
  value_computed(engine, value, wf, j, std::move(sum), depth, ready);
}

template <typename T>
void ReversibleProgram<T>::value_computed(sim::Engine& engine, std::uint32_t value, std::uint32_t wf,
                                          std::uint32_t j, ValuesPtr<T> v, std::uint32_t depth, Cycle ready) {
  const Range r = home_range(value, j);
  if (!m_forward_values[value].empty()) {  // the drift reference: host-side, not on the machine
    sim::Matrix<T>& copy = m_forward_values[value][wf];
    for (std::uint32_t t = 0; t < copy.rows(); ++t)
      for (std::uint32_t k = 0; k < r.size; ++k) copy(t, r.begin + k) = v->matrix(t, k);
  }
  if (trains() && m_graph.is_last(value)) {
    // The trunk's last output is all the trunk keeps for the backward pass.
    const std::uint64_t bytes = activation_bytes(wf, r.size);
    engine.store_at(home_tile(value, j), StorageCategory::stash, bytes, m_graph.home_layer(value), ready);
    engine.access_sram(home_tile(value, j), bytes, Phase::forward);
    site(value, wf, j).value = {v, depth, ready, true};
  }
  for (std::uint32_t e : m_graph.out_edges(value))
    send_along(engine, e, wf, j, v, depth, ready, Phase::forward);
}

// ---- backward: reconstruction ----

template <typename T>
void ReversibleProgram<T>::resend_for_recompute(sim::Engine& engine, std::uint32_t value, std::uint32_t wf,
                                                std::uint32_t j, std::uint32_t depth) {
  Site& s = site(value, wf, j);
  s.resent = true;
  for (std::uint32_t e : m_graph.out_edges(value)) {
    const CouplingEdge& edge = m_graph.edge(e);
    if (edge.consumer != Consumer::lanes || edge.layer == m_graph.layers().exit()) continue;
    send_along(engine, e, wf, j, s.value.values, depth, s.value.ready, Phase::recompute);
  }
}

template <typename T>
void ReversibleProgram<T>::try_subtract(sim::Engine& engine, std::uint32_t value, std::uint32_t wf,
                                        std::uint32_t j) {
  Site& s = site(value, wf, j);
  if (!s.value.present || !s.recomputed.present) return;
  const Range r = home_range(value, j);
  const sim::TileId tile = home_tile(value, j);
  const std::uint64_t bytes = activation_bytes(wf, r.size);
  engine.access_sram(tile, bytes, Phase::recompute);
  // a_{k-1} = a_k - F(b_{k-1}), or b_{k-1} = b_k - G(a_k), once both are in: the stash is read then.
  const std::uint32_t depth = std::max(s.value.depth, s.recomputed.depth);
  const Cycle ready = std::max({s.value.ready, s.recomputed.ready, engine.now()});
  engine.release_at(tile, StorageCategory::stash, bytes, m_graph.home_layer(value), ready);
  ValuesPtr<T> previous = combine(s.value.values, s.recomputed.values, T{-1});
  s.value = Stamped{};
  const std::uint32_t edge_id = m_graph.skip_into(value);
  const CouplingEdge& e = m_graph.edge(edge_id);
  if (previous) measure_drift(e.value, wf, r.begin, previous->matrix);
  if (e.value == CouplingGraph::a(0)) return;  // nothing needs a_0 again: the entry layer stashed its inputs
  send_to_skip_home(engine, edge_id, j, tile, wf, r, previous, Phase::recompute, Port::reconstructed, depth,
                    ready);
}

template <typename T>
void ReversibleProgram<T>::measure_drift(std::uint32_t value, std::uint32_t wf, std::uint32_t first,
                                         const sim::Matrix<T>& reconstructed) {
  if (m_forward_values[value].empty()) return;
  const sim::Matrix<T>& forward = m_forward_values[value][wf];
  for (std::uint32_t t = 0; t < reconstructed.rows(); ++t) {
    for (std::uint32_t k = 0; k < reconstructed.cols(); ++k) {
      const double f = static_cast<double>(forward(t, first + k));
      m_drift.max_abs_error =
          std::max(m_drift.max_abs_error, std::abs(static_cast<double>(reconstructed(t, k)) - f));
      m_drift.max_abs_value = std::max(m_drift.max_abs_value, std::abs(f));
    }
  }
}

template <typename T>
void ReversibleProgram<T>::receive_reconstructed(sim::Engine& engine, const sim::Message& m) {
  const auto [e, tr] = m_graph.edge_and_transfer(m.slot);
  const std::uint32_t value = e.value;
  const std::uint32_t j = tr.producer_col;
  const Range r = home_range(value, j);
  const sim::TileId tile = home_tile(value, j);
  Site& s = site(value, m.serial, j);
  if (!s.returned.add(engine, m, tokens(m.serial), r.size, tr.features.begin - r.begin,
                      m_graph.return_pieces(value, j), tile, true, m_setup.with_values))
    return;
  Gathered<T> back = s.returned.finish(engine, tile, m_graph.home_layer(value), m_setup.with_values);
  const std::uint32_t depth = back.depth;
  s.value = {std::move(back.values), depth, back.ready, true};
  const bool home_subtracts = CouplingGraph::stage(value) > 0;  // b_0 only goes on to F_1
  if (home_subtracts) {
    // Held until the home layer's recompute arrives for the next subtraction: short-lived stash.
    const std::uint64_t bytes = activation_bytes(m.serial, r.size);
    engine.store(tile, StorageCategory::stash, bytes, m_graph.home_layer(value));
    engine.access_sram(tile, bytes, Phase::recompute);
  }
  resend_for_recompute(engine, value, m.serial, j, depth);
  if (home_subtracts) {
    try_subtract(engine, value, m.serial, j);
  } else {
    s.value = Stamped{};
  }
  settle_sites(value, m.serial);
}

// ---- backward: gradients ----

template <typename T>
void ReversibleProgram<T>::on_loss_gradient(sim::Engine& engine, std::uint32_t wf, std::uint32_t col,
                                            ValuesPtr<T> dy, std::uint32_t depth, Cycle ready) {
  block(m_graph.layers().exit()).start_backward(engine, wf, col, std::move(dy), depth, ready);
}

template <typename T>
void ReversibleProgram<T>::on_backward_output(sim::Engine& engine, std::uint32_t layer, std::uint32_t wf,
                                              std::uint32_t row, ValuesPtr<T> dx, std::uint32_t depth,
                                              Cycle ready) {
  // dX of a lane is the gradient of the values that fed it: back along the same edges to their homes.
  for (std::uint32_t edge_id : m_graph.lanes_into(layer)) {
    const CouplingEdge& e = m_graph.edge(edge_id);
    for (std::uint32_t id : e.plan.by_row[row]) {
      const mappings::Transfer& tr = e.plan.transfers[id];
      const std::uint32_t at = e.consumer_offset[row] + tr.features.begin - e.consumer_ranges[row].begin;
      engine.send(sim::Message{.src = block(layer).lane_entry_tile(row),
                               .dst = home_tile(e.value, tr.producer_col),
                               .bytes = activation_bytes(wf, tr.features.size),
                               .kind = MessageKind::redistribution,
                               .phase = Phase::backward,
                               .depth = depth,
                               .port = port_id(Port::gradient),
                               .group = m_graph.home_layer(e.value),
                               .serial = wf,
                               .slot = m_graph.transfer_slot(edge_id, id)},
                  ready, slice_columns(dx, at, tr.features.size));
    }
  }
}

template <typename T>
void ReversibleProgram<T>::receive_gradient(sim::Engine& engine, const sim::Message& m) {
  const auto [e, tr] = m_graph.edge_and_transfer(m.slot);
  const std::uint32_t value = e.value;
  const std::uint32_t j = tr.producer_col;
  const Range r = home_range(value, j);
  Site& s = site(value, m.serial, j);
  const bool consumable = CouplingGraph::stage(value) == 0 || s.recomputed.present;
  const bool complete =
      s.gradient.add(engine, m, tokens(m.serial), r.size, tr.features.begin - r.begin,
                     m_graph.gradient_pieces(value, j), home_tile(value, j), consumable, m_setup.with_values);
  // The backward pass has reached the trunk's last output: start reconstructing from it.
  if (m_graph.is_last(value) && !s.resent)
    resend_for_recompute(engine, value, m.serial, j, std::max(s.value.depth, m.depth));
  if (complete) {
    s.gradient_complete = true;
    try_backward(engine, value, m.serial, j);
  }
  settle_sites(value, m.serial);
}

template <typename T>
void ReversibleProgram<T>::try_backward(sim::Engine& engine, std::uint32_t value, std::uint32_t wf,
                                        std::uint32_t j) {
  Site& s = site(value, wf, j);
  const std::uint32_t k = CouplingGraph::stage(value);
  if (!s.gradient_complete || s.backward_started || (k > 0 && !s.recomputed.present)) return;
  s.backward_started = true;
  const Range r = home_range(value, j);
  const sim::TileId tile = home_tile(value, j);
  Gathered<T> gathered = s.gradient.finish(engine, tile, m_graph.home_layer(value), m_setup.with_values);
  const std::uint32_t depth = std::max(gathered.depth, s.recomputed.depth);
  const Cycle ready = std::max({gathered.ready, s.recomputed.ready, engine.now()});
  ValuesPtr<T> g = std::move(gathered.values);
  if (k == 0) {
    entry_gradient_part(engine, value, wf, j, g, depth, ready);
    return;
  }
  s.recomputed = Stamped{};
  // The skip operand received this gradient unchanged (y = x + F(.)): pass it on to its home.
  const std::uint32_t edge_id = m_graph.skip_into(value);
  send_to_skip_home(engine, edge_id, j, tile, wf, r, g, Phase::backward, Port::gradient, depth, ready);
  block(m_graph.home_layer(value)).start_backward(engine, wf, j, std::move(g), depth, ready);
}

template <typename T>
void ReversibleProgram<T>::entry_gradient_part(sim::Engine& engine, std::uint32_t value, std::uint32_t wf,
                                               std::uint32_t j, const ValuesPtr<T>& g, std::uint32_t depth,
                                               Cycle ready) {
  // An entry column's gradient is the concatenation of its a_0 and b_0 parts.
  auto& entry = block(CouplingLayers::entry());
  const Range J = entry.col_ranges()[j];
  std::uint32_t parts = 0;
  for (std::uint32_t v : {CouplingGraph::a(0), CouplingGraph::b(0)})
    parts += home_range(v, j).size != 0 ? 1 : 0;
  // The first part waits for the other on the same tile.
  const sim::TileId tile = entry.output_tile(j);
  const GatherPiece<T> part{.values = g ? &g->matrix : nullptr,
                            .depth = depth,
                            .ready = ready,
                            .bytes = activation_bytes(wf, home_range(value, j).size),
                            .tag = CouplingLayers::entry()};
  if (!open_gather(*m_entry_gradient, wf, j)
           .add(engine, part, tokens(wf), J.size, m_graph.home_offset(value, j), parts, tile, true))
    return;
  Gathered<T> dy =
      close_gather(engine, *m_entry_gradient, wf, j, tile, CouplingLayers::entry(), m_setup.with_values);
  entry.start_backward(engine, wf, j, std::move(dy.values), dy.depth, dy.ready);
}

template <typename T>
NetworkParameters ReversibleProgram<T>::gradients() const {
  return collect_gradients(m_blocks);
}

template <typename T>
NetworkParameters ReversibleProgram<T>::parameters() const {
  return collect_parameters(m_blocks);
}

template <typename T>
void ReversibleProgram<T>::send_to_skip_home(sim::Engine& engine, std::uint32_t edge_id, std::uint32_t j,
                                             sim::TileId tile, std::uint32_t wf, Range r,
                                             const ValuesPtr<T>& values, Phase phase, Port port,
                                             std::uint32_t depth, Cycle ready) {
  const CouplingEdge& e = m_graph.edge(edge_id);
  for (std::uint32_t id : e.plan.by_row[j]) {
    const mappings::Transfer& tr = e.plan.transfers[id];
    engine.send(sim::Message{.src = tile,
                             .dst = home_tile(e.value, tr.producer_col),
                             .bytes = activation_bytes(wf, tr.features.size),
                             .kind = MessageKind::redistribution,
                             .phase = phase,
                             .depth = depth,
                             .port = static_cast<std::uint32_t>(port),
                             .group = m_graph.home_layer(e.value),
                             .serial = wf,
                             .slot = m_graph.transfer_slot(edge_id, id)},
                ready, slice_columns(values, tr.features.begin - r.begin, tr.features.size));
  }
}

template class ReversibleProgram<float>;
template class ReversibleProgram<double>;

}  // namespace spatialsim::workloads::reversible
