#pragma once
// The reversible model's shape (docs/reversible.md): model.kind selects it; the trunk width d must be
// even, because the trunk is split into two halves x1 = x[:, 0:d/2] and x2 = x[:, d/2:d].
//
//   entry:  h = act(x W_e + b_e)                    d_0 -> d
//   block k = 1..L (L = model.depth), from (a, b) = (h[:, 0:d/2], h[:, d/2:d]):
//           a <- a + F_k(b),  b <- b + G_k(a)       F_k, G_k: act(. W + b), d/2 -> d/2
//   exit:   y = [a b] W_x + b_x                     d -> d_out, linear, to the loss
//
// Usage:
//   model.widths = reversible::coupling_widths_from_config(config);   // d_0, d, ..., d, d_out
//   CouplingLayers ids{model.coupling_blocks()};  ids.f(1), ids.g(1), ids.exit();

#include <cstdint>
#include <string>
#include <vector>

#include "sim/config.h"
#include "workloads/model_spec.h"

namespace spatialsim::workloads::reversible {

// Dense layer ids (block index, position in NetworkParameters) of a model with `blocks` coupling blocks.
struct CouplingLayers {
  std::uint32_t blocks = 1;  // L
  static constexpr std::uint32_t entry() { return 0; }
  std::uint32_t f(std::uint32_t k) const { return 2 * k - 1; }  // k = 1..L
  std::uint32_t g(std::uint32_t k) const { return 2 * k; }
  std::uint32_t exit() const { return 2 * blocks + 1; }
  std::uint32_t count() const { return 2 * blocks + 2; }
  // "entry", "F1", "G1", ..., "exit": the names checks and exports use.
  std::string name(std::uint32_t layer) const;
};

// The stage widths of a reversible model from model.inputs/width/depth/outputs. Throws sim::ConfigError
// naming the key: model.widths set (a reversible model has one trunk width), model.width odd.
std::vector<std::uint32_t> coupling_widths_from_config(const sim::Config& config);

// Contract: model.kind == reversible. Entry, F_1, G_1, ..., F_L, G_L, exit.
std::vector<DenseLayerShape> coupling_dense_layers(const ModelSpec& model);

}  // namespace spatialsim::workloads::reversible
