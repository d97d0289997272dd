// The results writer, read back through the HDF5 C++ API: config and setup attributes, every metric with
// its unit, the (phase, kind) counters, the per-tile maps (shape and energy sum), loss and overflows.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "analysis/results_writer.h"
#include "analysis/run_metrics.h"
#include "cli/command_line.h"
#include "sim/blas_kernels.h"
#include "tests/analysis/hdf5_test_support.h"
#include "workloads/run_setup.h"
#include "workloads/training_run.h"

namespace spatialsim::analysis {
namespace {

using testing::dims_of;
using testing::read_all;
using testing::read_string_array_attribute;
using testing::read_string_attribute;

class ResultsWriterTest : public testing::ScratchDirTest {};

constexpr std::uint32_t kWidth = 3;
constexpr std::uint32_t kHeight = 2;

// A run with distinct numbers everywhere, so that a transposed map or a swapped axis shows.
workloads::RunResult hand_built_run(const std::string& schedule) {
  workloads::RunResult r;
  r.schedule = schedule;
  r.grid_width = kWidth;
  r.grid_height = kHeight;
  r.tiles = sim::TileCounters(kWidth * kHeight);
  std::uint64_t tile_hops = 0;
  for (std::uint32_t t = 0; t < kWidth * kHeight; ++t) {
    r.tiles.bytes_sent[t] = 10 + t;
    r.tiles.bytes_received[t] = 20 + t;
    r.tiles.byte_hops_sent[t] = 100 * (t + 1);
    r.tiles.flops[t] = 1000 + 7 * t;
    r.tiles.sram_bytes[t] = 300 + 3 * t;
    r.tiles.peak_stash_bytes[t] = 5 * t;
    tile_hops += r.tiles.byte_hops_sent[t];
    r.counters.flops[0] += r.tiles.flops[t];
    r.counters.sram_bytes[1] += r.tiles.sram_bytes[t];
  }
  for (std::size_t p = 0; p < sim::kPhaseCount; ++p) {
    for (std::size_t k = 0; k < sim::kMessageKindCount; ++k) {
      r.counters.bytes.cells[p][k] = 11 * p + k;
      r.counters.messages.cells[p][k] = 3 * p + 2 * k;
    }
  }
  // The tiles' byte-hops, split over cells, plus 40 byte-hops sent by the host.
  r.counters.byte_hops.at(sim::Phase::forward, sim::MessageKind::lane) = tile_hops / 2;
  r.counters.byte_hops.at(sim::Phase::backward, sim::MessageKind::psum) = tile_hops - tile_hops / 2;
  r.counters.byte_hops.at(sim::Phase::forward, sim::MessageKind::host) = 40;
  r.counters.depth = 17;
  r.counters.makespan_cycles = 123;
  r.counters.inflight_byte_cycles = 4567;
  r.counters.peak_stash_bytes = 890;
  r.loss_per_step = {0.75, 0.5};
  r.overflows = {{.tile = 4, .category = sim::StorageCategory::stash, .excess_bytes = 64, .first_cycle = 9}};
  r.wall_seconds = 0.25;
  return r;
}

workloads::RunSetup hand_built_setup() {
  workloads::RunSetup s;
  s.grid_width = kWidth;
  s.grid_height = kHeight;
  s.prices = {"testpreset", 0.4, 1.0, 0.1};
  return s;
}

sim::Config small_config() {
  sim::Config c;
  c.set("schedule", "forward,backprop", "command line");
  c.set("model.depth", "4", "default");
  c.set("energy.hop_pj", "", "default");
  return c;
}

TEST_F(ResultsWriterTest, RoundTripsAttributesMetricsCountersAndMaps) {
  const auto setup = hand_built_setup();
  const std::vector<workloads::RunResult> runs = {hand_built_run("forward"), hand_built_run("backprop")};
  {
    Hdf5File file(path("r.h5"));
    write_results(file, small_config(), setup, runs, &runs[0], "9.9.9");
    file.commit();
  }
  H5::H5File in(path("r.h5"), H5F_ACC_RDONLY);
  const H5::Group root = in.openGroup("/");
  EXPECT_EQ(read_string_attribute(root, "config.schedule"), "forward,backprop");
  EXPECT_EQ(read_string_attribute(root, "config.model.depth"), "4");
  EXPECT_EQ(read_string_attribute(root, "config.energy.hop_pj"), "");
  EXPECT_EQ(read_string_attribute(root, "spatialsim_version"), "9.9.9");
  EXPECT_EQ(read_string_attribute(root, "blas"), sim::blas_configuration());
  EXPECT_EQ(read_string_attribute(root, "energy_preset"), "testpreset");
  EXPECT_EQ(testing::read_attribute<double>(root, "energy_hop_pj", H5::PredType::NATIVE_DOUBLE), 0.4);
  EXPECT_EQ(testing::read_attribute<double>(root, "energy_sram_pj", H5::PredType::NATIVE_DOUBLE), 1.0);
  EXPECT_EQ(testing::read_attribute<double>(root, "energy_flop_pj", H5::PredType::NATIVE_DOUBLE), 0.1);
  EXPECT_EQ(testing::read_attribute<std::uint64_t>(root, "grid_width", H5::PredType::NATIVE_UINT64), kWidth);
  EXPECT_EQ(testing::read_attribute<std::uint64_t>(root, "grid_height", H5::PredType::NATIVE_UINT64),
            kHeight);
  EXPECT_EQ(testing::read_variable_strings(in.openDataSet("/runs/schedules")),
            (std::vector<std::string>{"forward", "backprop"}));

  for (const auto& run : runs) {
    const std::string g = run_group(run.schedule);
    EXPECT_EQ(read_string_attribute(in.openGroup(g), "schedule"), run.schedule);
    // Every metric, with its unit and its exact value.
    for (const Metric& m : run_metrics(run, setup.prices)) {
      SCOPED_TRACE(m.name);
      const H5::DataSet d = in.openDataSet(g + "/" + m.name);
      EXPECT_EQ(read_string_attribute(d, "unit"), m.unit);
      if (std::holds_alternative<std::uint64_t>(m.value)) {
        EXPECT_EQ(read_all<std::uint64_t>(d, H5::PredType::NATIVE_UINT64).at(0),
                  std::get<std::uint64_t>(m.value));
      } else {
        const double v = read_all<double>(d, H5::PredType::NATIVE_DOUBLE).at(0);
        EXPECT_TRUE(v == std::get<double>(m.value) ||
                    (std::isnan(v) && std::isnan(std::get<double>(m.value))));
      }
    }
    // (phase, kind) counters equal the counters cell by cell, with the axes named.
    const H5::DataSet hops = in.openDataSet(g + "/byte_hops_by_phase_kind");
    EXPECT_EQ(dims_of(hops), (std::vector<hsize_t>{sim::kPhaseCount, sim::kMessageKindCount}));
    EXPECT_EQ(read_string_attribute(hops, "unit"), "byte-hops");
    EXPECT_EQ(read_string_array_attribute(hops, "phases"),
              (std::vector<std::string>{"forward", "backward", "recompute", "update"}));
    EXPECT_EQ(read_string_array_attribute(hops, "kinds"),
              (std::vector<std::string>(sim::kMessageKindNames.begin(), sim::kMessageKindNames.end())));
    const auto hop_cells = read_all<std::uint64_t>(hops, H5::PredType::NATIVE_UINT64);
    const auto byte_cells =
        read_all<std::uint64_t>(in.openDataSet(g + "/bytes_by_phase_kind"), H5::PredType::NATIVE_UINT64);
    const auto message_cells =
        read_all<std::uint64_t>(in.openDataSet(g + "/messages_by_phase_kind"), H5::PredType::NATIVE_UINT64);
    for (std::size_t p = 0; p < sim::kPhaseCount; ++p) {
      for (std::size_t k = 0; k < sim::kMessageKindCount; ++k) {
        EXPECT_EQ(hop_cells[p * sim::kMessageKindCount + k], run.counters.byte_hops.cells[p][k]);
        EXPECT_EQ(byte_cells[p * sim::kMessageKindCount + k], run.counters.bytes.cells[p][k]);
        EXPECT_EQ(message_cells[p * sim::kMessageKindCount + k], run.counters.messages.cells[p][k]);
      }
    }
    EXPECT_EQ(read_all<double>(in.openDataSet(g + "/loss"), H5::PredType::NATIVE_DOUBLE), run.loss_per_step);

    // Maps: (height, width), m[y, x] is tile y * width + x.
    const H5::DataSet sent = in.openDataSet(g + "/tiles/bytes_sent");
    EXPECT_EQ(dims_of(sent), (std::vector<hsize_t>{kHeight, kWidth}));
    EXPECT_EQ(read_all<std::uint64_t>(sent, H5::PredType::NATIVE_UINT64), run.tiles.bytes_sent);
    for (const char* map :
         {"bytes_received", "byte_hops_sent", "peak_stash_bytes", "flops", "sram_bytes", "energy_pj"})
      EXPECT_EQ(dims_of(in.openDataSet(g + "/tiles/" + map)), (std::vector<hsize_t>{kHeight, kWidth})) << map;
    const auto tile_pj =
        read_all<double>(in.openDataSet(g + "/tiles/energy_pj"), H5::PredType::NATIVE_DOUBLE);
    const double host_pj =
        read_all<double>(in.openDataSet(g + "/tiles/host_energy_pj"), H5::PredType::NATIVE_DOUBLE).at(0);
    EXPECT_DOUBLE_EQ(host_pj, 40 * 0.4);
    const double total =
        read_all<double>(in.openDataSet(g + "/energy_pj"), H5::PredType::NATIVE_DOUBLE).at(0);
    EXPECT_NEAR(std::accumulate(tile_pj.begin(), tile_pj.end(), 0.0) + host_pj, total, 1e-9 * total);
    EXPECT_DOUBLE_EQ(tile_pj[5], 600 * 0.4 + 315 * 1.0 + 1035 * 0.1);  // tile 5 = (x 2, y 1)

    // Overflows: one row, with its coordinates.
    const H5::Group overflows = in.openGroup(g + "/overflows");
    EXPECT_EQ(read_all<std::uint64_t>(overflows.openDataSet("tile"), H5::PredType::NATIVE_UINT64),
              (std::vector<std::uint64_t>{4}));
    EXPECT_EQ(read_all<std::uint64_t>(overflows.openDataSet("x"), H5::PredType::NATIVE_UINT64),
              (std::vector<std::uint64_t>{1}));
    EXPECT_EQ(read_all<std::uint64_t>(overflows.openDataSet("y"), H5::PredType::NATIVE_UINT64),
              (std::vector<std::uint64_t>{1}));
    EXPECT_EQ(testing::read_fixed_strings(overflows.openDataSet("category")),
              (std::vector<std::string>{"stash"}));
    EXPECT_EQ(read_all<std::uint64_t>(overflows.openDataSet("excess_bytes"), H5::PredType::NATIVE_UINT64),
              (std::vector<std::uint64_t>{64}));
    EXPECT_EQ(read_all<std::uint64_t>(overflows.openDataSet("first_cycle"), H5::PredType::NATIVE_UINT64),
              (std::vector<std::uint64_t>{9}));
  }
}

// Every run but forward gets its machine costs as ratios to forward's, saying where forward's figures are:
// in the file, or a forward run counted for the ratios alone.
TEST_F(ResultsWriterTest, RatiosToForwardForEveryOtherRun) {
  const auto setup = hand_built_setup();
  workloads::RunResult forward = hand_built_run("forward");
  workloads::RunResult backprop = hand_built_run("backprop");
  backprop.counters.depth = 3 * forward.counters.depth;
  backprop.counters.inflight_byte_cycles = 4 * forward.counters.inflight_byte_cycles;
  forward.counters.peak_stash_bytes = 0;  // forward stashes nothing: no ratio
  const auto ratio = [&](const H5::H5File& in, const std::string& name) {
    const auto names = testing::read_variable_strings(in.openDataSet("/runs/backprop/to_forward/metrics"));
    const auto ratios =
        read_all<double>(in.openDataSet("/runs/backprop/to_forward/ratios"), H5::PredType::NATIVE_DOUBLE);
    for (std::size_t i = 0; i < names.size(); ++i)
      if (names[i] == name) return ratios.at(i);
    ADD_FAILURE() << name << " has no ratio";
    return 0.0;
  };
  {
    const std::vector<workloads::RunResult> runs = {forward, backprop};
    Hdf5File file(path("in.h5"));
    write_results(file, small_config(), setup, runs, &runs[0], "9.9.9");
    file.commit();
  }
  {
    const std::vector<workloads::RunResult> runs = {backprop};
    Hdf5File file(path("baseline.h5"));
    write_results(file, small_config(), setup, runs, &forward, "9.9.9");
    file.commit();
  }
  for (const char* name : {"in.h5", "baseline.h5"}) {
    SCOPED_TRACE(name);
    H5::H5File in(path(name), H5F_ACC_RDONLY);
    EXPECT_EQ(ratio(in, "depth"), 3.0);
    EXPECT_EQ(ratio(in, "inflight_byte_cycles"), 4.0);
    EXPECT_EQ(ratio(in, "byte_hops"), 1.0);
    EXPECT_TRUE(std::isnan(ratio(in, "peak_stash_bytes")));
    const auto names = testing::read_variable_strings(in.openDataSet("/runs/backprop/to_forward/metrics"));
    EXPECT_EQ(std::count(names.begin(), names.end(), "wall_seconds"), 0);
    EXPECT_EQ(std::count(names.begin(), names.end(), "final_loss"), 0);
  }
  H5::H5File in(path("in.h5"), H5F_ACC_RDONLY);
  EXPECT_EQ(read_string_attribute(in.openGroup("/runs/backprop/to_forward"), "baseline"), "/runs/forward");
  EXPECT_FALSE(in.nameExists("/runs/forward/to_forward"));
  H5::H5File alone(path("baseline.h5"), H5F_ACC_RDONLY);
  EXPECT_NE(
      read_string_attribute(alone.openGroup("/runs/backprop/to_forward"), "baseline").find("not in /runs"),
      std::string::npos);
  EXPECT_FALSE(alone.nameExists("/runs/forward"));
}

TEST_F(ResultsWriterTest, CountingModeHasAnEmptyLossAndNoOverflowTable) {
  auto run = hand_built_run("forward");
  run.loss_per_step.clear();
  run.overflows.clear();
  {
    Hdf5File file(path("r.h5"));
    write_run(file, run, hand_built_setup().prices);
    file.commit();
  }
  H5::H5File in(path("r.h5"), H5F_ACC_RDONLY);
  EXPECT_EQ(dims_of(in.openDataSet("/runs/forward/loss")), (std::vector<hsize_t>{0}));
  EXPECT_TRUE(std::isnan(
      read_all<double>(in.openDataSet("/runs/forward/final_loss"), H5::PredType::NATIVE_DOUBLE).at(0)));
  EXPECT_FALSE(in.nameExists("/runs/forward/overflows"));
}

TEST_F(ResultsWriterTest, TileEnergyThatDoesNotAddUpIsRefused) {
  auto run = hand_built_run("forward");
  run.tiles.sram_bytes[0] += 1000;  // the tiles now claim more than the totals
  Hdf5File file(path("r.h5"));
  EXPECT_THROW(write_run(file, run, hand_built_setup().prices), std::logic_error);
}

// Real counters from a simulated run (counting and arithmetic mode, a training schedule): the energy
// map with the host's share adds up to energy_pj.
TEST_F(ResultsWriterTest, SimulatedRunEnergyMapAddsUp) {
  for (const char* arith : {"none", "fp32"}) {
    SCOPED_TRACE(arith);
    sim::Config config = cli::default_config();
    config.set("sim.arith", arith, "test");
    const auto setup = workloads::setup_from_config(config);
    const auto run = workloads::run_schedule(setup, config, "backprop");
    const TileEnergy e = tile_energy(run, setup.prices);
    ASSERT_EQ(e.tile_pj.size(), std::size_t{setup.grid_width} * setup.grid_height);
    const double total = energy(run.counters, setup.prices).total_pj();
    EXPECT_GT(e.host_byte_hops, 0u);  // inputs and targets enter from the grid edge
    EXPECT_NEAR(std::accumulate(e.tile_pj.begin(), e.tile_pj.end(), 0.0) + e.host_pj, total, 1e-9 * total);
    const std::string file_name = path(std::string(arith) + ".h5");
    Hdf5File file(file_name);
    EXPECT_EQ(write_run(file, run, setup.prices), "/runs/backprop");
    file.commit();
  }
}

}  // namespace
}  // namespace spatialsim::analysis
