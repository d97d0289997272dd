// `adam` (Kingma and Ba): first and second moments kept per parameter on the tile, with bias correction.
// beta1 = 0.9, beta2 = 0.999, eps = 1e-8 (the paper's defaults).

#include <cmath>
#include <stdexcept>

#include "workloads/optimizers/i_optimizer.h"

namespace spatialsim::workloads {
namespace {

class Adam final : public Optimizer {
 public:
  std::uint32_t state_per_parameter() const override { return 2; }
  // m = b1 m + (1 - b1) g, v = b2 v + (1 - b2) g g, w -= lr m_hat / (sqrt(v_hat) + eps): five
  // multiply-adds counted; the square root and the division are not multiply-adds.
  std::uint32_t multiply_adds_per_parameter() const override { return 5; }
  void update(float* p, const float* g, float* s, std::size_t n, double lr,
              std::uint64_t step) const override {
    apply(p, g, s, n, lr, step);
  }
  void update(double* p, const double* g, double* s, std::size_t n, double lr,
              std::uint64_t step) const override {
    apply(p, g, s, n, lr, step);
  }

 private:
  template <typename T>
  static void apply(T* p, const T* g, T* state, std::size_t n, double lr, std::uint64_t step) {
    constexpr double kBeta1 = 0.9, kBeta2 = 0.999, kEps = 1e-8;
    // Step 0 would divide by 1 - beta^0 = 0: m_hat and v_hat infinite, and every weight NaN.
    if (step == 0) throw std::logic_error("adam: steps count from 1 (the bias correction is 0 at step 0)");
    const double correction1 = 1.0 - std::pow(kBeta1, static_cast<double>(step));
    const double correction2 = 1.0 - std::pow(kBeta2, static_cast<double>(step));
    T* m = state;
    T* v = state + n;
    for (std::size_t k = 0; k < n; ++k) {
      m[k] = static_cast<T>(kBeta1 * m[k] + (1 - kBeta1) * g[k]);
      v[k] = static_cast<T>(kBeta2 * v[k] + (1 - kBeta2) * g[k] * g[k]);
      const double m_hat = m[k] / correction1;
      const double v_hat = v[k] / correction2;
      p[k] = static_cast<T>(p[k] - lr * m_hat / (std::sqrt(v_hat) + kEps));
    }
  }
};

const OptimizerRegistry::Registration registration{
    "adam", "Adam (beta1 0.9, beta2 0.999, eps 1e-8); moments stored on each tile (category optimizer)",
    [](const sim::Config&) { return std::make_unique<Adam>(); }};

}  // namespace
}  // namespace spatialsim::workloads
