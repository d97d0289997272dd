#include "cli/model_shape_precedence.h"

#include "cli/command_line.h"
#include "workloads/model_spec.h"

namespace spatialsim::cli {

void let_command_line_widths_replace_file_shape(sim::Config& config) {
  if (!config.has("model.widths") || config.origin("model.widths") != kCommandLineOrigin ||
      !workloads::widths_given(config))
    return;
  for (const char* key : workloads::kShapeOptions) {
    const std::string* default_value = config.default_raw(key);
    if (config.is_explicit(key) && config.origin(key) != kCommandLineOrigin && default_value != nullptr)
      config.set(key, *default_value, "default");
  }
}

}  // namespace spatialsim::cli
