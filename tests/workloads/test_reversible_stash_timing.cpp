// The reversible schedule's own stash (docs/reversible.md, docs/model.md's SRAM table, reversible rows) when
// computing takes time (machine.flops_per_cycle > 0): each change is dated by the computation that makes or
// reads the value, not by the message that started that computation. On the home tile of a_k (b_k), output
// tile j of F_k (G_k), column j of wavefront g holds b_a T_g n_j bytes (n_j: column j's share of h = d / 2):
//  - a_L, b_L (the trunk's last output) are stored from the cycle their skip addition is done, which is the
//    cycle the forward product of F_L (G_L) on that tile ends (or the skip's last piece arrives, if later):
//    the same cycle the value leaves its home for its consumers (Engine::store_at), and mostly later than
//    the arrival of the message that completed the product's inputs (it still has to be computed);
//  - a_k, b_k for k < L (reconstructed) are stored when their last piece comes home (docs/model.md);
//  - every one is released at its subtraction, a_{k-1} = a_k - F_k(b_{k-1}) (b_{k-1} = b_k - G_k(a_k)),
//    at max(the value is home, the recomputed F_k (G_k) column is made): the cycle the result leaves for
//    a_{k-1}'s (b_{k-1}'s) home (Engine::release_at). a_1's result, a_0, is sent nowhere: its release is
//    only bounded below.
// Expectations come from the run's own trace of messages (when a value leaves or comes home) and are
// compared with the trace of stash changes; the message that triggers each change is traced too, to show
// that in these cases the two datings differ. Sizes are odd and ragged; activation identity, so that F and
// G keep no Z (it would have the home value's size on the same tile), and sizes chosen so that the
// recompute's X on the output tile never has a home value's size (asserted).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "tests/workloads/layout_formulas.h"
#include "tests/workloads/network_test_support.h"

