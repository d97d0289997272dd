#include "analysis/output_guard.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <stdexcept>
#include <string>

namespace spatialsim::analysis {
namespace {

// A slot is published in three steps so that the handler never reads a half-copied path: claim it
// (free -> claimed), copy the strings, then publish (claimed -> active) with release ordering.
enum SlotState : int { kFree = 0, kClaimed = 1, kActive = 2 };

struct Slot {
  std::atomic<int> state{kFree};
  char temp_path[kMaxPartialOutputPath + 1] = {};
  char final_path[kMaxPartialOutputPath + 1] = {};
};

static_assert(std::atomic<int>::is_always_lock_free, "the signal handler needs lock-free atomics");

std::array<Slot, kMaxPartialOutputs> g_slots;

// Registration is rare (once per output file); a mutex makes the duplicate check and the claim one step.
// The handler never takes it.
std::mutex g_register_mutex;

constexpr std::array<int, 3> kHandledSignals = {SIGINT, SIGTERM, SIGHUP};

std::size_t c_length(const char* s) {
  std::size_t n = 0;
  while (s[n] != '\0') ++n;
  return n;
}

// write(2) may write less than asked or be interrupted; the message is short, so loop.
void write_all(const char* s) {
  std::size_t left = c_length(s);
  while (left > 0) {
    const ssize_t n = ::write(STDERR_FILENO, s, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // nowhere to report it: give up quietly
    s += n;
    left -= static_cast<std::size_t>(n);
  }
}

// The one InterruptNote, published like a slot (kFree, kClaimed while its texts are copied, kActive).
struct Note {
  std::atomic<int> state{kFree};
  std::atomic<std::uint64_t> finished{0};
  std::uint64_t total = 0;
  char unit_one[32] = {};
  char unit_many[32] = {};
  char go_on[128] = {};
  char made_dir[kMaxPartialOutputPath + 1] = {};
};

Note g_note;

std::atomic<bool> g_stderr_line_open{false};

// Every line the handler writes starts with this: a progress line in the way is ended first.
void start_line() {
  if (g_stderr_line_open.exchange(false, std::memory_order_relaxed)) write_all("\n");
}

// `n` in decimal, without allocating (the handler cannot).
void write_number(std::uint64_t n) {
  char digits[24];
  char* p = digits + sizeof digits;
  *--p = '\0';
  do {
    *--p = static_cast<char>('0' + n % 10);
    n /= 10;
  } while (n != 0);
  write_all(p);
}

// "its job" for a single unit, else `many_prefix` and "N jobs" ("any of the 12 jobs", "all 12 jobs").
void write_units(const char* many_prefix) {
  if (g_note.total == 1) {
    write_all("its ");
    write_all(g_note.unit_one);
    return;
  }
  write_all(many_prefix);
  write_number(g_note.total);
  write_all(" ");
  write_all(g_note.unit_many);
}

// One of three lines: none finished, some, or all (interrupted while their results were being written).
void write_note() {
  if (g_note.state.load(std::memory_order_acquire) != kActive) return;
  const std::uint64_t total = g_note.total;
  const std::uint64_t finished = g_note.finished.load(std::memory_order_relaxed);
  start_line();
  if (finished == 0) {
    if (g_note.made_dir[0] != '\0') ::rmdir(g_note.made_dir);  // fails harmlessly when not empty
    write_all("spatialsim: interrupted before ");
    write_units("any of the ");
    write_all(" finished; nothing was kept\n");
  } else if (finished >= total) {
    write_all("spatialsim: interrupted with ");
    write_units("all ");
    write_all(" finished and kept; ");
    write_all(g_note.go_on);
    write_all(total == 1 ? " does not run it again\n" : " runs none of them again\n");
  } else {
    write_all("spatialsim: interrupted with ");
    write_number(finished);
    write_all(" of ");
    write_number(total);
    write_all(" ");
    write_all(g_note.unit_many);
    write_all(" finished and kept; ");
    write_all(g_note.go_on);
    write_all(" runs only the other ");
    write_number(total - finished);
    write_all("\n");
  }
}

// Copies `text` into `buffer`, cut to fit (at a UTF-8 character boundary).
template <std::size_t N>
void copy_cut(char (&buffer)[N], const std::string& text) {
  std::size_t n = std::min(text.size(), N - 1);
  if (n < text.size())
    while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80) --n;
  std::memcpy(buffer, text.data(), n);
  buffer[n] = '\0';
}

// Set by the first handler to run. The handled signals are blocked only in the thread whose handler runs,
// so a second signal (timeout(1) signals the process and then its group; Ctrl-C, then a SIGTERM) can start
// a second handler in another thread, and the two would write their lines into each other.
std::atomic<bool> g_handling{false};
static_assert(std::atomic<bool>::is_always_lock_free, "the signal handler needs lock-free atomics");

extern "C" void on_interrupt(int signal_number) {
  // A second handler waits: the first one ends the process by its own signal.
  if (g_handling.exchange(true)) {
    for (;;) ::pause();
  }
  const int saved_errno = errno;
  for (Slot& slot : g_slots) {
    if (slot.state.load(std::memory_order_acquire) != kActive) continue;
    // Only report what was actually removed: between a commit's rename and its release() the temporary
    // name is already gone, and unlink fails harmlessly.
    if (::unlink(slot.temp_path) == 0) {
      start_line();
      write_all("spatialsim: interrupted; removed partial output ");
      write_all(slot.temp_path);
      write_all(" (");
      write_all(slot.final_path);
      write_all(" was not written)\n");
    }
  }
  write_note();
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  sigemptyset(&default_action.sa_mask);
  ::sigaction(signal_number, &default_action, nullptr);
  errno = saved_errno;
  // The signal is blocked while its handler runs: it is delivered, with the default action, on return.
  ::raise(signal_number);
}

// An absolute path with the existing part resolved; lexically normalized when the file system cannot say.
std::filesystem::path resolved(const std::string& p) {
  std::error_code ec;
  std::filesystem::path absolute = std::filesystem::absolute(p, ec);
  if (ec) absolute = p;
  std::filesystem::path canonical = std::filesystem::weakly_canonical(absolute, ec);
  return ec ? absolute.lexically_normal() : canonical;
}

}  // namespace

std::string creation_refused(const std::string& probe_base) {
  // A short name beside probe_base, not probe_base + ".probe-<pid>": that passed NAME_MAX (255 bytes) for a
  // legal name of 253, and a writable directory was reported as refusing files ("File name too long").
  const std::filesystem::path dir = std::filesystem::path(probe_base).parent_path();
  const std::string probe =
      ((dir.empty() ? std::filesystem::path(".") : dir) / (".probe-" + std::to_string(::getpid()))).string();
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return std::strerror(errno);
  ::close(fd);
  ::unlink(probe.c_str());
  return "";
}

namespace {

// Follows `path`'s chain of symbolic links one link at a time. Returns the end of the chain and sets
// `problem` to "" or to why the chain cannot be written through (OutputTarget::problem).
std::filesystem::path follow_output_links(const std::string& path, std::string& problem) {
  namespace fs = std::filesystem;
  problem.clear();
  fs::path current(path);
  std::error_code ec;
  // The kernel gives up after 40 links (ELOOP); so do we.
  for (int links = 0; fs::is_symlink(fs::symlink_status(current, ec)); ++links) {
    if (links == 40) {
      problem = "is a symbolic link in a chain of more than 40 links (a loop?)";
      return fs::path(path);
    }
    fs::path next = fs::read_symlink(current, ec);
    if (ec) {
      problem = "is a symbolic link that cannot be read (" + ec.message() + ")";
      return fs::path(path);
    }
    if (next.is_relative()) next = current.parent_path() / next;
    const fs::path dir = next.parent_path().empty() ? fs::path(".") : next.parent_path();
    const std::string refused =
        fs::is_directory(dir, ec) ? creation_refused((dir / ".").string()) : std::string("not a directory");
    if (!refused.empty()) {
      problem = "is a symbolic link to " + next.string() + ", in " + dir.string() +
                ", which does not take new files (" + refused +
                "); writing through the link would replace it or write where it points; give a regular file "
                "or a new file name";
      return fs::path(path);
    }
    current = next;
  }
  const fs::file_status end = fs::symlink_status(current, ec);
  if (current != fs::path(path) && fs::exists(end) && end.type() != fs::file_type::regular) {
    problem = "is a symbolic link to " + current.string() +
              ", which is not a regular file; give a regular file or a new file name";
    return fs::path(path);
  }
  return current;
}

}  // namespace

std::string file_name_too_long(const std::string& path) {
  const std::string name = std::filesystem::path(path).filename().string();
  if (name.size() <= kMaxFileName) return "";
  return "its file name is " + std::to_string(name.size()) + " bytes long, more than the " +
         std::to_string(kMaxFileName) + " a file name may have; give a shorter name";
}

std::string path_too_long(const std::string& final_path) {
  const std::size_t temp = temporary_path(final_path).size();
  if (std::max(final_path.size(), temp) <= kMaxPartialOutputPath) return "";
  return "the path is " + std::to_string(final_path.size()) + " bytes long (" + std::to_string(temp) +
         " under the temporary name it is written to first), more than the " +
         std::to_string(kMaxPartialOutputPath) + " bytes an output path may have; give a shorter path";
}

std::string temporary_path(const std::string& final_path) {
  const std::string suffix = ".tmp-" + std::to_string(::getpid());
  const std::filesystem::path final_name(final_path);
  const std::string name = final_name.filename().string();
  if (name.size() + suffix.size() <= kMaxFileName) return final_path + suffix;
  return (final_name.parent_path() / (name.substr(0, kMaxFileName - suffix.size()) + suffix)).string();
}

OutputTarget output_target(const std::string& path) {
  OutputTarget target;
  target.path = follow_output_links(path, target.problem).string();
  return target;
}

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  if (std::filesystem::exists(a, ec) && std::filesystem::exists(b, ec))
    return std::filesystem::equivalent(a, b, ec);  // also hard links and links in any part of the path
  // An output is written through its links to where they end (output_target), existing or not: a link to
  // a file not yet there names that file.
  return resolved(output_target(a).path) == resolved(output_target(b).path);
}

