#include "cli/ini_file.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <ios>
#include <iterator>
#include <map>
#include <system_error>

#include "sim/text.h"

namespace spatialsim::cli {

namespace {

bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

bool is_name(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!is_name_char(c)) return false;
  return true;
}

// name(.name)*: the dotted form is allowed for top-level keys only.
bool is_dotted_name(std::string_view s) {
  while (true) {
    auto dot = s.find('.');
    if (!is_name(s.substr(0, dot))) return false;
    if (dot == std::string_view::npos) return true;
    s.remove_prefix(dot + 1);
  }
}

// The offending text, escaped (\xNN for control and non-ASCII bytes) and cut, so that an error about
// arbitrary bytes is still one line.
std::string shown(std::string_view text) {
  constexpr std::size_t kMaxShown = 60;
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  for (std::size_t i = 0; i < text.size() && i < kMaxShown; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    // Bytes past ASCII too: keys and section names are ASCII, and a stray byte-order mark or invalid UTF-8
    // would otherwise reach the terminal raw (an invisible BOM reads as a key that looks right).
    if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\') {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 0xf];
    } else {
      out += static_cast<char>(c);
    }
  }
  out += text.size() > kMaxShown ? "\"..." : "\"";
  return out;
}

[[noreturn]] void fail_at(const std::string& source, std::size_t line, const std::string& key,
                          const std::string& what) {
  throw sim::ConfigError(key, source + ":" + std::to_string(line) + ": " + what);
}

// Values are verbatim (no quotes, no escapes, comments on lines of their own), so what would be a comment
// or quotes in another INI dialect would become part of the value: for a file name, silently. Refused: a
// '#' after a blank, and quotes around the value. A ';' is kept: it separates sweep.vary's keys.
void check_verbatim(std::string_view value, const std::string& source, std::size_t line_no,
                    const std::string& key) {
  for (std::size_t i = 1; i < value.size(); ++i) {
    const bool blank_before = value[i - 1] == ' ' || value[i - 1] == '\t';
    if (blank_before && value[i] == '#')
      fail_at(source, line_no, key,
              key + ": comments are full-line only, and " + shown(value) +
                  " would keep this one as part of the value; put it on a line of its own");
  }
  const bool quoted =
      value.size() >= 2 && (value.front() == '"' || value.front() == '\'') && value.back() == value.front();
  if (quoted) {
    const std::string_view inside = value.substr(1, value.size() - 2);
    fail_at(source, line_no, key,
            key + ": values are verbatim, without quotes: " +
                (inside.empty() ? "leave the value empty (" + key + " =)" : "write " + std::string(inside)));
  }
}

}  // namespace

std::vector<IniEntry> parse_ini(std::string_view text, const std::string& source) {
  std::vector<IniEntry> entries;
  std::map<std::string, std::size_t> first_line;  // key -> line, for duplicate reports
  std::string section;
  std::size_t line_no = 0;
  // A UTF-8 byte order mark, as some editors write, is not part of the first line.
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  while (!text.empty()) {
    ++line_no;
    auto nl = text.find('\n');
    std::string_view raw = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    if (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);  // files written on Windows
    const auto line = sim::trim_blanks(raw);

    if (line.empty() || line.front() == '#' || line.front() == ';') continue;
    // Text only: a NUL would cut a value short wherever it is used as a C string (a file name), and other
    // control bytes are invisible in an editor.
    for (const char ch : line) {
      const auto c = static_cast<unsigned char>(ch);
      if ((c < 0x20 && c != '\t') || c == 0x7f)
        fail_at(source, line_no, "",
                "control character " + shown(std::string_view(&ch, 1)).substr(1, 4) +
                    " in the line: a config file is text");
    }

    if (line.front() == '[') {
      if (line.back() != ']')
        fail_at(source, line_no, "", "a section header must be [name] alone on its line, got " + shown(line));
      const auto name = sim::trim_blanks(line.substr(1, line.size() - 2));
      if (!is_name(name))
        fail_at(source, line_no, "",
                "a section name must be letters, digits, '_' or '-' (no nesting), got " + shown(line));
      section = std::string(name);
      continue;
    }

    const auto eq = line.find('=');
    if (eq == std::string_view::npos)
      fail_at(source, line_no, "",
              "expected \"key = value\", \"[section]\" or a comment, got " + shown(line));
    const auto key = sim::trim_blanks(line.substr(0, eq));
    const bool valid_key = section.empty() ? is_dotted_name(key) : is_name(key);
    if (!valid_key)
      fail_at(source, line_no, "",
              (key.empty() ? std::string("missing key before '='")
                           : "a key must be letters, digits, '_' or '-'" +
                                 std::string(section.empty() ? " (dots between parts allowed here)" : "") +
                                 ", got " + shown(key)));
    std::string full_key = section.empty() ? std::string(key) : section + "." + std::string(key);
    auto [it, inserted] = first_line.emplace(full_key, line_no);
    if (!inserted)
      fail_at(source, line_no, full_key,
              full_key + " is set twice in this file (first on line " + std::to_string(it->second) + ")");
    const auto value = sim::trim_blanks(line.substr(eq + 1));
    check_verbatim(value, source, line_no, full_key);
    entries.push_back({std::move(full_key), std::string(value), line_no});
  }
  return entries;
}

std::vector<IniEntry> read_ini_file(const std::string& path) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  const auto fail = [&](const std::string& why) {
    throw sim::ConfigError("", "cannot read config file " + shown(path) + ": " + why);
  };
  if (ec || !std::filesystem::exists(status)) fail("no such file; check the path given to --config");
  if (!std::filesystem::is_regular_file(status)) fail("not a regular file; --config takes an INI file");
  std::ifstream in(path, std::ios::binary);
  if (!in) fail("cannot open it (" + std::string(std::strerror(errno)) + "); check its permissions");
  std::string text;
  // libstdc++'s filebuf throws when read(2) fails (EIO from /proc/self/mem, a failing disk), whatever the
  // stream's exception mask: that is this file's error, not an internal one.
  errno = 0;
  try {
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  } catch (const std::ios_base::failure&) {
    in.setstate(std::ios::badbit);
  }
  if (in.bad())
    fail("reading it failed (" + std::string(errno != 0 ? std::strerror(errno) : "read error") +
         "); --config takes an INI file");
  return parse_ini(text, path);
}

void apply_ini(const std::vector<IniEntry>& entries, const std::string& source, sim::Config& config,
               const std::string& fixed_origin) {
  for (const auto& e : entries)
    config.set(e.key, e.value, fixed_origin.empty() ? source + ":" + std::to_string(e.line) : fixed_origin);
  if (fixed_origin.empty()) config.add_file(source);
}

}  // namespace spatialsim::cli
