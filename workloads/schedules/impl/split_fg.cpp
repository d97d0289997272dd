// `split-fg` (seed 003): layers splitfg.split.. (the head) train by exact backprop, stashing their inputs;
// layers 0..split-1 (the trunk) carry K tangent streams as in `forward-gradient`. The tangents dh_k of the
// split activations wait on the split tiles (as `stash` storage) until the head's backward pass delivers
// u = dL/dh there; d_k = <u, dh_k> is reduced and broadcast to the trunk tiles only. The trunk's learning
// rate is splitfg.rho * train.lr (a step scale, not a gradient scale: Adam would undo the latter).
// docs/forward-gradients.md.

#include "sim/config.h"
#include "sim/option_spec.h"
#include "workloads/arithmetic.h"
#include "workloads/model_spec.h"
#include "workloads/schedules/forward_gradient_plan.h"
#include "workloads/schedules/i_schedule.h"
#include "workloads/schedules/schedule_options.h"

namespace spatialsim::workloads {
namespace {

const sim::OptionRegistration options{
    {"splitfg.split", "layers",
     "S: layers 0..S-1 form the forward-gradient trunk, S..L-1 the backprop head (1..L-1; 0 = L / 2)"},
    {"splitfg.rho", "ratio", "rho >= 0: the trunk's learning rate is rho * train.lr (0 freezes the trunk)",
     sim::OptionReach::values_only},
};

class SplitForwardGradient final : public Schedule {
 public:
  explicit SplitForwardGradient(const sim::Config& config) : m_plan(forward_gradient_plan(config)) {
    // Checked here, with the other options, before anything runs: the head and the trunk each need a layer.
    const std::uint32_t layers = layers_from_config(config);
    if (layers < 2)
      config.fail(layers_option(config), "split-fg needs at least 2 layers (a trunk and a head)");
    // One message for every value it refuses, -1 and x too: the range depends on the model.
    std::uint64_t split = layers;
    try {
      split = config.get_uint("splitfg.split");
    } catch (const sim::ConfigError&) {
    }
    if (split >= layers)
      config.fail("splitfg.split", "must be in 1.." + std::to_string(layers - 1) + " for a " +
                                       std::to_string(layers) +
                                       "-layer model (the head needs a layer), or 0 for L / 2");
    m_plan.split = split == 0 ? layers / 2 : static_cast<std::uint32_t>(split);
    m_plan.trunk_lr_scale = config.get_nonnegative_double("splitfg.rho");
    // The trunk's rate, like train.lr itself (setup_from_config), must be a number the tiles hold.
    const Arithmetic arithmetic = arithmetic_from_config(config);
    if (arithmetic != Arithmetic::none &&
        !(m_plan.trunk_lr_scale * config.get_nonnegative_double("train.lr") <=
          largest_learning_rate(arithmetic)))
      config.fail("splitfg.rho", "times train.lr = " + config.raw("train.lr") + " is beyond the largest " +
                                     std::string(name(arithmetic)) +
                                     " number, which the trunk's tiles update their weights in; give a "
                                     "smaller rho or train.lr");
  }
  mappings::XStash forward_stash(std::uint32_t layer) const override {
    return layer < m_plan.split ? mappings::XStash::none : mappings::XStash::replicate;
  }
  bool trains() const override { return true; }
  const ForwardGradientPlan* forward_gradient() const override { return &m_plan; }

 private:
  ForwardGradientPlan m_plan;
};

const ScheduleOptionSections option_sections{"split-fg", {"fg", "splitfg"}};

const ScheduleRegistry::Registration registration{
    "split-fg", "exact backprop in the head after splitfg.split; forward-gradient trunk with K tangents",
    [](const sim::Config& config) { return std::make_unique<SplitForwardGradient>(config); }};

}  // namespace
}  // namespace spatialsim::workloads
