#pragma once
// Helpers for the tracing and plotting tests: run the built binary or a Python script in a directory and
// capture its exit code and output, and find out whether Debian's Python with h5py and matplotlib is here.
//
// Usage:
//   const ProcessRun r = run_in(dir, std::string("'") + SPATIALSIM_BINARY + "' --trace --out r.h5");
//   if (const std::string why = python_missing({"h5py", "matplotlib"}); !why.empty()) GTEST_SKIP() << why;
//   run_in(dir, python_command(script_path("stash_timeline.py")) + " r.h5 --out s.png");

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace spatialsim::testing_support {

// The interpreter the plot tests use. Not `python3` from PATH: Debian's python3-h5py and
// python3-matplotlib live in /usr/bin/python3's site-packages, and a pyenv or venv python3 that comes
// first on PATH usually lacks them.
inline constexpr const char* kPython = "/usr/bin/python3";

struct ProcessRun {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Runs `command` through the shell in `dir`, stdout and stderr captured in files there (then removed).
inline ProcessRun run_in(const std::filesystem::path& dir, const std::string& command) {
  const auto out = dir / ".stdout.txt";
  const auto err = dir / ".stderr.txt";
  const std::string line =
      "cd '" + dir.string() + "' && " + command + " >'" + out.string() + "' 2>'" + err.string() + "'";
  const int status = std::system(line.c_str());
  ProcessRun r{WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(out), slurp(err)};
  std::filesystem::remove(out);
  std::filesystem::remove(err);
  return r;
}

// Empty when kPython exists and imports every module; otherwise why not, for GTEST_SKIP().
inline std::string python_missing(const std::vector<std::string>& modules) {
  if (::access(kPython, X_OK) != 0)
    return std::string(kPython) + " not found: install python3 (scripts/install-deps.sh)";
  std::string imports;
  for (const auto& m : modules) imports += (imports.empty() ? "import " : ", ") + m;
  if (imports.empty()) return "";
  const std::string command = std::string(kPython) + " -c '" + imports + "' >/dev/null 2>&1";
  if (std::system(command.c_str()) != 0) {
    return std::string(kPython) + " cannot `" + imports +
           "`: python3-h5py/python3-matplotlib not installed (scripts/install-deps.sh installs them)";
  }
  return "";
}

inline std::string plot_script(const std::string& name) {
  return std::string(SPATIALSIM_SOURCE_DIR) + "/analysis/plots/" + name;
}

inline std::string python_command(const std::string& script) {
  return std::string(kPython) + " -B '" + script + "'";  // -B: no __pycache__ in the source tree
}

}  // namespace spatialsim::testing_support
