#include "workloads/block_chain.h"

#include <stdexcept>

namespace spatialsim::workloads {

std::vector<mappings::BlockSpec> block_specs(const NetworkSetup& setup) {
  const std::vector<DenseLayerShape> shapes = setup.model.dense_layers();
  if (setup.placement.blocks.size() != shapes.size())
    throw std::logic_error("block chain: one placement block per dense layer expected");
  const auto L = static_cast<std::uint32_t>(shapes.size());
  std::vector<mappings::BlockSpec> specs(L);
  for (std::uint32_t l = 0; l < L; ++l) {
    mappings::BlockSpec& spec = specs[l];
    spec.layer = l;
    spec.d_in = shapes[l].d_in;
    spec.d_out = shapes[l].d_out;
    spec.layout = setup.placement.blocks[l];
    spec.activation = setup.model.activation;
    spec.apply_activation = l + 1 < L;  // the last layer is linear
    spec.has_bias = setup.model.bias;
    spec.computes_input_gradient = l > 0;
    spec.bytes = setup.bytes;
    spec.wavefront_tokens = setup.wavefront_tokens;
    spec.with_values = setup.with_values;
  }
  return specs;
}

}  // namespace spatialsim::workloads
