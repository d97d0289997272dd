#pragma once
// What a program that runs the simulator sets before anything else: large freed blocks kept for reuse
// (sim/allocator_settings.h), and every BLAS product on the calling thread with OpenBLAS's own workers
// stopped (sim/blas_kernels.h). `spatialsim`'s main calls it, and so does every benchmark program
// (bench_step_vs_gemm, and the others through bench/prepared_main.h), so that they time the process a
// user's run gets.
//
// Usage:
//   int main() { sim::prepare_process(); ... }   // before any thread starts

namespace spatialsim::sim {

void prepare_process();

}  // namespace spatialsim::sim
