// The text helpers the error messages share: names joined into a list, blanks trimmed.
#include "sim/text.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace spatialsim::sim {
namespace {

TEST(Joined, StringsViewsAndNumbersWithTheSeparator) {
  EXPECT_EQ(joined(std::vector<std::string>{"a", "b", "c"}), "a, b, c");
  EXPECT_EQ(joined(std::vector<std::string>{"forward", "backprop"}, ","), "forward,backprop");
  EXPECT_EQ(joined(std::array<std::string_view, 2>{"relu", "tanh"}), "relu, tanh");
  EXPECT_EQ(joined(std::vector<std::string>{}), "");
  EXPECT_EQ(joined(std::vector<std::string>{"", "x"}), ", x");  // an empty item keeps its place
  // Numbers in decimal, not appended as a char (64 is '@').
  EXPECT_EQ(joined(std::vector<std::uint64_t>{64, 128, 4096}), "64, 128, 4096");
}

TEST(AsciiLower, FoldsAToZOnlyWhateverTheLocale) {
  EXPECT_EQ(ascii_lower("MODEL.Depth_2x2"), "model.depth_2x2");
  EXPECT_EQ(ascii_lower("\xC3\x89t\xC3\xA9"), "\xC3\x89t\xC3\xA9");  // UTF-8 bytes kept as they are
  EXPECT_EQ(ascii_lower(""), "");
}

TEST(TrimBlanks, SpacesAndTabsAtEitherEnd) {
  EXPECT_EQ(trim_blanks(" \ta b\t "), "a b");
  EXPECT_EQ(trim_blanks("   "), "");
  EXPECT_EQ(trim_blanks("x"), "x");
  EXPECT_EQ(trim_blanks("\nx\n"), "\nx\n");  // only blanks: a newline is not one
}

TEST(Counted, SingularForOneOnly) {
  EXPECT_EQ(counted(1, "layer", "layers"), "1 layer");
  EXPECT_EQ(counted(0, "layer", "layers"), "0 layers");
  EXPECT_EQ(counted(3, "coupling block", "coupling blocks"), "3 coupling blocks");
  EXPECT_EQ(counted(18446744073709551615ull, "token", "tokens"), "18446744073709551615 tokens");
}

}  // namespace
}  // namespace spatialsim::sim
