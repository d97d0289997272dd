#include "workloads/reference/finite_difference.h"

#include <stdexcept>
#include <string>

namespace spatialsim::workloads::reference {

namespace {

const DenseLayer& layer_at(const DenseMlp& net, std::size_t layer) {
  if (layer >= net.layers.size()) {
    throw std::out_of_range("finite difference: layer " + std::to_string(layer) + " of " +
                            std::to_string(net.layers.size()));
  }
  return net.layers[layer];
}

}  // namespace

double central_difference(const std::function<double(double)>& f_of_eps, double h) {
  if (!(h > 0.0)) throw std::invalid_argument("central_difference: step h must be positive");
  return (f_of_eps(h) - f_of_eps(-h)) / (2.0 * h);
}

double loss_with_weight_perturbed(const DenseMlp& net, const sim::Matrix<double>& x,
                                  const sim::Matrix<double>& targets, std::size_t layer, std::uint32_t row,
                                  std::uint32_t col, double eps) {
  const auto& w = layer_at(net, layer).weights;
  if (row >= w.rows() || col >= w.cols()) {
    throw std::out_of_range("finite difference: weight (" + std::to_string(row) + ", " + std::to_string(col) +
                            ") outside layer " + std::to_string(layer) + "'s " + std::to_string(w.rows()) +
                            "x" + std::to_string(w.cols()));
  }
  DenseMlp perturbed = net;
  perturbed.layers[layer].weights(row, col) += eps;
  return loss(perturbed, x, targets);
}

double loss_with_bias_perturbed(const DenseMlp& net, const sim::Matrix<double>& x,
                                const sim::Matrix<double>& targets, std::size_t layer, std::uint32_t index,
                                double eps) {
  const auto& b = layer_at(net, layer).bias;
  if (index >= b.size()) {
    throw std::out_of_range("finite difference: bias " + std::to_string(index) + " outside layer " +
                            std::to_string(layer) + "'s " + std::to_string(b.size()));
  }
  DenseMlp perturbed = net;
  perturbed.layers[layer].bias[index] += eps;
  return loss(perturbed, x, targets);
}

double loss_along_direction(const DenseMlp& net, const sim::Matrix<double>& x,
                            const sim::Matrix<double>& targets, const Gradients& direction, double eps) {
  // dot() validates the shapes (and its value is not needed).
  static_cast<void>(dot(zeros_like(net), direction));
  DenseMlp moved = net;
  for (std::size_t l = 0; l < moved.layers.size(); ++l) {
    auto& layer = moved.layers[l];
    for (std::size_t i = 0; i < layer.weights.size(); ++i) {
      layer.weights.data()[i] += eps * direction.weights[l].data()[i];
    }
    for (std::size_t j = 0; j < layer.bias.size(); ++j) layer.bias[j] += eps * direction.bias[l][j];
  }
  return loss(moved, x, targets);
}

double weight_central_difference(const DenseMlp& net, const sim::Matrix<double>& x,
                                 const sim::Matrix<double>& targets, std::size_t layer, std::uint32_t row,
                                 std::uint32_t col, double h) {
  return central_difference(
      [&](double eps) { return loss_with_weight_perturbed(net, x, targets, layer, row, col, eps); }, h);
}

double bias_central_difference(const DenseMlp& net, const sim::Matrix<double>& x,
                               const sim::Matrix<double>& targets, std::size_t layer, std::uint32_t index,
                               double h) {
  return central_difference(
      [&](double eps) { return loss_with_bias_perturbed(net, x, targets, layer, index, eps); }, h);
}

double directional_central_difference(const DenseMlp& net, const sim::Matrix<double>& x,
                                      const sim::Matrix<double>& targets, const Gradients& direction,
                                      double h) {
  return central_difference([&](double eps) { return loss_along_direction(net, x, targets, direction, eps); },
                            h);
}

}  // namespace spatialsim::workloads::reference
