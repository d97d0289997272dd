#pragma once
// The command line overrides the files (docs/cli.md, "Layering"), also across the two ways of giving an
// MLP's widths, model.widths or model.inputs/width/depth/outputs (workloads::kShapeOptions), which are
// never combined.
//
// Usage (cli/main.cpp, after parse_command_line, before any command reads the model):
//   let_command_line_widths_replace_file_shape(invocation.config);

#include "sim/config.h"

namespace spatialsim::cli {

// model.widths set on the command line replaces the inputs/width/depth/outputs that config files set: they
// are put back to their defaults. The other way round stays an error (workloads::model_from_config names
// both origins): a file's model.widths replaced by --model.depth alone would run the default inputs, width
// and outputs, which nobody asked for.
void let_command_line_widths_replace_file_shape(sim::Config& config);

}  // namespace spatialsim::cli
