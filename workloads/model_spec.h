#pragma once
// The network being trained: an MLP given by its layer widths (MODEL.md section 5, issue 2).
//
// Usage:
//   ModelSpec m = model_from_config(config);   // model.widths=64,128,10 or inputs/width/depth/outputs
//   m.layers();  m.widths[l] (d_in of layer l), m.widths[l + 1] (d_out)

#include <cstdint>
#include <vector>

#include "mappings/activation.h"
#include "sim/config.h"
#include "workloads/loss.h"

namespace spatialsim::workloads {

struct ModelSpec {
  std::vector<std::uint32_t> widths;                             // L + 1 entries
  mappings::Activation activation = mappings::Activation::relu;  // not applied after the last layer
  bool bias = true;
  Loss loss = Loss::mse;
  double init_gain = 1.0;  // W ~ N(0, init_gain^2 / d_in)

  std::uint32_t layers() const { return static_cast<std::uint32_t>(widths.size()) - 1; }
  std::uint32_t inputs() const { return widths.front(); }
  std::uint32_t outputs() const { return widths.back(); }
};

// Reads the [model] section. Throws sim::ConfigError for a width of 0, fewer than 2 widths, widths given
// together with inputs/width/depth/outputs, or an unknown activation or loss.
ModelSpec model_from_config(const sim::Config& config);

}  // namespace spatialsim::workloads
