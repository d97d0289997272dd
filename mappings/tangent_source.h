#pragma once
// Where a block's tiles get their slices of the forward-gradient tangents v_k (MODEL.md section 7). The
// mapping only asks for the slice a tile holds; how the values are made (workloads::TangentGenerator,
// counter-based, regenerated on every tile) is the workload's business, so mappings/ does not depend on it.
//
// Usage:
//   std::vector<double> v(rows.size * cols.size);
//   source.fill_weights(layer, k, rows, cols, d_out, v.data());   // W-shaped slice, row-major
//   source.fill_bias(layer, k, cols, vb.data());

#include <cstdint>

#include "mappings/partition.h"

namespace spatialsim::mappings {

// Contract: values depend only on (layer, k, element), never on the slicing or the order of calls, so
// every tile that asks for an element of v_k gets the same number (no traffic is needed to agree on it).
class TangentSource {
 public:
  virtual ~TangentSource() = default;
  virtual void fill_weights(std::uint32_t layer, std::uint32_t k, Range rows, Range cols, std::uint32_t d_out,
                            float* out) const = 0;
  virtual void fill_weights(std::uint32_t layer, std::uint32_t k, Range rows, Range cols, std::uint32_t d_out,
                            double* out) const = 0;
  virtual void fill_bias(std::uint32_t layer, std::uint32_t k, Range cols, float* out) const = 0;
  virtual void fill_bias(std::uint32_t layer, std::uint32_t k, Range cols, double* out) const = 0;
};

}  // namespace spatialsim::mappings
