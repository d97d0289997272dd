#include "analysis/trace_writer.h"

#include <algorithm>
#include <array>
#include <string>

#include "sim/types.h"

namespace spatialsim::analysis {
namespace {

template <std::size_t N>
std::size_t longest(const std::array<std::string_view, N>& names) {
  std::size_t n = 1;
  for (const auto name : names) n = std::max(n, name.size());
  return n;
}

void write_messages(Hdf5File& file, const std::string& path, const TraceData& data) {
  TableWriter t = file.create_table(path, {{"step", ColumnType::uint64, "1"},
                                           {"cycle_sent", ColumnType::uint64, "cycles"},
                                           {"cycle_delivered", ColumnType::uint64, "cycles"},
                                           {"src", ColumnType::uint64, "1"},
                                           {"dst", ColumnType::uint64, "1"},
                                           {"bytes", ColumnType::uint64, "bytes"},
                                           {"hops", ColumnType::uint64, "hops"},
                                           {"kind", ColumnType::string, "", longest(sim::kMessageKindNames)},
                                           {"phase", ColumnType::string, "", longest(sim::kPhaseNames)},
                                           {"layer", ColumnType::uint64, "1"},
                                           {"wavefront", ColumnType::uint64, "1"}});
  for (const MessageRecord& m : data.messages) {
    t.append({m.step, m.sent, m.delivered, m.src, m.dst, m.bytes, m.hops, sim::name(m.kind),
              sim::name(m.phase), m.layer, m.wavefront});
  }
  t.close();
}

void write_stash(Hdf5File& file, const std::string& path, const TraceData& data) {
  TableWriter t = file.create_table(path, {{"step", ColumnType::uint64, "1"},
                                           {"cycle", ColumnType::uint64, "cycles"},
                                           {"tile", ColumnType::uint64, "1"},
                                           {"layer", ColumnType::uint64, "1"},
                                           {"delta_bytes", ColumnType::int64, "bytes"},
                                           {"layer_bytes", ColumnType::uint64, "bytes"},
                                           {"stash_bytes", ColumnType::uint64, "bytes"}});
  for (const StashRecord& s : data.stash)
    t.append({s.step, s.cycle, s.tile, s.layer, s.delta_bytes, s.layer_bytes, s.stash_bytes});
  t.close();
}

void write_steps(Hdf5File& file, const std::string& path, const TraceData& data) {
  TableWriter t = file.create_table(path, {{"step", ColumnType::uint64, "1"},
                                           {"start_cycle", ColumnType::uint64, "cycles"},
                                           {"makespan_cycles", ColumnType::uint64, "cycles"}});
  for (const StepSpan& s : data.steps) t.append({s.step, s.start_cycle, s.makespan_cycles});
  t.close();
}

}  // namespace

RunTraces::RunTraces(std::size_t schedules, bool enabled) {
  if (!enabled) return;
  for (std::size_t k = 0; k < schedules; ++k) {
    m_recorders.push_back(std::make_unique<MessageTraceRecorder>());
    m_observers.push_back(m_recorders.back().get());
  }
}

void write_trace(Hdf5File& file, std::string_view run_group, const TraceData& data) {
  const std::string group = std::string(run_group) + "/trace";
  file.ensure_group(group);
  file.set_attribute(group, "layers", data.layers);
  file.set_attribute(group, "host_tile", static_cast<std::uint64_t>(sim::kHostTile));
  write_messages(file, group + "/messages", data);
  write_stash(file, group + "/stash", data);
  write_steps(file, group + "/steps", data);
}

}  // namespace spatialsim::analysis
