#pragma once
// The loss at the end of the network, on whole matrices in fp64. Both the dense reference and the tiles'
// loss tile use these definitions, so there is exactly one statement of what "the loss" means.
//
// Conventions (also in docs/conventions-math.md):
//   - outputs Y and targets Tg are T x d (one row per token, T = the step's tokens).
//   - The loss of a step is the MEAN over its T tokens of a per-token loss.
//   - mse, per token:           1/2 * sum_k (y_k - t_k)^2.
//   - cross-entropy, per token: -sum_k t_k log softmax(y)_k, i.e. -log softmax(y)_c for a one-hot target of
//     class c. Soft labels are accepted; each target row must be non-negative and sum to 1.
//   - loss_gradient returns dL/dY including the 1/T of the mean.
//
// Usage:
//   auto loss = workloads::parse_loss("cross-entropy");   // throws std::invalid_argument on an unknown name
//   double l = workloads::loss_value(loss, y, targets);
//   sim::Matrix<double> dy = workloads::loss_gradient(loss, y, targets);

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sim/matrix.h"

namespace spatialsim::workloads {

enum class Loss : std::uint8_t { mse, cross_entropy };

Loss parse_loss(std::string_view name);
std::string_view name(Loss loss);
const std::vector<std::string>& loss_names();

// Contract: outputs and targets have the same shape with at least one row; for cross-entropy every target
// row is non-negative and sums to 1 (within 1e-9 per row). Violations throw std::invalid_argument.
// The softmax subtracts the row maximum, so large logits neither overflow nor lose the answer.
double loss_value(Loss loss, const sim::Matrix<double>& outputs, const sim::Matrix<double>& targets);

// Contract: as loss_value; the result has the outputs' shape and is d loss_value / d outputs.
sim::Matrix<double> loss_gradient(Loss loss, const sim::Matrix<double>& outputs,
                                  const sim::Matrix<double>& targets);

}  // namespace spatialsim::workloads
