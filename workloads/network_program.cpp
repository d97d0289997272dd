#include "workloads/network_program.h"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace spatialsim::workloads {

using mappings::make_values;
using mappings::Range;
using mappings::slice_columns;
using mappings::ValuesPtr;
using sim::Cycle;
using sim::MessageKind;
using sim::Phase;
using sim::StorageCategory;

namespace {

// The output column of `target` that starts its recomputation episodes: the one whose signals to the
// checkpoint's lane entries (on `from`) travel the fewest hops in all, the lowest index on a tie. Fixed
// before the run, so that which tile signals, and so the byte-hops and the depth, do not depend on which
// column's dL/dY happens to arrive first (compute time, or the order of events within a cycle, would decide
// that).
template <typename Block>
std::uint32_t restart_column(const Block& target, const Block& from, const sim::Grid& grid) {
  std::uint32_t best = 0;
  std::uint64_t best_hops = UINT64_MAX;
  for (std::uint32_t j = 0; j < target.spec().layout.cols; ++j) {
    std::uint64_t hops = 0;
    for (std::uint32_t i = 0; i < from.spec().layout.rows; ++i)
      hops += grid.hops(target.output_tile(j), from.lane_entry_tile(i));
    if (hops < best_hops) {
      best = j;
      best_hops = hops;
    }
  }
  return best;
}

}  // namespace

template <typename T>
NetworkProgram<T>::NetworkProgram(const NetworkSetup& setup, const sim::Grid& grid, const Schedule& schedule)
    : m_setup(setup), m_grid(grid), m_schedule(schedule) {
  const std::uint32_t L = m_setup.model.layers();
  m_fg = m_schedule.forward_gradient();
  if (m_fg != nullptr) {
    // The schedule checked splitfg.split against the configured model; this one must be that model.
    if (m_fg->split >= L)
      throw std::logic_error("network: the forward-gradient plan splits at layer " +
                             std::to_string(m_fg->split) + ", leaving no head in a " + std::to_string(L) +
                             "-layer model");
    m_trunk = m_fg->trunk_layers(L);
  }
  std::vector<mappings::BlockSpec> specs = block_specs(m_setup);
  for (std::uint32_t l = 0; l < L; ++l) {
    specs[l].tangents = l < m_trunk ? m_fg->tangents : 0;
    specs[l].input_tangents = l > 0;  // dx_0 = 0
  }
  m_blocks = make_blocks<T>(std::move(specs), grid, *this);
  for (std::uint32_t l = 0; l + 1 < L; ++l) {
    m_plans.push_back(
        mappings::plan_redistribution(m_blocks[l]->col_ranges(), m_blocks[l + 1]->row_ranges()));
    const auto& from = *m_blocks[l];
    const auto& to = *m_blocks[l + 1];
    TransferPaths& paths = m_paths.emplace_back();
    for (std::uint32_t id = 0; id < m_plans[l].transfers.size(); ++id) {
      const mappings::Transfer& tr = m_plans[l].transfers[id];
      const std::uint64_t bytes_per_token = std::uint64_t{m_setup.bytes.activation} * tr.features.size;
      paths.forward.push_back({.base = {.src = from.output_tile(tr.producer_col),
                                        .dst = to.lane_entry_tile(tr.consumer_row),
                                        .kind = MessageKind::redistribution,
                                        .port = port_id(Port::redistribute_forward),
                                        .group = l + 1,
                                        .slot = id},
                               .bytes_per_token = bytes_per_token});
      paths.backward.push_back({.base = {.src = to.lane_entry_tile(tr.consumer_row),
                                         .dst = from.output_tile(tr.producer_col),
                                         .kind = MessageKind::redistribution,
                                         .port = port_id(Port::redistribute_backward),
                                         .group = l,
                                         .slot = id},
                                .bytes_per_token = bytes_per_token});
    }
  }
  for (std::uint32_t l = 0; l < L; ++l) {
    m_forward_stash.push_back(m_schedule.forward_stash(l));
    m_episodes.push_back(m_schedule.recompute_before_backward(l));
  }

  const auto G = static_cast<std::uint32_t>(m_setup.wavefront_tokens.size());
  for (std::uint32_t l = 0; l < L; ++l) {
    const std::uint32_t rows = m_blocks[l]->spec().layout.rows;
    const std::uint32_t cols = m_blocks[l]->spec().layout.cols;
    m_forward_pieces.push_back(mappings::item_slots<Gather>(G, rows));
    m_backward_pieces.push_back(mappings::item_slots<Gather>(G, cols));
    m_held.push_back(mappings::item_slots<HeldGradient>(G, cols));
  }
  m_injection = HostInjection(m_setup, /*target_group=*/L - 1);
  m_restart_column.assign(L, 0);
  for (std::uint32_t l = 0; l < L; ++l)
    if (m_episodes[l] != nullptr)
      m_restart_column[l] = restart_column(*m_blocks[l], *m_blocks[m_episodes[l]->from_layer], grid);
  m_episode_target.assign(G, 0);
  m_checkpoints.assign(G, 0);

  LossStageSetup ls = loss_stage_setup(m_setup, *m_blocks.back());
  // Pure forward gradients need no dL/dY on the grid beyond the output tiles' own shares of d_k.
  ls.wants_gradient = m_schedule.trains() && !(m_fg != nullptr && m_trunk == L);
  ls.tangents = m_fg != nullptr && m_trunk == L ? m_fg->tangents : 0;
  m_loss = std::make_unique<LossStage<T>>(std::move(ls), *this);
  if (m_fg != nullptr) setup_forward_gradient();
}

