#pragma once
// A small INI reader, written by hand so that every error names the file and line.
//
// Grammar (one construct per line; leading and trailing spaces and tabs are ignored):
//   # comment            ; comment           (full-line only: `depth = 4 # x` has the value "4 # x")
//   [section]            names are letters, digits, '_' and '-'
//   key = value          inside [model], key `depth` becomes `model.depth`; before any section it is
//                        top-level (`schedule`, `out`), where a dotted key (`model.depth = 4`) is also
//                        allowed
//   key =                a valid, empty value
// Values are taken verbatim (no quotes, no escapes); the typed getters of sim::Config judge them.
//
// Usage:
//   auto entries = cli::read_ini_file("run.ini");          // throws sim::ConfigError "run.ini:3: ..."
//   cli::apply_ini(entries, "run.ini", config);              // origins "run.ini:3"
//
// Contract: any input, including arbitrary bytes, either parses or throws sim::ConfigError whose message
// is one line starting with "SOURCE:LINE: " (or naming the file when it cannot be read).

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "sim/config.h"

namespace spatialsim::cli {

struct IniEntry {
  std::string key;    // full key: "model.depth" or top-level "schedule"
  std::string value;  // trimmed, possibly empty
  std::size_t line;   // 1-based
};

// `source` names the text in errors (a file name, or "default config").
std::vector<IniEntry> parse_ini(std::string_view text, const std::string& source);
// Reads and parses a file; a missing, unreadable or non-regular file is a ConfigError naming it.
std::vector<IniEntry> read_ini_file(const std::string& path);
// Sets every entry into `config` with origin "SOURCE:LINE", and adds SOURCE to Config::files (even with no
// entry), or with `fixed_origin` when it is non-empty (the embedded defaults use "default", which is what
// Config::is_explicit tests; no file is added then).
void apply_ini(const std::vector<IniEntry>& entries, const std::string& source, sim::Config& config,
               const std::string& fixed_origin = "");

}  // namespace spatialsim::cli
