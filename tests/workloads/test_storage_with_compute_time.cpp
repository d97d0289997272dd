// In-flight storage when computing takes time (machine.flops_per_cycle > 0, MODEL.md sections 2 and 3): a
// stashed value is held from the cycle it exists until the computation that last reads it has finished,
// not from and until the messages that started those computations arrived. By hand, on one token and 1x1
// blocks at 1 flop per cycle, where every product takes 2 d_in d_out = 32 cycles and a tile does one
// thing at a time; and split-fg's tangents at the split, timed by formula on 1x3 blocks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <vector>

#include "tests/workloads/layout_formulas.h"
#include "tests/workloads/network_test_support.h"

namespace spatialsim::workloads {
namespace {

using testing_support::run_with;

// One layer on tile 0: X (b_a d_in = 8 bytes) arrives over the host hop at 1; X W ends at 33, where the
// loss gives dY; dW = X^T dZ runs from 33 to 65 and reads X until then. The update ends at 97.
TEST(StorageWithComputeTime, XIsHeldUntilItsWeightGradientEnds) {
  const RunResult r =
      run_with({"--model.widths=4,4", "--model.bias=false", "--mapping.block=1x1", "--step.tokens=1",
                "--step.wavefront=1", "--machine.flops_per_cycle=1", "--sim.arith=none"},
               "backprop");
  EXPECT_EQ(r.counters.inflight_byte_cycles, 8u * (65 - 1));
  EXPECT_EQ(r.counters.peak_stash_bytes, 8u);
  EXPECT_EQ(r.counters.makespan_cycles, 97u);
}

// Two relu layers on tiles 0 and 1. Layer 0: X0 at 1, X0 W0 ends at 33, where Z0 exists (stashed for
// relu'); y0 reaches tile 1 at 34. Layer 1: X1 at 34, X1 W1 ends at 66 (the loss's dY there); its dX
// share runs 66..98, then its dW 98..130 (one thing at a time), so X1 is held until 130; dX reaches tile 0
// at 99, where dZ0 = dY0 relu'(Z0) releases Z0, and dW0 runs 99..131. The updates end at 162 and 163.
TEST(StorageWithComputeTime, ZIsHeldFromTheEndOfItsProductUntilItsBackwardStarts) {
  const RunResult r = run_with(
      {"--model.widths=4,4,4", "--model.bias=false", "--model.activation=relu", "--mapping.block=1x1",
       "--step.tokens=1", "--step.wavefront=1", "--machine.flops_per_cycle=1", "--sim.arith=none"},
      "backprop");
  const std::uint64_t x0 = 8 * (131 - 1), z0 = 8 * (99 - 33), x1 = 8 * (130 - 34);
  EXPECT_EQ(r.counters.inflight_byte_cycles, x0 + z0 + x1);
  EXPECT_EQ(r.counters.peak_stash_bytes, 24u);  // all three from 34 to 99
  EXPECT_EQ(r.counters.makespan_cycles, 163u);
}

// The step's stash changes as the engine reports them: (tile, layer label) -> (cycle, signed bytes).
class StashChanges : public StepObserver {
 public:
  struct Change {
    sim::Cycle at;
    std::int64_t bytes;
  };
  std::map<std::pair<sim::TileId, std::uint32_t>, std::vector<Change>> changes;
  void begin_step(std::uint32_t /*step*/) override {}
  void end_step(std::uint32_t /*step*/, const sim::Counters& /*counters*/) override {}
  void on_storage(sim::TileId tile, sim::StorageCategory category, std::int64_t delta_bytes,
                  std::uint32_t group, sim::Cycle now) override {
    if (category == sim::StorageCategory::stash) changes[{tile, group}].push_back({now, delta_bytes});
  }
};

sim::Cycle ceil_div(std::uint64_t flops, std::uint64_t per_cycle) {
  return (flops + per_cycle - 1) / per_cycle;
}

// split-fg's tangents at the split (MODEL.md section 7) with compute time, by hand. Widths 11 -> 13 -> 10 ->
// 7 on 1x3 blocks (one row: every tile is its column's output tile, so no partial sums travel), split S = 2,
// K = 3, T = 5 tokens in one wavefront, b_a = 2, 64 flops per cycle, one hop per cycle; where the blocks sit
// is the placement's (an input). Times, from the injection at 0:
//  - layer 0: X reaches the lane entry over the host's hops and tile j d hops further along the lane; its
//    product (1 + K streams, the input has no tangents) takes ceil(2 T 11 n_j (1 + K) / 64) cycles;
//  - layer 1 (the split layer S - 1) enters when the last of layer 0's pieces reaches its lane entry; its
//    product carries 1 + 2K streams, ceil(2 T 13 n_j (1 + 2K) / 64) cycles. dh_k[:, J_j], K b_a T n_j bytes,
//    exists from the cycle that product ends (Engine::store_at): not from the lane's arrival;
//  - layer 2 (the head, backprop): X stashed on each tile from its arrival; X W, then dX share, then dW, one
//    at a time, ceil(2 T 10 n_j / 64) cycles each; dY = the mse gradient as the product ends (the targets
//    came long before); the dX shares are summed along the row to the lane entry (one hop each), which sends
//    u = dL/dh to layer 1's output tiles; X is released when that tile's dW ends;
//  - at the split, <u, dh_k> takes ceil(2 K T n_j / 64) cycles from u's arrival, and releases dh_k then.
// (Here: dh_k from cycles 94, 81, 82 for columns of 4, 3, 3; 11,220 byte-cycles in all, 600 bytes at the
// peak. Stored when the lane arrives instead, the tangents appear at 37, 38, 39: 25,800 byte-cycles.)
TEST(StorageWithComputeTime, SplitFgTangentsAreHeldFromTheEndOfTheSplitProductUntilTheirSharesEnd) {
  const std::vector<std::string> o = {"--model.widths=11,13,10,7", "--mapping.block=1x3",
                                      "--splitfg.split=2",         "--fg.tangents=3",
                                      "--step.tokens=5",           "--step.wavefront=5",
                                      "--machine.act_bytes=2",     "--machine.flops_per_cycle=64",
                                      "--sim.arith=none"};
  const std::uint64_t K = 3, T = 5, b_a = 2, rate = 64;
  const RunSetup setup = setup_from_config(testing_support::config_with(o));
  const auto& blocks = setup.placement.blocks;
  using testing_support::manhattan;
  const auto along = [&](std::uint32_t l, std::uint32_t j) {
    return manhattan(blocks[l].lane_entry(0), blocks[l].coord(0, j));
  };
  const auto tile = [&](std::uint32_t l, std::uint32_t j) {
    const sim::Coord c = blocks[l].coord(0, j);
    return static_cast<sim::TileId>(c.y) * setup.grid_width + static_cast<sim::TileId>(c.x);
  };
  const auto n0 = testing_support::split_sizes(13, 3), n1 = testing_support::split_sizes(10, 3),
             n2 = testing_support::split_sizes(7, 3);

  // Forward through the trunk.
  const sim::Cycle x0 = testing_support::host_hops(setup, blocks[0].lane_entry(0));
  sim::Cycle x1 = 0;
  for (std::uint32_t j = 0; j < 3; ++j) {
    const sim::Cycle done = x0 + along(0, j) + ceil_div(2 * T * 11 * n0[j] * (1 + K), rate);
    x1 = std::max(x1, done + manhattan(blocks[0].coord(0, j), blocks[1].lane_entry(0)));
  }
  std::vector<sim::Cycle> dh_from(3);
  sim::Cycle x2 = 0;
  for (std::uint32_t j = 0; j < 3; ++j) {
    dh_from[j] = x1 + along(1, j) + ceil_div(2 * T * 13 * n1[j] * (1 + 2 * K), rate);
    x2 = std::max(x2, dh_from[j] + manhattan(blocks[1].coord(0, j), blocks[2].lane_entry(0)));
  }
  // The head: forward, dX shares (summed toward the lane entry), dW.
  std::vector<sim::Cycle> x2_from(3), x2_until(3), share_done(3);
  for (std::uint32_t j = 0; j < 3; ++j) {
    const sim::Cycle product = ceil_div(2 * T * 10 * n2[j], rate);
    x2_from[j] = x2 + along(2, j);
    share_done[j] = x2_from[j] + 2 * product;
    x2_until[j] = x2_from[j] + 3 * product;
  }
  // Each tile adds its share to what came from the tiles behind it in the lane (farther from the entry).
  std::vector<std::uint32_t> order = {0, 1, 2};
  std::sort(order.begin(), order.end(), [&](auto a, auto b) { return along(2, a) > along(2, b); });
  sim::Cycle u = share_done[order[0]];
  for (std::size_t p = 1; p < order.size(); ++p) u = std::max(u + 1, share_done[order[p]]);
  std::vector<sim::Cycle> dh_until(3);
  for (std::uint32_t j = 0; j < 3; ++j)
    dh_until[j] =
        u + manhattan(blocks[2].lane_entry(0), blocks[1].coord(0, j)) + ceil_div(2 * K * T * n1[j], rate);

  StashChanges trace;
  const RunResult r = run_schedule(setup, testing_support::config_with(o), "split-fg", {.observer = &trace});

  // The tangents, labelled with layer S - 1 = 1 on its output tiles: stored once, released once.
  for (std::uint32_t j = 0; j < 3; ++j) {
    const auto bytes = static_cast<std::int64_t>(K * b_a * T * n1[j]);
    const auto& c = trace.changes[{tile(1, j), 1}];
    ASSERT_EQ(c.size(), 2u) << j;
    EXPECT_EQ(c[0].at, dh_from[j]) << j;
    EXPECT_EQ(c[0].bytes, bytes) << j;
    EXPECT_EQ(c[1].at, dh_until[j]) << j;
    EXPECT_EQ(c[1].bytes, -bytes) << j;
  }
  // The whole stash is the tangents and the head's X (b_a T 10 on each tile): its integral and peak, a
  // cycle holding what is held once its changes are made.
  struct Held {
    sim::Cycle from, until;
    std::uint64_t bytes;
  };
  std::vector<Held> held;
  for (std::uint32_t j = 0; j < 3; ++j) {
    held.push_back({dh_from[j], dh_until[j], K * b_a * T * n1[j]});
    held.push_back({x2_from[j], x2_until[j], b_a * T * 10});
  }
  std::uint64_t byte_cycles = 0, peak = 0;
  for (const Held& h : held) byte_cycles += h.bytes * (h.until - h.from);
  for (sim::Cycle at = 0; at <= r.counters.makespan_cycles; ++at) {
    std::uint64_t total = 0;
    for (const Held& h : held)
      if (h.from <= at && at < h.until) total += h.bytes;
    peak = std::max(peak, total);
  }
  EXPECT_EQ(r.counters.inflight_byte_cycles, byte_cycles);
  EXPECT_EQ(r.counters.peak_stash_bytes, peak);
  // The busiest tile: the widest column's tangents (the head's tiles hold b_a T 10 = 100 bytes each).
  EXPECT_EQ(r.counters.peak_tile_stash_bytes, K * b_a * T * n1[0]);
}

}  // namespace
}  // namespace spatialsim::workloads
