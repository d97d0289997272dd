// Which tile tells a checkpoint to restart (docs/model.md section 7, "An episode"): when dL/dY reaches the
// last layer of a segment, one output column of that layer sends a b_p-byte signal (kind scalar, phase
// recompute) to each lane entry of the segment's first layer, where the checkpoint waits. The column is
// fixed before the run: the one whose signals travel the fewest hops in all, the lowest index on a tie, so
// that which tile signals (and so the byte-hops and the depth) does not depend on which column's dL/dY
// arrives first.
// Expected: from the placement's coordinates (an input), the hops written here (|dx| + |dy|, the shorter
// way round each dimension on a torus), never Grid::hops. The placements are chosen so that columns tie
// (a block across the torus from the checkpoint), and the test requires that a tie occurs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <ostream>
#include <string>
#include <vector>

#include "tests/workloads/network_test_support.h"

namespace spatialsim::workloads {
namespace {

// Every restart signal of the step: its source and destination tiles.
class Signals : public StepObserver {
 public:
  std::vector<sim::Message> sent;
  void begin_step(std::uint32_t /*step*/) override {}
  void end_step(std::uint32_t /*step*/, const sim::Counters& /*counters*/) override {}
  void on_send(const sim::Message& m, sim::Cycle /*depart*/, sim::Cycle /*arrive*/,
               std::uint32_t /*hops*/) override {
    if (m.kind == sim::MessageKind::scalar && m.phase == sim::Phase::recompute) sent.push_back(m);
  }
};

struct Case {
  const char* name;
  std::vector<std::string> overrides;
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.name;
}

class CheckpointRestartColumn : public testing::TestWithParam<Case> {};

TEST_P(CheckpointRestartColumn, IsTheNearestOutputColumnLowestIndexOnATie) {
  std::vector<std::string> overrides = {"--sim.arith=none"};
  overrides.insert(overrides.end(), GetParam().overrides.begin(), GetParam().overrides.end());
  const sim::Config config = testing_support::config_with(overrides);
  const RunSetup setup = setup_from_config(config);
  Signals signals;
  run_schedule(setup, config, "checkpoint", {.observer = &signals});
  ASSERT_FALSE(signals.sent.empty());

  const bool torus = setup.topology == sim::Topology::torus;
  const auto along = [&](std::int32_t a, std::int32_t b, std::int32_t n) {
    const std::int32_t d = std::abs(a - b);
    return torus ? std::min(d, n - d) : d;
  };
  const auto hops = [&](sim::Coord a, sim::Coord b) {
    return along(a.x, b.x, static_cast<std::int32_t>(setup.grid_width)) +
           along(a.y, b.y, static_cast<std::int32_t>(setup.grid_height));
  };
  const auto tile = [&](sim::Coord c) {
    return static_cast<sim::TileId>(c.y) * setup.grid_width + static_cast<sim::TileId>(c.x);
  };
  const auto& blocks = setup.placement.blocks;
  std::uint32_t ties = 0;
  for (const sim::Message& m : signals.sent) {
    // The signal's group is the checkpoint's layer; its source, an output tile of the segment's last layer.
    const mappings::BlockLayout& from = blocks[m.group];
    std::uint32_t target = blocks.size();
    for (std::uint32_t l = m.group; l < blocks.size() && target == blocks.size(); ++l)
      for (std::uint32_t j = 0; j < blocks[l].cols; ++j)
        if (tile(blocks[l].output_tile(j)) == m.src) target = l;
    ASSERT_LT(target, blocks.size()) << "signal from tile " << m.src << " is on no output row";
    const mappings::BlockLayout& to = blocks[target];
    std::vector<std::int64_t> total(to.cols, 0);
    for (std::uint32_t j = 0; j < to.cols; ++j)
      for (std::uint32_t i = 0; i < from.rows; ++i) total[j] += hops(to.output_tile(j), from.lane_entry(i));
    const auto best = std::min_element(total.begin(), total.end());  // the first of the least
    if (std::count(total.begin(), total.end(), *best) > 1) ++ties;
    EXPECT_EQ(m.src, tile(to.output_tile(static_cast<std::uint32_t>(best - total.begin()))))
        << "layer " << target << " to checkpoint layer " << m.group << ", wavefront " << m.serial;
  }
  EXPECT_GT(ties, 0u) << "no tie in this case: it cannot tell the lowest index from another";
}

INSTANTIATE_TEST_SUITE_P(
    Placements, CheckpointRestartColumn,
    // On a torus 14 tiles round, rowmajor puts layer 2's 3-column block at x = 6..8, across from the
    // checkpoint's lane entries at x = 0: columns 0 and 2 are both 6 hops away round the ring, column 1
    // is 7 (totals 13, 15, 13 on 2 x 3 blocks; 21, 24, 21 on 3 x 3). Segments of 3 layers make layer 2
    // a segment's last, restarting layer 0's checkpoint; the other episodes have a single nearest column.
    testing::Values(
        Case{"torus14_2x3",
             {"--model.widths=9,13,11,7,10,8", "--mapping.block=2x3", "--mapping.placement=rowmajor",
              "--machine.topology=torus", "--mapping.grid=14x4", "--checkpoint.segment=3"}},
        Case{"torus14_3x3",
             {"--model.widths=9,13,11,7,10,8,5", "--mapping.block=3x3", "--mapping.placement=rowmajor",
              "--machine.topology=torus", "--mapping.grid=14x6", "--checkpoint.segment=3"}}),
    [](const testing::TestParamInfo<Case>& p) { return std::string(p.param.name); });

}  // namespace
}  // namespace spatialsim::workloads
