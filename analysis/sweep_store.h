#pragma once
// Where a sweep's results live while it runs and after (docs/sweeps.md):
//   <out>.points/<schedule>-<config hash>.h5   one small file per finished job, committed as it finishes
//   <out>                                      the assembled file: /sweep/points and /sweep/slopes
// Why a directory of small files rather than appending to <out>: an HDF5 file being written is only
// consistent once it is closed, so a file that grows row by row would be lost (or unreadable) when the
// sweep is interrupted, and the HDF5 library is not thread-safe, so workers cannot write one file
// together anyway. A job's file is complete or absent (Hdf5File: temporary name + rename), which makes
// "what has finished" simply "which files exist". Once <out> is committed the sweep removes its jobs'
// point files, and the directory if nothing else is in it: a file it did not write is never deleted.
//
// Usage:
//   SweepPlan plan = plan_sweep(config);
//   check_sweep_writable(out, resume);               // <out> and <out>.points, before anything runs
//   if (resume) check_sweep_resumable(plan, out);    // nothing stored there would be dropped
//   SweepOutcome o = run_sweep_to_file(plan, out, /*resume=*/true, kProgramVersion,
//                                      [](const SweepProgress& p) { ... });
//   o.ran;  o.reused;  o.rows[job].metrics;  o.slopes;

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "analysis/sweep.h"

namespace spatialsim::analysis {

class Hdf5File;

// Where a sweep keeps its finished points: "<out>.points".
std::string sweep_points_dir(const std::string& out);

// Checks, before a sweep runs, that <out> can be written (check_output_path) and that
// <out>.points is absent (it is created next to <out>) or a directory that accepts new files; with
// `resume`, also that an existing <out> is a sweep file (it has /sweep/points) whose rows can be reused.
// Throws OutputError naming `out`, what is in the way and the fix (problem() without the `out = "..."`).
void check_sweep_writable(const std::string& out, bool resume);

// With --sweep.resume, after check_sweep_writable: checks that every result stored for `out` belongs to a
// job of `plan` (by config hash): each row of an existing <out>, and each sweep file in <out>.points (an
// interrupted sweep's points). The sweep rewrites <out> with its own jobs only, so a stored result of
// another --vary, --schedule or option in the hash would be dropped; the sweep refuses instead. Throws
// OutputError naming `out`, what would be dropped, the --vary and --schedule that wrote it, and the fixes.
// Files that are not sweep files, or whose config hashes cannot be read, are left to load_finished (which
// notes them). Reads only; touches no file.
void check_sweep_resumable(const SweepPlan& plan, const std::string& out);

// Contract: not thread-safe (HDF5 is not); the sweep calls it from one thread at a time.
class SweepStore {
 public:
  // `program_version` is recorded in every file (`/sweep` attribute spatialsim_version).
  SweepStore(const SweepPlan& plan, std::string out, std::string program_version);

  const std::string& out() const { return m_out; }
  std::string points_dir() const { return sweep_points_dir(m_out); }
  std::string point_path(std::size_t job) const;

  // Results stored earlier for this plan's jobs: each job's point file, else a row of an existing <out>
  // with the same config hash. Files that cannot be read or do not hold the current metric schema are
  // skipped with a note (their jobs run again).
  std::vector<std::optional<SweepRow>> load_finished(std::vector<std::string>& notes) const;

  // Writes <out>.points/<schedule>-<hash>.h5 holding the job's row (the same table layout as <out>);
  // `on_saved` runs as soon as the file has its name (Hdf5File::commit).
  void save_point(std::size_t job, const SweepRow& row, const std::function<void()>& on_saved = {}) const;

  // Writes <out> from every job's row and the slopes.
  // Contract: rows.size() == jobs; on failure <out> is untouched.
  void write_final(const std::vector<SweepRow>& rows, const std::vector<SlopeRow>& slopes) const;

  // After write_final: removes this plan's point files (written by this sweep, or reused from an earlier
  // run of its jobs: their rows are in <out> now) and then <out>.points if it is empty. Any other file
  // stays. Returns the names of the entries left in <out>.points, sorted (none when it was removed).
  std::vector<std::string> remove_points() const;

 private:
  void write_points_table(Hdf5File& file, const std::vector<std::size_t>& jobs,
                          const std::vector<const SweepRow*>& rows) const;

  const SweepPlan& m_plan;
  std::string m_out;
  std::string m_version;
};

struct SweepProgress {
  std::size_t done = 0;    // jobs with a result, reused ones included
  std::size_t total = 0;   // jobs in the sweep
  std::size_t ran = 0;     // jobs run by this process so far
  std::size_t to_run = 0;  // jobs this process runs in all
  double elapsed_seconds = 0;
};
using ProgressFn = std::function<void(const SweepProgress&)>;

struct SweepOutcome {
  std::vector<SweepRow> rows;  // by job index
  std::vector<SlopeRow> slopes;
  std::size_t ran = 0;
  std::size_t reused = 0;
  std::vector<std::string> notes;  // for stderr: skipped stored files, ignored earlier results, kept files
};

// The whole sweep: loads earlier results when `resume`, runs the rest in parallel saving each job as it
// finishes, fits the slopes, writes <out> and removes its point files (SweepStore::remove_points).
// `progress` is called once before the first job and after every job (one call at a time). Contract: the
// caller checked that <out> is writable (check_sweep_writable); an exception (including an interrupt)
// leaves every finished job's file in <out>.points, and removes <out>.points if this call made it and no
// job finished. With `resume` it first makes check_sweep_resumable's
// check, so a refusal (OutputError) comes before any file is created or changed.
SweepOutcome run_sweep_to_file(const SweepPlan& plan, const std::string& out, bool resume,
                               const std::string& program_version, const ProgressFn& progress = {});

}  // namespace spatialsim::analysis
