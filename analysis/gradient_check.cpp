#include "analysis/gradient_check.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "workloads/reference/dense_mlp.h"
#include "workloads/reference/dense_reversible.h"
#include "workloads/reference/tangent_direction.h"
#include "workloads/reversible/reversible_model.h"

namespace spatialsim::analysis {
namespace {

// NaN when either side holds a NaN: std::max drops a NaN, so a layer of NaN gradients measured 0 and
// passed.
double relative_error(const double* a, const double* b, std::size_t n) {
  double diff = 0;
  double scale = 0;
  for (std::size_t k = 0; k < n; ++k) {
    const double d = std::abs(a[k] - b[k]);
    if (std::isnan(d)) return std::numeric_limits<double>::quiet_NaN();
    diff = std::max(diff, d);
    scale = std::max(scale, std::abs(b[k]));
  }
  return scale == 0 ? diff : diff / scale;
}

// One layer's row of the check: the tiles' dW and db against the reference's.
LayerError layer_error(std::string what, const workloads::LayerParameters& got,
                       const sim::Matrix<double>& weights, const std::vector<double>& bias) {
  LayerError e{std::move(what), relative_error(got.weights.data(), weights.data(), weights.size()), {}};
  if (!bias.empty()) e.bias_error = relative_error(got.bias.data(), bias.data(), bias.size());
  return e;
}

// A schedule that trains nothing leaves no gradients: its first step's outputs are checked instead.
// Returns whether that was the case.
template <typename Net>
bool checked_outputs_only(const Net& net, const workloads::RunResult& result, GradientCheck& check) {
  if (!result.first_step_gradients.empty()) return false;
  const auto trace = workloads::reference::forward(net, result.first_step_data.inputs);
  check.layers.push_back(
      {"outputs",
       relative_error(result.first_step_outputs.data(), trace.outputs.data(), trace.outputs.size()),
       {},
       false});
  return true;
}

// A reversible run against workloads/reference/dense_reversible.h.
GradientCheck check_reversible(const workloads::RunSetup& setup, const workloads::RunResult& result) {
  std::vector<workloads::reference::DenseLayer> layers;
  for (const auto& p : result.initial_parameters) layers.push_back({p.weights, p.bias});
  workloads::reference::DenseReversible net;
  net.activation = setup.model.activation;
  net.loss = setup.model.loss;
  net = workloads::reference::with_layers(net, std::move(layers));
  const auto& data = result.first_step_data;
  GradientCheck check;
  check.schedule = result.schedule;
  check.drift = result.reconstruction_drift;
  if (checked_outputs_only(net, result, check)) return check;
  const auto expected = workloads::reference::gradients(net, data.inputs, data.targets);
  const workloads::reversible::CouplingLayers ids{setup.model.coupling_blocks()};
  for (std::uint32_t l = 0; l < expected.weights.size(); ++l) {
    check.layers.push_back(
        layer_error(ids.name(l), result.first_step_gradients[l], expected.weights[l], expected.bias[l]));
  }
  return check;
}

}  // namespace

double GradientCheck::worst() const {
  double w = 0;
  for (const auto& l : layers)
    for (const double e : {l.weight_error, l.bias_error.value_or(0.0)}) {
      if (std::isnan(e)) return e;  // a NaN fails the check; std::max would keep the other value
      w = std::max(w, e);
    }
  return w;
}

double default_tolerance(workloads::Arithmetic arithmetic) {
  return arithmetic == workloads::Arithmetic::fp64 ? 1e-12 : 1e-4;
}

double default_tolerance(const workloads::RunSetup& setup) {
  if (setup.model.kind == workloads::ModelKind::reversible && setup.arithmetic == workloads::Arithmetic::fp64)
    return 1e-9;
  return default_tolerance(setup.arithmetic);
}

workloads::reference::DenseMlp dense_reference(const workloads::RunSetup& setup,
                                               const workloads::RunResult& result) {
  if (result.initial_parameters.empty())
    throw std::invalid_argument("check: needs real arithmetic; set sim.arith=fp32 or fp64");
  workloads::reference::DenseMlp net;
  net.activation = setup.model.activation;
  net.loss = setup.model.loss;
  for (const auto& p : result.initial_parameters) net.layers.push_back({p.weights, p.bias});
  return net;
}

GradientCheck check_against_reference(const workloads::RunSetup& setup, const workloads::RunResult& result) {
  if (result.initial_parameters.empty())
    throw std::invalid_argument("check: needs real arithmetic; set sim.arith=fp32 or fp64");
  if (setup.model.kind == workloads::ModelKind::reversible) return check_reversible(setup, result);
  const workloads::reference::DenseMlp net = dense_reference(setup, result);
  const auto& data = result.first_step_data;

  GradientCheck check;
  check.schedule = result.schedule;
  if (checked_outputs_only(net, result, check)) return check;
  const auto expected = workloads::reference::gradients(net, data.inputs, data.targets);
  for (std::size_t l = 0; l < expected.weights.size(); ++l) {
    check.layers.push_back(layer_error("layer " + std::to_string(l), result.first_step_gradients[l],
                                       expected.weights[l], expected.bias[l]));
  }
  return check;
}

GradientCheck check_forward_gradient(const workloads::RunSetup& setup, const workloads::RunResult& result,
                                     const workloads::ForwardGradientPlan& plan) {
  const workloads::reference::DenseMlp net = dense_reference(setup, result);
  const auto& data = result.first_step_data;
  const std::uint32_t layers = setup.model.layers();
  const std::uint32_t trunk = plan.trunk_layers(layers);

  GradientCheck check;
  check.schedule = result.schedule;
  const workloads::TangentGenerator gen(plan.kind, plan.seed_in(setup.seed), /*step=*/0);
  std::vector<double> expected(plan.tangents);
  for (std::uint32_t k = 0; k < plan.tangents; ++k) {
    const auto v = workloads::reference::tangent_direction(net, gen, k, trunk);
    expected[k] = workloads::reference::directional_derivative(net, data.inputs, data.targets, v);
  }
  if (result.first_step_tangent_scalars.size() != expected.size())
    throw std::logic_error("check: the run recorded no tangent scalars");
  check.layers.push_back(
      {"d_k",
       relative_error(result.first_step_tangent_scalars.data(), expected.data(), expected.size()),
       {},
       false});
  if (trunk < layers) {
    const auto exact = workloads::reference::gradients(net, data.inputs, data.targets);
    for (std::uint32_t l = trunk; l < layers; ++l) {
      check.layers.push_back(layer_error("layer " + std::to_string(l), result.first_step_gradients[l],
                                         exact.weights[l], exact.bias[l]));
    }
  }
  return check;
}

}  // namespace spatialsim::analysis
