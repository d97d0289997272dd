// The teacher task's data against its definition in docs/conventions-math.md ("Data"), redrawn here from
// the documented streams: W1 (d_0 x h) with entries N(0, 1) / sqrt(d_0), then W2 (h x d_L) with entries
// N(0, 1) / sqrt(h), both from stream 1, row-major; step n's inputs X (T x d_0) N(0, 1) from stream
// 2^20 + n; targets tanh(X W1) W2, computed here by plain loops. The hidden width h differs from d_0, so a
// W2 scaled by d_0 instead of h (which survived every other test) is told apart.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "workloads/data.h"
#include "workloads/model_spec.h"
#include "workloads/random.h"

namespace spatialsim::workloads {
namespace {

TEST(TeacherData, IsTanhOfXW1TimesW2FromTheDocumentedStreams) {
  const std::uint32_t d0 = 5, h = 7, dL = 3, tokens = 6;
  const std::uint64_t seed = 11, step = 2;
  ModelSpec model;
  model.widths = {d0, 4, dL};
  DataSpec spec;
  spec.task = Task::teacher;
  spec.teacher_width = h;
  const StepData data = make_step_data(spec, model, seed, step, tokens);

  Random task(seed, 1);
  std::vector<double> w1(std::size_t{d0} * h), w2(std::size_t{h} * dL), x(std::size_t{tokens} * d0);
  for (double& w : w1) w = task.normal() / std::sqrt(double(d0));
  for (double& w : w2) w = task.normal() / std::sqrt(double(h));
  Random samples(seed, (std::uint64_t{1} << 20) + step);
  for (double& v : x) v = samples.normal();

  ASSERT_EQ(data.inputs.rows(), tokens);
  ASSERT_EQ(data.targets.cols(), dL);
  for (std::uint32_t t = 0; t < tokens; ++t) {
    for (std::uint32_t i = 0; i < d0; ++i) EXPECT_EQ(data.inputs(t, i), x[t * d0 + i]) << t << "," << i;
    std::vector<double> hidden(h, 0.0);
    for (std::uint32_t k = 0; k < h; ++k) {
      for (std::uint32_t i = 0; i < d0; ++i) hidden[k] += x[t * d0 + i] * w1[i * h + k];
      hidden[k] = std::tanh(hidden[k]);
    }
    for (std::uint32_t o = 0; o < dL; ++o) {
      double target = 0;
      for (std::uint32_t k = 0; k < h; ++k) target += hidden[k] * w2[k * dL + o];
      EXPECT_NEAR(data.targets(t, o), target, 1e-12) << "token " << t << ", output " << o;
    }
  }
}

}  // namespace
}  // namespace spatialsim::workloads
