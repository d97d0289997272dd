// The table half of the HDF5 output layer (analysis/hdf5_table.h): buffered rows, written batch by
// batch into one extendible, chunked, compressed dataset per column, or, for a small table written whole,
// one contiguous dataset per column. Split from hdf5_file.cpp, which owns the file, the error handler and
// the object paths.
#include "analysis/hdf5_table.h"

#include <H5Cpp.h>

#include <cstring>
#include <limits>
#include <stdexcept>

#include "analysis/output_guard.h"

namespace spatialsim::analysis {
namespace {

const H5::PredType& file_type(ColumnType type) {
  switch (type) {
    case ColumnType::uint64:
      return H5::PredType::STD_U64LE;
    case ColumnType::int64:
      return H5::PredType::STD_I64LE;
    case ColumnType::float64:
      return H5::PredType::IEEE_F64LE;
    case ColumnType::string:
      break;
  }
  throw std::logic_error("file_type: string columns have no predefined type");
}

const H5::PredType& memory_type(ColumnType type) {
  switch (type) {
    case ColumnType::uint64:
      return H5::PredType::NATIVE_UINT64;
    case ColumnType::int64:
      return H5::PredType::NATIVE_INT64;
    case ColumnType::float64:
      return H5::PredType::NATIVE_DOUBLE;
    case ColumnType::string:
      break;
  }
  throw std::logic_error("memory_type: string columns have no predefined type");
}

// An integer is stored in a float64 column only if the double holds it exactly (|v| <= 2^53 always does).
bool exact_double(std::uint64_t v, double& out) {
  out = static_cast<double>(v);
  return out < 18446744073709551616.0 && static_cast<std::uint64_t>(out) == v;
}
bool exact_double(std::int64_t v, double& out) {
  out = static_cast<double>(v);
  return out < 9223372036854775808.0 && static_cast<std::int64_t>(out) == v;
}

}  // namespace

class TableState {
 public:
  struct Column {
    TableColumn spec;
    H5::DataSet dataset;  // created by the first write: its layout depends on how the table ends
    H5::DataType mem_type;
    H5::DataType file_type;
    std::size_t width = 8;     // bytes per value in the buffer
    std::vector<char> buffer;  // batch_rows x width, allocated once
  };

  TableState(std::string file, std::string path, H5::Group group, const TableOptions& options)
      : m_file(std::move(file)), m_path(std::move(path)), m_group(std::move(group)), m_options(options) {}

  void append(std::span<const TableValue> row) {
    require_open();
    if (row.size() != m_columns.size()) {
      fail("a row has " + std::to_string(row.size()) + " values but the table has " +
           std::to_string(m_columns.size()) + " columns");
    }
    // A full batch is written when the next row comes, not when it fills: a table that ends with its
    // rows all in one batch is then written whole (close()), in the small layout when it is small.
    if (m_buffered == m_options.batch_rows) flush();
    // A failed append leaves nothing behind: values land in the free slot, which only counts once the
    // whole row was accepted.
    for (std::size_t c = 0; c < row.size(); ++c) store(m_columns[c], row[c]);
    ++m_buffered;
    ++m_rows;
  }

  // Writes the buffered rows into the extendible, chunked datasets (created by the first flush).
  void flush() {
    require_open();
    if (!m_created) create_datasets(/*whole=*/false);
    if (m_buffered == 0) return;
    const hsize_t start = m_written;
    const hsize_t count = m_buffered;
    const hsize_t new_size = start + count;
    detail::last_hdf5_error().clear();
    try {
      for (Column& column : m_columns) {
        column.dataset.extend(&new_size);
        H5::DataSpace file_space = column.dataset.getSpace();
        file_space.selectHyperslab(H5S_SELECT_SET, &count, &start);
        const H5::DataSpace memory_space(1, &count);
        column.dataset.write(column.buffer.data(), column.mem_type, memory_space, file_space);
      }
    } catch (const H5::Exception& e) {
      fail("writing rows " + std::to_string(start) + ".." + std::to_string(new_size) +
           " failed: " + detail::hdf5_reason(e));
    }
    m_written = new_size;
    m_buffered = 0;
  }

