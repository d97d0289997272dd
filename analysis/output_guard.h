#pragma once
// Process-wide protection against partial output files: an interrupted run (SIGINT, SIGTERM, SIGHUP)
// removes every output still being written under its temporary name, says so on stderr, and then dies
// by the same signal, so a shell or a sweep driver still sees "killed by SIGINT" rather than success.
//
// Usage:
//   int main(int argc, char** argv) {
//     spatialsim::analysis::install_interrupt_handlers();  // once, before any output is opened
//     ...
//   }
//   // Hdf5File does the rest: it holds a PartialOutputGuard for its temporary file until commit().
//   PartialOutputGuard guard("out.h5.tmp-42", "out.h5");  // on interrupt: unlink out.h5.tmp-42
//   ...                                                  // write and rename the file
//   guard.release();                                     // it is complete: no longer ours to remove
//
// Why a fixed table of C strings: the handler may run in the middle of anything, including malloc, so it
// may only touch memory that was fully written before it was published (an atomic state per slot) and
// call async-signal-safe functions (unlink, write, sigaction, raise).

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace spatialsim::analysis {

// Everything that goes wrong with an output file: a path that cannot be written, an HDF5 failure, an
// interrupted write. The message is one line naming the path, what is wrong and what to do.
class OutputError : public std::runtime_error {
 public:
  OutputError(std::string path, const std::string& message, std::string problem = {})
      : std::runtime_error(message), m_path(std::move(path)), m_problem(std::move(problem)) {}
  const std::string& path() const { return m_path; }
  // For an output option whose value cannot be used (check_output_path, check_sweep_writable,
  // check_sweep_resumable): the message without its leading `key = "path": `, so that the front end can
  // report it like any other bad value, with the value's origin (sim::Config::fail). Empty for other errors.
  const std::string& problem() const { return m_problem; }

 private:
  std::string m_path;
  std::string m_problem;
};

// The longest file name (one path component, in bytes) the file systems of Linux take: NAME_MAX.
inline constexpr std::size_t kMaxFileName = 255;

// "" when the last component of `path` is a legal file name length, else why not, for an output check's
// message (a name that is too long fails only when the file is created: after the run, if not checked).
std::string file_name_too_long(const std::string& path);

// The temporary name an output is written under before the rename: "<final_path>.tmp-<pid>", with the
// file name cut so that the whole name stays within 255 bytes (a legal 253-byte name stays writable).
std::string temporary_path(const std::string& final_path);

// "" when `final_path` and its temporary name fit the kMaxPartialOutputPath bytes the interrupt guard
// can hold, else why not, for an output check's message (checked only when the file was created: after
// the run).
std::string path_too_long(const std::string& final_path);

// Tries to create the file ".probe-<pid>" in the directory of `probe_base` ("dir/" names dir), and
// removes it: "" when that works, else the
// system's reason. How output checks learn whether a directory takes new files: permission bits do not tell
// the whole story (root ignores them, read-only mounts, /proc).
std::string creation_refused(const std::string& probe_base);

// Where an output named `path` is written, found by following its chain of symbolic links once.
struct OutputTarget {
  // `path` itself, or, when `path` is a symbolic link, the file at the end of its chain of links (which
  // need not exist yet), so that the temporary file is renamed over that file and the link stays a link. A
  // chain that cannot be written through gives `path`, and `problem` says why.
  std::string path;
  // Why the chain cannot be written through, for check_output_path's message: "" when `path` is not a link,
  // or when every link of its chain points into a directory that accepts new files and the chain ends at
  // a regular file or at nothing. A link into /proc or /dev (/dev/stdout, /proc/self/fd/1) fails the first
  // test, a link to a directory or a device the second: writing through such a link would replace it, or
  // write somewhere the user did not ask for. check_output_path refuses it before anything runs.
  std::string problem;
};
OutputTarget output_target(const std::string& path);

// Whether two paths name one file, so that writing one would replace the other (an output given twice,
// or an output naming an input): the same file (device and inode) when both exist, else the same
// absolute path once `.`, `..` and the symbolic links of its existing part are resolved, a link at its end
// followed to where it points even when that does not exist yet.
bool same_file(const std::string& a, const std::string& b);

// Checks, before a run, that the output file `path` (of any format) can be created: its directory exists
// and accepts new files, the path is not a directory, and a link at it can be written through. Creates
// and removes a probe file there (".probe-<pid>"), so nothing is left behind. Throws OutputError: `key`
// names the option in the message, `example_name` is the file name a fix suggests (`out = "/nope/x.h5":
// directory /nope does not exist; give a path in a writable directory`); problem() is the part after `": `.
void check_output_path(const std::string& path, std::string_view key = "out",
                       std::string_view example_name = "spatialsim.h5");

// How many outputs may be open at once, and the longest path (bytes, without the terminating NUL) the
// handler can remember. Both are fixed because the handler cannot allocate.
inline constexpr std::size_t kMaxPartialOutputs = 32;
inline constexpr std::size_t kMaxPartialOutputPath = 4095;

// Installs the handler for SIGINT, SIGTERM and SIGHUP (a closed terminal is an interruption too).
// Contract: idempotent and cheap; call it once from main before opening outputs. A signal that is ignored
// when this is called (SIG_IGN, e.g. SIGINT in a background job started by `nohup`) stays ignored. After
// removing the registered temporary files the handler restores the default action and re-raises, so the
// process terminates by the original signal.
void install_interrupt_handlers();

// Registers one temporary file for removal on interrupt, for as long as the guard lives or until
// release(). Contract: registering a temporary path that is already registered, more than
// kMaxPartialOutputs paths at once, or a path longer than kMaxPartialOutputPath throws OutputError naming
// `final_path`. Register before the file is created and release after it was renamed or removed: the
// handler only reports files it actually unlinked, so either order of events is safe.
class PartialOutputGuard {
 public:
  PartialOutputGuard(const std::string& temp_path, const std::string& final_path);
  ~PartialOutputGuard() { release(); }
  PartialOutputGuard(const PartialOutputGuard&) = delete;
  PartialOutputGuard& operator=(const PartialOutputGuard&) = delete;

  void release() noexcept;
  bool active() const { return m_slot >= 0; }

  // How many temporary files are registered right now (for tests and diagnostics).
  static std::size_t registered_count() noexcept;

 private:
  int m_slot = -1;
};

// Whether stderr ends in a line still being written (a progress line rewritten in place with '\r'): the
// handler then starts its own lines below it, not after the progress text. May be called from any thread.
void set_stderr_line_open(bool open) noexcept;

// What an interrupted command that works through a known number of units (a sweep's jobs) says after the
// handler removed its partial outputs, so that a user who stops a long sweep learns that its finished work
// is kept and how to run the rest: "spatialsim: interrupted with 3 of 12 jobs finished and kept; <go_on>
// runs only the other 9", "... before any of the 12 jobs finished; nothing was kept", or, interrupted
// while the results of them all were being written, "... with all 12 jobs finished and kept; <go_on> runs
// none of them again". When none is finished the handler also removes `made_dir` if it is empty (the
// directory the command made for its units), as the command itself does when it fails. Contract: at most one
// note at a time (a second throws std::logic_error); texts are cut to what the handler's fixed buffers hold;
// set_finished may be called from any thread.
class InterruptNote {
 public:
  // `unit_one`, `unit_many`: the unit's noun ("job", "jobs"); `go_on`: how to run the rest ("the same
  // command with --sweep.resume"); `made_dir`: "" or the directory to remove when it is empty.
  InterruptNote(std::uint64_t total, const std::string& unit_one, const std::string& unit_many,
                const std::string& go_on, const std::string& made_dir);
  ~InterruptNote();
  InterruptNote(const InterruptNote&) = delete;
  InterruptNote& operator=(const InterruptNote&) = delete;

  void set_finished(std::uint64_t finished) noexcept;
};

}  // namespace spatialsim::analysis
