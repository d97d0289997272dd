// Each plot script of analysis/plots/ runs on a small results file (and a small sweep) made by the built
// binary, with Debian's /usr/bin/python3, and writes a non-empty PNG. Skipped, with the reason, when that
// Python or its h5py / matplotlib are missing; never skipped silently.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/analysis/test_trace_support.h"

namespace spatialsim::analysis {
namespace {

using testing_support::ProcessRun;
using testing_support::run_in;

// The inputs are made on first use, once per process (ctest runs each test in its own process, so a test
// makes only the file it reads): a run takes a moment, the scripts only read.
class PlotScriptsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    s_missing = testing_support::python_missing({"h5py", "matplotlib", "numpy"});
    s_dir = std::filesystem::temp_directory_path() / ("spatialsim_test_plots_" + std::to_string(::getpid()));
    std::filesystem::remove_all(s_dir);
    std::filesystem::create_directories(s_dir);
  }
  static void TearDownTestSuite() { std::filesystem::remove_all(s_dir); }

  void SetUp() override {
    if (!s_missing.empty()) GTEST_SKIP() << s_missing;
  }

  // A traced results file of two schedules and three training steps (loss curves need arithmetic mode).
  static const ProcessRun& results() {
    static const ProcessRun r = run_in(s_dir, std::string("'") + SPATIALSIM_BINARY +
                                                  "' run --trace --schedule=forward,backprop --train.steps=3 "
                                                  "--out=results.h5");
    return r;
  }
  // A small depth sweep (docs/sweeps.md), in counting mode.
  static const ProcessRun& sweep() {
    static const ProcessRun r =
        run_in(s_dir, std::string("'") + SPATIALSIM_BINARY +
                          "' sweep --vary model.depth=2,4,8 --schedule=forward,backprop "
                          "--sim.arith=none --out=sweep.h5");
    return r;
  }

  // Runs `script` on `input` and checks it wrote a PNG with something in it.
  static void expect_png(const std::string& script, const std::string& input, const std::string& extra = "") {
    const std::string png = script.substr(0, script.size() - 3) + ".png";
    const ProcessRun r = run_in(s_dir, testing_support::python_command(testing_support::plot_script(script)) +
                                           " " + input + " --out " + png + " " + extra);
    ASSERT_EQ(r.exit_code, 0) << script << ": " << r.err;
    const auto file = s_dir / png;
    ASSERT_TRUE(std::filesystem::exists(file)) << script << " wrote no " << png << "; stdout: " << r.out;
    EXPECT_GT(std::filesystem::file_size(file), 1000u) << script;
    std::ifstream in(file, std::ios::binary);
    char magic[8] = {};
    in.read(magic, 8);
    EXPECT_EQ(std::string(magic + 1, 3), "PNG") << script;
  }

  static inline std::string s_missing;
  static inline std::filesystem::path s_dir;
};

TEST_F(PlotScriptsTest, TrafficBars) {
  ASSERT_EQ(results().exit_code, 0) << results().err;
  expect_png("traffic_bars.py", "results.h5");
}

TEST_F(PlotScriptsTest, StashTimeline) {
  ASSERT_EQ(results().exit_code, 0) << results().err;
  expect_png("stash_timeline.py", "results.h5");
}

TEST_F(PlotScriptsTest, TileHeatmaps) {
  ASSERT_EQ(results().exit_code, 0) << results().err;
  expect_png("tile_heatmaps.py", "results.h5");
}

TEST_F(PlotScriptsTest, LossCurves) {
  ASSERT_EQ(results().exit_code, 0) << results().err;
  expect_png("loss_curves.py", "results.h5");
}

TEST_F(PlotScriptsTest, StashVsDepth) {
  ASSERT_EQ(sweep().exit_code, 0) << sweep().err;
  expect_png("stash_vs_depth.py", "sweep.h5");
}

// The scripts read only the documented layout, and say so in one line when it is not there.
TEST_F(PlotScriptsTest, WrongInputIsOneLineAndExitTwo) {
  ASSERT_EQ(results().exit_code, 0) << results().err;
  ASSERT_EQ(sweep().exit_code, 0) << sweep().err;
  const auto script = [](const std::string& name) {
    return testing_support::python_command(testing_support::plot_script(name));
  };
  ProcessRun r = run_in(s_dir, script("stash_vs_depth.py") + " results.h5 --out x.png");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("stash_vs_depth.py: error: results.h5 has no /sweep/points table"), std::string::npos)
      << r.err;
  r = run_in(s_dir, script("traffic_bars.py") + " sweep.h5 --out x.png");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("has no /runs/schedules"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(s_dir / "x.png"));
}

}  // namespace
}  // namespace spatialsim::analysis
