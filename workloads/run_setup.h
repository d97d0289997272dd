#pragma once
// Everything one simulation needs, read and validated from the configuration once, before anything runs:
// the model, the data, the step, the machine, the placement and the grid.
//
// Usage:
//   RunSetup setup = setup_from_config(config);   // throws sim::ConfigError naming the key and the fix
//   setup.placement.blocks[l];  setup.grid_width;

#include <cstdint>
#include <string>

#include "mappings/placement/i_placement.h"
#include "mappings/weight_stationary_block.h"
#include "sim/config.h"
#include "sim/energy_prices.h"
#include "sim/engine.h"
#include "sim/types.h"
#include "workloads/arithmetic.h"
#include "workloads/data.h"
#include "workloads/model_spec.h"

namespace spatialsim::workloads {

struct RunSetup {
  ModelSpec model;
  DataSpec data;
  std::uint32_t tokens = 1;                // T per step
  std::uint32_t tokens_per_wavefront = 1;  // T_g
  sim::Cycle injection_interval = 0;       // resolved: never 0 after setup_from_config
  std::uint32_t steps = 1;
  std::string optimizer = "sgd";  // train.optimizer, for schedules that train
  double learning_rate = 0.05;
  std::string placement_name;
  mappings::Placement placement;
  std::uint32_t grid_width = 0;
  std::uint32_t grid_height = 0;
  sim::Topology topology = sim::Topology::mesh;
  sim::MachineTiming timing;
  mappings::ElementBytes bytes;
  sim::EnergyPrices prices;
  Arithmetic arithmetic = Arithmetic::fp32;
  std::uint64_t seed = 1;
  std::uint32_t threads = 0;  // 0: all cores

  // G = ceil(T / T_g), the wavefronts of a step (wavefront_sizes lists them). setup_from_config never
  // gives T_g = 0; a setup a test builds by hand with 0 counts as 1 rather than dividing by 0.
  std::uint32_t wavefront_count() const {
    return static_cast<std::uint32_t>(
        sim::ceil_div(tokens, tokens_per_wavefront == 0 ? 1 : tokens_per_wavefront));
  }
};

RunSetup setup_from_config(const sim::Config& config);

// sim.threads, at most kMaxThreads (far more than any machine's cores; a billion would not allocate): the
// one check run, sweep and compare share. Throws sim::ConfigError naming sim.threads.
inline constexpr std::uint32_t kMaxThreads = 4096;
std::uint32_t threads_from_config(const sim::Config& config);

// An over-estimate of what one pass of the network's values (forward, or one product of the backward)
// over all the steps adds to the largest count (byte-hops, flops, SRAM bytes). setup_from_config refuses
// setups whose exact schedules could reach that limit, and the forward-gradient schedules refuse tangent
// counts that could (sim::kCountLimit).
long double pass_bound(const RunSetup& setup);

// Whether a training run ever reads `key`: every option but those of the commands that train nothing of
// their own (sweep.*, compare.*, kernel.*, crossover.*, theory.*). Which options a run ignores with the
// configured values is cli::why_a_run_ignores.
bool run_reads(const std::string& key);

}  // namespace spatialsim::workloads
