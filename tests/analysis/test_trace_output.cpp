// `spatialsim run --trace` and `--chrome-trace` through the built binary: what lands in the files, that a
// run without them writes no trace, and that a bad chrome_trace path is bad input found before the run.
#include <H5Cpp.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "tests/analysis/hdf5_test_support.h"
#include "tests/analysis/test_trace_support.h"

namespace spatialsim::analysis {
namespace {

using testing_support::ProcessRun;
using testing_support::run_in;

class TraceOutputTest : public testing::ScratchDirTest {
 protected:
  ProcessRun run(const std::string& args) const {
    return testing_support::run_in(m_dir, std::string("'") + SPATIALSIM_BINARY + "' " + args);
  }
  std::uint64_t scalar(const H5::H5File& in, const std::string& dataset) const {
    std::uint64_t v = 0;
    in.openDataSet(dataset).read(&v, H5::PredType::NATIVE_UINT64);
    return v;
  }
  static constexpr const char* kSmall =
      "--schedule=forward,backprop --model.depth=3 --model.width=16 --step.tokens=16 --train.steps=2 ";
};

TEST_F(TraceOutputTest, RunWithoutTraceWritesNoTraceGroup) {
  const ProcessRun r = run(std::string(kSmall) + "--out=r.h5");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(dir_entries(), (std::vector<std::string>{"r.h5"}));
  H5::H5File in(path("r.h5"), H5F_ACC_RDONLY);
  EXPECT_TRUE(in.nameExists("/runs/backprop/byte_hops"));
  EXPECT_FALSE(in.nameExists("/runs/forward/trace"));
  EXPECT_FALSE(in.nameExists("/runs/backprop/trace"));
}

TEST_F(TraceOutputTest, TraceWritesOneRowPerMessageAndTheStashTimeline) {
  const ProcessRun r = run(std::string(kSmall) + "--trace --out=r.h5");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(dir_entries(), (std::vector<std::string>{"r.h5"}));  // no chrome trace unless asked
  H5::H5File in(path("r.h5"), H5F_ACC_RDONLY);
  for (const std::string s : {"forward", "backprop"}) {
    const std::string g = "/runs/" + s + "/trace";
    ASSERT_TRUE(in.nameExists(g)) << s;
    const auto rows = testing::dims_of(in.openDataSet(g + "/messages/cycle_sent"));
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0], scalar(in, "/runs/" + s + "/messages")) << s;
    const auto steps = testing::read_all<std::uint64_t>(in.openDataSet(g + "/steps/makespan_cycles"),
                                                        H5::PredType::NATIVE_UINT64);
    ASSERT_EQ(steps.size(), 2u);
    EXPECT_EQ(steps[0] + steps[1], scalar(in, "/runs/" + s + "/makespan_cycles"));
  }
  // Forward stashes nothing; backprop does, and its timeline peaks at the run's peak: the most a cycle holds
  // after all of its changes (the last row of each cycle of each step).
  EXPECT_EQ(testing::dims_of(in.openDataSet("/runs/forward/trace/stash/cycle"))[0], 0u);
  const auto column = [&](const char* name) {
    return testing::read_all<std::uint64_t>(in.openDataSet(std::string("/runs/backprop/trace/stash/") + name),
                                            H5::PredType::NATIVE_UINT64);
  };
  const auto stash = column("stash_bytes");
  const auto step = column("step");
  const auto cycle = column("cycle");
  ASSERT_FALSE(stash.empty());
  std::uint64_t peak = 0;
  for (std::size_t i = 0; i < stash.size(); ++i)
    if (i + 1 == stash.size() || step[i + 1] != step[i] || cycle[i + 1] != cycle[i])
      peak = std::max(peak, stash[i]);
  EXPECT_EQ(peak, scalar(in, "/runs/backprop/peak_stash_bytes"));
}

TEST_F(TraceOutputTest, ChromeTraceAloneWritesJsonAndNoTraceGroup) {
  const ProcessRun r = run(std::string(kSmall) + "--chrome-trace run.json --out=r.h5");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto entries = dir_entries();
  std::sort(entries.begin(), entries.end());
  EXPECT_EQ(entries, (std::vector<std::string>{"r.h5", "run.json"}));
  H5::H5File in(path("r.h5"), H5F_ACC_RDONLY);
  EXPECT_FALSE(in.nameExists("/runs/backprop/trace"));
  if (const std::string why = testing_support::python_missing({"json"}); !why.empty()) GTEST_SKIP() << why;
  const ProcessRun check =
      testing_support::run_in(m_dir, std::string(testing_support::kPython) +
                                         " -c 'import json; d = json.load(open(\"run.json\")); "
                                         "print(sorted({e[\"args\"][\"name\"] for e in d[\"traceEvents\"] if "
                                         "e[\"name\"] == \"process_name\"}))'");
  EXPECT_EQ(check.exit_code, 0) << check.err;
  EXPECT_EQ(check.out, "['backprop', 'forward']\n");
  // One counter sample per counter and time (a step's end gave a second when its last release was there).
  const ProcessRun samples = testing_support::run_in(
      m_dir, std::string(testing_support::kPython) +
                 " -c 'import json, collections; d = json.load(open(\"run.json\")); "
                 "c = collections.Counter((e[\"pid\"], e[\"name\"], e[\"ts\"]) for e in d[\"traceEvents\"] "
                 "if e[\"ph\"] == \"C\"); print(len(c) > 0, max(c.values()))'");
  EXPECT_EQ(samples.exit_code, 0) << samples.err;
  EXPECT_EQ(samples.out, "True 1\n");
}

// A trace that cannot be written after the run (here a file size limit, `ulimit -f`: 512- or 1024-byte
// blocks by shell; a full disk alike; r.h5 is about 140 KB, the trace about 850 KB): exit code 1, a line
// naming the option and the write's reason, no partial trace; the results file, complete and committed
// before the trace is written, stays.
TEST_F(TraceOutputTest, ChromeTraceThatFailsAfterTheRunSaysWhyAndLeavesNoPart) {
  const ProcessRun r = run_in(m_dir, std::string("(ulimit -f 600; '") + SPATIALSIM_BINARY +
                                         "' run --sim.arith=none --schedule=forward,backprop,checkpoint "
                                         "--train.steps=4 --chrome-trace=big.json --out=r.h5)");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("spatialsim: error: chrome_trace = \"big.json\": writing big.json.tmp-"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find(" failed (File too large)"), std::string::npos) << r.err;
  EXPECT_EQ(dir_entries(), (std::vector<std::string>{"r.h5"}));
  H5::H5File in(path("r.h5"), H5F_ACC_RDONLY);
  EXPECT_TRUE(in.nameExists("/runs/checkpoint/byte_hops"));
}

TEST_F(TraceOutputTest, UnwritableChromeTraceIsBadInputBeforeTheRun) {
  const ProcessRun r = run(std::string(kSmall) + "--chrome-trace missing/run.json --out=r.h5");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("spatialsim: error: chrome_trace = "), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");  // nothing ran
  EXPECT_TRUE(dir_entries().empty());
}

}  // namespace
}  // namespace spatialsim::analysis
