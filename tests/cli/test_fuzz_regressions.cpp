// Every input in fuzz/corpus/ (the seeds and any crash reproducer a fuzzer found) replayed through the
// fuzz harness, so that the normal and the asan-ubsan suites keep them fixed. A reproducer is added by
// copying the minimized crash file into fuzz/corpus/ini/ or fuzz/corpus/command_line/ (fuzz/README.md);
// no code change is needed here.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz/harness.h"

namespace spatialsim::fuzz {
namespace {

std::vector<std::filesystem::path> corpus_files(const std::string& name) {
  const auto dir = std::filesystem::path(SPATIALSIM_SOURCE_DIR) / "fuzz" / "corpus" / name;
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.is_regular_file()) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

std::string contents(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(FuzzCorpus, IniInputsParseOrThrowConfigError) {
  const auto files = corpus_files("ini");
  ASSERT_FALSE(files.empty());
  for (const auto& file : files) {
    SCOPED_TRACE(file.filename().string());
    EXPECT_NO_THROW(run_ini_input(contents(file)));
  }
}

TEST(FuzzCorpus, CommandLineInputsParseOrThrowConfigError) {
  const auto files = corpus_files("command_line");
  ASSERT_FALSE(files.empty());
  for (const auto& file : files) {
    SCOPED_TRACE(file.filename().string());
    EXPECT_NO_THROW(EXPECT_TRUE(run_command_line_input(contents(file))));
  }
}

TEST(FuzzCorpus, ArgumentsSplitOnNulKeepingOtherBytes) {
  using Args = std::vector<std::string>;
  EXPECT_EQ(split_arguments(std::string_view("run\0--a=b c\n\0", 13)), (Args{"run", "--a=b c\n"}));
  EXPECT_EQ(split_arguments(std::string_view("\0\0x", 3)), (Args{"", "", "x"}));
  EXPECT_EQ(split_arguments(""), Args{});
}

}  // namespace
}  // namespace spatialsim::fuzz
