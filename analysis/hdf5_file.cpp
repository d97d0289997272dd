#include "analysis/hdf5_file.h"

#include <H5Cpp.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <stdexcept>

namespace spatialsim::analysis {
namespace {

namespace fs = std::filesystem;

// HDF5 reports a failure twice: it prints its error stack (unless told not to) and the C++ API throws an
// exception whose message is only "H5Dcreate2 failed". The useful part, the innermost reason ("name
// already exists", "No space left on device"), is on the stack, which is cleared by the next HDF5 call,
// and destructors of H5 objects make such calls while the exception unwinds. So instead of printing, the
// automatic error handler records the reason when the failure happens.
std::string& t_last_hdf5_error() {
  thread_local std::string reason;
  return reason;
}

// HDF5 failures of a system call (a write to a full disk, past a file size limit) so far in this process (a
// file compares the count at its start and at its end), and whether a file was let go unclosed because of
// one (Hdf5File::Impl::~Impl). Other failures (a bad name, an object that exists) leave files closable.
std::atomic<std::uint64_t> g_io_failures{0};
std::atomic<bool> g_abandoned{false};

// HDF5's description of a failed system call carries everything ("file write failed: time = ..., errno =
// 27, error message = 'File too large', buf = ..."); the reason is the quoted message.
std::string system_reason(const std::string& desc) {
  const std::string key = "error message = '";
  const std::size_t at = desc.find(key);
  if (at == std::string::npos) return desc;
  const std::size_t end = desc.find('\'', at + key.size());
  return end == std::string::npos ? desc : desc.substr(at + key.size(), end - at - key.size());
}

herr_t record_error_stack(hid_t stack, void* /*client_data*/) {
  std::string outer;
  std::string inner;
  bool system_call_failed = false;
  struct Walk {
    std::string* outer;
    std::string* inner;
    bool* system_call_failed;
  } walk{&outer, &inner, &system_call_failed};
  H5Ewalk2(
      stack, H5E_WALK_DOWNWARD,
      [](unsigned n, const H5E_error2_t* err, void* data) -> herr_t {
        auto* w = static_cast<Walk*>(data);
        const std::string desc = err->desc ? err->desc : "";
        const std::string reason = system_reason(desc);
        const std::string text = std::string(err->func_name ? err->func_name : "?") + ": " + reason;
        if (n == 0) *w->outer = text;
        const bool system_call = reason != desc;
        *w->inner = system_call ? reason : text;
        if (system_call) *w->system_call_failed = true;
        return 0;
      },
      &walk);
  if (system_call_failed) ++g_io_failures;
  t_last_hdf5_error() = outer == inner || outer.ends_with(": " + inner) ? outer : outer + " (" + inner + ")";
  return 0;
}

// Each time a file is opened, on its thread: HDF5's error handler is per thread (the library is built
// thread-safe; a sweep writes its points from worker threads), and a reader may have switched it off
// (H5::Exception::dontPrint()) since.
void silence_hdf5() {
  H5Eset_auto2(H5E_DEFAULT, record_error_stack, nullptr);
}

std::string display_unit(std::string_view unit) {
  return unit.empty() ? std::string("1") : std::string(unit);
}

// "/a//b/" -> {"a", "b"}. "." and ".." are refused: HDF5 does not treat ".." as a parent, so it would
// silently create a group named "..".
std::vector<std::string> split_object_path(std::string_view path, const std::string& file) {
  std::vector<std::string> parts;
  std::size_t i = 0;
  while (i <= path.size()) {
    const std::size_t j = std::min(path.find('/', i), path.size());
    if (j > i) {
      std::string part(path.substr(i, j - i));
      if (part == "." || part == "..") {
        throw OutputError(file, "output \"" + file + "\": object path \"" + std::string(path) +
                                    "\" contains \"" + part + "\"; give an absolute path like /runs/a/b");
      }
      parts.push_back(std::move(part));
    }
    i = j + 1;
  }
  return parts;
}

std::string join_object_path(const std::vector<std::string>& parts, std::size_t count) {
  if (count == 0) return "/";
  std::string out;
  for (std::size_t k = 0; k < count; ++k) out += "/" + parts[k];
  return out;
}

}  // namespace

namespace detail {

std::string& last_hdf5_error() {
  return t_last_hdf5_error();
}

std::string hdf5_reason(const H5::Exception& e) {
  if (!t_last_hdf5_error().empty()) return t_last_hdf5_error();
  return e.getFuncName() + ": " + e.getDetailMsg();
}

H5::StrType variable_string_type() {
  H5::StrType type(H5::PredType::C_S1, H5T_VARIABLE);
  type.setCset(H5T_CSET_UTF8);
  return type;
}

void write_unit(const H5::H5Object& object, std::string_view unit) {
  const H5::StrType type = variable_string_type();
  H5::Attribute attr = object.createAttribute("unit", type, H5::DataSpace(H5S_SCALAR));
  attr.write(type, display_unit(unit));
}

// Creates a dataset with `create`, fills it with `write` and closes it, where a failure throws. A dataset
// whose write failed cannot be closed either (H5Dclose fails), and H5::DataSet's destructor prints that to
// stderr, a line before the program's one error line: such a dataset is let go unclosed, as its file is
// after a failed write (~Impl).
template <class Create, class Write>
void write_new_dataset(Create&& create, Write&& write) {
  // new, not make_unique: the dataset create() returns is this one, not a copy sharing its id.
  std::unique_ptr<H5::DataSet> dataset(new H5::DataSet(create()));
  try {
    write(*dataset);
    dataset->close();
  } catch (...) {
    static_cast<void>(dataset.release());
    throw;
  }
}

}  // namespace detail

using detail::hdf5_reason;
using detail::variable_string_type;
using detail::write_new_dataset;
using detail::write_unit;

// ------------------------------------------------------------------------------------------------ file

class Hdf5File::Impl {
 public:
  [[noreturn]] void fail(const std::string& what) const {
    throw OutputError(m_final, "output \"" + m_final + "\": " + what);
  }

