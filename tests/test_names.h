#pragma once
// GoogleTest parameter names may hold only letters, digits and '_': config names such as
// "cross-entropy" are turned into valid ones here.
#include <string>
#include <string_view>

namespace spatialsim::testing_support {
inline std::string gtest_name(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))) c = '_';
  return out;
}
}  // namespace spatialsim::testing_support
