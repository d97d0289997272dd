// `spatialsim compare`, `spatialsim crossover` and `--theory_side_by_side` end to end through the built
// binary, on the small default model in counting mode.
#include <H5Cpp.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>

#include "tests/analysis/hdf5_test_support.h"
#include "tests/cli/binary_run_fixture.h"

namespace spatialsim::cli {
namespace {

using CompareCommandTest = testing::BinaryRunTest;
using testing::BinaryRun;

TEST_F(CompareCommandTest, MlpRunsEveryApplicableScheduleAndJudgesThem) {
  const BinaryRun r = run("compare --sim.arith=none --out=c.h5");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* s : {"backprop/forward", "checkpoint/forward", "revolve/forward", "byte_hops_recompute",
                        "peak_tile_stash_bytes", "energy_flop_pj", "seed 000's test"})
    EXPECT_NE(r.out.find(s), std::string::npos) << s << "\n" << r.out;
  EXPECT_EQ(r.out.find("reversible"), std::string::npos) << r.out;  // does not run on an mlp
  // The verdict lines: "  <schedule> <padding> <verdict> ...".
  auto verdict_line = [&](const std::string& schedule, const std::string& verdict) {
    std::istringstream lines(r.out);
    for (std::string line; std::getline(lines, line);) {
      std::istringstream words(line);
      std::string first, second;
      if (words >> first >> second && first == schedule && second == verdict) return true;
    }
    return false;
  };
  EXPECT_TRUE(verdict_line("backprop", "fails")) << r.out;
  EXPECT_TRUE(verdict_line("forward", "n/a")) << r.out;
  // No stash at any depth, judged on byte-hops: 2.412 x backprop (docs/store-vs-recompute.md).
  EXPECT_TRUE(verdict_line("forward-gradient", "fails")) << r.out;
  EXPECT_NE(r.out.find("no stash at any depth (in-flight 0, not L^2), byte-hops 2.412 x backprop"),
            std::string::npos)
      << r.out;
  H5::H5File in(path("c.h5"), H5F_ACC_RDONLY);
  EXPECT_TRUE(in.nameExists("/runs/checkpoint/byte_hops"));
  EXPECT_TRUE(in.nameExists("/compare/backprop/inflight_byte_cycles_per_token"));
  EXPECT_EQ(analysis::testing::read_string_attribute(in.openGroup("/compare/backprop"), "outcome"), "fails");
  EXPECT_EQ(analysis::testing::read_string_attribute(in.openGroup("/compare"), "baseline"), "backprop");
  // compare does not read `schedule`: the root's config.schedule names the schedules it ran, as
  // /runs/schedules and /compare/schedules do, not the default forward,backprop.
  std::string ran;
  for (const auto& s : analysis::testing::read_variable_strings(in.openDataSet("/runs/schedules")))
    ran += (ran.empty() ? "" : ",") + s;
  EXPECT_NE(ran.find(",checkpoint,"), std::string::npos) << ran;  // more than the default's two
  EXPECT_EQ(analysis::testing::read_string_attribute(in.openGroup("/"), "config.schedule"), ran);
  EXPECT_EQ(analysis::testing::read_variable_strings(in.openDataSet("/compare/schedules")),
            analysis::testing::read_variable_strings(in.openDataSet("/runs/schedules")));
}

// A schedule the model cannot run with its defaults is left out with its reason, not without a word
// (split-fg on one layer). One whose own option's default does not fit (revolve's 2 slots on one layer)
// could run with that option set, and the line says so instead of claiming the model cannot run it.
TEST_F(CompareCommandTest, SchedulesLeftOutAreNamedWithTheirReason) {
  const BinaryRun r = run("compare --sim.arith=none --model.depth=1 --out=c.h5");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("compare: left out: revolve, whose default revolve.slots does not fit this model "
                       "(revolve.slots = \"2\" (from default): "),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("(the network's layers)); set revolve.slots to compare it\n"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("compare: left out: split-fg, which this model cannot run (model.depth = \"1\""),
            std::string::npos)
      << r.out;
  // Set as the line says, revolve runs.
  const BinaryRun with_slots = run("compare --sim.arith=none --model.depth=1 --revolve.slots=1 --out=d.h5");
  ASSERT_EQ(with_slots.exit_code, 0) << with_slots.err;
  EXPECT_EQ(with_slots.out.find("left out: revolve"), std::string::npos) << with_slots.out;
  // Among the schedules compare runs (a set: a newly registered schedule may sort anywhere in it).
  const std::string ran = "compare: every schedule that runs on model.kind = mlp: ";
  const auto at = with_slots.out.find(ran);
  ASSERT_NE(at, std::string::npos) << with_slots.out;
  const auto begin = at + ran.size();
  const std::string names =
      ", " + with_slots.out.substr(begin, with_slots.out.find('\n', begin) - begin) + ",";
  EXPECT_NE(names.find(", revolve,"), std::string::npos) << with_slots.out;
}

// With compute time, per-token in-flight depends on the wavefront count: a scaling depth whose pipeline
// is not full (step.tokens set) is named, since its slope need not show L's.
TEST_F(CompareCommandTest, AnUnfilledPipelineInTheScalingRunsIsNamed) {
  const BinaryRun filled = run("compare --sim.arith=none --machine.flops_per_cycle=64 --out=c.h5");
  ASSERT_EQ(filled.exit_code, 0) << filled.err;
  EXPECT_EQ(filled.out.find("pipeline is not full"), std::string::npos) << filled.out;
  const BinaryRun set =
      run("compare --sim.arith=none --machine.flops_per_cycle=64 --step.tokens=64 --out=d.h5");
  ASSERT_EQ(set.exit_code, 0) << set.err;
  EXPECT_NE(set.out.find("note: the pipeline is not full at L = 8 (fewer than 2L - 1 wavefronts"),
            std::string::npos)
      << set.out;
  EXPECT_NE(set.out.find("with compute or link time"), std::string::npos) << set.out;
}

// On a reversible model the scaling table's L is model.depth (coupling blocks); the note names the same
// depths, and the stages (L + 2) that the wavefront count is held against.
TEST_F(CompareCommandTest, AnUnfilledReversiblePipelineIsNamedByTheTablesDepths) {
  const BinaryRun r = run("compare --sim.arith=none --model.kind=reversible --step.tokens=64 --out=c.h5");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("reversible    L=4: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("note: the pipeline is not full at L = 4 (6 stages), 8 (10 stages) (fewer than 2S - 1 "
                       "wavefronts for S stages:"),
            std::string::npos)
      << r.out;
}

// The scaling runs are compare's, not a sweep the user wrote: an error in one names them so.
TEST_F(CompareCommandTest, AScalingRunThatCannotBeMappedIsNamedAsCompares) {
  const BinaryRun r = run("compare --sim.arith=none --mapping.grid=4x4 --out=c.h5");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(
      r.err.rfind("spatialsim: error: depth-scaling run (compare.depth_factors) 2 of 2 (model.depth=8): "
                  "mapping.grid",
                  0),
      0u)
      << r.err;
  EXPECT_TRUE(dir_entries().empty());
}

// A scaling run whose stash integral passes 2^62 while it runs (the table's run at depth 34 does not): the
// line names the run and offers smaller factors, the lever compare adds to the run's own.
TEST_F(CompareCommandTest, AScalingRunThatPassesTheCountLimitWhileRunningNamesTheFactors) {
  const BinaryRun r =
      run("compare --sim.arith=none --model.width=4096 --machine.hop_latency=1048576 --step.tokens=16384 "
          "--step.wavefront=16384 --model.depth=34 --compare.depth_factors=1,2 --out=c.h5");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(
      r.err.rfind("spatialsim: error: depth-scaling run (compare.depth_factors) 2 of 2 (model.depth=68), "
                  "schedule ",
                  0),
      0u)
      << r.err;
  EXPECT_NE(r.err.find("passed 2^62"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("; or give smaller compare.depth_factors\n"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_TRUE(dir_entries().empty());
}

// machine.on_overflow as for run: error exits 3, report warns; the file is written and records them.
TEST_F(CompareCommandTest, OverflowsFollowMachineOnOverflow) {
  for (const std::string policy : {"error", "report"}) {
    const BinaryRun r =
        run("compare --sim.arith=none --compare.depth_factors=1 --machine.sram_bytes=64 "
            "--machine.on_overflow=" +
            policy + " --out=c.h5");
    EXPECT_EQ(r.exit_code, policy == "error" ? 3 : 0) << r.err;
    EXPECT_NE(r.err.find("storage overflow: schedule backprop, tile "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(policy == "error" ? "spatialsim: error: " : "spatialsim: warning: "),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("machine.on_overflow = " + policy), std::string::npos) << r.err;
    H5::H5File in(path("c.h5"), H5F_ACC_RDONLY);
    EXPECT_GT(analysis::testing::read_all<std::uint64_t>(
                  in.openDataSet("/runs/backprop/storage_overflow_tiles"), H5::PredType::NATIVE_UINT64)
                  .at(0),
              0u);
  }
}

// The depth-scaling runs hold more stash than the table's (twice the depth): a tile they overflow is
// reported and judged too, though only their slopes are recorded. 15000 bytes per tile: the table's runs
// (L = 4) need at most 12421, the scaling runs at L = 8 up to 18562.
TEST_F(CompareCommandTest, OverflowsInTheDepthScalingRunsAreReported) {
  const BinaryRun fits =
      run("compare --sim.arith=none --compare.depth_factors=1 --machine.sram_bytes=15000 "
          "--machine.on_overflow=error --out=t.h5");
  EXPECT_EQ(fits.exit_code, 0) << fits.err;
  const BinaryRun r =
      run("compare --sim.arith=none --compare.depth_factors=1,2 --machine.sram_bytes=15000 "
          "--machine.on_overflow=error --out=c.h5");
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("storage overflow: point 1 (model.depth = 8), schedule "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("depth-scaling run(s) (compare.depth_factors) with tiles over machine.sram_bytes"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("storage overflow: schedule "), std::string::npos) << r.err;  // not the table's
  EXPECT_TRUE(std::filesystem::exists(path("c.h5")));
}

TEST_F(CompareCommandTest, ReversibleModelIsJudgedAgainstTwiceForward) {
  const BinaryRun r = run("compare --model.kind=reversible --sim.arith=none --out=r.h5");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("x 2 x forward"), std::string::npos) << r.out;
  H5::H5File in(path("r.h5"), H5F_ACC_RDONLY);
  EXPECT_TRUE(in.nameExists("/runs/reversible/byte_hops"));
  EXPECT_FALSE(in.nameExists("/runs/backprop"));
}

TEST_F(CompareCommandTest, ExplicitWidthsWithScalingIsBadInput) {
  const BinaryRun r = run("compare --sim.arith=none --model.widths=8,8,8");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.err.find("compare.depth_factors"), std::string::npos) << r.err;
  EXPECT_TRUE(dir_entries().empty());
  EXPECT_EQ(run("compare --sim.arith=none --model.widths=8,8,8 --compare.depth_factors=1").exit_code, 0);
}

// A factor listed twice (also as 01) is refused naming compare.depth_factors, the option the user set; the
// error named sweep.vary "from compare (compare.depth_factors)", which the user never set.
TEST_F(CompareCommandTest, RepeatedDepthFactorIsBadInputNamingTheFactors) {
  for (const std::string factors : {"1,1", "1,2,2", "1,01"}) {
    const BinaryRun r = run("compare --sim.arith=none --out=c.h5 --compare.depth_factors=" + factors);
    EXPECT_EQ(r.exit_code, 2) << factors << ": " << r.err;
    EXPECT_EQ(r.err.rfind("spatialsim: error: compare.depth_factors = \"" + factors +
                              "\" (from command line): lists the factor ",
                          0),
              0u)
        << r.err;
    EXPECT_NE(r.err.find("list each factor once"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("sweep.vary"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(r.out, "");
    EXPECT_TRUE(dir_entries().empty());
  }
}

TEST_F(CompareCommandTest, RunWithTheorySideBySideSplitsTheDifference) {
  const BinaryRun r = run("--sim.arith=none --theory_side_by_side=true");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* s : {"simulated beside the closed forms", "phase backward", "unexplained",
                        "pipeline fill and drain", "2 L sqrt(n)"})
    EXPECT_NE(r.out.find(s), std::string::npos) << s << "\n" << r.out;
}

TEST_F(CompareCommandTest, CrossoverPrintsSeed000sFigureAndTheGrids) {
  const BinaryRun r = run("crossover");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("d* = 189.833"), std::string::npos) << r.out;  // 68 / 24 x 67
  EXPECT_NE(r.out.find("d* = 28.3333"), std::string::npos) << r.out;  // 68 x 1 / (24 x 0.1)
  EXPECT_NE(r.out.find("why the grid's d* differs from"), std::string::npos) << r.out;
  EXPECT_EQ(run("crossover --crossover.hbm_ratio=0").exit_code, 2);
  EXPECT_EQ(r.out.find("note: h counts"), std::string::npos) << r.out;  // square blocks: one hop exactly
}

// The edges of the printed comparison: a width where both cost the same is a tie, not "stash"; a d* of 0
// says which two terms decide it (here the store is free, and no hop costs could be less); a block with
// r != c is flagged, since its boundaries cost more than the one hop per element the formula counts.
TEST_F(CompareCommandTest, CrossoverNamesTiesZeroCrossoversAndNonSquareBlocks) {
  // 1x1 block, hops free, 0.125 pJ per flop: recompute 2 d^2 x 0.125 + 2 d^2 x 1 / 8 = 0.5 d^2, stash
  // 2 x 2 d x 1 = 4 d: equal at d = 8.
  const BinaryRun tie =
      run("crossover --mapping.block=1x1 --energy.hop_pj=0 --energy.flop_pj=0.125 --crossover.widths=7,8,9");
  ASSERT_EQ(tie.exit_code, 0) << tie.err;
  EXPECT_NE(tie.out.find("       7          24.5            28  recompute\n"), std::string::npos) << tie.out;
  EXPECT_NE(tie.out.find("       8            32            32  equal\n"), std::string::npos) << tie.out;
  EXPECT_NE(tie.out.find("       9          40.5            36  stash\n"), std::string::npos) << tie.out;
  const BinaryRun free_store = run("crossover --energy.sram_pj=0");
  ASSERT_EQ(free_store.exit_code, 0) << free_store.err;
  EXPECT_NE(free_store.out.find("d* = 0: recomputing never costs less energy (the stash's round trip, 0 pJ "
                                "per d, is no more than the recompute's hops alone, 2.4 pJ per d)"),
            std::string::npos)
      << free_store.out;
  const BinaryRun wide = run("crossover --mapping.block=3x5");
  ASSERT_EQ(wide.exit_code, 0) << wide.err;
  EXPECT_NE(wide.out.find("note: h counts one redistribution hop per element"), std::string::npos)
      << wide.out;
}

// crossover's layer is d x d for each d in crossover.widths: the configured model and step.tokens, which it
// does not read, do not limit the block or the wavefront (the default model's 10 outputs would not fit a
// 16x16 block, its 64 tokens not a wavefront of 128).
TEST_F(CompareCommandTest, CrossoverIsNotLimitedByTheModelItDoesNotRead) {
  const BinaryRun r = run("crossover --mapping.block=16x16 --step.wavefront=128");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("block 16x16"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("weights read once per 128 tokens"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("62 d byte-hops"), std::string::npos) << r.out;  // b_a 15 + b_p 15 + b_a
}

}  // namespace
}  // namespace spatialsim::cli
