// Results files that cannot be written after the runs (a full disk; here a file size limit, `ulimit -f`,
// in 512- or 1024-byte blocks by shell; the program ignores the SIGXFSZ that would kill it without a word
// and leave the temporary file, so that the write fails instead): every
// command that writes one ends with one line naming the file and the reason, exit code 1, and no
// temporary file. HDF5 cannot close a file after a failed write: the program crashed (a segmentation
// fault in HDF5's H5F__close at exit, after 77 lines of "DataSet::~DataSet - H5Dclose failed") and left
// the temporary file, and a sweep's failure was reported as an internal error.
#include <gtest/gtest.h>

#include <algorithm>
#include <ostream>
#include <string>

#include "tests/analysis/hdf5_test_support.h"
#include "tests/analysis/test_trace_support.h"

namespace spatialsim::cli {
namespace {

struct WriteFailureCase {
  const char* name;
  const char* args;    // after the binary; each writes more than the limit
  const char* output;  // the file the error names (a sweep: one of its points)
  int limit = 40;      // ulimit -f: where the write fails decides which HDF5 call fails
};

void PrintTo(const WriteFailureCase& c, std::ostream* os) {
  *os << c.name << ": " << c.args;
}

class WriteFailureTest : public analysis::testing::ScratchDirTest,
                         public ::testing::WithParamInterface<WriteFailureCase> {};

TEST_P(WriteFailureTest, OneLineExitOneAndNothingLeft) {
  const WriteFailureCase& c = GetParam();
  const testing_support::ProcessRun r = testing_support::run_in(
      m_dir, "(ulimit -f " + std::to_string(c.limit) + "; '" + SPATIALSIM_BINARY + "' " + c.args + ")");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.err.rfind(std::string("spatialsim: error: output \"") + c.output, 0), 0u) << r.err;
  EXPECT_NE(r.err.find("File too large"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  auto entries = dir_entries();
  entries.erase(std::remove(entries.begin(), entries.end(), "s.h5.points"), entries.end());
  EXPECT_TRUE(entries.empty()) << entries.front();
  if (std::filesystem::exists(path("s.h5.points"))) {  // a sweep keeps finished points only
    for (const auto& e : std::filesystem::directory_iterator(path("s.h5.points")))
      EXPECT_EQ(e.path().extension(), ".h5") << e.path();
  }
}

// --help past the limit: standard output fails with one line, exit 2 (it was killed by SIGXFSZ, which the
// program ignored only once a command ran).
class HelpWriteFailureTest : public analysis::testing::ScratchDirTest {};

TEST_F(HelpWriteFailureTest, HelpPastAFileSizeLimitSaysSo) {
  const testing_support::ProcessRun r = testing_support::run_in(
      m_dir, std::string("(ulimit -f 1; '") + SPATIALSIM_BINARY + "' --help > help.txt; echo $? >&2)");
  EXPECT_NE(r.err.find("standard output cannot be written (File too large)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("\n2\n"), std::string::npos) << r.err;
}

INSTANTIATE_TEST_SUITE_P(
    Commands, WriteFailureTest,
    ::testing::Values(
        WriteFailureCase{"Run", "run --sim.arith=none --schedule=forward,backprop,checkpoint --out=r.h5",
                         "r.h5"},
        // Past 8 blocks a dataset's write fails, not its close: "DataSet::~DataSet - H5Dclose failed" came
        // first, a second line, from the destructor of the dataset that could not be closed either.
        WriteFailureCase{"RunWhoseDatasetWriteFails",
                         "run --sim.arith=none --schedule=forward,backprop,checkpoint --out=r.h5", "r.h5", 8},
        WriteFailureCase{"Compare", "compare --sim.arith=none --out=c.h5", "c.h5"},
        WriteFailureCase{"Kernel", "kernel --grid=16x16 --out=k.h5", "k.h5"},
        WriteFailureCase{"Sweep",
                         "sweep --vary model.depth=2,3,4,5,6,7,8 --schedule=forward,backprop,checkpoint "
                         "--sim.arith=none --sim.threads=2 --out=s.h5",
                         "s.h5.points/"}),
    [](const auto& param_info) { return std::string(param_info.param.name); });

}  // namespace
}  // namespace spatialsim::cli
