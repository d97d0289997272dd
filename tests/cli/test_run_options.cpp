// What a run reads (cli/run_options.h): the options that change only the values a run computes leave
// every count of a counting-mode run as it is, which is why `run` refuses them there (test_bad_input.cpp);
// an option a run ignores is refused naming its value and where it came from.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "cli/run_options.h"
#include "tests/cli/binary_run_fixture.h"
#include "tests/workloads/network_test_support.h"

namespace spatialsim::cli {
namespace {

using testing_support::config_with;
using testing_support::run_with;

// Every schedule whose counts one of the options could plausibly reach, on odd sizes, with a loss and an
// optimizer that have traffic and state of their own, over two steps.
const std::vector<std::string> kBase = {
    "--model.widths=11,13,9,7", "--mapping.block=2x3", "--model.loss=cross-entropy", "--train.optimizer=adam",
    "--train.steps=2",          "--step.tokens=13",    "--step.wavefront=4",         "--splitfg.split=2",
    "--fg.tangents=3",          "--sim.arith=none"};
const std::vector<std::string> kSchedules = {"forward", "backprop", "checkpoint", "forward-gradient",
                                             "split-fg"};

// A value other than the default for each value-only option.
const std::vector<std::pair<std::string, std::string>> kValueOnly = {
    {"sim.seed", "7"},        {"train.lr", "0.3"},          {"model.init_gain", "2"},
    {"data.task", "mixture"}, {"data.teacher_width", "5"},  {"data.mixture_spread", "2"},
    {"fg.seed", "9"},         {"fg.tangent", "rademacher"}, {"splitfg.rho", "0.3"}};

// Every schedule's run of kBase, run once for all the comparisons.
const std::vector<workloads::RunResult>& base_runs() {
  static const std::vector<workloads::RunResult> runs = [] {
    std::vector<workloads::RunResult> out;
    for (const std::string& schedule : kSchedules) out.push_back(run_with(kBase, schedule));
    return out;
  }();
  return runs;
}

// Whether setting `key` to `value` leaves every counter and per-tile count of every schedule unchanged.
::testing::AssertionResult same_counts_with(const std::string& key, const std::string& value) {
  auto changed = kBase;
  changed.push_back("--" + key + "=" + value);
  for (std::size_t s = 0; s < kSchedules.size(); ++s) {
    const std::string& schedule = kSchedules[s];
    const workloads::RunResult& a = base_runs()[s];
    const workloads::RunResult b = run_with(changed, schedule);
    if (!(a.counters == b.counters) || !(a.tiles == b.tiles))
      return ::testing::AssertionFailure()
             << "--" << key << "=" << value << " changes " << schedule << "'s counts";
  }
  return ::testing::AssertionSuccess();
}

TEST(RunOptions, ValueOnlyOptionsLeaveEveryCountOfACountingRunAsItIs) {
  for (const auto& [key, value] : kValueOnly) {
    EXPECT_TRUE(sets_values_only(key)) << key;
    EXPECT_TRUE(same_counts_with(key, value));
  }
  // The table above covers every option the predicate names.
  for (const std::string& key : config_with({}).keys()) {
    if (!sets_values_only(key)) continue;
    EXPECT_TRUE(
        std::any_of(kValueOnly.begin(), kValueOnly.end(), [&](const auto& kv) { return kv.first == key; }))
        << key << " is value-only but has no value here";
  }
}

// The comparison can fail: options that change what is counted are not value-only, and change counts.
TEST(RunOptions, OptionsThatChangeWhatIsCountedAreNotValueOnly) {
  for (const auto& [key, value] : std::vector<std::pair<std::string, std::string>>{
           {"model.activation", "identity"}, {"train.optimizer", "sgd"}, {"model.loss", "mse"}}) {
    EXPECT_FALSE(sets_values_only(key)) << key;
    EXPECT_FALSE(same_counts_with(key, value)) << key;
  }
}

using IgnoredOptionTest = testing::BinaryRunTest;

// A schedule's option is refused from a config file too, and then the line must say which file and line
// hold it (it said only "fg.tangents is an option of ..."); run, sweep and compare alike, and the command
// line's values say "(from command line)" as every other error does.
TEST_F(IgnoredOptionTest, TheErrorSaysWhereTheValueCameFrom) {
  std::ofstream(path("fg.ini")) << "[fg]\ntangents = 2\n";
  std::ofstream(path("rev.ini")) << "[model]\nkind = reversible\n\n[revolve]\nslots = 2\n";
  const std::string fg =
      "spatialsim: error: fg.tangents = \"2\" (from fg.ini:2): is an option of schedules "
      "forward-gradient, split-fg, none of which is selected (schedule = forward,backprop); remove it or add "
      "forward-gradient to schedule\n";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"run --config=fg.ini --sim.arith=none", fg},
      {"sweep --config=fg.ini --sim.arith=none --vary model.depth=2,4", fg},
      {"compare --config=rev.ini --sim.arith=none",
       "spatialsim: error: revolve.slots = \"2\" (from rev.ini:5): is an option of a schedule "
       "that does not run on this model (compare runs forward, reversible); remove it\n"},
      {"run --schedule=forward --train.lr=0.3",
       "spatialsim: error: train.lr = \"0.3\" (from command line): is read by the weight update, "
       "and schedule = forward does not train (no backward pass, no update); remove it or add a schedule "
       "that trains, such as backprop, to schedule\n"},
  };
  for (const auto& [args, error] : cases) {
    const testing::BinaryRun r = run(args + " --out=o.h5");
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_EQ(r.err, error) << args;
    EXPECT_EQ(r.out, "") << args;
    EXPECT_FALSE(std::filesystem::exists(path("o.h5"))) << args;
    EXPECT_FALSE(std::filesystem::exists(path("o.h5.points"))) << args;
  }
}

}  // namespace
}  // namespace spatialsim::cli
