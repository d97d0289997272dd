// The spatialsim front end: parses the command line, then hands the resolved configuration to a command.
// Exit codes are those of cli::ExitCode (docs/cli.md); every error is one line on stderr.
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <new>
#include <stdexcept>
#include <string>

#include "analysis/hdf5_file.h"
#include "analysis/output_guard.h"
#include "cli/command.h"
#include "cli/command_line.h"
#include "cli/help_text.h"
#include "cli/model_shape_precedence.h"
#include "sim/process_settings.h"

namespace {

// What a command printed must have reached standard output: a full disk or a file that cannot take it is
// an output that cannot be written, like an unwritable --out, not a finished run whose printed results are
// lost without a word (for theory, crossover and a kernel run without --out they are the only output).
int with_stdout_written(int code) {
  // A long text (--help) can fail while it is printed, before this flush: the errno of that write is the
  // reason, if nothing has set errno since.
  const int earlier = std::cout.fail() ? errno : 0;
  errno = 0;
  std::cout.flush();
  if (!std::cout.fail()) return code;
  const int why = errno != 0 ? errno : earlier;
  const std::string reason = why != 0 ? std::string(" (") + std::strerror(why) + ")" : "";
  std::cerr << spatialsim::cli::error_line("standard output cannot be written" + reason +
                                           "; what was printed there is incomplete: send it to a file or "
                                           "pipe that can take it")
            << '\n';
  return code == spatialsim::cli::kExitOk ? spatialsim::cli::kExitBadInput : code;
}

// The command's exit code; every error is caught and printed here.
int run_main(int argc, char** argv) {
  using namespace spatialsim;
  // A write past the file-size limit (ulimit -f) raises SIGXFSZ, whose default action ends the process
  // without a word (and leaves a temporary file behind); ignored, the write fails with EFBIG and is reported
  // in one line like any failed write ("File too large"), --help's and --list's output included.
  std::signal(SIGXFSZ, SIG_IGN);
  try {
    cli::Invocation inv = cli::parse_command_line(argc, argv);
    switch (inv.action) {
      case cli::Invocation::Action::kHelp:
        cli::print_help(std::cout, inv.command);
        return with_stdout_written(cli::kExitOk);
      case cli::Invocation::Action::kList:
        cli::print_list(std::cout);
        return with_stdout_written(cli::kExitOk);
      case cli::Invocation::Action::kExecute:
        break;
    }
    // Before any output is opened: an interrupted run removes its partial files (analysis/output_guard.h).
    analysis::install_interrupt_handlers();
    cli::let_command_line_widths_replace_file_shape(inv.config);
    const auto command = cli::CommandRegistry::create(inv.command, inv.config);
    cli::reject_unread_options(*command, inv.command, inv.config);
    cli::reject_clashing_outputs(*command, inv.config, inv.config_files);
    return with_stdout_written(command->execute(inv.config));
  } catch (const sim::ConfigError& e) {
    std::cerr << cli::error_line(e.what()) << '\n';
    return cli::kExitBadInput;
  } catch (const std::invalid_argument& e) {  // bad input detected by a component
    std::cerr << cli::error_line(e.what()) << '\n';
    return cli::kExitBadInput;
  } catch (const std::bad_alloc&) {  // sizes that passed the up-front estimate, on a machine with less free
    std::cerr << cli::error_line(
                     "out of memory: this run needs more memory than the machine has free (its values grow "
                     "with the layer widths, step.tokens and data.teacher_width); give smaller sizes, or "
                     "sim.arith=none to count without values")
              << '\n';
    return cli::kExitBadInput;
  } catch (const std::exception& e) {
    std::cerr << cli::error_line(std::string("internal error: ") + e.what()) << '\n';
    return cli::kExitCheckFailed;
  } catch (...) {
    std::cerr << cli::error_line("internal error: unknown exception") << '\n';
    return cli::kExitCheckFailed;
  }
}

}  // namespace

int main(int argc, char** argv) {
  spatialsim::sim::prepare_process();  // before any thread starts
  const int code = run_main(argc, argv);
  if (spatialsim::analysis::hdf5_abandoned_a_file()) {
    // HDF5's exit handlers would crash on the file left unclosed (analysis/hdf5_file.h): leave without them.
    std::cout.flush();
    std::cerr.flush();
    std::_Exit(code);
  }
  return code;
}
