#include "workloads/schedules/forward_gradient_plan.h"

#include "workloads/tangent_generator.h"

namespace spatialsim::workloads {

ForwardGradientPlan forward_gradient_plan(const sim::Config& config) {
  ForwardGradientPlan plan;
  plan.tangents = parse_tangent_count(config);
  require_tangent_counts_fit(config, plan.tangents);
  plan.kind = parse_tangent_kind(config);
  plan.seed = config.get_uint("fg.seed");
  return plan;
}

}  // namespace spatialsim::workloads
