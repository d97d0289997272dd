#include "analysis/check_export.h"

#include <stdexcept>
#include <string>

#include "analysis/gradient_check.h"
#include "analysis/results_writer.h"
#include "workloads/reference/tangent_direction.h"
#include "workloads/reversible/reversible_model.h"

namespace spatialsim::analysis {
namespace {

void write_matrix(Hdf5File& file, const std::string& path, const sim::Matrix<double>& m,
                  std::string_view unit) {
  file.write_array(path, std::span<const double>(m.data(), m.size()), {m.rows(), m.cols()}, unit);
}

}  // namespace

void write_check_export(Hdf5File& file, const workloads::RunSetup& setup,
                        const workloads::RunResult& result) {
  if (result.initial_parameters.empty())
    throw std::invalid_argument("export_check: needs real arithmetic; set sim.arith=fp32 or fp64");
  const std::string group = run_group(result.schedule) + "/check";
  const auto& data = result.first_step_data;
  write_matrix(file, group + "/inputs", data.inputs, "1");
  write_matrix(file, group + "/targets", data.targets, "1");
  write_matrix(file, group + "/outputs", result.first_step_outputs, "1");
  file.write_scalar(group + "/loss", result.loss_per_step.front(), "1");
  file.set_attribute(group, "layers", static_cast<std::uint64_t>(result.initial_parameters.size()));
  file.set_attribute(group, "has_gradients", !result.first_step_gradients.empty());
  if (setup.model.kind == workloads::ModelKind::reversible) {
    const workloads::reversible::CouplingLayers ids{setup.model.coupling_blocks()};
    std::vector<std::string> names;
    for (std::uint32_t l = 0; l < ids.count(); ++l) names.push_back(ids.name(l));
    file.set_attribute(group, "model_kind", "reversible");
    file.set_attribute(group, "layer_names", names);
    if (result.reconstruction_drift) {
      file.write_scalar(group + "/reconstruction_drift", result.reconstruction_drift->max_abs_error, "1");
      file.write_scalar(group + "/reconstruction_scale", result.reconstruction_drift->max_abs_value, "1");
    }
  }
  for (std::size_t l = 0; l < result.initial_parameters.size(); ++l) {
    const std::string layer = group + "/layers/" + std::to_string(l);
    const auto& p = result.initial_parameters[l];
    write_matrix(file, layer + "/weights", p.weights, "1");
    if (!p.bias.empty()) file.write_array(layer + "/bias", std::span<const double>(p.bias), {}, "1");
    if (result.first_step_gradients.empty()) continue;
    const auto& g = result.first_step_gradients[l];
    write_matrix(file, layer + "/grad_weights", g.weights, "1");
    if (!g.bias.empty()) file.write_array(layer + "/grad_bias", std::span<const double>(g.bias), {}, "1");
    const auto& u = result.first_step_updated_parameters[l];
    write_matrix(file, layer + "/updated_weights", u.weights, "1");
    if (!u.bias.empty()) file.write_array(layer + "/updated_bias", std::span<const double>(u.bias), {}, "1");
    const auto& f = result.final_parameters[l];
    write_matrix(file, layer + "/final_weights", f.weights, "1");
    if (!f.bias.empty()) file.write_array(layer + "/final_bias", std::span<const double>(f.bias), {}, "1");
  }
}

void write_tangent_export(Hdf5File& file, const workloads::RunSetup& setup,
                          const workloads::RunResult& result, const workloads::ForwardGradientPlan& plan) {
  const std::string group = run_group(result.schedule) + "/check";
  const std::vector<double>& d = result.first_step_tangent_scalars;
  file.write_array(group + "/tangent_scalars", std::span<const double>(d), {}, "1");
  const std::uint32_t trunk = plan.trunk_layers(setup.model.layers());
  file.set_attribute(group, "tangent_kind", std::string(workloads::name(plan.kind)));
  file.set_attribute(group, "tangent_seed", plan.seed_in(setup.seed));
  file.set_attribute(group, "trunk_layers", static_cast<std::uint64_t>(trunk));
  const workloads::TangentGenerator gen(plan.kind, plan.seed_in(setup.seed), /*step=*/0);
  const workloads::reference::DenseMlp net = dense_reference(setup, result);
  for (std::uint32_t k = 0; k < plan.tangents; ++k) {
    const auto v = workloads::reference::tangent_direction(net, gen, k, trunk);
    for (std::uint32_t l = 0; l < trunk; ++l) {
      const std::string layer = group + "/tangents/" + std::to_string(k) + "/layers/" + std::to_string(l);
      write_matrix(file, layer + "/weights", v.weights[l], "1");
      if (!v.bias[l].empty()) file.write_array(layer + "/bias", std::span<const double>(v.bias[l]), {}, "1");
    }
  }
}

}  // namespace spatialsim::analysis
