#pragma once
// A training schedule: what a step keeps, recomputes and sends besides the forward pass (MODEL.md
// section 7). A schedule decides *what* runs *when*; how values move between tiles is the mapping's
// business (mappings/), and it never sees a route or a hop.
//
// Implementations live in impl/, one file each, registered by config name; options of a schedule are
// keys of the section named after it (backprop.xstash, checkpoint.segment, ...).
//
// Usage:
//   auto s = ScheduleRegistry::create("backprop", config);
//   s->forward_stash(layer);  s->runs_backward();

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "mappings/weight_stationary_block.h"
#include "sim/registry.h"

namespace spatialsim::workloads {

class Schedule {
 public:
  static constexpr std::string_view kRegistryHeading = "schedules (schedule)";
  virtual ~Schedule() = default;
  // Contract: what the forward pass of every wavefront leaves on the tiles of `layer` for the backward
  // pass. XStash::none for every layer when runs_backward() is false.
  virtual mappings::XStash forward_stash(std::uint32_t layer) const = 0;
  // Contract: true when each wavefront's backward pass starts as soon as its forward pass reaches the
  // loss, and the step ends with every tile updating its own slice.
  virtual bool runs_backward() const = 0;
};

using ScheduleRegistry = sim::Registry<Schedule>;

}  // namespace spatialsim::workloads
