// Sweep files: one committed file per finished job, the assembled /sweep/points and /sweep/slopes tables,
// and --resume running only what is missing, after an interruption or to extend a finished sweep.
#include "analysis/sweep_store.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "analysis/hdf5_file.h"
#include "analysis/output_guard.h"
#include "tests/analysis/child_process.h"
#include "tests/analysis/hdf5_test_support.h"
#include "tests/analysis/test_sweep_support.h"

namespace spatialsim::analysis {
namespace {

using testing::expect_same_results;
using testing::read_all;
using testing::read_fixed_strings;
using testing::small_sweep_config;

const std::string kVersion = "9.8.7-test";  // what the sweep records as spatialsim_version

class SweepStoreTest : public testing::ScratchDirTest {
 protected:
  std::size_t files_in(const std::string& dir, const std::string& ending) const {
    std::size_t n = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir))
      n += e.path().filename().string().find(ending) != std::string::npos ? 1 : 0;
    return n;
  }
};

TEST_F(SweepStoreTest, FinalFileHoldsOneRowPerJobAndTheSlopes) {
  const SweepPlan plan = plan_sweep(small_sweep_config("model.depth=2,3", "forward,backprop"));
  const SweepOutcome o = run_sweep_to_file(plan, path("s.h5"), false, kVersion);
  EXPECT_EQ(o.ran, 4u);
  EXPECT_EQ(o.reused, 0u);
  EXPECT_EQ(dir_entries(), std::vector<std::string>{"s.h5"});  // the per-job directory is gone

  H5::H5File in(path("s.h5"), H5F_ACC_RDONLY);
  const H5::Group points = in.openGroup("/sweep/points");
  const auto columns = testing::read_string_array_attribute(points, "columns");
  ASSERT_GE(columns.size(), 10u);
  EXPECT_EQ(std::vector<std::string>(columns.begin(), columns.begin() + 5),
            (std::vector<std::string>{"point", "schedule", "model.depth", "model.depth.value", "layers"}));
  for (const Metric& m : sweep_metric_schema())
    EXPECT_NE(std::find(columns.begin(), columns.end(), m.name), columns.end()) << m.name;
  EXPECT_EQ(read_fixed_strings(points.openDataSet("schedule")),
            (std::vector<std::string>{"forward", "backprop", "forward", "backprop"}));
  EXPECT_EQ(read_fixed_strings(points.openDataSet("model.depth")),
            (std::vector<std::string>{"2", "2", "3", "3"}));
  EXPECT_EQ(read_all<double>(points.openDataSet("model.depth.value"), H5::PredType::NATIVE_DOUBLE),
            (std::vector<double>{2, 2, 3, 3}));
  EXPECT_EQ(testing::read_string_attribute(points.openDataSet("model.depth.value"), "unit"), "layers");
  const auto hops = read_all<std::uint64_t>(points.openDataSet("byte_hops"), H5::PredType::NATIVE_UINT64);
  const auto hashes = read_all<std::uint64_t>(points.openDataSet("config_hash"), H5::PredType::NATIVE_UINT64);
  for (std::size_t j = 0; j < 4; ++j) {
    EXPECT_EQ(hops[j], std::get<std::uint64_t>(find_metric(o.rows[j].metrics, "byte_hops").value));
    EXPECT_EQ(hashes[j], plan.jobs[j].config_hash);
  }
  EXPECT_EQ(testing::read_string_attribute(in.openGroup("/sweep"), "vary"), "model.depth=2,3");
  EXPECT_EQ(testing::read_string_attribute(in.openGroup("/sweep/config"), "model.width"), "16");

  const H5::Group slopes = in.openGroup("/sweep/slopes");
  EXPECT_EQ(read_fixed_strings(slopes.openDataSet("status")),
            (std::vector<std::string>{"no stash", "no stash", "fit", "fit"}));
  const auto values = read_all<double>(slopes.openDataSet("slope"), H5::PredType::NATIVE_DOUBLE);
  EXPECT_TRUE(std::isnan(values[0]));
  EXPECT_DOUBLE_EQ(values[2], o.slopes[2].fit->slope);
}

