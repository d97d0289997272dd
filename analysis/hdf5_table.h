#pragma once
// Append-only column tables inside an HDF5 file (traces, sweeps): the column specification, the row value
// and the writer handle. A table is created by Hdf5File::create_table (analysis/hdf5_file.h), which is
// where the file-level conventions live; docs/hdf5.md ("Tables") describes the layout a reader sees.
//
// Usage:
//   TableWriter trace = file.create_table("/runs/forward/trace/messages",
//       {{"cycle", ColumnType::uint64, "cycles"}, {"kind", ColumnType::string, "", 16}});
//   trace.append({now, "psum"});   // buffered; a full batch is written when the next row comes
//   trace.close();                 // optional: the file's commit() closes open tables

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace H5 {
class Exception;
class H5File;
class H5Object;
class StrType;
}  // namespace H5

namespace spatialsim::analysis {

enum class ColumnType { uint64, int64, float64, string };

// One column of a table. Strings are fixed-width: up to `string_length` bytes (UTF-8), NUL-padded; a
// longer value is an error rather than a silent truncation.
struct TableColumn {
  std::string name;
  ColumnType type = ColumnType::float64;
  std::string unit;               // "" is written as "1"
  std::size_t string_length = 0;  // bytes; only for ColumnType::string (must be > 0 there)
};

struct TableOptions {
  // Rows buffered in memory before they are written: the bound on the writer's memory
  // (batch_rows x row bytes). Also the chunk size, so one flush writes whole chunks.
  std::size_t batch_rows = 16384;
  int deflate_level = 4;  // 0..9; 0 = no compression; only for chunked tables
  // A table that ends with all its rows still in one batch (never flushed: at most batch_rows rows) and
  // at most this many rows is written whole at close: one contiguous, uncompressed, fixed-size dataset
  // per column. Each chunked dataset carries a chunk index of a few kilobytes, which is most of the file
  // for small tables (a one-row sweep point file: 213 KB chunked, 45 KB whole); around 500 rows of
  // 8-byte values deflate starts to save more than the index costs. 0 = always chunked.
  std::size_t contiguous_rows = 512;
};

// One cell of an appended row. Implicit on purpose, so rows read like `append({cycle, tile, "psum"})`:
// signed integers become int64, unsigned ones uint64, floating point double, text a string. bool is
// refused (store it as an integer column and say so in the unit).
class TableValue {
 public:
  enum class Kind { uint64, int64, float64, string };

  template <std::integral T>
  requires(!std::same_as<T, bool>) TableValue(T v)
  noexcept {  // NOLINT(google-explicit-constructor)
    if constexpr (std::is_signed_v<T>) {
      m_kind = Kind::int64;
      m_int = v;
    } else {
      m_kind = Kind::uint64;
      m_uint = v;
    }
  }
  TableValue(double v) noexcept : m_kind(Kind::float64), m_double(v) {}           // NOLINT
  TableValue(std::string_view v) noexcept : m_kind(Kind::string), m_text(v) {}    // NOLINT
  TableValue(const char* v) noexcept : TableValue(std::string_view(v)) {}         // NOLINT
  TableValue(const std::string& v) noexcept : TableValue(std::string_view(v)) {}  // NOLINT
  TableValue(bool) = delete;

  Kind kind() const { return m_kind; }
  std::uint64_t as_uint64() const { return m_uint; }
  std::int64_t as_int64() const { return m_int; }
  double as_double() const { return m_double; }
  std::string_view as_string() const { return m_text; }

 private:
  Kind m_kind;
  union {
    std::uint64_t m_uint;
    std::int64_t m_int;
    double m_double;
  };
  std::string_view m_text;
};

class TableState;  // defined in hdf5_table.cpp; owned jointly by the file and its writers

// An append-only table, written as a group holding one 1-D dataset per column (all the same length).
//
// Why columns rather than one compound dataset: a reader usually wants one or two columns of a trace with
// millions of rows, and a column dataset is read (and decompressed) alone: `f["t/cycle"][:]` is a plain
// numpy array. Homogeneous columns also compress far better (shuffle + deflate). Every column carries the
// same `unit` attribute as any other dataset, so there is one convention for units, and the group's
// `columns` attribute lists the column names in order. Reading all of it is still one line:
// `{c: g[c][:] for c in g.attrs["columns"]}`.
//
// Layout: the column datasets are created by the first write. A table written whole (see
// TableOptions::contiguous_rows) gets fixed-size contiguous columns; any other is extendible, chunked
// (chunk = batch_rows) and compressed. A reader sees the same columns either way.
//
// Contract: a value's kind must fit its column: integers go to integer columns if representable (a
// negative value never goes to uint64) and to float64 columns if exactly representable; doubles only to
// float64; text only to string columns. Violations throw OutputError naming the table and column. Memory
// is bounded by TableOptions::batch_rows whatever the number of rows. Rows still buffered are written by
// flush(), close(), or the file's commit(); a handle may be dropped before commit without losing rows.
// After commit (or after the file was destroyed) appending throws std::logic_error.
class TableWriter {
 public:
  void append(std::span<const TableValue> row);
  void append(std::initializer_list<TableValue> row) { append(std::span(row.begin(), row.size())); }
  void flush();  // writes buffered rows now, chunked (the file stays a temporary until commit)
  void close();  // write the rows (whole when small) and release the datasets; later appends throw

  std::uint64_t rows() const;         // appended so far, buffered or written
  std::size_t buffered_rows() const;  // never more than TableOptions::batch_rows
  const std::vector<TableColumn>& columns() const;

 private:
  friend class Hdf5File;
  explicit TableWriter(std::shared_ptr<TableState> state) : m_state(std::move(state)) {}
  std::shared_ptr<TableState> m_state;
};

namespace detail {
// Internal to the HDF5 layer, shared by hdf5_file.cpp and hdf5_table.cpp; not for callers.

// The innermost reason of the last HDF5 failure on this thread, recorded by the error handler that
// hdf5_file.cpp installs (HDF5 clears its own error stack before a C++ exception reaches us).
std::string& last_hdf5_error();
std::string hdf5_reason(const H5::Exception& e);
H5::StrType variable_string_type();
void write_unit(const H5::H5Object& object, std::string_view unit);

// Creates the table group and its column datasets at `path` (parents exist, the name is free, the
// columns were validated). Throws H5::Exception; the caller turns it into OutputError.
std::shared_ptr<TableState> create_table_state(H5::H5File& file, const std::string& file_name,
                                               const std::string& path, std::vector<TableColumn> columns,
                                               const TableOptions& options);
// Flushes (if keep_rows) and releases the table's datasets; later appends throw std::logic_error.
void close_table(TableState& table, bool keep_rows);
}  // namespace detail

}  // namespace spatialsim::analysis
