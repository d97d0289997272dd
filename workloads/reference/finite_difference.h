#pragma once
// Central finite differences of the dense reference's loss, the independent check of its hand-written
// reverse and forward modes (MODEL.md section 8: "the reference itself agrees with central finite
// differences").
//
// Usage:
//   double fd = reference::weight_central_difference(net, x, targets, /*layer=*/1, /*row=*/2, /*col=*/0,
//                                                    /*h=*/1e-5);
//   double g = reference::gradients(net, x, targets).weights[1](2, 0);   // fd == g to ~1e-9 relative
//
// Step size: the truncation error is O(h^2 f''') and the round-off O(eps |f| / h); h ~ 1e-5 balances them
// in fp64 for O(1) losses. None of these helpers can see a kink (relu at 0): keep pre-activations at least
// a few h * |x| away from 0 when checking relu nets.

#include <cstddef>
#include <cstdint>
#include <functional>

#include "sim/matrix.h"
#include "workloads/reference/dense_mlp.h"

namespace spatialsim::workloads::reference {

// (f(h) - f(-h)) / (2h). Contract: h > 0, else std::invalid_argument.
double central_difference(const std::function<double(double)>& f_of_eps, double h);

// The loss with one weight W_layer(row, col) replaced by W + eps; the net is copied, never modified.
// Contract: layer/row/col in range, else std::out_of_range; otherwise as reference::loss.
double loss_with_weight_perturbed(const DenseMlp& net, const sim::Matrix<double>& x,
                                  const sim::Matrix<double>& targets, std::size_t layer, std::uint32_t row,
                                  std::uint32_t col, double eps);

// The loss with one bias b_layer[index] replaced by b + eps. Contract: as loss_with_weight_perturbed (a
// layer without bias has no index in range).
double loss_with_bias_perturbed(const DenseMlp& net, const sim::Matrix<double>& x,
                                const sim::Matrix<double>& targets, std::size_t layer, std::uint32_t index,
                                double eps);

// The loss at parameters theta + eps * direction. Contract: direction has the net's parameter shapes
// (zeros_like), else std::invalid_argument.
double loss_along_direction(const DenseMlp& net, const sim::Matrix<double>& x,
                            const sim::Matrix<double>& targets, const Gradients& direction, double eps);

// Central differences of the three above: approximations of dL/dW(row, col), dL/db[index], and
// <dL/dtheta, direction>.
double weight_central_difference(const DenseMlp& net, const sim::Matrix<double>& x,
                                 const sim::Matrix<double>& targets, std::size_t layer, std::uint32_t row,
                                 std::uint32_t col, double h);
double bias_central_difference(const DenseMlp& net, const sim::Matrix<double>& x,
                               const sim::Matrix<double>& targets, std::size_t layer, std::uint32_t index,
                               double h);
double directional_central_difference(const DenseMlp& net, const sim::Matrix<double>& x,
                                      const sim::Matrix<double>& targets, const Gradients& direction,
                                      double h);

}  // namespace spatialsim::workloads::reference
