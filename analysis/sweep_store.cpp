#include "analysis/sweep_store.h"

#include <H5Cpp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <system_error>
#include <utility>

#include "analysis/hdf5_file.h"
#include "analysis/output_guard.h"
#include "sim/blas_kernels.h"
#include "sim/energy_prices.h"
#include "sim/option_spec.h"
#include "sim/text.h"
#include "workloads/schedules/i_schedule.h"

namespace spatialsim::analysis {
namespace {

constexpr const char* kPointsTable = "/sweep/points";
constexpr const char* kSlopesTable = "/sweep/slopes";

std::string hex(std::uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

std::size_t longest(const std::vector<std::string>& values) {
  std::size_t n = 1;  // a string column needs a width > 0 even when every value is empty
  for (const auto& v : values) n = std::max(n, v.size());
  return n;
}

// The unit of a varied key's numeric column: the option's own unit when it is a quantity.
std::string axis_unit(const std::string& key) {
  const sim::OptionSpec* spec = sim::OptionTable::find(key);
  if (spec == nullptr || spec->unit == "choice" || spec->unit == "bool" || spec->unit == "list") return "1";
  return spec->unit;
}

template <typename T>
std::vector<T> read_column(const H5::Group& table, const std::string& name, const H5::PredType& type,
                           H5T_class_t stored_class, std::size_t rows) {
  if (!table.nameExists(name))
    throw H5::DataSetIException("read_column", "it has no column " + name + " (other metrics)");
  const H5::DataSet column = table.openDataSet(name);
  if (column.getTypeClass() != stored_class)
    throw H5::DataSetIException("read_column", "its column " + name + " has another type");
  std::vector<T> values(static_cast<std::size_t>(column.getSpace().getSimpleExtentNpoints()));
  if (values.size() != rows)
    throw H5::DataSetIException("read_column", "its column " + name + " has another length");
  if (!values.empty()) column.read(values.data(), type);
  return values;
}

// Why `path` is not a sweep file (a point file or a finished <out>): "" when it is an HDF5 file holding a
// /sweep/points table, else the reason in a few words.
std::string not_a_sweep_file(const std::string& path) {
  try {
    H5::Exception::dontPrint();
    if (H5Fis_hdf5(path.c_str()) <= 0) return "not an HDF5 file";
    const H5::H5File file(path, H5F_ACC_RDONLY);
    if (!file.nameExists("/sweep") || !file.nameExists(kPointsTable) ||
        file.childObjType(kPointsTable) != H5O_TYPE_GROUP)
      return "no /sweep/points table";
    return "";
  } catch (const H5::Exception& e) {
    return "unreadable: " + e.getDetailMsg();
  }
}

// Rows of a sweep table (a point file or a finished <out>) by config hash, in the metric schema given.
// nullopt (and `why`) when the file is unreadable or was written with other metrics.
std::optional<std::map<std::uint64_t, std::vector<Metric>>> read_stored_rows(
    const std::string& path, const std::vector<Metric>& schema, std::string& why) {
  if (why = not_a_sweep_file(path); !why.empty()) return std::nullopt;
  try {
    H5::Exception::dontPrint();
    const H5::H5File file(path, H5F_ACC_RDONLY);
    const H5::Group table = file.openGroup(kPointsTable);
    if (!table.nameExists("config_hash"))
      throw H5::GroupIException("read_stored_rows", "it has no config_hash");
    const H5::DataSet hash_column = table.openDataSet("config_hash");
    const auto rows = static_cast<std::size_t>(hash_column.getSpace().getSimpleExtentNpoints());
    const auto hashes =
        read_column<std::uint64_t>(table, "config_hash", H5::PredType::NATIVE_UINT64, H5T_INTEGER, rows);
    std::vector<std::vector<Metric>> metrics(rows, schema);
    for (std::size_t m = 0; m < schema.size(); ++m) {
      if (std::holds_alternative<std::uint64_t>(schema[m].value)) {
        const auto v =
            read_column<std::uint64_t>(table, schema[m].name, H5::PredType::NATIVE_UINT64, H5T_INTEGER, rows);
        for (std::size_t r = 0; r < rows; ++r) metrics[r][m].value = v[r];
      } else {
        const auto v =
            read_column<double>(table, schema[m].name, H5::PredType::NATIVE_DOUBLE, H5T_FLOAT, rows);
        for (std::size_t r = 0; r < rows; ++r) metrics[r][m].value = v[r];
      }
    }
    std::map<std::uint64_t, std::vector<Metric>> out;
    for (std::size_t r = 0; r < rows; ++r) out.emplace(hashes[r], std::move(metrics[r]));
    return out;
  } catch (const H5::Exception& e) {
    why = e.getDetailMsg();
    return std::nullopt;
  }
}

// The config hashes of a sweep table (a point file or a finished <out>) with the /sweep attributes vary
// and schedules; nullopt when it is not a sweep file or they cannot be read. Any metric schema will do.
struct StoredJobs {
  std::vector<std::uint64_t> hashes;
  std::string vary;
  std::string schedules;
};

std::optional<StoredJobs> read_stored_jobs(const std::string& path) {
  if (!not_a_sweep_file(path).empty()) return std::nullopt;
  try {
    H5::Exception::dontPrint();
    const H5::H5File file(path, H5F_ACC_RDONLY);
    const H5::Group table = file.openGroup(kPointsTable);
    if (!table.nameExists("config_hash")) return std::nullopt;
    StoredJobs stored;
    const auto rows =
        static_cast<std::size_t>(table.openDataSet("config_hash").getSpace().getSimpleExtentNpoints());
    stored.hashes =
        read_column<std::uint64_t>(table, "config_hash", H5::PredType::NATIVE_UINT64, H5T_INTEGER, rows);
    const H5::Group sweep = file.openGroup("/sweep");
    for (auto [name, value] : {std::pair{"vary", &stored.vary}, std::pair{"schedules", &stored.schedules}}) {
      if (!sweep.attrExists(name)) continue;
      const H5::Attribute attribute = sweep.openAttribute(name);
      if (attribute.getTypeClass() == H5T_STRING) attribute.read(attribute.getStrType(), *value);
    }
    return stored;
  } catch (const H5::Exception&) {
    return std::nullopt;
  }
}

// As the /sweep attributes write them: "KEY=V1,V2;KEY2=..." and "A,B".
std::string vary_text(const std::vector<SweepAxis>& axes) {
  std::string vary;
  for (const SweepAxis& a : axes) {
    vary += (vary.empty() ? "" : ";") + a.key + "=";
    for (std::size_t v = 0; v < a.values.size(); ++v) vary += (v ? "," : "") + a.values[v];
  }
  return vary;
}

std::string schedules_text(const std::vector<std::string>& schedules) {
  return sim::joined(schedules, ",");
}

}  // namespace

std::string sweep_points_dir(const std::string& out) {
  return out + ".points";
}

void check_sweep_writable(const std::string& out, bool resume) {
  check_output_path(out, "out");
  const std::string dir = sweep_points_dir(out);
  const auto fail = [&](const std::string& what) {
    throw OutputError(out, "out = \"" + out + "\": " + what, what);
  };
  // Resume reuses the rows of an existing <out>; anything else there would be replaced by the sweep.
  if (resume && std::filesystem::exists(out)) {
    if (const std::string why = not_a_sweep_file(out); !why.empty())
      fail("is not a sweep file (" + why + "), so --sweep.resume has no rows to reuse in it; give the " +
           "sweep's own file as --out, or leave out --sweep.resume to replace " + out);
  }
  if (!file_name_too_long(dir).empty())
    fail(
        "the sweep keeps its finished points in a directory beside it, named after it with \".points\" "
        "added, and that name would be " +
        std::to_string(std::filesystem::path(dir).filename().string().size()) +
        " bytes long, more than the " + std::to_string(kMaxFileName) +
        " a file name may have; give a shorter name");
  // Each finished job's file, <dir>/<schedule>-<16 hex digits>.h5, written first under a temporary name.
  std::size_t longest_schedule = 0;
  for (const auto& name : workloads::ScheduleRegistry::names())
    longest_schedule = std::max(longest_schedule, name.size());
  const std::string longest_point =
      dir + "/" + std::string(longest_schedule, 's') + "-" + std::string(16, '0') + ".h5";
  if (const std::string too_long = path_too_long(longest_point); !too_long.empty())
    fail(
        "the sweep keeps its finished points in a directory beside it (\".points\" added to its name), and "
        "a point file's " +
        too_long.substr(std::string("the ").size()));
  std::error_code ec;
  const std::filesystem::file_status status = std::filesystem::status(dir, ec);
  // status follows a symbolic link: a dangling one reads as not found, yet the directory cannot be made.
  if (status.type() == std::filesystem::file_type::not_found &&
      std::filesystem::symlink_status(dir, ec).type() == std::filesystem::file_type::symlink) {
    fail("the sweep keeps its finished points in " + dir +
         ", which is a symbolic link to nothing; remove it, point it at a directory, or give another out");
  }
  if (status.type() == std::filesystem::file_type::not_found) return;  // its directory accepts new files
  if (status.type() != std::filesystem::file_type::directory) {
    fail("the sweep keeps its finished points in " + dir +
         ", which exists and is not a directory; remove or rename it, or give another out");
  }
  // An earlier sweep's directory (resume reuses it): the points must be writable there too.
  if (const std::string refused = creation_refused(dir + "/"); !refused.empty())
    fail("cannot create files in " + dir + ", where the sweep keeps its finished points (" + refused +
         "); remove it, or give another out");
}

void check_sweep_resumable(const SweepPlan& plan, const std::string& out) {
  std::set<std::uint64_t> jobs;
  for (const SweepJob& j : plan.jobs) jobs.insert(j.config_hash);
  const auto strays = [&](const StoredJobs& stored) {
    return static_cast<std::size_t>(std::count_if(stored.hashes.begin(), stored.hashes.end(),
                                                  [&](std::uint64_t h) { return !jobs.contains(h); }));
  };
  std::string what;  // "all 2 rows in s.h5 (written with ...) and 1 point file in s.h5.points"
  std::optional<StoredJobs> example;  // the first stored file with a stray result: who wrote it
  std::error_code ec;
  if (std::filesystem::is_regular_file(out, ec)) {
    if (const std::optional<StoredJobs> stored = read_stored_jobs(out)) {
      const std::size_t n = strays(*stored);
      const std::size_t rows = stored->hashes.size();
      if (n > 0) {
        what = (n < rows    ? std::to_string(n) + " of the " + std::to_string(rows) + " rows"
                : rows == 1 ? std::string("the row")
                            : "all " + std::to_string(rows) + " rows") +
               " in " + out;
        example = stored;
      }
    }
  }
  const std::string dir = sweep_points_dir(out);
  std::size_t point_files = 0;
  if (std::filesystem::is_directory(dir, ec)) {
    std::vector<std::string> files;  // in name order, so that the example does not depend on the directory
    for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
      if (it->path().extension() == ".h5" && it->is_regular_file(ec)) files.push_back(it->path().string());
    std::sort(files.begin(), files.end());
    for (const std::string& file : files) {
      const std::optional<StoredJobs> stored = read_stored_jobs(file);
      if (!stored || strays(*stored) == 0) continue;
      ++point_files;
      if (!example) example = stored;
    }
  }
  if (!example) return;
  const bool same_axes =
      example->vary == vary_text(plan.axes) && example->schedules == schedules_text(plan.schedules);
  const std::string written =
      same_axes ? "(written with this --vary and --schedule, but other options)"
                : "(written with --vary \"" + example->vary + "\" --schedule " + example->schedules + ")";
  const std::string points = sim::counted(point_files, "point file", "point files") + " in " + dir;
  if (what.empty()) {
    what = points + " " + written;
  } else {
    what += " " + written + (point_files > 0 ? " and " + points : "");
  }
  const std::string without_resume =
      std::filesystem::exists(out, ec) ? "replace " + out : std::string("run every job anew");
  const std::string problem =
      "--sweep.resume would drop stored results that match no job of this sweep: " + what +
      "; resume with the --vary, --schedule and other options that wrote them, give "
      "this sweep another --out, or leave out --sweep.resume to " +
      without_resume;
  throw OutputError(out, "out = \"" + out + "\": " + problem, problem);
}

SweepStore::SweepStore(const SweepPlan& plan, std::string out, std::string program_version)
    : m_plan(plan), m_out(std::move(out)), m_version(std::move(program_version)) {}

std::string SweepStore::point_path(std::size_t job) const {
  const SweepJob& j = m_plan.jobs.at(job);
  return points_dir() + "/" + j.schedule + "-" + hex(j.config_hash) + ".h5";
}

std::vector<std::optional<SweepRow>> SweepStore::load_finished(std::vector<std::string>& notes) const {
  const std::vector<Metric> schema = sweep_metric_schema();
  std::vector<std::optional<SweepRow>> rows(m_plan.jobs.size());
  auto take = [&](std::size_t job, std::map<std::uint64_t, std::vector<Metric>>& stored) {
    const auto it = stored.find(m_plan.jobs[job].config_hash);
    if (it == stored.end()) return;
    rows[job] = SweepRow{std::move(it->second), true};
    stored.erase(it);
  };
  for (std::size_t job = 0; job < rows.size(); ++job) {
    const std::string path = point_path(job);
    if (!std::filesystem::exists(path)) continue;
    std::string why;
    auto stored = read_stored_rows(path, schema, why);
    if (!stored) {
      notes.push_back("cannot reuse " + path + " (" + why + "); running that job again");
      continue;
    }
    take(job, *stored);
  }
  // A completed sweep removed its point files; its rows are in <out> (extending a finished sweep).
  if (std::filesystem::exists(m_out) &&
      std::any_of(rows.begin(), rows.end(), [](const auto& r) { return !r.has_value(); })) {
    std::string why;
    auto stored = read_stored_rows(m_out, schema, why);
    if (!stored) {
      notes.push_back("cannot reuse the rows of " + m_out + " (" + why + "); running their jobs again");
    } else {
      for (std::size_t job = 0; job < rows.size(); ++job)
        if (!rows[job]) take(job, *stored);
    }
  }
  return rows;
}

void SweepStore::write_points_table(Hdf5File& file, const std::vector<std::size_t>& jobs,
                                    const std::vector<const SweepRow*>& rows) const {
  std::vector<TableColumn> columns = {{"point", ColumnType::uint64, "1"},
                                      {"schedule", ColumnType::string, "", longest(m_plan.schedules)}};
  for (const SweepAxis& a : m_plan.axes) {
    columns.push_back({a.key, ColumnType::string, "", longest(a.values)});
    if (a.numeric) columns.push_back({a.key + ".value", ColumnType::float64, axis_unit(a.key)});
  }
  std::vector<std::string> presets;
  for (const SweepPoint& p : m_plan.points) presets.push_back(p.setup.prices.preset);
  for (const TableColumn& c :
       std::initializer_list<TableColumn>{{"layers", ColumnType::uint64, "layers"},
                                          {"tokens", ColumnType::uint64, "tokens"},
                                          {"wavefront_tokens", ColumnType::uint64, "tokens"},
                                          {"wavefronts", ColumnType::uint64, "1"},
                                          {"steps", ColumnType::uint64, "1"},
                                          {"tokens_raised", ColumnType::uint64, "1"},
                                          {"grid_width", ColumnType::uint64, "tiles"},
                                          {"grid_height", ColumnType::uint64, "tiles"},
                                          {"energy_preset", ColumnType::string, "", longest(presets)},
                                          {"price_hop_pj", ColumnType::float64, "pJ/byte-hop"},
                                          {"price_sram_pj", ColumnType::float64, "pJ/byte"},
                                          {"price_flop_pj", ColumnType::float64, "pJ/flop"},
                                          {"config_hash", ColumnType::uint64, "1"}})
    columns.push_back(c);
  const std::vector<Metric> schema = sweep_metric_schema();
  for (const Metric& m : schema) {
    columns.push_back(
        {m.name, std::holds_alternative<std::uint64_t>(m.value) ? ColumnType::uint64 : ColumnType::float64,
         m.unit});
  }
  TableWriter table =
      file.create_table(kPointsTable, columns, {.batch_rows = std::max<std::size_t>(jobs.size(), 1)});
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const SweepJob& job = m_plan.jobs[jobs[i]];
    const SweepPoint& p = m_plan.points[job.point];
    const workloads::RunSetup& s = p.setup;
    std::vector<TableValue> row = {std::uint64_t{p.index}, job.schedule};
    for (std::size_t a = 0; a < m_plan.axes.size(); ++a) {
      row.emplace_back(p.values[a]);
      if (m_plan.axes[a].numeric) {
        const auto& values = m_plan.axes[a].values;
        row.emplace_back(m_plan.axes[a].numbers[static_cast<std::size_t>(
            std::find(values.begin(), values.end(), p.values[a]) - values.begin())]);
      }
    }
    for (const std::uint64_t v :
         {std::uint64_t{s.model.layers()}, std::uint64_t{s.tokens}, std::uint64_t{s.tokens_per_wavefront},
          std::uint64_t{s.wavefront_count()}, std::uint64_t{s.steps}, std::uint64_t{p.tokens_raised},
          std::uint64_t{s.grid_width}, std::uint64_t{s.grid_height}})
      row.emplace_back(v);
    row.emplace_back(s.prices.preset);
    for (const double price : {s.prices.hop_pj, s.prices.sram_pj, s.prices.flop_pj}) row.emplace_back(price);
    row.emplace_back(job.config_hash);
    const std::vector<Metric>& metrics = rows[i]->metrics;
    if (metrics.size() != schema.size())
      throw std::logic_error("sweep row does not follow the metric schema");
    for (std::size_t m = 0; m < metrics.size(); ++m) {
      if (metrics[m].name != schema[m].name) throw std::logic_error("sweep row metric " + metrics[m].name);
      if (std::holds_alternative<std::uint64_t>(metrics[m].value)) {
        row.emplace_back(std::get<std::uint64_t>(metrics[m].value));
      } else {
        row.emplace_back(std::get<double>(metrics[m].value));
      }
    }
    table.append(row);
  }
  file.set_attribute("/sweep", "schedules", schedules_text(m_plan.schedules));
  file.set_attribute("/sweep", "vary", vary_text(m_plan.axes));
  file.set_attribute("/sweep", "points", std::uint64_t{m_plan.points.size()});
  file.set_attribute("/sweep", "jobs", std::uint64_t{m_plan.jobs.size()});
  file.set_attribute("/sweep", "spatialsim_version", m_version);
  file.set_attribute("/sweep", "blas", sim::blas_configuration());
  // The prices, named as in a results file's root, when every point used the same ones; a varied key that
  // changes them (energy.*) leaves them to each row's energy_preset and price_* columns.
  const sim::EnergyPrices& first = m_plan.points.front().setup.prices;
  const bool same_prices = std::all_of(m_plan.points.begin(), m_plan.points.end(), [&](const SweepPoint& p) {
    const sim::EnergyPrices& e = p.setup.prices;
    return e.preset == first.preset && e.hop_pj == first.hop_pj && e.sram_pj == first.sram_pj &&
           e.flop_pj == first.flop_pj;
  });
  if (same_prices) {
    file.set_attribute("/sweep", "energy_preset", first.preset);
    file.set_attribute("/sweep", "energy_hop_pj", first.hop_pj);
    file.set_attribute("/sweep", "energy_sram_pj", first.sram_pj);
    file.set_attribute("/sweep", "energy_flop_pj", first.flop_pj);
  }
}

void SweepStore::save_point(std::size_t job, const SweepRow& row,
                            const std::function<void()>& on_saved) const {
  Hdf5File file(point_path(job));
  file.set_attribute("/", "sweep_point_of", m_out);
  write_points_table(file, {job}, {&row});
  file.commit(on_saved);
}

void SweepStore::write_final(const std::vector<SweepRow>& rows, const std::vector<SlopeRow>& slopes) const {
  if (rows.size() != m_plan.jobs.size()) throw std::invalid_argument("write_final: one row per job");
  std::vector<std::size_t> jobs(rows.size());
  std::vector<const SweepRow*> pointers(rows.size());
  for (std::size_t j = 0; j < rows.size(); ++j) {
    jobs[j] = j;
    pointers[j] = &rows[j];
  }
  Hdf5File file(m_out);
  write_points_table(file, jobs, pointers);

  std::vector<std::string> schedules, keys, ats, metrics, statuses;
  for (const SlopeRow& s : slopes) {
    schedules.push_back(s.schedule);
    keys.push_back(s.key);
    ats.push_back(s.at);
    metrics.push_back(s.metric);
    statuses.push_back(s.status);
  }
  TableWriter table =
      file.create_table(kSlopesTable, {{"schedule", ColumnType::string, "", longest(schedules)},
                                       {"key", ColumnType::string, "", longest(keys)},
                                       {"at", ColumnType::string, "", longest(ats)},
                                       {"metric", ColumnType::string, "", longest(metrics)},
                                       {"slope", ColumnType::float64, "1"},
                                       {"intercept", ColumnType::float64, "1"},
                                       {"points", ColumnType::uint64, "1"},
                                       {"points_not_full", ColumnType::uint64, "1"},
                                       {"status", ColumnType::string, "", longest(statuses)}});
  const double none = std::numeric_limits<double>::quiet_NaN();
  for (const SlopeRow& s : slopes) {
    table.append({s.schedule, s.key, s.at, s.metric, s.fit ? s.fit->slope : none,
                  s.fit ? s.fit->intercept : none, std::uint64_t{s.fit ? s.fit->points : 0},
                  std::uint64_t{s.not_full}, s.status});
  }
  // The base configuration, for reproducing the sweep: every key as text.
  const sim::Config& base = m_plan.base;
  for (const auto& key : base.keys())
    if (!key.starts_with("sweep.")) file.set_attribute("/sweep/config", key, base.raw(key));
  // Where the values came from (no key of the configuration is named config_set).
  file.set_attribute("/sweep/config", "config_set", sim::joined(base.explicit_settings(), "\n"));
  file.commit();
}

std::vector<std::string> SweepStore::remove_points() const {
  // Only the files named after this plan's jobs: <out>.points may hold anything else (another sweep's
  // points, a user's file), and nothing the sweep did not write is deleted. Failures are ignored: the
  // results are safe in <out>, and a leftover file is only clutter.
  std::error_code ignored;
  for (std::size_t job = 0; job < m_plan.jobs.size(); ++job)
    std::filesystem::remove(point_path(job), ignored);
  std::vector<std::string> left;
  for (std::filesystem::directory_iterator it(points_dir(), ignored), end; !ignored && it != end;
       it.increment(ignored))
    left.push_back(it->path().filename().string());
  std::sort(left.begin(), left.end());
  if (left.empty()) std::filesystem::remove(points_dir(), ignored);  // removes only an empty directory
  return left;
}

SweepOutcome run_sweep_to_file(const SweepPlan& plan, const std::string& out, bool resume,
                               const std::string& program_version, const ProgressFn& progress) {
  SweepOutcome outcome;
  // Each job's point file is named by its hash: two jobs of one hash would write one file. The varied keys
  // are all hashed (sweep.h), so this only fails for a plan the front end should have refused (a varied
  // option no run reads).
  std::set<std::uint64_t> hashes;
  for (const SweepJob& j : plan.jobs)
    if (!hashes.insert(j.config_hash).second)
      throw std::logic_error("sweep: two jobs share the config hash " + std::to_string(j.config_hash));
  if (resume) check_sweep_resumable(plan, out);  // before the directory is made: a refusal changes nothing
  const SweepStore store(plan, out, program_version);
  std::error_code ec;
  const bool points_dir_existed = std::filesystem::exists(store.points_dir(), ec);
  std::filesystem::create_directories(store.points_dir(), ec);
  if (ec) throw OutputError(store.points_dir(), "cannot create " + store.points_dir() + ": " + ec.message());

  std::vector<std::optional<SweepRow>> rows(plan.jobs.size());
  if (resume) {
    rows = store.load_finished(outcome.notes);
  } else if (!std::filesystem::is_empty(store.points_dir(), ec)) {
    outcome.notes.push_back(store.points_dir() +
                            " holds files from before this sweep; they are not reused "
                            "(--sweep.resume reuses the results that match)");
  }
  outcome.reused = static_cast<std::size_t>(
      std::count_if(rows.begin(), rows.end(), [](const auto& r) { return r.has_value(); }));

  // Interrupted from here on (until its point files are removed), the sweep says how many jobs it keeps and
  // how to resume.
  InterruptNote note(plan.jobs.size(), "job", "jobs", "the same command with --sweep.resume",
                     points_dir_existed ? "" : store.points_dir());
  note.set_finished(outcome.reused);

  const auto start = std::chrono::steady_clock::now();
  SweepProgress state{outcome.reused, plan.jobs.size(), 0, plan.jobs.size() - outcome.reused, 0};
  if (progress) progress(state);
  try {
    outcome.ran = run_sweep_jobs(plan, rows, [&](std::size_t job) {
      // Counted the moment its file has its name: an interrupt a directory sync later counted one too few.
      store.save_point(job, *rows[job], [&] { note.set_finished(state.done + 1); });
      ++state.done;
      ++state.ran;
      state.elapsed_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (progress) progress(state);
    });
  } catch (...) {
    // The finished jobs' files stay, for --sweep.resume; a directory this sweep made and left empty goes.
    if (!points_dir_existed) std::filesystem::remove(store.points_dir(), ec);  // removes only an empty one
    throw;
  }

  outcome.rows.reserve(rows.size());
  for (auto& r : rows) outcome.rows.push_back(std::move(*r));
  outcome.slopes = sweep_slopes(plan, outcome.rows);
  store.write_final(outcome.rows, outcome.slopes);
  if (const std::vector<std::string> left = store.remove_points(); !left.empty()) {
    std::string names;
    for (std::size_t i = 0; i < left.size() && i < 3; ++i) names += (i ? ", " : "") + left[i];
    if (left.size() > 3) names += ", ...";
    outcome.notes.push_back("kept " + store.points_dir() + ": it holds " + std::to_string(left.size()) +
                            " file(s) this sweep did not write (" + names + ")");
  }
  return outcome;
}

}  // namespace spatialsim::analysis
