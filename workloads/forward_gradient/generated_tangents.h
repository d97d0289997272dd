#pragma once
// The tangents a step's tiles regenerate: workloads::TangentGenerator behind the mapping's TangentSource.
//
// Usage:
//   GeneratedTangents tangents(TangentGenerator(kind, seed, step));
//   block.set_tangent_source(&tangents);

#include "mappings/tangent_source.h"
#include "workloads/tangent_generator.h"

namespace spatialsim::workloads {

class GeneratedTangents final : public mappings::TangentSource {
 public:
  explicit GeneratedTangents(TangentGenerator generator) : m_generator(generator) {}

  void fill_weights(std::uint32_t layer, std::uint32_t k, mappings::Range rows, mappings::Range cols,
                    std::uint32_t d_out, float* out) const override {
    m_generator.fill_weights(layer, k, rows, cols, d_out, out);
  }
  void fill_weights(std::uint32_t layer, std::uint32_t k, mappings::Range rows, mappings::Range cols,
                    std::uint32_t d_out, double* out) const override {
    m_generator.fill_weights(layer, k, rows, cols, d_out, out);
  }
  void fill_bias(std::uint32_t layer, std::uint32_t k, mappings::Range cols, float* out) const override {
    m_generator.fill_bias(layer, k, cols, out);
  }
  void fill_bias(std::uint32_t layer, std::uint32_t k, mappings::Range cols, double* out) const override {
    m_generator.fill_bias(layer, k, cols, out);
  }

 private:
  TangentGenerator m_generator;
};

}  // namespace spatialsim::workloads
