#pragma once
// What the forward-gradient tests share: the tangent directions v_k rebuilt whole from the generator (as an
// outside checker would), and parameter-shaped values flattened to one coordinate vector.
#include <vector>

#include "workloads/parameters.h"
#include "workloads/reference/dense_mlp.h"
#include "workloads/reference/tangent_direction.h"
#include "workloads/tangent_generator.h"

namespace spatialsim::testing_support {

using workloads::reference::tangent_direction;  // v_k rebuilt whole (workloads/reference/)

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