namespace spatialsim::workloads {
namespace {

using testing_support::split_sizes;

// Every message (with its departure and arrival) and every stash change of the step.
class Trace : public StepObserver {
 public:
  struct Send {
    sim::Message message;
    sim::Cycle depart, arrive;
  };
  struct Change {
    sim::Cycle at;
    std::int64_t bytes;
    auto operator<=>(const Change&) const = default;
  };
  std::vector<Send> sends;
  std::map<std::pair<sim::TileId, std::uint32_t>, std::vector<Change>> stash;  // (tile, group label)
  void begin_step(std::uint32_t /*step*/) override {}
  void end_step(std::uint32_t /*step*/, const sim::Counters& /*counters*/) override {}
  void on_send(const sim::Message& m, sim::Cycle depart, sim::Cycle arrive, std::uint32_t /*hops*/) override {
    sends.push_back({m, depart, arrive});
  }
  void on_storage(sim::TileId tile, sim::StorageCategory category, std::int64_t delta_bytes,
                  std::uint32_t group, sim::Cycle now) override {
    if (category == sim::StorageCategory::stash) stash[{tile, group}].push_back({now, delta_bytes});
  }
};

std::ostream& operator<<(std::ostream& os, const Trace::Change& ch) {
  return os << ch.bytes << "@" << ch.at;
}

struct Case {
  const char* name;
  std::uint32_t depth, width, tokens, wavefront;
  std::vector<std::string> overrides;  // the block, machine and model sizes beyond these
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.name;
}

class ReversibleStashTiming : public testing::TestWithParam<Case> {};

TEST_P(ReversibleStashTiming, EachChangeIsDatedByTheComputationThatMakesOrReadsTheValue) {
  const Case& c = GetParam();
  std::vector<std::string> o = {"--model.kind=reversible",
                                "--model.depth=" + std::to_string(c.depth),
                                "--model.width=" + std::to_string(c.width),
                                "--step.tokens=" + std::to_string(c.tokens),
                                "--step.wavefront=" + std::to_string(c.wavefront),
                                "--model.activation=identity",
                                "--sim.arith=none"};
  o.insert(o.end(), c.overrides.begin(), c.overrides.end());
  const sim::Config config = testing_support::config_with(o);
  const RunSetup setup = setup_from_config(config);
  Trace trace;
  run_schedule(setup, config, "reversible", {.observer = &trace});

  const auto& blocks = setup.placement.blocks;  // entry, F_1, G_1, ..., F_L, G_L, exit
  const std::uint32_t L = c.depth, h = c.width / 2;
  const std::uint64_t b_a = setup.bytes.activation;
  std::vector<std::uint64_t> T;  // tokens per wavefront
  for (std::uint32_t left = c.tokens; left > 0; left -= std::min(left, c.wavefront))
    T.push_back(std::min(left, c.wavefront));
  const auto tile_at = [&](sim::Coord x) {
    return static_cast<sim::TileId>(x.y) * setup.grid_width + static_cast<sim::TileId>(x.x);
  };
  const auto tiles_of = [&](std::uint32_t l) {
    std::set<sim::TileId> s;
    for (std::uint32_t i = 0; i < blocks[l].rows; ++i)
      for (std::uint32_t j = 0; j < blocks[l].cols; ++j) s.insert(tile_at(blocks[l].coord(i, j)));
    return s;
  };
  // The messages of wavefront g with `tile` as source (or destination), in `phase`, passing `keep`.
  const auto cycles = [&](bool from, sim::TileId tile, std::uint32_t g, sim::Phase phase, auto keep) {
    std::vector<sim::Cycle> out;
    for (const Trace::Send& s : trace.sends)
      if ((from ? s.message.src : s.message.dst) == tile && s.message.serial == g &&
          s.message.phase == phase && keep(s.message))
        out.push_back(from ? s.depart : s.arrive);
    std::sort(out.begin(), out.end());
    return out;
  };
  const auto any = [](const sim::Message&) { return true; };
  const auto redistribution = [](const sim::Message& m) {
    return m.kind == sim::MessageKind::redistribution;
  };

  // Expected changes per (home tile, home layer); a_1's releases are only bounded below.
  struct Bounded {
    std::int64_t bytes;
    sim::Cycle from;
  };
  std::map<std::pair<sim::TileId, std::uint32_t>, std::vector<Trace::Change>> expected;
  std::map<std::pair<sim::TileId, std::uint32_t>, std::vector<Bounded>> bounded;
  std::map<std::pair<sim::TileId, std::uint32_t>, std::set<std::int64_t>> home_sizes;
  std::uint32_t stores_after_trigger = 0, releases_after_trigger = 0;
  for (std::uint32_t k = 1; k <= L; ++k) {
    for (const bool is_a : {true, false}) {
      const std::uint32_t home = is_a ? 2 * k - 1 : 2 * k;  // F_k or G_k
      const mappings::BlockLayout& b = blocks[home];
      const auto n = split_sizes(h, b.cols);
      // The recompute of F_k (G_k) stashes X[:, I_out] on its output tiles under the same label.
      const std::uint32_t x_features = split_sizes(h, b.rows)[b.output_row()];
      const std::set<sim::TileId> next = k < L ? tiles_of(home + 2) : std::set<sim::TileId>{};
      // a_{k-1}'s home, b_{k-1}'s (b_0's: the entry layer's); a_0 has none.
      const std::set<sim::TileId> previous = home >= 2 ? tiles_of(home - 2) : std::set<sim::TileId>{};
      for (std::uint32_t j = 0; j < b.cols; ++j) {
        const sim::TileId H = tile_at(b.output_tile(j));
        const std::pair key{H, home};
        for (std::uint32_t g = 0; g < T.size(); ++g) {
          const auto B = static_cast<std::int64_t>(b_a * T[g] * n[j]);
          home_sizes[key].insert(B);
          for (std::uint64_t t : T)
            ASSERT_NE(b_a * t * x_features, static_cast<std::uint64_t>(B)) << "X and a home value alike";
          const std::string where = std::string(is_a ? "a_" : "b_") + std::to_string(k) + " col " +
                                    std::to_string(j) + " wf " + std::to_string(g);

          // Stored: a_L, b_L when they leave home in the forward pass; the others on coming home.
          if (k == L) {
            const auto leave = cycles(true, H, g, sim::Phase::forward, redistribution);
            ASSERT_FALSE(leave.empty()) << where;
            ASSERT_EQ(leave.front(), leave.back()) << where;
            expected[key].push_back({leave.front(), B});
            // The last input (lane, partial sum or skip piece) reached the tile at `trigger`.
            const sim::Cycle trigger = cycles(false, H, g, sim::Phase::forward, any).back();
            EXPECT_LE(trigger, leave.front()) << where;
            if (trigger < leave.front()) ++stores_after_trigger;
          } else {
            const auto pieces = cycles(false, H, g, sim::Phase::recompute, [&](const sim::Message& m) {
              return m.kind == sim::MessageKind::redistribution && next.contains(m.src);
            });
            ASSERT_FALSE(pieces.empty()) << where;
            expected[key].push_back({pieces.back(), B});
          }

          // Released at the subtraction. What reached the tile last before it (the reconstructed
          // value's last piece, or the recompute's lane or partial sum) came at `trigger`.
          const sim::Cycle trigger = cycles(false, H, g, sim::Phase::recompute, any).back();
          if (is_a && k == 1) {
            bounded[key].push_back({-B, trigger});
            continue;
          }
          const auto result = cycles(true, H, g, sim::Phase::recompute, [&](const sim::Message& m) {
            return m.kind == sim::MessageKind::redistribution && previous.contains(m.dst);
          });
          ASSERT_FALSE(result.empty()) << where;
          ASSERT_EQ(result.front(), result.back()) << where;
          expected[key].push_back({result.front(), -B});
          EXPECT_LE(trigger, result.front()) << where;
          if (trigger < result.front()) ++releases_after_trigger;
        }
      }
    }
  }

  for (auto& [key, want] : expected) {
    std::vector<Trace::Change> got;
    for (const Trace::Change& ch : trace.stash[key])
      if (home_sizes[key].contains(std::abs(ch.bytes))) got.push_back(ch);
    std::sort(got.begin(), got.end());
    // a_1's releases: any cycle from their lower bound on, matched greedily (latest bound first).
    auto& loose = bounded[key];
    std::sort(loose.begin(), loose.end(), [](const Bounded& x, const Bounded& y) { return x.from > y.from; });
    for (const Bounded& r : loose) {
      const auto it = std::find_if(got.rbegin(), got.rend(), [&](const Trace::Change& ch) {
        return ch.bytes == r.bytes && ch.at >= r.from;
      });
      if (it == got.rend()) {
        ADD_FAILURE() << "tile " << key.first << ": no release of " << -r.bytes << " bytes from " << r.from;
        continue;
      }
      got.erase(std::next(it).base());
    }
    std::sort(want.begin(), want.end());
    EXPECT_EQ(got, want) << "tile " << key.first << ", layer " << key.second;
  }
  // Else this case could not tell a change dated by its computation from one dated by its trigger.
  EXPECT_GT(stores_after_trigger, 0u);
  EXPECT_GT(releases_after_trigger, 0u);
}

INSTANTIATE_TEST_SUITE_P(
    Sizes, ReversibleStashTiming,
    testing::Values(
        // h = 9 on 2x4 blocks: rows 5, 4, columns 3, 2, 2, 2; wavefronts of 3, 3, 1 tokens.
        Case{"d18_L3_2x4",
             3,
             18,
             7,
             3,
             {"--model.inputs=7", "--model.outputs=5", "--mapping.block=2x4", "--machine.act_bytes=3",
              "--machine.flops_per_cycle=3"}},
        // h = 7 on 1x3 blocks (no partial sums: the output tile is the whole column); 2, 2, 1 tokens.
        Case{"d14_L2_1x3",
             2,
             14,
             5,
             2,
             {"--model.inputs=9", "--model.outputs=4", "--mapping.block=1x3", "--machine.act_bytes=2",
              "--machine.flops_per_cycle=5"}}),
    [](const testing::TestParamInfo<Case>& p) { return std::string(p.param.name); });

}  // namespace
}  // namespace spatialsim::workloads