TEST_F(SweepStoreTest, ResumeAfterAnInterruptionRunsOnlyTheMissingJobs) {
  sim::Config c = small_sweep_config("model.depth=2,3,4", "forward,backprop");
  c.set("sim.threads", "1", "test");
  const SweepPlan plan = plan_sweep(c);
  const std::string out = path("s.h5");
  // Interrupted: the third job to finish throws (as an interrupt would stop the process there).
  {
    const SweepStore store(plan, out, kVersion);
    std::filesystem::create_directories(store.points_dir());
    std::vector<std::optional<SweepRow>> rows(plan.jobs.size());
    int finished = 0;
    EXPECT_THROW(run_sweep_jobs(plan, rows,
                                [&](std::size_t job) {
                                  if (++finished == 3) throw std::runtime_error("interrupted");
                                  store.save_point(job, *rows[job]);
                                }),
                 std::runtime_error);
    EXPECT_EQ(files_in(store.points_dir(), ".h5"), 2u);
    EXPECT_EQ(files_in(store.points_dir(), ".tmp-"), 0u);  // nothing half-written
  }
  EXPECT_FALSE(std::filesystem::exists(out));

  const SweepOutcome resumed = run_sweep_to_file(plan, out, true, kVersion);
  EXPECT_EQ(resumed.reused, 2u);
  EXPECT_EQ(resumed.ran, plan.jobs.size() - 2);
  EXPECT_TRUE(resumed.notes.empty());

  // The same numbers as an uninterrupted sweep.
  const SweepOutcome fresh = run_sweep_to_file(plan, path("fresh.h5"), false, kVersion);
  EXPECT_EQ(fresh.ran, plan.jobs.size());
  for (std::size_t j = 0; j < plan.jobs.size(); ++j)
    expect_same_results(resumed.rows[j].metrics, fresh.rows[j].metrics);
}

// Interrupted for real (a signal once two jobs are saved: the progress call after a job comes after its
// file is committed), the sweep says how many jobs it keeps and how to run the rest; resuming reuses them.
// Interrupted before any job finished, it keeps nothing, not even the points directory it made.
TEST_F(SweepStoreTest, AnInterruptedSweepSaysWhatItKeptAndHowToResume) {
  sim::Config c = small_sweep_config("model.depth=2,3,4", "forward,backprop");
  c.set("sim.threads", "1", "test");  // the forked child has one thread
  const SweepPlan plan = plan_sweep(c);
  const std::string out = path("s.h5");
  for (const std::size_t stop_at : {2u, 0u}) {
    const testing::ChildResult child = testing::run_child([&] {
      ::signal(SIGINT, SIG_DFL);
      install_interrupt_handlers();
      run_sweep_to_file(plan, out, false, kVersion, [&](const SweepProgress& p) {
        if (p.done == stop_at) ::raise(SIGINT);
      });
    });
    ASSERT_TRUE(WIFSIGNALED(child.status)) << child.status << ": " << child.stderr_text;
    EXPECT_EQ(WTERMSIG(child.status), SIGINT);
    EXPECT_FALSE(std::filesystem::exists(out));
    const std::string points = sweep_points_dir(out);
    if (stop_at == 0) {
      EXPECT_EQ(child.stderr_text,
                "spatialsim: interrupted before any of the 6 jobs finished; nothing was kept\n");
      EXPECT_FALSE(std::filesystem::exists(points));
      continue;
    }
    EXPECT_EQ(
        child.stderr_text,
        "spatialsim: interrupted with 2 of 6 jobs finished and kept; the same command with --sweep.resume "
        "runs only the other 4\n");
    EXPECT_EQ(files_in(points, ".h5"), 2u);
    EXPECT_EQ(files_in(points, ".tmp-"), 0u);
    const SweepOutcome resumed = run_sweep_to_file(plan, out, true, kVersion);
    EXPECT_EQ(resumed.reused, 2u);
    EXPECT_EQ(resumed.ran, 4u);
    std::filesystem::remove(out);
  }
}

