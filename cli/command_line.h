#pragma once
// The command line: `spatialsim [COMMAND] [OPTIONS]` -> a command name and one resolved sim::Config.
//
// Layering, lowest first (docs/cli.md): the embedded configs/default.ini (origin "default"), then each
// `--config FILE` in the order given (origin "FILE:LINE"), then `--section.key=value` options and their
// aliases (origin "command line"). A key set by a file or an option must be in the default
// configuration and registered in sim::OptionTable; anything else is rejected with the closest known key.
//
// Usage:
//   cli::Invocation inv = cli::parse_command_line(argc, argv);  // throws sim::ConfigError on bad input
//   if (inv.action == cli::Invocation::Action::kHelp) cli::print_help(std::cout, inv.command);
//
// Contract: parse_command_line never executes anything and never prints; every bad input is a
// sim::ConfigError with a one-line message.

#include <string>
#include <string_view>
#include <vector>

#include "cli/embedded_default_config.h"
#include "sim/config.h"

namespace spatialsim::cli {

// The origin sim::Config records for a value given on the command line (docs/cli.md, "Layering"): the
// commands tell what the user typed from what a config file set by it.
inline constexpr const char* kCommandLineOrigin = "command line";

struct Invocation {
  enum class Action { kExecute, kHelp, kList };
  Action action = Action::kExecute;
  std::string command;                    // "run" when the first argument is an option or there is none
  sim::Config config;                     // fully layered; empty for kList
  std::vector<std::string> config_files;  // every --config FILE read, in order: inputs no output may replace
};

// A short spelling of one key (`--grid 4x4` for `--mapping.grid=4x4`). An alias is offered only when its
// key is settable, so the front end never invents keys for features that are not built.
struct OptionAlias {
  std::string option;  // without dashes: "grid"
  std::string key;     // "mapping.grid"
  bool is_flag;        // a bare `--option` means true (`--option=false` also works)
};
const std::vector<OptionAlias>& option_aliases();

// `args` are the arguments after the program name. `default_ini` is the bottom layer; tests pass their
// own, the program uses the embedded one.
Invocation parse_command_line(const std::vector<std::string>& args,
                              std::string_view default_ini = kEmbeddedDefaultConfig);
Invocation parse_command_line(int argc, const char* const* argv,
                              std::string_view default_ini = kEmbeddedDefaultConfig);

// The default layer alone: every key with origin "default".
sim::Config default_config(std::string_view default_ini = kEmbeddedDefaultConfig);

// Keys that may be set: present in `defaults` and registered in sim::OptionTable. Sorted.
std::vector<std::string> settable_keys(const sim::Config& defaults);

// The candidate closest to `unknown` by edit distance, also comparing against a candidate's part after
// its section ("depth" finds "model.depth"). Empty when there are no candidates.
std::string closest_key(const std::string& unknown, const std::vector<std::string>& candidates);

// "spatialsim: error: <message>" with any line breaks in the message turned into spaces.
std::string error_line(std::string_view message);

}  // namespace spatialsim::cli