template <typename T>
void NetworkProgram<T>::load(const NetworkParameters& parameters) {
  load_parameters(m_blocks, parameters);
}

template <typename T>
void NetworkProgram<T>::start_step(sim::Engine& engine, const StepData* data) {
  if (m_setup.with_values && data == nullptr)
    throw std::logic_error("network: arithmetic mode needs step data");
  m_data = data;
  m_loss->reset(m_setup.model.outputs());
  if (m_fg != nullptr) begin_forward_gradient_step();
  ++m_steps_started;
  std::fill(m_checkpoints.begin(), m_checkpoints.end(), 0u);
  record_resident_storage(engine, m_blocks, m_updates, m_schedule.trains(), m_setup.bytes.weight);
  m_injection.schedule(engine, *m_blocks.front());
}

template <typename T>
void NetworkProgram<T>::on_program_message(sim::Engine& engine, const sim::Message& m) {
  switch (m.port) {
    case port_id(ChainPort::inject):
      m_injection.inject(engine, *m_blocks.front(), *m_blocks.back(), m.serial, m_data);
      return;
    case port_id(ChainPort::host_input):
      enter(engine, 0, m.serial, m.slot, mappings::values_of<T>(engine.payload(m)), m.depth, Phase::forward);
      return;
    case port_id(Port::redistribute_forward):
      receive_forward_piece(engine, m);
      return;
    case port_id(Port::redistribute_backward):
      receive_backward_piece(engine, m);
      return;
    case port_id(Port::recompute_signal):
      restart_from_checkpoint(engine, m);
      return;
    case port_id(Port::tangent_shadow):
      return;  // only counted: the values rode in the primal piece
    case port_id(Port::scalar_reduce):
    case port_id(Port::scalar_broadcast):
      m_scalars->on_message(engine, m);
      return;
    default:
      if (serve_shared_port(engine, m, *m_loss, m_updates, m_blocks, m_setup.bytes.weight)) return;
  }
  throw std::logic_error("network: unknown port");
}

template <typename T>
void NetworkProgram<T>::on_forward_output(sim::Engine& engine, std::uint32_t layer, std::uint32_t wf,
                                          std::uint32_t col, ValuesPtr<T> y, std::uint32_t depth, Cycle ready,
                                          Phase phase) {
  if (phase == Phase::recompute && layer == m_episode_target[wf]) {
    // The episode has rebuilt its target's stash; the recomputed outputs themselves are not needed.
    finish_recomputed_column(engine, layer, wf, col, depth, ready);
    return;
  }
  if (layer + 1 == layers()) {
    m_loss->on_output(engine, wf, col, std::move(y), depth, ready);
    return;
  }
  if (layer + 1 == m_trunk)
    y = split_off_tangents(engine, wf, col, y, ready);  // the head gets the primal only
  const Range J = m_blocks[layer]->col_ranges()[col];
  for (std::uint32_t id : m_plans[layer].by_col[col]) {
    const mappings::Transfer& tr = m_plans[layer].transfers[id];
    const sim::Message m = m_paths[layer].forward[id].make(wf, tokens(wf), phase, depth);
    // The tangent bytes first: on finite links the piece then arrives last, when its values are all in.
    if (layer + 1 < m_trunk) send_tangent_shadow(engine, m, ready);
    engine.send(m, ready, slice_columns(y, tr.features.begin - J.begin, tr.features.size));
  }
}

