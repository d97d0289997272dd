#include <gtest/gtest.h>

#include <limits>
#include <memory>
#include <vector>

#include "sim/engine.h"

namespace spatialsim::sim {
namespace {

// A harness program: records what it receives and optionally forwards each message once.
struct Recorder : MessageHandler {
  std::vector<std::pair<Cycle, Message>> received;
  void on_message(Engine& engine, const Message& m) override { received.emplace_back(engine.now(), m); }
};

TEST(Engine, DeliversInCycleThenInsertionOrder) {
  Grid grid(4, 3, Topology::mesh);
  Engine engine(grid, MachineTiming{});
  Recorder rec;
  engine.set_handler(&rec);
  // Two messages arriving at the same cycle keep their send order; a nearer one arrives first.
  engine.send({.src = 0, .dst = grid.tile_id(3, 0), .bytes = 8, .port = 1}, 0);  // 3 hops
  engine.send({.src = 0, .dst = grid.tile_id(1, 2), .bytes = 8, .port = 2}, 0);  // 3 hops
  engine.send({.src = 0, .dst = grid.tile_id(1, 0), .bytes = 8, .port = 3}, 0);  // 1 hop
  engine.run();
  ASSERT_EQ(rec.received.size(), 3u);
  EXPECT_EQ(rec.received[0].second.port, 3u);
  EXPECT_EQ(rec.received[0].first, 1u);
  EXPECT_EQ(rec.received[1].second.port, 1u);
  EXPECT_EQ(rec.received[2].second.port, 2u);
  EXPECT_EQ(rec.received[2].first, 3u);
  EXPECT_EQ(engine.counters().events, 3u);
}

TEST(Engine, CountsByteHopsByPhaseAndKindAndStampsDepth) {
  Grid grid(5, 5, Topology::mesh);
  Engine engine(grid, MachineTiming{});
  Recorder rec;
  engine.set_handler(&rec);
  engine.send({.src = grid.tile_id(0, 0),
               .dst = grid.tile_id(4, 3),
               .bytes = 10,
               .kind = MessageKind::psum,
               .phase = Phase::backward,
               .depth = 5},
              0);
  engine.send({.src = 7, .dst = 7, .bytes = 100, .kind = MessageKind::lane}, 0);  // to self: 0 hops
  engine.run();
  engine.finish();
  const Counters& c = engine.counters();
  EXPECT_EQ(c.byte_hops.at(Phase::backward, MessageKind::psum), 70u);
  EXPECT_EQ(c.byte_hops.at(Phase::forward, MessageKind::lane), 0u);
  EXPECT_EQ(c.bytes.at(Phase::forward, MessageKind::lane), 100u);
  EXPECT_EQ(c.byte_hops.total(), 70u);
  EXPECT_EQ(c.depth, 12u);  // 5 + 7 hops
  EXPECT_EQ(c.makespan_cycles, 7u);
}

TEST(Engine, HopLatencyScalesArrival) {
  Grid grid(6, 1, Topology::mesh);
  Engine engine(grid, MachineTiming{.hop_latency = 3});
  Recorder rec;
  engine.set_handler(&rec);
  engine.send({.src = 0, .dst = 5, .bytes = 1}, 2);
  engine.run();
  ASSERT_EQ(rec.received.size(), 1u);
  EXPECT_EQ(rec.received[0].first, 2u + 5u * 3u);
}

TEST(Engine, FiniteBandwidthSerializesMessagesSharingALink) {
  // Two 10-byte messages over the same two links at 4 bytes/cycle: each occupies a link 3 cycles.
  Grid grid(3, 1, Topology::mesh);
  Engine engine(grid, MachineTiming{.hop_latency = 1, .link_bytes_per_cycle = 4});
  Recorder rec;
  engine.set_handler(&rec);
  engine.send({.src = 0, .dst = 2, .bytes = 10, .port = 1}, 0);
  engine.send({.src = 0, .dst = 2, .bytes = 10, .port = 2}, 0);
  engine.run();
  ASSERT_EQ(rec.received.size(), 2u);
  // First: head crosses link 0 at 0, link 1 at 1, arrives 2, tail 3 cycles later.
  EXPECT_EQ(rec.received[0].first, 5u);
  // Second waits for link 0 until 3, link 1 is free at 4 (busy 1..4), head arrives 5, tail at 8.
  EXPECT_EQ(rec.received[1].first, 8u);
}

// A message to its own tile crosses no link, so it has nothing to serialize on: it arrives when it
// departs, with finite bandwidth as without (it took ceil(bytes / bw) cycles: a checkpoint's restart
// signal to a lane entry on its own output tile arrived a cycle late; found by an independent audit).
TEST(Engine, AMessageToItsOwnTileTakesNoTimeWithFiniteBandwidth) {
  Grid grid(3, 1, Topology::mesh);
  Engine engine(grid, MachineTiming{.hop_latency = 2, .link_bytes_per_cycle = 4});
  Recorder rec;
  engine.set_handler(&rec);
  engine.send({.src = 1, .dst = 1, .bytes = 10}, 3);
  engine.run();
  ASSERT_EQ(rec.received.size(), 1u);
  EXPECT_EQ(rec.received[0].first, 3u);
  EXPECT_EQ(engine.counters().byte_hops.total(), 0u);
}

TEST(Engine, ComputeOccupiesTheTileAndCountsFlops) {
  Grid grid(1, 1, Topology::mesh);
  Engine engine(grid, MachineTiming{.flops_per_cycle = 10});
  EXPECT_EQ(engine.compute(0, 25, Phase::forward, 0), 3u);
  EXPECT_EQ(engine.compute(0, 10, Phase::backward, 1), 4u);  // waits for the first to finish
  EXPECT_EQ(engine.counters().flops[index(Phase::forward)], 25u);
  EXPECT_EQ(engine.counters().total_flops(), 35u);
}

TEST(Engine, ComputeCyclesRoundUpAndAreZeroWithoutARate) {
  EXPECT_EQ((MachineTiming{.flops_per_cycle = 10}.compute_cycles(25)), 3u);
  EXPECT_EQ((MachineTiming{.flops_per_cycle = 10}.compute_cycles(30)), 3u);
  EXPECT_EQ((MachineTiming{.flops_per_cycle = 7}.compute_cycles(1)), 1u);
  EXPECT_EQ((MachineTiming{.flops_per_cycle = 7}.compute_cycles(0)), 0u);
  EXPECT_EQ(MachineTiming{}.compute_cycles(1000), 0u);  // flops_per_cycle = 0: compute takes no time
  // The largest rates still take a cycle for any work: (flops + rate - 1) / rate wrapped to 0 there.
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  EXPECT_EQ((MachineTiming{.flops_per_cycle = kMax}.compute_cycles(5)), 1u);
  EXPECT_EQ((MachineTiming{.flops_per_cycle = kMax - 1}.compute_cycles(kMax)), 2u);
  EXPECT_EQ((MachineTiming{.flops_per_cycle = kMax}.compute_cycles(kMax)), 1u);
}

// The same for a link: a message of any size occupies each link at least a cycle, at any bandwidth.
TEST(Engine, TheLargestBandwidthStillTakesACyclePerMessage) {
  Grid grid(3, 1, Topology::mesh);
  Engine engine(grid, MachineTiming{.hop_latency = 1,
                                    .link_bytes_per_cycle = std::numeric_limits<std::uint64_t>::max()});
  Recorder rec;
  engine.set_handler(&rec);
  engine.send({.src = 0, .dst = 2, .bytes = 10, .port = 1}, 0);
  engine.run();
  ASSERT_EQ(rec.received.size(), 1u);
  EXPECT_EQ(rec.received[0].first, 3u);  // the head two hops, the tail one cycle later
}

TEST(Engine, HostTrafficEntersThroughTheNearestEdge) {
  Grid grid(7, 5, Topology::mesh);
  Engine engine(grid, MachineTiming{});
  Recorder rec;
  engine.set_handler(&rec);
  engine.send({.src = kHostTile, .dst = grid.tile_id(3, 2), .bytes = 4, .kind = MessageKind::host}, 0);
  engine.run();
  EXPECT_EQ(engine.counters().byte_hops.at(Phase::forward, MessageKind::host), 4u * 3u);  // 1 + 2
}

}  // namespace
}  // namespace spatialsim::sim