  // Runs an HDF5 operation, turning its exceptions into OutputError naming the file and the object.
  template <class F>
  decltype(auto) guarded(std::string_view action, std::string_view object, F&& f) {
    t_last_hdf5_error().clear();
    try {
      return f();
    } catch (const H5::Exception& e) {
      fail(std::string(action) + " " + std::string(object) + ": " + hdf5_reason(e));
    }
  }

  explicit Impl(std::string final_path)
      : m_final(std::move(final_path)),
        m_target(output_target(m_final).path),
        m_temp(temporary_path(m_target)),
        m_guard(m_temp, m_final) {  // registered before the file exists: no unprotected moment
    silence_hdf5();
    guarded("creating temporary file", m_temp,
            [&] { m_file = std::make_unique<H5::H5File>(m_temp, H5F_ACC_TRUNC); });
  }

  ~Impl() {
    if (m_committed) return;
    for (auto& table : m_tables) detail::close_table(*table, false);
    if (g_io_failures.load() != m_io_failures_at_start && m_file) {
      // A failed write while this file was open (one thread writes one output at a time: most likely to it)
      // can leave HDF5 unable to close it: H5Fclose crashes in H5F__close, and so does
      // the library's own clean-up at exit (HDF5 1.10; HDFGroup/hdf5#2291, h5py/h5py#914). The file is
      // deleted next, so its handle is let go without closing, and the program leaves without HDF5's exit
      // handlers (hdf5_abandoned_a_file(), cli/main.cpp).
      static_cast<void>(m_file.release());  // its destructor would close it
      g_abandoned.store(true);
    }
    try {
      if (m_file) m_file->close();
    } catch (const H5::Exception&) {  // the file is deleted next; nothing to save
    }
    ::unlink(m_temp.c_str());
    // m_guard unregisters after this body, i.e. after the file is gone.
  }

  void require_writable() const {
    if (m_committed) throw std::logic_error("output \"" + m_final + "\" was already committed");
  }

  // Creates the missing groups along `parts[0..count)` and returns the joined path.
  std::string ensure_groups(const std::vector<std::string>& parts, std::size_t count) {
    require_writable();
    std::string path;
    for (std::size_t k = 0; k < count; ++k) {
      path += "/" + parts[k];
      guarded("creating group", path, [&] {
        if (!m_file->nameExists(path)) {
          m_file->createGroup(path);
        } else if (m_file->childObjType(path) != H5O_TYPE_GROUP) {
          fail(path + " exists and is not a group; choose another name");
        }
      });
    }
    return path.empty() ? "/" : path;
  }