  // Releases the datasets. `keep_rows` = false when the whole file is being discarded anyway. A table
  // never flushed holds all its rows in the buffer: it is written whole, contiguous when it is small.
  void close(bool keep_rows) {
    if (!m_open) return;
    if (keep_rows) {
      if (!m_created && m_rows <= m_options.contiguous_rows) {
        write_whole();
      } else {
        flush();
      }
    }
    m_open = false;
    // Every handle goes now: an object left open would keep the file open past Hdf5File's close.
    for (Column& column : m_columns) {
      try {
        column.dataset.close();         // a default (never created) dataset has no id to close
      } catch (const H5::Exception&) {  // nothing useful to do: the file is being closed next
      }
      std::vector<char>().swap(column.buffer);
    }
    try {
      m_group.close();
    } catch (const H5::Exception&) {
    }
  }

  std::vector<Column> m_columns;
  std::vector<TableColumn> m_specs;  // what columns() returns
  std::uint64_t m_rows = 0;
  std::size_t m_buffered = 0;

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw OutputError(m_file, "output \"" + m_file + "\", table " + m_path + ": " + what);
  }
  [[noreturn]] void fail_column(const Column& column, const std::string& what) const {
    fail("column \"" + column.spec.name + "\": " + what);
  }

  void require_open() const {
    if (!m_open) {
      throw std::logic_error("table " + m_path + " in \"" + m_file +
                             "\" is closed (closed, committed or discarded with its file)");
    }
  }

  // `whole`: every row is in the buffer and no more will come, so each column is one fixed-size,
  // contiguous, uncompressed dataset; else an empty, extendible, chunked (chunk = batch_rows) and
  // compressed one that flush() extends batch by batch.
  void create_datasets(bool whole) {
    detail::last_hdf5_error().clear();
    try {
      for (Column& column : m_columns) {
        H5::DSetCreatPropList dcpl;
        const hsize_t rows = whole ? m_buffered : 0;
        const hsize_t max_rows = whole ? rows : H5S_UNLIMITED;
        if (!whole) {
          const hsize_t chunk = m_options.batch_rows;
          dcpl.setChunk(1, &chunk);
          if (m_options.deflate_level > 0) {
            dcpl.setShuffle();  // groups the bytes of equal significance: small integers compress well
            dcpl.setDeflate(m_options.deflate_level);
          }
        }
        column.dataset = m_group.createDataSet(column.spec.name, column.file_type,
                                               H5::DataSpace(1, &rows, &max_rows), dcpl);
        detail::write_unit(column.dataset, column.spec.unit);
      }
    } catch (const H5::Exception& e) {
      fail("creating its columns failed: " + detail::hdf5_reason(e));
    }
    m_created = true;
  }

  void write_whole() {
    create_datasets(/*whole=*/true);
    if (m_buffered == 0) return;  // HDF5 refuses a write of no elements from a null selection
    detail::last_hdf5_error().clear();
    try {
      for (Column& column : m_columns) column.dataset.write(column.buffer.data(), column.mem_type);
    } catch (const H5::Exception& e) {
      fail("writing its " + std::to_string(m_buffered) + " rows failed: " + detail::hdf5_reason(e));
    }
    m_written = m_buffered;
    m_buffered = 0;
  }

