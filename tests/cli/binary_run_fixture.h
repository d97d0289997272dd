#pragma once
// A test fixture that runs the built spatialsim binary in a scratch directory and captures its exit code,
// standard output and standard error.
#include <H5Cpp.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/analysis/hdf5_test_support.h"

namespace spatialsim::cli::testing {

using analysis::testing::read_all;

struct BinaryRun {
  int exit_code;
  std::string out;
  std::string err;
};

// Runs the binary with `args` (shell words) in `dir`, capturing what it prints in files beside it.
inline BinaryRun run_binary_in(const std::filesystem::path& dir, const std::string& args) {
  const std::string tag = std::to_string(::getpid());
  const std::string out_path = (dir / ("spatialsim_stdout_" + tag + ".txt")).string();
  const std::string err_path = (dir / ("spatialsim_stderr_" + tag + ".txt")).string();
  const std::string command = "cd '" + dir.string() + "' && '" + SPATIALSIM_BINARY + "' " + args + " >'" +
                              out_path + "' 2>'" + err_path + "'";
  const int status = std::system(command.c_str());
  auto slurp = [](const std::string& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  };
  BinaryRun r{WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(out_path), slurp(err_path)};
  std::filesystem::remove(out_path);
  std::filesystem::remove(err_path);
  return r;
}

// In the system's temporary directory, for runs that write no file.
inline BinaryRun run_binary(const std::string& args) {
  return run_binary_in(std::filesystem::temp_directory_path(), args);
}

class BinaryRunTest : public analysis::testing::ScratchDirTest {
 protected:
  // Runs the binary with `args` in the scratch directory (so that the default `out` lands there).
  BinaryRun run(const std::string& args) const { return run_binary_in(m_dir, args); }

  static std::size_t lines(const std::string& text) { return std::count(text.begin(), text.end(), '\n'); }

  std::vector<std::uint64_t> uint_array(const std::string& file, const std::string& dataset) const {
    H5::H5File in(path(file), H5F_ACC_RDONLY);
    return read_all<std::uint64_t>(in.openDataSet(dataset), H5::PredType::NATIVE_UINT64);
  }
};

}  // namespace spatialsim::cli::testing