TEST_F(SweepStoreTest, ResumeExtendsAFinishedSweepFromItsFile) {
  const std::string out = path("s.h5");
  EXPECT_EQ(run_sweep_to_file(plan_sweep(small_sweep_config("model.depth=2,3", "forward,backprop")), out,
                              false, kVersion)
                .ran,
            4u);
  const SweepPlan more = plan_sweep(small_sweep_config("model.depth=2,3,4", "forward,backprop"));
  const SweepOutcome o = run_sweep_to_file(more, out, true, kVersion);
  EXPECT_EQ(o.reused, 4u);
  EXPECT_EQ(o.ran, 2u);  // depth 4, both schedules
  H5::H5File in(out, H5F_ACC_RDONLY);
  EXPECT_EQ(testing::dims_of(in.openDataSet("/sweep/points/point")), (std::vector<hsize_t>{6}));
}

// --sweep.resume rewrites <out> with the jobs of the sweep it is given, so a stored result that matches none
// of them (another --vary, --schedule or option in the config hash) would be dropped: the sweep refuses
// before anything runs or any file is touched, with one message naming the option and the fixes.
class SweepResumeRefusalTest : public SweepStoreTest {
 protected:
  static std::string bytes_of(const std::string& file) {
    std::ifstream in(file, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }
  // Expects `plan` resumed into `out` to be refused with `problem`, leaving the directory as it was.
  void expect_refused(const SweepPlan& plan, const std::string& out, const std::string& problem) {
    const std::vector<std::string> entries = dir_entries();
    const std::string before = std::filesystem::exists(out) ? bytes_of(out) : "";
    try {
      run_sweep_to_file(plan, out, true, kVersion);
      ADD_FAILURE() << "resume was not refused";
    } catch (const OutputError& e) {
      EXPECT_EQ(e.problem(), problem);
      EXPECT_EQ(std::string(e.what()), "out = \"" + out + "\": " + problem);
    }
    EXPECT_EQ(dir_entries(), entries) << "a file was created or removed";
    if (std::filesystem::exists(out)) {
      EXPECT_EQ(bytes_of(out), before) << out << " changed";
    }
  }
  static std::string fixes(const std::string& out) {
    return "; resume with the --vary, --schedule and other options that wrote them, give this sweep another "
           "--out, or leave out --sweep.resume to replace " +
           out;
  }
};

TEST_F(SweepResumeRefusalTest, AnotherVaryIsRefusedAndTouchesNothing) {
  const std::string out = path("s.h5");
  run_sweep_to_file(plan_sweep(small_sweep_config("model.depth=2,3", "forward")), out, false, kVersion);
  const std::string written = "(written with --vary \"model.depth=2,3\" --schedule forward)";
  const std::string drop = "--sweep.resume would drop stored results that match no job of this sweep: ";
  expect_refused(plan_sweep(small_sweep_config("model.width=8,16", "forward")), out,
                 drop + "all 2 rows in " + out + " " + written + fixes(out));
  // Partly matching: depth 3 would be reused, depth 2 dropped.
  expect_refused(plan_sweep(small_sweep_config("model.depth=3,4", "forward")), out,
                 drop + "1 of the 2 rows in " + out + " " + written + fixes(out));
  // A subset of the values, or of the schedules, drops the rest as well.
  expect_refused(plan_sweep(small_sweep_config("model.depth=2", "forward")), out,
                 drop + "1 of the 2 rows in " + out + " " + written + fixes(out));
  run_sweep_to_file(plan_sweep(small_sweep_config("model.depth=2,3", "forward,backprop")), out, false,
                    kVersion);
  expect_refused(plan_sweep(small_sweep_config("model.depth=2,3", "forward")), out,
                 drop + "2 of the 4 rows in " + out +
                     " (written with --vary \"model.depth=2,3\" --schedule forward,backprop)" + fixes(out));
  // The check on its own, as the front end makes it before anything runs.
  EXPECT_THROW(check_sweep_resumable(plan_sweep(small_sweep_config("model.depth=4", "forward")), out),
               OutputError);
  EXPECT_NO_THROW(
      check_sweep_resumable(plan_sweep(small_sweep_config("model.depth=2,3,4", "forward,backprop")), out));
  EXPECT_NO_THROW(
      check_sweep_resumable(plan_sweep(small_sweep_config("model.depth=2", "forward")), path("new.h5")));
}

// The same --vary with another option that changes a result (model.width): other config hashes.
TEST_F(SweepResumeRefusalTest, AnotherOptionInTheConfigHashIsRefused) {
  const std::string out = path("s.h5");
  run_sweep_to_file(plan_sweep(small_sweep_config("model.depth=2,3", "backprop")), out, false, kVersion);
  sim::Config other = small_sweep_config("model.depth=2,3", "backprop");
  other.set("model.width", "8", "test");
  expect_refused(plan_sweep(other), out,
                 "--sweep.resume would drop stored results that match no job of this sweep: all 2 rows in " +
                     out + " (written with this --vary and --schedule, but other options)" + fixes(out));
}

// Keys left out of the config hash (sweep.cpp: out, sim.threads, the checks and traces) may change.
TEST_F(SweepResumeRefusalTest, KeysOutsideTheConfigHashMayChange) {
  const std::string out = path("s.h5");
  sim::Config c = small_sweep_config("model.depth=2,3", "forward");
  c.set("sim.threads", "1", "test");
  run_sweep_to_file(plan_sweep(c), out, false, kVersion);
  c.set("sim.threads", "2", "test");
  c.set("out", "elsewhere.h5", "test");
  EXPECT_NO_THROW(check_sweep_resumable(plan_sweep(c), out));
  const SweepOutcome o = run_sweep_to_file(plan_sweep(c), out, true, kVersion);
  EXPECT_EQ(o.reused, 2u);
  EXPECT_EQ(o.ran, 0u);
  EXPECT_TRUE(o.notes.empty());
}

// An interrupted sweep's point files are its results too: resuming another sweep into the same out would
// finish without them (they stay in <out>.points, in no <out>), so it is refused as well. Files there that
// are not sweep files are not results and change nothing (OnlyItsOwnPointFilesAreRemoved).
TEST_F(SweepResumeRefusalTest, PointFilesOfAnotherSweepAreRefused) {
  const std::string out = path("s.h5");
  const SweepPlan interrupted = plan_sweep(small_sweep_config("model.depth=2,3,4", "forward"));
  const SweepStore store(interrupted, out, kVersion);
  std::filesystem::create_directories(store.points_dir());
  store.save_point(0, run_sweep_job(interrupted, 0));
  store.save_point(2, run_sweep_job(interrupted, 2));
  std::ofstream(store.points_dir() + "/junk") << "not the sweep's";
  const std::string before0 = bytes_of(store.point_path(0));
  expect_refused(
      plan_sweep(small_sweep_config("model.depth=3,4", "forward")), out,
      "--sweep.resume would drop stored results that match no job of this sweep: 1 point file in " +
          store.points_dir() +
          " (written with --vary \"model.depth=2,3,4\" --schedule forward); resume with the --vary, "
          "--schedule and other options that wrote them, give this sweep another --out, or leave "
          "out --sweep.resume to run every job anew");
  EXPECT_EQ(bytes_of(store.point_path(0)), before0);
  EXPECT_EQ(files_in(store.points_dir(), ""), 3u);

  // With the finished rows of a third sweep in <out> as well, both are counted.
  run_sweep_to_file(plan_sweep(small_sweep_config("model.width=8", "forward")), path("w.h5"), false,
                    kVersion);
  std::filesystem::copy_file(path("w.h5"), out);
  std::filesystem::remove(path("w.h5"));
  expect_refused(plan_sweep(small_sweep_config("model.depth=3,4", "forward")), out,
                 "--sweep.resume would drop stored results that match no job of this sweep: the row in " +
                     out +
                     " (written with --vary \"model.width=8\" --schedule forward) and 1 point file in " +
                     store.points_dir() + fixes(out));

  // The interrupted sweep itself, or one that extends it, resumes: nothing is dropped.
  std::filesystem::remove(out);
  const SweepOutcome o = run_sweep_to_file(plan_sweep(small_sweep_config("model.depth=2,3,4,5", "forward")),
                                           out, true, kVersion);
  EXPECT_EQ(o.reused, 2u);
  EXPECT_EQ(o.ran, 2u);
}

// Extending a finished sweep (more values: every stored row is one of its jobs) still reuses them all.
TEST_F(SweepResumeRefusalTest, ASupersetOfTheStoredJobsResumes) {
  const std::string out = path("s.h5");
  run_sweep_to_file(plan_sweep(small_sweep_config("model.depth=2,3", "forward")), out, false, kVersion);
  const SweepOutcome same =
      run_sweep_to_file(plan_sweep(small_sweep_config("model.depth=2,3", "forward")), out, true, kVersion);
  EXPECT_EQ(same.reused, 2u);
  EXPECT_EQ(same.ran, 0u);
  const SweepOutcome more = run_sweep_to_file(
      plan_sweep(small_sweep_config("model.depth=2,3;model.width=16,8", "forward,backprop")), out, true,
      kVersion);
  EXPECT_EQ(more.reused, 2u);
  EXPECT_EQ(more.ran, 6u);
  EXPECT_TRUE(more.notes.empty());
}

TEST_F(SweepStoreTest, WithoutResumeEverythingRunsAndAnUnreadableFileIsRunAgain) {
  const SweepPlan plan = plan_sweep(small_sweep_config("model.depth=2,3", "forward"));
  const std::string out = path("s.h5");
  const SweepStore store(plan, out, kVersion);
  std::filesystem::create_directories(store.points_dir());
  store.save_point(0, run_sweep_job(plan, 0));
  std::ofstream(store.point_path(1)) << "not an HDF5 file";

  const SweepOutcome o = run_sweep_to_file(plan, out, true, kVersion);
  EXPECT_EQ(o.reused, 1u);
  EXPECT_EQ(o.ran, 1u);
  ASSERT_EQ(o.notes.size(), 1u);
  EXPECT_NE(o.notes[0].find("cannot reuse " + store.point_path(1)), std::string::npos) << o.notes[0];

  EXPECT_EQ(run_sweep_to_file(plan, out, false, kVersion).ran, 2u);
}

// The directory of point files may hold files the sweep did not write (a user's, another sweep's): only
// this sweep's point files go, and the directory stays (with a note) as long as something else is in it.
TEST_F(SweepStoreTest, OnlyItsOwnPointFilesAreRemoved) {
  const SweepPlan plan = plan_sweep(small_sweep_config("model.depth=2,3", "forward,backprop"));
  const std::string out = path("s.h5");
  const SweepStore store(plan, out, kVersion);
  std::filesystem::create_directories(store.points_dir());
  std::ofstream(store.points_dir() + "/junk") << "not the sweep's";
  std::ofstream(store.points_dir() + "/backprop-0000000000000000.h5") << "another sweep's point";

  for (const bool resume : {false, true}) {
    const SweepOutcome o = run_sweep_to_file(plan, out, resume, kVersion);
    EXPECT_EQ(o.ran + o.reused, plan.jobs.size());
    EXPECT_EQ(files_in(store.points_dir(), ""), 2u) << "resume " << resume;
    EXPECT_TRUE(std::filesystem::exists(store.points_dir() + "/junk"));
    EXPECT_TRUE(std::filesystem::exists(store.points_dir() + "/backprop-0000000000000000.h5"));
    for (std::size_t job = 0; job < plan.jobs.size(); ++job)
      EXPECT_FALSE(std::filesystem::exists(store.point_path(job))) << job;
    ASSERT_FALSE(o.notes.empty());
    EXPECT_NE(o.notes.back().find("kept " + store.points_dir() +
                                  ": it holds 2 file(s) this sweep did not write "
                                  "(backprop-0000000000000000.h5, junk)"),
              std::string::npos)
        << o.notes.back();
  }
  // Once the other files are gone, the empty directory goes too.
  std::filesystem::remove(store.points_dir() + "/junk");
  std::filesystem::remove(store.points_dir() + "/backprop-0000000000000000.h5");
  const SweepOutcome o = run_sweep_to_file(plan, out, false, kVersion);
  EXPECT_TRUE(o.notes.empty());
  EXPECT_EQ(dir_entries(), std::vector<std::string>{"s.h5"});
}

// A resumed sweep's reused point files are its own: they go once their rows are in <out>.
TEST_F(SweepStoreTest, ReusedPointFilesAreRemovedWithTheDirectory) {
  const SweepPlan plan = plan_sweep(small_sweep_config("model.depth=2,3", "forward"));
  const std::string out = path("s.h5");
  const SweepStore store(plan, out, kVersion);
  std::filesystem::create_directories(store.points_dir());
  store.save_point(1, run_sweep_job(plan, 1));
  const SweepOutcome o = run_sweep_to_file(plan, out, true, kVersion);
  EXPECT_EQ(o.reused, 1u);
  EXPECT_TRUE(o.notes.empty());
  EXPECT_EQ(dir_entries(), std::vector<std::string>{"s.h5"});
}

// A sweep file says which program wrote it, with which prices, on which grid (as a results file does).
TEST_F(SweepStoreTest, RecordsTheVersionThePricesAndEachRowsGrid) {
  const SweepPlan plan = plan_sweep(small_sweep_config("model.depth=2,8", "forward"));
  const std::string out = path("s.h5");
  run_sweep_to_file(plan, out, false, kVersion);
  H5::H5File in(out, H5F_ACC_RDONLY);
  const H5::Group sweep = in.openGroup("/sweep");
  EXPECT_EQ(testing::read_string_attribute(sweep, "spatialsim_version"), kVersion);
  const sim::EnergyPrices& prices = plan.points[0].setup.prices;
  EXPECT_EQ(testing::read_string_attribute(sweep, "energy_preset"), prices.preset);
  EXPECT_EQ(testing::read_attribute<double>(sweep, "energy_hop_pj", H5::PredType::NATIVE_DOUBLE),
            prices.hop_pj);
  EXPECT_EQ(testing::read_attribute<double>(sweep, "energy_sram_pj", H5::PredType::NATIVE_DOUBLE),
            prices.sram_pj);
  EXPECT_EQ(testing::read_attribute<double>(sweep, "energy_flop_pj", H5::PredType::NATIVE_DOUBLE),
            prices.flop_pj);

  // mapping.grid = auto: the grid follows the placement, so it differs between the points.
  const H5::Group points = in.openGroup("/sweep/points");
  const auto width = read_all<std::uint64_t>(points.openDataSet("grid_width"), H5::PredType::NATIVE_UINT64);
  const auto height = read_all<std::uint64_t>(points.openDataSet("grid_height"), H5::PredType::NATIVE_UINT64);
  ASSERT_EQ(width.size(), 2u);
  for (std::size_t j = 0; j < 2; ++j) {
    EXPECT_EQ(width[j], plan.points[j].setup.grid_width);
    EXPECT_EQ(height[j], plan.points[j].setup.grid_height);
  }
  EXPECT_NE(width[0] * height[0], width[1] * height[1]);
  EXPECT_EQ(testing::read_string_attribute(points.openDataSet("grid_width"), "unit"), "tiles");
  EXPECT_EQ(read_all<double>(points.openDataSet("price_hop_pj"), H5::PredType::NATIVE_DOUBLE),
            (std::vector<double>{prices.hop_pj, prices.hop_pj}));
}

// The wavefronts column is ceil(T / T_g) even where T + T_g passes 2^32 (it wrapped to 0 there): 2^32 - 1
// tokens in wavefronts of 2^31 are 2.
TEST_F(SweepStoreTest, WavefrontsColumnIsTheCeilingAtTheLargestStep) {
  sim::Config config = small_sweep_config("model.width=16,24", "backprop");
  config.set("step.tokens", "4294967295", "test");
  config.set("step.wavefront", "2147483648", "test");
  const SweepPlan plan = plan_sweep(config);
  const std::string out = path("s.h5");
  run_sweep_to_file(plan, out, false, kVersion);
  H5::H5File in(out, H5F_ACC_RDONLY);
  EXPECT_EQ(read_all<std::uint64_t>(in.openDataSet("/sweep/points/wavefronts"), H5::PredType::NATIVE_UINT64),
            (std::vector<std::uint64_t>{2, 2}));
}

// Varied prices have no single value for /sweep: the attributes are left out, each row has its own.
TEST_F(SweepStoreTest, VariedPricesAreInTheRowsOnly) {
  const SweepPlan plan = plan_sweep(small_sweep_config("energy.preset=dally2022,dally2023", "forward"));
  const std::string out = path("s.h5");
  run_sweep_to_file(plan, out, false, kVersion);
  H5::H5File in(out, H5F_ACC_RDONLY);
  const H5::Group sweep = in.openGroup("/sweep");
  EXPECT_TRUE(sweep.attrExists("spatialsim_version"));
  for (const char* name : {"energy_preset", "energy_hop_pj", "energy_sram_pj", "energy_flop_pj"})
    EXPECT_FALSE(sweep.attrExists(name)) << name;
  const H5::Group points = in.openGroup("/sweep/points");
  EXPECT_EQ(read_fixed_strings(points.openDataSet("energy_preset")),
            (std::vector<std::string>{"dally2022", "dally2023"}));
  const auto hop = read_all<double>(points.openDataSet("price_hop_pj"), H5::PredType::NATIVE_DOUBLE);
  EXPECT_EQ(hop,
            (std::vector<double>{plan.points[0].setup.prices.hop_pj, plan.points[1].setup.prices.hop_pj}));
  EXPECT_NE(hop[0], hop[1]);
}

// A point file records the sweep it belongs to (root attribute sweep_point_of) and the same /sweep
// attributes and table layout as <out>, with its one row.
TEST_F(SweepStoreTest, PointFileNamesItsSweep) {
  const SweepPlan plan = plan_sweep(small_sweep_config("model.depth=2,3", "forward"));
  const SweepStore store(plan, path("s.h5"), kVersion);
  std::filesystem::create_directories(store.points_dir());
  store.save_point(1, run_sweep_job(plan, 1));
  H5::H5File in(store.point_path(1), H5F_ACC_RDONLY);
  EXPECT_EQ(testing::read_string_attribute(in.openGroup("/"), "sweep_point_of"), path("s.h5"));
  EXPECT_EQ(testing::read_string_attribute(in.openGroup("/sweep"), "spatialsim_version"), kVersion);
  EXPECT_EQ(read_fixed_strings(in.openDataSet("/sweep/points/model.depth")), std::vector<std::string>{"3"});
}

// --sweep.resume reuses the rows of an existing <out>: one that is not a sweep file is refused before
// anything runs (it would be replaced), naming the option and the fix; without resume it is only replaced.
TEST_F(SweepStoreTest, ResumeRefusesAnOutThatIsNotASweepFile) {
  const std::string out = path("res.h5");
  {
    Hdf5File run_file(out);
    run_file.write_scalar("/runs/forward/byte_hops", std::uint64_t{1}, "byte-hops");
    run_file.commit();
  }
  std::ofstream(path("text.h5")) << "not HDF5";
  for (const auto& [file, why] : {std::pair<std::string, std::string>{out, "no /sweep/points table"},
                                  {path("text.h5"), "not an HDF5 file"}}) {
    try {
      check_sweep_writable(file, true);
      ADD_FAILURE() << file << " was accepted";
    } catch (const OutputError& e) {
      EXPECT_EQ(e.problem(), "is not a sweep file (" + why +
                                 "), so --sweep.resume has no rows to reuse in it; give the sweep's own file "
                                 "as --out, or leave out --sweep.resume to replace " +
                                 file);
      EXPECT_EQ(std::string(e.what()), "out = \"" + file + "\": " + e.problem());
    }
    EXPECT_NO_THROW(check_sweep_writable(file, false));
  }
  const SweepPlan plan = plan_sweep(small_sweep_config("model.depth=2", "forward"));
  run_sweep_to_file(plan, path("s.h5"), false, kVersion);
  EXPECT_NO_THROW(check_sweep_writable(path("s.h5"), true));    // a finished sweep: its rows are reused
  EXPECT_NO_THROW(check_sweep_writable(path("new.h5"), true));  // nothing to reuse yet: fine
}

// A stored file written with other metrics is not reused; the note says why in words, not HDF5's.
TEST_F(SweepStoreTest, NoteNamesTheMissingColumn) {
  const SweepPlan plan = plan_sweep(small_sweep_config("model.depth=2", "forward"));
  const std::string out = path("s.h5");
  {
    Hdf5File old_file(out);
    TableWriter t = old_file.create_table("/sweep/points", {{"config_hash", ColumnType::uint64, "1"}});
    t.append({plan.jobs[0].config_hash});
    old_file.commit();
  }
  const SweepOutcome o = run_sweep_to_file(plan, out, true, kVersion);
  EXPECT_EQ(o.reused, 0u);
  ASSERT_EQ(o.notes.size(), 1u);
  EXPECT_EQ(o.notes[0], "cannot reuse the rows of " + out + " (it has no column " +
                            sweep_metric_schema().front().name +
                            " (other metrics)); running their jobs again");
}

}  // namespace
}  // namespace spatialsim::analysis
