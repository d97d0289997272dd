#pragma once
// The options every forward-gradient schedule reads into its ForwardGradientPlan (docs/forward-gradients.md):
// K (fg.tangents), the tangents' kind (fg.tangent) and their seed (fg.seed). The plan's split and trunk
// rate stay at their defaults (the whole network is the trunk, at train.lr); split-fg sets its own.
//
// Usage (in a schedule's constructor):
//   m_plan = forward_gradient_plan(config);
//   m_plan.split = ...;   // split-fg only

#include "sim/config.h"
#include "workloads/schedules/i_schedule.h"

namespace spatialsim::workloads {

// Throws sim::ConfigError naming the key for a K outside 1..65536 or one whose K tangent streams could make
// a count of the configured run wrap, and for an unknown tangent kind.
ForwardGradientPlan forward_gradient_plan(const sim::Config& config);

}  // namespace spatialsim::workloads
