#include "workloads/training_run.h"

#include <tbb/enumerable_thread_specific.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>

#include "sim/counters.h"
#include "sim/in_order_jobs.h"
#include "workloads/network_program.h"
#include "workloads/optimizers/i_optimizer.h"
#include "workloads/reversible/reversible_model.h"
#include "workloads/reversible/reversible_program.h"
#include "workloads/schedules/i_schedule.h"
#include "workloads/schedules/schedule_models.h"

namespace spatialsim::workloads {
namespace {

// One entry per tile over all steps: the largest excess, and the first overflow's cycle counted from the
// start of the run (step_start: the cycles of the steps before this one).
void merge_overflows(std::vector<sim::StorageOverflow>& all, const std::vector<sim::StorageOverflow>& step,
                     sim::Cycle step_start) {
  for (sim::StorageOverflow o : step) {
    o.first_cycle += step_start;
    auto it = std::find_if(all.begin(), all.end(), [&](const auto& a) { return a.tile == o.tile; });
    if (it == all.end()) {
      all.push_back(o);
    } else if (o.excess_bytes > it->excess_bytes) {
      it->excess_bytes = o.excess_bytes;
    }
  }
}

// Program: NetworkProgram (an mlp) or reversible::ReversibleProgram; both have the same step interface.
template <typename T, template <typename> class Program>
RunResult run_with(const RunSetup& setup, const sim::Config& config, const Schedule& schedule,
                   const RunOptions& options, RunResult result) {
  const bool with_values = setup.arithmetic != Arithmetic::none;
  const sim::Grid grid(setup.grid_width, setup.grid_height, setup.topology);
  NetworkSetup ns;
  ns.model = setup.model;
  ns.placement = setup.placement;
  ns.bytes = setup.bytes;
  ns.wavefront_tokens = wavefront_sizes(setup.tokens, setup.tokens_per_wavefront);
  ns.injection_interval = setup.injection_interval;
  ns.with_values = with_values;
  ns.seed = setup.seed;
  Program<T> program(ns, grid, schedule);
  if (with_values) {  // counting mode never touches a weight: do not build them (GBs for large models)
    bool loaded = false;
    if constexpr (requires { program.blocks(); }) {
      if (!options.for_checks) {
        // No fp64 copy of the model to keep: each layer is drawn into a buffer of the thread that draws it
        // and loaded straight onto its own block's tiles, the layers in parallel (each its own stream: the
        // same weights on any number of threads). One buffer per thread that draws, reused.
        const std::vector<DenseLayerShape> shapes = setup.model.dense_layers();
        tbb::enumerable_thread_specific<LayerParameters> buffers;
        tbb::parallel_for(std::size_t{0}, shapes.size(), [&](std::size_t l) {
          LayerParameters& layer = buffers.local();
          init_layer_parameters(setup.model, setup.seed, static_cast<std::uint32_t>(l), shapes[l], layer);
          program.blocks()[l]->load_parameters(layer.weights, layer.bias);
        });
        loaded = true;
      }
    }
    if (!loaded) {
      NetworkParameters initial = init_parameters(setup.model, setup.seed);
      program.load(initial);
      if (options.for_checks) result.initial_parameters = std::move(initial);
    }
  }
  const auto optimizer = OptimizerRegistry::create(setup.optimizer, config);
  if (schedule.trains()) program.set_optimizer(optimizer.get(), setup.learning_rate);
  result.tiles = sim::TileCounters(grid.tile_count());
  result.grid_width = grid.width();
  result.grid_height = grid.height();

  for (std::uint32_t step = 0; step < setup.steps; ++step) {
    StepData data;
    if (with_values) data = make_step_data(setup.data, setup.model, setup.seed, step, setup.tokens);
    sim::Engine engine(grid, setup.timing);
    engine.set_handler(&program);
    if (options.observer != nullptr) {  // tracing
      options.observer->begin_step(step);
      engine.add_observer(options.observer);
    }
    program.start_step(engine, with_values ? &data : nullptr);
    engine.run();
    if (with_values && step == 0 && schedule.trains() && options.for_checks)
      result.first_step_gradients = program.gradients();
    program.schedule_update(engine);  // each tile, its own slice; nothing when the schedule does not train
    engine.run();
    if (with_values && step == 0 && schedule.trains() && options.for_checks)
      result.first_step_updated_parameters = program.parameters();
    engine.finish();
    if (options.observer != nullptr) options.observer->end_step(step, engine.counters());  // tracing
    sim::accumulate_sequential(result.counters, engine.counters());
    sim::accumulate_sequential(result.tiles, engine.tile_counters());
    merge_overflows(result.overflows, engine.ledger().overflows(),
                    result.counters.makespan_cycles - engine.counters().makespan_cycles);
    if constexpr (requires { program.max_checkpoints(); }) result.max_checkpoints = program.max_checkpoints();
    if (with_values) {
      result.loss_per_step.push_back(program.loss());
      if (step == 0) {
        result.first_step_outputs = program.outputs();
        if constexpr (requires { program.tangent_scalars(); })
          result.first_step_tangent_scalars = program.tangent_scalars();
        result.first_step_data = std::move(data);
        if constexpr (requires { program.reconstruction_drift(); })
          if (schedule.trains()) result.reconstruction_drift = program.reconstruction_drift();
      }
    }
  }
  if (with_values && schedule.trains() && options.for_checks) result.final_parameters = program.parameters();
  return result;
}

}  // namespace

RunResult run_schedule(const RunSetup& setup, const sim::Config& config, const std::string& schedule_name,
                       const RunOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  require_schedule_runs_on(setup.model, schedule_name);
  const auto schedule = ScheduleRegistry::create(schedule_name, config);
  RunResult result;
  result.schedule = schedule_name;
  const bool fp64 = setup.arithmetic == Arithmetic::fp64;
  try {
    if (setup.model.kind == ModelKind::reversible) {  // docs/reversible.md
      result = fp64 ? run_with<double, reversible::ReversibleProgram>(setup, config, *schedule, options,
                                                                      std::move(result))
                    : run_with<float, reversible::ReversibleProgram>(setup, config, *schedule, options,
                                                                     std::move(result));
    } else {
      result = fp64 ? run_with<double, NetworkProgram>(setup, config, *schedule, options, std::move(result))
                    : run_with<float, NetworkProgram>(setup, config, *schedule, options, std::move(result));
    }
  } catch (const sim::CountLimitError& e) {  // the engine names the count; the run, what made it large
    throw sim::CountLimitError(std::string(e.what()) +
                               "; give fewer step.tokens or train.steps, a smaller machine.hop_latency or "
                               "step.interval, or narrower layers");
  }
  result.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

std::vector<RunResult> run_schedules(const RunSetup& setup, const sim::Config& config,
                                     const std::vector<std::string>& schedules,
                                     std::span<StepObserver* const> observers, bool for_checks) {
  if (!observers.empty() && observers.size() != schedules.size())
    throw std::invalid_argument("run_schedules: " + std::to_string(observers.size()) + " observers for " +
                                std::to_string(schedules.size()) +
                                " schedules; give one per schedule or none");
  std::vector<RunResult> results(schedules.size());
  std::unique_ptr<tbb::global_control> limit;
  if (setup.threads != 0)
    limit =
        std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism, setup.threads);
  // A list of schedules is usually written cheapest first (forward, then backprop, then the schedules that
  // recompute), so handing out the last first starts the longest runs first and shortens the tail where one
  // worker runs alone, as a sweep does (analysis/sweep.cpp). Each result keeps its place in the list.
  const std::size_t count = schedules.size();
  sim::run_in_order(count, setup.threads, [&](std::size_t i) {
    const std::size_t k = count - 1 - i;
    const RunOptions options{.observer = observers.empty() ? nullptr : observers[k],
                             .for_checks = for_checks};
    results[k] = run_schedule(setup, config, schedules[k], options);
  });
  return results;
}

}  // namespace spatialsim::workloads
