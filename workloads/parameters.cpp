#include "workloads/parameters.h"

#include <cmath>

#include "workloads/random.h"

namespace spatialsim::workloads {

NetworkParameters init_parameters(const ModelSpec& model, std::uint64_t seed) {
  const std::vector<DenseLayerShape> shapes = model.dense_layers();
  NetworkParameters params(shapes.size());
  for (std::uint32_t l = 0; l < shapes.size(); ++l) {
    const std::uint32_t d_in = shapes[l].d_in;
    const std::uint32_t d_out = shapes[l].d_out;
    Random rng(seed, 1000 + l);  // one stream per layer: changing depth keeps earlier layers' weights
    const double scale = model.init_gain / std::sqrt(static_cast<double>(d_in));
    params[l].weights = sim::Matrix<double>(d_in, d_out);
    for (double& w : params[l].weights.values()) w = scale * rng.normal();
    if (model.bias) params[l].bias.assign(d_out, 0.0);
  }
  return params;
}

}  // namespace spatialsim::workloads
