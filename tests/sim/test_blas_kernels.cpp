// Which OPENBLAS_CORETYPE the simulator suggests, and when, and that OpenBLAS's workers are stopped
// (sim/blas_kernels.h).
#include "sim/blas_kernels.h"

#include <cblas.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

// OpenBLAS's pthreads build: 1 while its worker threads run (from when the library loads, even with no
// worker to run), 0 once blas_thread_shutdown_ has stopped them. Counting the process's threads instead
// would race with TBB's workers, which start and stop as earlier tests in the same process ran.
extern "C" int blas_server_avail __attribute__((weak));

namespace spatialsim::sim {
namespace {

constexpr VectorUnits kSse{};
constexpr VectorUnits kAvx2{.avx2_fma = true, .avx512 = false};
constexpr VectorUnits kAvx512{.avx2_fma = true, .avx512 = true};

TEST(BlasKernels, OldKernelsOnAVectorCpuGetTheSetItCanRun) {
  // The case seen on the project's VM: the model hidden, the oldest set chosen.
  EXPECT_EQ(faster_coretype("Prescott", kAvx512), "SkylakeX");
  EXPECT_EQ(faster_coretype("Prescott", kAvx2), "Haswell");
  EXPECT_EQ(faster_coretype("Nehalem", kAvx2), "Haswell");
  EXPECT_EQ(faster_coretype("Sandybridge", kAvx512), "SkylakeX");  // AVX, but no AVX2 kernels
  EXPECT_EQ(faster_coretype("OPTERON_SSE3", kAvx2), "Haswell");    // a variant of a listed set, any case
}

TEST(BlasKernels, NoAdviceWhenTheKernelsUseAvx2OrTheCpuHasNone) {
  for (const char* modern : {"Haswell", "SkylakeX", "Zen", "CooperLake", "SapphireRapids"}) {
    EXPECT_EQ(faster_coretype(modern, kAvx512), "") << modern;
    EXPECT_EQ(faster_coretype(modern, kAvx2), "") << modern;
  }
  EXPECT_EQ(faster_coretype("Prescott", kSse), "");  // an old CPU: the old set is right
  EXPECT_EQ(faster_coretype("Core2", VectorUnits{.avx2_fma = false, .avx512 = false}), "");
}

TEST(BlasKernels, ThisProcessReportsItsKernelsAndAdvisesOnlyWhenTheyAreOld) {
  const std::string kernels = blas_kernels();
  ASSERT_FALSE(kernels.empty());
  EXPECT_NE(blas_configuration().find(kernels), std::string::npos) << blas_configuration();
  if (std::getenv("OPENBLAS_CORETYPE") == nullptr) {
    const std::string faster = faster_coretype(kernels, this_cpu_vector_units());
    const std::string advice = blas_advice();
    EXPECT_EQ(advice.empty(), faster.empty()) << advice;
    if (!faster.empty()) {
      EXPECT_NE(advice.find("OPENBLAS_CORETYPE=" + faster), std::string::npos) << advice;
      EXPECT_NE(advice.find(kernels), std::string::npos) << advice;
    }
  }
}

TEST(BlasKernels, ASetCoretypeIsTheUsersChoice) {
  const char* before = std::getenv("OPENBLAS_CORETYPE");
  const std::string kept = before != nullptr ? before : "";
  ::setenv("OPENBLAS_CORETYPE", "Prescott", 1);
  EXPECT_EQ(blas_advice(), "");
  if (before != nullptr)
    ::setenv("OPENBLAS_CORETYPE", kept.c_str(), 1);
  else
    ::unsetenv("OPENBLAS_CORETYPE");
}

TEST(BlasKernels, SingleThreadedBlasStopsOpenBlasWorkers) {
  if (&blas_server_avail == nullptr)
    GTEST_SKIP() << "not OpenBLAS's pthreads build: it has no workers to stop";
  use_single_threaded_blas();
  EXPECT_EQ(openblas_get_num_threads(), 1);
  EXPECT_EQ(blas_server_avail, 0) << "OpenBLAS's worker threads still run";
  // A product afterwards runs on this thread and starts no worker again.
  const float a[4] = {1, 2, 3, 4};
  float c[4] = {};
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 2, 2, 2, 1.0f, a, 2, a, 2, 0.0f, c, 2);
  EXPECT_EQ(c[0], 7.0f);
  EXPECT_EQ(blas_server_avail, 0);
}

}  // namespace
}  // namespace spatialsim::sim
