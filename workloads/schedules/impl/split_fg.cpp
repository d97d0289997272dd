// `split-fg` (seed 003): layers splitfg.split.. (the head) train by exact backprop, stashing their inputs;
// layers 0..split-1 (the trunk) carry K tangent streams as in `forward-gradient`. The tangents dh_k of the
// split activations wait on the split tiles (storage `tangent`) until the head's backward pass delivers
// u = dL/dh there; d_k = <u, dh_k> is reduced and broadcast to the trunk tiles only. The trunk's learning
// rate is splitfg.rho * train.lr (a step scale, not a gradient scale: Adam would undo the latter).
// docs/forward-gradients.md.

#include "sim/config.h"
#include "sim/option_spec.h"
#include "workloads/schedules/i_schedule.h"

namespace spatialsim::workloads {
namespace {

const sim::OptionRegistration options{
    {"splitfg.split", "layers",
     "S: layers 0..S-1 form the forward-gradient trunk, S..L-1 the backprop head (1..L-1)"},
    {"splitfg.rho", "ratio", "rho >= 0: the trunk's learning rate is rho * train.lr (0 freezes the trunk)"},
};

class SplitForwardGradient final : public Schedule {
 public:
  explicit SplitForwardGradient(const sim::Config& config) {
    m_plan.tangents = parse_tangent_count(config);
    m_plan.kind = parse_tangent_kind(config);
    m_plan.seed = config.get_uint("fg.seed");
    m_plan.split = static_cast<std::uint32_t>(config.get_positive("splitfg.split"));
    m_plan.trunk_lr_scale = config.get_nonnegative_double("splitfg.rho");
  }
  mappings::XStash forward_stash(std::uint32_t layer) const override {
    return layer < m_plan.split ? mappings::XStash::none : mappings::XStash::replicate;
  }
  bool runs_backward() const override { return true; }
  const ForwardGradientPlan* forward_gradient() const override { return &m_plan; }

 private:
  ForwardGradientPlan m_plan;
};

const ScheduleRegistry::Registration registration{
    "split-fg", "exact backprop in the head after splitfg.split; forward-gradient trunk with K tangents",
    [](const sim::Config& config) { return std::make_unique<SplitForwardGradient>(config); }};

}  // namespace
}  // namespace spatialsim::workloads
