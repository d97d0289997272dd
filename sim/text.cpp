#include "sim/text.h"

#include <cstddef>

namespace spatialsim::sim {

std::string_view trim_blanks(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::string_view shown_part(std::string_view text) {
  constexpr std::size_t kMaxShown = 80;
  if (text.size() <= kMaxShown) return text;
  std::size_t n = kMaxShown;
  while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80) --n;  // not inside a character
  return text.substr(0, n);
}

}  // namespace spatialsim::sim
