// Counts of the forward-gradient schedules that test_forward_gradient.cpp leaves out, each against a formula
// on odd, non-dividing sizes (uneven splits, r != c, a last wavefront smaller than the others):
// - the backward phase's traffic per kind and its messages: split-fg's head runs backprop (dZ down the
//   columns as `lane`, the dX shares along the rows as `psum`, the dX pieces back over the head's layer
//   boundaries as `redistribution`) and returns u = dL/dh over the boundary into the split; both schedules
//   then reduce and broadcast the K scalars d_k over docs/forward-gradients.md's spanning trees, here on
//   trunks that do not fill a rectangle (test_forward_gradient.cpp's TangentScalarTraffic needs one);
// - the FLOPs of every phase (docs/forward-gradients.md, "FLOPs"; docs/model.md section 2).
// Expectations come from MODEL.md section 4's closed forms, tests/workloads/layout_formulas.h (the layer
// geometry, written apart from mappings/) and the trees' rule applied to the placement's coordinates here;
// nothing from mappings/ (split, plan_redistribution, scalar_tree) or the grid's routes. The placement
// (where each block sits and which way it flows) is an input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "tests/test_names.h"
#include "tests/workloads/layout_formulas.h"
#include "tests/workloads/network_test_support.h"

namespace spatialsim::workloads {
namespace {

using sim::MessageKind;
using sim::Phase;
using testing_support::config_with;
using testing_support::manhattan;
using testing_support::run_with;

struct FgCountCase {
  std::string widths, block, placement;
  std::uint32_t tokens, wavefront, tangents, split, steps;
  std::uint32_t act_bytes, psum_bytes;
  std::string loss;
  std::string extra;  // one more override, or empty
};

void PrintTo(const FgCountCase& c, std::ostream* os) {
  *os << c.widths << " on " << c.block << " " << c.placement << " T=" << c.tokens << "/" << c.wavefront
      << " K=" << c.tangents << " S=" << c.split << " steps=" << c.steps << " b_a=" << c.act_bytes
      << " b_p=" << c.psum_bytes << " " << c.loss << " " << c.extra;
}

std::vector<std::string> overrides_of(const FgCountCase& c) {
  std::vector<std::string> o = {"--model.widths=" + c.widths,
                                "--mapping.block=" + c.block,
                                "--mapping.placement=" + c.placement,
                                "--step.tokens=" + std::to_string(c.tokens),
                                "--step.wavefront=" + std::to_string(c.wavefront),
                                "--fg.tangents=" + std::to_string(c.tangents),
                                "--splitfg.split=" + std::to_string(c.split),
                                "--train.steps=" + std::to_string(c.steps),
                                "--machine.act_bytes=" + std::to_string(c.act_bytes),
                                "--machine.psum_bytes=" + std::to_string(c.psum_bytes),
                                "--machine.weight_bytes=4",
                                "--model.loss=" + c.loss,
                                "--sim.arith=none"};
  if (!c.extra.empty()) o.push_back(c.extra);
  return o;
}

class ForwardGradientOddCounts : public ::testing::TestWithParam<FgCountCase> {
 protected:
  void SetUp() override { setup = setup_from_config(config_with(overrides_of(GetParam()))); }
  // The trunk: every layer under forward-gradient, layers 0..S-1 under split-fg.
  std::uint32_t trunk(const std::string& schedule) const {
    return schedule == "split-fg" ? GetParam().split : setup.model.layers();
  }
  RunSetup setup;
};

// Backward phase, per step (T tokens, G wavefronts), for a trunk of S layers (S = L: forward-gradient,
// whose backward phase is the scalars alone):
//   lane            sum over head layers l >= S of b_a T d_out (r - 1), G c (r - 1) messages;
//   psum            sum over l >= S of b_p T d_in (c - 1), G r (c - 1) messages: every head layer sends its
//                   dX back, layer S's being u = dL/dh (S >= 1: never the network's first layer);
//   redistribution  the boundaries l -> l + 1 for S - 1 <= l < L - 1, reversed: the head's own and u's
//                   return to the split layer's output tiles, each piece as far as in the forward pass;
//   scalar          the two trees, K b_p bytes per message;
// and nothing else: no host, rebroadcast or tangent traffic (u is not a tangent stream), no recompute
// phase, and no update traffic.
TEST_P(ForwardGradientOddCounts, BackwardTrafficIsTheHeadsBackpropUsReturnAndTheScalarTrees) {
  const FgCountCase& c = GetParam();
  const testing_support::ForwardTraffic f = testing_support::forward_traffic(setup);
  const std::uint32_t L = setup.model.layers();
  const std::vector<std::uint32_t>& widths = setup.model.widths;
  const std::uint64_t T = c.tokens, G = (c.tokens + c.wavefront - 1) / c.wavefront, K = c.tangents;
  const std::uint64_t b_a = c.act_bytes, b_p = c.psum_bytes, steps = c.steps;
  for (const char* schedule : {"split-fg", "forward-gradient"}) {
    const std::uint32_t S = trunk(schedule);
    testing_support::Traffic lane, psum, redistribution;
    for (std::uint32_t l = S; l < L; ++l) {
      const mappings::BlockLayout& b = setup.placement.blocks[l];
      lane.byte_hops += b_a * T * widths[l + 1] * (b.rows - 1);
      lane.messages += G * b.cols * (b.rows - 1);
      psum.byte_hops += b_p * T * widths[l] * (b.cols - 1);
      psum.messages += G * b.rows * (b.cols - 1);
    }
    for (std::uint32_t l = S - 1; l + 1 < L; ++l) {
      redistribution.byte_hops += T * f.boundary[l].byte_hops;
      redistribution.messages += G * f.boundary[l].messages;
    }
    const testing_support::TreeCount scalars = testing_support::scalar_trees(setup.placement.blocks, S);

    const RunResult r = run_with(overrides_of(c), schedule);
    const auto& hops = r.counters.byte_hops;
    const auto& messages = r.counters.messages;
    EXPECT_EQ(hops.at(Phase::backward, MessageKind::lane), steps * lane.byte_hops) << schedule;
    EXPECT_EQ(messages.at(Phase::backward, MessageKind::lane), steps * lane.messages) << schedule;
    EXPECT_EQ(hops.at(Phase::backward, MessageKind::psum), steps * psum.byte_hops) << schedule;
    EXPECT_EQ(messages.at(Phase::backward, MessageKind::psum), steps * psum.messages) << schedule;
    EXPECT_EQ(hops.at(Phase::backward, MessageKind::redistribution), steps * redistribution.byte_hops)
        << schedule;
    EXPECT_EQ(messages.at(Phase::backward, MessageKind::redistribution), steps * redistribution.messages)
        << schedule;
    EXPECT_EQ(hops.at(Phase::backward, MessageKind::scalar), steps * K * b_p * scalars.hops) << schedule;
    EXPECT_EQ(messages.at(Phase::backward, MessageKind::scalar), steps * scalars.messages) << schedule;
    EXPECT_EQ(hops.phase_total(Phase::backward),
              steps * (lane.byte_hops + psum.byte_hops + redistribution.byte_hops + K * b_p * scalars.hops))
        << schedule << ": another kind travels backward";
    EXPECT_EQ(hops.phase_total(Phase::recompute), 0u) << schedule;
    EXPECT_EQ(messages.phase_total(Phase::update), 0u) << schedule;
  }
}

// FLOPs per phase, per step, with F_l = 2 T d_in d_out (one multiply-add per weight and token) and P the
// parameters (weights and biases) of a range of layers:
// - forward: a trunk layer runs [X; dX_1..dX_K] W and adds X V_k, (1 + 2K) F_l, except layer 0, whose
//   input has no tangents, (1 + K) F_0; a head layer (split-fg) is a plain forward pass, F_l.
//   forward-gradient adds the loss's shares <dL/dY, dY_k>, 2 K T d_L, in this phase (it has no backward
//   pass);
// - backward: the estimate, 2 K per trunk parameter; split-fg adds the head's backprop, dX (every head
//   layer, u included) and dW, 2 F_l each, and the shares <u, dh_k> at the split, 2 K T d_S;
// - recompute: none; update (sgd): one multiply-add per parameter, 2 P.
TEST_P(ForwardGradientOddCounts, FlopsPerPhaseAreTheClosedForms) {
  const FgCountCase& c = GetParam();
  const std::uint32_t L = setup.model.layers();
  const std::vector<std::uint32_t>& widths = setup.model.widths;
  const std::uint64_t T = c.tokens, K = c.tangents, steps = c.steps;
  auto F = [&](std::uint32_t l) { return 2 * T * widths[l] * widths[l + 1]; };
  auto parameters = [&](std::uint32_t first, std::uint32_t last) {
    std::uint64_t p = 0;
    for (std::uint32_t l = first; l < last; ++l)
      p += std::uint64_t{widths[l]} * widths[l + 1] + widths[l + 1];
    return p;
  };
  for (const char* schedule : {"split-fg", "forward-gradient"}) {
    const std::uint32_t S = trunk(schedule);
    std::uint64_t forward = 0, backward = 2 * K * parameters(0, S);
    for (std::uint32_t l = 0; l < L; ++l) {
      if (l >= S) {
        forward += F(l);
        backward += 2 * F(l);
      } else {
        forward += (l == 0 ? 1 + K : 1 + 2 * K) * F(l);
      }
    }
    if (S == L)
      forward += 2 * K * T * widths[L];
    else
      backward += 2 * K * T * widths[S];
    const RunResult r = run_with(overrides_of(c), schedule);
    const auto& flops = r.counters.flops;
    EXPECT_EQ(flops[sim::index(Phase::forward)], steps * forward) << schedule;
    EXPECT_EQ(flops[sim::index(Phase::backward)], steps * backward) << schedule;
    EXPECT_EQ(flops[sim::index(Phase::recompute)], 0u) << schedule;
    EXPECT_EQ(flops[sim::index(Phase::update)], steps * 2 * parameters(0, L)) << schedule;
  }
}

INSTANTIATE_TEST_SUITE_P(
    OddSizes, ForwardGradientOddCounts,
    ::testing::Values(
        // test_forward_gradient.cpp's kSramOdd shape: 2x3 blocks (uneven row and column splits), S = 2; the
        // trunk's two blocks turn a corner (an L-shaped tree, some edges longer than one hop); 5 wavefronts,
        // the last of 3 tokens; b_p = 3 apart from b_a = 2; two steps.
        FgCountCase{"11,13,10,7,9", "2x3", "zigzag", 23, 5, 3, 2, 2, 2, 3, "mse", ""},
        // 3x2 blocks in rowmajor cells (boundaries of several hops), a head of two layers, cross-entropy
        // (its log-sum-exp chain is forward traffic: the backward phase and the FLOPs do not change).
        FgCountCase{"9,7,12,5,8,6", "3x2", "rowmajor", 17, 4, 2, 3, 1, 3, 2, "cross-entropy", ""},
        // One row per block: no dZ travels (r - 1 = 0); a trunk of layer 0 alone (S = 1), K = 4.
        FgCountCase{"10,9,11,6", "1x3", "zigzag", 11, 4, 4, 1, 1, 2, 4, "mse", ""},
        // Two pipeline stages: the trunk's layer 0 shares its tiles with the head's layer 1, and
        // forward-gradient's broadcast reaches each of the 12 tiles once though they hold two layers.
        FgCountCase{"11,13,10,7,9", "2x3", "zigzag", 19, 6, 3, 1, 1, 2, 3, "mse", "--mapping.stages=2"}),
    [](const auto& param_info) {
      const FgCountCase& c = param_info.param;
      return testing_support::gtest_name(c.block + "_" + c.placement + "_S" + std::to_string(c.split) + "_" +
                                         c.loss + (c.extra.empty() ? "" : "_stages2"));
    });

}  // namespace
}  // namespace spatialsim::workloads
