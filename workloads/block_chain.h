#pragma once
// A program's dense layers as a chain of weight-stationary blocks, one per placement block, in the model's
// dense-layer order (ModelSpec::dense_layers): how their specs are made, and what a program reads from or
// records for all of them at once. Shared by NetworkProgram and reversible::ReversibleProgram.
//
// Usage:
//   std::vector<mappings::BlockSpec> specs = block_specs(setup);   // a program may adjust them (tangents)
//   BlockChain<T> blocks = make_blocks<T>(std::move(specs), grid, listener);
//   load_parameters(blocks, parameters);   ...   NetworkParameters g = collect_gradients(blocks);
//   record_resident_storage(engine, blocks, updates, trains, setup.bytes.weight);   // each step

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "mappings/weight_stationary_block.h"
#include "sim/engine.h"
#include "workloads/network_setup.h"
#include "workloads/parameters.h"
#include "workloads/tile_optimizer.h"

namespace spatialsim::workloads {

template <typename T>
using BlockChain = std::vector<std::unique_ptr<mappings::WeightStationaryBlock<T>>>;

// One spec per dense layer, on its placement block: every layer but the last applies the activation,
// every layer but the first computes dX (nothing needs the network input's gradient), none carries
// tangents. Throws std::logic_error unless the placement has one block per dense layer.
std::vector<mappings::BlockSpec> block_specs(const NetworkSetup& setup);

template <typename T>
BlockChain<T> make_blocks(std::vector<mappings::BlockSpec> specs, const sim::Grid& grid,
                          mappings::BlockListener<T>& listener) {
  BlockChain<T> blocks;
  for (mappings::BlockSpec& spec : specs)
    blocks.push_back(std::make_unique<mappings::WeightStationaryBlock<T>>(std::move(spec), grid, listener));
  return blocks;
}

// Contract: one LayerParameters per block, shaped as the block's layer.
template <typename T>
void load_parameters(BlockChain<T>& blocks, const NetworkParameters& parameters) {
  for (std::size_t l = 0; l < blocks.size(); ++l)
    blocks[l]->load_parameters(parameters.at(l).weights, parameters.at(l).bias);
}

// The blocks' parameters, assembled from their tiles' slices.
template <typename T>
NetworkParameters collect_parameters(const BlockChain<T>& blocks) {
  NetworkParameters out(blocks.size());
  for (std::size_t l = 0; l < blocks.size(); ++l) blocks[l]->collect_parameters(out[l].weights, out[l].bias);
  return out;
}

// The blocks' accumulated gradients, assembled from their tiles' slices.
template <typename T>
NetworkParameters collect_gradients(const BlockChain<T>& blocks) {
  NetworkParameters out(blocks.size());
  for (std::size_t l = 0; l < blocks.size(); ++l) blocks[l]->collect_gradients(out[l].weights, out[l].bias);
  return out;
}

// The step's resident storage, in a fresh engine: every block's weights (and gradients when `trains`),
// and when `trains` the optimizer state `updates` keeps on the tiles.
template <typename T>
void record_resident_storage(sim::Engine& engine, const BlockChain<T>& blocks,
                             const TileOptimizer<T>& updates, bool trains, std::uint32_t weight_bytes) {
  for (const auto& b : blocks) b->record_resident_storage(engine, trains);
  if (trains) updates.record_state(engine, blocks, weight_bytes);
}

}  // namespace spatialsim::workloads
