// Sweep files: one committed file per finished job, the assembled /sweep/points and /sweep/slopes tables,
// and --resume running only what is missing, after an interruption or to extend a finished sweep.
#include "analysis/sweep_store.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/analysis/hdf5_test_support.h"
#include "tests/analysis/test_sweep_support.h"

namespace spatialsim::analysis {
namespace {

using testing::expect_same_results;
using testing::read_all;
using testing::read_fixed_strings;
using testing::small_sweep_config;

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
  const SweepOutcome o = run_sweep_to_file(plan, path("s.h5"), false);
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
    const SweepStore store(plan, out);
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

  const SweepOutcome resumed = run_sweep_to_file(plan, out, true);
  EXPECT_EQ(resumed.reused, 2u);
  EXPECT_EQ(resumed.ran, plan.jobs.size() - 2);
  EXPECT_TRUE(resumed.notes.empty());

  // The same numbers as an uninterrupted sweep.
  const SweepOutcome fresh = run_sweep_to_file(plan, path("fresh.h5"), false);
  EXPECT_EQ(fresh.ran, plan.jobs.size());
  for (std::size_t j = 0; j < plan.jobs.size(); ++j)
    expect_same_results(resumed.rows[j].metrics, fresh.rows[j].metrics);
}

TEST_F(SweepStoreTest, ResumeExtendsAFinishedSweepFromItsFile) {
  const std::string out = path("s.h5");
  EXPECT_EQ(
      run_sweep_to_file(plan_sweep(small_sweep_config("model.depth=2,3", "forward,backprop")), out, false)
          .ran,
      4u);
  const SweepPlan more = plan_sweep(small_sweep_config("model.depth=2,3,4", "forward,backprop"));
  const SweepOutcome o = run_sweep_to_file(more, out, true);
  EXPECT_EQ(o.reused, 4u);
  EXPECT_EQ(o.ran, 2u);  // depth 4, both schedules
  H5::H5File in(out, H5F_ACC_RDONLY);
  EXPECT_EQ(testing::dims_of(in.openDataSet("/sweep/points/point")), (std::vector<hsize_t>{6}));
}

TEST_F(SweepStoreTest, ResultsOfAnotherConfigurationAreNotReused) {
  const std::string out = path("s.h5");
  run_sweep_to_file(plan_sweep(small_sweep_config("model.depth=2,3", "backprop")), out, false);
  sim::Config other = small_sweep_config("model.depth=2,3", "backprop");
  other.set("model.width", "8", "test");
  const SweepOutcome o = run_sweep_to_file(plan_sweep(other), out, true);
  EXPECT_EQ(o.reused, 0u);
  EXPECT_EQ(o.ran, 2u);
}

TEST_F(SweepStoreTest, WithoutResumeEverythingRunsAndAnUnreadableFileIsRunAgain) {
  const SweepPlan plan = plan_sweep(small_sweep_config("model.depth=2,3", "forward"));
  const std::string out = path("s.h5");
  const SweepStore store(plan, out);
  std::filesystem::create_directories(store.points_dir());
  store.save_point(0, run_sweep_job(plan, 0));
  std::ofstream(store.point_path(1)) << "not an HDF5 file";

  const SweepOutcome o = run_sweep_to_file(plan, out, true);
  EXPECT_EQ(o.reused, 1u);
  EXPECT_EQ(o.ran, 1u);
  ASSERT_EQ(o.notes.size(), 1u);
  EXPECT_NE(o.notes[0].find("cannot reuse " + store.point_path(1)), std::string::npos) << o.notes[0];

  EXPECT_EQ(run_sweep_to_file(plan, out, false).ran, 2u);
}

}  // namespace
}  // namespace spatialsim::analysis
