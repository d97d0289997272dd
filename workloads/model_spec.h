#pragma once
// The network being trained: an MLP given by its layer widths (MODEL.md section 5, issue 2), or a
// reversible additive-coupling network (model.kind=reversible, docs/reversible.md).
//
// Usage:
//   ModelSpec m = model_from_config(config);   // model.widths=64,128,10 or inputs/width/depth/outputs
//   m.layers();  m.widths[l] (d_in of layer l), m.widths[l + 1] (d_out)
//   for (DenseLayerShape s : m.dense_layers()) ...   // every weight matrix, in placement order

#include <cstdint>
#include <string_view>
#include <vector>

#include "mappings/activation.h"
#include "sim/config.h"
#include "workloads/loss.h"

namespace spatialsim::workloads {

enum class ModelKind : std::uint8_t { mlp, reversible };
std::string_view name(ModelKind kind);  // as model.kind says it: "mlp", "reversible"
// Reads model.kind. Throws sim::ConfigError for an unknown kind.
ModelKind model_kind_from_config(const sim::Config& config);

struct DenseLayerShape {
  std::uint32_t d_in = 1;
  std::uint32_t d_out = 1;
};

struct ModelSpec {
  ModelKind kind = ModelKind::mlp;
  // mlp: L + 1 entries, layer l maps widths[l] to widths[l + 1].
  // reversible: the activations between stages: d_0, then d after the entry layer and after each of the
  // model.depth coupling blocks, then d_out (depth + 3 entries); the dense layers are dense_layers().
  std::vector<std::uint32_t> widths;
  mappings::Activation activation = mappings::Activation::relu;  // not applied after the last layer
  bool bias = true;
  Loss loss = Loss::mse;
  double init_gain = 1.0;  // W ~ N(0, init_gain^2 / d_in)

  std::uint32_t layers() const { return static_cast<std::uint32_t>(widths.size()) - 1; }
  std::uint32_t inputs() const { return widths.front(); }
  std::uint32_t outputs() const { return widths.back(); }
  // Reversible: the number of coupling blocks (model.depth); 0 for an mlp.
  std::uint32_t coupling_blocks() const { return kind == ModelKind::reversible ? layers() - 2 : 0; }
  // Every dense layer (one block each), in placement order. mlp: widths[l] x widths[l + 1]. reversible:
  // the entry layer d_0 x d, then F_k and G_k (d/2 x d/2) of coupling block k = 1..depth, then the exit
  // layer d x d_out.
  std::vector<DenseLayerShape> dense_layers() const;
};

// Reads the [model] section. Throws sim::ConfigError for a width of 0, fewer than 2 widths, widths given
// together with inputs/width/depth/outputs, an unknown activation or loss, or a reversible model that is
// given by model.widths or has an odd model.width.
ModelSpec model_from_config(const sim::Config& config);

// The most layers a model may have, by model.depth or by model.widths (a reversible model: fewer).
inline constexpr std::uint64_t kMaxLayers = 100000;

// Whether model.widths gives the model: anything in it but blanks (its elements are trimmed, so " " is an
// empty list, which leaves the model to inputs/width/depth/outputs as "" does).
bool widths_given(const sim::Config& config);
// The options that give an MLP's widths the other way, as d_0, a hidden width, L and d_L: an alternative to
// model.widths, never combined with it.
inline constexpr const char* kShapeOptions[] = {"model.inputs", "model.width", "model.depth",
                                                "model.outputs"};

// An MLP's L, read the way model_from_config reads it (model.widths, else model.depth in 1..kMaxLayers),
// for components that need only the depth: the schedules that size their plans by it, which
// run on MLPs only (a reversible model's stages are model.depth + 2: ModelSpec::layers()).
std::uint32_t layers_from_config(const sim::Config& config);
// The option that sets that count, for an error about it: model.widths when given, else model.depth.
const char* layers_option(const sim::Config& config);

}  // namespace spatialsim::workloads
