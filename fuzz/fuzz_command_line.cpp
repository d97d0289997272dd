// libFuzzer target: arbitrary bytes, split on NUL, as the argument list of cli::parse_command_line over
// the embedded default configuration and the options and commands this build registers (fuzz/harness.h
// says exactly what is run and what counts as a finding). The seed corpus names no files, since
// --config reads them. Build and run: fuzz/README.md.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz/harness.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const bool ran =
      spatialsim::fuzz::run_command_line_input(std::string_view(reinterpret_cast<const char*>(data), size));
  return ran ? 0 : -1;  // -1: libFuzzer does not keep an input that ran nothing
}
