#include "analysis/chrome_trace.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <numeric>
#include <ostream>
#include <queue>
#include <set>
#include <stdexcept>
#include <string_view>
#include <utility>

#include "analysis/output_guard.h"
#include "sim/types.h"

namespace spatialsim::analysis {
namespace {

// JSON string contents (without the quotes). Schedule names are plain identifiers, but the writer
// must not depend on that.
void write_escaped(std::ostream& out, std::string_view text) {
  for (const char c : text) {
    switch (c) {
      case '"':
        out << "\\\"";
        break;
      case '\\':
        out << "\\\\";
        break;
      case '\n':
        out << "\\n";
        break;
      case '\t':
        out << "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
          out << buf;
        } else {
          out << c;
        }
    }
  }
}

// Writes the events of one array, a comma before each but the first.
class EventList {
 public:
  explicit EventList(std::ostream& out) : m_out(out) {}
  std::ostream& next() {
    m_out << (m_first ? "\n" : ",\n");
    m_first = false;
    return m_out;
  }

 private:
  std::ostream& m_out;
  bool m_first = true;
};

void write_metadata(EventList& events, std::uint64_t pid, std::uint64_t tid, std::string_view what,
                    std::string_view name, std::uint64_t sort_index) {
  std::ostream& o = events.next();
  o << R"({"ph":"M","pid":)" << pid << R"(,"tid":)" << tid << R"(,"name":")" << what
    << R"(","args":{"name":")";
  write_escaped(o, name);
  o << R"("}})";
  const std::string_view sort_what = what == "process_name" ? "process_sort_index" : "thread_sort_index";
  events.next() << R"({"ph":"M","pid":)" << pid << R"(,"tid":)" << tid << R"(,"name":")" << sort_what
                << R"(","args":{"sort_index":)" << sort_index << "}}";
}

// Track (within its layer) of each message: the lowest-numbered track whose last slice has ended when the
// message departs, so that the slices of a track never overlap. Returns the track count per layer.
std::vector<std::uint32_t> assign_tracks(const TraceData& data, const std::vector<sim::Cycle>& step_start,
                                         std::vector<std::uint32_t>& track) {
  const auto& m = data.messages;
  const auto sent = [&](std::size_t i) { return step_start[m[i].step] + m[i].sent; };
  const auto delivered = [&](std::size_t i) { return step_start[m[i].step] + m[i].delivered; };
  std::vector<std::size_t> order(m.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return std::make_tuple(m[a].layer, sent(a), delivered(a)) <
           std::make_tuple(m[b].layer, sent(b), delivered(b));
  });
  track.assign(m.size(), 0);
  std::vector<std::uint32_t> count(data.layers, 0);
  using Busy = std::pair<sim::Cycle, std::uint32_t>;  // (end, track)
  std::priority_queue<Busy, std::vector<Busy>, std::greater<>> busy;
  std::set<std::uint32_t> free;
  std::uint32_t layer = 0;
  for (const std::size_t i : order) {
    if (m[i].layer != layer) {
      layer = m[i].layer;
      busy = {};
      free.clear();
    }
    while (!busy.empty() && busy.top().first <= sent(i)) {
      free.insert(busy.top().second);
      busy.pop();
    }
    std::uint32_t t = count[layer];
    if (!free.empty()) {
      t = *free.begin();
      free.erase(free.begin());
    } else {
      ++count[layer];
    }
    track[i] = t;
    busy.push({delivered(i), t});
  }
  return count;
}

