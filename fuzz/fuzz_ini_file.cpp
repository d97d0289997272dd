// libFuzzer target: arbitrary bytes as an INI file (cli::parse_ini), applied to a sim::Config
// (cli::apply_ini), then every typed getter on every key, so that sim/config.cpp's number, list and
// dimension parsers see the same bytes.
//
// Contract under test (cli/ini_file.h, sim/config.h): any input either parses or throws sim::ConfigError.
// Any other exception escapes and libFuzzer reports it as a crash ("deadly signal" after the uncaught
// exception), like a sanitizer report. Build and run: fuzz/README.md.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "cli/ini_file.h"
#include "sim/config.h"

namespace {

using spatialsim::sim::Config;
using spatialsim::sim::ConfigError;

// Calls `getter`; a ConfigError is the documented answer to a bad value.
template <typename Getter>
void probe(Getter&& getter) {
  try {
    getter();
  } catch (const ConfigError&) {
  }
}

void read_every_way(const Config& config, const std::string& key) {
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

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const auto entries = spatialsim::cli::parse_ini(text, "fuzz.ini");
    Config config;
    spatialsim::cli::apply_ini(entries, "fuzz.ini", config);
    for (const auto& key : config.keys()) read_every_way(config, key);
  } catch (const ConfigError&) {
    // Expected for bad input.
  }
  return 0;
}
