// Depth (MODEL.md section 3) against time. With one cycle per hop, links without contention, compute that
// takes no time and one wavefront injected at cycle 0, nothing ever waits except for its inputs, so every
// value is computed at the cycle equal to its depth stamp (the longest chain of hops behind it) and the
// step's depth equals its makespan. A stamp that misses one of a value's inputs breaks the equality.
#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

#include "tests/test_names.h"
#include "tests/workloads/network_test_support.h"

namespace spatialsim::workloads {
namespace {

using testing_support::run_with;

struct DepthCase {
  std::string schedule;
  std::vector<std::string> options;
};

void PrintTo(const DepthCase& c, std::ostream* out) {
  *out << c.schedule;
  for (const std::string& o : c.options) *out << ' ' << o;
}

class DepthEqualsTime : public ::testing::TestWithParam<DepthCase> {};

TEST_P(DepthEqualsTime, OneWavefrontsDepthIsItsMakespan) {
  const DepthCase& c = GetParam();
  std::vector<std::string> options = {"--step.tokens=5", "--step.wavefront=5", "--sim.arith=none"};
  options.insert(options.end(), c.options.begin(), c.options.end());
  const RunResult r = run_with(options, c.schedule);
  EXPECT_GT(r.counters.depth, 0u);
  EXPECT_EQ(r.counters.depth, r.counters.makespan_cycles);
}

// Odd sizes on blocks that do not divide them; recomputation from checkpoints several layers back.
const std::vector<std::string> kMlp = {"--model.widths=9,14,11,8,7,5", "--mapping.block=2x3",
                                       "--model.loss=cross-entropy"};

std::vector<std::string> mlp_with(std::vector<std::string> extra) {
  extra.insert(extra.begin(), kMlp.begin(), kMlp.end());
  return extra;
}

INSTANTIATE_TEST_SUITE_P(
    Schedules, DepthEqualsTime,
    ::testing::Values(DepthCase{"forward", mlp_with({})}, DepthCase{"backprop", mlp_with({})},
                      DepthCase{"backprop", mlp_with({"--backprop.xstash=rebroadcast"})},
                      DepthCase{"checkpoint", mlp_with({"--checkpoint.segment=2"})},
                      DepthCase{"checkpoint",
                                mlp_with({"--checkpoint.segment=3", "--mapping.placement=rowmajor"})},
                      DepthCase{"revolve", mlp_with({"--revolve.slots=1"})},
                      DepthCase{"revolve", mlp_with({"--revolve.slots=2"})},
                      DepthCase{"forward-gradient", mlp_with({"--fg.tangents=2"})},
                      DepthCase{"split-fg", mlp_with({"--fg.tangents=2", "--splitfg.split=2"})},
                      DepthCase{"reversible",
                                {"--model.kind=reversible", "--model.inputs=7", "--model.width=10",
                                 "--model.depth=3", "--model.outputs=5", "--mapping.block=2x3"}}),
    [](const ::testing::TestParamInfo<DepthCase>& test) {
      std::string name = test.param.schedule;
      for (const std::string& o : test.param.options)
        if (o.find("segment") != std::string::npos || o.find("slots") != std::string::npos ||
            o.find("xstash") != std::string::npos || o.find("placement") != std::string::npos)
          name.append("_").append(o.substr(o.find('=') + 1));
      return testing_support::gtest_name(name);
    });

// By hand: two layers of 4 on 1x1 blocks (tiles 0 and 1 of a 1x2 grid), one checkpointed segment of both.
// The input reaches tile 0 over 1 host hop (stamp 1) and layer 1's input is one hop on (2); the loss on
// tile 1 gives layer 1's dY at 2. Layer 1's stash must be rebuilt first: the restart signal goes back to
// layer 0 (3), which recomputes and sends layer 1 its input again (4). dZ of layer 1 needs that Z, so it
// is at 4 too, and its dX reaches layer 0 at 5, where layer 0's dW is the step's last value.
TEST(DepthEqualsTime, CheckpointRecomputationByHand) {
  const RunResult r = run_with({"--model.widths=4,4,4", "--mapping.block=1x1", "--checkpoint.segment=2",
                                "--step.tokens=1", "--step.wavefront=1", "--sim.arith=none"},
                               "checkpoint");
  EXPECT_EQ(r.counters.makespan_cycles, 5u);
  EXPECT_EQ(r.counters.depth, 5u);
}

}  // namespace
}  // namespace spatialsim::workloads
