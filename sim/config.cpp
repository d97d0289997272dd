#include "sim/config.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <optional>
#include <system_error>

#include "sim/text.h"

namespace spatialsim::sim {

namespace {

// Values reach error messages verbatim from files and argv; escape them so that an error stays one line
// and a terminal never sees raw control bytes. Long values are cut: the origin says where to look.
std::string quoted(std::string_view value, bool cut = true) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  const std::string_view shown = cut ? shown_part(value) : value;
  for (const char ch : shown) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c == 0x7f) {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 0xf];
    } else {
      out += static_cast<char>(c);
    }
  }
  out += shown.size() < value.size() ? "\"..." : "\"";
  return out;
}

// from_chars does not take a leading '+', which people do write ("+3", "+1e-3"); strip exactly one.
std::string_view strip_plus(std::string_view s) {
  if (s.size() >= 2 && s[0] == '+' && s[1] != '-' && s[1] != '+') s.remove_prefix(1);
  return s;
}

// from_chars reports overflow and underflow alike as out of range; both are rejected rather than silently
// turned into inf or 0.
std::optional<double> parse_finite(std::string_view text) {
  const auto s = strip_plus(text);
  double v = 0;
  const char* end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(s.data(), end, v, std::chars_format::general);
  if (s.empty() || ec != std::errc{} || ptr != end || !std::isfinite(v)) return std::nullopt;
  return v;
}

// A decimal number too close to 0 for a double (1e-400): from_chars calls it out of range as it does an
// overflow, and the message "must be a finite decimal number" was wrong for it.
bool underflows(std::string_view text) {
  const std::string s(strip_plus(text));
  if (s.empty() || s.find_first_not_of("0123456789.eE+-") != std::string::npos) return false;
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size() && errno == ERANGE && std::abs(v) < 1;
}

constexpr const char* kUnderflow =
    "is closer to 0 than any double (the smallest is about 4.9e-324); give 0, or a number further from 0";

template <typename T>
bool parse_whole(std::string_view s, T& out) {
  s = strip_plus(s);
  if (s.empty()) return false;
  const char* end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(s.data(), end, out, 10);
  return ec == std::errc{} && ptr == end;
}

// "a, b,c" -> {"a", "b", "c"}; "" -> {}. An empty element ("a,,b", "a,") makes the whole list invalid.
bool split_list(std::string_view s, std::vector<std::string_view>& out) {
  out.clear();
  if (trim_blanks(s).empty()) return true;
  while (true) {
    auto comma = s.find(',');
    auto item = trim_blanks(s.substr(0, comma));
    if (item.empty()) return false;
    out.push_back(item);
    if (comma == std::string_view::npos) return true;
    s.remove_prefix(comma + 1);
  }
}

const std::string kUint64Max = std::to_string(std::numeric_limits<std::uint64_t>::max());
const std::string kUint32Max = std::to_string(std::numeric_limits<std::uint32_t>::max());

}  // namespace

void Config::set(const std::string& key, std::string value, std::string origin) {
  std::optional<std::string> default_value;
  if (auto it = m_values.find(key); it != m_values.end())
    default_value = it->second.origin == "default" ? it->second.value : it->second.default_value;
  m_values[key] = Entry{std::move(value), std::move(origin), std::move(default_value)};
}

const std::string* Config::default_raw(const std::string& key) const {
  auto it = m_values.find(key);
  if (it == m_values.end()) return nullptr;
  if (it->second.origin == "default") return &it->second.value;
  return it->second.default_value ? &*it->second.default_value : nullptr;
}

bool Config::is_explicit(const std::string& key) const {
  return origin(key) != "default";
}

const std::string& Config::raw(const std::string& key) const {
  auto it = m_values.find(key);
  if (it == m_values.end())
    throw ConfigError(key, key + " is not set (the default configuration has no such key)");
  return it->second.value;
}

const std::string& Config::origin(const std::string& key) const {
  auto it = m_values.find(key);
  if (it == m_values.end())
    throw ConfigError(key, key + " is not set (the default configuration has no such key)");
  return it->second.origin;
}

std::vector<std::string> Config::keys() const {
  std::vector<std::string> out;
  out.reserve(m_values.size());
  for (const auto& [k, _] : m_values) out.push_back(k);
  return out;
}

std::string quoted_value(std::string_view value) {
  return quoted(value, false);
}

std::vector<std::string> Config::explicit_settings() const {
  std::vector<std::string> out;
  for (const auto& [key, entry] : m_values)  // a std::map: in key order
    if (entry.origin != "default")
      // one_line: bytes that are not UTF-8 (a Latin-1 file name) as \xNN, as an error line shows them; these
      // lines go into results files as UTF-8 text.
      out.push_back(one_line(key + " = " + quoted_value(entry.value) + " (from " + entry.origin + ")"));
  return out;
}

