// Micro-benchmarks of the engine's event path (docs/performance.md): the event queue alone, and messages
// routed across the grid through Engine::send and Engine::run, latency-only and with link contention.
//
// Usage:
//   build/bench_engine --benchmark_repetitions=5 --benchmark_report_aggregates_only=true

#include <benchmark/benchmark.h>

#include <cstdint>

#include "bench/prepared_main.h"
#include "sim/engine.h"
#include "sim/event_queue.h"
#include "sim/grid.h"

namespace {

using spatialsim::sim::Cycle;
using spatialsim::sim::Engine;
using spatialsim::sim::EventQueue;
using spatialsim::sim::Grid;
using spatialsim::sim::MachineTiming;
using spatialsim::sim::Message;
using spatialsim::sim::MessageHandler;
using spatialsim::sim::Topology;

// A deterministic stream of small delays, as a pipelined run produces (most events land a few cycles out).
std::uint32_t next_delay(std::uint64_t& state) {
  state = state * 6364136223846793005ULL + 1442695040888963407ULL;
  return static_cast<std::uint32_t>(state >> 59);  // 0..31
}

// Hold model: the queue stays at `pending` events; each iteration pops the earliest and pushes one more.
void BM_EventQueuePushPop(benchmark::State& state) {
  const auto pending = static_cast<std::uint32_t>(state.range(0));
  EventQueue<Message> queue;
  std::uint64_t rng = 1;
  for (std::uint32_t k = 0; k < pending; ++k) queue.push(next_delay(rng), Message{.src = k});
  Message message;
  for (auto _ : state) {
    const Cycle cycle = queue.pop(message);
    message.depth += 1;
    queue.push(cycle + next_delay(rng), message);
  }
  state.SetItemsProcessed(state.iterations());  // one pop and one push per item
}
BENCHMARK(BM_EventQueuePushPop)->Arg(64)->Arg(4096)->Arg(262144);

// Every delivered message is forwarded to the next tile of a fixed permutation until `hops_left` runs out,
// so the queue holds `streams` messages at once, like wavefronts moving through a network.
class Forwarder final : public MessageHandler {
 public:
  explicit Forwarder(std::uint32_t tiles) : m_tiles(tiles) {}
  void on_message(Engine& engine, const Message& m) override {
    if (m.slot == 0) return;
    Message next = m;
    next.src = m.dst;
    next.dst = (m.dst * 7919u + 13u) % m_tiles;
    next.slot = m.slot - 1;
    engine.send(std::move(next), engine.now());
  }

 private:
  std::uint32_t m_tiles;
};

void route(benchmark::State& state, std::uint32_t side, std::uint32_t streams, std::uint32_t sends_per_stream,
           std::uint64_t link_bytes_per_cycle) {
  const Grid grid(side, side, Topology::mesh);
  std::uint64_t events = 0;
  for (auto _ : state) {
    Engine engine(grid, MachineTiming{.link_bytes_per_cycle = link_bytes_per_cycle});
    Forwarder forwarder(grid.tile_count());
    engine.set_handler(&forwarder);
    for (std::uint32_t s = 0; s < streams; ++s)
      engine.send(Message{.src = s % grid.tile_count(),
                          .dst = (s * 31u) % grid.tile_count(),
                          .bytes = 512,
                          .slot = sends_per_stream - 1},
                  0);
    engine.run();
    engine.finish();
    events += engine.counters().events;
    benchmark::DoNotOptimize(engine.counters().byte_hops.total());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(events));
  state.counters["events_per_second"] =
      benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
}

// Latency-only links (the default machine): hops are a closed form, no per-link state.
void BM_RouteLatencyOnly(benchmark::State& state) {
  route(state, static_cast<std::uint32_t>(state.range(0)), 1024, 256, 0);
}
// Finite bandwidth: every link of the XY route is reserved, so cost grows with the distance.
void BM_RouteWithContention(benchmark::State& state) {
  route(state, static_cast<std::uint32_t>(state.range(0)), 1024, 256, 64);
}
// The engine alone at the scale of the default backprop run (4x4 mesh, about 48 messages in flight): what
// the event path costs before a program does any work, the floor under the counting-mode event rate
// (docs/performance.md). 1.6 M events per engine, as in the rate run, so that building the engine (its
// queue's buckets grow once per engine) does not count.
void BM_RouteDefaultScale(benchmark::State& state) {
  route(state, 4, 48, 32768, 0);
}
BENCHMARK(BM_RouteLatencyOnly)->Arg(16)->Arg(64)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RouteWithContention)->Arg(16)->Arg(64)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RouteDefaultScale)->Unit(benchmark::kMillisecond);

void BM_GridHops(benchmark::State& state) {
  const Grid grid(64, 64, state.range(0) == 0 ? Topology::mesh : Topology::torus);
  std::uint32_t a = 1;
  std::uint64_t sum = 0;
  for (auto _ : state) {
    a = (a * 7919u + 13u) % grid.tile_count();
    sum += grid.hops(a, (a * 31u) % grid.tile_count());
  }
  benchmark::DoNotOptimize(sum);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_GridHops)->Arg(0)->Arg(1);

}  // namespace

int main(int argc, char** argv) {
  return spatialsim::bench::run_prepared_benchmarks(argc, argv);
}
