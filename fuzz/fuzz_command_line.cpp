// libFuzzer target: arbitrary bytes as an argument list for cli::parse_command_line, over the embedded
// default configuration and the options and commands this build registers.
//
// The bytes are split on NUL into arguments ("run\0--model.depth=3\0"), so that any byte other than NUL
// can appear inside an argument, as in a real argv. Inputs with more than kMaxArgs arguments are skipped:
// they only make runs slower. parse_command_line never executes a command (cli/command_line.h); it
// may read files named by --config, which is why the corpus names no files.
//
// Contract under test: any argument list either parses or throws sim::ConfigError (or
// std::invalid_argument, which main() also reports as bad input). Anything else escapes and is a
// finding. Build and run: fuzz/README.md.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "cli/command_line.h"
#include "sim/config.h"

namespace {

constexpr std::size_t kMaxArgs = 64;

std::vector<std::string> split_arguments(std::string_view bytes) {
  std::vector<std::string> args;
  while (!bytes.empty()) {
    const auto nul = bytes.find('\0');
    args.emplace_back(bytes.substr(0, nul));
    bytes.remove_prefix(nul == std::string_view::npos ? bytes.size() : nul + 1);
  }
  return args;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto args = split_arguments(std::string_view(reinterpret_cast<const char*>(data), size));
  if (args.size() > kMaxArgs) return -1;  // -1: do not add this input to the corpus
  try {
    const auto invocation = spatialsim::cli::parse_command_line(args);
    // Read back what was resolved, as a command would.
    for (const auto& key : invocation.config.keys()) (void)invocation.config.origin(key);
  } catch (const spatialsim::sim::ConfigError&) {
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
