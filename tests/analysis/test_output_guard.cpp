#include "analysis/output_guard.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "tests/analysis/hdf5_test_support.h"

namespace spatialsim::analysis {
namespace {

class SameFileTest : public testing::ScratchDirTest {};

TEST_F(SameFileTest, SpellingsOfOnePathAreOneFile) {
  EXPECT_TRUE(same_file(path("a.h5"), path("a.h5")));  // neither exists: by path
  EXPECT_TRUE(same_file(path("a.h5"), path("sub/../a.h5")));
  EXPECT_TRUE(same_file(path("a.h5"), (m_dir / "." / "a.h5").string()));
  EXPECT_FALSE(same_file(path("a.h5"), path("b.h5")));
  std::ofstream(path("a.h5")) << "x";
  EXPECT_FALSE(same_file(path("a.h5"), path("b.h5")));  // one exists
}

TEST_F(SameFileTest, LinksToOneFileAreOneFile) {
  std::ofstream(path("config.ini")) << "x";
  std::filesystem::create_symlink(path("config.ini"), path("soft.ini"));
  std::filesystem::create_hard_link(path("config.ini"), path("hard.ini"));
  EXPECT_TRUE(same_file(path("soft.ini"), path("config.ini")));
  EXPECT_TRUE(same_file(path("hard.ini"), path("config.ini")));
  std::filesystem::create_directory(path("dir"));
  std::filesystem::create_directory_symlink(path("dir"), path("link"));
  EXPECT_TRUE(same_file(path("link/new.h5"), path("dir/new.h5")));  // neither exists: links resolved
}

// An output is written through a link to where it points, even when nothing is there yet: a dangling link
// to the other output's name is that output (--chrome-trace=link --out=o.h5 wrote the JSON over o.h5).
TEST_F(SameFileTest, ADanglingLinkIsTheFileItPointsTo) {
  std::filesystem::create_symlink("o.h5", path("link_to_out"));  // relative: beside the link
  EXPECT_TRUE(same_file(path("link_to_out"), path("o.h5")));
  EXPECT_TRUE(same_file(path("o.h5"), path("link_to_out")));
  std::filesystem::create_symlink("link_to_out", path("link_to_link"));  // a chain of two
  EXPECT_TRUE(same_file(path("link_to_link"), path("o.h5")));
  EXPECT_FALSE(same_file(path("link_to_out"), path("other.h5")));
  std::ofstream(path("o.h5")) << "x";  // and once the file exists, as before
  EXPECT_TRUE(same_file(path("link_to_link"), path("o.h5")));
}

TEST(PartialOutputGuard, RegistersUntilReleasedOrDestroyed) {
  const std::size_t before = PartialOutputGuard::registered_count();
  {
    PartialOutputGuard a("/tmp/a.h5.tmp-1", "/tmp/a.h5");
    PartialOutputGuard b("/tmp/b.h5.tmp-1", "/tmp/b.h5");
    EXPECT_EQ(PartialOutputGuard::registered_count(), before + 2);
    a.release();
    EXPECT_FALSE(a.active());
    EXPECT_EQ(PartialOutputGuard::registered_count(), before + 1);
    a.release();  // twice is harmless
  }
  EXPECT_EQ(PartialOutputGuard::registered_count(), before);
}

TEST(PartialOutputGuard, RefusesTheSameTemporaryTwice) {
  PartialOutputGuard a("/tmp/a.h5.tmp-1", "/tmp/a.h5");
  EXPECT_THROW(PartialOutputGuard("/tmp/a.h5.tmp-1", "/tmp/a.h5"), OutputError);
  a.release();
  EXPECT_NO_THROW(PartialOutputGuard("/tmp/a.h5.tmp-1", "/tmp/a.h5"));  // free again
}

TEST(PartialOutputGuard, TableIsBoundedAndSlotsAreReused) {
  const std::size_t before = PartialOutputGuard::registered_count();
  std::vector<std::unique_ptr<PartialOutputGuard>> guards;
  for (std::size_t i = before; i < kMaxPartialOutputs; ++i) {
    guards.push_back(std::make_unique<PartialOutputGuard>("/tmp/x" + std::to_string(i), "/tmp/y"));
  }
  try {
    PartialOutputGuard extra("/tmp/one-too-many", "/tmp/final.h5");
    ADD_FAILURE() << "expected OutputError";
  } catch (const OutputError& e) {
    EXPECT_EQ(e.path(), "/tmp/final.h5");
    EXPECT_NE(std::string(e.what()).find("at once"), std::string::npos) << e.what();
  }
  guards.pop_back();
  EXPECT_NO_THROW(PartialOutputGuard("/tmp/fits-again", "/tmp/final.h5"));
}

TEST(PartialOutputGuard, RefusesPathsTheHandlerCannotHold) {
  const std::string long_path(kMaxPartialOutputPath + 1, 'x');
  EXPECT_THROW(PartialOutputGuard(long_path + ".tmp-1", long_path), OutputError);
  const std::string longest(kMaxPartialOutputPath, 'y');
  EXPECT_NO_THROW(PartialOutputGuard(longest, "/tmp/z"));
}

TEST(PartialOutputGuard, InstallIsIdempotent) {
  // Only installs in a child: the test process itself keeps the default dispositions. Installing twice
  // must not stack handlers (there is nothing to observe except that it does not crash).
  EXPECT_EXIT(
      {
        install_interrupt_handlers();
        install_interrupt_handlers();
        std::exit(0);
      },
      ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace spatialsim::analysis
