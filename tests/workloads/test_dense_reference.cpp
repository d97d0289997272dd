// The dense reference MLP: hand-computed tiny nets (so a sign, 1/T, layout or last-layer-activation error
// fails), reverse mode against central differences for every weight and bias, and forward mode (the
// directional derivative) against both the gradient and a central difference along the direction.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <ostream>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/matrix_of.h"
#include "tests/test_names.h"
#include "workloads/reference/dense_mlp.h"
#include "workloads/reference/finite_difference.h"

namespace spatialsim::workloads::reference {
namespace {

using mappings::Activation;
using Mat = sim::Matrix<double>;

// Matrices written out row by row.
constexpr auto make = &testing_support::matrix_of<double>;

void expect_matrix_near(const Mat& actual, const Mat& expected, double tolerance) {
  ASSERT_EQ(actual.rows(), expected.rows());
  ASSERT_EQ(actual.cols(), expected.cols());
  for (std::uint32_t r = 0; r < actual.rows(); ++r) {
    for (std::uint32_t c = 0; c < actual.cols(); ++c) {
      EXPECT_NEAR(actual(r, c), expected(r, c), tolerance) << "(" << r << ", " << c << ")";
    }
  }
}

// ---- Hand-computed cases ----

TEST(DenseReferenceByHand, OneLayerMse) {
  // y = x W + b with W = [[1, 2], [3, -1]] (d_in x d_out), b = (0.5, -0.5), tokens x = (1, 0), (0, 2):
  // y0 = (1.5, 1.5), y1 = (6.5, -2.5). Targets (1, 2), (6, -3): residuals (0.5, -0.5), (0.5, 0.5).
  // Per-token loss 1/2 * 0.5 = 0.25 each; mean 0.25. dL/dY = residual / 2.
  // dW = x^T dY = [[0.25, -0.25], [0.5, 0.5]];  db = column sums of dY = (0.5, 0).
  DenseMlp net{{DenseLayer{make(2, 2, {1, 2, 3, -1}), {0.5, -0.5}}}, Activation::relu, Loss::mse};
  const Mat x = make(2, 2, {1, 0, 0, 2});
  const Mat targets = make(2, 2, {1, 2, 6, -3});

  const ForwardTrace trace = forward(net, x);
  expect_matrix_near(trace.outputs, make(2, 2, {1.5, 1.5, 6.5, -2.5}),
                     0.0);  // -2.5: no relu on the last layer

  const Gradients g = gradients(net, x, targets);
  EXPECT_DOUBLE_EQ(g.loss, 0.25);
  EXPECT_DOUBLE_EQ(loss(net, x, targets), 0.25);
  expect_matrix_near(g.weights[0], make(2, 2, {0.25, -0.25, 0.5, 0.5}), 1e-15);
  ASSERT_EQ(g.bias[0].size(), 2u);
  EXPECT_NEAR(g.bias[0][0], 0.5, 1e-15);
  EXPECT_NEAR(g.bias[0][1], 0.0, 1e-15);
}

TEST(DenseReferenceByHand, OneLayerCrossEntropyWithoutBias) {
  // W = [[ln 3, 0]], tokens x = 1 (class 1) and x = 2 (class 0): logits (ln 3, 0) and (ln 9, 0), softmax
  // (3/4, 1/4) and (9/10, 1/10). Loss = (ln 4 - ln 0.9) / 2. dL/dY = (softmax - onehot) / 2 =
  // (0.375, -0.375), (-0.05, 0.05); dW = 1 * row0 + 2 * row1 = (0.275, -0.275).
  DenseMlp net{{DenseLayer{make(1, 2, {std::log(3.0), 0.0}), {}}}, Activation::gelu, Loss::cross_entropy};
  const Mat x = make(2, 1, {1, 2});
  const Mat targets = make(2, 2, {0, 1, 1, 0});
  const Gradients g = gradients(net, x, targets);
  EXPECT_NEAR(g.loss, 0.5 * (std::log(4.0) - std::log(0.9)), 1e-15);
  expect_matrix_near(g.weights[0], make(1, 2, {0.275, -0.275}), 1e-15);
  EXPECT_TRUE(g.bias[0].empty());
}

TEST(DenseReferenceByHand, TwoLayersActivationBetweenNotAfter) {
  // x = 1; z0 = 1 * 2 - 0.5 = 1.5; x1 = relu(1.5) = 1.5; y = 1.5 * 3 + 0 = 4.5; target 1: residual 3.5,
  // loss 1/2 * 12.25 = 6.125. Backward: dY = 3.5; dW1 = x1 dY = 5.25; db1 = 3.5; dx1 = dY W1^T = 10.5;
  // relu'(1.5) = 1 so dz0 = 10.5; dW0 = x dz0 = 10.5; db0 = 10.5.
  DenseMlp net{
      {DenseLayer{make(1, 1, {2}), {-0.5}}, DenseLayer{make(1, 1, {3}), {0.0}}}, Activation::relu, Loss::mse};
  const Mat x = make(1, 1, {1});
  const Mat targets = make(1, 1, {1});
  const ForwardTrace trace = forward(net, x);
  ASSERT_EQ(trace.inputs.size(), 2u);
  ASSERT_EQ(trace.pre_activations.size(), 2u);
  EXPECT_EQ(trace.inputs[0](0, 0), 1.0);
  EXPECT_EQ(trace.pre_activations[0](0, 0), 1.5);
  EXPECT_EQ(trace.inputs[1](0, 0), 1.5);
  EXPECT_EQ(trace.pre_activations[1], trace.outputs);
  const Gradients g = gradients(net, x, targets);
  EXPECT_DOUBLE_EQ(g.loss, 6.125);
  EXPECT_DOUBLE_EQ(g.weights[1](0, 0), 5.25);
  EXPECT_DOUBLE_EQ(g.bias[1][0], 3.5);
  EXPECT_DOUBLE_EQ(g.weights[0](0, 0), 10.5);
  EXPECT_DOUBLE_EQ(g.bias[0][0], 10.5);

  // The last layer stays linear even when its output is negative: W1 = -3 gives y = -4.5, not relu's 0.
  net.layers[1].weights(0, 0) = -3.0;
  EXPECT_EQ(forward(net, x).outputs(0, 0), -4.5);
}

TEST(DenseReference, RejectsInconsistentShapes) {
  const Mat x(2, 3);
  DenseMlp empty{{}, Activation::relu, Loss::mse};
  EXPECT_THROW(forward(empty, x), std::invalid_argument);
  DenseMlp wrong_input{{DenseLayer{Mat(4, 2), {}}}, Activation::relu, Loss::mse};
  EXPECT_THROW(forward(wrong_input, x), std::invalid_argument);
  DenseMlp wrong_chain{{DenseLayer{Mat(3, 2), {}}, DenseLayer{Mat(3, 2), {}}}, Activation::relu, Loss::mse};
  EXPECT_THROW(forward(wrong_chain, x), std::invalid_argument);
  DenseMlp wrong_bias{{DenseLayer{Mat(3, 2), {1.0}}}, Activation::relu, Loss::mse};
  EXPECT_THROW(forward(wrong_bias, x), std::invalid_argument);
  DenseMlp ok{{DenseLayer{Mat(3, 2), {}}}, Activation::relu, Loss::mse};
  Gradients wrong_direction = zeros_like(ok);
  wrong_direction.bias[0].assign(2, 0.0);  // a bias the net does not have
  EXPECT_THROW(directional_derivative(ok, x, Mat(2, 2), wrong_direction), std::invalid_argument);
  EXPECT_THROW(weight_central_difference(ok, x, Mat(2, 2), 0, 3, 0, 1e-5), std::out_of_range);
  EXPECT_THROW(bias_central_difference(ok, x, Mat(2, 2), 0, 0, 1e-5), std::out_of_range);
}

// ---- Random nets against finite differences ----

struct NetCase {
  std::vector<std::uint32_t> widths;
  Activation activation;
  Loss loss;
  bool bias;
};

std::string case_name(const NetCase& c) {
  std::string s;
  for (auto w : c.widths) s += std::to_string(w) + "_";
  return s + std::string(mappings::name(c.activation)) + "_" + testing_support::gtest_name(name(c.loss)) +
         (c.bias ? "_bias" : "_nobias");
}

void PrintTo(const NetCase& c, std::ostream* os) {
  *os << case_name(c);
}

// The kink guard: a relu pre-activation this close to 0 could be crossed by a perturbation of h and make the
// central difference disagree with the (correct) one-sided derivative.
constexpr double kReluMargin = 1e-3;
constexpr double kStep = 1e-5;
constexpr std::uint32_t kTokens = 3;

struct Problem {
  DenseMlp net;
  Mat x;
  Mat targets;
};

double min_abs_hidden_pre_activation(const DenseMlp& net, const Mat& x) {
  const ForwardTrace trace = forward(net, x);
  double smallest = INFINITY;
  for (std::size_t l = 0; l + 1 < trace.pre_activations.size(); ++l) {
    for (double z : trace.pre_activations[l].values()) smallest = std::min(smallest, std::abs(z));
  }
  return smallest;
}

Problem make_problem(const NetCase& c, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  Problem p;
  p.net.activation = c.activation;
  p.net.loss = c.loss;
  for (std::size_t l = 0; l + 1 < c.widths.size(); ++l) {
    DenseLayer layer{Mat(c.widths[l], c.widths[l + 1]), {}};
    // N(0, 1/d_in) keeps pre-activations O(1) through the layers.
    const double scale = 1.0 / std::sqrt(static_cast<double>(c.widths[l]));
    for (double& w : layer.weights.values()) w = scale * normal(rng);
    if (c.bias) {
      layer.bias.resize(c.widths[l + 1]);
      for (double& b : layer.bias) b = 0.3 * normal(rng);
    }
    p.net.layers.push_back(std::move(layer));
  }
  const std::uint32_t outputs = c.widths.back();
  p.targets = Mat(kTokens, outputs);
  for (std::uint32_t t = 0; t < kTokens; ++t) {
    if (c.loss == Loss::cross_entropy) {
      p.targets(t, (t * 2 + 1) % outputs) = 1.0;  // one-hot
    } else {
      for (std::uint32_t k = 0; k < outputs; ++k) p.targets(t, k) = normal(rng);
    }
  }
  // Draw inputs until every hidden pre-activation clears the relu margin (a few draws at most for these
  // sizes). For smooth activations the first draw is kept.
  p.x = Mat(kTokens, c.widths.front());
  for (int attempt = 0;; ++attempt) {
    for (double& v : p.x.values()) v = normal(rng);
    if (c.activation != Activation::relu || min_abs_hidden_pre_activation(p.net, p.x) > kReluMargin) break;
    if (attempt > 1000) throw std::runtime_error("could not draw inputs away from the relu kinks");
  }
  return p;
}

// Relative agreement with a small absolute floor: the central difference's round-off is about
// eps_machine * |L| / h ~ 1e-11, so entries that are (nearly) zero compare against that, not against 0.
::testing::AssertionResult close(double actual, double expected, double relative) {
  const double tolerance = relative * std::max(std::abs(actual), std::abs(expected)) + 1e-9;
  if (std::abs(actual - expected) <= tolerance) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << actual << " vs " << expected << ": differ by "
                                       << std::abs(actual - expected) << " > " << tolerance;
}

class DenseReferenceFiniteDifference : public ::testing::TestWithParam<NetCase> {};

TEST_P(DenseReferenceFiniteDifference, GradientMatchesCentralDifferenceForEveryWeightAndBias) {
  const Problem p = make_problem(GetParam(), 42);
  const Gradients g = gradients(p.net, p.x, p.targets);
  EXPECT_NEAR(g.loss, loss(p.net, p.x, p.targets), 0.0);
  // Guard against a vacuous pass (all-zero gradients agree with anything flat).
  EXPECT_GT(std::sqrt(dot(g, g)), 1e-3);
  for (std::size_t l = 0; l < p.net.layers.size(); ++l) {
    const auto& w = p.net.layers[l].weights;
    for (std::uint32_t r = 0; r < w.rows(); ++r) {
      for (std::uint32_t c = 0; c < w.cols(); ++c) {
        EXPECT_TRUE(
            close(g.weights[l](r, c), weight_central_difference(p.net, p.x, p.targets, l, r, c, kStep), 1e-6))
            << "W" << l << "(" << r << ", " << c << ")";
      }
    }
    ASSERT_EQ(g.bias[l].size(), p.net.layers[l].bias.size());
    for (std::uint32_t j = 0; j < g.bias[l].size(); ++j) {
      EXPECT_TRUE(close(g.bias[l][j], bias_central_difference(p.net, p.x, p.targets, l, j, kStep), 1e-6))
          << "b" << l << "[" << j << "]";
    }
  }
}

TEST_P(DenseReferenceFiniteDifference, DirectionalDerivativeMatchesGradientAndCentralDifference) {
  const Problem p = make_problem(GetParam(), 43);
  const Gradients g = gradients(p.net, p.x, p.targets);
  std::mt19937_64 rng(44);
  std::normal_distribution<double> normal;
  for (int k = 0; k < 3; ++k) {
    Gradients v = zeros_like(p.net);
    for (auto& m : v.weights) {
      for (double& e : m.values()) e = normal(rng);
    }
    for (auto& b : v.bias) {
      for (double& e : b) e = normal(rng);
    }
    const double jvp = directional_derivative(p.net, p.x, p.targets, v);
    const double inner = dot(g, v);
    // Round-off scale of the inner product: sum |g_i v_i|.
    double scale = 0.0;
    for (std::size_t l = 0; l < g.weights.size(); ++l) {
      for (std::size_t i = 0; i < g.weights[l].size(); ++i) {
        scale += std::abs(g.weights[l].data()[i] * v.weights[l].data()[i]);
      }
      for (std::size_t j = 0; j < g.bias[l].size(); ++j) scale += std::abs(g.bias[l][j] * v.bias[l][j]);
    }
    EXPECT_NEAR(jvp, inner, 1e-10 * scale) << "direction " << k;
    EXPECT_TRUE(close(jvp, directional_central_difference(p.net, p.x, p.targets, v, kStep), 1e-6))
        << "direction " << k;
  }
}

std::vector<NetCase> all_cases() {
  std::vector<NetCase> cases;
  for (const auto& widths : {std::vector<std::uint32_t>{5, 7, 4, 3}, std::vector<std::uint32_t>{4, 6, 2}}) {
    for (auto a : {Activation::identity, Activation::relu, Activation::tanh, Activation::gelu}) {
      for (auto l : {Loss::mse, Loss::cross_entropy}) {
        for (bool bias : {true, false}) cases.push_back({widths, a, l, bias});
      }
    }
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(All, DenseReferenceFiniteDifference, ::testing::ValuesIn(all_cases()),
                         [](const auto& test) { return case_name(test.param); });

}  // namespace
}  // namespace spatialsim::workloads::reference
