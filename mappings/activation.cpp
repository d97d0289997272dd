#include "mappings/activation.h"

#include <cmath>
#include <numbers>
#include <stdexcept>

#include "sim/enum_names.h"

namespace spatialsim::mappings {

namespace {

constexpr sim::EnumNames<Activation, 4> kActivationNames{{{{Activation::identity, "identity"},
                                                           {Activation::relu, "relu"},
                                                           {Activation::tanh, "tanh"},
                                                           {Activation::gelu, "gelu"}}}};

// One templated body per function so that the fp32 and fp64 paths cannot drift apart; the arithmetic
// itself runs in the caller's precision (fp32 tiles must not silently compute in fp64).
template <typename Real>
Real normal_cdf(Real z) {
  return Real(0.5) * (Real(1) + std::erf(z / std::numbers::sqrt2_v<Real>));
}

template <typename Real>
Real normal_pdf(Real z) {
  // 1/sqrt(2 pi) = inv_sqrtpi / sqrt2.
  return std::numbers::inv_sqrtpi_v<Real> / std::numbers::sqrt2_v<Real> * std::exp(Real(-0.5) * z * z);
}

template <typename Real>
Real activate_impl(Activation a, Real z) {
  switch (a) {
    case Activation::identity:
      return z;
    case Activation::relu:
      // A NaN (an overflow upstream) passes through: as 0 it would make the network look like one whose
      // weights are 0, with a finite loss.
      return z > Real(0) || std::isnan(z) ? z : Real(0);
    case Activation::tanh:
      return std::tanh(z);
    case Activation::gelu:
      return z * normal_cdf(z);
  }
  throw std::logic_error("activate: unhandled activation");
}

template <typename Real>
Real derivative_impl(Activation a, Real z) {
  switch (a) {
    case Activation::identity:
      return Real(1);
    case Activation::relu:
      // Strict inequality: the subgradient at the kink is taken as 0 (docs/conventions-math.md). A NaN z
      // gives a NaN slope, so that it cannot zero the gradient that flows through it.
      if (std::isnan(z)) return z;
      return z > Real(0) ? Real(1) : Real(0);
    case Activation::tanh: {
      const Real t = std::tanh(z);
      return Real(1) - t * t;
    }
    case Activation::gelu:
      // d/dz [z Phi(z)] = Phi(z) + z phi(z).
      return normal_cdf(z) + z * normal_pdf(z);
  }
  throw std::logic_error("activation_derivative: unhandled activation");
}

}  // namespace

const std::vector<std::string>& activation_names() {
  static const std::vector<std::string> names = kActivationNames.names();
  return names;
}

std::string_view description(Activation a) {
  switch (a) {
    case Activation::identity:
      return "z (a linear layer)";
    case Activation::relu:
      return "max(z, 0); slope 0 at z = 0";
    case Activation::tanh:
      return "tanh(z)";
    case Activation::gelu:
      return "z Phi(z), Phi the standard normal CDF (the exact form, through erf; not the tanh "
             "approximation)";
  }
  throw std::logic_error("description: unhandled activation");
}

Activation parse_activation(std::string_view name) {
  return kActivationNames.parse(name, "activation");
}

std::string_view name(Activation a) {
  return kActivationNames.name(a);
}

double activate(Activation a, double z) {
  return activate_impl(a, z);
}
float activate(Activation a, float z) {
  return activate_impl(a, z);
}
double activation_derivative(Activation a, double z) {
  return derivative_impl(a, z);
}
float activation_derivative(Activation a, float z) {
  return derivative_impl(a, z);
}

}  // namespace spatialsim::mappings
