#include "workloads/parameters.h"

#include <tbb/parallel_for.h>

#include <cmath>

#include "workloads/random.h"

namespace spatialsim::workloads {

NetworkParameters init_parameters(const ModelSpec& model, std::uint64_t seed) {
  const std::vector<DenseLayerShape> shapes = model.dense_layers();
  NetworkParameters params(shapes.size());
  // Each layer draws from its own stream, in the same order whichever thread draws it: the weights are
  // bit-identical on any number of threads (the caller's tbb::global_control, sim.threads, bounds them).
  tbb::parallel_for(std::size_t{0}, shapes.size(), [&](std::size_t l) {
    const std::uint32_t d_in = shapes[l].d_in;
    const std::uint32_t d_out = shapes[l].d_out;
    Random rng(seed, 1000 + l);  // one stream per layer: changing depth keeps earlier layers' weights
    const double scale = model.init_gain / std::sqrt(static_cast<double>(d_in));
    params[l].weights = sim::Matrix<double>(d_in, d_out);
    for (double& w : params[l].weights.values()) w = scale * rng.normal();
    if (model.bias) params[l].bias.assign(d_out, 0.0);
  });
  return params;
}

}  // namespace spatialsim::workloads
