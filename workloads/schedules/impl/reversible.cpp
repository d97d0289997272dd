// `reversible`: exact gradients of a reversible additive-coupling model (model.kind=reversible,
// docs/reversible.md) without stashing the trunk: the backward pass reconstructs each coupling block's
// inputs from its outputs (x2 = y2 - G(y1), x1 = y1 - F(x2)), recomputing F and G once more (phase
// recompute, about +33% FLOPs), then backpropagates through them. In-flight storage grows as L, not L^2.
//
// What each layer keeps is decided by workloads/reversible/reversible_program.h, which knows the model's
// structure (entry and exit layers stash their inputs, the trunk stashes only its last output), so
// forward_stash() reports the trunk's policy. The schedule runs only on a reversible model.

#include "workloads/schedules/i_schedule.h"
#include "workloads/schedules/schedule_models.h"

namespace spatialsim::workloads {
namespace {

class Reversible final : public Schedule {
 public:
  mappings::XStash forward_stash(std::uint32_t) const override { return mappings::XStash::none; }
  bool trains() const override { return true; }
};

const ScheduleRegistry::Registration registration{
    "reversible",
    "additive coupling (model.kind=reversible): trunk inputs reconstructed in the backward pass; the trunk "
    "stashes only its last output, the entry and exit layers their inputs",
    [](const sim::Config&) { return std::make_unique<Reversible>(); }};

const ScheduleModelKinds kinds{"reversible", {ModelKind::reversible}};

}  // namespace
}  // namespace spatialsim::workloads
