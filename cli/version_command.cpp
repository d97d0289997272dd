// `spatialsim version`: the one command the front end owns, so that the binary works end to end.
#include <iostream>
#include <memory>

#include "cli/command.h"
#include "cli/embedded_default_config.h"

namespace spatialsim::cli {
namespace {

class VersionCommand : public Command {
 public:
  bool reads(const std::string&) const override { return false; }
  int execute(const sim::Config& /*config*/) override {
    std::cout << "spatialsim " << kProgramVersion << '\n';
    return kExitOk;
  }
};

const CommandRegistry::Registration registration{
    "version", "print the program version",
    [](const sim::Config&) { return std::make_unique<VersionCommand>(); }};

}  // namespace
}  // namespace spatialsim::cli
