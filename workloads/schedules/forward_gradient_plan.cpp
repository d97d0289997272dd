#include "workloads/schedules/forward_gradient_plan.h"

#include "sim/option_spec.h"
#include "workloads/arithmetic.h"
#include "workloads/model_spec.h"
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
  // The tangents' counter layout numbers at most kMaxLayers layers (docs/tangents.md); a deeper model
  // failed mid-run with the generator's own words. Counting mode draws no tangent.
  const std::uint32_t layers = layers_from_config(config);
  if (layers > TangentGenerator::kMaxLayers && arithmetic_from_config(config) != Arithmetic::none)
    config.fail(layers_option(config),
                "gives " + std::to_string(layers) + " layers, and the forward-gradient schedules' tangents " +
                    "number at most " + std::to_string(TangentGenerator::kMaxLayers) +
                    " (docs/tangents.md); give at most that many layers, or sim.arith=none to count only");
  return plan;
}

}  // namespace spatialsim::workloads
