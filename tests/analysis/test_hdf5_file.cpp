#include "analysis/hdf5_file.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "tests/analysis/child_process.h"
#include "tests/analysis/hdf5_test_support.h"

namespace spatialsim::analysis {
namespace {

namespace fs = std::filesystem;
using testing::ChildResult;
using testing::dims_of;
using testing::read_all;
using testing::read_attribute;
using testing::read_string_attribute;
using testing::run_child;

class Hdf5FileTest : public testing::ScratchDirTest {};

// ------------------------------------------------------------------------ temporary name and commit

TEST_F(Hdf5FileTest, WritesUnderTemporaryNameUntilCommit) {
  const std::string final_path = path("run.h5");
  Hdf5File file(final_path);
  EXPECT_EQ(file.temp_path(), final_path + ".tmp-" + std::to_string(::getpid()));
  file.write_scalar("/x", 1.5, "s");
  EXPECT_FALSE(fs::exists(final_path));
  EXPECT_TRUE(fs::exists(file.temp_path()));
  file.commit();
  EXPECT_TRUE(file.committed());
  EXPECT_TRUE(fs::exists(final_path));
  EXPECT_FALSE(fs::exists(file.temp_path()));
  EXPECT_EQ(dir_entries(), std::vector<std::string>{"run.h5"});
}

TEST_F(Hdf5FileTest, DestructorWithoutCommitLeavesNothing) {
  {
    Hdf5File file(path("run.h5"));
    file.write_scalar("/x", std::uint64_t{7}, "bytes");
    TableWriter t = file.create_table("/t", {{"a", ColumnType::uint64, "1"}});
    t.append({1u});
  }
  EXPECT_TRUE(dir_entries().empty());
}

TEST_F(Hdf5FileTest, ExceptionDuringWritingLeavesNothing) {
  const auto write_then_fail = [&] {
    Hdf5File file(path("run.h5"));
    file.write_scalar("/x", 1.0, "1");
    file.write_scalar("/x", 2.0, "1");  // second write of the same dataset: an error
    file.commit();
  };
  EXPECT_THROW(write_then_fail(), OutputError);
  EXPECT_TRUE(dir_entries().empty());
}

TEST_F(Hdf5FileTest, CommitReplacesAnOlderFile) {
  const std::string final_path = path("run.h5");
  std::ofstream(final_path) << "old contents";
  Hdf5File file(final_path);
  file.write_scalar("/generation", std::int64_t{2}, "");
  EXPECT_EQ(fs::file_size(final_path), 12u);  // untouched until commit
  file.commit();
  H5::H5File in(final_path, H5F_ACC_RDONLY);
  EXPECT_EQ(read_all<std::int64_t>(in.openDataSet("/generation"), H5::PredType::NATIVE_INT64)[0], 2);
}

TEST_F(Hdf5FileTest, MovedFileKeepsItsTemporaryAndCommitsOnce) {
  Hdf5File a(path("run.h5"));
  Hdf5File b = std::move(a);
  b.write_scalar("/x", 1.0, "1");
  b.commit();
  EXPECT_TRUE(fs::exists(path("run.h5")));
  EXPECT_THROW(b.commit(), std::logic_error);
  EXPECT_THROW(b.write_scalar("/y", 1.0, "1"), std::logic_error);
}

TEST_F(Hdf5FileTest, SameOutputTwiceInOneProcessIsRefused) {
  Hdf5File a(path("run.h5"));
  EXPECT_THROW(Hdf5File b(path("run.h5")), OutputError);
}

// ------------------------------------------------------------------------------ scalars, attributes

TEST_F(Hdf5FileTest, ScalarsRoundTripWithUnits) {
  {
    Hdf5File file(path("run.h5"));
    file.write_scalar("/runs/forward/makespan_cycles", std::uint64_t{18446744073709551615u}, "cycles");
    file.write_scalar("/runs/forward/offset", std::int64_t{-42}, "cycles");
    file.write_scalar("/runs/forward/energy_pj", 0.1 + 0.2, "pJ");
    file.write_scalar("/runs/forward/ratio", 3, "");  // int goes to int64; empty unit becomes "1"
    file.commit();
  }
  H5::H5File in(path("run.h5"), H5F_ACC_RDONLY);
  const H5::DataSet makespan = in.openDataSet("/runs/forward/makespan_cycles");
  EXPECT_EQ(makespan.getDataType(), H5::PredType::STD_U64LE);
  EXPECT_EQ(makespan.getSpace().getSimpleExtentType(), H5S_SCALAR);
  EXPECT_EQ(read_all<std::uint64_t>(makespan, H5::PredType::NATIVE_UINT64)[0], 18446744073709551615u);
  EXPECT_EQ(read_string_attribute(makespan, "unit"), "cycles");

  const H5::DataSet offset = in.openDataSet("/runs/forward/offset");
  EXPECT_EQ(offset.getDataType(), H5::PredType::STD_I64LE);
  EXPECT_EQ(read_all<std::int64_t>(offset, H5::PredType::NATIVE_INT64)[0], -42);

  const H5::DataSet energy = in.openDataSet("/runs/forward/energy_pj");
  EXPECT_EQ(energy.getDataType(), H5::PredType::IEEE_F64LE);
  EXPECT_EQ(read_all<double>(energy, H5::PredType::NATIVE_DOUBLE)[0], 0.1 + 0.2);  // full precision
  EXPECT_EQ(read_string_attribute(energy, "unit"), "pJ");

  const H5::DataSet ratio = in.openDataSet("/runs/forward/ratio");
  EXPECT_EQ(ratio.getDataType(), H5::PredType::STD_I64LE);
  EXPECT_EQ(read_string_attribute(ratio, "unit"), "1");
}

TEST_F(Hdf5FileTest, AttributesOfEveryTypeOnGroupsAndDatasets) {
  {
    Hdf5File file(path("run.h5"));
    file.set_attribute("/config", "schedule", "backprop");  // creates the group /config
    file.set_attribute("/config", "name", std::string("seed 000"));
    file.set_attribute("/config", "hop_pj", 0.4);
    file.set_attribute("/config", "offset", std::int64_t{-3});
    file.set_attribute("/config", "seed", std::uint64_t{1} << 63);
    file.set_attribute("/config", "bias", true);
    file.set_attribute("/config", "recompute", false);
    file.set_attribute("/config", "width", 64);       // int -> int64
    file.set_attribute("/config", "tiles", 16u);      // unsigned -> uint64
    file.set_attribute("/config", "hop_pj", 0.5);     // replaces
    file.set_attribute("/", "format", "spatialsim");  // the root group
    file.write_scalar("/runs/a/flops", std::uint64_t{10}, "flop");
    file.set_attribute("/runs/a/flops", "note", "2 per multiply-add");  // on a dataset
    file.commit();
  }
  H5::H5File in(path("run.h5"), H5F_ACC_RDONLY);
  const H5::Group config = in.openGroup("/config");
  EXPECT_EQ(read_string_attribute(config, "schedule"), "backprop");
  EXPECT_EQ(read_string_attribute(config, "name"), "seed 000");
  EXPECT_EQ(read_attribute<double>(config, "hop_pj", H5::PredType::NATIVE_DOUBLE), 0.5);
  EXPECT_EQ(read_attribute<std::int64_t>(config, "offset", H5::PredType::NATIVE_INT64), -3);
  EXPECT_EQ(read_attribute<std::uint64_t>(config, "seed", H5::PredType::NATIVE_UINT64),
            std::uint64_t{1} << 63);
  EXPECT_EQ(config.openAttribute("bias").getDataType(), H5::PredType::STD_U8LE);  // documented encoding
  EXPECT_EQ(read_attribute<std::uint8_t>(config, "bias", H5::PredType::NATIVE_UINT8), 1);
  EXPECT_EQ(read_attribute<std::uint8_t>(config, "recompute", H5::PredType::NATIVE_UINT8), 0);
  EXPECT_EQ(config.openAttribute("width").getDataType(), H5::PredType::STD_I64LE);
  EXPECT_EQ(config.openAttribute("tiles").getDataType(), H5::PredType::STD_U64LE);
  EXPECT_EQ(read_string_attribute(in.openGroup("/"), "format"), "spatialsim");
  EXPECT_EQ(read_string_attribute(in.openDataSet("/runs/a/flops"), "note"), "2 per multiply-add");
}

TEST_F(Hdf5FileTest, GroupsAreCreatedOnDemand) {
  {
    Hdf5File file(path("run.h5"));
    file.ensure_group("/runs/backprop/check");
    file.ensure_group("runs//backprop/");  // already there; relative and doubled slashes are fine
    file.write_scalar("/runs/forward/phase/x", 1.0, "1");
    file.commit();
  }
  H5::H5File in(path("run.h5"), H5F_ACC_RDONLY);
  EXPECT_EQ(in.childObjType("/runs/backprop/check"), H5O_TYPE_GROUP);
  EXPECT_EQ(in.childObjType("/runs/forward/phase"), H5O_TYPE_GROUP);
}

// ---------------------------------------------------------------------------------- arrays, strings

TEST_F(Hdf5FileTest, ArraysRoundTripInEveryTypeAndShape) {
  const std::vector<double> row_major = {0, 1, 2, 10, 11, 12};  // 2 rows (height) x 3 columns (width)
  const std::vector<float> floats = {0.5f, -1.25f};
  const std::vector<std::uint64_t> counts = {1, 2, 3, 4, 5, 6, 7, 8};
  const std::vector<std::int64_t> deltas = {-1, 0, 1};
  {
    Hdf5File file(path("run.h5"));
    file.write_array("/maps/byte_hops", row_major, {2, 3}, "byte*hop");
    file.write_array("/v/floats", floats, {}, "V");
    file.write_array("/v/counts", counts, {2, 2, 2}, "");
    file.write_array("/v/deltas", deltas, {3}, "cycles");
    file.write_array("/v/empty", std::vector<double>{}, {0, 4}, "1");
    file.commit();
  }
  H5::H5File in(path("run.h5"), H5F_ACC_RDONLY);
  const H5::DataSet map = in.openDataSet("/maps/byte_hops");
  EXPECT_EQ(dims_of(map), (std::vector<hsize_t>{2, 3}));
  EXPECT_EQ(read_all<double>(map, H5::PredType::NATIVE_DOUBLE), row_major);
  EXPECT_EQ(read_string_attribute(map, "unit"), "byte*hop");

  const H5::DataSet f = in.openDataSet("/v/floats");
  EXPECT_EQ(f.getDataType(), H5::PredType::IEEE_F32LE);
  EXPECT_EQ(dims_of(f), (std::vector<hsize_t>{2}));
  EXPECT_EQ(read_all<float>(f, H5::PredType::NATIVE_FLOAT), floats);

  const H5::DataSet c = in.openDataSet("/v/counts");
  EXPECT_EQ(dims_of(c), (std::vector<hsize_t>{2, 2, 2}));
  EXPECT_EQ(read_all<std::uint64_t>(c, H5::PredType::NATIVE_UINT64), counts);
  EXPECT_EQ(read_string_attribute(c, "unit"), "1");

  EXPECT_EQ(read_all<std::int64_t>(in.openDataSet("/v/deltas"), H5::PredType::NATIVE_INT64), deltas);
  EXPECT_EQ(dims_of(in.openDataSet("/v/empty")), (std::vector<hsize_t>{0, 4}));
}

TEST_F(Hdf5FileTest, ArrayShapeMustMatchData) {
  Hdf5File file(path("run.h5"));
  EXPECT_THROW(file.write_array("/a", std::vector<double>{1, 2, 3}, {2, 2}, "1"), std::invalid_argument);
}

TEST_F(Hdf5FileTest, StringsRoundTrip) {
  const std::vector<std::string> names = {"forward", "backprop", "", "ünïcode", std::string(300, 'x')};
  {
    Hdf5File file(path("run.h5"));
    file.write_strings("/runs/schedules", names);
    file.write_strings("/runs/none", {});
    file.commit();
  }
  H5::H5File in(path("run.h5"), H5F_ACC_RDONLY);
  const H5::DataSet ds = in.openDataSet("/runs/schedules");
  EXPECT_TRUE(ds.getStrType().isVariableStr());
  EXPECT_EQ(ds.getStrType().getCset(), H5T_CSET_UTF8);
  EXPECT_EQ(testing::read_variable_strings(ds), names);
  EXPECT_EQ(dims_of(in.openDataSet("/runs/none")), (std::vector<hsize_t>{0}));
}

// -------------------------------------------------------------------------------------------- errors

TEST_F(Hdf5FileTest, ErrorsNameTheFileAndObjectAndPrintNothing) {
  Hdf5File file(path("run.h5"));
  file.write_scalar("/runs/a", 1.0, "1");
  ::testing::internal::CaptureStderr();
  try {
    file.write_scalar("/runs/a/b", 1.0, "1");  // /runs/a is a dataset, not a group
    ADD_FAILURE() << "expected OutputError";
  } catch (const OutputError& e) {
    EXPECT_EQ(e.path(), path("run.h5"));
    EXPECT_NE(std::string(e.what()).find(path("run.h5")), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("/runs/a exists and is not a group"), std::string::npos) << e.what();
  }
  // An error raised inside HDF5 itself (an empty attribute name): converted, and the stack not printed.
  try {
    file.set_attribute("/runs", "", 1.0);
    ADD_FAILURE() << "expected OutputError";
  } catch (const OutputError& e) {
    EXPECT_NE(std::string(e.what()).find("/runs"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("H5A"), std::string::npos) << e.what();  // HDF5's own reason
  }
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
}

TEST_F(Hdf5FileTest, UncreatableFileIsAnOutputErrorAndUnregisters) {
  const std::size_t before = PartialOutputGuard::registered_count();
  EXPECT_THROW(Hdf5File(path("missing_dir/run.h5")), OutputError);
  EXPECT_EQ(PartialOutputGuard::registered_count(), before);
}

TEST_F(Hdf5FileTest, OpenFileIsRegisteredUntilCommit) {
  const std::size_t before = PartialOutputGuard::registered_count();
  Hdf5File file(path("run.h5"));
  EXPECT_EQ(PartialOutputGuard::registered_count(), before + 1);
  file.commit();
  EXPECT_EQ(PartialOutputGuard::registered_count(), before);
}

// -------------------------------------------------------------------------------------- interrupts

class InterruptTest : public testing::ScratchDirTest, public ::testing::WithParamInterface<int> {};

TEST_P(InterruptTest, RemovesPartialOutputAndDiesBySignal) {
  const int signal_number = GetParam();
  const std::string committed = path("earlier.h5");
  const std::string final_path = path("run.h5");
  const ChildResult child = run_child([&] {
    // As in a foreground process: a background job started by a script inherits SIGINT ignored, and an
    // ignored signal stays ignored (IgnoredSignalStaysIgnored).
    ::signal(signal_number, SIG_DFL);
    install_interrupt_handlers();
    {
      Hdf5File earlier(committed);
      earlier.write_scalar("/x", 1.0, "1");
      earlier.commit();  // complete: must survive the interrupt
    }
    Hdf5File file(final_path);
    file.write_scalar("/x", 1.0, "1");
    TableWriter t = file.create_table("/t", {{"a", ColumnType::uint64, "1"}}, {.batch_rows = 4});
    for (std::uint64_t i = 0; i < 10; ++i) t.append({i});
    ::raise(signal_number);
  });
  ASSERT_TRUE(WIFSIGNALED(child.status))
      << "exit status " << child.status << ", stderr: " << child.stderr_text;
  EXPECT_EQ(WTERMSIG(child.status), signal_number);
  const std::string temp = final_path + ".tmp-" + std::to_string(child.pid);
  EXPECT_FALSE(fs::exists(final_path));
  EXPECT_FALSE(fs::exists(temp));
  EXPECT_TRUE(fs::exists(committed));
  EXPECT_EQ(dir_entries(), std::vector<std::string>{"earlier.h5"});
  EXPECT_EQ(child.stderr_text, "spatialsim: interrupted; removed partial output " + temp + " (" + final_path +
                                   " was not written)\n");
}

std::string signal_name(const ::testing::TestParamInfo<int>& param) {
  return sigabbrev_np(param.param);
}

INSTANTIATE_TEST_SUITE_P(InterruptSignals, InterruptTest, ::testing::Values(SIGINT, SIGTERM, SIGHUP),
                         signal_name);

TEST_F(Hdf5FileTest, IgnoredSignalStaysIgnored) {
  const ChildResult child = run_child([&] {
    ::signal(SIGINT, SIG_IGN);  // as under nohup
    install_interrupt_handlers();
    Hdf5File file(path("run.h5"));
    ::raise(SIGINT);
    file.commit();
  });
  EXPECT_TRUE(WIFEXITED(child.status));
  EXPECT_EQ(WEXITSTATUS(child.status), 3);
  EXPECT_TRUE(fs::exists(path("run.h5")));
}

}  // namespace
}  // namespace spatialsim::analysis
