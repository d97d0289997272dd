// PieceGather, open_gather and close_gather under a small harness: pieces delivered by the engine (or already
// on the tile) are summed into place, the waiting ones are held as transit storage until the last arrives,
// and a wavefront holds a slot of the pool only while one of its gathers is open.
#include <gtest/gtest.h>

#include <vector>

#include "sim/engine.h"
#include "workloads/piece_gather.h"

namespace spatialsim::workloads {
namespace {

using sim::StorageCategory;

constexpr sim::TileId kTile = 4;
constexpr std::uint32_t kTag = 3;

// Gathers a 2 x 5 matrix per lane from the pieces it receives (slot: the piece's first column).
struct LaneGatherer : sim::MessageHandler {
  explicit LaneGatherer(bool arithmetic) : with_values(arithmetic) {}
  bool with_values;
  PieceGathers<double> lanes = mappings::item_slots<PieceGather<double>>(/*wavefronts=*/2, /*count=*/3);
  std::vector<std::uint64_t> held_on_arrival;  // the tile's transit bytes as each piece arrives
  std::vector<Gathered<double>> done;

  void on_message(sim::Engine& engine, const sim::Message& m) override {
    held_on_arrival.push_back(engine.ledger().bytes(kTile, StorageCategory::transit));
    if (open_gather(lanes, m.serial, /*item=*/1)
            .add(engine, m, /*tokens=*/2, /*width=*/5, m.slot, /*expected=*/2, kTile, true, with_values))
      done.push_back(close_gather(engine, lanes, m.serial, 1, kTile, kTag, with_values));
  }
};

sim::Matrix<double> columns(std::uint32_t count, double first) {
  sim::Matrix<double> m(2, count);
  for (std::uint32_t t = 0; t < 2; ++t)
    for (std::uint32_t k = 0; k < count; ++k) m(t, k) = first + 10 * t + k;
  return m;
}

void send_piece(sim::Engine& engine, const sim::Matrix<double>* values, std::uint32_t first_column,
                std::uint32_t depth, sim::Cycle depart) {
  const sim::Message m{.src = 0,
                       .dst = kTile,
                       .bytes = 8 * 2 * (values ? values->cols() : 2),
                       .depth = depth,
                       .group = kTag,
                       .serial = 1,
                       .slot = first_column};
  if (values)
    engine.send(m, depart, mappings::make_values(*values));
  else
    engine.send(m, depart);
}

TEST(PieceGather, TwoMessagesFillTheMatrixAndTheFirstWaitsAsTransit) {
  const sim::Grid grid(3, 3, sim::Topology::mesh);
  sim::Engine engine(grid, sim::MachineTiming{});
  LaneGatherer gatherer(true);
  engine.set_handler(&gatherer);
  const sim::Matrix<double> left = columns(3, 100);
  const sim::Matrix<double> right = columns(2, 200);
  send_piece(engine, &left, 0, 1, 0);
  send_piece(engine, &right, 3, 6, 5);
  engine.run();

  ASSERT_EQ(gatherer.done.size(), 1u);
  const Gathered<double>& x = gatherer.done[0];
  ASSERT_NE(x.values, nullptr);
  for (std::uint32_t t = 0; t < 2; ++t)
    for (std::uint32_t k = 0; k < 5; ++k)
      EXPECT_EQ(x.values->matrix(t, k), k < 3 ? left(t, k) : right(t, k - 3));
  EXPECT_EQ(x.depth, 6u + grid.hops(0, kTile));  // the later piece's, with its hops
  EXPECT_EQ(x.ready, engine.now());
  EXPECT_EQ(gatherer.held_on_arrival, (std::vector<std::uint64_t>{0, 8 * 2 * 3}));  // the first piece waited
  EXPECT_EQ(engine.ledger().bytes(kTile, StorageCategory::transit), 0u);
  EXPECT_EQ(gatherer.lanes.in_use(), 0u);  // the wavefront gave its slot back
  EXPECT_EQ(gatherer.lanes.capacity(), 1u);
}

TEST(PieceGather, CountingModeGathersNoValuesButTheSameStorage) {
  const sim::Grid grid(3, 3, sim::Topology::mesh);
  sim::Engine engine(grid, sim::MachineTiming{});
  LaneGatherer gatherer(false);
  engine.set_handler(&gatherer);
  send_piece(engine, nullptr, 0, 0, 0);
  send_piece(engine, nullptr, 2, 0, 3);
  engine.run();
  ASSERT_EQ(gatherer.done.size(), 1u);
  EXPECT_EQ(gatherer.done[0].values, nullptr);
  EXPECT_EQ(gatherer.held_on_arrival, (std::vector<std::uint64_t>{0, 8 * 2 * 2}));
  EXPECT_EQ(engine.ledger().bytes(kTile, StorageCategory::transit), 0u);
  EXPECT_EQ(gatherer.lanes.in_use(), 0u);
}

TEST(PieceGather, APieceOnTheTileIsAddedAsAMessageWouldBe) {
  const sim::Grid grid(3, 3, sim::Topology::mesh);
  sim::Engine engine(grid, sim::MachineTiming{});
  PieceGather<double> g;
  const sim::Matrix<double> a = columns(2, 1);
  const sim::Matrix<double> b = columns(2, 50);
  EXPECT_FALSE(g.add(engine,
                     GatherPiece<double>{.values = &a, .depth = 4, .ready = 9, .bytes = 32, .tag = kTag}, 2,
                     4, 2, 2, kTile, true));
  EXPECT_EQ(engine.ledger().bytes(kTile, StorageCategory::transit), 32u);
  EXPECT_TRUE(g.add(engine,
                    GatherPiece<double>{.values = &b, .depth = 2, .ready = 7, .bytes = 32, .tag = kTag}, 2, 4,
                    0, 2, kTile, true));
  const Gathered<double> x = g.finish(engine, kTile, kTag, true);
  EXPECT_EQ(engine.ledger().bytes(kTile, StorageCategory::transit), 0u);
  EXPECT_EQ(x.depth, 4u);
  EXPECT_EQ(x.ready, 9u);
  EXPECT_EQ(x.values->matrix(1, 0), b(1, 0));
  EXPECT_EQ(x.values->matrix(1, 3), a(1, 1));
  EXPECT_EQ(g.pieces, 0u);  // empty again
  EXPECT_EQ(g.held_bytes, 0u);
}

// A gather that completes but is not consumed at once (`consumed` false: the reversible program's skip sum
// waiting for the layer's output, a gradient waiting for its recomputation) keeps every piece, the last one
// too, as transit on the tile until finish() releases them: 2 tokens of 3 and then 2 fp64 columns, 48 and
// 32 bytes.
struct WaitingGatherer : sim::MessageHandler {
  PieceGather<double> gather;
  std::vector<bool> complete;
  std::vector<std::uint64_t> held_after;  // the tile's transit bytes after each piece
  void on_message(sim::Engine& engine, const sim::Message& m) override {
    complete.push_back(gather.add(engine, m, /*tokens=*/2, /*width=*/5, m.slot, /*expected=*/2, kTile,
                                  /*consumed=*/false, /*with_values=*/true));
    held_after.push_back(engine.ledger().bytes(kTile, StorageCategory::transit));
  }
};

TEST(PieceGather, ACompleteGatherNotYetConsumedHoldsEveryPieceAsTransit) {
  const sim::Grid grid(3, 3, sim::Topology::mesh);
  sim::Engine engine(grid, sim::MachineTiming{});
  WaitingGatherer gatherer;
  engine.set_handler(&gatherer);
  const sim::Matrix<double> left = columns(3, 100);
  const sim::Matrix<double> right = columns(2, 200);
  send_piece(engine, &left, 0, 1, 0);
  send_piece(engine, &right, 3, 2, 5);
  engine.run();
  EXPECT_EQ(gatherer.complete, (std::vector<bool>{false, true}));
  EXPECT_EQ(gatherer.held_after, (std::vector<std::uint64_t>{8 * 2 * 3, 8 * 2 * (3 + 2)}));
  const Gathered<double> x = gatherer.gather.finish(engine, kTile, kTag, true);
  EXPECT_EQ(engine.ledger().bytes(kTile, StorageCategory::transit), 0u);
  EXPECT_EQ(x.values->matrix(1, 4), right(1, 1));
}

// In a forward-gradient trunk a piece carries the primal and K tangents stacked (1 + K streams) while its
// message counts the primal's bytes only; a piece that waits holds all its streams. With K = 2 the first of
// two 32-byte pieces waits as 3 x 32 bytes, and the second, consumed at once, adds nothing.
struct StreamGatherer : sim::MessageHandler {
  PieceGather<double> gather;
  std::vector<std::uint64_t> held_after;  // the tile's transit bytes after each piece
  void on_message(sim::Engine& engine, const sim::Message& m) override {
    const bool complete = gather.add(engine, m, /*tokens=*/2, /*width=*/4, m.slot, /*expected=*/2, kTile,
                                     /*consumed=*/true, /*with_values=*/false, /*streams=*/3);
    held_after.push_back(engine.ledger().bytes(kTile, StorageCategory::transit));
    if (complete) gather.finish(engine, kTile, kTag, false);
  }
};

TEST(PieceGather, AWaitingPieceHoldsTheBytesOfAllItsStreams) {
  const sim::Grid grid(3, 3, sim::Topology::mesh);
  sim::Engine engine(grid, sim::MachineTiming{});
  StreamGatherer gatherer;
  engine.set_handler(&gatherer);
  send_piece(engine, nullptr, 0, 0, 0);  // 8 * 2 * 2 = 32 bytes of primal
  send_piece(engine, nullptr, 2, 0, 3);
  engine.run();
  EXPECT_EQ(gatherer.held_after, (std::vector<std::uint64_t>{3 * 32, 3 * 32}));
  EXPECT_EQ(engine.ledger().bytes(kTile, StorageCategory::transit), 0u);
}

}  // namespace
}  // namespace spatialsim::workloads
