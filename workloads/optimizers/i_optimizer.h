#pragma once
// The optimizer each tile applies to its own slice of weights once a step has drained (MODEL.md
// section 6): state is kept on the tile, so the update costs no hops. Implementations live in impl/,
// one file each, registered by config name (`train.optimizer`).
//
// Usage:
//   auto opt = OptimizerRegistry::create("adam", config);
//   std::vector<float> state(n * opt->state_per_parameter());
//   opt->update(weights, gradients, state.data(), n, /*lr=*/1e-3, /*step=*/1);

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "sim/registry.h"

namespace spatialsim::workloads {

class Optimizer {
 public:
  static constexpr std::string_view kRegistryHeading = "optimizers (train.optimizer)";
  virtual ~Optimizer() = default;
  // Values of optimizer state kept per parameter (0 for SGD, 2 for Adam's moments).
  virtual std::uint32_t state_per_parameter() const = 0;
  // Multiply-adds per parameter of one update, for the flop count (2 flops each).
  virtual std::uint32_t multiply_adds_per_parameter() const = 0;
  // Contract: updates n parameters in place from their gradients; `state` holds
  // n * state_per_parameter() values owned by the caller (zero before the first step); `step` counts
  // from 1.
  virtual void update(float* parameters, const float* gradients, float* state, std::size_t n, double lr,
                      std::uint64_t step) const = 0;
  virtual void update(double* parameters, const double* gradients, double* state, std::size_t n, double lr,
                      std::uint64_t step) const = 0;
};

using OptimizerRegistry = sim::Registry<Optimizer>;

}  // namespace spatialsim::workloads
