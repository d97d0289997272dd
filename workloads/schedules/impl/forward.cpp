// `forward`: the inference baseline. Each wavefront runs forward to the loss and stops; nothing is kept.
// Every other schedule is reported as a ratio to this one.

#include "workloads/schedules/i_schedule.h"
#include "workloads/schedules/schedule_models.h"

namespace spatialsim::workloads {
namespace {

class ForwardOnly final : public Schedule {
 public:
  mappings::XStash forward_stash(std::uint32_t) const override { return mappings::XStash::none; }
  bool trains() const override { return false; }
};

const ScheduleRegistry::Registration registration{
    "forward", "forward pass and loss only (inference baseline); nothing stashed",
    [](const sim::Config&) { return std::make_unique<ForwardOnly>(); }};

// The inference baseline of either model kind (a reversible model's forward pass is its baseline too).
const ScheduleModelKinds kinds{"forward", {ModelKind::mlp, ModelKind::reversible}};

}  // namespace
}  // namespace spatialsim::workloads
