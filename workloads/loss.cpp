#include "workloads/loss.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "sim/enum_names.h"

namespace spatialsim::workloads {

namespace {

constexpr sim::EnumNames<Loss, 2> kLossNames{{{{Loss::mse, "mse"}, {Loss::cross_entropy, "cross-entropy"}}}};

void check_shapes(Loss loss, const sim::Matrix<double>& outputs, const sim::Matrix<double>& targets) {
  if (outputs.rows() != targets.rows() || outputs.cols() != targets.cols()) {
    throw std::invalid_argument("loss " + std::string(name(loss)) + ": outputs are " +
                                std::to_string(outputs.rows()) + "x" + std::to_string(outputs.cols()) +
                                " but targets are " + std::to_string(targets.rows()) + "x" +
                                std::to_string(targets.cols()));
  }
  if (outputs.rows() == 0 || outputs.cols() == 0) {
    throw std::invalid_argument("loss " + std::string(name(loss)) +
                                ": needs at least one token and one output");
  }
  if (loss != Loss::cross_entropy) return;
  // A target row that is not a distribution would make -sum t log p a different function from the one the
  // gradient below differentiates; refuse it rather than return a number nobody can check.
  constexpr double kSumTolerance = 1e-9;
  for (std::uint32_t t = 0; t < targets.rows(); ++t) {
    double sum = 0.0;
    for (std::uint32_t k = 0; k < targets.cols(); ++k) {
      if (targets(t, k) < 0.0) {
        throw std::invalid_argument("loss cross-entropy: target row " + std::to_string(t) +
                                    " has a negative entry");
      }
      sum += targets(t, k);
    }
    if (std::abs(sum - 1.0) > kSumTolerance) {
      throw std::invalid_argument("loss cross-entropy: target row " + std::to_string(t) + " sums to " +
                                  std::to_string(sum) + ", not 1");
    }
  }
}

// softmax of one row, stable: exp(y - max) / sum exp(y - max). Also returns log sum exp(y - max), which the
// loss needs to form log softmax without taking the log of a possibly underflowed probability.
double softmax_row(const double* y, std::uint32_t n, double* p) {
  const double m = *std::max_element(y, y + n);
  double sum = 0.0;
  for (std::uint32_t k = 0; k < n; ++k) {
    p[k] = std::exp(y[k] - m);
    sum += p[k];
  }
  for (std::uint32_t k = 0; k < n; ++k) p[k] /= sum;
  return std::log(sum);
}

}  // namespace

const std::vector<std::string>& loss_names() {
  static const std::vector<std::string> names = kLossNames.names();
  return names;
}

std::string_view description(Loss loss) {
  switch (loss) {
    case Loss::mse:
      return "1/2 sum_k (y_k - t_k)^2 per token, the mean over the step's tokens";
    case Loss::cross_entropy:
      return "-sum_k t_k log softmax(y)_k per token (one-hot or soft targets), the mean over the step's "
             "tokens";
  }
  throw std::logic_error("description: unhandled loss");
}

Loss parse_loss(std::string_view name) {
  return kLossNames.parse(name, "loss");
}

std::string_view name(Loss loss) {
  return kLossNames.name(loss);
}

double loss_value(Loss loss, const sim::Matrix<double>& outputs, const sim::Matrix<double>& targets) {
  check_shapes(loss, outputs, targets);
  const std::uint32_t tokens = outputs.rows();
  const std::uint32_t n = outputs.cols();
  double total = 0.0;
  std::vector<double> p(n);
  for (std::uint32_t t = 0; t < tokens; ++t) {
    const double* y = outputs.row(t);
    const double* target = targets.row(t);
    double per_token = 0.0;
    if (loss == Loss::mse) {
      per_token = add_mse(y, target, n, per_token);
    } else {
      // log softmax(y)_k = (y_k - max) - log sum exp(y - max).
      const double m = *std::max_element(y, y + n);
      const double log_sum = softmax_row(y, n, p.data());
      for (std::uint32_t k = 0; k < n; ++k) {
        if (target[k] != 0.0) per_token -= target[k] * ((y[k] - m) - log_sum);
      }
    }
    total += per_token;
  }
  return total / tokens;
}

sim::Matrix<double> loss_gradient(Loss loss, const sim::Matrix<double>& outputs,
                                  const sim::Matrix<double>& targets) {
  check_shapes(loss, outputs, targets);
  const std::uint32_t tokens = outputs.rows();
  const std::uint32_t n = outputs.cols();
  const double inv_tokens = 1.0 / tokens;
  sim::Matrix<double> grad(tokens, n);
  std::vector<double> p(n);
  for (std::uint32_t t = 0; t < tokens; ++t) {
    const double* y = outputs.row(t);
    const double* target = targets.row(t);
    double* g = grad.row(t);
    if (loss == Loss::mse) {
      mse_gradient(y, target, n, inv_tokens, g);
    } else {
      // d/dy_k [-sum_j t_j log p_j] = p_k * sum_j t_j - t_k; sum_j t_j = 1 by the contract, but keeping the
      // factor makes the gradient exactly that of the value above even for a row summing to 1 +- 1e-9.
      softmax_row(y, n, p.data());
      double target_sum = 0.0;
      for (std::uint32_t k = 0; k < n; ++k) target_sum += target[k];
      for (std::uint32_t k = 0; k < n; ++k) g[k] = (p[k] * target_sum - target[k]) * inv_tokens;
    }
  }
  return grad;
}

}  // namespace spatialsim::workloads
