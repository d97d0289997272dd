#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <type_traits>
#include <utility>
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
      ASSERT_LE(table.buffered_rows(), kBatch);  // memory bounded: a full batch is written by the next row
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
    TableWriter table = file.create_table("/t", {{"a", ColumnType::float64, "1"}},
                                          {.deflate_level = 0, .contiguous_rows = 0});
    table.append({1.0});
    file.commit();
  }
  H5::H5File in(path("run.h5"), H5F_ACC_RDONLY);
  EXPECT_EQ(in.openDataSet("/t/a").getCreatePlist().getNfilters(), 0);
}

// The layout of one column: contiguous or chunked, its length and its largest length.
struct ColumnLayout {
  H5D_layout_t layout;
  hsize_t size;
  hsize_t max_size;
  int filters;
};
ColumnLayout layout_of(const H5::DataSet& ds) {
  ColumnLayout l{ds.getCreatePlist().getLayout(), 0, 0, ds.getCreatePlist().getNfilters()};
  ds.getSpace().getSimpleExtentDims(&l.size, &l.max_size);
  return l;
}

// A small table written whole (never flushed) is contiguous, fixed-size and unfiltered, with the same
// values; a full batch that no further row follows counts as whole.
TEST_F(Hdf5TableTest, SmallTableWrittenWholeIsContiguous) {
  {
    Hdf5File file(path("run.h5"));
    TableWriter small = file.create_table("/small", kTraceColumns);
    for (std::uint64_t i = 0; i < 10; ++i) small.append({i, -static_cast<std::int64_t>(i), 0.5, kind_of(i)});
    TableWriter full = file.create_table("/full", {{"a", ColumnType::uint64, "1"}}, {.batch_rows = 8});
    for (std::uint64_t i = 0; i < 8; ++i) full.append({i});
    EXPECT_EQ(full.buffered_rows(), 8u);
    TableWriter empty = file.create_table("/empty", {{"a", ColumnType::uint64, "1"}});
    file.commit();
  }
  H5::H5File in(path("run.h5"), H5F_ACC_RDONLY);
  for (const char* name : {"cycle", "delta", "energy", "kind"}) {
    const ColumnLayout l = layout_of(in.openDataSet(std::string("/small/") + name));
    EXPECT_EQ(l.layout, H5D_CONTIGUOUS) << name;
    EXPECT_EQ(l.size, 10u) << name;
    EXPECT_EQ(l.max_size, 10u) << name;
    EXPECT_EQ(l.filters, 0) << name;
  }
  EXPECT_EQ(read_string_attribute(in.openDataSet("/small/cycle"), "unit"), "cycles");
  EXPECT_EQ(read_all<std::int64_t>(in.openDataSet("/small/delta"), H5::PredType::NATIVE_INT64),
            (std::vector<std::int64_t>{0, -1, -2, -3, -4, -5, -6, -7, -8, -9}));
  EXPECT_EQ(testing::read_fixed_strings(in.openDataSet("/small/kind"))[3], kind_of(3));
  EXPECT_EQ(layout_of(in.openDataSet("/full/a")).layout, H5D_CONTIGUOUS);
  EXPECT_EQ(read_all<std::uint64_t>(in.openDataSet("/full/a"), H5::PredType::NATIVE_UINT64),
            (std::vector<std::uint64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(layout_of(in.openDataSet("/empty/a")).layout, H5D_CONTIGUOUS);
  EXPECT_EQ(layout_of(in.openDataSet("/empty/a")).size, 0u);
}

// Chunked after all: more rows than contiguous_rows, more than one batch, or rows flushed before the end.
TEST_F(Hdf5TableTest, OtherTablesAreChunked) {
  {
    Hdf5File file(path("run.h5"));
    TableWriter many = file.create_table("/many", {{"a", ColumnType::uint64, "1"}},
                                         {.batch_rows = 100, .contiguous_rows = 10});
    for (std::uint64_t i = 0; i < 11; ++i) many.append({i});
    TableWriter batches = file.create_table("/batches", {{"a", ColumnType::uint64, "1"}}, {.batch_rows = 4});
    for (std::uint64_t i = 0; i < 5; ++i) batches.append({i});
    TableWriter flushed = file.create_table("/flushed", {{"a", ColumnType::uint64, "1"}});
    flushed.append({1u});
    flushed.flush();
    flushed.append({2u});
    TableWriter never = file.create_table("/never", {{"a", ColumnType::uint64, "1"}}, {.contiguous_rows = 0});
    never.append({1u});
    file.commit();
  }
  H5::H5File in(path("run.h5"), H5F_ACC_RDONLY);
  for (const auto& [table, rows] : std::vector<std::pair<std::string, hsize_t>>{
           {"/many", 11}, {"/batches", 5}, {"/flushed", 2}, {"/never", 1}}) {
    const ColumnLayout l = layout_of(in.openDataSet(table + "/a"));
    EXPECT_EQ(l.layout, H5D_CHUNKED) << table;
    EXPECT_EQ(l.size, rows) << table;
    EXPECT_EQ(l.max_size, H5S_UNLIMITED) << table;
  }
  EXPECT_EQ(read_all<std::uint64_t>(in.openDataSet("/flushed/a"), H5::PredType::NATIVE_UINT64),
            (std::vector<std::uint64_t>{1, 2}));
}

// The reason for the small layout: a one-row table of many columns (a sweep point file) costs a few
// hundred bytes per column, not the few kilobytes of a chunk index per column.
TEST_F(Hdf5TableTest, OneRowTableIsSmall) {
  std::vector<TableColumn> columns;
  for (int c = 0; c < 80; ++c)
    columns.push_back({std::string("c").append(std::to_string(c)), ColumnType::uint64, "bytes"});
  std::vector<TableValue> row(columns.size(), TableValue(std::uint64_t{12345}));
  const auto write = [&](const std::string& name, std::size_t contiguous_rows) {
    Hdf5File file(path(name));
    file.create_table("/t", columns, {.batch_rows = 1, .contiguous_rows = contiguous_rows}).append(row);
    file.commit();
    return std::filesystem::file_size(path(name));
  };
  const auto chunked = write("chunked.h5", 0);
  const auto whole = write("whole.h5", 1);
  EXPECT_LT(whole, 80u * 600) << "chunked: " << chunked;
  EXPECT_LT(whole * 3, chunked);
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
