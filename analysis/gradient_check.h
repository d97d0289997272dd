#pragma once
// Checks a run's arithmetic against the dense reference (MODEL.md section 8): the gradient assembled from
// the tiles' slices after the first step, layer by layer, or, for a schedule that computes no gradient,
// the network's outputs. A reversible model (model.kind=reversible) is checked against its own dense
// reference (workloads/reference/dense_reversible.h), layer by layer (entry, F1, G1, ..., exit), and the
// check carries the run's reconstruction drift so that it is reported next to the errors.
//
// Usage:
//   GradientCheck c = check_against_reference(setup, result);
//   for (const LayerError& e : c.layers) ...;   c.passed(tolerance)

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "workloads/reference/dense_mlp.h"
#include "workloads/run_setup.h"
#include "workloads/schedules/i_schedule.h"
#include "workloads/training_run.h"

namespace spatialsim::analysis {

// Each error is NaN when either side holds a NaN, which fails any tolerance.
struct LayerError {
  std::string what;                  // "layer 3", "outputs", "d_k", or a reversible layer: "entry", "F2"
  double weight_error = 0;           // max |tiles - reference| / max |reference| over dW (or the values)
  std::optional<double> bias_error;  // the same over db; none for a row without a bias (or model.bias=false)
  bool gradient = true;              // false: a row of values, not of dW and db (outputs, d_k)
};

struct GradientCheck {
  std::string schedule;
  std::vector<LayerError> layers;
  std::optional<workloads::reversible::ReconstructionDrift> drift;  // reversible training runs only
  double worst() const;
  bool passed(double tolerance) const { return worst() <= tolerance; }
};

// The dense reference of an mlp run: its initial parameters, activation and loss. Contract: `result` ran in
// an arithmetic mode (fp32 or fp64); throws std::invalid_argument otherwise.
workloads::reference::DenseMlp dense_reference(const workloads::RunSetup& setup,
                                               const workloads::RunResult& result);

// Contract: `result` ran in an arithmetic mode (fp32 or fp64); throws std::invalid_argument otherwise.
GradientCheck check_against_reference(const workloads::RunSetup& setup, const workloads::RunResult& result);

// Forward-gradient schedules estimate the trunk's gradient, so what must be exact is each tangent's
// directional derivative: the tiles' d_k against the dense JVP along the regenerated v_k (row "d_k"), and,
// for split-fg, the head's gradient against backprop's (rows "layer S".."layer L-1").
GradientCheck check_forward_gradient(const workloads::RunSetup& setup, const workloads::RunResult& result,
                                     const workloads::ForwardGradientPlan& plan);

// The tolerance MODEL.md section 8 sets for exact schedules: 1e-12 in fp64; for fp32, 1e-4 (single
// precision carries about 7 digits, and a slice sums hundreds of products).
double default_tolerance(workloads::Arithmetic arithmetic);
// The same, per model: a reversible model's gradients pass through reconstructed inputs, so MODEL.md
// section 8 allows 1e-9 in fp64 (fp32: 1e-4 as for any model).
double default_tolerance(const workloads::RunSetup& setup);

}  // namespace spatialsim::analysis
