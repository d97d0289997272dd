#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "analysis/hdf5_file.h"
#include "tests/analysis/hdf5_test_support.h"

namespace spatialsim::analysis {
namespace {

using testing::read_all;
using testing::read_string_attribute;

class Hdf5TableTest : public testing::ScratchDirTest {};

const std::vector<TableColumn> kTraceColumns = {
    {"cycle", ColumnType::uint64, "cycles"},
    {"delta", ColumnType::int64, "bytes"},
    {"energy", ColumnType::float64, "pJ"},
    {"kind", ColumnType::string, "", 8},
};

std::string kind_of(std::uint64_t i) {
  static const char* const kinds[] = {"lane", "psum", "scalar", "rebroad8"};  // the last is exactly 8 bytes
  return kinds[i % 4];
}

// More than three full batches plus a partial one, every column type, read back through the C++ API.
TEST_F(Hdf5TableTest, RowsRoundTripThroughBatches) {
  constexpr std::size_t kBatch = 100;
  constexpr std::uint64_t kRows = 3 * kBatch + 57;
  {
    Hdf5File file(path("run.h5"));
    TableWriter table = file.create_table("/runs/forward/messages", kTraceColumns, {.batch_rows = kBatch});
    for (std::uint64_t i = 0; i < kRows; ++i) {
      table.append({i, -static_cast<std::int64_t>(i), 0.5 * static_cast<double>(i), kind_of(i)});
      ASSERT_LT(table.buffered_rows(), kBatch);  // memory bounded: a full batch is written at once
    }
    EXPECT_EQ(table.rows(), kRows);
    EXPECT_EQ(table.buffered_rows(), kRows % kBatch);
    file.commit();  // writes the last partial batch
  }
  H5::H5File in(path("run.h5"), H5F_ACC_RDONLY);
  const H5::Group group = in.openGroup("/runs/forward/messages");
  EXPECT_EQ(testing::read_string_array_attribute(group, "columns"),
            (std::vector<std::string>{"cycle", "delta", "energy", "kind"}));

  const auto cycles = read_all<std::uint64_t>(group.openDataSet("cycle"), H5::PredType::NATIVE_UINT64);
  const auto deltas = read_all<std::int64_t>(group.openDataSet("delta"), H5::PredType::NATIVE_INT64);
  const auto energy = read_all<double>(group.openDataSet("energy"), H5::PredType::NATIVE_DOUBLE);
  const auto kinds = testing::read_fixed_strings(group.openDataSet("kind"));
  ASSERT_EQ(cycles.size(), kRows);
  ASSERT_EQ(deltas.size(), kRows);
  ASSERT_EQ(energy.size(), kRows);
  ASSERT_EQ(kinds.size(), kRows);
  for (std::uint64_t i = 0; i < kRows; ++i) {
    ASSERT_EQ(cycles[i], i);
    ASSERT_EQ(deltas[i], -static_cast<std::int64_t>(i));
    ASSERT_EQ(energy[i], 0.5 * static_cast<double>(i));
    ASSERT_EQ(kinds[i], kind_of(i));
  }
  EXPECT_EQ(group.openDataSet("cycle").getDataType(), H5::PredType::STD_U64LE);
  EXPECT_EQ(group.openDataSet("delta").getDataType(), H5::PredType::STD_I64LE);
  EXPECT_EQ(group.openDataSet("energy").getDataType(), H5::PredType::IEEE_F64LE);
  EXPECT_EQ(group.openDataSet("kind").getStrType().getSize(), 8u);
  EXPECT_EQ(read_string_attribute(group.openDataSet("cycle"), "unit"), "cycles");
  EXPECT_EQ(read_string_attribute(group.openDataSet("energy"), "unit"), "pJ");
  EXPECT_EQ(read_string_attribute(group.openDataSet("kind"), "unit"), "1");
  // Creation order is tracked, so readers that list the group see the columns in the given order.
  EXPECT_EQ(group.getObjnameByIdx(0), "cycle");
}

TEST_F(Hdf5TableTest, ColumnsAreChunkedCompressedAndExtendible) {
  constexpr std::size_t kBatch = 256;
  {
    Hdf5File file(path("run.h5"));
    TableWriter table = file.create_table("/t", kTraceColumns, {.batch_rows = kBatch, .deflate_level = 4});
    for (std::uint64_t i = 0; i < 4000; ++i) table.append({i / 16, std::int64_t{0}, 1.0, "psum"});
    file.commit();
  }
  H5::H5File in(path("run.h5"), H5F_ACC_RDONLY);
  for (const char* name : {"cycle", "delta", "energy", "kind"}) {
    const H5::DataSet ds = in.openDataSet(std::string("/t/") + name);
    const H5::DSetCreatPropList dcpl = ds.getCreatePlist();
    EXPECT_EQ(dcpl.getLayout(), H5D_CHUNKED) << name;
    hsize_t chunk = 0;
    dcpl.getChunk(1, &chunk);
    EXPECT_EQ(chunk, kBatch) << name;
    unsigned flags = 0;
    std::size_t n_values = 1;
    unsigned level = 0;
    EXPECT_GE(H5Pget_filter_by_id2(dcpl.getId(), H5Z_FILTER_DEFLATE, &flags, &n_values, &level, 0, nullptr,
                                   nullptr),
              0)
        << name;
    EXPECT_EQ(level, 4u) << name;
    hsize_t size = 0;
    hsize_t max_size = 0;
    ds.getSpace().getSimpleExtentDims(&size, &max_size);
    EXPECT_EQ(size, 4000u);
    EXPECT_EQ(max_size, H5S_UNLIMITED) << name;
    // Repetitive columns must actually shrink: deflate was applied, not just requested.
    EXPECT_LT(ds.getStorageSize(), 4000u * ds.getDataType().getSize() / 4) << name;
  }
}

TEST_F(Hdf5TableTest, UncompressedTableHasNoFilters) {
  {
    Hdf5File file(path("run.h5"));
    TableWriter table = file.create_table("/t", {{"a", ColumnType::float64, "1"}}, {.deflate_level = 0});
    table.append({1.0});
    file.commit();
  }
  H5::H5File in(path("run.h5"), H5F_ACC_RDONLY);
  EXPECT_EQ(in.openDataSet("/t/a").getCreatePlist().getNfilters(), 0);
}

TEST_F(Hdf5TableTest, DroppedWriterKeepsItsRowsUntilCommit) {
  {
    Hdf5File file(path("run.h5"));
    {
      TableWriter table = file.create_table("/t", {{"a", ColumnType::int64, "1"}}, {.batch_rows = 8});
      for (int i = 0; i < 5; ++i) table.append({i});
    }  // the handle is gone; the buffered rows belong to the file now
    TableWriter closed = file.create_table("/u", {{"b", ColumnType::uint64, "1"}});
    closed.append({7u});
    closed.close();
    EXPECT_THROW(closed.append({8u}), std::logic_error);
    file.commit();
    EXPECT_THROW(closed.flush(), std::logic_error);
  }
  H5::H5File in(path("run.h5"), H5F_ACC_RDONLY);
  EXPECT_EQ(read_all<std::int64_t>(in.openDataSet("/t/a"), H5::PredType::NATIVE_INT64),
            (std::vector<std::int64_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(read_all<std::uint64_t>(in.openDataSet("/u/b"), H5::PredType::NATIVE_UINT64),
            (std::vector<std::uint64_t>{7}));
}

TEST_F(Hdf5TableTest, EmptyTableHasZeroLengthColumns) {
  {
    Hdf5File file(path("run.h5"));
    file.create_table("/t", kTraceColumns);
    file.commit();
  }
  H5::H5File in(path("run.h5"), H5F_ACC_RDONLY);
  EXPECT_EQ(testing::dims_of(in.openDataSet("/t/kind")), (std::vector<hsize_t>{0}));
}

TEST_F(Hdf5TableTest, ValuesMustFitTheirColumns) {
  Hdf5File file(path("run.h5"));
  TableWriter table = file.create_table("/t", kTraceColumns, {.batch_rows = 4});
  table.append({std::int64_t{5}, std::uint64_t{6}, 7, "lane"});   // representable: converted
  EXPECT_THROW(table.append({-1, 0, 0.0, "lane"}), OutputError);  // negative into uint64
  EXPECT_THROW(table.append({0u, std::uint64_t{1} << 63, 0.0, "lane"}), OutputError);      // > int64 max
  EXPECT_THROW(table.append({0u, 0, (std::uint64_t{1} << 53) + 1, "lane"}), OutputError);  // inexact
  EXPECT_THROW(table.append({0.5, 0, 0.0, "lane"}), OutputError);           // double into an integer column
  EXPECT_THROW(table.append({0u, 0, "1.0", "lane"}), OutputError);          // text into a number column
  EXPECT_THROW(table.append({0u, 0, 0.0, 3}), OutputError);                 // number into a text column
  EXPECT_THROW(table.append({0u, 0, 0.0, "redistribution"}), OutputError);  // longer than 8 bytes
  EXPECT_THROW(table.append({0u, 0, 0.0}), OutputError);                    // a value missing
  EXPECT_EQ(table.rows(), 1u);  // failed appends left nothing behind
  try {
    table.append({0u, 0, 0.0, "redistribution"});
  } catch (const OutputError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("/t"), std::string::npos) << message;
    EXPECT_NE(message.find("column \"kind\""), std::string::npos) << message;
    EXPECT_NE(message.find("string_length"), std::string::npos) << message;  // what to do
  }
  static_assert(!std::is_constructible_v<TableValue, bool>, "bool must not become a number silently");
}

TEST_F(Hdf5TableTest, BadColumnSpecificationsAreRefused) {
  Hdf5File file(path("run.h5"));
  EXPECT_THROW(file.create_table("/a", {}), std::invalid_argument);
  EXPECT_THROW(file.create_table("/b", {{"x", ColumnType::string, ""}}), std::invalid_argument);
  EXPECT_THROW(file.create_table("/c", {{"x", ColumnType::uint64, "", 4}}), std::invalid_argument);
  EXPECT_THROW(file.create_table("/d", {{"x", ColumnType::uint64, ""}, {"x", ColumnType::int64, ""}}),
               std::invalid_argument);
  EXPECT_THROW(file.create_table("/e", {{"a/b", ColumnType::uint64, ""}}), std::invalid_argument);
  EXPECT_THROW(file.create_table("/f", {{"x", ColumnType::uint64, ""}}, {.batch_rows = 0}),
               std::invalid_argument);
}

}  // namespace
}  // namespace spatialsim::analysis
