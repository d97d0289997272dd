// The activation functions the dense reference and the output tiles share: values, derivatives against
// central differences, the relu kink convention, and name parsing.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "mappings/activation.h"
#include "tests/enum_printers.h"
#include "workloads/reference/finite_difference.h"

namespace spatialsim::mappings {
namespace {

class ActivationDerivative : public ::testing::TestWithParam<Activation> {};

TEST_P(ActivationDerivative, MatchesCentralDifferenceAwayFromKinks) {
  const Activation a = GetParam();
  for (double z : {-4.0, -2.5, -1.3, -0.2, 0.07, 0.4, 1.0, 2.5, 4.0}) {
    const double fd =
        workloads::reference::central_difference([&](double eps) { return activate(a, z + eps); }, 1e-5);
    const double exact = activation_derivative(a, z);
    EXPECT_NEAR(exact, fd, 1e-9 * std::max(1.0, std::abs(exact))) << name(a) << " at z = " << z;
  }
}

TEST_P(ActivationDerivative, SinglePrecisionAgreesWithDouble) {
  const Activation a = GetParam();
  for (double z : {-3.0, -0.5, 0.0, 0.25, 1.5, 3.0}) {
    const auto zf = static_cast<float>(z);
    EXPECT_NEAR(activate(a, zf), activate(a, static_cast<double>(zf)), 1e-6) << name(a) << " at " << z;
    EXPECT_NEAR(activation_derivative(a, zf), activation_derivative(a, static_cast<double>(zf)), 1e-6)
        << name(a) << " at " << z;
  }
}

INSTANTIATE_TEST_SUITE_P(All, ActivationDerivative,
                         ::testing::Values(Activation::identity, Activation::relu, Activation::tanh,
                                           Activation::gelu),
                         [](const auto& test) { return std::string(name(test.param)); });

TEST(Activation, ReluKinkHasZeroDerivative) {
  EXPECT_EQ(activate(Activation::relu, 0.0), 0.0);
  EXPECT_EQ(activation_derivative(Activation::relu, 0.0), 0.0);
  EXPECT_EQ(activation_derivative(Activation::relu, 0.0f), 0.0f);
  EXPECT_EQ(activation_derivative(Activation::relu, 1e-300), 1.0);
  EXPECT_EQ(activate(Activation::relu, -2.0), 0.0);
}

TEST(Activation, GeluIsTheExactErfForm) {
  // Phi(1) = 0.8413447460685429; the tanh approximation gives 0.8411919906 and must not be what we compute.
  EXPECT_NEAR(activate(Activation::gelu, 1.0), 0.8413447460685429, 1e-15);
  EXPECT_NEAR(activate(Activation::gelu, -1.0), -0.15865525393145707, 1e-15);
  EXPECT_EQ(activate(Activation::gelu, 0.0), 0.0);
  // gelu'(0) = Phi(0) = 1/2; gelu'(1) = Phi(1) + phi(1) = 0.8413447460685429 + 0.24197072451914337.
  EXPECT_NEAR(activation_derivative(Activation::gelu, 0.0), 0.5, 1e-15);
  EXPECT_NEAR(activation_derivative(Activation::gelu, 1.0), 0.8413447460685429 + 0.24197072451914337, 1e-15);
}

TEST(Activation, TanhAndIdentityValues) {
  EXPECT_NEAR(activate(Activation::tanh, 0.5), std::tanh(0.5), 0.0);
  EXPECT_NEAR(activation_derivative(Activation::tanh, 0.0), 1.0, 0.0);
  EXPECT_EQ(activate(Activation::identity, -7.25), -7.25);
  EXPECT_EQ(activation_derivative(Activation::identity, -7.25), 1.0);
}

// A NaN (an overflow upstream: inf - inf) stays NaN through every activation and its derivative, in both
// precisions. relu used to turn it into 0, so a network whose values overflowed trained on as if its
// weights were 0, with a finite loss and a passing --check (init_gain 1e160 in fp64).
TEST(Activation, NaNPassesThroughEveryActivationAndDerivative) {
  for (const auto& n : activation_names()) {
    const Activation a = parse_activation(n);
    EXPECT_TRUE(std::isnan(activate(a, std::numeric_limits<double>::quiet_NaN()))) << n;
    EXPECT_TRUE(std::isnan(activate(a, std::numeric_limits<float>::quiet_NaN()))) << n;
    if (a == Activation::identity) continue;  // its derivative does not look at z
    EXPECT_TRUE(std::isnan(activation_derivative(a, std::numeric_limits<double>::quiet_NaN()))) << n;
    EXPECT_TRUE(std::isnan(activation_derivative(a, std::numeric_limits<float>::quiet_NaN()))) << n;
  }
  EXPECT_EQ(activate(Activation::relu, -std::numeric_limits<double>::infinity()), 0.0);
  EXPECT_EQ(activation_derivative(Activation::relu, std::numeric_limits<float>::infinity()), 1.0f);
}

TEST(Activation, NamesRoundTrip) {
  ASSERT_EQ(activation_names().size(), 4u);
  for (const auto& n : activation_names()) EXPECT_EQ(name(parse_activation(n)), n);
  EXPECT_EQ(parse_activation("gelu"), Activation::gelu);
}

TEST(Activation, UnknownNameListsTheAcceptedOnes) {
  try {
    parse_activation("sigmoid");
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("sigmoid"), std::string::npos) << what;
    for (const auto& n : activation_names()) EXPECT_NE(what.find(n), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace spatialsim::mappings
