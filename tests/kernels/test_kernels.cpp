// Fidelity tests of the kernels: byte-hops and depth against the closed forms of docs/kernels.md, computed
// here from the formulas alone (no tree, no routing), results against exact values, makespan against the
// lower bound, and validate() against bad grids.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/i_kernel.h"
#include "kernels/kernel_runner.h"
#include "sim/config.h"

namespace spatialsim::kernels {
namespace {

using sim::Topology;
using u64 = std::uint64_t;

const std::vector<std::string> kTreeKernels = {
    "broadcast-chain", "broadcast-tree", "reduce-chain", "reduce-tree", "allreduce-reduce-broadcast",
    "allreduce-centre"};
const std::vector<std::string> kSquareKernels = {"transpose", "cannon"};

std::unique_ptr<Kernel> make(const std::string& name) {
  return KernelRegistry::create(name, sim::Config{});
}

// ---- Closed forms (docs/kernels.md) -------------------------------------------------------------------

// S(n): element-hops of a binomial (recursive halving) broadcast along a line of n tiles from one end,
// sum over bit positions k of 2^k x (number of tiles whose distance from the root has lowest set bit k).
u64 binomial_line_energy(u64 n) {
  if (n <= 1) return 0;
  u64 sum = 0;
  for (u64 p = 1; p < n; p *= 2) sum += p * ((n - 1 + p) / (2 * p));
  return sum;
}

// The segments a line of n tiles splits into at its root (lengths, root included in each).
std::vector<u64> segments(u64 n, bool split_at_root) {
  if (!split_at_root) return {n};
  return {n / 2 + 1, (n + 1) / 2};
}

struct Expected {
  u64 element_hops = 0;
  std::uint32_t depth = 0;
};

// Tree collectives: row of the root, then every column. `split` is true for a centre root or a torus.
Expected tree_form(bool binomial, bool split, u64 w, u64 h) {
  const auto line_energy = [&](u64 n) {
    u64 e = 0;
    for (u64 len : segments(n, split)) e += binomial ? binomial_line_energy(len) : len - 1;
    return e;
  };
  const auto line_depth = [&](u64 n) {
    const auto s = segments(n, split);
    return *std::max_element(s.begin(), s.end()) - 1;
  };
  return {line_energy(w) + w * line_energy(h), static_cast<std::uint32_t>(line_depth(w) + line_depth(h))};
}

// Transpose, and Cannon's skew (the same sum): sum over i, j of the distance from column j to column i.
u64 all_pairs_ring_energy(u64 m, bool torus) {
  return torus ? 2 * m * (m * m / 4) : 2 * (m * m * m - m) / 3;
}
u64 cannon_shift_energy(u64 m, bool torus) {
  return torus ? 2 * m * m * (m - 1) : 4 * m * (m - 1) * (m - 1);
}
std::uint32_t cannon_depth(u64 m, bool torus) {
  if (m == 1) return 0;
  return static_cast<std::uint32_t>(torus ? m / 2 + m - 1 : 3 * m - 4);
}

Expected expected_for(const std::string& kernel, u64 w, u64 h, Topology topo) {
  const bool torus = topo == Topology::torus;
  if (kernel == "broadcast-chain" || kernel == "reduce-chain") return tree_form(false, torus, w, h);
  if (kernel == "broadcast-tree" || kernel == "reduce-tree") return tree_form(true, torus, w, h);
  if (kernel == "allreduce-reduce-broadcast" || kernel == "allreduce-centre") {
    const Expected one_way = tree_form(true, torus || kernel == "allreduce-centre", w, h);
    return {2 * one_way.element_hops, 2 * one_way.depth};
  }
  if (kernel == "transpose")
    return {all_pairs_ring_energy(w, torus), static_cast<std::uint32_t>(torus ? 2 * (w / 2) : 2 * (w - 1))};
  if (kernel == "cannon")
    return {all_pairs_ring_energy(w, torus) + cannon_shift_energy(w, torus), cannon_depth(w, torus)};
  ADD_FAILURE() << "no closed form for " << kernel;
  return {};
}

TEST(ClosedForm, BinomialLineEnergyIsTheSumOfLowestSetBits) {
  // The receiving tile at distance i hears from distance i & (i - 1): the message travels lowbit(i).
  for (u64 n = 1; n < 70; ++n) {
    u64 direct = 0;
    for (u64 i = 1; i < n; ++i) direct += i & (~i + 1);
    EXPECT_EQ(binomial_line_energy(n), direct) << n;
  }
  EXPECT_EQ(binomial_line_energy(8), 12u);  // (n / 2) log2 n for a power of two
}

// ---- Kernels x grids x topologies ---------------------------------------------------------------------

struct Case {
  std::string kernel;
  std::uint32_t width;
  std::uint32_t height;
  Topology topology;
};

std::string case_name(const Case& c) {
  return c.kernel + " on a " + std::to_string(c.width) + "x" + std::to_string(c.height) + " " +
         std::string(sim::name(c.topology));
}

// Every grid and topology `kernel` runs on. A test per kernel walks them all, naming each case in its
// failures: each case is a few hundred events, so one process per case (ctest's unit) spent far longer
// starting up than testing.
std::vector<Case> cases_of(const std::string& kernel) {
  const std::vector<std::pair<std::uint32_t, std::uint32_t>> grids = {
      {1, 1}, {2, 3}, {3, 2}, {5, 5}, {4, 7}, {7, 4}, {8, 8}, {1, 6}, {6, 1}, {2, 2}, {3, 3}, {6, 6}, {9, 9}};
  const bool square_only =
      std::find(kSquareKernels.begin(), kSquareKernels.end(), kernel) != kSquareKernels.end();
  std::vector<Case> cases;
  for (Topology topo : {Topology::mesh, Topology::torus}) {
    for (auto [w, h] : grids)
      if (!square_only || w == h) cases.push_back({kernel, w, h, topo});
  }
  return cases;
}

std::string kernel_test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string n = info.param;
  std::replace(n.begin(), n.end(), '-', '_');
  return n;
}

class KernelFidelity : public ::testing::TestWithParam<std::string> {};

TEST_P(KernelFidelity, MatchesClosedFormAndComputesTheRightValues) {
  for (const Case& c : cases_of(GetParam())) {
    SCOPED_TRACE(case_name(c));
    const Expected e = expected_for(c.kernel, c.width, c.height, c.topology);
    constexpr u64 kBytes = 3;  // not 1, so that byte-hops and element-hops differ
    auto kernel = make(c.kernel);
    const KernelResult r = run_kernel(*kernel, {.width = c.width,
                                                .height = c.height,
                                                .topology = c.topology,
                                                .element_bytes = kBytes,
                                                .hop_latency = 2});
    EXPECT_TRUE(r.check_passed);
    EXPECT_EQ(r.element_hops, e.element_hops);
    EXPECT_EQ(r.byte_hops, kBytes * e.element_hops);
    EXPECT_EQ(r.counters.byte_hops.phase_total(sim::Phase::forward), r.byte_hops);  // all in phase forward
    EXPECT_EQ(r.depth, e.depth);
    EXPECT_GE(r.makespan_cycles, r.bound.cycles);
    EXPECT_EQ(r.bound.cycles, 2u * e.depth);  // unlimited bandwidth: only the latency of the depth counts
    if (c.kernel != "cannon") {
      // Every tile acts as soon as its last input arrives, so the depth chain alone sets the time. Cannon's
      // tiles also wait for their neighbours' steps, which the depth stamp (data dependence) leaves out.
      EXPECT_EQ(r.makespan_cycles, 2u * e.depth);
    }
  }
}

TEST_P(KernelFidelity, FiniteBandwidthKeepsCountsAndRespectsTheLowerBound) {
  for (const Case& c : cases_of(GetParam())) {
    SCOPED_TRACE(case_name(c));
    const Expected e = expected_for(c.kernel, c.width, c.height, c.topology);
    for (u64 bandwidth : {1u, 2u, 8u}) {
      auto kernel = make(c.kernel);
      const KernelResult r = run_kernel(*kernel, {.width = c.width,
                                                  .height = c.height,
                                                  .topology = c.topology,
                                                  .element_bytes = 4,
                                                  .link_bytes_per_cycle = bandwidth});
      EXPECT_TRUE(r.check_passed) << bandwidth;
      EXPECT_EQ(r.element_hops, e.element_hops) << bandwidth;
      EXPECT_EQ(r.depth, e.depth) << bandwidth;  // depth counts hops, not time
      EXPECT_GE(r.makespan_cycles, r.bound.cycles) << bandwidth;
      EXPECT_EQ(r.bound.byte_hops, r.byte_hops);
      EXPECT_LE(r.bound.average_link_term, r.bound.busiest_link_term);
      EXPECT_LE(r.bound.longest_route_hops, r.bound.depth);
    }
  }
}

std::vector<std::string> all_kernels() {
  std::vector<std::string> all = kTreeKernels;
  all.insert(all.end(), kSquareKernels.begin(), kSquareKernels.end());
  return all;
}

INSTANTIATE_TEST_SUITE_P(OnEveryGridAndTopology, KernelFidelity, ::testing::ValuesIn(all_kernels()),
                         kernel_test_name);

TEST(Cannon, SkewIsRedistributionShiftsAreLaneAndEveryMultiplyAddIsCounted) {
  for (Topology topo : {Topology::mesh, Topology::torus}) {
    for (std::uint32_t m : {1u, 2u, 5u, 8u}) {
      auto kernel = make("cannon");
      const KernelResult r =
          run_kernel(*kernel, {.width = m, .height = m, .topology = topo, .element_bytes = 1});
      const bool torus = topo == Topology::torus;
      EXPECT_EQ(r.counters.byte_hops.kind_total(sim::MessageKind::redistribution),
                all_pairs_ring_energy(m, torus));
      EXPECT_EQ(r.counters.byte_hops.kind_total(sim::MessageKind::lane), cannon_shift_energy(m, torus));
      EXPECT_EQ(r.counters.total_flops(), 2u * m * m * m);
    }
  }
}

// With finite bandwidth the skew's messages queue on the links and some tiles get operands several steps
// before they use them (up to 8 steps ahead on this torus): those wait beyond the two-step ring. The
// figures are the ones the kernel gave when it kept a slot for every step.
TEST(Cannon, OperandsThatArriveStepsEarlyKeepTheFigures) {
  struct Pinned {
    Topology topology;
    u64 byte_hops;
    u64 depth;
    u64 makespan;
  };
  for (const Pinned& p : {Pinned{Topology::mesh, 68480, 44, 160}, Pinned{Topology::torus, 38912, 23, 162}}) {
    auto kernel = make("cannon");
    const KernelResult r = run_kernel(
        *kernel,
        {.width = 16, .height = 16, .topology = p.topology, .element_bytes = 4, .link_bytes_per_cycle = 1});
    EXPECT_TRUE(r.check_passed);
    EXPECT_EQ(r.byte_hops, p.byte_hops);
    EXPECT_EQ(r.depth, p.depth);
    EXPECT_EQ(r.makespan_cycles, p.makespan);
    EXPECT_EQ(r.events, 8160u);  // 2 m^2 - 2 m skew messages + 2 m^2 (m - 1) shifts
  }
}

TEST(AllreduceCentre, BeatsReduceBroadcastOnAMeshAndTiesOnATorus) {
  for (auto [w, h] : {std::pair{8u, 8u}, std::pair{4u, 7u}}) {
    for (Topology topo : {Topology::mesh, Topology::torus}) {
      auto corner = make("allreduce-reduce-broadcast");
      auto centre = make("allreduce-centre");
      const KernelResult a = run_kernel(*corner, {.width = w, .height = h, .topology = topo});
      const KernelResult b = run_kernel(*centre, {.width = w, .height = h, .topology = topo});
      if (topo == Topology::mesh) {
        EXPECT_LT(b.depth, a.depth);
        EXPECT_LE(b.byte_hops, a.byte_hops);  // equal when both sides are powers of two
      } else {
        EXPECT_EQ(b.depth, a.depth);
        EXPECT_EQ(b.byte_hops, a.byte_hops);
      }
    }
  }
}

// ---- Registry and validation --------------------------------------------------------------------------

TEST(KernelRegistry, HoldsEveryKernelUnderItsName) {
  for (const auto& names : {kTreeKernels, kSquareKernels}) {
    for (const auto& n : names) {
      ASSERT_TRUE(KernelRegistry::contains(n)) << n;
      auto kernel = make(n);
      EXPECT_EQ(kernel->name(), n);
      EXPECT_EQ(kernel->description(), KernelRegistry::all().at(n).description);
    }
  }
}

TEST(KernelValidate, RejectsZeroGridsEverywhereAndNonSquareGridsForMatrixKernels) {
  for (const auto& [n, entry] : KernelRegistry::all()) {
    auto kernel = make(n);
    for (auto [w, h] : {std::pair{0u, 0u}, std::pair{0u, 3u}, std::pair{3u, 0u}})
      EXPECT_THROW(kernel->validate({w, h}), std::invalid_argument) << n;
    EXPECT_THROW(run_kernel(*kernel, {.width = 0, .height = 4}), std::invalid_argument) << n;
    const bool square_only =
        std::find(kSquareKernels.begin(), kSquareKernels.end(), n) != kSquareKernels.end();
    if (square_only) {
      EXPECT_THROW(kernel->validate({4, 7}), std::invalid_argument) << n;
      EXPECT_NO_THROW(kernel->validate({5, 5})) << n;
    } else {
      EXPECT_NO_THROW(kernel->validate({4, 7})) << n;
    }
  }
  try {
    make("cannon")->validate({4, 7});
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("cannon"), std::string::npos);
    EXPECT_NE(what.find("4x7"), std::string::npos);
    EXPECT_EQ(what.find('\n'), std::string::npos);  // one line
  }
  auto kernel = make("reduce-tree");
  EXPECT_THROW(run_kernel(*kernel, {.width = 2, .height = 2, .element_bytes = 0}), std::invalid_argument);
}

