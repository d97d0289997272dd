// `forward-gradient`: every layer's forward pass carries the primal and K tangent streams
// dx_{l+1} = act'(z_l) * (dx_l W_l + x_l V_{l,k} + dB_{l,k}), with V regenerated on each tile; at the loss
// d_k = <dL/dY, dY_k> is reduced to one tile and broadcast back as K scalars, and every tile forms
// (1/K) sum_k d_k v_k on its own slice. Nothing is stashed across layers; no backward pass runs.
// docs/forward-gradients.md.

#include "sim/config.h"
#include "workloads/schedules/forward_gradient_plan.h"
#include "workloads/schedules/i_schedule.h"
#include "workloads/schedules/schedule_options.h"

namespace spatialsim::workloads {
namespace {

class ForwardGradient final : public Schedule {
 public:
  explicit ForwardGradient(const sim::Config& config) : m_plan(forward_gradient_plan(config)) {}
  mappings::XStash forward_stash(std::uint32_t) const override { return mappings::XStash::none; }
  bool trains() const override { return true; }
  const ForwardGradientPlan* forward_gradient() const override { return &m_plan; }

 private:
  ForwardGradientPlan m_plan;
};

const ScheduleOptionSections option_sections{"forward-gradient", {"fg"}};

const ScheduleRegistry::Registration registration{
    "forward-gradient",
    "K tangent streams ride with the forward pass; d_k reduced and broadcast as scalars; nothing stashed",
    [](const sim::Config& config) { return std::make_unique<ForwardGradient>(config); }};

}  // namespace
}  // namespace spatialsim::workloads
