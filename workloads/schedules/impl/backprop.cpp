// `backprop`: exact reverse mode. Every layer's inputs stay on the grid from the wavefront's forward
// pass until its backward pass returns to that layer, which is what makes in-flight storage grow as L^2.
// backprop.xstash chooses where they stay (MODEL.md section 4): on every tile of the lane (replicate), or
// only on the lane entry, which sends them along the lane again in the backward pass (rebroadcast).

#include "sim/config.h"
#include "sim/enum_names.h"
#include "sim/option_spec.h"
#include "workloads/schedules/i_schedule.h"

namespace spatialsim::workloads {
namespace {

const sim::OptionRegistration options{
    {"backprop.xstash", "choice",
     "replicate (every tile of a lane stashes its inputs) | rebroadcast (only the lane entry does, and "
     "resends them in the backward pass)"},
};

// The two policies under which a layer's own backward pass finds its inputs (the others are recomputing
// schedules').
constexpr sim::EnumNames<mappings::XStash, 2> kStashNames{
    {{{mappings::XStash::replicate, "replicate"}, {mappings::XStash::rebroadcast, "rebroadcast"}}}};

class Backprop final : public Schedule {
 public:
  explicit Backprop(const sim::Config& config)
      : m_stash(kStashNames.from_config(config, "backprop.xstash")) {}
  mappings::XStash forward_stash(std::uint32_t) const override { return m_stash; }
  bool trains() const override { return true; }

 private:
  mappings::XStash m_stash;
};

const ScheduleRegistry::Registration registration{
    "backprop", "exact reverse mode; every layer's inputs stashed until the backward pass returns",
    [](const sim::Config& config) { return std::make_unique<Backprop>(config); }};

}  // namespace
}  // namespace spatialsim::workloads