  void store(Column& column, const TableValue& value) {
    char* slot = column.buffer.data() + m_buffered * column.width;
    using Kind = TableValue::Kind;
    switch (column.spec.type) {
      case ColumnType::uint64: {
        std::uint64_t v = 0;
        if (value.kind() == Kind::uint64) {
          v = value.as_uint64();
        } else if (value.kind() == Kind::int64 && value.as_int64() >= 0) {
          v = static_cast<std::uint64_t>(value.as_int64());
        } else {
          fail_column(column, "expects a non-negative integer (uint64)");
        }
        std::memcpy(slot, &v, sizeof v);
        return;
      }
      case ColumnType::int64: {
        std::int64_t v = 0;
        if (value.kind() == Kind::int64) {
          v = value.as_int64();
        } else if (value.kind() == Kind::uint64 &&
                   value.as_uint64() <=
                       static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
          v = static_cast<std::int64_t>(value.as_uint64());
        } else {
          fail_column(column, "expects an integer that fits int64");
        }
        std::memcpy(slot, &v, sizeof v);
        return;
      }
      case ColumnType::float64: {
        double v = 0;
        if (value.kind() == Kind::float64) {
          v = value.as_double();
        } else if (value.kind() == Kind::uint64) {
          if (!exact_double(value.as_uint64(), v)) fail_column(column, "integer not exact as a double");
        } else if (value.kind() == Kind::int64) {
          if (!exact_double(value.as_int64(), v)) fail_column(column, "integer not exact as a double");
        } else {
          fail_column(column, "expects a number");
        }
        std::memcpy(slot, &v, sizeof v);
        return;
      }
      case ColumnType::string: {
        if (value.kind() != Kind::string) fail_column(column, "expects text");
        const std::string_view text = value.as_string();
        if (text.size() > column.width) {
          fail_column(column, "\"" + std::string(text) + "\" is " + std::to_string(text.size()) +
                                  " bytes, longer than the column's " + std::to_string(column.width) +
                                  "; give the column a larger string_length");
        }
        std::memcpy(slot, text.data(), text.size());
        std::memset(slot + text.size(), 0, column.width - text.size());
        return;
      }
    }
  }

  std::string m_file;
  std::string m_path;
  H5::Group m_group;
  TableOptions m_options;
  std::uint64_t m_written = 0;
  bool m_created = false;  // the column datasets exist (first flush, or the table written whole)
  bool m_open = true;
};

void TableWriter::append(std::span<const TableValue> row) {
  m_state->append(row);
}
void TableWriter::flush() {
  m_state->flush();
}
void TableWriter::close() {
  m_state->close(true);
}
std::uint64_t TableWriter::rows() const {
  return m_state->m_rows;
}
std::size_t TableWriter::buffered_rows() const {
  return m_state->m_buffered;
}
const std::vector<TableColumn>& TableWriter::columns() const {
  return m_state->m_specs;
}

namespace detail {

std::shared_ptr<TableState> create_table_state(H5::H5File& file, const std::string& file_name,
                                               const std::string& path, std::vector<TableColumn> columns,
                                               const TableOptions& options) {
  // Track creation order so that h5py lists the columns in the order given, not alphabetically.
  const hid_t gcpl = H5Pcreate(H5P_GROUP_CREATE);
  H5Pset_link_creation_order(gcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
  const hid_t group_id = H5Gcreate2(file.getId(), path.c_str(), H5P_DEFAULT, gcpl, H5P_DEFAULT);
  H5Pclose(gcpl);
  if (group_id < 0) throw H5::GroupIException("H5Gcreate2", "cannot create the table group");
  H5Gclose(group_id);
  H5::Group group = file.openGroup(path);

  std::vector<const char*> names;
  for (const auto& col : columns) names.push_back(col.name.c_str());
  const hsize_t column_count = names.size();
  const H5::StrType text = variable_string_type();
  group.createAttribute("columns", text, H5::DataSpace(1, &column_count)).write(text, names.data());

  auto state = std::make_shared<TableState>(file_name, path, std::move(group), options);
  state->m_specs = columns;
  // The datasets themselves are created by the first write, when the layout is known (TableState).
  for (const auto& col : columns) {
    TableState::Column column{.spec = col};
    if (col.type == ColumnType::string) {
      H5::StrType type(H5::PredType::C_S1, col.string_length);
      type.setCset(H5T_CSET_UTF8);
      type.setStrpad(H5T_STR_NULLPAD);
      column.mem_type = type;
      column.file_type = type;
      column.width = col.string_length;
    } else {
      column.mem_type = memory_type(col.type);
      column.file_type = file_type(col.type);
    }
    column.buffer.resize(options.batch_rows * column.width);
    state->m_columns.push_back(std::move(column));
  }
  return state;
}

void close_table(TableState& table, bool keep_rows) {
  table.close(keep_rows);
}

}  // namespace detail

}  // namespace spatialsim::analysis
