#include "sim/text.h"

#include <cstddef>
#include <utility>

namespace spatialsim::sim {
namespace {

// The length of the UTF-8 character that starts at `s[i]` (1 to 4 bytes), or 0 if none does: a lead byte
// with its continuation bytes, in the shortest form, not a UTF-16 surrogate, at most U+10FFFF.
// `code_point` is set to the character's.
std::size_t utf8_length(std::string_view s, std::size_t i, char32_t& code_point) {
  const auto c = static_cast<unsigned char>(s[i]);
  const std::size_t n = c < 0x80             ? 1
                        : (c & 0xE0) == 0xC0 ? 2
                        : (c & 0xF0) == 0xE0 ? 3
                        : (c & 0xF8) == 0xF0 ? 4
                                             : 0;
  if (n == 0 || i + n > s.size()) return 0;
  code_point = n == 1 ? c : c & (0x7F >> n);
  for (std::size_t k = 1; k < n; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0) != 0x80) return 0;
    code_point = (code_point << 6) | (b & 0x3F);
  }
  static constexpr char32_t kSmallest[] = {0, 0, 0x80, 0x800, 0x10000};
  if (code_point < kSmallest[n] || (code_point >= 0xD800 && code_point <= 0xDFFF) || code_point > 0x10FFFF)
    return 0;
  return n;
}

// Whether a terminal shows `code_point` (not ASCII) as nothing or as a blank: Unicode's control (Cc),
// format (Cf) and separator (Zl, Zp, Zs) characters, as of Unicode 14 (Debian 12's Python, which the
// plot scripts' printable() asks).
bool is_invisible(char32_t code_point) {
  static constexpr std::pair<char32_t, char32_t> kRanges[] = {
      {0x80, 0xA0},       {0xAD, 0xAD},       {0x600, 0x605},     {0x61C, 0x61C},     {0x6DD, 0x6DD},
      {0x70F, 0x70F},     {0x890, 0x891},     {0x8E2, 0x8E2},     {0x1680, 0x1680},   {0x180E, 0x180E},
      {0x2000, 0x200F},   {0x2028, 0x202F},   {0x205F, 0x2064},   {0x2066, 0x206F},   {0x3000, 0x3000},
      {0xFEFF, 0xFEFF},   {0xFFF9, 0xFFFB},   {0x110BD, 0x110BD}, {0x110CD, 0x110CD}, {0x13430, 0x13438},
      {0x1BCA0, 0x1BCA3}, {0x1D173, 0x1D17A}, {0xE0001, 0xE0001}, {0xE0020, 0xE007F}};
  for (const auto& [first, last] : kRanges)
    if (code_point >= first && code_point <= last) return true;
  return false;
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
  const auto append_hex = [](std::string& out, char32_t value, int digits) {
    for (int d = digits - 1; d >= 0; --d) out += kHex[(value >> (4 * d)) & 0xF];
  };
  std::string out;
  for (std::size_t i = 0; i < message.size();) {
    const auto c = static_cast<unsigned char>(message[i]);
    char32_t code_point = 0;
    const std::size_t n = utf8_length(message, i, code_point);
    if (c == '\n' || c == '\r') {
      out += ' ';
    } else if (n == 0 || c < 0x20 || c == 0x7f) {
      out += "\\x";
      append_hex(out, c, 2);
    } else if (n > 1 && is_invisible(code_point)) {
      // Python's spelling: \u and four hex digits, \U and eight past the first 65536.
      out += code_point > 0xFFFF ? "\\U" : "\\u";
      append_hex(out, code_point, code_point > 0xFFFF ? 8 : 4);
      i += n;
      continue;
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