TEST(KernelValidate, CannonRefusesGridsBeyondItsMemoryLimitInOneLine) {
  auto kernel = make("cannon");
  EXPECT_NO_THROW(kernel->validate({1182, 1182}));  // 1152 bytes a tile, 1.5 GiB in all
  for (std::uint32_t m : {1183u, 2048u}) {
    try {
      kernel->validate({m, m});
      ADD_FAILURE() << m;
    } catch (const std::invalid_argument& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("the largest mapping.grid it allows is 1182x1182"), std::string::npos) << what;
      EXPECT_EQ(what.find('\n'), std::string::npos);  // one line
    }
  }
}

// Cannon's 2 m^3 deliveries take minutes on the largest grids it allows: from 384x384 on it says so before
// it starts (a 1182x1182 run was silent for some 20 minutes); no other kernel runs that long.
TEST(KernelValidate, CannonAnnouncesALongRun) {
  auto cannon = make("cannon");
  EXPECT_EQ(cannon->long_run_note({383, 383}), "");
  const std::string note = cannon->long_run_note({1182, 1182});
  EXPECT_NE(note.find("1182x1182"), std::string::npos) << note;
  EXPECT_NE(note.find("3.3e+09 message deliveries: about 20 minutes"), std::string::npos) << note;
  EXPECT_NE(cannon->long_run_note({384, 384}).find("about 42 s"), std::string::npos);
  for (const auto& [n, entry] : KernelRegistry::all()) {
    if (n != "cannon") {
      EXPECT_EQ(make(n)->long_run_note({2048, 2048}), "") << n;
    }
  }
}

TEST(KernelRunner, CountsUsableLinks) {
  EXPECT_EQ(usable_links(1, 1, Topology::mesh), 0u);
  EXPECT_EQ(usable_links(4, 7, Topology::mesh), 7u * 6 + 4u * 12);
  EXPECT_EQ(usable_links(4, 7, Topology::torus), 7u * 8 + 4u * 14);
  EXPECT_EQ(usable_links(2, 3, Topology::torus), 3u * 2 + 2u * 6);
}

}  // namespace
}  // namespace spatialsim::kernels
