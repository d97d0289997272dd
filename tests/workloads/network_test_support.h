#pragma once
// Builds a run through the real front end (the embedded default config plus command-line style
// overrides), so that fidelity tests exercise exactly what users run.
#include <string>
#include <vector>

#include "cli/command_line.h"
#include "workloads/reference/dense_mlp.h"
#include "workloads/run_setup.h"
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