void write_schedule(EventList& events, std::uint64_t pid, const ScheduleTrace& run) {
  const TraceData& data = *run.data;
  std::vector<sim::Cycle> step_start;
  for (const StepSpan& s : data.steps) step_start.push_back(s.start_cycle);
  // A run that stopped before end_step still has its records: place its last step after the others.
  const std::uint32_t recorded_steps =
      std::max<std::uint32_t>(data.messages.empty() ? 0 : data.messages.back().step + 1,
                              data.stash.empty() ? 0 : data.stash.back().step + 1);
  while (step_start.size() < recorded_steps)
    step_start.push_back(
        data.steps.empty() ? 0 : data.steps.back().start_cycle + data.steps.back().makespan_cycles);

  write_metadata(events, pid, 0, "process_name", run.schedule, pid);
  write_metadata(events, pid, 0, "thread_name", "steps", 0);
  for (const StepSpan& s : data.steps) {
    events.next() << R"({"ph":"X","pid":)" << pid << R"(,"tid":0,"name":"step )" << s.step << R"(","ts":)"
                  << s.start_cycle << R"(,"dur":)" << s.makespan_cycles << "}";
  }

  std::vector<std::uint32_t> track;
  const std::vector<std::uint32_t> tracks = assign_tracks(data, step_start, track);
  std::vector<std::uint64_t> first_tid(tracks.size(), 1);  // tid 0 is "steps"
  for (std::size_t l = 1; l < tracks.size(); ++l) first_tid[l] = first_tid[l - 1] + tracks[l - 1];
  for (std::size_t l = 0; l < tracks.size(); ++l) {
    for (std::uint32_t t = 0; t < tracks[l]; ++t) {
      const std::string name = "layer " + std::to_string(l) + (t == 0 ? "" : " #" + std::to_string(t + 1));
      write_metadata(events, pid, first_tid[l] + t, "thread_name", name, first_tid[l] + t);
    }
  }
  for (std::size_t i = 0; i < data.messages.size(); ++i) {
    const MessageRecord& m = data.messages[i];
    const sim::Cycle ts = step_start[m.step] + m.sent;
    std::ostream& o = events.next();
    o << R"({"ph":"X","pid":)" << pid << R"(,"tid":)" << first_tid[m.layer] + track[i] << R"(,"name":")"
      << sim::name(m.kind) << R"(","cat":")" << sim::name(m.phase) << R"(","ts":)" << ts << R"(,"dur":)"
      << m.delivered - m.sent << R"(,"args":{"src":)";
    if (m.src == sim::kHostTile)
      o << R"("host")";
    else
      o << m.src;
    o << R"(,"dst":)";
    if (m.dst == sim::kHostTile)
      o << R"("host")";
    else
      o << m.dst;
    o << R"(,"bytes":)" << m.bytes << R"(,"hops":)" << m.hops << R"(,"phase":")" << sim::name(m.phase)
      << R"(","wavefront":)" << m.wavefront << R"(,"step":)" << m.step << "}}";
  }

  // Counters: the state after the last change at each timestamp (several changes often share a cycle).
  std::vector<std::uint64_t> by_layer(data.layers, 0);
  // Per step, the last sample's time and total: a step whose last change already emptied the stash at its
  // end needs no second sample there.
  std::vector<std::pair<sim::Cycle, std::uint64_t>> last_sample(data.steps.size(), {0, 1});
  const auto emit = [&](sim::Cycle ts, std::uint64_t stash) {
    events.next() << R"({"ph":"C","pid":)" << pid << R"(,"name":"stash bytes","ts":)" << ts
                  << R"(,"args":{"stash":)" << stash << "}}";
    std::ostream& o = events.next();
    o << R"({"ph":"C","pid":)" << pid << R"(,"name":"stash bytes by layer","ts":)" << ts << R"(,"args":{)";
    for (std::size_t l = 0; l < by_layer.size(); ++l)
      o << (l == 0 ? "" : ",") << "\"layer " << l << "\":" << by_layer[l];
    o << "}}";
  };
  for (std::size_t i = 0; i < data.stash.size(); ++i) {
    const StashRecord& s = data.stash[i];
    by_layer[s.layer] = s.layer_bytes;
    const sim::Cycle ts = step_start[s.step] + s.cycle;
    const bool last_at_ts =
        i + 1 == data.stash.size() || step_start[data.stash[i + 1].step] + data.stash[i + 1].cycle != ts;
    if (last_at_ts) {
      emit(ts, s.stash_bytes);
      last_sample[s.step] = {ts, s.stash_bytes};
    }
  }
  // Each step runs on a fresh engine: whatever a step still held is gone when it ends.
  for (std::size_t k = 0; k < data.steps.size(); ++k) {
    const sim::Cycle end = data.steps[k].start_cycle + data.steps[k].makespan_cycles;
    if (last_sample[k] == std::pair<sim::Cycle, std::uint64_t>{end, 0}) continue;
    std::fill(by_layer.begin(), by_layer.end(), 0);
    emit(end, 0);
  }
}

void write_events(std::ostream& out, const std::vector<ScheduleTrace>& runs) {
  out << R"({"displayTimeUnit":"ns","otherData":{"generator":"spatialsim","time_unit":"1 us = 1 cycle"},)"
      << "\n"
      << R"("traceEvents":[)";
  EventList events(out);
  for (std::size_t k = 0; k < runs.size(); ++k) write_schedule(events, k + 1, runs[k]);
  out << "\n]}\n";
}

}  // namespace

void write_chrome_trace(const std::string& path, const std::vector<ScheduleTrace>& runs) {
  for (const ScheduleTrace& r : runs) {
    if (r.data == nullptr)
      throw std::logic_error("chrome trace: schedule " + r.schedule + " has no trace data");
  }
  // Through a symbolic link: the file it ends at is replaced, the link stays (output_target).
  const std::string target = output_target(path).path;
  const std::string temp = temporary_path(target);
  PartialOutputGuard guard(temp, path);
  const auto fail = [&](const std::string& why) {
    std::remove(temp.c_str());
    throw OutputError(path, "chrome_trace = \"" + path + "\": " + why);
  };
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out) fail(std::string("cannot create ") + temp + ": " + std::strerror(errno));
    errno = 0;  // a failed write's reason is read after the close, below
    try {
      write_events(out, runs);
    } catch (...) {
      out.close();
      std::remove(temp.c_str());
      throw;
    }
    out.close();
    // The failed write's reason (no space, a file size limit, ...): the stream stops writing at its first
    // failure, so errno still holds it.
    const int write_error = errno;
    if (!out)
      fail("writing " + temp + " failed" +
           (write_error != 0 ? std::string(" (") + std::strerror(write_error) + ")" : std::string()));
  }
  if (std::rename(temp.c_str(), target.c_str()) != 0)
    fail(std::string("cannot rename ") + temp + ": " + std::strerror(errno));
  guard.release();
}

}  // namespace spatialsim::analysis
