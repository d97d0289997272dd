#pragma once
// Build-time facts compiled into the binary by CMake (see cli/embedded_default_config.cpp.in).

#include <string_view>

namespace spatialsim::cli {
// configs/default.ini, verbatim: the single source of default values.
extern const std::string_view kEmbeddedDefaultConfig;
// The CMake project version, for example "0.1.0".
extern const std::string_view kProgramVersion;
}  // namespace spatialsim::cli
