// compare's pure parts: which schedules apply to a model kind, the in-flight slope, the byte-hop baseline
// and seed 000's test on hand-made results (MODEL.md section 7, docs/store-vs-recompute.md).
#include "analysis/compare.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

namespace spatialsim::analysis {
namespace {

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// A result with `forward` byte-hops in the forward phase and `backward` in the backward phase.
workloads::RunResult result(const std::string& schedule, std::uint64_t forward, std::uint64_t backward) {
  workloads::RunResult r;
  r.schedule = schedule;
  r.counters.byte_hops.cells[static_cast<std::size_t>(sim::Phase::forward)][0] = forward;
  r.counters.byte_hops.cells[static_cast<std::size_t>(sim::Phase::backward)][0] = backward;
  return r;
}

TEST(Compare, ApplicableSchedulesFollowTheModelKind) {
  workloads::ModelSpec mlp;
  const auto m = applicable_schedules(mlp);
  for (const char* s : {"forward", "backprop", "checkpoint", "revolve"}) EXPECT_TRUE(contains(m, s)) << s;
  EXPECT_EQ(m.front(), "forward");  // the baseline of the ratio columns comes first
  EXPECT_FALSE(contains(m, "reversible"));
  workloads::ModelSpec rev;
  rev.kind = workloads::ModelKind::reversible;
  EXPECT_EQ(applicable_schedules(rev), (std::vector<std::string>{"forward", "reversible"}));
}

TEST(Compare, SlopeOfAnL2AndAnLSeries) {
  const InflightScaling square = fit_inflight_scaling("backprop", {4, 8, 16}, {48, 192, 768});
  ASSERT_TRUE(square.fit);
  EXPECT_NEAR(square.fit->slope, 2.0, 1e-12);
  const InflightScaling linear = fit_inflight_scaling("reversible", {4, 8}, {10, 20});
  EXPECT_NEAR(linear.fit->slope, 1.0, 1e-12);
  EXPECT_FALSE(fit_inflight_scaling("forward", {4, 8}, {0, 0}).fit);  // no stash: no slope
  EXPECT_FALSE(fit_inflight_scaling("backprop", {4}, {48}).fit);      // one depth: no slope
}

TEST(Compare, BaselineIsBackpropOrElseTwiceForward) {
  const std::vector<workloads::RunResult> mlp{result("forward", 100, 0), result("backprop", 100, 90)};
  EXPECT_EQ(byte_hops_baseline(mlp).name, "backprop");
  EXPECT_DOUBLE_EQ(byte_hops_baseline(mlp).byte_hops, 190);
  const std::vector<workloads::RunResult> rev{result("forward", 100, 0), result("reversible", 130, 120)};
  EXPECT_EQ(byte_hops_baseline(rev).name, "2 x forward");
  EXPECT_DOUBLE_EQ(byte_hops_baseline(rev).byte_hops, 200);
  EXPECT_EQ(byte_hops_baseline({}).name, "");
}

TEST(Compare, SeedTestNeedsSlopeAtMostThresholdAndByteHopsWithin33Percent) {
  const std::vector<workloads::RunResult> results{
      result("forward", 100, 0),       result("backprop", 100, 100),   result("linear_cheap", 130, 130),
      result("linear_dear", 140, 140), result("sqrt_cheap", 110, 110), result("unmeasured", 100, 100)};
  const std::vector<InflightScaling> scaling{
      fit_inflight_scaling("forward", {4, 8}, {0, 0}),
      fit_inflight_scaling("backprop", {4, 8}, {16, 64}),      // slope 2
      fit_inflight_scaling("linear_cheap", {4, 8}, {16, 32}),  // slope 1, 1.3 x backprop
      fit_inflight_scaling("linear_dear", {4, 8}, {16, 32}),   // slope 1, 1.4 x backprop
      fit_inflight_scaling("sqrt_cheap", {4, 16}, {8, 64}),    // slope 1.5 (checkpoint's L^1.5)
  };
  const ByteHopsBaseline baseline = byte_hops_baseline(results);
  const std::vector<Verdict> v = judge_schedules(results, scaling, baseline);
  ASSERT_EQ(v.size(), results.size());
  EXPECT_EQ(v[0].outcome, TestOutcome::not_applicable);  // forward: no backward pass
  EXPECT_EQ(v[1].outcome, TestOutcome::fails);           // backprop itself: L^2
  EXPECT_NEAR(*v[1].inflight_slope, 2.0, 1e-12);
  EXPECT_DOUBLE_EQ(v[1].byte_hops_ratio, 1.0);
  EXPECT_EQ(v[2].outcome, TestOutcome::meets);
  EXPECT_DOUBLE_EQ(v[2].byte_hops_ratio, 1.3);
  EXPECT_EQ(v[3].outcome, TestOutcome::fails);  // 1.4 > 4/3
  EXPECT_NE(v[3].reason.find("> 1.333"), std::string::npos) << v[3].reason;
  EXPECT_EQ(v[4].outcome, TestOutcome::fails);  // slope 1.5 > 1.25
  EXPECT_NE(v[4].reason.find("grows faster than L"), std::string::npos) << v[4].reason;
  EXPECT_EQ(v[5].outcome, TestOutcome::not_applicable);
  EXPECT_NE(v[5].reason.find("not measured"), std::string::npos) << v[5].reason;

  std::ostringstream out;
  write_verdicts(out, scaling, v, baseline);
  EXPECT_NE(out.str().find("linear_cheap meets"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("x backprop"), std::string::npos) << out.str();
}

// Both limits are "at most": a slope of exactly 1.25 and byte-hops of exactly 4/3 of the baseline meet the
// test (a '<' in either survived every other test). 400 / 300 and 4.0 / 3.0 are the same double, and so
// are the fitted slope of {1, 32} over L = {1, 16}, ln 32 / ln 16, and 1.25.
TEST(Compare, TheLimitsThemselvesMeetTheTest) {
  const std::vector<workloads::RunResult> results{result("backprop", 150, 150),
                                                  result("at_limits", 200, 200)};
  const std::vector<InflightScaling> scaling{fit_inflight_scaling("backprop", {4, 8}, {16, 64}),
                                             fit_inflight_scaling("at_limits", {1, 16}, {1, 32})};
  const std::vector<Verdict> v = judge_schedules(results, scaling, byte_hops_baseline(results));
  ASSERT_EQ(v.size(), 2u);
  ASSERT_EQ(*v[1].inflight_slope, kInflightSlopeThreshold);
  ASSERT_EQ(v[1].byte_hops_ratio, kByteHopsAllowance);
  EXPECT_EQ(v[1].outcome, TestOutcome::meets) << v[1].reason;
}

// A value near a threshold is printed, with the threshold, to the digits that tell them apart: rounded to
// the threshold's usual digits it read "slope 1.25 > 1.25" and "1.333 > 1.333".
TEST(Compare, AReasonNeverPrintsAValueEqualToTheThresholdItIsJudgedBy) {
  const std::vector<workloads::RunResult> results{
      result("forward", 10000, 0), result("backprop", 10000, 10000), result("near", 13334, 13334),
      result("below", 13331, 13331)};
  const std::vector<InflightScaling> scaling{
      fit_inflight_scaling("backprop", {4, 8}, {16, 64}),
      fit_inflight_scaling("near", {4, 8}, {16, 16 * std::pow(2.0, 1.2549)}),   // slope 1.2549
      fit_inflight_scaling("below", {4, 8}, {16, 16 * std::pow(2.0, 1.2451)}),  // slope 1.2451
  };
  const std::vector<Verdict> v = judge_schedules(results, scaling, byte_hops_baseline(results));
  ASSERT_EQ(v.size(), 4u);
  EXPECT_EQ(v[2].outcome, TestOutcome::fails);
  EXPECT_NE(v[2].reason.find("(slope 1.255 > 1.250)"), std::string::npos) << v[2].reason;
  EXPECT_NE(v[2].reason.find("byte-hops 1.3334 x backprop > 1.3333"), std::string::npos) << v[2].reason;
  // Just below, as exact: "1.3331 <= 1.333" would look like a value above its limit.
  EXPECT_EQ(v[3].outcome, TestOutcome::meets);
  EXPECT_NE(v[3].reason.find("(slope 1.245 <= 1.250)"), std::string::npos) << v[3].reason;
  EXPECT_NE(v[3].reason.find("byte-hops 1.3331 x backprop <= 1.3333"), std::string::npos) << v[3].reason;
  // Away from the threshold the usual digits stay.
  EXPECT_NE(v[1].reason.find("(slope 2.00 > 1.25)"), std::string::npos) << v[1].reason;
}

// A falling in-flight term is within the threshold, and its reason does not call it ~L (split-fg's
// per-token in-flight fell with L under timed compute and read "in-flight ~L (slope -0.69 <= 1.25)").
TEST(Compare, AFallingInflightTermIsAtMostL) {
  const std::vector<workloads::RunResult> results{result("backprop", 100, 100), result("falling", 110, 110)};
  const std::vector<InflightScaling> scaling{fit_inflight_scaling("backprop", {4, 8}, {16, 64}),
                                             fit_inflight_scaling("falling", {4, 8}, {64, 32})};
  const std::vector<Verdict> v = judge_schedules(results, scaling, byte_hops_baseline(results));
  EXPECT_EQ(v[1].outcome, TestOutcome::meets);
  EXPECT_NE(v[1].reason.find("in-flight at most ~L (slope -1.00 <= 1.25)"), std::string::npos) << v[1].reason;
}

// A schedule that stashes nothing at any depth (forward-gradient) has no slope and needs none: in-flight 0
// is not L^2. It is judged on its byte-hops; a schedule with a stash at one depth only is not judged.
TEST(Compare, NoStashAtAnyDepthIsJudgedOnByteHopsAlone) {
  const std::vector<workloads::RunResult> results{
      result("forward", 100, 0), result("backprop", 100, 100), result("stashless_cheap", 110, 110),
      result("stashless_dear", 240, 242), result("one_stash", 100, 100)};
  const std::vector<InflightScaling> scaling{
      fit_inflight_scaling("forward", {4, 8}, {0, 0}),
      fit_inflight_scaling("backprop", {4, 8}, {16, 64}),
      fit_inflight_scaling("stashless_cheap", {4, 8}, {0, 0}),
      fit_inflight_scaling("stashless_dear", {4, 8, 16}, {0, 0, 0}),
      fit_inflight_scaling("one_stash", {4, 8}, {0, 5}),
  };
  const ByteHopsBaseline baseline = byte_hops_baseline(results);
  const std::vector<Verdict> v = judge_schedules(results, scaling, baseline);
  EXPECT_EQ(v[0].outcome, TestOutcome::not_applicable);  // forward: still no backward pass
  EXPECT_EQ(v[2].outcome, TestOutcome::meets);
  EXPECT_FALSE(v[2].inflight_slope);
  EXPECT_NE(v[2].reason.find("no stash at any depth"), std::string::npos) << v[2].reason;
  EXPECT_EQ(v[3].outcome, TestOutcome::fails);  // 2.41 x backprop, as forward-gradient on the default model
  EXPECT_NEAR(v[3].byte_hops_ratio, 2.41, 1e-12);
  EXPECT_NE(v[3].reason.find("byte-hops 2.410 x backprop > 1.333"), std::string::npos) << v[3].reason;
  EXPECT_EQ(v[4].outcome, TestOutcome::not_applicable);
  EXPECT_NE(v[4].reason.find("fewer than two depths"), std::string::npos) << v[4].reason;
}

}  // namespace
}  // namespace spatialsim::analysis
