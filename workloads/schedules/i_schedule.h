#pragma once
// A training schedule: what a step keeps, recomputes and sends besides the forward pass (MODEL.md
// section 7). A schedule decides *what* runs *when*; how values move between tiles is the mapping's
// business (mappings/), and it never sees a route or a hop.
//
// Implementations live in impl/, one file each, registered by config name; options of a schedule are
// keys of the section named after it (backprop.xstash, checkpoint.segment, ...), or of the sections it
// declares (schedule_options.h: split-fg reads fg.* and splitfg.*).
//
// Usage:
//   auto s = ScheduleRegistry::create("backprop", config);
//   s->forward_stash(layer);  s->trains();

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "mappings/x_stash.h"
#include "sim/registry.h"
#include "workloads/tangent_generator.h"

namespace spatialsim::workloads {

// A recomputation the backward pass of a wavefront needs before it can enter a layer (the episode's
// target): restart from the checkpoint kept on the lane entries of `from_layer`, run layers
// from_layer..target forward again (phase recompute) under `stash[layer - from_layer]`, then start the
// target's backward pass. Checkpoints taken during the episode (XStash::checkpoint) serve later episodes.
struct RecomputeEpisode {
  std::uint32_t from_layer = 0;
  bool release_checkpoint = true;       // this is the checkpoint's last use
  std::vector<mappings::XStash> stash;  // one per layer from_layer..target; the target's prepares backward
};

// Forward gradients (docs/forward-gradients.md): the forward pass of layers 0..trunk-1 carries K tangent
// streams; the trunk's gradient is the estimate (1/K) sum_k d_k v_k, d_k reduced and broadcast as scalars.
struct ForwardGradientPlan {
  std::uint32_t tangents = 1;                // K
  TangentKind kind = TangentKind::gaussian;  // elements of v_k
  std::uint64_t seed = 0;                    // of the tangents; 0: the run's seed (sim.seed)
  std::uint32_t split = 0;      // 0: the whole network is the trunk; else trunk = layers 0..split-1
  double trunk_lr_scale = 1.0;  // rho: the trunk's learning rate is rho * train.lr

  // The layers 0..trunk_layers(L)-1 of an L-layer model that carry tangents.
  std::uint32_t trunk_layers(std::uint32_t layers) const { return split == 0 ? layers : split; }
  // The tangents' seed in a run seeded `run_seed`.
  std::uint64_t seed_in(std::uint64_t run_seed) const { return seed == 0 ? run_seed : seed; }
};

class Schedule {
 public:
  static constexpr std::string_view kRegistryHeading = "schedules (schedule)";
  virtual ~Schedule() = default;
  // Contract: what the forward pass of every wavefront leaves on the tiles of `layer` for the backward
  // pass. XStash::none for every layer when trains() is false.
  virtual mappings::XStash forward_stash(std::uint32_t layer) const = 0;
  // Contract: true when the schedule trains: the step ends with every tile updating its own slice, from the
  // gradient of its backward pass (which starts, for each wavefront, as soon as its forward pass reaches the
  // loss) or from a forward-gradient estimate (forward_gradient(): no backward pass through the trunk).
  // False for inference.
  virtual bool trains() const = 0;
  // Contract: null when the forward pass left what `layer`'s backward pass needs; otherwise the episode
  // that recomputes it, the same for every wavefront. Asked once per layer when the program is built: the
  // answer must not change.
  virtual const RecomputeEpisode* recompute_before_backward(std::uint32_t /*layer*/) const { return nullptr; }
  // Contract: null for exact schedules. Otherwise the forward-gradient plan, the same for every step;
  // forward_stash(layer) is XStash::none for every trunk layer, and trains() is true (the step ends
  // with every tile updating its slice; the head, if any, runs exact backprop).
  virtual const ForwardGradientPlan* forward_gradient() const { return nullptr; }
};

using ScheduleRegistry = sim::Registry<Schedule>;

}  // namespace spatialsim::workloads