void check_output_path(const std::string& path, std::string_view key, std::string_view example_name) {
  const auto fail = [&](const std::string& what) {
    throw OutputError(path, std::string(key) + " = \"" + path + "\": " + what, what);
  };
  const std::string example(example_name);
  if (path.empty()) fail("empty path; give a file name such as " + example);
  const std::filesystem::path target(path);
  std::error_code ec;
  if (std::filesystem::is_directory(target, ec)) {
    fail("is a directory, not a file name; give a file name inside it, such as " +
         (target / example).lexically_normal().string());
  }
  if (!target.has_filename()) {
    // A trailing '/' names a directory, and this one is not there: say what is there instead.
    const std::filesystem::path named = target.parent_path();
    if (std::filesystem::exists(named, ec)) {
      fail("ends in '/', which names a directory, but " + named.string() +
           " is not a directory; give a file name without the '/', such as " +
           (named.parent_path() / example).lexically_normal().string());
    }
    fail("ends in '/', which names a directory, but " + named.string() +
         " does not exist; create it first, or give a file name in an existing directory, such as " +
         (named.parent_path() / example).lexically_normal().string());
  }
  if (const std::string too_long = file_name_too_long(path); !too_long.empty()) fail(too_long);
  const std::filesystem::path dir =
      target.parent_path().empty() ? std::filesystem::path(".") : target.parent_path();
  const std::filesystem::file_status dir_status = std::filesystem::status(dir, ec);
  if (dir_status.type() == std::filesystem::file_type::not_found) {
    fail("directory " + dir.string() + " does not exist; give a path in a writable directory");
  }
  if (ec) fail("cannot inspect directory " + dir.string() + " (" + ec.message() + "); check the path");
  if (dir_status.type() != std::filesystem::file_type::directory) {
    fail(dir.string() + " is not a directory; give a path in a writable directory");
  }
  // A symbolic link is written through (output_target): the file it ends at is replaced, the link stays.
  // Not std::filesystem::status, which follows the link: a link to /proc/self/fd/1 looked like a regular
  // file, and the rename replaced the link (as root, even /dev/stdout).
  const OutputTarget through = output_target(path);
  if (!through.problem.empty()) fail(through.problem);
  const std::string& written = through.path;
  for (const std::string& p : {path, written})
    if (const std::string too_long = path_too_long(p); !too_long.empty()) fail(too_long);
  const std::filesystem::file_status existing = std::filesystem::symlink_status(written, ec);
  if (std::filesystem::exists(existing) && existing.type() != std::filesystem::file_type::regular) {
    fail("exists and is not a regular file; give a new file name");
  }
  const std::filesystem::path written_dir = std::filesystem::path(written).parent_path().empty()
                                                ? std::filesystem::path(".")
                                                : std::filesystem::path(written).parent_path();
  if (const std::string refused = creation_refused(written); !refused.empty())
    fail("cannot create files in directory " + written_dir.string() + " (" + refused +
         "); give a path in a writable directory");
}

