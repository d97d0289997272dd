// libFuzzer target: arbitrary bytes as an INI file, applied to a sim::Config and read back through every
// typed getter (fuzz/harness.h says exactly what is run and what counts as a finding).
// Build and run: fuzz/README.md.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz/harness.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  spatialsim::fuzz::run_ini_input(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
