// The dense reference of the reversible coupling network: a hand-computed tiny net (so that the coupling
// order, the skip paths and the exit layer's linearity are pinned down), and reverse mode against central
// finite differences for every weight and bias of every layer.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <ostream>
#include <random>
#include <stdexcept>
#include <string>

#include "tests/matrix_of.h"
#include "tests/test_names.h"
#include "workloads/reference/dense_reversible.h"
#include "workloads/reference/finite_difference.h"

namespace spatialsim::workloads::reference {
namespace {

using mappings::Activation;
using Mat = sim::Matrix<double>;

// Matrices written out row by row.
constexpr auto make = &testing_support::matrix_of<double>;

TEST(DenseReversibleByHand, OneBlockIdentityActivation) {
  // d_0 = d = 2, one block, scalar F = 2 and G = 3, exit sums both halves. x = (1, 1):
  // a_0 = b_0 = 1; a_1 = 1 + 2 * 1 = 3; b_1 = 1 + 3 * 3 = 10; y = 13; mse against 0: loss 84.5, dy = 13.
  // Backward: db_1 = 13; dG = a_1 db = 39; da = 13 + 3 * 13 = 52; dF = b_0 da = 52; db_0 = 13 + 2 * 52 = 117;
  // dW_e = x^T (52, 117); dW_x = (a_1, b_1)^T 13 = (39, 130).
  DenseReversible net;
  net.entry = {make(2, 2, {1, 0, 0, 1}), {}};
  net.f = {{make(1, 1, {2}), {}}};
  net.g = {{make(1, 1, {3}), {}}};
  net.exit = {make(2, 1, {1, 1}), {}};
  const Mat x = make(1, 2, {1, 1});
  const Mat t = make(1, 1, {0});
  const ReversibleTrace tr = forward(net, x);
  EXPECT_DOUBLE_EQ(tr.a[1](0, 0), 3);
  EXPECT_DOUBLE_EQ(tr.b[1](0, 0), 10);
  EXPECT_DOUBLE_EQ(tr.outputs(0, 0), 13);
  const Gradients g = gradients(net, x, t);
  EXPECT_DOUBLE_EQ(g.loss, 84.5);
  ASSERT_EQ(g.weights.size(), 4u);  // entry, F1, G1, exit
  EXPECT_DOUBLE_EQ(g.weights[2](0, 0), 39);
  EXPECT_DOUBLE_EQ(g.weights[1](0, 0), 52);
  EXPECT_DOUBLE_EQ(g.weights[0](0, 0), 52);
  EXPECT_DOUBLE_EQ(g.weights[0](1, 1), 117);
  EXPECT_DOUBLE_EQ(g.weights[3](0, 0), 39);
  EXPECT_DOUBLE_EQ(g.weights[3](1, 0), 130);
}

TEST(DenseReversibleByHand, RejectsAnOddTrunkAndMismatchedShapes) {
  DenseReversible net;
  net.entry = {Mat(2, 3), {}};
  net.f = {{Mat(1, 1), {}}};
  net.g = {{Mat(1, 1), {}}};
  net.exit = {Mat(3, 1), {}};
  EXPECT_THROW(forward(net, Mat(1, 2)), std::invalid_argument);
  net.entry = {Mat(2, 4), {}};
  net.exit = {Mat(4, 1), {}};
  EXPECT_THROW(forward(net, Mat(1, 2)), std::invalid_argument);  // F, G must be 2 x 2
}

struct FdCase {
  Activation activation;
  Loss loss;
  std::uint32_t blocks;
};

void PrintTo(const FdCase& c, std::ostream* os) {
  *os << mappings::name(c.activation) << ", " << name(c.loss) << ", " << c.blocks << " blocks";
}

class DenseReversibleFiniteDifference : public ::testing::TestWithParam<FdCase> {};

TEST_P(DenseReversibleFiniteDifference, EveryWeightAndBiasMatchesCentralDifferences) {
  const FdCase c = GetParam();
  const std::uint32_t d0 = 3, d = 6, dout = 4, tokens = 5;
  std::mt19937_64 rng(7);
  std::normal_distribution<double> normal(0.0, 0.6);
  auto random = [&](std::uint32_t r, std::uint32_t k) {
    Mat m(r, k);
    for (double& v : m.values()) v = normal(rng);
    return m;
  };
  auto bias = [&](std::uint32_t n) {
    std::vector<double> b(n);
    for (double& v : b) v = normal(rng);
    return b;
  };
  DenseReversible net;
  net.activation = c.activation;
  net.loss = c.loss;
  net.entry = {random(d0, d), bias(d)};
  for (std::uint32_t k = 0; k < c.blocks; ++k) {
    net.f.push_back({random(d / 2, d / 2), bias(d / 2)});
    net.g.push_back({random(d / 2, d / 2), bias(d / 2)});
  }
  net.exit = {random(d, dout), bias(dout)};
  const Mat x = random(tokens, d0);
  Mat t(tokens, dout);
  for (std::uint32_t r = 0; r < tokens; ++r) t(r, r % dout) = 1.0;  // one-hot: valid for both losses

  const Gradients g = gradients(net, x, t);
  const std::vector<DenseLayer> layers = layers_in_order(net);
  ASSERT_EQ(g.weights.size(), layers.size());
  auto perturbed_loss = [&](std::size_t l, bool is_bias, std::size_t k, double eps) {
    std::vector<DenseLayer> copy = layers;
    if (is_bias)
      copy[l].bias[k] += eps;
    else
      copy[l].weights.values()[k] += eps;
    return loss(with_layers(net, std::move(copy)), x, t);
  };
  for (std::size_t l = 0; l < layers.size(); ++l) {
    for (std::size_t k = 0; k < layers[l].weights.size(); ++k) {
      const double fd = central_difference([&](double e) { return perturbed_loss(l, false, k, e); }, 1e-5);
      EXPECT_NEAR(g.weights[l].values()[k], fd, 1e-8 * (1 + std::abs(fd)))
          << "layer " << l << " weight " << k;
    }
    for (std::size_t k = 0; k < layers[l].bias.size(); ++k) {
      const double fd = central_difference([&](double e) { return perturbed_loss(l, true, k, e); }, 1e-5);
      EXPECT_NEAR(g.bias[l][k], fd, 1e-8 * (1 + std::abs(fd))) << "layer " << l << " bias " << k;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(ActivationsLossesDepths, DenseReversibleFiniteDifference,
                         ::testing::Values(FdCase{Activation::tanh, Loss::mse, 1},
                                           FdCase{Activation::tanh, Loss::mse, 3},
                                           FdCase{Activation::gelu, Loss::cross_entropy, 2},
                                           FdCase{Activation::identity, Loss::cross_entropy, 2}),
                         [](const auto& test) {
                           return testing_support::gtest_name(
                               std::string(mappings::name(test.param.activation)) + "_" +
                               std::string(name(test.param.loss)) + "_L" + std::to_string(test.param.blocks));
                         });

}  // namespace
}  // namespace spatialsim::workloads::reference
