// The loss definitions: hand-computed values (so a missing 1/2, a sum instead of a mean, or a sign error
// fails), gradients against central differences, numerical stability, and input validation.
#include <gtest/gtest.h>

#include "tests/matrix_of.h"
#include "tests/test_names.h"

#include <cmath>
#include <random>
#include <stdexcept>
#include <string>

#include "tests/enum_printers.h"
#include "workloads/loss.h"
#include "workloads/reference/finite_difference.h"

namespace spatialsim::workloads {
namespace {

using Mat = sim::Matrix<double>;

// Matrices written out row by row.
constexpr auto make = &testing_support::matrix_of<double>;

TEST(Loss, MseIsHalfSquaredErrorMeanOverTokens) {
  // Token 0 residual (1, -2): 1/2 * 5 = 2.5. Token 1 residual (0, 3): 1/2 * 9 = 4.5. Mean: 3.5.
  const Mat y = make(2, 2, {1.0, 0.0, 2.0, 5.0});
  const Mat t = make(2, 2, {0.0, 2.0, 2.0, 2.0});
  EXPECT_DOUBLE_EQ(loss_value(Loss::mse, y, t), 3.5);
  const Mat g = loss_gradient(Loss::mse, y, t);
  EXPECT_EQ(g, make(2, 2, {0.5, -1.0, 0.0, 1.5}));  // residual / T
}

TEST(Loss, CrossEntropyIsMinusLogSoftmaxOfTheClassMeanOverTokens) {
  // Token 0: logits (ln 3, 0) -> softmax (3/4, 1/4), class 1: ln 4. Token 1: (ln 9, 0) -> (0.9, 0.1), class
  // 0: -ln 0.9. Mean over the two tokens.
  const Mat y = make(2, 2, {std::log(3.0), 0.0, std::log(9.0), 0.0});
  const Mat t = make(2, 2, {0.0, 1.0, 1.0, 0.0});
  EXPECT_NEAR(loss_value(Loss::cross_entropy, y, t), 0.5 * (std::log(4.0) - std::log(0.9)), 1e-15);
  // (softmax - onehot) / T.
  const Mat g = loss_gradient(Loss::cross_entropy, y, t);
  const Mat expected = make(2, 2, {0.375, -0.375, -0.05, 0.05});
  for (std::size_t i = 0; i < g.size(); ++i) EXPECT_NEAR(g.data()[i], expected.data()[i], 1e-15) << i;
}

TEST(Loss, CrossEntropyIsStableForLargeLogits) {
  const Mat y = make(1, 3, {1000.0, 0.0, -1000.0});
  EXPECT_NEAR(loss_value(Loss::cross_entropy, y, make(1, 3, {0.0, 1.0, 0.0})), 1000.0, 1e-9);
  EXPECT_NEAR(loss_value(Loss::cross_entropy, y, make(1, 3, {1.0, 0.0, 0.0})), 0.0, 1e-12);
  const Mat g = loss_gradient(Loss::cross_entropy, y, make(1, 3, {0.0, 1.0, 0.0}));
  EXPECT_NEAR(g(0, 0), 1.0, 1e-12);
  EXPECT_NEAR(g(0, 1), -1.0, 1e-12);
  EXPECT_NEAR(g(0, 2), 0.0, 1e-12);
  for (double v : g.values()) EXPECT_TRUE(std::isfinite(v));
}

TEST(Loss, CrossEntropyAcceptsSoftLabels) {
  // -sum t log p with t = (1/2, 1/2) and equal logits: log 2.
  EXPECT_NEAR(loss_value(Loss::cross_entropy, make(1, 2, {0.3, 0.3}), make(1, 2, {0.5, 0.5})), std::log(2.0),
              1e-15);
}

class LossGradient : public ::testing::TestWithParam<Loss> {};

TEST_P(LossGradient, MatchesCentralDifferenceInEveryOutput) {
  const Loss loss = GetParam();
  std::mt19937_64 rng(7);
  std::normal_distribution<double> normal;
  const std::uint32_t tokens = 4;
  const std::uint32_t classes = 5;
  Mat y(tokens, classes);
  Mat t(tokens, classes);
  for (double& v : y.values()) v = normal(rng);
  for (std::uint32_t r = 0; r < tokens; ++r) {
    if (loss == Loss::mse) {
      for (std::uint32_t k = 0; k < classes; ++k) t(r, k) = normal(rng);
    } else if (r % 2 == 0) {
      t(r, (r * 3) % classes) = 1.0;  // one-hot
    } else {
      t(r, 0) = 0.25;  // soft
      t(r, 2) = 0.75;
    }
  }
  const Mat g = loss_gradient(loss, y, t);
  for (std::uint32_t r = 0; r < tokens; ++r) {
    for (std::uint32_t k = 0; k < classes; ++k) {
      const double fd = reference::central_difference(
          [&](double eps) {
            Mat moved = y;
            moved(r, k) += eps;
            return loss_value(loss, moved, t);
          },
          1e-5);
      EXPECT_NEAR(g(r, k), fd, 1e-6 * std::abs(g(r, k)) + 1e-10)
          << name(loss) << " (" << r << ", " << k << ")";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(All, LossGradient, ::testing::Values(Loss::mse, Loss::cross_entropy),
                         [](const auto& test) { return testing_support::gtest_name(name(test.param)); });

TEST(Loss, RejectsMismatchedShapesEmptyStepsAndNonDistributionTargets) {
  EXPECT_THROW(loss_value(Loss::mse, Mat(2, 3), Mat(3, 2)), std::invalid_argument);
  EXPECT_THROW(loss_gradient(Loss::mse, Mat(0, 3), Mat(0, 3)), std::invalid_argument);
  EXPECT_THROW(loss_value(Loss::cross_entropy, Mat(1, 2), make(1, 2, {0.5, 0.4})), std::invalid_argument);
  EXPECT_THROW(loss_gradient(Loss::cross_entropy, Mat(1, 2), make(1, 2, {1.5, -0.5})), std::invalid_argument);
}

TEST(Loss, NamesRoundTripAndUnknownNameListsTheAcceptedOnes) {
  for (const auto& n : loss_names()) EXPECT_EQ(name(parse_loss(n)), n);
  EXPECT_EQ(parse_loss("cross-entropy"), Loss::cross_entropy);
  try {
    parse_loss("hinge");
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("hinge"), std::string::npos) << what;
    EXPECT_NE(what.find("mse"), std::string::npos) << what;
    EXPECT_NE(what.find("cross-entropy"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace spatialsim::workloads
