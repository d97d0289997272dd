#pragma once
// The dense reference of a reversible additive-coupling network (docs/reversible.md): whole matrices in
// fp64, plain loops, reverse mode written out by hand. The tiled `reversible` schedule is checked against
// it (MODEL.md section 8); it shares no code with mappings/, the schedules or dense_mlp.cpp beyond the
// activation and loss definitions, and it keeps every intermediate of its forward pass, so its gradient
// involves no reconstruction at all.
//
//   h = act(x W_e + b_e);  a_0 = h[:, 0:d/2], b_0 = h[:, d/2:d]
//   a_k = a_{k-1} + act(b_{k-1} W_Fk + b_Fk),  b_k = b_{k-1} + act(a_k W_Gk + b_Gk)   (k = 1..L)
//   Y = [a_L b_L] W_x + b_x   (linear, to the loss)
//
// Usage:
//   reference::DenseReversible net{entry, {f1, f2}, {g1, g2}, exit, mappings::Activation::tanh, Loss::mse};
//   reference::Gradients g = reference::gradients(net, x, targets);   // entry, F1, G1, F2, G2, exit
//   double l = reference::loss(net, x, targets);

#include <vector>

#include "mappings/activation.h"
#include "sim/matrix.h"
#include "workloads/loss.h"
#include "workloads/reference/dense_mlp.h"

namespace spatialsim::workloads::reference {

struct DenseReversible {
  DenseLayer entry;                                                  // d_0 x d
  std::vector<DenseLayer> f;                                         // F_k: d/2 x d/2, k = 1..L
  std::vector<DenseLayer> g;                                         // G_k: d/2 x d/2
  DenseLayer exit;                                                   // d x d_out, linear
  mappings::Activation activation = mappings::Activation::identity;  // entry, F and G
  Loss loss = Loss::mse;
};

struct ReversibleTrace {
  sim::Matrix<double> entry_pre_activation;  // x W_e + b_e
  std::vector<sim::Matrix<double>> a;        // a_0 .. a_L
  std::vector<sim::Matrix<double>> b;        // b_0 .. b_L
  std::vector<sim::Matrix<double>> f_pre;    // b_{k-1} W_Fk + b_Fk, index k - 1
  std::vector<sim::Matrix<double>> g_pre;    // a_k W_Gk + b_Gk, index k - 1
  sim::Matrix<double> outputs;               // Y
};

// Contract: f and g have the same count L >= 1; the entry layer's d_out = d is even, F and G are
// d/2 x d/2, the exit layer is d x d_out; biases empty or of d_out entries; x has d_0 columns. Violations
// throw std::invalid_argument.
ReversibleTrace forward(const DenseReversible& net, const sim::Matrix<double>& x);
double loss(const DenseReversible& net, const sim::Matrix<double>& x, const sim::Matrix<double>& targets);
// Exact dL/dW and dL/db of every layer, in the order entry, F_1, G_1, ..., F_L, G_L, exit.
Gradients gradients(const DenseReversible& net, const sim::Matrix<double>& x,
                    const sim::Matrix<double>& targets);

// The net's layers in that same order (a copy), and back: for perturbing one parameter in a check.
std::vector<DenseLayer> layers_in_order(const DenseReversible& net);
DenseReversible with_layers(const DenseReversible& net, std::vector<DenseLayer> layers);

}  // namespace spatialsim::workloads::reference
