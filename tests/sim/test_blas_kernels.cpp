// Which OPENBLAS_CORETYPE the simulator suggests, and when (sim/blas_kernels.h).
#include "sim/blas_kernels.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

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

}  // namespace
}  // namespace spatialsim::sim
