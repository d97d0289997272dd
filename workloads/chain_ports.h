#pragma once
// The message ports that every program running a chain of blocks serves: the step's wavefronts from the
// host (a timer per wavefront, then its inputs and its targets), the loss stage's chain of output tiles,
// and the end-of-step update. HostInjection, LossStage and TileOptimizer send on these; a program numbers
// its own ports from ChainPort::first_own. A port only picks the handler: no count or order depends on it.
//
// Usage:
//   enum class Port : std::uint32_t { redistribute = port_id(ChainPort::first_own), ... };
//   switch (message.port) {
//     case port_id(ChainPort::inject): ...
//     case port_id(Port::redistribute): ...
//     default:
//       if (serve_shared_port(engine, message, *m_loss, m_updates, m_blocks, weight_bytes)) return;
//   }

#include <cstdint>
#include <type_traits>

#include "mappings/values.h"
#include "mappings/weight_stationary_block.h"
#include "sim/engine.h"
#include "workloads/block_chain.h"
#include "workloads/loss_stage.h"
#include "workloads/tile_optimizer.h"

namespace spatialsim::workloads {

enum class ChainPort : std::uint32_t {
  inject = mappings::kFirstProgramPort,  // a timer: wavefront message.serial enters from the host now
  host_input,                            // its inputs, on the first block's lane entries (slot: the lane)
  host_target,                           // its targets, on the last block's output tiles (slot: the column)
  loss_reduce,                           // LossStage's chain, towards the last column
  loss_broadcast,                        // and back
  update,                                // a tile's end-of-step update (group: layer, slot: tile index)
  first_own,                             // not a port: where a program's own ports begin
};

// The message.port value of a port of any program's enum.
template <typename PortEnum>
constexpr std::uint32_t port_id(PortEnum port) {
  static_assert(std::is_same_v<std::underlying_type_t<PortEnum>, std::uint32_t>);
  return static_cast<std::uint32_t>(port);
}

// Serves the chain ports every program handles alike: the targets and the loss stage's chain (LossStage)
// and the end-of-step update (TileOptimizer). Returns false for any other port: `inject` and `host_input`
// go to the program's own first and last blocks, and its own ports are its own.
template <typename T>
bool serve_shared_port(sim::Engine& engine, const sim::Message& m, LossStage<T>& loss,
                       TileOptimizer<T>& updates, BlockChain<T>& blocks, std::uint32_t weight_bytes) {
  switch (m.port) {
    case port_id(ChainPort::host_target):
      loss.on_target(engine, m.serial, m.slot, mappings::values_of<T>(engine.payload(m)), m.depth);
      return true;
    case port_id(ChainPort::loss_reduce):
    case port_id(ChainPort::loss_broadcast):
      loss.on_message(engine, m);
      return true;
    case port_id(ChainPort::update):
      updates.update_tile(engine, blocks, m.group, m.slot, weight_bytes);
      return true;
  }
  return false;
}

}  // namespace spatialsim::workloads
