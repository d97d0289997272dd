#include "sim/text.h"

#include <cstddef>

namespace spatialsim::sim {
namespace {

// The length of the valid UTF-8 character that starts at `s[i]` (1 to 4 bytes), or 0 if none does.
std::size_t utf8_length(std::string_view s, std::size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  const std::size_t n = c < 0x80             ? 1
                        : (c & 0xE0) == 0xC0 ? 2
                        : (c & 0xF0) == 0xE0 ? 3
                        : (c & 0xF8) == 0xF0 ? 4
                                             : 0;
  if (n == 0 || (n == 2 && c < 0xC2) || i + n > s.size()) return 0;  // C0, C1: overlong
  for (std::size_t k = 1; k < n; ++k)
    if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return 0;
  return n;
}

}  // namespace

std::string_view trim_blanks(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::string ascii_lower(std::string_view text) {
  std::string out(text);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

std::string counted(std::uint64_t n, std::string_view one, std::string_view many) {
  return std::to_string(n) + " " + std::string(n == 1 ? one : many);
}

std::string_view shown_part(std::string_view text) {
  constexpr std::size_t kMaxShown = 80;
  if (text.size() <= kMaxShown) return text;
  std::size_t n = kMaxShown;
  while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80) --n;  // not inside a character
  return text.substr(0, n);
}

std::string one_line(std::string_view message) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < message.size();) {
    const auto c = static_cast<unsigned char>(message[i]);
    const std::size_t n = utf8_length(message, i);
    if (c == '\n' || c == '\r') {
      out += ' ';
    } else if (n == 0 || c < 0x20 || c == 0x7f) {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 0xf];
    } else {
      out.append(message.substr(i, n));
      i += n;
      continue;
    }
    ++i;
  }
  return out;
}

}  // namespace spatialsim::sim
