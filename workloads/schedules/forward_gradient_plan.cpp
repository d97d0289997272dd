#include "workloads/schedules/forward_gradient_plan.h"

#include "sim/option_spec.h"
#include "workloads/tangent_generator.h"

namespace spatialsim::workloads {
namespace {

// Registered where it is read, for both forward-gradient schedules (fg.tangent and fg.tangents are the
// tangent generator's).
const sim::OptionRegistration options{
    {"fg.seed", "seed", "seed of the forward-gradient tangents; 0 = sim.seed (vary it to draw new tangents)",
     sim::OptionReach::values_only},
};

}  // namespace

ForwardGradientPlan forward_gradient_plan(const sim::Config& config) {
  ForwardGradientPlan plan;
  plan.tangents = parse_tangent_count(config);
  require_tangent_counts_fit(config, plan.tangents);
  plan.kind = parse_tangent_kind(config);
  plan.seed = config.get_uint("fg.seed");
  return plan;
}

}  // namespace spatialsim::workloads
