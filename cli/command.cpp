#include "cli/command.h"

namespace spatialsim::cli {

void reject_unread_options(const Command& command, const std::string& name, const sim::Config& config) {
  for (const std::string& key : config.keys()) {
    // Only the command line: a config file serves several commands (run, theory, sweep) and may set what
    // one of them does not read.
    if (config.origin(key) == "command line" && !command.reads(key))
      config.fail(key, "is not read by `spatialsim " + name + "`; remove it");
  }
}

}  // namespace spatialsim::cli
