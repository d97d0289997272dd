#include "mappings/placement/pipeline_stages.h"

#include <stdexcept>
#include <string>

namespace spatialsim::mappings {

std::uint32_t stage_of_layer(std::uint32_t layer, std::uint32_t layers, std::uint32_t stages) {
  // As mappings::split deals out a dimension: the first layers % stages stages hold one layer more.
  const std::uint32_t base = layers / stages;
  const std::uint32_t longer = layers % stages;
  const std::uint32_t in_longer = longer * (base + 1);
  return layer < in_longer ? layer / (base + 1) : longer + (layer - in_longer) / base;
}

Placement share_stages(const Placement& stage_placement, std::uint32_t layers) {
  const auto stages = static_cast<std::uint32_t>(stage_placement.blocks.size());
  if (stages == 0 || stages > layers)
    throw std::invalid_argument("share_stages: " + std::to_string(stages) + " stages for " +
                                std::to_string(layers) + " layers (need 1 <= stages <= layers)");
  Placement out;
  out.width = stage_placement.width;
  out.height = stage_placement.height;
  out.stages = stages;
  out.blocks.reserve(layers);
  for (std::uint32_t l = 0; l < layers; ++l)
    out.blocks.push_back(stage_placement.blocks[stage_of_layer(l, layers, stages)]);
  return out;
}

}  // namespace spatialsim::mappings