template <typename T>
void NetworkProgram<T>::receive_forward_piece(sim::Engine& engine, const sim::Message& m) {
  const std::uint32_t layer = m.group;
  const mappings::Transfer& tr = m_plans[layer - 1].transfers[m.slot];
  const std::uint32_t row = tr.consumer_row;
  auto& block = *m_blocks[layer];
  const std::uint32_t expected = m_plans[layer - 1].pieces_per_row[row];
  if (expected == 1) {
    enter(engine, layer, m.serial, row, mappings::values_of<T>(engine.payload(m)), m.depth, m.phase);
    return;
  }
  // Several producer columns feed this lane: gather the pieces on the lane entry (counted as transit).
  const Range I = block.row_ranges()[row];
  const sim::TileId here = block.lane_entry_tile(row);
  if (!open_gather(m_forward_pieces[layer], m.serial, row)
           .add(engine, m, tokens(m.serial), I.size, tr.features.begin - I.begin, expected, here, true,
                m_setup.with_values, static_cast<std::uint32_t>(streams(layer))))
    return;
  Gathered<T> x =
      close_gather(engine, m_forward_pieces[layer], m.serial, row, here, layer, m_setup.with_values);
  enter(engine, layer, m.serial, row, std::move(x.values), x.depth, m.phase);
}

template <typename T>
void NetworkProgram<T>::on_loss_gradient(sim::Engine& engine, std::uint32_t wf, std::uint32_t col,
                                         ValuesPtr<T> dy, std::uint32_t depth, Cycle ready) {
  deliver_output_gradient(engine, layers() - 1, wf, col, std::move(dy), depth, ready);
}

template <typename T>
void NetworkProgram<T>::on_backward_output(sim::Engine& engine, std::uint32_t layer, std::uint32_t wf,
                                           std::uint32_t row, ValuesPtr<T> dx, std::uint32_t depth,
                                           Cycle ready) {
  // dX of layer `layer` is dY of layer - 1: send each piece back to the producer's output tile.
  const Range I = m_blocks[layer]->row_ranges()[row];
  for (std::uint32_t id : m_plans[layer - 1].by_row[row]) {
    const mappings::Transfer& tr = m_plans[layer - 1].transfers[id];
    engine.send(m_paths[layer - 1].backward[id].make(wf, tokens(wf), Phase::backward, depth), ready,
                slice_columns(dx, tr.features.begin - I.begin, tr.features.size));
  }
}

template <typename T>
void NetworkProgram<T>::receive_backward_piece(sim::Engine& engine, const sim::Message& m) {
  const std::uint32_t layer = m.group;
  const mappings::Transfer& tr = m_plans[layer].transfers[m.slot];
  const std::uint32_t col = tr.producer_col;
  auto& block = *m_blocks[layer];
  const std::uint32_t expected = m_plans[layer].pieces_per_col[col];
  if (expected == 1) {
    deliver_output_gradient(engine, layer, m.serial, col, mappings::values_of<T>(engine.payload(m)), m.depth,
                            engine.now());
    return;
  }
  const Range J = block.col_ranges()[col];
  const sim::TileId here = block.output_tile(col);
  if (!open_gather(m_backward_pieces[layer], m.serial, col)
           .add(engine, m, tokens(m.serial), J.size, tr.features.begin - J.begin, expected, here, true,
                m_setup.with_values))
    return;
  Gathered<T> dy =
      close_gather(engine, m_backward_pieces[layer], m.serial, col, here, layer, m_setup.with_values);
  deliver_output_gradient(engine, layer, m.serial, col, std::move(dy.values), dy.depth, engine.now());
}

template <typename T>
void NetworkProgram<T>::enter(sim::Engine& engine, std::uint32_t layer, std::uint32_t wf, std::uint32_t row,
                              ValuesPtr<T> x, std::uint32_t depth, Phase phase) {
  mappings::XStash stash = m_forward_stash[layer];
  if (phase == Phase::recompute) {
    const RecomputeEpisode* ep = m_episodes[m_episode_target[wf]];
    stash = ep->stash.at(layer - ep->from_layer);
  }
  if (stash == mappings::XStash::checkpoint && row == 0) {
    m_max_checkpoints = std::max(m_max_checkpoints, ++m_checkpoints[wf]);
  }
  m_blocks[layer]->enter_lane(engine, wf, row, std::move(x), depth, engine.now(), stash, phase);
}

