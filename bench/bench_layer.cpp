// One WeightStationaryBlock layer (d_in = d_out = 1024, 16 tiles as a 4x4 block), forward only and forward +
// backward (+ the tiles' update), through the public run_schedule API, in counting mode (sim.arith=none)
// and in fp32 (docs/performance.md). Each run reports its events and events per second.
//
// Usage:
//   build/bench_layer --benchmark_repetitions=5 --benchmark_report_aggregates_only=true

#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "bench/prepared_main.h"
#include "cli/command_line.h"
#include "workloads/run_setup.h"
#include "workloads/training_run.h"

namespace {

using namespace spatialsim;

sim::Config layer_config(const std::string& arith) {
  sim::Config config = cli::default_config();
  for (const auto& [key, value] :
       std::vector<std::pair<std::string, std::string>>{{"model.widths", "1024,1024"},
                                                        {"step.tokens", "512"},
                                                        {"step.wavefront", "64"},
                                                        {"mapping.block", "4x4"},
                                                        {"sim.arith", arith}})
    config.set(key, value, "bench");
  return config;
}

// range(0): 0 counting, 1 fp32; range(1): 0 forward, 1 backprop.
void BM_Layer(benchmark::State& state) {
  const bool fp32 = state.range(0) == 1;
  const std::string schedule = state.range(1) == 1 ? "backprop" : "forward";
  const sim::Config config = layer_config(fp32 ? "fp32" : "none");
  const workloads::RunSetup setup = workloads::setup_from_config(config);
  std::uint64_t events = 0;
  for (auto _ : state) {
    const workloads::RunResult r = workloads::run_schedule(setup, config, schedule);
    events += r.counters.events;
    benchmark::DoNotOptimize(r.counters.byte_hops.total());
  }
  state.SetLabel(std::string(fp32 ? "fp32 " : "counting ") + schedule);
  state.counters["events"] = static_cast<double>(events) / static_cast<double>(state.iterations());
  state.counters["events_per_second"] =
      benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Layer)
    ->ArgsProduct({{0, 1}, {0, 1}})
    ->ArgNames({"fp32", "backward"})
    ->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
  return spatialsim::bench::run_prepared_benchmarks(argc, argv);
}
