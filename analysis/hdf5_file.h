#pragma once
// The HDF5 output layer: every result, trace and sweep file goes through Hdf5File. See docs/hdf5.md for
// the conventions a reader can rely on (temporary name + rename, `unit` attributes, table layout).
//
// Usage:
//   check_output_path(out_path);          // before the run: fail fast, leave nothing behind
//   Hdf5File file(out_path);                      // writes to "<out_path>.tmp-<pid>"
//   file.set_attribute("/config", "seed", 1);     // attributes on groups or datasets
//   file.write_scalar("/runs/forward/makespan_cycles", makespan, "cycles");
//   file.write_array("/runs/forward/tiles/byte_hops_sent", hops, {height, width}, "byte-hops");  // row-major
//   TableWriter trace = file.create_table("/runs/forward/trace/messages",
//       {{"cycle", ColumnType::uint64, "cycles"}, {"kind", ColumnType::string, "", 16}});
//   trace.append({now, "psum"});                 // buffered; written a batch (TableOptions) at a time
//   file.commit();                                // flush, close, rename to out_path
//   // Without commit() (an exception, an early return) the destructor deletes the temporary file.
//
// Units: every dataset carries a string attribute `unit` ("cycles", "bytes", "pJ", ...); a dimensionless
// value has unit "1" (an empty unit argument is written as "1").
// Booleans (attributes) are stored as uint8 0/1: HDF5 has no bool type, and a plain integer reads the same
// in every tool (h5py gives numpy.uint8; `bool(attrs["x"])`).

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "analysis/hdf5_table.h"
#include "analysis/output_guard.h"

namespace spatialsim::analysis {

// Dimensions of an N-D array, slowest-varying first (C order). {} means 1-D of the data's length.
using ArrayShape = std::vector<std::uint64_t>;

// Contract: object paths are '/'-separated and absolute ("relative" ones are taken from the root); the
// groups above a dataset are created on demand. Writing a dataset that already exists is an error.
// Attributes may be set on any existing group or dataset; on a path that does not exist yet a group is
// created; setting an existing attribute replaces it. Every HDF5 failure is an OutputError naming the file
// and object (HDF5's own stack printing is switched off). Misuse after commit() throws std::logic_error.
// Not thread-safe: HDF5's C++ API is not (Debian's C library is, with one lock and an error stack per
// thread: libhdf5.settings, "Threadsafety: yes"), so one thread at a time writes (a sweep's workers write
// their points under a lock).
// True once a file was let go without closing because an HDF5 operation had failed (a full disk, a file
// size limit): HDF5 cannot close such a file, and its clean-up at exit would crash on it, so the program
// must end with std::_Exit after flushing what it printed (cli/main.cpp). Its temporary file is deleted.
bool hdf5_abandoned_a_file();

class Hdf5File {
 public:
  // Creates "<final_path>.tmp-<pid>" (truncating a stale one) and registers it with the interrupt guard.
  explicit Hdf5File(std::string final_path);
  ~Hdf5File();  // without commit(): closes and deletes the temporary file; never throws
  Hdf5File(Hdf5File&&) noexcept;
  Hdf5File& operator=(Hdf5File&&) noexcept;  // discards (like the destructor) an uncommitted target
  Hdf5File(const Hdf5File&) = delete;
  Hdf5File& operator=(const Hdf5File&) = delete;

  const std::string& final_path() const;
  const std::string& temp_path() const;
  bool committed() const;

  void ensure_group(std::string_view path);

  void set_attribute(std::string_view object, std::string_view name, std::string_view value);
  void set_attribute(std::string_view object, std::string_view name, const char* value) {
    set_attribute(object, name, std::string_view(value));
  }
  void set_attribute(std::string_view object, std::string_view name, const std::string& value) {
    set_attribute(object, name, std::string_view(value));
  }
  // A 1-D array of variable-length UTF-8 strings (h5py gives a numpy array of str): the names along the
  // axes of an array, say. Stored like the `columns` attribute of a table.
  void set_attribute(std::string_view object, std::string_view name, const std::vector<std::string>& values);
  void set_attribute(std::string_view object, std::string_view name, double value);
  void set_attribute(std::string_view object, std::string_view name, std::int64_t value);
  void set_attribute(std::string_view object, std::string_view name, std::uint64_t value);
  // bool only by exact type, so that a pointer or a number never turns into a flag.
  template <std::same_as<bool> B>
  void set_attribute(std::string_view object, std::string_view name, B value) {
    set_bool_attribute(object, name, value);
  }
  // Other integer types (int, unsigned, ...) go to the 64-bit attribute of the same signedness.
  template <std::integral T>
  requires(!std::same_as<T, bool> && !std::same_as<T, std::int64_t> &&
           !std::same_as<T, std::uint64_t>) void set_attribute(std::string_view object, std::string_view name,
                                                               T value) {
    if constexpr (std::is_signed_v<T>) {
      set_attribute(object, name, static_cast<std::int64_t>(value));
    } else {
      set_attribute(object, name, static_cast<std::uint64_t>(value));
    }
  }

  void write_scalar(std::string_view path, std::uint64_t value, std::string_view unit);
  void write_scalar(std::string_view path, std::int64_t value, std::string_view unit);
  void write_scalar(std::string_view path, double value, std::string_view unit);
  template <std::integral T>
  requires(!std::same_as<T, bool> && !std::same_as<T, std::int64_t> &&
           !std::same_as<T, std::uint64_t>) void write_scalar(std::string_view path, T value,
                                                              std::string_view unit) {
    if constexpr (std::is_signed_v<T>) {
      write_scalar(path, static_cast<std::int64_t>(value), unit);
    } else {
      write_scalar(path, static_cast<std::uint64_t>(value), unit);
    }
  }

  // Contract: the product of `shape` equals data.size() (a 0 in shape means an empty array).
  void write_array(std::string_view path, std::span<const double> data, const ArrayShape& shape,
                   std::string_view unit);
  void write_array(std::string_view path, std::span<const float> data, const ArrayShape& shape,
                   std::string_view unit);
  void write_array(std::string_view path, std::span<const std::uint64_t> data, const ArrayShape& shape,
                   std::string_view unit);
  void write_array(std::string_view path, std::span<const std::int64_t> data, const ArrayShape& shape,
                   std::string_view unit);

  // A 1-D dataset of variable-length UTF-8 strings (no unit attribute: it is text).
  void write_strings(std::string_view path, const std::vector<std::string>& values);

  TableWriter create_table(std::string_view path, std::vector<TableColumn> columns,
                           const TableOptions& options = {});

  // Flushes open tables, closes the file, makes it durable (fsync) and renames it to final_path()
  // atomically, replacing an older file of that name. Throws OutputError if any step fails; the
  // temporary file is then removed by the destructor. `on_renamed` (if any) runs right after the rename,
  // before the directory is synced: what counts finished files (a sweep's interrupt note) counts this one
  // from the moment it has its name, not a directory sync later.
  void commit(const std::function<void()>& on_renamed = {});

 private:
  class Impl;
  void set_bool_attribute(std::string_view object, std::string_view name, bool value);
  Impl& impl();
  const Impl& impl() const;
  std::unique_ptr<Impl> m_impl;
};

}  // namespace spatialsim::analysis
