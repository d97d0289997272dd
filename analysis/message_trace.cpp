#include "analysis/message_trace.h"

#include <stdexcept>
#include <string>

namespace spatialsim::analysis {

// The records are copied into a vector per message; keep them small (see the header's memory note).
static_assert(sizeof(MessageRecord) <= 56, "MessageRecord grew: update the memory note in message_trace.h");
static_assert(sizeof(StashRecord) <= 48, "StashRecord grew: update the memory note in message_trace.h");

void MessageTraceRecorder::begin_step(std::uint32_t step) {
  if (step != m_data.steps.size())
    throw std::logic_error("trace recorder: step " + std::to_string(step) + " began after " +
                           std::to_string(m_data.steps.size()) + " steps; steps come in order, from 0");
  m_step = step;
  m_stash_total = 0;
  m_stash_by_layer.assign(m_stash_by_layer.size(), 0);
}

void MessageTraceRecorder::end_step(std::uint32_t step, const sim::Counters& step_counters) {
  m_data.steps.push_back(
      {.step = step, .start_cycle = m_step_start, .makespan_cycles = step_counters.makespan_cycles});
  m_step_start += step_counters.makespan_cycles;
}

void MessageTraceRecorder::note_layer(std::uint32_t layer) {
  if (layer >= m_data.layers) m_data.layers = layer + 1;
}

void MessageTraceRecorder::on_send(const sim::Message& message, sim::Cycle depart, sim::Cycle arrive,
                                   std::uint32_t hops) {
  note_layer(message.group);
  m_data.messages.push_back({.sent = depart,
                             .delivered = arrive,
                             .bytes = message.bytes,
                             .src = message.src,
                             .dst = message.dst,
                             .hops = hops,
                             .layer = message.group,
                             .wavefront = message.serial,
                             .step = m_step,
                             .kind = message.kind,
                             .phase = message.phase});
}

void MessageTraceRecorder::on_storage(sim::TileId tile, sim::StorageCategory category,
                                      std::int64_t delta_bytes, std::uint32_t group, sim::Cycle now) {
  // Only what the in-flight counters integrate (stash); weights, optimizer state and transit buffers would
  // drown the timeline.
  if (category != sim::StorageCategory::stash) return;
  note_layer(group);
  if (m_stash_by_layer.size() <= group) m_stash_by_layer.resize(group + 1, 0);
  // The engine's ledger has already refused a release of more than is held, so these never wrap.
  std::uint64_t& layer_bytes = m_stash_by_layer[group];
  layer_bytes = static_cast<std::uint64_t>(static_cast<std::int64_t>(layer_bytes) + delta_bytes);
  m_stash_total = static_cast<std::uint64_t>(static_cast<std::int64_t>(m_stash_total) + delta_bytes);
  m_data.stash.push_back({.cycle = now,
                          .delta_bytes = delta_bytes,
                          .layer_bytes = layer_bytes,
                          .stash_bytes = m_stash_total,
                          .tile = tile,
                          .layer = group,
                          .step = m_step});
}

std::uint64_t stash_byte_cycles(const TraceData& data) {
  std::uint64_t sum = 0;
  std::size_t row = 0;
  for (const StepSpan& span : data.steps) {
    std::uint64_t held = 0;  // every step starts with an empty ledger
    sim::Cycle since = 0;
    for (; row < data.stash.size() && data.stash[row].step == span.step; ++row) {
      const StashRecord& r = data.stash[row];
      sum += held * (r.cycle - since);
      held = r.stash_bytes;
      since = r.cycle;
    }
    sum += held * (span.makespan_cycles - since);
  }
  return sum;
}

}  // namespace spatialsim::analysis
