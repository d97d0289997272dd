#pragma once
// A subcommand of the spatialsim executable (run, compare, sweep, kernel, ...). Each command registers
// itself under its name from its own file; main() parses the command line into a resolved Config and
// hands it to the command.
//
// Contract: execute() returns the process exit code (0 success, 1 a check failed, 2 bad input, 3 a run
// stopped on a storage overflow). It reports bad input by throwing sim::ConfigError (main prints one line
// and exits 2). It never leaves a partial output file under the requested name.

#include "sim/config.h"
#include "sim/registry.h"

namespace spatialsim::cli {

class Command {
 public:
  virtual ~Command() = default;
  virtual int execute(const sim::Config& config) = 0;
};

using CommandRegistry = sim::Registry<Command>;

}  // namespace spatialsim::cli
