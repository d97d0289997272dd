#include "workloads/tile_optimizer.h"

#include <algorithm>
#include <stdexcept>

#include "workloads/chain_ports.h"

namespace spatialsim::workloads {

template <typename T>
void TileOptimizer<T>::configure(const Optimizer* optimizer, std::vector<double> learning_rates,
                                 const Blocks& blocks, bool with_values) {
  if (learning_rates.size() != blocks.size())
    throw std::logic_error("tile optimizer: one learning rate per layer expected");
  m_optimizer = optimizer;
  m_learning_rates = std::move(learning_rates);
  m_update_count = 0;
  m_state.assign(blocks.size(), {});
  if (optimizer == nullptr) return;
  for (std::size_t l = 0; l < blocks.size(); ++l) {
    for (std::uint32_t k = 0; k < blocks[l]->tiles().size(); ++k) {
      const std::size_t n = with_values ? blocks[l]->parameter_count(k) : 0;
      m_state[l].emplace_back(n * optimizer->state_per_parameter(), T{0});
    }
  }
}

template <typename T>
void TileOptimizer<T>::record_state(sim::Engine& engine, const Blocks& blocks,
                                    std::uint32_t weight_bytes) const {
  if (m_optimizer == nullptr) return;
  for (std::size_t l = 0; l < blocks.size(); ++l) {
    const auto& tiles = blocks[l]->tiles();
    for (std::uint32_t k = 0; k < tiles.size(); ++k) {
      engine.store(tiles[k].id, sim::StorageCategory::optimizer,
                   blocks[l]->parameter_count(k) * m_optimizer->state_per_parameter() * weight_bytes,
                   static_cast<std::uint32_t>(l));
    }
  }
}

template <typename T>
void TileOptimizer<T>::schedule(sim::Engine& engine, const Blocks& blocks) {
  if (m_optimizer == nullptr) return;
  ++m_update_count;
  for (std::size_t l = 0; l < blocks.size(); ++l) {
    const auto& tiles = blocks[l]->tiles();
    for (std::uint32_t k = 0; k < tiles.size(); ++k) {
      engine.post_local(sim::Message{.dst = tiles[k].id,
                                     .phase = sim::Phase::update,
                                     .port = port_id(ChainPort::update),
                                     .group = static_cast<std::uint32_t>(l),
                                     .slot = k},
                        engine.now());
    }
  }
}

template <typename T>
void TileOptimizer<T>::update_tile(sim::Engine& engine, Blocks& blocks, std::uint32_t layer,
                                   std::uint32_t tile_index, std::uint32_t weight_bytes) {
  auto& t = blocks[layer]->tiles()[tile_index];
  const std::uint64_t parameters = blocks[layer]->parameter_count(tile_index);
  const std::uint32_t state = m_optimizer->state_per_parameter();
  // Reads parameter, gradient and state; writes parameter and state; all on the tile itself.
  engine.access_sram(t.id, parameters * (3 + 2 * state) * weight_bytes, sim::Phase::update);
  engine.compute(t.id, 2 * parameters * m_optimizer->multiply_adds_per_parameter(), sim::Phase::update,
                 engine.now());
  if (!blocks[layer]->spec().with_values) return;
  std::vector<T>& s = m_state[layer][tile_index];
  const double lr = m_learning_rates[layer];
  m_optimizer->update(t.weights.data(), t.grad.data(), s.data(), t.weights.size(), lr, m_update_count);
  if (!t.bias.empty()) {  // the bias's state follows the weights' state
    m_optimizer->update(t.bias.data(), t.bias_grad.data(), s.data() + t.weights.size() * state, t.bias.size(),
                        lr, m_update_count);
  }
  std::fill(t.grad.values().begin(), t.grad.values().end(), T{0});
  std::fill(t.bias_grad.begin(), t.bias_grad.end(), T{0});
}

template class TileOptimizer<float>;
template class TileOptimizer<double>;

}  // namespace spatialsim::workloads
