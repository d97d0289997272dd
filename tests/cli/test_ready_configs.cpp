// The ready configurations in configs/ run as shipped (with fewer tokens, to stay quick): the seed grid
// under every exact schedule of an mlp, and its reversible companion under forward and reversible.
#include <gtest/gtest.h>

#include <string>

#include "tests/cli/binary_run_fixture.h"

namespace spatialsim::cli {
namespace {

using testing::BinaryRun;
using testing::BinaryRunTest;

class ReadyConfigs : public BinaryRunTest {
 protected:
  BinaryRun run_config(const std::string& file, const std::string& extra) const {
    return run("run --config '" + std::string(SPATIALSIM_SOURCE_DIR) + "/configs/" + file +
               "' --step.tokens=1024 --out ready.h5 " + extra);
  }
};

TEST_F(ReadyConfigs, SeedGridRunsEveryExactSchedule) {
  const BinaryRun r = run_config("seed-grid.ini", "--schedule=forward,backprop,checkpoint,revolve");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("revolve/forward"), std::string::npos) << r.out;
}

TEST_F(ReadyConfigs, SeedGridReversibleRunsForwardAndReversible) {
  const BinaryRun r = run_config("seed-grid-reversible.ini", "");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("reversible/forward"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace spatialsim::cli
