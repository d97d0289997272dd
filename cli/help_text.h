#pragma once
// What `spatialsim --help` and `spatialsim --list` print. Both are built from the registries, so that a
// component registering an option or an implementation appears here without editing the front end.
//
// Usage:
//   cli::print_help(std::cout, "run");   // usage, commands, aliases, every option by section
//   cli::print_list(std::cout);          // every registry and the energy presets

#include <ostream>
#include <string>
#include <string_view>

#include "cli/embedded_default_config.h"

namespace spatialsim::cli {

// `command` may be empty (general help). Defaults shown are those of `default_ini`.
void print_help(std::ostream& out, const std::string& command,
                std::string_view default_ini = kEmbeddedDefaultConfig);
void print_list(std::ostream& out);

}  // namespace spatialsim::cli
