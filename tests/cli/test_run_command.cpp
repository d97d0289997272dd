// `spatialsim run` (and `kernel --out`) end to end through the built binary: exit codes, one-line errors,
// what lands in the results file, counting mode against arithmetic mode, storage overflows.
#include <H5Cpp.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/analysis/hdf5_test_support.h"
#include "tests/cli/binary_run_fixture.h"

namespace spatialsim::cli {
namespace {

using analysis::testing::read_all;

using RunCommandTest = testing::BinaryRunTest;
using testing::BinaryRun;

// Training that diverges is a result, not an error: the counts stand and the run exits 0, but the step
// from which the loss is no longer a number is said, with what keeps the values finite.
TEST_F(RunCommandTest, ALossThatStopsBeingFiniteIsNotedWithTheStep) {
  const BinaryRun r = run("--schedule=forward,backprop --train.lr=1e30 --train.steps=3");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("note: backprop's loss is not finite (nan) from step 1 of steps 0..2: its fp32 values "
                       "overflowed; a smaller train.lr or model.init_gain keeps them finite\n"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("forward's loss"), std::string::npos) << r.out;  // forward does not train
  EXPECT_NE(r.out.find("loss per step, backprop: 2.07223 nan nan\n"), std::string::npos) << r.out;
  // At step 1, before any update, only the initial weights (or the mixture's spread) can have overflowed.
  const BinaryRun first = run("--schedule=backprop --sim.arith=fp64 --model.init_gain=1e160 --train.steps=2");
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_NE(
      first.out.find("note: backprop's loss is not finite (nan) from step 0 of steps 0..1: its fp64 values "
                     "overflowed; a smaller model.init_gain keeps them finite\n"),
      std::string::npos)
      << first.out;
  const BinaryRun mixture = run("--schedule=backprop --data.task=mixture --data.mixture_spread=1e39");
  ASSERT_EQ(mixture.exit_code, 0) << mixture.err;
  EXPECT_NE(
      mixture.out.find("at step 0, its only step: its fp32 values overflowed; a smaller model.init_gain or "
                       "data.mixture_spread keeps them finite\n"),
      std::string::npos)
      << mixture.out;
  const BinaryRun fine = run("--schedule=backprop --train.steps=3");
  ASSERT_EQ(fine.exit_code, 0) << fine.err;
  EXPECT_EQ(fine.out.find("not finite"), std::string::npos) << fine.out;
}

TEST_F(RunCommandTest, DefaultRunExitsZeroPrintsTheTableAndWritesTheFile) {
  const BinaryRun r = run("");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_NE(r.out.find("byte_hops_forward"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("placement zigzag"), std::string::npos) << r.out;
  EXPECT_EQ(dir_entries(), (std::vector<std::string>{"spatialsim.h5"}));  // no temporary left behind
  H5::H5File in(path("spatialsim.h5"), H5F_ACC_RDONLY);
  EXPECT_TRUE(in.nameExists("/runs/forward/byte_hops"));
  EXPECT_TRUE(in.nameExists("/runs/backprop/inflight_byte_cycles"));
  EXPECT_FALSE(in.nameExists("/runs/checkpoint"));
  EXPECT_EQ(analysis::testing::read_string_attribute(in.openGroup("/"), "config.schedule"),
            "forward,backprop");
  // Nothing set: the header and the file say so.
  EXPECT_NE(r.out.find("\nset     nothing: every option at its default (configs/default.ini)\n"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(analysis::testing::read_string_attribute(in.openGroup("/"), "config_set"), "");
}

// Which config files and command-line options made a result: the header's `set` line names each config
// file and lists what the command line set; the root attribute `config_set` lists every value that is not
// the default, with its origin (the config.* attributes hold every value, but not where it came from).
TEST_F(RunCommandTest, TheHeaderAndTheFileSayWhatWasSetAndWhere) {
  std::ofstream(path("lr.ini")) << "[train]\nlr = 0.05\n";
  const BinaryRun r = run("--config=lr.ini --model.depth=3 --out=set.h5");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\nset     lr.ini (1 option in effect); model.depth = \"3\" (command line); out = "
                       "\"set.h5\" (command line)\n"),
            std::string::npos)
      << r.out;
  H5::H5File in(path("set.h5"), H5F_ACC_RDONLY);
  EXPECT_EQ(analysis::testing::read_string_attribute(in.openGroup("/"), "config_set"),
            "model.depth = \"3\" (from command line)\nout = \"set.h5\" (from command line)\n"
            "train.lr = \"0.05\" (from lr.ini:2)");
}

// A file the command line overrode entirely still made the run (it was read, and checked): it is named.
TEST_F(RunCommandTest, AFileWhoseEveryOptionWasOverriddenIsStillNamed) {
  std::ofstream(path("lr.ini")) << "[train]\nlr = 0.05\n";
  const BinaryRun r = run("--config=lr.ini --train.lr=0.01 --out=set.h5");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\nset     lr.ini (0 options in effect); out = \"set.h5\" (command line); train.lr = "
                       "\"0.01\" (command line)\n"),
            std::string::npos)
      << r.out;
}

// A config file's name and a value that are not UTF-8 (Latin-1 bytes) are \xNN on the set line, as on an
// error line and in config_set: the raw byte 0xE9 was printed.
TEST_F(RunCommandTest, TheSetLineEscapesBytesThatAreNotUtf8) {
  std::ofstream(path("c\xe9.ini")) << "[train]\nlr = 0.05\n";
  const BinaryRun r =
      run("--config=\"$(printf 'c\\351.ini')\" --sim.arith=none --out=\"$(printf 'r\\351s.h5')\"");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\nset     c\\xe9.ini (1 option in effect); out = \"r\\xe9s.h5\" (command line); "),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find('\xe9'), std::string::npos) << r.out;
}

