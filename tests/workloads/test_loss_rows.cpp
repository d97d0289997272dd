// The per-token loss functions a loss tile uses (workloads/loss.h): mse is the dense reference's own code,
// bit for bit; cross-entropy from a log-sum-exp reduced over column blocks agrees with the dense form to
// rounding, in fp64 and fp32.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "workloads/loss.h"

namespace spatialsim::workloads {
namespace {

using Mat = sim::Matrix<double>;

struct Step {
  Mat y;
  Mat t;
};

// Outputs from N(0, 2); targets N(0, 1) for mse, else a softmax (soft labels, each row summing to 1).
Step random_step(Loss loss, std::uint32_t tokens, std::uint32_t n) {
  std::mt19937_64 rng(3);
  std::normal_distribution<double> normal;
  Step s{Mat(tokens, n), Mat(tokens, n)};
  for (double& v : s.y.values()) v = 2 * normal(rng);
  for (std::uint32_t r = 0; r < tokens; ++r) {
    double sum = 0;
    for (std::uint32_t k = 0; k < n; ++k) {
      s.t(r, k) = loss == Loss::mse ? normal(rng) : std::exp(normal(rng));
      sum += s.t(r, k);
    }
    if (loss == Loss::cross_entropy)
      for (std::uint32_t k = 0; k < n; ++k) s.t(r, k) /= sum;
  }
  return s;
}

TEST(LossRows, MseRowsAreTheDenseLossBitForBit) {
  const Step s = random_step(Loss::mse, 5, 7);
  double sum = 0;
  Mat g(5, 7);
  for (std::uint32_t r = 0; r < 5; ++r) {
    const double per_token = add_mse(s.y.row(r), s.t.row(r), 7, 0.0);
    sum += per_token;
    mse_gradient(s.y.row(r), s.t.row(r), 7, 1.0 / 5, g.row(r));
  }
  EXPECT_EQ(sum / 5, loss_value(Loss::mse, s.y, s.t));
  EXPECT_EQ(g, loss_gradient(Loss::mse, s.y, s.t));
}

// A token's columns split over tiles of `widths` columns: each tile's log_sum_exp, merged in order.
template <typename Y>
Y reduced_lse(const Y* row, const std::vector<std::uint32_t>& widths) {
  Y lse = log_sum_exp(row, widths[0]);
  std::uint32_t first = widths[0];
  for (std::size_t i = 1; i < widths.size(); ++i) {
    lse = log_add_exp(lse, log_sum_exp(row + first, widths[i]));
    first += widths[i];
  }
  return lse;
}

template <typename Y>
void expect_cross_entropy_rows_match_the_dense_form(double tolerance) {
  const std::uint32_t tokens = 4;
  const std::uint32_t n = 9;
  const Step s = random_step(Loss::cross_entropy, tokens, n);
  const Mat dense_g = loss_gradient(Loss::cross_entropy, s.y, s.t);
  double sum = 0;
  for (std::uint32_t r = 0; r < tokens; ++r) {
    std::vector<Y> y(n);
    std::vector<Y> t(n);
    for (std::uint32_t k = 0; k < n; ++k) {
      y[k] = static_cast<Y>(s.y(r, k));
      t[k] = static_cast<Y>(s.t(r, k));
    }
    const Y lse = reduced_lse(y.data(), {4, 2, 3});
    sum = add_cross_entropy(y.data(), t.data(), n, lse, sum);
    std::vector<Y> g(n);
    cross_entropy_gradient(y.data(), t.data(), n, lse, 1.0 / tokens, g.data());
    for (std::uint32_t k = 0; k < n; ++k)
      EXPECT_NEAR(static_cast<double>(g[k]), dense_g(r, k), tolerance) << r << ", " << k;
  }
  const double dense = loss_value(Loss::cross_entropy, s.y, s.t);
  EXPECT_NEAR(sum / tokens, dense, tolerance * std::abs(dense));
}

TEST(LossRows, CrossEntropyFromAReducedLogSumExpMatchesTheDenseFormInFp64) {
  expect_cross_entropy_rows_match_the_dense_form<double>(1e-14);
}

TEST(LossRows, CrossEntropyFromAReducedLogSumExpMatchesTheDenseFormInFp32) {
  expect_cross_entropy_rows_match_the_dense_form<float>(1e-5);
}

}  // namespace
}  // namespace spatialsim::workloads