void Config::fail(const std::string& key, const std::string& what_is_accepted) const {
  auto it = m_values.find(key);
  if (it == m_values.end()) throw ConfigError(key, key + " is not set: " + what_is_accepted);
  throw ConfigError(
      key, key + " = " + quoted(it->second.value) + " (from " + it->second.origin + "): " + what_is_accepted);
}

std::int64_t Config::get_int(const std::string& key) const {
  std::int64_t v = 0;
  if (!parse_whole(raw(key), v))
    fail(key, "must be a whole number between " + std::to_string(std::numeric_limits<std::int64_t>::min()) +
                  " and " + std::to_string(std::numeric_limits<std::int64_t>::max()));
  return v;
}

std::uint64_t Config::get_uint(const std::string& key) const {
  return get_whole_in(key, 0, std::numeric_limits<std::uint64_t>::max());
}

std::uint64_t Config::get_positive(const std::string& key) const {
  return get_whole_in(key, 1, std::numeric_limits<std::uint64_t>::max());
}

std::uint64_t Config::get_whole_in(const std::string& key, std::uint64_t min, std::uint64_t max,
                                   const std::string& unit) const {
  std::uint64_t v = 0;
  if (!parse_whole(raw(key), v) || v < min || v > max)
    fail(key, "must be a whole number between " + std::to_string(min) + " and " + std::to_string(max) +
                  (unit.empty() ? "" : " (" + unit + ")"));
  return v;
}

double Config::get_double(const std::string& key) const {
  const auto v = parse_finite(raw(key));
  if (!v && underflows(raw(key))) fail(key, kUnderflow);
  if (!v) fail(key, "must be a finite decimal number (for example 0.5, -2 or 1e-3)");
  return *v;
}

double Config::get_nonnegative_double(const std::string& key) const {
  const auto v = parse_finite(raw(key));
  if (!v && underflows(raw(key))) fail(key, kUnderflow);
  if (!v || *v < 0) fail(key, "must be a finite decimal number >= 0 (for example 0, 0.5 or 1e-3)");
  // -0 is 0: kept negative, it printed as -0 and turned a ratio with it into -inf (theory's reuse threshold).
  return *v == 0 ? 0.0 : *v;
}

bool Config::get_bool(const std::string& key) const {
  const auto v = ascii_lower(raw(key));
  if (v == "true" || v == "1" || v == "yes" || v == "on") return true;
  if (v == "false" || v == "0" || v == "no" || v == "off") return false;
  fail(key, "must be true/false, 1/0, yes/no or on/off");
}

std::string Config::get_choice(const std::string& key,
                               std::initializer_list<std::string_view> choices) const {
  return get_choice(key, std::vector<std::string>(choices.begin(), choices.end()));
}

std::string Config::get_choice(const std::string& key, const std::vector<std::string>& choices) const {
  const auto& v = raw(key);
  for (const auto& c : choices)
    if (c == v) return v;
  fail(key, "must be one of: " + joined(choices));
}

std::vector<std::uint64_t> Config::get_positive_list(const std::string& key) const {
  std::vector<std::string_view> items;
  std::vector<std::uint64_t> out;
  bool ok = split_list(raw(key), items);
  for (auto item : items) {
    std::uint64_t v = 0;
    if (!ok || !parse_whole(item, v) || v == 0) {
      ok = false;
      break;
    }
    out.push_back(v);
  }
  if (!ok)
    fail(key, "must be a comma-separated list of whole numbers between 1 and " + kUint64Max +
                  " (for example 32,64,10), or empty");
  return out;
}

std::vector<std::string> Config::get_string_list(const std::string& key) const {
  std::vector<std::string_view> items;
  if (!split_list(raw(key), items))
    fail(key, "must be a comma-separated list without empty elements (for example a,b,c), or empty");
  return {items.begin(), items.end()};
}

std::pair<std::uint32_t, std::uint32_t> Config::get_dims(const std::string& key, bool allow_auto,
                                                         DimsNames names) const {
  const std::string_view v = raw(key);
  if (allow_auto && v == "auto") return {0, 0};
  auto x = v.find_first_of("xX");
  std::uint32_t rows = 0;
  std::uint32_t cols = 0;
  if (x == std::string_view::npos || !parse_whole(v.substr(0, x), rows) ||
      !parse_whole(v.substr(x + 1), cols) || rows == 0 || cols == 0 || v[0] == '+' || v[x + 1] == '+')
    fail(key, std::string(names == DimsNames::rows_by_cols
                              ? "must be RxC with whole numbers R and C"
                              : "must be WxH (width x height) with whole numbers W and H") +
                  " between 1 and " + kUint32Max + " (for example 4x4)" + (allow_auto ? ", or auto" : ""));
  return {rows, cols};
}

}  // namespace spatialsim::sim
