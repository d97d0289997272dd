#pragma once
// What the forward-gradient tests share: the tangent directions v_k rebuilt whole from the generator (as an
// outside checker would), and parameter-shaped values flattened to one coordinate vector.
#include <vector>

#include "workloads/parameters.h"
#include "workloads/reference/dense_mlp.h"
#include "workloads/tangent_generator.h"

namespace spatialsim::testing_support {

// v_k over layers 0..trunk-1 (zero in the head), in the net's parameter shapes.
inline workloads::reference::Gradients tangent_direction(const workloads::reference::DenseMlp& net,
                                                         const workloads::TangentGenerator& gen,
                                                         std::uint32_t k, std::uint32_t trunk) {
  workloads::reference::Gradients v = workloads::reference::zeros_like(net);
  for (std::uint32_t l = 0; l < trunk; ++l) {
    auto& w = v.weights[l];
    for (std::uint32_t r = 0; r < w.rows(); ++r)
      for (std::uint32_t c = 0; c < w.cols(); ++c) w(r, c) = gen.weight(l, k, r, c);
    for (std::uint32_t c = 0; c < v.bias[l].size(); ++c) v.bias[l][c] = gen.bias(l, k, c);
  }
  return v;
}

// Weights row-major, then the bias, layer by layer, for layers [first, last).
inline std::vector<double> flatten(const workloads::NetworkParameters& p, std::size_t first,
                                   std::size_t last) {
  std::vector<double> out;
  for (std::size_t l = first; l < last; ++l) {
    out.insert(out.end(), p[l].weights.values().begin(), p[l].weights.values().end());
    out.insert(out.end(), p[l].bias.begin(), p[l].bias.end());
  }
  return out;
}
inline std::vector<double> flatten(const workloads::reference::Gradients& g, std::size_t first,
                                   std::size_t last) {
  std::vector<double> out;
  for (std::size_t l = first; l < last; ++l) {
    out.insert(out.end(), g.weights[l].values().begin(), g.weights[l].values().end());
    out.insert(out.end(), g.bias[l].begin(), g.bias[l].end());
  }
  return out;
}

}  // namespace spatialsim::testing_support
