#pragma once
// Checks a run's arithmetic against the dense reference (MODEL.md section 8): the gradient assembled from
// the tiles' slices after the first step, layer by layer, or, for a schedule that computes no gradient,
// the network's outputs.
//
// Usage:
//   GradientCheck c = check_against_reference(setup, result);
//   for (const LayerError& e : c.layers) ...;   c.passed(tolerance)

#include <cstdint>
#include <string>
#include <vector>

#include "workloads/run_setup.h"
#include "workloads/training_run.h"

namespace spatialsim::analysis {

struct LayerError {
  std::string what;           // "layer 3" or "outputs"
  double weight_error = 0;    // max |tiles - reference| / max |reference| over dW (or the outputs)
  double bias_error = 0;      // the same over db (0 without bias)
};

struct GradientCheck {
  std::string schedule;
  std::vector<LayerError> layers;
  double worst() const;
  bool passed(double tolerance) const { return worst() <= tolerance; }
};

// Contract: `result` ran in an arithmetic mode (fp32 or fp64); throws std::invalid_argument otherwise.
GradientCheck check_against_reference(const workloads::RunSetup& setup, const workloads::RunResult& result);

// The tolerance MODEL.md section 8 sets for exact schedules: 1e-12 in fp64; for fp32, 1e-4 (single
// precision carries about 7 digits, and a slice sums hundreds of products).
double default_tolerance(workloads::Arithmetic arithmetic);

}  // namespace spatialsim::analysis
