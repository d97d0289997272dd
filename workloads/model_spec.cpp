#include "workloads/model_spec.h"

#include <string>

#include "sim/enum_names.h"
#include "sim/option_spec.h"
#include "workloads/reversible/reversible_model.h"

namespace spatialsim::workloads {
namespace {

const sim::OptionRegistration options{
    {"model.widths", "list",
     "layer widths d_0,d_1,...,d_L (L layers); when set, inputs/width/depth/outputs must not be"},
    {"model.inputs", "elements", "input width d_0 (with width/depth/outputs)"},
    {"model.width", "elements", "hidden width (with inputs/depth/outputs)"},
    {"model.depth", "layers",
     "number of layers L >= 1 (with inputs/width/outputs); model.kind=reversible: coupling blocks"},
    {"model.outputs", "elements", "output width d_L (with inputs/width/depth)"},
    {"model.activation", "choice", "the nonlinearity after every layer but the last"},
    {"model.bias", "bool", "whether layers add a bias"},
    {"model.loss", "choice", "the training loss, a mean over the step's tokens"},
    {"model.init_gain", "1", "weights are drawn N(0, init_gain^2 / d_in)", sim::OptionReach::values_only},
};

constexpr sim::EnumNames<ModelKind, 2> kModelKindNames{
    {{{ModelKind::mlp, "mlp"}, {ModelKind::reversible, "reversible"}}}};

}  // namespace

std::vector<DenseLayerShape> ModelSpec::dense_layers() const {
  if (kind == ModelKind::reversible) return reversible::coupling_dense_layers(*this);
  std::vector<DenseLayerShape> out;
  for (std::uint32_t l = 0; l < layers(); ++l) out.push_back({widths[l], widths[l + 1]});
  return out;
}

bool widths_given(const sim::Config& config) {
  return config.raw("model.widths").find_first_not_of(" \t") != std::string::npos;
}

std::uint32_t layers_from_config(const sim::Config& config) {
  if (widths_given(config))
    return static_cast<std::uint32_t>(config.get_positive_list("model.widths").size() - 1);
  return static_cast<std::uint32_t>(config.get_whole_in("model.depth", 1, kMaxLayers, "layers"));
}

const char* layers_option(const sim::Config& config) {
  return widths_given(config) ? "model.widths" : "model.depth";
}

std::string_view name(ModelKind kind) {
  return kModelKindNames.name(kind);
}

ModelKind model_kind_from_config(const sim::Config& config) {
  return kModelKindNames.from_config(config, "model.kind");
}

ModelSpec model_from_config(const sim::Config& config) {
  ModelSpec m;
  m.kind = model_kind_from_config(config);
  if (m.kind == ModelKind::reversible) {
    m.widths = reversible::coupling_widths_from_config(config);
  } else if (widths_given(config)) {
    for (const char* k : kShapeOptions) {
      if (config.is_explicit(k))
        config.fail(k, "cannot be combined with model.widths" +
                           (config.origin("model.widths") == config.origin(k)
                                ? std::string()
                                : " (from " + config.origin("model.widths") + ")") +
                           "; give either model.widths or inputs/width/depth/outputs");
    }
    for (std::uint64_t w : config.get_positive_list("model.widths")) {
      if (w > 0xFFFFFFFFull) config.fail("model.widths", "widths must fit in 32 bits");
      m.widths.push_back(static_cast<std::uint32_t>(w));
    }
    if (m.widths.size() < 2) config.fail("model.widths", "needs at least two widths (inputs and outputs)");
    if (m.widths.size() - 1 > kMaxLayers)
      config.fail("model.widths", "gives " + std::to_string(m.widths.size() - 1) + " layers, more than the " +
                                      std::to_string(kMaxLayers) + " a model may have; give at most " +
                                      std::to_string(kMaxLayers + 1) + " widths");
  } else {
    const auto depth = config.get_whole_in("model.depth", 1, kMaxLayers, "layers");
    const auto inputs = config.get_whole_in("model.inputs", 1, 0xFFFFFFFFull);
    const auto width = config.get_whole_in("model.width", 1, 0xFFFFFFFFull);
    const auto outputs = config.get_whole_in("model.outputs", 1, 0xFFFFFFFFull);
    m.widths.push_back(static_cast<std::uint32_t>(inputs));
    for (std::uint64_t l = 1; l < depth; ++l) m.widths.push_back(static_cast<std::uint32_t>(width));
    m.widths.push_back(static_cast<std::uint32_t>(outputs));
  }
  m.activation =
      mappings::parse_activation(config.get_choice("model.activation", mappings::activation_names()));
  m.loss = parse_loss(config.get_choice("model.loss", loss_names()));
  m.bias = config.get_bool("model.bias");
  m.init_gain = config.get_nonnegative_double("model.init_gain");
  return m;
}

}  // namespace spatialsim::workloads
