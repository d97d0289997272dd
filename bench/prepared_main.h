#pragma once
// The main of the Google Benchmark programs in bench/: BENCHMARK_MAIN's steps, after preparing the process
// as `spatialsim`'s own main does (sim::prepare_process: OpenBLAS on the calling thread with its workers
// stopped, freed memory kept for reuse), so that a benchmark times the process a user's run gets. Without
// it, OpenBLAS's idle worker spun on the second core and freed slices went back to the kernel
// (docs/performance.md).
//
// Usage (one per benchmark program, instead of BENCHMARK_MAIN()):
//   int main(int argc, char** argv) { return spatialsim::bench::run_prepared_benchmarks(argc, argv); }

#include <benchmark/benchmark.h>

#include "sim/process_settings.h"

namespace spatialsim::bench {

inline int run_prepared_benchmarks(int argc, char** argv) {
  sim::prepare_process();  // first, before any thread starts
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

}  // namespace spatialsim::bench
