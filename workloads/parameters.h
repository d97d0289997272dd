#pragma once
// A network's parameters as whole matrices: what is loaded onto the tiles, exported, and compared
// against the dense reference.

#include <cstdint>
#include <vector>

#include "sim/matrix.h"
#include "workloads/model_spec.h"

namespace spatialsim::workloads {

struct LayerParameters {
  sim::Matrix<double> weights;  // d_in x d_out (rows: inputs, columns: outputs; tokens are row vectors)
  std::vector<double> bias;     // d_out, or empty without bias
};
using NetworkParameters = std::vector<LayerParameters>;

// Seeded initialisation of every dense layer (ModelSpec::dense_layers, in that order): W ~ N(0,
// init_gain^2 / d_in), b = 0. Deterministic for (model, seed).
NetworkParameters init_parameters(const ModelSpec& model, std::uint64_t seed);
// Layer `layer` of init_parameters (the same numbers) into `out`, reusing its storage when the shape is
// the same: a run that keeps no fp64 copy draws every layer into one buffer and loads it onto the tiles.
void init_layer_parameters(const ModelSpec& model, std::uint64_t seed, std::uint32_t layer,
                           const DenseLayerShape& shape, LayerParameters& out);

}  // namespace spatialsim::workloads
