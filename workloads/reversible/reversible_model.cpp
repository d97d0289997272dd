#include "workloads/reversible/reversible_model.h"

#include "sim/option_spec.h"

namespace spatialsim::workloads::reversible {
namespace {

const sim::OptionRegistration options{
    {"model.kind", "choice",
     "mlp (model.widths or inputs/width/depth/outputs) | reversible (entry layer, model.depth additive "
     "coupling blocks of even width model.width, exit layer; schedules forward and reversible)"},
};

}  // namespace

std::string CouplingLayers::name(std::uint32_t layer) const {
  if (layer == entry()) return "entry";
  if (layer == exit()) return "exit";
  const std::uint32_t k = (layer + 1) / 2;
  std::string out(layer % 2 == 1 ? "F" : "G");
  out += std::to_string(k);
  return out;
}

std::vector<std::uint32_t> coupling_widths_from_config(const sim::Config& config) {
  if (widths_given(config))
    config.fail("model.widths",
                "cannot describe a reversible model (model.kind=reversible); leave it empty and give "
                "model.inputs, model.width (the even trunk width), model.depth (coupling blocks) and "
                "model.outputs");
  const auto depth = config.get_whole_in("model.depth", 1, 50000, "coupling blocks");
  const auto inputs = config.get_whole_in("model.inputs", 1, 0xFFFFFFFFull);
  const auto width = config.get_whole_in("model.width", 1, 0xFFFFFFFFull);
  const auto outputs = config.get_whole_in("model.outputs", 1, 0xFFFFFFFFull);
  if (width % 2 != 0)
    config.fail("model.width",
                "is odd: a reversible model (model.kind=reversible) splits its trunk into two halves of "
                "model.width / 2; give an even width");
  std::vector<std::uint32_t> widths{static_cast<std::uint32_t>(inputs)};
  for (std::uint64_t k = 0; k <= depth; ++k) widths.push_back(static_cast<std::uint32_t>(width));
  widths.push_back(static_cast<std::uint32_t>(outputs));
  return widths;
}

std::vector<DenseLayerShape> coupling_dense_layers(const ModelSpec& model) {
  const std::uint32_t d = model.widths.at(1);
  std::vector<DenseLayerShape> out{{model.inputs(), d}};
  for (std::uint32_t k = 0; k < model.coupling_blocks(); ++k) {
    out.push_back({d / 2, d / 2});  // F_k
    out.push_back({d / 2, d / 2});  // G_k
  }
  out.push_back({d, model.outputs()});
  return out;
}

}  // namespace spatialsim::workloads::reversible