TEST_F(RunCommandTest, UnwritableOutputIsBadInputAndLeavesNothing) {
  const BinaryRun r = run("--out=" + path("missing/dir/r.h5"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(lines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("spatialsim: error: out = "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("does not exist"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");  // nothing ran
  EXPECT_TRUE(dir_entries().empty());
}

TEST_F(RunCommandTest, UnknownScheduleIsBadInput) {
  const BinaryRun r = run("--schedule=forward,bakprop");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(lines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("schedule = \"forward,bakprop\""), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("\"bakprop\" is not a schedule; registered: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("backprop"), std::string::npos) << r.err;
  EXPECT_TRUE(dir_entries().empty());
}

TEST_F(RunCommandTest, OptionOfAnUnselectedScheduleIsBadInput) {
  const BinaryRun r = run("--schedule=forward --backprop.xstash=rebroadcast");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(
      r.err,
      "spatialsim: error: backprop.xstash = \"rebroadcast\" (from command line): is an option of schedule "
      "backprop, which is not selected "
      "(schedule = forward); remove it or add backprop to schedule\n");
  // Selected, the same option is fine.
  EXPECT_EQ(run("--schedule=forward,backprop --backprop.xstash=rebroadcast").exit_code, 0);
}

// Options that apply only with another option's value are refused on the command line (test_bad_input.cpp)
// but not from a config file, which may keep them for the runs they apply to (docs/cli.md).
TEST_F(RunCommandTest, ConditionalOptionsFromAConfigFileAreAccepted) {
  std::ofstream(path("keep.ini")) << "check_tolerance = 1e-3\ntheory_side_by_side = true\n"
                                     "data.teacher_width = 16\ndata.mixture_spread = 2\ntrain.lr = 0.1\n";
  const BinaryRun r = run("--config=keep.ini --schedule=checkpoint --sim.arith=none");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Asked for by the file, the side by side says why it has nothing to show rather than print nothing.
  EXPECT_NE(r.out.find("nothing to compare: the closed forms are forward's and backprop's, and neither ran"),
            std::string::npos)
      << r.out;
  // On the command line, with what makes them apply, they are fine too.
  EXPECT_EQ(run("--data.task=mixture --data.mixture_spread=2 --theory_side_by_side "
                "--schedule=checkpoint,backprop")
                .exit_code,
            0);
}

// The command line overrides the files: model.widths given there replaces a file's inputs/width/depth/
// outputs (it was refused as "cannot be combined", and the only way out was to edit the file). The other
// way round, a file's model.widths against a command line's model.depth, stays refused, naming where
// the widths came from: replacing them would run the default widths the user never asked for.
TEST_F(RunCommandTest, ModelWidthsOnTheCommandLineReplaceAFilesShape) {
  std::ofstream(path("shape.ini")) << "[model]\ndepth = 3\nwidth = 5\n";
  const BinaryRun r = run("--config=shape.ini --model.widths=6,7,8 --sim.arith=none --out=shape.h5");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("model   widths 6,7,8 (2 layers)\n", 0), 0u) << r.out;

  std::ofstream(path("widths.ini")) << "[model]\nwidths = 6,7,8\n";
  const BinaryRun refused = run("--config=widths.ini --model.depth=5 --sim.arith=none --out=depth.h5");
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_EQ(
      refused.err,
      "spatialsim: error: model.depth = \"5\" (from command line): cannot be combined with model.widths "
      "(from widths.ini:2); give either model.widths or inputs/width/depth/outputs\n");
  EXPECT_FALSE(std::filesystem::exists(path("depth.h5")));
  // Both forms in one place are refused as before.
  EXPECT_EQ(run("--model.widths=6,7,8 --model.depth=5 --sim.arith=none").exit_code, 2);
}

TEST_F(RunCommandTest, EveryScheduleGetsItsGroup) {
  const BinaryRun r = run("--schedule=forward,backprop --out=two.h5");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("backprop/forward"), std::string::npos) << r.out;
  H5::H5File in(path("two.h5"), H5F_ACC_RDONLY);
  EXPECT_EQ(analysis::testing::read_variable_strings(in.openDataSet("/runs/schedules")),
            (std::vector<std::string>{"forward", "backprop"}));
  for (const char* g : {"/runs/forward", "/runs/backprop"}) {
    EXPECT_TRUE(in.nameExists(std::string(g) + "/byte_hops_by_phase_kind")) << g;
    EXPECT_TRUE(in.nameExists(std::string(g) + "/tiles/energy_pj")) << g;
  }
  const auto backward = read_all<std::uint64_t>(in.openDataSet("/runs/backprop/byte_hops_backward"),
                                                H5::PredType::NATIVE_UINT64);
  EXPECT_GT(backward.at(0), 0u);
}

// MODEL.md section 3: every schedule is also reported as ratios to forward-only, also when `schedule` has no
// forward: the ratios are then to a forward run counted for them alone, which is not in /runs.
TEST_F(RunCommandTest, RatiosToForwardWithoutForwardInSchedule) {
  const BinaryRun r = run("--schedule=backprop --out=alone.h5");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("ratios  to forward, counted for them alone"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("backprop/forward"), std::string::npos) << r.out;
  ASSERT_EQ(run("--schedule=forward,backprop --out=both.h5").exit_code, 0);
  H5::H5File alone(path("alone.h5"), H5F_ACC_RDONLY);
  EXPECT_EQ(analysis::testing::read_variable_strings(alone.openDataSet("/runs/schedules")),
            (std::vector<std::string>{"backprop"}));
  EXPECT_FALSE(alone.nameExists("/runs/forward"));
  // The same ratios as against the forward run in the file.
  H5::H5File both(path("both.h5"), H5F_ACC_RDONLY);
  for (const char* d : {"/runs/backprop/to_forward/ratios", "/runs/backprop/to_forward/metrics"})
    EXPECT_TRUE(both.nameExists(d) && alone.nameExists(d)) << d;
  EXPECT_EQ(analysis::testing::read_variable_strings(alone.openDataSet("/runs/backprop/to_forward/metrics")),
            analysis::testing::read_variable_strings(both.openDataSet("/runs/backprop/to_forward/metrics")));
  const auto ratios = [](const H5::H5File& f) {
    return read_all<double>(f.openDataSet("/runs/backprop/to_forward/ratios"), H5::PredType::NATIVE_DOUBLE);
  };
  const auto a = ratios(alone), b = ratios(both);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_TRUE(a[i] == b[i] || (a[i] != a[i] && b[i] != b[i])) << i;
}

// MODEL.md section 8: counting mode gives the counts of arithmetic mode.
TEST_F(RunCommandTest, CountingModeCountsWhatArithmeticModeCounts) {
  ASSERT_EQ(run("--schedule=forward,backprop --sim.arith=none --out=none.h5").exit_code, 0);
  ASSERT_EQ(run("--schedule=forward,backprop --sim.arith=fp32 --out=fp32.h5").exit_code, 0);
  for (const char* s : {"forward", "backprop"}) {
    SCOPED_TRACE(s);
    const std::string g = std::string("/runs/") + s;
    for (const char* d : {"/byte_hops_by_phase_kind", "/bytes_by_phase_kind", "/byte_hops",
                          "/inflight_byte_cycles", "/depth", "/tiles/byte_hops_sent"})
      EXPECT_EQ(uint_array("none.h5", g + d), uint_array("fp32.h5", g + d)) << d;
  }
  H5::H5File none(path("none.h5"), H5F_ACC_RDONLY);
  EXPECT_EQ(analysis::testing::dims_of(none.openDataSet("/runs/forward/loss")), (std::vector<hsize_t>{0}));
  H5::H5File fp32(path("fp32.h5"), H5F_ACC_RDONLY);
  EXPECT_EQ(analysis::testing::dims_of(fp32.openDataSet("/runs/forward/loss")), (std::vector<hsize_t>{1}));
}

TEST_F(RunCommandTest, OverflowWithOnOverflowErrorExitsThreeAndStillWritesTheFile) {
  const BinaryRun r =
      run("--schedule=backprop --machine.sram_bytes=16 --machine.on_overflow=error --out=o.h5");
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(
      r.err.find(
          "storage overflow: schedule backprop, tile 0 (x 0, y 0): exceeded machine.sram_bytes = 16 by "),
      std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("spatialsim: error: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("machine.on_overflow = error"), std::string::npos) << r.err;
  H5::H5File in(path("o.h5"), H5F_ACC_RDONLY);
  const auto tiles =
      read_all<std::uint64_t>(in.openDataSet("/runs/backprop/overflows/tile"), H5::PredType::NATIVE_UINT64);
  const auto excess = read_all<std::uint64_t>(in.openDataSet("/runs/backprop/overflows/excess_bytes"),
                                              H5::PredType::NATIVE_UINT64);
  ASSERT_FALSE(tiles.empty());
  EXPECT_EQ(read_all<std::uint64_t>(in.openDataSet("/runs/backprop/storage_overflow_tiles"),
                                    H5::PredType::NATIVE_UINT64)
                .at(0),
            tiles.size());
  // The first line names the first recorded tile and its excess.
  EXPECT_NE(r.err.find("tile " + std::to_string(tiles[0])), std::string::npos);
  EXPECT_NE(r.err.find("by " + std::to_string(excess[0]) + " bytes"), std::string::npos) << r.err;
}

TEST_F(RunCommandTest, OverflowWithOnOverflowReportOnlyRecords) {
  const BinaryRun r = run("--schedule=backprop --machine.sram_bytes=16 --out=o.h5");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("spatialsim: warning: "), std::string::npos) << r.err;
  H5::H5File in(path("o.h5"), H5F_ACC_RDONLY);
  EXPECT_TRUE(in.nameExists("/runs/backprop/overflows/excess_bytes"));
}

TEST_F(RunCommandTest, KernelWritesItsFileOnlyWhenOutIsGiven) {
  ASSERT_EQ(run("kernel --grid 4x4").exit_code, 0);
  EXPECT_TRUE(dir_entries().empty());  // the default out is the run command's file: not written
  const BinaryRun r =
      run("kernel --grid 4x4 --kernel.name=allreduce-centre --machine.link_bytes_per_cycle=2 --out=k.h5");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  H5::H5File in(path("k.h5"), H5F_ACC_RDONLY);
  EXPECT_EQ(analysis::testing::read_string_attribute(in.openGroup("/"), "kernel"), "allreduce-centre");
  const auto hops = uint_array("k.h5", "/kernels/allreduce-centre/byte_hops");
  const auto cells = uint_array("k.h5", "/kernels/allreduce-centre/byte_hops_by_phase_kind");
  std::uint64_t sum = 0;
  for (auto c : cells) sum += c;
  EXPECT_EQ(hops.at(0), sum);
  EXPECT_NE(r.out.find("byte_hops = " + std::to_string(hops.at(0))), std::string::npos) << r.out;
  // Every term of the bound is printed as the file has it.
  for (const char* term : {"busiest_link_bytes", "busiest_link_cycles", "byte_hops", "link_cycles", "links",
                           "longest_route_hops", "depth", "min_serialization", "busiest_link_term",
                           "average_link_term", "depth_term", "cycles"})
    EXPECT_NE(
        r.out.find(
            std::string("\nbound.") + term + " = " +
            std::to_string(uint_array("k.h5", std::string("/kernels/allreduce-centre/bound/") + term).at(0)) +
            "\n"),
        std::string::npos)
        << term << '\n'
        << r.out;
  EXPECT_EQ(run("kernel --grid 4x4 --out=" + path("missing/k.h5")).exit_code, 2);
}

}  // namespace
}  // namespace spatialsim::cli
