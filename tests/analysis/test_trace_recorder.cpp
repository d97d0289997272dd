// The trace recorder under a tiny engine harness (every message and stash change, with the right fields),
// on a real training run (the records add up to the run's counters), and the trace writers: the HDF5
// tables and the Chrome trace-event JSON.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>
#include <tuple>

#include "analysis/chrome_trace.h"
#include "analysis/hdf5_file.h"
#include "analysis/message_trace.h"
#include "analysis/trace_writer.h"
#include "sim/engine.h"
#include "tests/analysis/hdf5_test_support.h"
#include "tests/analysis/test_trace_support.h"
#include "tests/workloads/network_test_support.h"

namespace spatialsim::analysis {
namespace {

using sim::Cycle;
using sim::MessageKind;
using sim::Phase;
using sim::StorageCategory;

// A program of timers: a message to port p runs actions[p] at its arrival.
struct ScriptedProgram : sim::MessageHandler {
  std::map<std::uint32_t, std::function<void(sim::Engine&)>> actions;
  void on_message(sim::Engine& engine, const sim::Message& m) override {
    if (auto it = actions.find(m.port); it != actions.end()) it->second(engine);
  }
};

TEST(MessageTraceRecorder, RecordsEveryMessageWithItsFields) {
  const sim::Grid grid(4, 3, sim::Topology::mesh);
  sim::Engine engine(grid, sim::MachineTiming{.hop_latency = 2});
  ScriptedProgram program;
  engine.set_handler(&program);
  MessageTraceRecorder recorder;
  recorder.begin_step(0);
  engine.add_observer(&recorder);
  engine.send({.src = 0,
               .dst = grid.tile_id(3, 2),
               .bytes = 10,
               .kind = MessageKind::psum,
               .phase = Phase::backward,
               .group = 2,
               .serial = 5},
              4);
  engine.send({.src = sim::kHostTile, .dst = grid.tile_id(1, 0), .bytes = 6, .kind = MessageKind::host}, 0);
  engine.send({.src = 7, .dst = 7, .bytes = 3, .kind = MessageKind::scalar, .phase = Phase::update}, 1);
  engine.run();
  engine.finish();
  recorder.end_step(0, engine.counters());

  const TraceData& t = recorder.data();
  ASSERT_EQ(t.messages.size(), 3u);
  const MessageRecord& a = t.messages[0];
  EXPECT_EQ(a.sent, 4u);
  EXPECT_EQ(a.delivered, 4u + 5 * 2);  // 5 hops, 2 cycles each
  EXPECT_EQ(a.src, 0u);
  EXPECT_EQ(a.dst, grid.tile_id(3, 2));
  EXPECT_EQ(a.bytes, 10u);
  EXPECT_EQ(a.hops, 5u);
  EXPECT_EQ(a.kind, MessageKind::psum);
  EXPECT_EQ(a.phase, Phase::backward);
  EXPECT_EQ(a.layer, 2u);
  EXPECT_EQ(a.wavefront, 5u);
  EXPECT_EQ(a.step, 0u);
  EXPECT_EQ(t.messages[1].src, sim::kHostTile);
  EXPECT_EQ(t.messages[1].hops, grid.host_hops(grid.tile_id(1, 0)));
  EXPECT_EQ(t.messages[2].hops, 0u);  // to self
  EXPECT_EQ(t.messages[2].delivered, 1u);
  EXPECT_EQ(t.layers, 3u);
  ASSERT_EQ(t.steps.size(), 1u);
  EXPECT_EQ(t.steps[0].start_cycle, 0u);
  EXPECT_EQ(t.steps[0].makespan_cycles, engine.counters().makespan_cycles);
  EXPECT_TRUE(t.stash.empty());
}

// Stores and releases on a timer script, over two steps on fresh engines, as training_run does.
TEST(MessageTraceRecorder, StashRowsCarryTotalsAndIntegrateToTheLedger) {
  const sim::Grid grid(3, 1, sim::Topology::mesh);
  MessageTraceRecorder recorder;
  std::uint64_t ledger_integral = 0;
  Cycle makespans = 0;
  for (std::uint32_t step = 0; step < 2; ++step) {
    sim::Engine engine(grid, sim::MachineTiming{});
    ScriptedProgram program;
    program.actions[1] = [](sim::Engine& e) { e.store(0, StorageCategory::stash, 100, 0); };
    program.actions[2] = [](sim::Engine& e) {
      e.store(1, StorageCategory::stash, 40, 1);
      e.store(2, StorageCategory::weights, 1000, 1);  // not a stash: not recorded
      e.store(2, StorageCategory::transit, 8, 1);     // nor this
    };
    program.actions[3] = [](sim::Engine& e) { e.release(0, StorageCategory::stash, 100, 0); };
    program.actions[4] = [](sim::Engine& e) { e.release(1, StorageCategory::stash, 15, 1); };
    engine.set_handler(&program);
    recorder.begin_step(step);
    engine.add_observer(&recorder);
    engine.post_local({.dst = 0, .port = 1}, 2);
    engine.post_local({.dst = 0, .port = 2}, 5);
    engine.post_local({.dst = 0, .port = 3}, 9);
    engine.post_local({.dst = 0, .port = 4}, 12);
    engine.post_local({.dst = 0, .port = 0}, 20 + step);  // the step ends later, with 25 bytes still held
    engine.run();
    engine.finish();
    recorder.end_step(step, engine.counters());
    ledger_integral += engine.counters().inflight_byte_cycles;
    makespans += engine.counters().makespan_cycles;
  }
  const TraceData& t = recorder.data();
  ASSERT_EQ(t.stash.size(), 8u);  // 4 per step
  const StashRecord& second = t.stash[1];
  EXPECT_EQ(second.cycle, 5u);
  EXPECT_EQ(second.tile, 1u);
  EXPECT_EQ(second.layer, 1u);
  EXPECT_EQ(second.delta_bytes, 40);
  EXPECT_EQ(second.layer_bytes, 40u);
  EXPECT_EQ(second.stash_bytes, 140u);
  EXPECT_EQ(t.stash[2].delta_bytes, -100);
  EXPECT_EQ(t.stash[2].layer_bytes, 0u);
  EXPECT_EQ(t.stash[3].stash_bytes, 25u);
  // The second step starts from an empty ledger again.
  EXPECT_EQ(t.stash[4].step, 1u);
  EXPECT_EQ(t.stash[4].stash_bytes, 100u);
  EXPECT_EQ(t.stash[5].layer_bytes, 40u);
  ASSERT_EQ(t.steps.size(), 2u);
  EXPECT_EQ(t.steps[1].start_cycle, t.steps[0].makespan_cycles);
  EXPECT_EQ(t.steps[0].makespan_cycles + t.steps[1].makespan_cycles, makespans);
  // 100 x (9 - 2) + 40 x (12 - 5) + 25 x (20 - 12), then the same with the step ending at 21.
  EXPECT_EQ(ledger_integral, (700u + 280u + 200u) + (700u + 280u + 225u));
  EXPECT_EQ(stash_byte_cycles(t), ledger_integral);
}

TEST(MessageTraceRecorder, StepsMustComeInOrder) {
  MessageTraceRecorder recorder;
  EXPECT_THROW(recorder.begin_step(1), std::logic_error);
}

// A real training run: the records are the run's messages, their byte-hops the run's byte-hops, and the
// stash rows integrate to its inflight_byte_cycles, exactly. Tracing changes nothing that is counted.
TEST(MessageTraceRecorder, RecordsOfATrainingRunAddUpToItsCounters) {
  const sim::Config config = testing_support::config_with(
      {"--model.depth=3", "--model.width=16", "--model.inputs=8", "--model.outputs=4", "--step.tokens=16",
       "--step.wavefront=4", "--train.steps=2"});
  const workloads::RunSetup setup = workloads::setup_from_config(config);
  MessageTraceRecorder recorder;
  const workloads::RunResult traced =
      workloads::run_schedule(setup, config, "backprop", {.observer = &recorder});
  const workloads::RunResult plain = workloads::run_schedule(setup, config, "backprop");
  EXPECT_EQ(traced.counters, plain.counters);
  EXPECT_EQ(traced.loss_per_step, plain.loss_per_step);

  const TraceData& t = recorder.data();
  ASSERT_EQ(t.messages.size(), traced.counters.messages.total());
  sim::PerPhaseKind<std::uint64_t> byte_hops;
  std::uint64_t steps_seen = 0;
  for (const MessageRecord& m : t.messages) {
    byte_hops.at(m.phase, m.kind) += m.bytes * m.hops;
    EXPECT_GE(m.delivered, m.sent);
    EXPECT_LT(m.layer, 3u);
    steps_seen = std::max<std::uint64_t>(steps_seen, m.step + 1);
  }
  EXPECT_EQ(byte_hops, traced.counters.byte_hops);
  EXPECT_EQ(steps_seen, 2u);
  EXPECT_EQ(t.layers, 3u);
  ASSERT_EQ(t.steps.size(), 2u);
  EXPECT_EQ(t.steps[0].makespan_cycles + t.steps[1].makespan_cycles, traced.counters.makespan_cycles);

  ASSERT_FALSE(t.stash.empty());
  EXPECT_EQ(stash_byte_cycles(t), traced.counters.inflight_byte_cycles);
  // The peak is what a cycle holds after all of its changes: the last row of each cycle of each step.
  std::uint64_t peak = 0;
  for (std::size_t i = 0; i < t.stash.size(); ++i) {
    const bool last_of_cycle = i + 1 == t.stash.size() || t.stash[i + 1].step != t.stash[i].step ||
                               t.stash[i + 1].cycle != t.stash[i].cycle;
    if (last_of_cycle) peak = std::max(peak, t.stash[i].stash_bytes);
  }
  EXPECT_EQ(peak, traced.counters.peak_stash_bytes);
}

// A message's layer is the layer whose tiles receive it (docs/traces-and-plots.md), for the network program
// and the reversible program alike (whose messages along the coupling edges once carried the edge's id).
TEST(MessageTraceRecorder, EveryMessagesLayerIsTheLayerWhoseTileReceivesIt) {
  for (const auto& [kind, schedule] : {std::pair{"mlp", "backprop"}, std::pair{"mlp", "checkpoint"},
                                       std::pair{"reversible", "reversible"}}) {
    const sim::Config config = testing_support::config_with(
        {std::string("--model.kind=") + kind, "--model.depth=2", "--model.width=12", "--model.inputs=7",
         "--model.outputs=5", "--mapping.block=2x3", "--step.tokens=9", "--step.wavefront=4",
         "--sim.arith=none"});
    const workloads::RunSetup setup = workloads::setup_from_config(config);
    std::map<sim::TileId, std::uint32_t> layer_of;
    for (std::uint32_t l = 0; l < setup.placement.blocks.size(); ++l) {
      const mappings::BlockLayout& b = setup.placement.blocks[l];
      for (std::uint32_t i = 0; i < b.rows; ++i)
        for (std::uint32_t j = 0; j < b.cols; ++j) {
          const sim::Coord c = b.coord(i, j);
          layer_of[c.y * setup.grid_width + c.x] = l;
        }
    }
    MessageTraceRecorder recorder;
    workloads::run_schedule(setup, config, schedule, {.observer = &recorder});
    const TraceData& t = recorder.data();
    ASSERT_FALSE(t.messages.empty()) << schedule;
    for (const MessageRecord& m : t.messages) {
      ASSERT_NE(m.dst, sim::kHostTile) << schedule;  // nothing leaves the grid
      ASSERT_EQ(m.layer, layer_of.at(m.dst))
          << schedule << ": a " << sim::name(m.kind) << " message to tile " << m.dst;
    }
    EXPECT_EQ(t.layers, setup.placement.blocks.size()) << schedule;
  }
}

// A forward message that carries tangent streams is counted as two messages on one route, the primal and
// its tangent bytes (kind `tangent`). The receiver may use the values only once all of their bytes are in:
// with finite links the primal, which the receiver acts on, arrives no earlier than its tangent bytes.
TEST(MessageTraceRecorder, ValuesWithTangentsAreUsedOnlyOnceTheTangentBytesAreIn) {
  for (const char* schedule : {"forward-gradient", "split-fg"}) {
    const sim::Config config = testing_support::config_with(
        {"--model.widths=11,13,9,7", "--mapping.block=2x3", "--step.tokens=9", "--step.wavefront=4",
         "--fg.tangents=5", "--splitfg.split=2", "--machine.link_bytes_per_cycle=2", "--sim.arith=none"});
    const workloads::RunSetup setup = workloads::setup_from_config(config);
    MessageTraceRecorder recorder;
    workloads::run_schedule(setup, config, schedule, {.observer = &recorder});
    // Each shadow has its primal: the same route, wavefront and departure, another kind.
    std::map<std::tuple<std::uint32_t, sim::TileId, sim::TileId, std::uint32_t, sim::Cycle>,
             std::vector<const MessageRecord*>>
        by_route;
    for (const MessageRecord& m : recorder.data().messages)
      if (m.phase == sim::Phase::forward) by_route[{m.step, m.src, m.dst, m.wavefront, m.sent}].push_back(&m);
    std::size_t shadows = 0;
    for (const auto& [key, messages] : by_route)
      for (const MessageRecord* shadow : messages) {
        if (shadow->kind != MessageKind::tangent) continue;
        ++shadows;
        const auto primal = std::find_if(messages.begin(), messages.end(), [](const MessageRecord* m) {
          return m->kind != MessageKind::tangent;
        });
        ASSERT_NE(primal, messages.end()) << schedule;
        EXPECT_GE((*primal)->delivered, shadow->delivered) << schedule << ": " << sim::name((*primal)->kind);
      }
    EXPECT_GT(shadows, 0u) << schedule;
  }
}

class TraceWriterTest : public testing::ScratchDirTest {
 protected:
  static TraceData small_trace() {
    TraceData t;
    t.layers = 2;
    t.messages.push_back({.sent = 1,
                          .delivered = 4,
                          .bytes = 16,
                          .src = sim::kHostTile,
                          .dst = 2,
                          .hops = 3,
                          .layer = 0,
                          .wavefront = 0,
                          .step = 0,
                          .kind = MessageKind::host});
    t.messages.push_back({.sent = 4,
                          .delivered = 6,
                          .bytes = 8,
                          .src = 2,
                          .dst = 3,
                          .hops = 1,
                          .layer = 1,
                          .wavefront = 1,
                          .step = 0,
                          .kind = MessageKind::redistribution,
                          .phase = Phase::backward});
    t.messages.push_back({.sent = 5,
                          .delivered = 7,
                          .bytes = 8,
                          .src = 2,
                          .dst = 3,
                          .hops = 1,
                          .layer = 1,
                          .wavefront = 2,
                          .step = 1,
                          .kind = MessageKind::lane});
    t.stash.push_back(
        {.cycle = 2, .delta_bytes = 32, .layer_bytes = 32, .stash_bytes = 32, .tile = 2, .layer = 1});
    t.stash.push_back(
        {.cycle = 6, .delta_bytes = -32, .layer_bytes = 0, .stash_bytes = 0, .tile = 2, .layer = 1});
    t.steps = {{.step = 0, .start_cycle = 0, .makespan_cycles = 8},
               {.step = 1, .start_cycle = 8, .makespan_cycles = 9}};
    return t;
  }
};

TEST_F(TraceWriterTest, WritesTheDocumentedTables) {
  const TraceData t = small_trace();
  {
    Hdf5File file(path("t.h5"));
    write_trace(file, "/runs/backprop", t);
    file.commit();
  }
  H5::H5File in(path("t.h5"), H5F_ACC_RDONLY);
  const H5::Group trace = in.openGroup("/runs/backprop/trace");
  EXPECT_EQ(testing::read_attribute<std::uint64_t>(trace, "host_tile", H5::PredType::NATIVE_UINT64),
            sim::kHostTile);
  EXPECT_EQ(testing::read_attribute<std::uint64_t>(trace, "layers", H5::PredType::NATIVE_UINT64), 2u);

  const H5::Group messages = trace.openGroup("messages");
  EXPECT_EQ(testing::read_string_array_attribute(messages, "columns"),
            (std::vector<std::string>{"step", "cycle_sent", "cycle_delivered", "src", "dst", "bytes", "hops",
                                      "kind", "phase", "layer", "wavefront"}));
  const auto u64 = [&](const H5::Group& g, const std::string& column) {
    return testing::read_all<std::uint64_t>(g.openDataSet(column), H5::PredType::NATIVE_UINT64);
  };
  EXPECT_EQ(u64(messages, "step"), (std::vector<std::uint64_t>{0, 0, 1}));
  EXPECT_EQ(u64(messages, "cycle_delivered"), (std::vector<std::uint64_t>{4, 6, 7}));
  EXPECT_EQ(u64(messages, "src"), (std::vector<std::uint64_t>{sim::kHostTile, 2, 2}));
  EXPECT_EQ(u64(messages, "wavefront"), (std::vector<std::uint64_t>{0, 1, 2}));
  EXPECT_EQ(testing::read_fixed_strings(messages.openDataSet("kind")),
            (std::vector<std::string>{"host", "redistribution", "lane"}));
  EXPECT_EQ(testing::read_fixed_strings(messages.openDataSet("phase")),
            (std::vector<std::string>{"forward", "backward", "forward"}));
  EXPECT_EQ(testing::read_string_attribute(messages.openDataSet("cycle_sent"), "unit"), "cycles");
  EXPECT_EQ(testing::read_string_attribute(messages.openDataSet("hops"), "unit"), "hops");

  const H5::Group stash = trace.openGroup("stash");
  EXPECT_EQ(u64(stash, "stash_bytes"), (std::vector<std::uint64_t>{32, 0}));
  EXPECT_EQ(testing::read_all<std::int64_t>(stash.openDataSet("delta_bytes"), H5::PredType::NATIVE_INT64),
            (std::vector<std::int64_t>{32, -32}));
  EXPECT_EQ(testing::read_string_array_attribute(stash, "columns"),
            (std::vector<std::string>{"step", "cycle", "tile", "layer", "delta_bytes", "layer_bytes",
                                      "stash_bytes"}));
  EXPECT_EQ(u64(trace.openGroup("steps"), "start_cycle"), (std::vector<std::uint64_t>{0, 8}));
}

TEST_F(TraceWriterTest, ChromeTraceIsValidJsonWithNonOverlappingTracks) {
  if (const std::string why = testing_support::python_missing({"json"}); !why.empty()) GTEST_SKIP() << why;
  TraceData t = small_trace();
  // Overlapping messages on one layer must land on different tracks.
  t.messages.push_back({.sent = 4, .delivered = 9, .bytes = 1, .src = 1, .dst = 2, .hops = 1, .layer = 1});
  write_chrome_trace(path("t.json"), {{"backprop", &t}, {"forward", &t}});
  EXPECT_EQ(dir_entries(), (std::vector<std::string>{"t.json"}));
  // The check: it parses; every X slice of a track ends before the next begins; names and counters.
  const std::string check = R"(
import json, collections, sys
d = json.load(open("t.json"))
ev = d["traceEvents"]
tracks = collections.defaultdict(list)
for e in ev:
    if e["ph"] == "X":
        tracks[(e["pid"], e["tid"])].append((e["ts"], e["ts"] + e["dur"]))
for k, v in tracks.items():
    v.sort()
    assert all(a[1] <= b[0] for a, b in zip(v, v[1:])), (k, v)
names = {e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "process_name"}
assert names == {"backprop", "forward"}, names
threads = {e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name" and e["pid"] == 1}
assert threads == {"steps", "layer 0", "layer 1", "layer 1 #2"}, threads
msgs = [e for e in ev if e["ph"] == "X" and e["tid"] != 0 and e["pid"] == 1]
assert len(msgs) == 4 and msgs[0]["args"]["src"] == "host" and msgs[2]["ts"] == 8 + 5, msgs
counters = [e for e in ev if e["ph"] == "C" and e["name"] == "stash bytes" and e["pid"] == 1]
assert [c["args"]["stash"] for c in counters][:2] == [32, 0], counters
print("ok")
)";
  std::ofstream(path("check.py")) << check;
  const auto r = testing_support::run_in(m_dir, std::string(testing_support::kPython) + " check.py");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "ok\n");
}

TEST_F(TraceWriterTest, ChromeTraceFailureLeavesNoFile) {
  const TraceData t = small_trace();
  EXPECT_THROW(write_chrome_trace(path("missing/t.json"), {{"forward", &t}}), OutputError);
  EXPECT_TRUE(dir_entries().empty());
}

}  // namespace
}  // namespace spatialsim::analysis
