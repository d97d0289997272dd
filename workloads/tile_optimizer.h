#pragma once
// The end-of-step update of a chain of weight-stationary blocks (MODEL.md section 6): every tile applies
// the optimizer to its own slice, with its state kept on the tile, so the update costs no hops. Shared by
// NetworkProgram and reversible::ReversibleProgram.
//
// Usage:
//   TileOptimizer<double> updates;
//   updates.configure(optimizer, learning_rates, blocks, with_values);  // once; one rate per layer
//   updates.record_state(engine, blocks, weight_bytes);          // each step, fresh engine
//   updates.schedule(engine, blocks);                            // once the step has drained
//   updates.update_tile(engine, blocks, layer, tile, weight_bytes);  // on each posted message

#include <cstdint>
#include <memory>
#include <vector>

#include "mappings/weight_stationary_block.h"
#include "workloads/optimizers/i_optimizer.h"

namespace spatialsim::workloads {

template <typename T>
class TileOptimizer {
 public:
  using Blocks = std::vector<std::unique_ptr<mappings::WeightStationaryBlock<T>>>;

  // `optimizer` null: no update. `learning_rates`: one per layer (split-fg scales the trunk's). The state
  // starts at zero.
  void configure(const Optimizer* optimizer, std::vector<double> learning_rates, const Blocks& blocks,
                 bool with_values);
  bool active() const { return m_optimizer != nullptr; }
  // The optimizer state as resident storage (category optimizer) in a fresh engine.
  void record_state(sim::Engine& engine, const Blocks& blocks, std::uint32_t weight_bytes) const;
  // One local message per tile at now() (phase update): port ChainPort::update (chain_ports.h), group =
  // layer, slot = tile index; the program passes each to update_tile().
  void schedule(sim::Engine& engine, const Blocks& blocks);
  void update_tile(sim::Engine& engine, Blocks& blocks, std::uint32_t layer, std::uint32_t tile_index,
                   std::uint32_t weight_bytes);

 private:
  const Optimizer* m_optimizer = nullptr;
  std::vector<double> m_learning_rates;              // per layer
  std::uint64_t m_update_count = 0;                  // steps updated so far
  std::vector<std::vector<std::vector<T>>> m_state;  // [layer][tile]: the weights' state, then the bias'
};

extern template class TileOptimizer<float>;
extern template class TileOptimizer<double>;

}  // namespace spatialsim::workloads
