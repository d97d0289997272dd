// Each plot script of analysis/plots/ runs on a small results file (and a small sweep) made by the built
// binary, with Debian's /usr/bin/python3, and writes a non-empty PNG. Skipped, with the reason, when that
// Python or its h5py / matplotlib are missing; never skipped silently.
//
// What a figure says is checked through the PNG's text metadata: `Title` (the figure's title) and
// `Description` (its panel titles, legend entries and notes, one per line), which plot_common.save()
// writes as uncompressed tEXt chunks, so a substring search of the file finds them.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

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

  // A traced results file of three schedules and three training steps (loss curves need arithmetic
  // mode); checkpoint computes backprop's gradient, so their losses are equal at every step.
  static const ProcessRun& results() {
    static const ProcessRun r =
        run_in(s_dir, std::string("'") + SPATIALSIM_BINARY +
                          "' run --trace --schedule=forward,backprop,checkpoint --train.steps=3 "
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

  // Two keys varied, one of them text (mapping.block has no `.value` column), in counting mode.
  static const ProcessRun& two_key_sweep() {
    static const ProcessRun r =
        run_in(s_dir, std::string("'") + SPATIALSIM_BINARY +
                          "' sweep --vary model.depth=2,4 --vary mapping.block=1x1,2x2 "
                          "--schedule=forward,backprop --sim.arith=none --out=two.h5");
    return r;
  }

  static std::string script(const std::string& name) {
    return testing_support::python_command(testing_support::plot_script(name));
  }

  // Runs `script` on `input` and checks it wrote a PNG with something in it, and said so naming the file;
  // returns the PNG's bytes (empty on failure).
  static std::string expect_png(const std::string& script_name, const std::string& input,
                                const std::string& extra = "") {
    const std::string png = script_name.substr(0, script_name.size() - 3) + ".png";
    std::filesystem::remove(s_dir / png);
    const ProcessRun r = run_in(s_dir, script(script_name) + " " + input + " --out " + png + " " + extra);
    EXPECT_EQ(r.exit_code, 0) << script_name << ": " << r.err;
    EXPECT_EQ(r.out, "wrote " + png + "\n") << script_name;
    const auto file = s_dir / png;
    if (!std::filesystem::exists(file)) {
      ADD_FAILURE() << script_name << " wrote no " << png << "; stdout: " << r.out;
      return "";
    }
    EXPECT_GT(std::filesystem::file_size(file), 1000u) << script_name;
    const std::string bytes = testing_support::slurp(file);
    EXPECT_EQ(bytes.substr(1, 3), "PNG") << script_name;
    return bytes;
  }

  // Exit code 2 and one line on stderr that starts with `<script>: error: ` and holds `what`.
  static void expect_one_line_error(const ProcessRun& r, const std::string& script_name,
                                    const std::string& what) {
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(r.err.rfind(script_name + ": error: ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find(what), std::string::npos) << "expected `" << what << "` in: " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(r.out, "") << r.out;
  }

  // Files in the test directory whose name contains `part` (a leftover temporary file, say).
  static std::vector<std::string> files_containing(const std::string& part) {
    std::vector<std::string> found;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(s_dir)) {
      if (entry.path().filename().string().find(part) != std::string::npos)
        found.push_back(entry.path().string());
    }
    return found;
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

// A schedule that stashes nothing still spans its run: the shared time axis covers every schedule's steps
// end to end (it spanned only the step boundaries when no schedule stashed, and 0..1 with one step).
TEST_F(PlotScriptsTest, StashTimelineWithoutStashSpansTheRun) {
  const ProcessRun run = run_in(
      s_dir, std::string("'") + SPATIALSIM_BINARY +
                 "' run --schedule=forward,forward-gradient --trace --train.steps=3 --out=no_stash.h5");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::string png = expect_png("stash_timeline.py", "no_stash.h5");
  EXPECT_NE(png.find("forward: no stash over its 93 cycles"), std::string::npos) << png;
  EXPECT_NE(png.find("forward-gradient: no stash over its 111 cycles"), std::string::npos) << png;
}

// A sum over tiles of per-tile peaks is no quantity of the run: peak maps give the largest tile, the other
// maps their sum, which leaves out the host's share.
TEST_F(PlotScriptsTest, TileHeatmaps) {
  ASSERT_EQ(results().exit_code, 0) << results().err;
  const std::string png = expect_png("tile_heatmaps.py", "results.h5");
  EXPECT_NE(png.find("backprop: peak_stash_bytes (bytes) max over tiles "), std::string::npos);
  EXPECT_NE(png.find("backprop: byte_hops_sent (byte-hops) sum over tiles (host excluded) "),
            std::string::npos);
  EXPECT_NE(png.find("backprop: flops sum over tiles (host excluded) "), std::string::npos);
  EXPECT_EQ(png.find("peak_stash_bytes (bytes) sum"), std::string::npos);
  // Forward stashes nothing: its constant map says so, also on a scale shared with the other schedules.
  EXPECT_NE(png.find("all 0"), std::string::npos);
  EXPECT_NE(expect_png("tile_heatmaps.py", "results.h5", "--shared").find("all 0"), std::string::npos);
}

// backprop and checkpoint have the same loss at every step: the legend says so (and the script draws
// them with different styles, so both show).
TEST_F(PlotScriptsTest, LossCurves) {
  ASSERT_EQ(results().exit_code, 0) << results().err;
  const std::string png = expect_png("loss_curves.py", "results.h5");
  EXPECT_NE(png.find("checkpoint (same loss as backprop)"), std::string::npos);
  EXPECT_EQ(png.find("forward (same loss"), std::string::npos);
}

// A diverged run's inf and nan losses cannot be drawn: the title says where each curve stops (it looked
// like a curve that ended).
TEST_F(PlotScriptsTest, LossCurvesSayWhereALossStopsBeingFinite) {
  const ProcessRun run = run_in(s_dir, std::string("'") + SPATIALSIM_BINARY +
                                           "' run --train.lr=1000 --train.steps=6 --out=diverged.h5");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  for (const char* scale : {"", "--log"}) {
    const std::string png = expect_png("loss_curves.py", "diverged.h5", scale);
    EXPECT_NE(png.find("(loss not finite, not drawn: backprop from step 2)"), std::string::npos) << scale;
    EXPECT_EQ(png.find("forward from step"), std::string::npos) << scale;
  }
}

TEST_F(PlotScriptsTest, StashVsDepth) {
  ASSERT_EQ(sweep().exit_code, 0) << sweep().err;
  const std::string png = expect_png("stash_vs_depth.py", "sweep.h5");
  EXPECT_NE(
      png.find("sweep.h5: peak_stash_bytes and inflight_byte_cycles_per_token against layers (log-log)"),
      std::string::npos);
  EXPECT_NE(png.find("forward: 0 at every point, none on log axes"), std::string::npos);
}

// The title and the notes follow --x and --metric: nothing about stash or depth on a byte-hops plot.
TEST_F(PlotScriptsTest, StashVsDepthTitleFollowsXAndMetric) {
  ASSERT_EQ(two_key_sweep().exit_code, 0) << two_key_sweep().err;
  const std::string png =
      expect_png("stash_vs_depth.py", "two.h5", "--x model.depth.value --metric peak_tile_stash_bytes");
  EXPECT_NE(png.find("two.h5: peak_tile_stash_bytes against model.depth.value (log-log)"), std::string::npos);
  EXPECT_NE(png.find("forward, mapping.block=1x1: 0 at every point"), std::string::npos);
  EXPECT_NE(png.find("backprop, mapping.block=2x2: slope "), std::string::npos);
  EXPECT_EQ(png.find("in-flight storage"), std::string::npos);
  EXPECT_EQ(png.find("no stash"), std::string::npos);
}

// Points left off the log axes are counted by which value is not positive: an x of 0 (step.interval = 0,
// the default interval) was reported as if the metric were.
TEST_F(PlotScriptsTest, StashVsDepthSaysWhichValueKeepsAPointOff) {
  const ProcessRun run = run_in(s_dir, std::string("'") + SPATIALSIM_BINARY +
                                           "' sweep --vary step.interval=0,1,2 --schedule backprop "
                                           "--sim.arith=none --out=interval.h5");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::string png = expect_png("stash_vs_depth.py", "interval.h5", "--x step.interval.value");
  EXPECT_NE(png.find("backprop: 1 of 3 points not on log axes (step.interval.value <= 0)"), std::string::npos)
      << png;
}

// A text column on an axis, and an x that takes one value, are bad input, said in one line with a way out.
TEST_F(PlotScriptsTest, StashVsDepthRefusesTextColumnsAndASingleX) {
  ASSERT_EQ(two_key_sweep().exit_code, 0) << two_key_sweep().err;
  ProcessRun r = run_in(s_dir, script("stash_vs_depth.py") + " two.h5 --out text.png --x mapping.block");
  expect_one_line_error(r, "stash_vs_depth.py", "--x mapping.block: the column is text (1x1, 2x2)");
  EXPECT_NE(r.err.find("model.depth.value"), std::string::npos) << r.err;
  r = run_in(s_dir, script("stash_vs_depth.py") + " two.h5 --out text.png --metric mapping.block");
  expect_one_line_error(r, "stash_vs_depth.py", "--metric mapping.block: the column is text");
  // wavefront_tokens is the same at every point of this sweep, as layers is in a sweep of mapping.block
  // alone.
  r = run_in(s_dir, script("stash_vs_depth.py") + " two.h5 --out text.png --x wavefront_tokens");
  expect_one_line_error(r, "stash_vs_depth.py", "--x wavefront_tokens: takes one value");
  EXPECT_NE(r.err.find("pass --x with a column this sweep varies: layers, model.depth.value"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(s_dir / "text.png"));
}

// --out names a PNG file: another extension, none, a directory or a place that cannot be written is bad
// input (one line, exit code 2), and no file is left behind, complete or partial.
TEST_F(PlotScriptsTest, OutMustNameAWritablePngFile) {
  ASSERT_EQ(results().exit_code, 0) << results().err;
  std::filesystem::create_directories(s_dir / "adir");
  const auto loss = [](const std::string& out) {
    return run_in(s_dir, script("loss_curves.py") + " results.h5 --out " + out);
  };
  expect_one_line_error(loss("lc.pdf"), "loss_curves.py", "--out lc.pdf: not a .png name");
  expect_one_line_error(loss("noext"), "loss_curves.py", "--out noext: not a .png name");
  expect_one_line_error(loss("adir"), "loss_curves.py", "--out adir: is a directory");
  // sysfs takes no new files, even from root: the write itself fails (an OSError in the script).
  if (std::filesystem::is_directory("/sys/kernel")) {
    expect_one_line_error(loss("/sys/kernel/spatialsim_plot.png"), "loss_curves.py",
                          "--out /sys/kernel/spatialsim_plot.png: cannot write");
  }
  for (const char* name : {"lc.pdf", "lc.pdf.png", "noext", "noext.png", "adir.png"}) {
    EXPECT_FALSE(std::filesystem::exists(s_dir / name)) << name;
  }
  EXPECT_TRUE(std::filesystem::is_empty(s_dir / "adir"));
  EXPECT_EQ(files_containing(".tmp-"), std::vector<std::string>{});
}

// A file name that is not UTF-8 (Latin-1 bytes) is drawn and written with its bytes as \xNN: every script
// crashed with two tracebacks writing the PNG's text metadata.
TEST_F(PlotScriptsTest, AFileNameThatIsNotUtf8IsShownEscaped) {
  ASSERT_EQ(results().exit_code, 0) << results().err;
  const std::string latin1 = "r\xe9sults.h5";
  std::filesystem::copy_file(s_dir / "results.h5", s_dir / latin1,
                             std::filesystem::copy_options::overwrite_existing);
  const ProcessRun r = run_in(
      s_dir, script("traffic_bars.py") + " \"$(printf 'r\\351sults.h5')\" --out \"$(printf 't\\351.png')\"");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out, "wrote t\\xe9.png\n");
  EXPECT_TRUE(std::filesystem::exists(s_dir / "t\xe9.png"));
  EXPECT_NE(testing_support::slurp(s_dir / "t\xe9.png").find("r\\xe9sults.h5"), std::string::npos);
  EXPECT_EQ(files_containing(".tmp-"), std::vector<std::string>{});
}

// A character a terminal would not show (a zero-width space, a right-to-left override) is printed and drawn
// as its code point, and a control character (ESC) printed as \xNN, as spatialsim's own lines show them:
// "wrote t.png" named a file that `ls` showed as t.png but that the user could not open by typing that, and
// an ESC reached the terminal.
TEST_F(PlotScriptsTest, ACharacterATerminalWouldNotShowInAFileNameIsEscaped) {
  ASSERT_EQ(results().exit_code, 0) << results().err;
  const ProcessRun r =
      run_in(s_dir, script("traffic_bars.py") + " results.h5 --out \"$(printf 't\342\200\213.png')\"");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out, "wrote t\\u200b.png\n");
  EXPECT_TRUE(std::filesystem::exists(s_dir / "t\u200b.png"));
  expect_one_line_error(
      run_in(s_dir, script("traffic_bars.py") + " \"$(printf 'r\342\200\256.h5')\" --out x.png"),
      "traffic_bars.py", "r\\u202e.h5");
  const ProcessRun esc =
      run_in(s_dir, script("traffic_bars.py") + " results.h5 --out \"$(printf 'e\033.png')\"");
  EXPECT_EQ(esc.exit_code, 0) << esc.err;
  EXPECT_EQ(esc.out, "wrote e\\x1b.png\n");
  expect_one_line_error(run_in(s_dir, script("traffic_bars.py") + " \"$(printf 'r\033.h5')\" --out x.png"),
                        "traffic_bars.py", "r\\x1b.h5");
}

// Every argument error is one line, like the others (argparse printed its usage line first), and an empty
// --schedule is named as such (it read "has no run of ; it holds ...").
TEST_F(PlotScriptsTest, ArgumentErrorsAreOneLine) {
  ASSERT_EQ(results().exit_code, 0) << results().err;
  expect_one_line_error(run_in(s_dir, script("tile_heatmaps.py") + " results.h5 --out a.png --map"),
                        "tile_heatmaps.py",
                        "argument --map: expected one argument (--help lists the options)");
  expect_one_line_error(run_in(s_dir, script("traffic_bars.py") + " results.h5 --out a.png --bogus"),
                        "traffic_bars.py", "unrecognized arguments: --bogus");
  expect_one_line_error(run_in(s_dir, script("loss_curves.py") + " results.h5"), "loss_curves.py",
                        "the following arguments are required: --out");
  expect_one_line_error(run_in(s_dir, script("traffic_bars.py") + " results.h5 --out a.png --schedule="),
                        "traffic_bars.py",
                        "--schedule: an empty schedule name; results.h5 holds forward, backprop, checkpoint");
  EXPECT_FALSE(std::filesystem::exists(s_dir / "a.png"));
}

// --out may not name the input (the results file was replaced by the PNG), and a link at --out is written
// through, as spatialsim writes its own outputs (the link was replaced by a file).
TEST_F(PlotScriptsTest, OutIsNotTheInputAndIsWrittenThroughALink) {
  ASSERT_EQ(results().exit_code, 0) << results().err;
  std::filesystem::copy_file(s_dir / "results.h5", s_dir / "in.png",
                             std::filesystem::copy_options::overwrite_existing);
  const std::string before = testing_support::slurp(s_dir / "in.png");
  expect_one_line_error(run_in(s_dir, script("traffic_bars.py") + " in.png --out ./in.png"),
                        "traffic_bars.py", "--out ./in.png: is the input file in.png (give another name)");
  EXPECT_EQ(testing_support::slurp(s_dir / "in.png"), before);
  std::filesystem::remove(s_dir / "target.png");
  std::filesystem::remove(s_dir / "link.png");
  std::filesystem::create_symlink("target.png", s_dir / "link.png");
  const ProcessRun r = run_in(s_dir, script("traffic_bars.py") + " results.h5 --out link.png");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::filesystem::is_symlink(s_dir / "link.png"));
  EXPECT_TRUE(std::filesystem::is_regular_file(s_dir / "target.png"));
  EXPECT_EQ(files_containing(".tmp-"), std::vector<std::string>{});
}

// The scripts read only the documented layout, and say so in one line when it is not there.
TEST_F(PlotScriptsTest, WrongInputIsOneLineAndExitTwo) {
  ASSERT_EQ(results().exit_code, 0) << results().err;
  ASSERT_EQ(sweep().exit_code, 0) << sweep().err;
  ProcessRun r = run_in(s_dir, script("stash_vs_depth.py") + " results.h5 --out x.png");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("stash_vs_depth.py: error: results.h5 has no /sweep/points table"), std::string::npos)
      << r.err;
  r = run_in(s_dir, script("traffic_bars.py") + " sweep.h5 --out x.png");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("has no /runs/schedules"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(s_dir / "x.png"));
}

// A directory is not "no such file"; one job's point file of a sweep is not a sweep to plot ("the sweep
// varies no numeric key" was the hint, for a sweep that varies model.depth).
TEST_F(PlotScriptsTest, ADirectoryOrAPointFileIsNamedForWhatItIs) {
  ASSERT_EQ(sweep().exit_code, 0) << sweep().err;
  std::filesystem::create_directories(s_dir / "somedir");
  for (const char* name :
       {"traffic_bars.py", "stash_timeline.py", "tile_heatmaps.py", "loss_curves.py", "stash_vs_depth.py"})
    expect_one_line_error(run_in(s_dir, script(name) + " somedir --out x.png"), name,
                          "somedir: is a directory; give an HDF5 file spatialsim wrote");
  std::filesystem::copy_file(s_dir / "sweep.h5", s_dir / "point.h5",
                             std::filesystem::copy_options::overwrite_existing);
  // The attribute every point file has (docs/sweeps.md), on a copy of a finished sweep's file.
  const ProcessRun marked = run_in(s_dir, std::string(testing_support::kPython) +
                                              " -c 'import h5py; h5py.File(\"point.h5\", \"a\").attrs["
                                              "\"sweep_point_of\"] = \"sweep.h5\"'");
  ASSERT_EQ(marked.exit_code, 0) << marked.err;
  expect_one_line_error(run_in(s_dir, script("stash_vs_depth.py") + " point.h5 --out x.png"),
                        "stash_vs_depth.py",
                        "point.h5 is one job's point file of the sweep that writes sweep.h5");
  EXPECT_FALSE(std::filesystem::exists(s_dir / "x.png"));
}

// Nothing drawable is bad input, not an empty figure: a sweep of forward alone stashes nothing, and a
// counting-mode sweep has no loss (it drew empty panels with a made-up range and exit code 0).
TEST_F(PlotScriptsTest, StashVsDepthRefusesAPlotWithNothingOnIt) {
  ASSERT_EQ(sweep().exit_code, 0) << sweep().err;
  const ProcessRun run = run_in(s_dir, std::string("'") + SPATIALSIM_BINARY +
                                           "' sweep --vary model.depth=2,4 --schedule=forward "
                                           "--sim.arith=none --out=forward_only.h5");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  expect_one_line_error(
      run_in(s_dir, script("stash_vs_depth.py") + " forward_only.h5 --out empty.png"), "stash_vs_depth.py",
      "forward_only.h5: nothing to plot on log axes (forward: 0 at every point, none on log "
      "axes)");
  expect_one_line_error(
      run_in(s_dir, script("stash_vs_depth.py") + " sweep.h5 --metric final_loss --out empty.png"),
      "stash_vs_depth.py", "final_loss not a number at every point (counting mode records no loss)");
  EXPECT_FALSE(std::filesystem::exists(s_dir / "empty.png"));
  // One panel with points is a plot: the empty one says why it is empty.
  const std::string png =
      expect_png("stash_vs_depth.py", "sweep.h5", "--metric final_loss --metric byte_hops");
  EXPECT_NE(png.find("backprop: final_loss not a number at every point"), std::string::npos) << png;
}

// A file that lacks an object or attribute of the documented layout (damaged, or edited) is one line
// naming it, exit code 2: they were KeyError, TypeError or StopIteration tracebacks.
TEST_F(PlotScriptsTest, AFileMissingWhatAPlotReadsIsOneLine) {
  ASSERT_EQ(results().exit_code, 0) << results().err;
  const auto damaged = [](const std::string& name, const std::string& edit) {
    std::filesystem::copy_file(s_dir / "results.h5", s_dir / name,
                               std::filesystem::copy_options::overwrite_existing);
    const ProcessRun r =
        run_in(s_dir, std::string(testing_support::kPython) + " -c 'import h5py, numpy; f = h5py.File(\"" +
                          name + "\", \"a\"); " + edit + "'");
    ASSERT_EQ(r.exit_code, 0) << r.err;
  };
  struct Damage {
    const char* file;
    const char* edit;  // Python on the h5py.File f
    const char* script;
    const char* said;
  };
  for (const Damage& d : {
           Damage{"no_energy.h5", "del f[\"/runs/backprop/energy_hop_pj\"]", "traffic_bars.py",
                  "no_energy.h5: "},
           Damage{"no_kinds.h5", "del f[\"/runs/backprop/byte_hops_by_phase_kind\"].attrs[\"kinds\"]",
                  "traffic_bars.py", "kinds"},
           Damage{"no_column.h5", "del f[\"/runs/backprop/trace/stash/layer_bytes\"]", "stash_timeline.py",
                  "lists column layer_bytes but has no such dataset"},
           Damage{"no_steps.h5", "del f[\"/runs/backprop/trace/steps\"]", "stash_timeline.py",
                  "/runs/backprop has no trace/steps;"},
       }) {
    damaged(d.file, d.edit);
    expect_one_line_error(run_in(s_dir, script(d.script) + " " + d.file + " --out x.png"), d.script, d.said);
  }
  damaged("no_runs.h5",
          "del f[\"/runs/schedules\"]; f.create_dataset(\"/runs/schedules\", data=numpy.array([], "
          "dtype=h5py.string_dtype()))");
  for (const char* name : {"traffic_bars.py", "stash_timeline.py", "tile_heatmaps.py", "loss_curves.py"})
    expect_one_line_error(run_in(s_dir, script(name) + " no_runs.h5 --out x.png"), name,
                          "no_runs.h5: /runs/schedules is empty");
  EXPECT_FALSE(std::filesystem::exists(s_dir / "x.png"));
}

// A step's close at zero and the next step's first change can fall on one cycle; the state kept there
// must be the next step's (the close hid a store at a step's cycle 0, halving the area in this case).
TEST_F(PlotScriptsTest, StashTimelineKeepsAStoreAtAStepsFirstCycle) {
  const std::string code =
      "import sys; sys.argv = [\"x\"]; sys.path.insert(0, \"" +
      std::filesystem::path(testing_support::plot_script("stash_timeline.py")).parent_path().string() +
      "\"); import numpy as np; from stash_timeline import timeline; "
      "t, p = timeline({\"step\": np.array([0, 0, 1, 1]), \"cycle\": np.array([0, 5, 0, 5]), "
      "\"layer\": np.zeros(4, dtype=int), \"layer_bytes\": np.array([100, 0, 100, 0])}, "
      "{\"step\": np.array([0, 1]), \"start_cycle\": np.array([0, 10]), \"makespan_cycles\": np.array([10, "
      "10])}); print(int(np.sum(np.diff(t) * p[:-1].sum(axis=1))))";
  const ProcessRun r = run_in(s_dir, std::string(testing_support::kPython) + " -B -c '" + code + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "1000\n");  // two steps, each 100 bytes for 5 cycles
}

// A deep model's timeline maps colour to layer with a colour bar: a legend of 33 entries per panel ran
// off the figure (matplotlib: "Tight layout not applied").
TEST_F(PlotScriptsTest, StashTimelineOfADeepModelHasAColourBarNotALegendPerLayer) {
  const ProcessRun run = run_in(s_dir, std::string("'") + SPATIALSIM_BINARY +
                                           "' run --schedule=backprop --model.depth=32 --train.steps=1 "
                                           "--sim.arith=none --trace --out=deep.h5");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::filesystem::path png_file = s_dir / "deep_timeline.png";
  const ProcessRun r = run_in(s_dir, script("stash_timeline.py") + " deep.h5 --out deep_timeline.png");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");  // no layout warning
  const std::string png = testing_support::slurp(png_file);
  EXPECT_NE(png.find("total"), std::string::npos);
  EXPECT_EQ(png.find("layer 0"), std::string::npos);
  // The tile maps of that 66 x 2 grid are drawn stretched, and say so.
  EXPECT_NE(expect_png("tile_heatmaps.py", "deep.h5").find("tiles, drawn stretched)"), std::string::npos);
}

// With one step every schedule's loss is taken before any update, so all coincide: that says nothing of
// which schedules compute the same gradient, and the legend no longer claims it; the title says why.
// Schedules whose forward products have the same shapes: forward gradients' wider products (tangents
// stacked) round otherwise with some OpenBLAS kernels (Haswell's), and their losses differ in the last bits.
TEST_F(PlotScriptsTest, LossCurvesOfOneStepClaimNoSameLoss) {
  const ProcessRun run = run_in(s_dir, std::string("'") + SPATIALSIM_BINARY +
                                           "' run --schedule=backprop,checkpoint,revolve "
                                           "--train.steps=1 --out=one_step.h5");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::string png = expect_png("loss_curves.py", "one_step.h5");
  EXPECT_EQ(png.find("same loss as"), std::string::npos) << png;
  EXPECT_NE(png.find("one step: its loss is taken before any update, the same for every schedule"),
            std::string::npos)
      << png;
}

}  // namespace
}  // namespace spatialsim::analysis