  // For a new dataset: creates its parent groups, refuses an existing name, returns the full path.
  std::string prepare_dataset(std::string_view path) {
    const auto parts = split_object_path(path, m_final);
    if (parts.empty()) fail("a dataset needs a name, not the root \"" + std::string(path) + "\"");
    ensure_groups(parts, parts.size() - 1);
    const std::string full = join_object_path(parts, parts.size());
    const bool exists = guarded("checking", full, [&] { return m_file->nameExists(full); });
    if (exists) fail(full + " already exists; each dataset is written once");
    return full;
  }

  // Calls f with the group or dataset at `path`; a missing object is created as a group.
  template <class F>
  void with_object(std::string_view path, F&& f) {
    const auto parts = split_object_path(path, m_final);
    if (!parts.empty()) ensure_groups(parts, parts.size() - 1);
    const std::string target = join_object_path(parts, parts.size());
    guarded("setting an attribute on", target, [&] {
      if (target != "/" && !m_file->nameExists(target)) m_file->createGroup(target);
      if (target != "/" && m_file->childObjType(target) == H5O_TYPE_DATASET) {
        f(static_cast<const H5::H5Object&>(m_file->openDataSet(target)));
      } else {
        f(static_cast<const H5::H5Object&>(m_file->openGroup(target)));
      }
    });
  }

  void set_attribute(std::string_view object, std::string_view name, const H5::DataType& file_type,
                     const H5::DataType& mem_type, const void* value) {
    with_object(object, [&](const H5::H5Object& target) {
      const std::string key(name);
      if (target.attrExists(key)) target.removeAttr(key);
      target.createAttribute(key, file_type, H5::DataSpace(H5S_SCALAR)).write(mem_type, value);
    });
  }

  void write_scalar(std::string_view path, const H5::DataType& file_type, const H5::DataType& mem_type,
                    const void* value, std::string_view unit) {
    const std::string full = prepare_dataset(path);
    guarded("writing", full, [&] {
      write_new_dataset([&] { return m_file->createDataSet(full, file_type, H5::DataSpace(H5S_SCALAR)); },
                        [&](H5::DataSet& dataset) {
                          dataset.write(value, mem_type);
                          write_unit(dataset, unit);
                        });
    });
  }

  void write_array(std::string_view path, const void* data, std::size_t size, const ArrayShape& shape,
                   const H5::DataType& file_type, const H5::DataType& mem_type, std::string_view unit) {
    std::vector<hsize_t> dims(shape.begin(), shape.end());
    if (dims.empty()) dims.push_back(size);
    std::uint64_t product = 1;
    std::string shape_text;
    for (hsize_t d : dims) {
      product = d == 0 || product <= std::numeric_limits<std::uint64_t>::max() / d
                    ? product * d
                    : std::numeric_limits<std::uint64_t>::max();
      if (!shape_text.empty()) shape_text += 'x';
      shape_text += std::to_string(d);
    }
    if (product != size) {
      throw std::invalid_argument("write_array " + std::string(path) + ": shape " + shape_text + " holds " +
                                  std::to_string(product) + " values but " + std::to_string(size) +
                                  " were given");
    }
    const std::string full = prepare_dataset(path);
    guarded("writing", full, [&] {
      const H5::DataSpace space(static_cast<int>(dims.size()), dims.data());
      write_new_dataset([&] { return m_file->createDataSet(full, file_type, space); },
                        [&](H5::DataSet& dataset) {
                          // HDF5 refuses a null buffer even for no elements.
                          if (size > 0) dataset.write(data, mem_type);
                          write_unit(dataset, unit);
                        });
    });
  }

