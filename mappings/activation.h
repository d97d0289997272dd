#pragma once
// The elementwise activation a layer's output tiles apply after adding the bias.
// (Interface fixed here; implementation in activation.cpp.)
//
// Usage:
//   auto a = mappings::parse_activation("gelu");      // throws std::invalid_argument on an unknown name
//   double y = mappings::activate(a, z);  double dy_dz = mappings::activation_derivative(a, z);

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace spatialsim::mappings {

enum class Activation : std::uint8_t { identity, relu, tanh, gelu };

Activation parse_activation(std::string_view name);
std::string_view name(Activation a);
const std::vector<std::string>& activation_names();
// What `a` computes, one line for --list.
std::string_view description(Activation a);

// gelu is the exact form z * Phi(z) (Phi: the standard normal CDF, via erf), not the tanh approximation.
double activate(Activation a, double z);
float activate(Activation a, float z);
// d activate / d z, evaluated at the pre-activation z. relu'(0) is taken as 0.
double activation_derivative(Activation a, double z);
float activation_derivative(Activation a, float z);

}  // namespace spatialsim::mappings
