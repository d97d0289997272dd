#pragma once
// The resolved configuration: one flat table of `section.key` -> text, parsed once, each value with where
// it came from. Components read their own keys through the typed getters, which throw ConfigError naming
// the key and what would be accepted; the front end turns that into one error line and exit code 2.
//
// Usage:
//   sim::Config cfg;
//   cfg.set("model.depth", "8", "command line");
//   std::uint64_t depth = cfg.get_positive("model.depth");
//   auto [r, c] = cfg.get_dims("mapping.block");          // "4x4"
//   std::string topology = cfg.get_choice("machine.topology", {"mesh", "torus"});
//
// Contract: getters never clamp or guess; a value that does not parse completely is an error.

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/text.h"

namespace spatialsim::sim {

class ConfigError : public std::runtime_error {
 public:
  ConfigError(std::string key, const std::string& message)
      : std::runtime_error(message), m_key(std::move(key)) {}
  const std::string& key() const { return m_key; }

 private:
  std::string m_key;
};

// `value` in double quotes, with quotes, backslashes and control bytes escaped (\", \\, \xNN), never cut:
// a value as one line of text, whatever it holds.
std::string quoted_value(std::string_view value);

class Config {
 public:
  void set(const std::string& key, std::string value, std::string origin);
  bool has(const std::string& key) const { return m_values.count(key) != 0; }
  // True when the value did not come from the built-in defaults.
  bool is_explicit(const std::string& key) const;
  // The built-in default a value replaced, or the value itself when it is the default; nullptr for a key
  // the defaults do not have. Lets an error name the option that grew a size the most over its default.
  const std::string* default_raw(const std::string& key) const;
  const std::string& raw(const std::string& key) const;
  const std::string& origin(const std::string& key) const;
  std::vector<std::string> keys() const;  // sorted
  // Every value that did not come from the defaults, in key order, as `key = "value" (from ORIGIN)` (the
  // form of an error's first part; the value escaped but never cut): what a user set, and where.
  std::vector<std::string> explicit_settings() const;
  // The config files read, in order, named as in their values' origins ("FILE:LINE"): a file whose every
  // value was overridden afterwards is still one the user gave.
  void add_file(const std::string& file) { m_files.push_back(file); }
  const std::vector<std::string>& files() const { return m_files; }

  std::string get_string(const std::string& key) const { return raw(key); }
  std::int64_t get_int(const std::string& key) const;
  std::uint64_t get_uint(const std::string& key) const;      // >= 0
  std::uint64_t get_positive(const std::string& key) const;  // >= 1
  // A whole number in [min, max]; any other value is refused with the same message, naming both bounds
  // (and `unit`, when given, in parentheses after them).
  std::uint64_t get_whole_in(const std::string& key, std::uint64_t min, std::uint64_t max,
                             const std::string& unit = "") const;
  double get_double(const std::string& key) const;  // finite
  double get_nonnegative_double(const std::string& key) const;
  bool get_bool(const std::string& key) const;  // true/false/1/0/yes/no/on/off
  std::string get_choice(const std::string& key, std::initializer_list<std::string_view> choices) const;
  std::string get_choice(const std::string& key, const std::vector<std::string>& choices) const;
  // "a,b,c" -> values; every element must parse.
  std::vector<std::uint64_t> get_positive_list(const std::string& key) const;
  std::vector<std::string> get_string_list(const std::string& key) const;
  // "4x4": a block's rows x columns, or a grid's width x height (`names` says which, for the error's
  // sake), both >= 1; "auto" gives {0, 0}.
  enum class DimsNames : std::uint8_t { rows_by_cols, width_by_height };
  std::pair<std::uint32_t, std::uint32_t> get_dims(const std::string& key, bool allow_auto = false,
                                                   DimsNames names = DimsNames::rows_by_cols) const;

  [[noreturn]] void fail(const std::string& key, const std::string& what_is_accepted) const;

 private:
  struct Entry {
    std::string value;
    std::string origin;
    std::optional<std::string> default_value;  // kept when a file or the command line replaced it
  };
  std::map<std::string, Entry> m_values;
  std::vector<std::string> m_files;
};

}  // namespace spatialsim::sim
