#pragma once
// A subcommand of the spatialsim executable (run, compare, sweep, kernel, ...). Each command registers
// itself under its name from its own file; main() parses the command line into a resolved Config and
// hands it to the command.
//
// Contract: execute() returns the process exit code (0 success, 1 a check failed, 2 bad input, 3 a run
// stopped on a storage overflow). It reports bad input by throwing sim::ConfigError (main prints one line
// and exits 2). It never leaves a partial output file under the requested name.

#include <string_view>

#include <initializer_list>
#include <string>
#include <vector>

#include "sim/config.h"
#include "sim/registry.h"

namespace spatialsim::cli {

// Process exit codes, as documented in docs/cli.md.
enum ExitCode : int {
  kExitOk = 0,
  kExitCheckFailed = 1,  // a check failed, or an internal error
  kExitBadInput = 2,     // sim::ConfigError or std::invalid_argument
  kExitStorageOverflow = 3,
};

class Command {
 public:
  static constexpr std::string_view kRegistryHeading = "commands";  // for `spatialsim --list`
  virtual ~Command() = default;
  virtual int execute(const sim::Config& config) = 0;
  // Contract: false for a key this command never reads. main() rejects such a key when it was given on
  // the command line, so that nothing a user typed is silently ignored (config files may serve several
  // commands). The default: every key matters.
  virtual bool reads(const std::string& /*key*/) const { return true; }
};

// For Command::reads: whether `key` is in one of `sections` ("sweep" holds "sweep.vary").
bool in_any_section(const std::string& key, std::initializer_list<std::string_view> sections);
// The keys only `run` reads: its gradient checks and its traces.
bool is_run_only(const std::string& key);

// Rejects (sim::ConfigError) the first key given on the command line that `command` does not read.
void reject_unread_options(const Command& command, const std::string& name, const sim::Config& config);

// Rejects (sim::ConfigError) an output of `command` that would replace another output or an input: two of
// its output options (out, chrome_trace) naming one file, or one naming a --config file in `config_files`.
// The outputs are the output options the command reads, when set.
void reject_clashing_outputs(const Command& command, const sim::Config& config,
                             const std::vector<std::string>& config_files);

using CommandRegistry = sim::Registry<Command>;

}  // namespace spatialsim::cli