namespace spatialsim::sim {
namespace {

// Values travel beside the message: readable while it is delivered, shared (not copied), and let go by
// the engine once on_message returns, so that a payload lives no longer than its receiver keeps it.
TEST(Engine, HoldsAPayloadUntilItsMessageIsDelivered) {
  struct Number : Payload {
    explicit Number(int v) : value(v) {}
    int value;
  };
  struct Reader : MessageHandler {
    std::vector<int> seen;      // the value each delivery carried, -1 for none
    std::vector<long> holders;  // owners of that value during its delivery
    std::shared_ptr<const Payload> kept;
    void on_message(Engine& engine, const Message& m) override {
      const PayloadPtr& p = engine.payload(m);
      seen.push_back(p ? static_cast<const Number&>(*p).value : -1);
      holders.push_back(p.use_count());
      if (m.port == 2) kept = p;  // this receiver keeps the second value
      if (m.port == 1)            // and forwards the first one, shared
        engine.send({.src = m.dst, .dst = m.src, .bytes = 4, .port = 3}, engine.now(), p);
    }
  } reader;
  Grid grid(3, 1, Topology::mesh);
  Engine engine(grid, MachineTiming{});
  engine.set_handler(&reader);
  auto first = std::make_shared<const Number>(7);
  std::weak_ptr<const Number> first_alive = first;
  engine.send({.src = 0, .dst = 2, .bytes = 4, .port = 1}, 0, std::move(first));
  engine.send({.src = 0, .dst = 1, .bytes = 4, .port = 2}, 0, std::make_shared<const Number>(9));
  engine.send({.src = 0, .dst = 1, .bytes = 4, .port = 4}, 0);           // no values
  engine.send({.src = 0, .dst = 1, .bytes = 4, .port = 5}, 0, nullptr);  // none either (counting mode)
  engine.run();
  // Delivery order: ports 2, 4, 5 at cycle 1; port 1 at cycle 2; its forward (port 3) at cycle 4.
  EXPECT_EQ(reader.seen, (std::vector<int>{9, -1, -1, 7, 7}));
  EXPECT_EQ(reader.holders, (std::vector<long>{1, 0, 0, 1, 1}));  // only the engine held them
  EXPECT_EQ(reader.kept.use_count(), 1);  // the engine let go of the value the receiver kept
  EXPECT_TRUE(first_alive.expired());     // and of the one nobody kept
}

TEST(Engine, MakespanIncludesComputationAfterTheLastDelivery) {
  struct Worker : MessageHandler {
    void on_message(Engine& engine, const Message&) override {
      engine.compute(0, 100, Phase::forward, engine.now());
    }
  } worker;
  Grid grid(2, 1, Topology::mesh);
  Engine engine(grid, MachineTiming{.flops_per_cycle = 10});
  engine.set_handler(&worker);
  engine.send({.src = 1, .dst = 0, .bytes = 1}, 0);  // arrives at 1, then 10 cycles of work
  engine.run();
  engine.finish();
  EXPECT_EQ(engine.counters().makespan_cycles, 11u);
}

// store_at / release_at: a change for a later cycle (the end of a computation) is made in time order with
// every other change, and observers see it at its own cycle.
TEST(Engine, StorageChangesForLaterCyclesAreMadeInTimeOrder) {
  struct Changes : EngineObserver {
    std::vector<std::pair<Cycle, std::int64_t>> seen;
    void on_storage(TileId, StorageCategory, std::int64_t delta, std::uint32_t, Cycle now) override {
      seen.emplace_back(now, delta);
    }
  } changes;
  struct Worker : MessageHandler {
    void on_message(Engine& engine, const Message& m) override {
      if (m.port == 1) {  // at 1: X in now, read by work that ends at 9; its result exists from 5
        engine.store(0, StorageCategory::stash, 100);
        engine.release_at(0, StorageCategory::stash, 100, 0, 9);
        engine.store_at(0, StorageCategory::stash, 30, 0, 5);
        engine.release_at(0, StorageCategory::stash, 30, 0, 6);
      } else {  // at 7: between the two
        engine.store(1, StorageCategory::stash, 1);
        EXPECT_THROW(engine.store_at(1, StorageCategory::stash, 1, 0, 6), std::logic_error);  // the past
      }
    }
  } worker;
  Grid grid(2, 1, Topology::mesh);
  Engine engine(grid, MachineTiming{.flops_per_cycle = 1});
  engine.set_handler(&worker);
  engine.add_observer(&changes);
  engine.send({.src = 1, .dst = 0, .bytes = 1, .port = 1}, 0);
  engine.send({.src = 0, .dst = 1, .bytes = 1, .port = 2}, 6);
  engine.compute(0, 9, Phase::forward, 0);  // the work that ends at 9 is what sets the makespan
  engine.run();
  engine.finish();
  EXPECT_EQ(changes.seen,
            (std::vector<std::pair<Cycle, std::int64_t>>{{1, 100}, {5, 30}, {6, -30}, {7, 1}, {9, -100}}));
  // 100 over [1, 9), 30 over [5, 6), 1 over [7, 9).
  EXPECT_EQ(engine.counters().inflight_byte_cycles, 100u * 8 + 30u * 1 + 1u * 2);
  EXPECT_EQ(engine.counters().peak_stash_bytes, 130u);
  EXPECT_EQ(engine.counters().makespan_cycles, 9u);
}

}  // namespace
}  // namespace spatialsim::sim
