// The sweep plan: parsing sweep.vary, the cross product, up-front validation of every point, the G >= 2L
// rule, the job hash, thread-count independence and the slope table.
#include "analysis/sweep.h"

#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "tests/analysis/test_sweep_support.h"

namespace spatialsim::analysis {
namespace {

using testing::expect_same_results;
using testing::small_sweep_config;

std::string error_of(const sim::Config& c, std::string* key = nullptr) {
  try {
    plan_sweep(c);
  } catch (const sim::ConfigError& e) {
    if (key != nullptr) *key = e.key();
    return e.what();
  }
  return "";
}

TEST(SweepVary, ParsesKeysValuesAndNumericAxes) {
  const auto axes =
      parse_vary(small_sweep_config(" model.depth = 2, 4 ,8 ;mapping.block=1x1,2x2", "forward"));
  ASSERT_EQ(axes.size(), 2u);
  EXPECT_EQ(axes[0].key, "model.depth");
  EXPECT_EQ(axes[0].values, (std::vector<std::string>{"2", "4", "8"}));
  EXPECT_TRUE(axes[0].numeric);
  EXPECT_EQ(axes[0].numbers, (std::vector<double>{2, 4, 8}));
  EXPECT_EQ(axes[1].key, "mapping.block");
  EXPECT_FALSE(axes[1].numeric);
  EXPECT_TRUE(axes[1].numbers.empty());
  EXPECT_TRUE(parse_vary(small_sweep_config("", "forward")).empty());
}

// Whole numbers are compared exactly: above 2^53 a double reads two seeds as one (9007199254740993 became
// 9007199254740992 and the sweep refused them as "the same number twice").
TEST(SweepVary, WholeNumbersAboveTwoToTheFiftyThreeStayApart) {
  for (const char* vary :
       {"sim.seed=9007199254740992,9007199254740993", "sim.seed=18446744073709551614,18446744073709551615"}) {
    const auto axes = parse_vary(small_sweep_config(vary, "forward"));
    ASSERT_EQ(axes.size(), 1u) << vary;
    EXPECT_EQ(axes[0].values.size(), 2u) << vary;
  }
  EXPECT_NE(error_of(small_sweep_config("sim.seed=9007199254740993,+9007199254740993", "forward"))
                .find("the same number twice"),
            std::string::npos);
  EXPECT_NE(error_of(small_sweep_config("model.depth=-0,0", "forward")).find("the same number twice"),
            std::string::npos);
}

// A bool is not a quantity however it is written: 1,0 had a number column and two "too few points" slopes,
// true,false neither.
TEST(SweepVary, ABoolIsNeverANumericAxis) {
  for (const char* vary : {"model.bias=1,0", "model.bias=true,false"}) {
    const auto axes = parse_vary(small_sweep_config(vary, "forward"));
    ASSERT_EQ(axes.size(), 1u);
    EXPECT_FALSE(axes[0].numeric) << vary;
    EXPECT_TRUE(axes[0].numbers.empty()) << vary;
  }
}

struct BadVary {
  std::string vary;
  std::string message_part;
};

void PrintTo(const BadVary& c, std::ostream* os) {
  *os << "--vary " << c.vary;
}

class SweepVaryRejects : public ::testing::TestWithParam<BadVary> {};

TEST_P(SweepVaryRejects, NamingTheKey) {
  std::string key;
  const std::string message = error_of(small_sweep_config(GetParam().vary, "forward"), &key);
  EXPECT_EQ(key, "sweep.vary");
  EXPECT_NE(message.find(GetParam().message_part), std::string::npos) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(
    Specs, SweepVaryRejects,
    ::testing::Values(BadVary{"model.dpeth=2,4", "unknown key model.dpeth"},
                      BadVary{"model.depth", "must be KEY=V1,V2"}, BadVary{"=2,4", "must be KEY=V1,V2"},
                      BadVary{"model.depth=2,,4", "without empty values"},
                      BadVary{"model.depth=", "without empty values"},
                      BadVary{"model.depth=2,4,2", "lists the value 2 twice"},
                      BadVary{"model.depth=2;model.depth=4", "model.depth is varied twice"},
                      BadVary{"schedule=forward,backprop", "--schedule"},
                      BadVary{"out=a.h5,b.h5", "out cannot be varied"},
                      BadVary{"sim.threads=1,2", "sim.threads cannot be varied"},
                      BadVary{"machine.on_overflow=error,report", "machine.on_overflow cannot be varied"},
                      BadVary{"sweep.resume=true,false", "the sweep's own options"}));

TEST(SweepPlan, ValueThatDoesNotParseFailsBeforeAnythingRunsNamingKeyAndPoint) {
  std::string key;
  const std::string message = error_of(small_sweep_config("model.depth=4,x", "forward"), &key);
  EXPECT_EQ(key, "model.depth");
  EXPECT_NE(message.find("sweep point 2 of 2 (model.depth=x)"), std::string::npos) << message;
  EXPECT_NE(message.find("model.depth = \"x\""), std::string::npos) << message;
}

TEST(SweepPlan, ValueThatDoesNotFitAtOnePointIsFoundUpFront) {
  // A 4x4 block does not fit a 2-wide layer: only the combination fails, and the message says which.
  sim::Config c = small_sweep_config("model.width=16,2;mapping.block=1x1,4x4", "forward");
  std::string key;
  const std::string message = error_of(c, &key);
  EXPECT_EQ(key, "mapping.block");
  EXPECT_NE(message.find("sweep point 4 of 4 (model.width=2, mapping.block=4x4)"), std::string::npos)
      << message;
}

TEST(SweepPlan, UnknownScheduleIsBadInput) {
  std::string key;
  error_of(small_sweep_config("model.depth=2", "forward,nope"), &key);
  EXPECT_EQ(key, "schedule");
  error_of(small_sweep_config("model.depth=2", "forward,forward"), &key);
  EXPECT_EQ(key, "schedule");
}

TEST(SweepPlan, CrossProductLastKeyFastestJobsPointMajor) {
  const SweepPlan plan =
      plan_sweep(small_sweep_config("model.depth=2,3;model.width=8,16,32", "forward,backprop"));
  ASSERT_EQ(plan.points.size(), 6u);
  ASSERT_EQ(plan.jobs.size(), 12u);
  EXPECT_EQ(plan.points[4].values, (std::vector<std::string>{"3", "16"}));
  EXPECT_EQ(plan.points[4].config.raw("model.width"), "16");
  EXPECT_EQ(plan.points[4].config.origin("model.depth"), "sweep");
  EXPECT_EQ(plan.points[4].setup.model.layers(), 3u);
  EXPECT_EQ(plan.jobs[9].point, 4u);
  EXPECT_EQ(plan.jobs[9].schedule, "backprop");
}

TEST(SweepPlan, DepthSweepKeepsThePipelineFull) {
  // T_g = 4, T = 64 (default): G = 16 >= 2L up to L = 8; L = 16 needs T = 2 * 16 * 4 = 128.
  const SweepPlan plan = plan_sweep(small_sweep_config("model.depth=2,8,16", "backprop"));
  EXPECT_EQ(plan.points[0].setup.tokens, 64u);
  EXPECT_FALSE(plan.points[0].tokens_raised);
  EXPECT_EQ(plan.points[1].setup.tokens, 64u);
  EXPECT_FALSE(plan.points[1].tokens_raised);
  EXPECT_EQ(plan.points[2].setup.tokens, 128u);
  EXPECT_TRUE(plan.points[2].tokens_raised);
  EXPECT_EQ(plan.points[2].config.raw("step.tokens"), "128");
}

// G >= 2L - 1 wavefronts fill the pipeline (layer 0's stash lives 2L - 1 layer-latencies), a smaller last
// wavefront counting as one: G = 7 fills L = 4, G = 6 does not (a check of G >= 2L survived every other
// test).
TEST(SweepPlan, PipelineFullFromTwoLMinusOneWavefronts) {
  for (const auto& [tokens, full] : std::vector<std::pair<const char*, bool>>{
           {"28", true}, {"25", true}, {"24", false}, {"21", false}}) {  // T_g = 4: G = 7, 7, 6, 6
    sim::Config config = small_sweep_config("model.depth=4", "backprop");
    config.set("model.depth", "4", "test");
    config.set("step.tokens", tokens, "test");
    config.set("step.wavefront", "4", "test");
    const workloads::RunSetup setup = workloads::setup_from_config(config);
    ASSERT_EQ(setup.model.layers(), 4u);
    EXPECT_EQ(pipeline_full(setup), full) << "step.tokens = " << tokens;
  }
}

TEST(SweepPlan, TokensTheUserFixedAreLeftAlone) {
  sim::Config explicit_tokens = small_sweep_config("model.depth=2,16", "backprop");
  explicit_tokens.set("step.tokens", "64", "command line");
  const SweepPlan a = plan_sweep(explicit_tokens);
  EXPECT_EQ(a.points[1].setup.tokens, 64u);
  EXPECT_FALSE(a.points[1].tokens_raised);

  const SweepPlan b = plan_sweep(small_sweep_config("model.depth=2,16;step.tokens=32,64", "backprop"));
  for (const auto& p : b.points) EXPECT_FALSE(p.tokens_raised);
  EXPECT_EQ(b.points[3].setup.tokens, 64u);

  // Only a depth sweep needs the rule: another key leaves T as configured.
  const SweepPlan c = plan_sweep(small_sweep_config("model.width=8,16", "backprop"));
  for (const auto& p : c.points) EXPECT_FALSE(p.tokens_raised);
}

TEST(SweepPlan, JobHashIgnoresWhereResultsGoButNotWhatTheyAre) {
  sim::Config a = small_sweep_config("model.depth=2", "forward");
  sim::Config b = a;
  b.set("out", "elsewhere.h5", "test");
  b.set("sim.threads", "3", "test");
  b.set("sweep.resume", "true", "test");
  b.set("machine.on_overflow", "error", "test");  // what the command does with overflows, not what it counts
  EXPECT_EQ(job_config_hash(a, "forward"), job_config_hash(b, "forward"));
  EXPECT_NE(job_config_hash(a, "forward"), job_config_hash(a, "backprop"));
  b.set("model.depth", "3", "test");
  EXPECT_NE(job_config_hash(a, "forward"), job_config_hash(b, "forward"));
}

// The hash reads each value as its option does: a resume with 064 for 64 found "other options" and
// refused every stored row.
TEST(SweepPlan, JobHashDoesNotDependOnHowAValueIsWritten) {
  const sim::Config a = small_sweep_config("model.depth=2", "forward");
  for (const auto& [key, spelling] :
       std::vector<std::pair<std::string, std::string>>{{"model.width", "016"},
                                                        {"model.width", "+16"},
                                                        {"model.bias", "yes"},
                                                        {"model.bias", "1"},
                                                        {"mapping.block", "2X2"},
                                                        {"mapping.block", "02x2"},
                                                        {"train.lr", "5e-2"},
                                                        {"train.lr", "0.050"}}) {
    sim::Config b = a;
    b.set(key, spelling, "test");
    EXPECT_EQ(job_config_hash(a, "backprop"), job_config_hash(b, "backprop")) << key << " = " << spelling;
  }
  sim::Config widths = a;
  widths.set("model.widths", "16,16,16", "test");
  sim::Config padded = widths;
  padded.set("model.widths", "16,016,16", "test");
  EXPECT_EQ(job_config_hash(widths, "backprop"), job_config_hash(padded, "backprop"));
  padded.set("model.widths", "16,17,16", "test");
  EXPECT_NE(job_config_hash(widths, "backprop"), job_config_hash(padded, "backprop"));
  for (const auto& [key, other] : std::vector<std::pair<std::string, std::string>>{
           {"model.width", "17"}, {"model.bias", "false"}, {"mapping.block", "2x1"}, {"train.lr", "0.051"}}) {
    sim::Config b = a;  // train.lr changes values only: hashed only when values are computed
    b.set("sim.arith", "fp64", "test");
    sim::Config c = b;
    c.set(key, other, "test");
    EXPECT_NE(job_config_hash(b, "backprop"), job_config_hash(c, "backprop")) << key << " = " << other;
  }
}

// Options that cannot change a job's results and cannot be varied stay out of its hash, so that a resume
// does not refuse identical results: another command's options (a shared config file holds them), the
// checks. Another schedule's options and values-only options in counting mode stay in it: a sweep may vary
// them, and two of its jobs must never share a hash (the point file's name).
TEST(SweepPlan, JobHashLeavesOutWhatCannotChangeTheJob) {
  const sim::Config a = small_sweep_config("model.depth=2", "forward,checkpoint");
  const auto differs = [&](const std::string& key, const std::string& value, const std::string& schedule) {
    sim::Config y = a;
    y.set(key, value, "test");
    return job_config_hash(a, schedule) != job_config_hash(y, schedule);
  };
  EXPECT_FALSE(differs("theory.tokens", "5", "forward"));
  EXPECT_FALSE(differs("kernel.bytes", "3", "forward"));
  EXPECT_FALSE(differs("check_tolerance", "0.5", "forward"));
  EXPECT_TRUE(differs("checkpoint.segment", "2", "forward"));
  EXPECT_TRUE(differs("sim.seed", "3", "forward"));
  EXPECT_TRUE(differs("model.depth", "3", "forward"));
}

// Points that differ only where a job cannot see it still get jobs of their own hash: the forward jobs of
// a checkpoint.segment sweep, the counting-mode jobs of a seed sweep beside fp32 (they shared one point
// file, which two threads could write at once).
TEST(SweepPlan, EveryJobHasItsOwnHash) {
  for (const char* vary : {"checkpoint.segment=1,2", "sim.arith=none,fp32;sim.seed=1,2"}) {
    const SweepPlan plan = plan_sweep(small_sweep_config(vary, "forward,checkpoint"));
    std::set<std::uint64_t> hashes;
    for (const SweepJob& j : plan.jobs) EXPECT_TRUE(hashes.insert(j.config_hash).second) << vary;
  }
}

TEST(SweepRun, ResultsDoNotDependOnTheThreadCount) {
  sim::Config c = small_sweep_config("model.depth=2,3,4,6", "forward,backprop");
  std::vector<std::vector<SweepRow>> results;
  for (const char* threads : {"1", "2"}) {
    c.set("sim.threads", threads, "test");
    const SweepPlan plan = plan_sweep(c);
    std::vector<std::optional<SweepRow>> rows(plan.jobs.size());
    std::vector<std::size_t> finished;
    EXPECT_EQ(run_sweep_jobs(plan, rows, [&](std::size_t job) { finished.push_back(job); }),
              plan.jobs.size());
    EXPECT_EQ(finished.size(), plan.jobs.size());  // every job reported exactly once
    results.emplace_back();
    for (auto& r : rows) results.back().push_back(std::move(r.value()));
  }
  ASSERT_EQ(results[0].size(), results[1].size());
  for (std::size_t j = 0; j < results[0].size(); ++j)
    expect_same_results(results[0][j].metrics, results[1][j].metrics);
}

TEST(SweepRun, PerTokenInflightUsesThePointsTokens) {
  const SweepPlan plan = plan_sweep(small_sweep_config("model.depth=16", "backprop"));
  const SweepRow row = run_sweep_job(plan, 0);
  const double total = find_metric(row.metrics, "inflight_byte_cycles").as_double();
  EXPECT_GT(total, 0);
  EXPECT_EQ(find_metric(row.metrics, "inflight_byte_cycles_per_token").as_double(), total / 128.0);
}

// Rows with one metric, for slope tests without running anything.
std::vector<SweepRow> synthetic_rows(const SweepPlan& plan,
                                     double (*peak)(double depth, const std::string& s)) {
  std::vector<SweepRow> rows;
  for (const SweepJob& j : plan.jobs) {
    std::vector<Metric> m = sweep_metric_schema();
    const double depth = std::stod(plan.points[j.point].values[0]);
    for (Metric& x : m) {
      if (x.name == "peak_stash_bytes") x.value = static_cast<std::uint64_t>(peak(depth, j.schedule));
      if (x.name == "inflight_byte_cycles_per_token") x.value = 0.5 * peak(depth, j.schedule);
    }
    rows.push_back({m, false});
  }
  return rows;
}

TEST(SweepSlopes, QuadraticGivesTwoAndNoStashIsSaid) {
  const SweepPlan plan = plan_sweep(small_sweep_config("model.depth=2,4,8,16", "forward,backprop"));
  const auto rows =
      synthetic_rows(plan, [](double d, const std::string& s) { return s == "forward" ? 0.0 : 3 * d * d; });
  const auto slopes = sweep_slopes(plan, rows);
  ASSERT_EQ(slopes.size(), 4u);  // 2 schedules x 2 metrics
  for (const auto& s : slopes) {
    EXPECT_EQ(s.key, "model.depth");
    EXPECT_EQ(s.at, "");
    if (s.schedule == "forward") {
      EXPECT_EQ(s.status, "no stash");
      EXPECT_FALSE(s.fit);
    } else {
      ASSERT_TRUE(s.fit);
      EXPECT_EQ(s.status, "fit");
      EXPECT_NEAR(s.fit->slope, 2.0, 1e-12);
      EXPECT_EQ(s.fit->points, 4u);
    }
  }
}

TEST(SweepSlopes, PerGroupOfTheOtherKeysAndNoneForTextKeys) {
  const SweepPlan plan = plan_sweep(small_sweep_config("model.depth=2,4;mapping.block=1x1,2x2", "backprop"));
  const auto rows = synthetic_rows(plan, [](double d, const std::string&) { return d * d * d; });
  const auto slopes = sweep_slopes(plan, rows);
  ASSERT_EQ(slopes.size(), 4u);  // depth against 2 blocks x 2 metrics; the block key is not numeric
  EXPECT_EQ(slopes[0].at, "mapping.block=1x1");
  EXPECT_EQ(slopes[2].at, "mapping.block=2x2");
  EXPECT_NEAR(slopes[2].fit->slope, 3.0, 1e-12);

  const SweepPlan text_only = plan_sweep(small_sweep_config("mapping.block=1x1,2x2", "backprop"));
  const std::vector<SweepRow> text_rows(text_only.jobs.size(), SweepRow{sweep_metric_schema(), false});
  EXPECT_TRUE(sweep_slopes(text_only, text_rows).empty());
}

}  // namespace
}  // namespace spatialsim::analysis
