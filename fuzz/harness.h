#pragma once
// What one fuzz input does, shared by the libFuzzer targets (fuzz_*.cpp) and by the corpus replay in
// tests/cli/test_fuzz_regressions.cpp, so that every file in fuzz/corpus/ (seeds and crash reproducers)
// also runs in the normal and the asan-ubsan test suites.
//
// Contract: each function returns normally or throws sim::ConfigError (or std::invalid_argument, which the
// front end also reports as bad input, exit code 2). Any other exception, crash or sanitizer report is a
// finding.
//
// Usage:
//   fuzz::run_ini_input(bytes);            // bytes: an INI file
//   fuzz::run_command_line_input(bytes);   // bytes: arguments separated by NUL bytes

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "cli/command_line.h"
#include "cli/ini_file.h"
#include "sim/config.h"

namespace spatialsim::fuzz {

// Arguments beyond this many only make runs slower; run_command_line_input returns false for them.
inline constexpr std::size_t kMaxArgs = 64;

namespace detail {

// Calls `getter`; a ConfigError is the documented answer to a bad value.
template <typename Getter>
void probe(Getter&& getter) {
  try {
    getter();
  } catch (const sim::ConfigError&) {
  }
}

inline void read_every_way(const sim::Config& config, const std::string& key) {
  probe([&] { return config.get_int(key); });
  probe([&] { return config.get_uint(key); });
  probe([&] { return config.get_positive(key); });
  probe([&] { return config.get_double(key); });
  probe([&] { return config.get_nonnegative_double(key); });
  probe([&] { return config.get_bool(key); });
  probe([&] { return config.get_choice(key, {"relu", "tanh", ""}); });
  probe([&] { return config.get_positive_list(key); });
  probe([&] { return config.get_string_list(key); });
  probe([&] { return config.get_dims(key); });
  probe([&] { return config.get_dims(key, /*allow_auto=*/true); });
  probe([&] { config.fail(key, "probe"); });
}

}  // namespace detail

// "run\0--model.depth=3" -> {"run", "--model.depth=3"}. Any byte but NUL can appear in an argument, as in
// a real argv.
inline std::vector<std::string> split_arguments(std::string_view bytes) {
  std::vector<std::string> args;
  while (!bytes.empty()) {
    const auto nul = bytes.find('\0');
    args.emplace_back(bytes.substr(0, nul));
    bytes.remove_prefix(nul == std::string_view::npos ? bytes.size() : nul + 1);
  }
  return args;
}

// The bytes as an INI file (cli::parse_ini), applied to a sim::Config (cli::apply_ini), then every typed
// getter on every key, so that sim/config.cpp's number, list and dimension parsers see the same bytes.
// A ConfigError from the parser is caught here (the expected answer to bad input).
inline void run_ini_input(std::string_view bytes) {
  try {
    const auto entries = cli::parse_ini(bytes, "fuzz.ini");
    sim::Config config;
    cli::apply_ini(entries, "fuzz.ini", config);
    for (const auto& key : config.keys()) detail::read_every_way(config, key);
  } catch (const sim::ConfigError&) {
  }
}

// The bytes as an argument list for cli::parse_command_line over the embedded default configuration.
// parse_command_line never executes a command; it does read files named by --config. ConfigError and
// std::invalid_argument are caught here. Returns false (nothing run) for more than kMaxArgs arguments.
inline bool run_command_line_input(std::string_view bytes) {
  const auto args = split_arguments(bytes);
  if (args.size() > kMaxArgs) return false;
  try {
    const auto invocation = cli::parse_command_line(args);
    // Read back what was resolved, as a command would.
    for (const auto& key : invocation.config.keys()) (void)invocation.config.origin(key);
  } catch (const sim::ConfigError&) {
  } catch (const std::invalid_argument&) {
  }
  return true;
}

}  // namespace spatialsim::fuzz