void install_interrupt_handlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction action {};
    action.sa_handler = on_interrupt;
    // Block the other handled signals too, so a SIGTERM during a SIGINT cleanup does not re-enter.
    sigemptyset(&action.sa_mask);
    for (int s : kHandledSignals) sigaddset(&action.sa_mask, s);
    action.sa_flags = 0;
    for (int s : kHandledSignals) {
      struct sigaction previous {};
      if (::sigaction(s, nullptr, &previous) != 0) continue;
      if (previous.sa_handler == SIG_IGN) continue;  // e.g. nohup: the user asked not to be interrupted
      ::sigaction(s, &action, nullptr);
    }
  });
}

PartialOutputGuard::PartialOutputGuard(const std::string& temp_path, const std::string& final_path) {
  const auto fail = [&](const std::string& what) {
    throw OutputError(final_path, "output \"" + final_path + "\": " + what);
  };
  if (temp_path.size() > kMaxPartialOutputPath || final_path.size() > kMaxPartialOutputPath) {
    fail("path longer than " + std::to_string(kMaxPartialOutputPath) + " bytes; give a shorter path");
  }
  std::lock_guard lock(g_register_mutex);
  for (const Slot& slot : g_slots) {
    if (slot.state.load(std::memory_order_acquire) == kActive && temp_path == slot.temp_path) {
      fail("already being written by this process (" + temp_path + "); give each output its own path");
    }
  }
  for (std::size_t i = 0; i < g_slots.size(); ++i) {
    Slot& slot = g_slots[i];
    int expected = kFree;
    if (!slot.state.compare_exchange_strong(expected, kClaimed, std::memory_order_acq_rel)) continue;
    std::memcpy(slot.temp_path, temp_path.c_str(), temp_path.size() + 1);
    std::memcpy(slot.final_path, final_path.c_str(), final_path.size() + 1);
    slot.state.store(kActive, std::memory_order_release);
    m_slot = static_cast<int>(i);
    return;
  }
  fail("more than " + std::to_string(kMaxPartialOutputs) +
       " output files open at once; close (commit or destroy) some first");
}

