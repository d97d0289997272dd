// `sgd`: w -= lr * g. No state.

#include "workloads/optimizers/i_optimizer.h"

namespace spatialsim::workloads {
namespace {

class Sgd final : public Optimizer {
 public:
  std::uint32_t state_per_parameter() const override { return 0; }
  std::uint32_t multiply_adds_per_parameter() const override { return 1; }
  void update(float* p, const float* g, float*, std::size_t n, double lr, std::uint64_t) const override {
    apply(p, g, n, lr);
  }
  void update(double* p, const double* g, double*, std::size_t n, double lr, std::uint64_t) const override {
    apply(p, g, n, lr);
  }

 private:
  template <typename T>
  static void apply(T* p, const T* g, std::size_t n, double lr) {
    const T rate = static_cast<T>(lr);
    for (std::size_t k = 0; k < n; ++k) p[k] -= rate * g[k];
  }
};

const OptimizerRegistry::Registration registration{"sgd", "plain gradient descent: w -= lr g; no state",
                                                   [](const sim::Config&) { return std::make_unique<Sgd>(); }};

}  // namespace
}  // namespace spatialsim::workloads
