#pragma once
// Small text helpers the error messages and readers share: what part of a word to show, blanks trimmed,
// case folded, names joined into a list.

#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

namespace spatialsim::sim {

// The part of a word from argv or a file that an error message shows: at most 80 bytes, cut at a UTF-8
// character boundary (half a character is not text). The caller adds "..." when it is shorter than `text`.
std::string_view shown_part(std::string_view text);

// `text` printable on one line of a terminal, as an error line or a path on stdout shows it: line breaks
// become spaces, other control bytes and bytes that are not UTF-8 become \xNN (a file name may hold any),
// and characters a terminal shows as nothing or a blank (U+00A0, U+200B, U+FEFF, the C1 controls, the
// bidirectional controls) become \uNNNN (\UNNNNNNNN past U+FFFF).
std::string one_line(std::string_view text);

// `text` without the blanks (spaces and tabs) at either end: how list elements, INI lines and --vary
// values are read.
std::string_view trim_blanks(std::string_view text);

// `text` with A-Z made a-z and every other byte kept, whatever the locale: how a bool's words are read
// (True, YES), and how an unknown key or command is matched to its suggestion (MODEL.DEPTH).
std::string ascii_lower(std::string_view text);

// `n` and the noun for it, singular for one: "1 layer", "3 layers" (a count of one in the plural reads as a
// misprint).
std::string counted(std::uint64_t n, std::string_view one, std::string_view many);

// The items (strings, string_views, C strings, or numbers written in decimal) with `separator` between
// them: "a, b, c".
template <typename Range>
std::string joined(const Range& items, std::string_view separator = ", ") {
  std::string out;
  bool first = true;
  for (const auto& item : items) {
    if (!first) out += separator;
    if constexpr (std::is_arithmetic_v<std::remove_cvref_t<decltype(item)>>) {
      out += std::to_string(item);  // not `out += item`, which would append one char
    } else {
      out += item;
    }
    first = false;
  }
  return out;
}

}  // namespace spatialsim::sim