void PartialOutputGuard::release() noexcept {
  if (m_slot < 0) return;
  g_slots[static_cast<std::size_t>(m_slot)].state.store(kFree, std::memory_order_release);
  m_slot = -1;
}

std::size_t PartialOutputGuard::registered_count() noexcept {
  std::size_t n = 0;
  for (const Slot& slot : g_slots) n += slot.state.load(std::memory_order_acquire) == kActive ? 1 : 0;
  return n;
}

void set_stderr_line_open(bool open) noexcept {
  g_stderr_line_open.store(open, std::memory_order_relaxed);
}

InterruptNote::InterruptNote(std::uint64_t total, const std::string& unit_one, const std::string& unit_many,
                             const std::string& go_on, const std::string& made_dir) {
  int expected = kFree;
  if (!g_note.state.compare_exchange_strong(expected, kClaimed, std::memory_order_acq_rel))
    throw std::logic_error("InterruptNote: a second note while one is registered");
  g_note.total = total;
  g_note.finished.store(0, std::memory_order_relaxed);
  copy_cut(g_note.unit_one, unit_one);
  copy_cut(g_note.unit_many, unit_many);
  copy_cut(g_note.go_on, go_on);
  // A directory whose name does not fit is not removed: better kept empty than a cut name removed.
  copy_cut(g_note.made_dir, made_dir.size() <= kMaxPartialOutputPath ? made_dir : std::string());
  g_note.state.store(kActive, std::memory_order_release);
}

InterruptNote::~InterruptNote() {
  g_note.state.store(kFree, std::memory_order_release);
}

void InterruptNote::set_finished(std::uint64_t finished) noexcept {
  g_note.finished.store(finished, std::memory_order_relaxed);
}

}  // namespace spatialsim::analysis