template <typename T>
void NetworkProgram<T>::deliver_output_gradient(sim::Engine& engine, std::uint32_t layer, std::uint32_t wf,
                                                std::uint32_t col, ValuesPtr<T> dy, std::uint32_t depth,
                                                Cycle ready) {
  if (layer + 1 == m_trunk) {  // split-fg: u = dL/dh is at the split; the trunk runs no backward pass
    take_split_gradient(engine, wf, col, dy, depth, ready);
    return;
  }
  auto& block = *m_blocks[layer];
  const RecomputeEpisode* ep = m_episodes[layer];
  if (ep == nullptr) {
    block.start_backward(engine, wf, col, std::move(dy), depth, ready);
    return;
  }
  HeldSlots& slots = m_held[layer];
  mappings::WavefrontItems<HeldGradient>& columns = slots.at(wf);
  HeldGradient& held = columns.items[col];
  if (held.recomputed) {  // another column's gradient started the episode, and this column is rebuilt
    held.note(depth, ready);
    const std::uint32_t stamp = held.depth;
    const Cycle from = held.ready;
    held = HeldGradient{};
    if (--columns.open == 0) slots.release(wf);
    block.start_backward(engine, wf, col, std::move(dy), stamp, from);
    return;
  }
  // Wait on the output tile (transit) until the recomputation has rebuilt this layer's stash.
  engine.store(block.output_tile(col), StorageCategory::transit,
               activation_bytes(wf, block.col_ranges()[col].size), layer);
  ++columns.open;
  held.dy = std::move(dy);
  held.note(depth, ready);
  held.have_dy = true;
  // One column, fixed per layer, tells the checkpoint's lane entries to restart: one b_p-byte signal each.
  if (col != m_restart_column[layer]) return;
  m_episode_target[wf] = layer;
  const auto& from = *m_blocks[ep->from_layer];
  for (std::uint32_t i = 0; i < from.spec().layout.rows; ++i) {
    engine.send(sim::Message{.src = block.output_tile(col),
                             .dst = from.lane_entry_tile(i),
                             .bytes = m_setup.bytes.partial_sum,
                             .kind = MessageKind::scalar,
                             .phase = Phase::recompute,
                             .depth = depth,
                             .port = port_id(Port::recompute_signal),
                             .group = ep->from_layer,
                             .serial = wf,
                             .slot = i},
                ready);
  }
}

template <typename T>
void NetworkProgram<T>::restart_from_checkpoint(sim::Engine& engine, const sim::Message& signal) {
  const std::uint32_t wf = signal.serial;
  const RecomputeEpisode* ep = m_episodes[m_episode_target[wf]];
  ValuesPtr<T> x = m_blocks[signal.group]->take_checkpoint(engine, wf, signal.slot, ep->release_checkpoint);
  if (ep->release_checkpoint && signal.slot == 0) --m_checkpoints[wf];
  enter(engine, signal.group, wf, signal.slot, std::move(x), signal.depth, Phase::recompute);
}

template <typename T>
void NetworkProgram<T>::finish_recomputed_column(sim::Engine& engine, std::uint32_t layer, std::uint32_t wf,
                                                 std::uint32_t col, std::uint32_t depth, Cycle ready) {
  auto& block = *m_blocks[layer];
  HeldSlots& slots = m_held[layer];
  mappings::WavefrontItems<HeldGradient>& columns = slots.at(wf);
  HeldGradient& held = columns.items[col];
  held.note(depth, ready);
  if (!held.have_dy) {
    held.recomputed = true;  // its gradient is still on the way
    ++columns.open;
    return;
  }
  engine.release(block.output_tile(col), StorageCategory::transit,
                 activation_bytes(wf, block.col_ranges()[col].size), layer);
  HeldGradient h = std::move(held);
  held = HeldGradient{};
  if (--columns.open == 0) slots.release(wf);
  block.start_backward(engine, wf, col, std::move(h.dy), h.depth, h.ready);
}

template <typename T>
mappings::SlotCensus NetworkProgram<T>::wavefront_census() const {
  mappings::SlotCensus c;
  for (const auto* pools : {&m_forward_pieces, &m_backward_pieces})
    for (const auto& pool : *pools) c.count(pool);
  for (const auto& pool : m_held) c.count(pool);
  for (const auto& b : m_blocks) c.count(b->wavefront_census());
  return c;
}

template <typename T>
void NetworkProgram<T>::set_optimizer(const Optimizer* optimizer, double lr) {
  m_lr = lr;
  std::vector<double> rates;
  for (std::uint32_t l = 0; l < layers(); ++l) rates.push_back(learning_rate(l));
  m_updates.configure(optimizer, std::move(rates), m_blocks, m_setup.with_values);
}

template <typename T>
void NetworkProgram<T>::schedule_update(sim::Engine& engine) {
  m_updates.schedule(engine, m_blocks);
}

template <typename T>
NetworkParameters NetworkProgram<T>::gradients() const {
  return collect_gradients(m_blocks);
}

template <typename T>
NetworkParameters NetworkProgram<T>::parameters() const {
  return collect_parameters(m_blocks);
}

// The members defined in network_program_fg.cpp are instantiated there.
template class NetworkProgram<float>;
template class NetworkProgram<double>;

}  // namespace spatialsim::workloads
