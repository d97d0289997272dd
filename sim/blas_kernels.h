#pragma once
// Which BLAS kernels this process runs, and when a faster set is one environment variable away.
//
// Why: Debian's OpenBLAS is built for every x86-64 CPU (DYNAMIC_ARCH) and picks its kernels from the CPU's
// family and model numbers when the library loads. A model newer than the library (Debian 12's 0.3.21
// predates Emerald Rapids, family 6 model 207, the project's machine since 2026-11-30) or one a virtual
// machine reports falsely gets the oldest set, Prescott (SSE3), even on a CPU with AVX-512: there the
// benchmark's fp32 products ran at 25 to 28 GFLOP/s instead of 129 to 139 (docs/performance.md). Only
// OPENBLAS_CORETYPE, set before the program starts, changes the choice; a loaded library keeps it. The
// kernels also decide an fp32 product's rounding, so runs report them.
//
// Usage:
//   sim::blas_kernels();        // "Prescott": the kernel set OpenBLAS chose
//   sim::blas_configuration();  // "OpenBLAS 0.3.21 NO_LAPACKE DYNAMIC_ARCH ... Prescott MAX_THREADS=64"
//   sim::blas_advice();         // "" or a sentence naming the OPENBLAS_CORETYPE to set
//   sim::use_single_threaded_blas();  // at start-up, before any product and before other threads start

#include <string>
#include <string_view>

namespace spatialsim::sim {

std::string blas_kernels();
std::string blas_configuration();

// The vector units of a CPU that decide which OpenBLAS kernel set it can run.
struct VectorUnits {
  bool avx2_fma = false;  // AVX2 and FMA: OpenBLAS's Haswell kernels
  bool avx512 = false;    // AVX-512 F, BW, DQ and VL: its SkylakeX kernels
};
VectorUnits this_cpu_vector_units();

// The OPENBLAS_CORETYPE that gives `cpu` faster kernels than `kernels` (OpenBLAS's name of a set), or empty:
// only when `kernels` uses no AVX2 and the CPU has AVX2 and FMA.
std::string faster_coretype(std::string_view kernels, VectorUnits cpu);

// Every product runs on the thread that asks for it, and OpenBLAS's own worker threads are stopped. Once per
// process; the matrix kernels call it before their first product, and sim::prepare_process at start-up.
//
// Why: tiles multiply small slices, and runs of several schedules or sweep points already use every core
// through TBB, so OpenBLAS's threads would only oversubscribe the machine; one thread also keeps every
// product's summation order fixed, whatever the machine. Setting the thread count is not enough: the
// pthreads build starts its workers when the library loads, and each spins (sched_yield) for about 2^28
// clock ticks before it sleeps, about 0.13 s of a core here, taken from the simulator's second thread
// (docs/performance.md, "OpenBLAS's idle workers stopped"). Stopping them (blas_thread_shutdown_, which the
// pthreads build exports; a build without it has no workers to stop) gives that core back. Contract: no BLAS
// call is running on another thread.
void use_single_threaded_blas();

// A sentence for the user when faster_coretype applies to this process and OPENBLAS_CORETYPE is not set
// (a set one is the user's choice); else empty.
std::string blas_advice();

}  // namespace spatialsim::sim
