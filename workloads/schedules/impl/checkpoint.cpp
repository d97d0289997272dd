// `checkpoint`: uniform checkpointing (seed 000, section 4(c)). The first forward pass keeps only the
// inputs of every s-th layer, on their lane entries. When a wavefront's backward pass reaches a segment,
// the segment is recomputed from its checkpoint with every layer's stash (phase recompute), and backprop
// runs through it. In-flight storage: ~L^2 / s for the checkpoints plus ~s L for the segment being
// recomputed; one extra forward of every segment.

#include <algorithm>
#include <cmath>

#include "sim/config.h"
#include "sim/option_spec.h"
#include "workloads/model_spec.h"
#include "workloads/schedules/i_schedule.h"

namespace spatialsim::workloads {
namespace {

const sim::OptionRegistration options{
    {"checkpoint.segment", "layers", "s: layers per segment; 0 = round(sqrt(L)); at most L"},
};

class Checkpoint final : public Schedule {
 public:
  explicit Checkpoint(const sim::Config& config) {
    const std::uint64_t layers = layers_from_config(config);
    std::uint64_t s = config.get_uint("checkpoint.segment");
    if (s == 0) s = std::max<std::uint64_t>(1, std::llround(std::sqrt(static_cast<double>(layers))));
    if (s > layers)
      config.fail("checkpoint.segment", "is longer than the network (" + std::to_string(layers) +
                                            " layers); give at most " + std::to_string(layers) +
                                            " or 0 for sqrt(L)");
    m_segment = static_cast<std::uint32_t>(s);
    m_episodes.resize(layers);
    for (std::uint32_t start = 0; start < layers; start += m_segment) {
      const std::uint32_t last =
          std::min<std::uint32_t>(start + m_segment, static_cast<std::uint32_t>(layers)) - 1;
      m_episodes[last] = RecomputeEpisode{
          start, true, std::vector<mappings::XStash>(last - start + 1, mappings::XStash::replicate)};
    }
  }

  mappings::XStash forward_stash(std::uint32_t layer) const override {
    return layer % m_segment == 0 ? mappings::XStash::checkpoint : mappings::XStash::none;
  }
  bool trains() const override { return true; }
  const RecomputeEpisode* recompute_before_backward(std::uint32_t layer) const override {
    return m_episodes[layer].stash.empty() ? nullptr : &m_episodes[layer];
  }

 private:
  std::uint32_t m_segment = 1;
  std::vector<RecomputeEpisode> m_episodes;  // per layer; empty stash: no episode before it
};

const ScheduleRegistry::Registration registration{
    "checkpoint",
    "uniform checkpointing: inputs of every s-th layer kept; each segment recomputed in backward",
    [](const sim::Config& config) { return std::make_unique<Checkpoint>(config); }};

}  // namespace
}  // namespace spatialsim::workloads
