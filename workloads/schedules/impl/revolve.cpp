// `revolve`: binomial checkpointing with m slots (workloads/schedules/revolve_plan.h): the fewest layer
// recomputations that ever hold at most m checkpoints per wavefront.

#include "sim/config.h"
#include "sim/option_spec.h"
#include "workloads/model_spec.h"
#include "workloads/schedules/revolve_plan.h"

namespace spatialsim::workloads {
namespace {

const sim::OptionRegistration options{
    {"revolve.slots", "checkpoints",
     "m in 1..L: checkpoints a wavefront may hold at once, the network input included"},
};

class Revolve final : public Schedule {
 public:
  explicit Revolve(const sim::Config& config) {
    const std::uint64_t layers = layers_from_config(config);
    const std::uint64_t slots = config.get_whole_in("revolve.slots", 1, layers, "the network's layers");
    m_plan = plan_revolve(static_cast<std::uint32_t>(layers), static_cast<std::uint32_t>(slots));
  }

  mappings::XStash forward_stash(std::uint32_t layer) const override { return m_plan.first_pass[layer]; }
  bool trains() const override { return true; }
  const RecomputeEpisode* recompute_before_backward(std::uint32_t layer) const override {
    return m_plan.episodes[layer] ? &*m_plan.episodes[layer] : nullptr;
  }

 private:
  RevolvePlan m_plan;
};

const ScheduleRegistry::Registration registration{
    "revolve", "binomial checkpointing (Griewank-Walther) with revolve.slots checkpoints per wavefront",
    [](const sim::Config& config) { return std::make_unique<Revolve>(config); }};

}  // namespace
}  // namespace spatialsim::workloads