  std::string m_final;
  std::string m_target;  // m_final, or the file a link at m_final ends at: replaced, the link kept
  std::string m_temp;
  PartialOutputGuard m_guard;
  std::unique_ptr<H5::H5File> m_file;  // once created; on the heap, so that it can be let go unclosed
  std::vector<std::shared_ptr<TableState>> m_tables;
  bool m_committed = false;
  std::uint64_t m_io_failures_at_start = g_io_failures.load();
};

Hdf5File::Hdf5File(std::string final_path) : m_impl(std::make_unique<Impl>(std::move(final_path))) {}
Hdf5File::~Hdf5File() = default;
Hdf5File::Hdf5File(Hdf5File&&) noexcept = default;
Hdf5File& Hdf5File::operator=(Hdf5File&&) noexcept = default;

bool hdf5_abandoned_a_file() {
  return g_abandoned.load();
}

Hdf5File::Impl& Hdf5File::impl() {
  if (!m_impl) throw std::logic_error("Hdf5File used after it was moved from");
  return *m_impl;
}

const Hdf5File::Impl& Hdf5File::impl() const {
  if (!m_impl) throw std::logic_error("Hdf5File used after it was moved from");
  return *m_impl;
}

const std::string& Hdf5File::final_path() const {
  return impl().m_final;
}
const std::string& Hdf5File::temp_path() const {
  return impl().m_temp;
}
bool Hdf5File::committed() const {
  return m_impl && m_impl->m_committed;
}

void Hdf5File::ensure_group(std::string_view path) {
  Impl& f = impl();
  const auto parts = split_object_path(path, f.m_final);
  f.ensure_groups(parts, parts.size());
}

void Hdf5File::set_attribute(std::string_view object, std::string_view name, std::string_view value) {
  const std::string text(value);
  const H5::StrType type = variable_string_type();
  impl().with_object(object, [&](const H5::H5Object& target) {
    const std::string key(name);
    if (target.attrExists(key)) target.removeAttr(key);
    target.createAttribute(key, type, H5::DataSpace(H5S_SCALAR)).write(type, text);
  });
}
void Hdf5File::set_attribute(std::string_view object, std::string_view name,
                             const std::vector<std::string>& values) {
  std::vector<const char*> pointers;
  pointers.reserve(values.size());
  for (const auto& v : values) pointers.push_back(v.c_str());
  const H5::StrType type = variable_string_type();
  const hsize_t n = values.size();
  impl().with_object(object, [&](const H5::H5Object& target) {
    const std::string key(name);
    if (target.attrExists(key)) target.removeAttr(key);
    H5::Attribute attr = target.createAttribute(key, type, H5::DataSpace(1, &n));
    if (n > 0) attr.write(type, pointers.data());
  });
}
void Hdf5File::set_attribute(std::string_view object, std::string_view name, double value) {
  impl().set_attribute(object, name, H5::PredType::IEEE_F64LE, H5::PredType::NATIVE_DOUBLE, &value);
}
void Hdf5File::set_attribute(std::string_view object, std::string_view name, std::int64_t value) {
  impl().set_attribute(object, name, H5::PredType::STD_I64LE, H5::PredType::NATIVE_INT64, &value);
}
void Hdf5File::set_attribute(std::string_view object, std::string_view name, std::uint64_t value) {
  impl().set_attribute(object, name, H5::PredType::STD_U64LE, H5::PredType::NATIVE_UINT64, &value);
}
void Hdf5File::set_bool_attribute(std::string_view object, std::string_view name, bool value) {
  const std::uint8_t byte = value ? 1 : 0;
  impl().set_attribute(object, name, H5::PredType::STD_U8LE, H5::PredType::NATIVE_UINT8, &byte);
}

void Hdf5File::write_scalar(std::string_view path, std::uint64_t value, std::string_view unit) {
  impl().write_scalar(path, H5::PredType::STD_U64LE, H5::PredType::NATIVE_UINT64, &value, unit);
}
void Hdf5File::write_scalar(std::string_view path, std::int64_t value, std::string_view unit) {
  impl().write_scalar(path, H5::PredType::STD_I64LE, H5::PredType::NATIVE_INT64, &value, unit);
}
void Hdf5File::write_scalar(std::string_view path, double value, std::string_view unit) {
  impl().write_scalar(path, H5::PredType::IEEE_F64LE, H5::PredType::NATIVE_DOUBLE, &value, unit);
}

void Hdf5File::write_array(std::string_view path, std::span<const double> data, const ArrayShape& shape,
                           std::string_view unit) {
  impl().write_array(path, data.data(), data.size(), shape, H5::PredType::IEEE_F64LE,
                     H5::PredType::NATIVE_DOUBLE, unit);
}
void Hdf5File::write_array(std::string_view path, std::span<const float> data, const ArrayShape& shape,
                           std::string_view unit) {
  impl().write_array(path, data.data(), data.size(), shape, H5::PredType::IEEE_F32LE,
                     H5::PredType::NATIVE_FLOAT, unit);
}
void Hdf5File::write_array(std::string_view path, std::span<const std::uint64_t> data,
                           const ArrayShape& shape, std::string_view unit) {
  impl().write_array(path, data.data(), data.size(), shape, H5::PredType::STD_U64LE,
                     H5::PredType::NATIVE_UINT64, unit);
}
void Hdf5File::write_array(std::string_view path, std::span<const std::int64_t> data, const ArrayShape& shape,
                           std::string_view unit) {
  impl().write_array(path, data.data(), data.size(), shape, H5::PredType::STD_I64LE,
                     H5::PredType::NATIVE_INT64, unit);
}

void Hdf5File::write_strings(std::string_view path, const std::vector<std::string>& values) {
  Impl& f = impl();
  const std::string full = f.prepare_dataset(path);
  std::vector<const char*> pointers;
  pointers.reserve(values.size());
  for (const auto& v : values) pointers.push_back(v.c_str());
  f.guarded("writing", full, [&] {
    const hsize_t n = values.size();
    const H5::StrType type = variable_string_type();
    write_new_dataset([&] { return f.m_file->createDataSet(full, type, H5::DataSpace(1, &n)); },
                      [&](H5::DataSet& dataset) {
                        if (n > 0) dataset.write(pointers.data(), type);
                      });
  });
}

TableWriter Hdf5File::create_table(std::string_view path, std::vector<TableColumn> columns,
                                   const TableOptions& options) {
  Impl& f = impl();
  const auto bad = [&](const std::string& what) {
    throw std::invalid_argument("create_table " + std::string(path) + ": " + what);
  };
  if (columns.empty()) bad("a table needs at least one column");
  if (options.batch_rows == 0) bad("batch_rows must be positive");
  if (options.deflate_level < 0 || options.deflate_level > 9) bad("deflate_level must be 0..9");
  for (std::size_t c = 0; c < columns.size(); ++c) {
    const TableColumn& col = columns[c];
    if (col.name.empty() || col.name.find('/') != std::string::npos || col.name == "." || col.name == "..") {
      bad("column name \"" + col.name + "\" is not a valid dataset name");
    }
    for (std::size_t d = 0; d < c; ++d) {
      if (columns[d].name == col.name) bad("column \"" + col.name + "\" appears twice");
    }
    if ((col.type == ColumnType::string) != (col.string_length > 0)) {
      bad("column \"" + col.name + "\": string_length must be > 0 for string columns and 0 otherwise");
    }
  }

  const std::string full = f.prepare_dataset(path);
  auto state = f.guarded("creating table", full, [&] {
    return detail::create_table_state(*f.m_file, f.m_final, full, std::move(columns), options);
  });
  f.m_tables.push_back(state);
  return TableWriter(std::move(state));
}

void Hdf5File::commit(const std::function<void()>& on_renamed) {
  Impl& f = impl();
  f.require_writable();
  for (auto& table : f.m_tables) detail::close_table(*table, true);
  f.guarded("closing", f.m_temp, [&] { f.m_file->close(); });
  // Make the data durable before the name points at it, so a crash cannot leave a complete-looking name
  // over an empty file.
  const int fd = ::open(f.m_temp.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0 || ::fsync(fd) != 0) {
    const int err = errno;
    if (fd >= 0) ::close(fd);
    f.fail("cannot sync " + f.m_temp + " (" + std::strerror(err) + ")");
  }
  ::close(fd);
  if (std::rename(f.m_temp.c_str(), f.m_target.c_str()) != 0) {
    const int err = errno;
    f.fail("cannot rename " + f.m_temp + " to it (" + std::strerror(err) + ")");
  }
  f.m_committed = true;
  if (on_renamed) on_renamed();
  f.m_guard.release();
  // The rename itself lives in the directory: sync it too (best effort, some file systems refuse).
  const fs::path dir = fs::path(f.m_target).parent_path();
  const int dir_fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd >= 0) {
    ::fsync(dir_fd);
    ::close(dir_fd);
  }
}

}  // namespace spatialsim::analysis
