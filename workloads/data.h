#pragma once
// Seeded synthetic data for a training step (MODEL.md section 5: inputs and targets enter from the
// grid edge). Two tasks:
//   teacher: regression onto a fixed random teacher MLP (d_0 -> teacher_width (tanh) -> d_L); with the
//            cross-entropy loss the targets are the softmax of the teacher's outputs (soft labels);
//   mixture: Gaussian-mixture classification: d_L classes with fixed random means in d_0 dimensions,
//            inputs = mean of the class + mixture_spread * N(0, 1), targets one-hot.
//
// Usage:
//   DataSpec d = data_from_config(config);
//   StepData s = make_step_data(d, model, seed, step, tokens);  // s.inputs: T x d_0, s.targets: T x d_L

#include <cstdint>

#include "sim/config.h"
#include "sim/matrix.h"
#include "workloads/model_spec.h"

namespace spatialsim::workloads {

enum class Task : std::uint8_t { teacher, mixture };

struct DataSpec {
  Task task = Task::teacher;
  std::uint32_t teacher_width = 32;
  double mixture_spread = 0.5;
};

struct StepData {
  sim::Matrix<double> inputs;   // T x d_0
  sim::Matrix<double> targets;  // T x d_L
};

DataSpec data_from_config(const sim::Config& config);
// Deterministic in (spec, model widths, seed, step, tokens). The task itself (teacher weights, class
// means) depends on the seed only, so every step samples the same task.
StepData make_step_data(const DataSpec& spec, const ModelSpec& model, std::uint64_t seed, std::uint64_t step,
                        std::uint32_t tokens);

}  // namespace spatialsim::workloads
