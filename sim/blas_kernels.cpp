#include "sim/blas_kernels.h"

#include <cblas.h>

#include <algorithm>
#include <array>
#include <cstdlib>

#include "sim/text.h"

// OpenBLAS's pthreads build exports this without declaring it in a header: it stops the worker threads
// (a later multithreaded call would start them again). Weak, so that a BLAS without it still links and runs.
extern "C" int blas_thread_shutdown_(void) __attribute__((weak));

namespace spatialsim::sim {

void use_single_threaded_blas() {
  [[maybe_unused]] static const bool once = [] {
    openblas_set_num_threads(1);
    if (blas_thread_shutdown_ != nullptr) blas_thread_shutdown_();
    return true;
  }();
}

std::string blas_kernels() {
  return openblas_get_corename();
}

std::string blas_configuration() {
  return openblas_get_config();
}

VectorUnits this_cpu_vector_units() {
  VectorUnits v;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();
  v.avx2_fma = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  v.avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
             __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
#endif
  return v;
}

std::string faster_coretype(std::string_view kernels, VectorUnits cpu) {
  // OpenBLAS's x86-64 kernel sets without AVX2 (the names openblas_get_corename gives, lower-cased).
  static constexpr std::array<std::string_view, 20> kWithoutAvx2 = {
      "katmai", "coppermine",  "northwood", "prescott",   "banias",      "atom",      "core2",
      "penryn", "dunnington",  "nehalem",   "athlon",     "opteron",     "barcelona", "bobcat",
      "nano",   "sandybridge", "bulldozer", "piledriver", "steamroller", "excavator"};
  const std::string name = ascii_lower(kernels);
  // "opteron_sse3" and the like are variants of a listed set.
  const bool old = std::any_of(kWithoutAvx2.begin(), kWithoutAvx2.end(),
                               [&](std::string_view set) { return name.starts_with(set); });
  if (!old || !cpu.avx2_fma) return "";
  return cpu.avx512 ? "SkylakeX" : "Haswell";
}

std::string blas_advice() {
  if (std::getenv("OPENBLAS_CORETYPE") != nullptr) return "";
  const VectorUnits cpu = this_cpu_vector_units();
  const std::string kernels = blas_kernels();
  const std::string faster = faster_coretype(kernels, cpu);
  if (faster.empty()) return "";
  return "OpenBLAS chose its " + kernels + " kernels, which use no AVX2, on a CPU with " +
         (cpu.avx512 ? "AVX-512" : "AVX2") +
         " (a model this OpenBLAS does not know?): set OPENBLAS_CORETYPE=" + faster +
         " in the environment for faster fp32/fp64 products (docs/performance.md)";
}

}  // namespace spatialsim::sim
