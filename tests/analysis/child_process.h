#pragma once
// Running a piece of a test in a forked child, for what ends the process: an interrupt's handler, which
// removes files, writes to stderr and dies by the signal.
//
// Usage:
//   const ChildResult child = run_child([&] { install_interrupt_handlers(); ...; ::raise(SIGINT); });
//   EXPECT_EQ(WTERMSIG(child.status), SIGINT);  EXPECT_EQ(child.stderr_text, "...");
//
// Fork only where the parent's threads do not matter to the child: the child has the calling thread only.

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>
#include <string>

namespace spatialsim::analysis::testing {

// Reads everything the child writes to the pipe until it closes (the child died).
inline std::string drain(int fd) {
  std::string out;
  char buf[512];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return out;
}

struct ChildResult {
  int status = 0;  // as waitpid gives it
  pid_t pid = 0;
  std::string stderr_text;
};

// Runs `body` in a forked child with stderr captured; the child exits 3 if `body` returns, 4 if it throws.
template <class F>
ChildResult run_child(F body) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error("pipe failed");
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    ::dup2(fds[1], STDERR_FILENO);
    ::close(fds[0]);
    ::close(fds[1]);
    try {
      body();
    } catch (...) {
      ::_exit(4);
    }
    ::_exit(3);
  }
  ::close(fds[1]);
  ChildResult result;
  result.pid = pid;
  result.stderr_text = drain(fds[0]);
  ::waitpid(pid, &result.status, 0);
  return result;
}

}  // namespace spatialsim::analysis::testing
