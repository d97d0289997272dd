#pragma once
// Builds a run through the real front end (the embedded default config plus command-line style
// overrides), so that fidelity tests exercise exactly what users run.
#include <cstring>
#include <string>
#include <vector>

#include "cli/command_line.h"
#include "workloads/reference/dense_mlp.h"
#include "workloads/run_setup.h"
#include "workloads/schedules/i_schedule.h"
#include "workloads/schedules/schedule_models.h"
#include "workloads/training_run.h"

namespace spatialsim::testing_support {

// `overrides` are "--section.key=value" strings; each key must exist in the default configuration.
inline sim::Config config_with(const std::vector<std::string>& overrides) {
  sim::Config config = cli::default_config();
  for (const std::string& o : overrides) {
    const auto eq = o.find('=');
    const std::string key = o.substr(2, eq - 2);
    if (o.rfind("--", 0) != 0 || eq == std::string::npos || !config.has(key))
      throw std::invalid_argument("test override " + o + " does not name a default key");
    config.set(key, o.substr(eq + 1), "test");
  }
  return config;
}

// Every registered schedule that runs on `kind`, in the registry's order: for the tests that cover every
// schedule, so that a schedule added later is covered without an edit to them.
inline std::vector<std::string> schedules_running_on(workloads::ModelKind kind) {
  std::vector<std::string> out;
  for (const auto& name : workloads::ScheduleRegistry::names())
    if (workloads::runs_on(name, kind)) out.push_back(name);
  return out;
}

inline workloads::RunResult run_with(const std::vector<std::string>& overrides, const std::string& schedule) {
  const sim::Config config = config_with(overrides);
  return workloads::run_schedule(workloads::setup_from_config(config), config, schedule);
}

inline workloads::reference::DenseMlp dense_net(const workloads::ModelSpec& model,
                                                const workloads::NetworkParameters& params) {
  workloads::reference::DenseMlp net;
  net.activation = model.activation;
  net.loss = model.loss;
  for (const auto& p : params) net.layers.push_back({p.weights, p.bias});
  return net;
}

// Bit-for-bit equality, so that NaN equals the same NaN and 0 differs from -0 (determinism checks).
template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

inline bool same_bits(const sim::Matrix<double>& a, const sim::Matrix<double>& b) {
  return a.rows() == b.rows() && a.cols() == b.cols() && same_bits(a.values(), b.values());
}

inline bool same_bits(const workloads::NetworkParameters& a, const workloads::NetworkParameters& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t l = 0; l < a.size(); ++l) {
    if (!same_bits(a[l].weights, b[l].weights) || !same_bits(a[l].bias, b[l].bias)) return false;
  }
  return true;
}

// max |a - b| / max |b| over all elements (the relative error MODEL.md section 8 asks for).
inline double relative_error(const sim::Matrix<double>& a, const sim::Matrix<double>& b) {
  double diff = 0;
  double scale = 0;
  for (std::size_t k = 0; k < a.size(); ++k) {
    diff = std::max(diff, std::abs(a.values()[k] - b.values()[k]));
    scale = std::max(scale, std::abs(b.values()[k]));
  }
  return scale == 0 ? diff : diff / scale;
}

}  // namespace spatialsim::testing_support
