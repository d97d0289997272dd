#pragma once
// The dense reference: the whole network on whole matrices in fp64, plain loops, reverse and forward mode
// written out by hand. The tiled simulation is checked against this (MODEL.md section 8), so it shares no
// code with mappings/ or the schedules beyond the activation and loss definitions themselves.
//
// Conventions (docs/conventions-math.md): tokens are row vectors, x is T x d_in; layer l computes
// z_l = x_l W_l + b_l with W_l of shape d_in x d_out; x_{l+1} = act(z_l) for every layer but the last,
// whose z is the network's output and goes straight to the loss (mean over tokens, workloads/loss.h).
//
// Usage:
//   reference::DenseMlp net{{layer0, layer1}, mappings::Activation::gelu, Loss::mse};
//   reference::Gradients g = reference::gradients(net, x, targets);     // g.weights[l] is d_in x d_out
//   double jvp = reference::directional_derivative(net, x, targets, v);  // == dot(g, v) to round-off

#include <cstddef>
#include <vector>

#include "mappings/activation.h"
#include "sim/matrix.h"
#include "workloads/loss.h"

namespace spatialsim::workloads::reference {

struct DenseLayer {
  sim::Matrix<double> weights;  // d_in x d_out
  std::vector<double> bias;     // d_out, empty if the layer has no bias
};

struct DenseMlp {
  std::vector<DenseLayer> layers;
  mappings::Activation activation = mappings::Activation::identity;  // after every layer but the last
  Loss loss = Loss::mse;
};

struct ForwardTrace {
  std::vector<sim::Matrix<double>> inputs;           // x_l, the input of layer l (inputs[0] is x)
  std::vector<sim::Matrix<double>> pre_activations;  // z_l = x_l W_l + b_l (the last one equals outputs)
  sim::Matrix<double> outputs;                       // z_{L-1}, no activation applied
};

// Parameter-shaped values: a gradient, or a direction in parameter space. bias[l] is empty exactly when
// layer l has no bias.
struct Gradients {
  std::vector<sim::Matrix<double>> weights;
  std::vector<std::vector<double>> bias;
  double loss = 0.0;  // the loss at which the gradient was taken; ignored when used as a direction
};

// Contract: the net has at least one layer; consecutive layers chain (d_out of l == d_in of l+1); each
// bias is empty or has d_out entries; x has layer 0's d_in columns. Violations throw std::invalid_argument.
ForwardTrace forward(const DenseMlp& net, const sim::Matrix<double>& x);

// The step's loss: loss_value(net.loss, forward(net, x).outputs, targets). Contract: as forward, and
// targets as in workloads::loss_value.
double loss(const DenseMlp& net, const sim::Matrix<double>& x, const sim::Matrix<double>& targets);

// Exact dL/dW_l and dL/db_l by reverse mode. Contract: as loss.
Gradients gradients(const DenseMlp& net, const sim::Matrix<double>& x, const sim::Matrix<double>& targets);

// <dL/dtheta, direction> by forward mode (a Jacobian-vector product), without forming the gradient: the
// tangent dx_{l+1} = act'(z_l) * (dx_l W_l + x_l V_l + dB_l) is pushed through the layers from dx_0 = 0
// and the result is <dL/dY, dY>. Contract: as loss; direction has the net's parameter shapes (see
// zeros_like), else std::invalid_argument.
double directional_derivative(const DenseMlp& net, const sim::Matrix<double>& x,
                              const sim::Matrix<double>& targets, const Gradients& direction);

// Parameter-shaped zeros (bias empty where the layer has none), to build directions from.
Gradients zeros_like(const DenseMlp& net);

// sum over all weights and biases of a * b. Contract: same shapes, else std::invalid_argument.
double dot(const Gradients& a, const Gradients& b);

}  // namespace spatialsim::workloads::reference
