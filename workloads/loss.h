#pragma once
// The loss at the end of the network: what it means, and the per-token arithmetic that computes it. The
// dense reference works on whole fp64 matrices (loss_value, loss_gradient); a loss tile (LossStage) holds
// its columns of each token's outputs in the run's precision and uses the row functions below.
//   - mse: both sides call add_mse and mse_gradient on their rows (a tile's row: its columns of a token).
//   - cross-entropy needs the log-sum-exp of all of a token's outputs, which the tiles reduce from each
//     tile's log_sum_exp with log_add_exp; from it they take log p_k = y_k - lse and dL/dy_k = p_k - t_k
//     (add_cross_entropy, cross_entropy_gradient). The dense form subtracts the row maximum and the log-sum
//     separately and scales p_k by sum_k t_k (1 within 1e-9), so that its gradient is exactly that of its
//     value. The two agree to rounding (tests/workloads/test_loss_rows.cpp, and the runs' losses against
//     the dense reference's in test_backprop and test_reversible).
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
//   // one token's row on a tile: sum = add_mse(y, t, n, sum);  mse_gradient(y, t, n, 1.0 / T, g);

#include <algorithm>
#include <cmath>
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
// What `loss` computes, one line for --list.
std::string_view description(Loss loss);

// Contract: outputs and targets have the same shape with at least one row; for cross-entropy every target
// row is non-negative and sums to 1 (within 1e-9 per row). Violations throw std::invalid_argument.
// The softmax subtracts the row maximum, so large logits neither overflow nor lose the answer.
double loss_value(Loss loss, const sim::Matrix<double>& outputs, const sim::Matrix<double>& targets);

// Contract: as loss_value; the result has the outputs' shape and is d loss_value / d outputs.
sim::Matrix<double> loss_gradient(Loss loss, const sim::Matrix<double>& outputs,
                                  const sim::Matrix<double>& targets);

// ---- one token: n outputs y and targets t, held in precision Y ----
// Sums are fp64 and add one term at a time, k = 0..n-1 (callers carry `sum` across rows, in order);
// gradients are formed in fp64 and stored as G. `scale` is 1/T, the mean over the step's tokens.

// mse: returns sum + 1/2 sum_k (y_k - t_k)^2.
template <typename Y>
double add_mse(const Y* y, const Y* t, std::uint32_t n, double sum) {
  for (std::uint32_t k = 0; k < n; ++k) {
    const double diff = static_cast<double>(y[k]) - static_cast<double>(t[k]);
    sum += 0.5 * diff * diff;
  }
  return sum;
}

// mse: g_k = (y_k - t_k) * scale.
template <typename Y, typename G>
void mse_gradient(const Y* y, const Y* t, std::uint32_t n, double scale, G* g) {
  for (std::uint32_t k = 0; k < n; ++k)
    g[k] = static_cast<G>((static_cast<double>(y[k]) - static_cast<double>(t[k])) * scale);
}

// log sum_k exp(y_k) in Y, stable (the maximum subtracted): one tile's part of a token's log-sum-exp.
template <typename Y>
Y log_sum_exp(const Y* y, std::uint32_t n) {
  const Y top = *std::max_element(y, y + n);
  Y sum = 0;
  for (std::uint32_t k = 0; k < n; ++k) sum += std::exp(y[k] - top);
  return top + std::log(sum);
}

// log(exp a + exp b) in Y, stable: merges two tiles' log-sum-exps of one token.
template <typename Y>
Y log_add_exp(Y a, Y b) {
  const Y top = std::max(a, b);
  return top + std::log(std::exp(a - top) + std::exp(b - top));
}

// cross-entropy given the token's whole log-sum-exp `lse`: returns sum - sum_k t_k log p_k, with
// log p_k = y_k - lse taken in Y.
template <typename Y>
double add_cross_entropy(const Y* y, const Y* t, std::uint32_t n, Y lse, double sum) {
  for (std::uint32_t k = 0; k < n; ++k) {
    const Y log_p = y[k] - lse;
    sum -= static_cast<double>(t[k]) * static_cast<double>(log_p);
  }
  return sum;
}

// cross-entropy given `lse`: g_k = (p_k - t_k) * scale, p_k = exp(y_k - lse) taken in Y. Assumes the
// target row sums to 1 (loss_value's contract).
template <typename Y, typename G>
void cross_entropy_gradient(const Y* y, const Y* t, std::uint32_t n, Y lse, double scale, G* g) {
  for (std::uint32_t k = 0; k < n; ++k) {
    const Y log_p = y[k] - lse;
    g[k] = static_cast<G>((static_cast<double>(std::exp(log_p)) - static_cast<double>(t[k])) * scale);
  }
}

}  // namespace spatialsim::workloads
