#include "workloads/parameters.h"

#include <tbb/parallel_for.h>

#include <cmath>

#include "workloads/random.h"

namespace spatialsim::workloads {

void init_layer_parameters(const ModelSpec& model, std::uint64_t seed, std::uint32_t layer,
                           const DenseLayerShape& shape, LayerParameters& out) {
  if (out.weights.rows() != shape.d_in || out.weights.cols() != shape.d_out)
    out.weights = sim::Matrix<double>(shape.d_in, shape.d_out);
  Random rng(seed, 1000 + layer);  // one stream per layer: changing depth keeps earlier layers' weights
  const double scale = model.init_gain / std::sqrt(static_cast<double>(shape.d_in));
  for (double& w : out.weights.values()) w = scale * rng.normal();  // every element, row-major
  if (model.bias) {
    out.bias.assign(shape.d_out, 0.0);
  } else {
    out.bias.clear();
  }
}

NetworkParameters init_parameters(const ModelSpec& model, std::uint64_t seed) {
  const std::vector<DenseLayerShape> shapes = model.dense_layers();
  NetworkParameters params(shapes.size());
  // Each layer draws from its own stream, in the same order whichever thread draws it: the weights are
  // bit-identical on any number of threads (the caller's tbb::global_control, sim.threads, bounds them).
  tbb::parallel_for(std::size_t{0}, shapes.size(), [&](std::size_t l) {
    init_layer_parameters(model, seed, static_cast<std::uint32_t>(l), shapes[l], params[l]);
  });
  return params;
}

}  // namespace spatialsim::workloads
