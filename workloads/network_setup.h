#pragma once
// What a program that runs a chain of blocks (NetworkProgram, reversible::ReversibleProgram) is built from:
// the model, the placement of its dense layers, element sizes, the step's wavefronts and how often they
// enter, arithmetic or counting mode, and the run's seed.
//
// Usage:
//   NetworkSetup ns{model, placement, bytes, wavefront_sizes(tokens, per_wavefront), interval, true};

#include <cstdint>
#include <vector>

#include "mappings/placement/i_placement.h"
#include "mappings/weight_stationary_block.h"
#include "sim/types.h"
#include "workloads/model_spec.h"

namespace spatialsim::workloads {

struct NetworkSetup {
  ModelSpec model;
  mappings::Placement placement;
  mappings::ElementBytes bytes;
  std::vector<std::uint32_t> wavefront_tokens;  // T_g per wavefront; they sum to the step's T
  sim::Cycle injection_interval = 1;            // cycles between wavefront injections
  bool with_values = true;
  std::uint64_t seed = 1;  // the run's seed: the tangents' when the schedule's plan leaves it 0
};

// Splits T tokens into wavefronts of T_g (the last one takes the remainder).
std::vector<std::uint32_t> wavefront_sizes(std::uint32_t tokens, std::uint32_t per_wavefront);

}  // namespace spatialsim::workloads
