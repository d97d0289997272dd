#pragma once
// A tangent v_k rebuilt whole from the counter-based generator, as an outside checker would: the same
// values every tile generates for its own slice (docs/tangents.md), zero in layers outside the trunk.
//
// Usage:
//   TangentGenerator gen(kind, seed, step);
//   reference::Gradients v = reference::tangent_direction(net, gen, k, trunk_layers);
//   double d_k = reference::directional_derivative(net, x, targets, v);

#include <cstdint>

#include "workloads/reference/dense_mlp.h"
#include "workloads/tangent_generator.h"

namespace spatialsim::workloads::reference {

inline Gradients tangent_direction(const DenseMlp& net, const TangentGenerator& gen, std::uint32_t k,
                                   std::uint32_t trunk_layers) {
  Gradients v = zeros_like(net);
  for (std::uint32_t l = 0; l < trunk_layers; ++l) {
    auto& w = v.weights[l];
    for (std::uint32_t r = 0; r < w.rows(); ++r)
      for (std::uint32_t c = 0; c < w.cols(); ++c) w(r, c) = gen.weight(l, k, r, c);
    for (std::uint32_t c = 0; c < v.bias[l].size(); ++c) v.bias[l][c] = gen.bias(l, k, c);
  }
  return v;
}

}  // namespace spatialsim::workloads::reference
