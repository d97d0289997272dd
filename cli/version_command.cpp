// `spatialsim version`: the one command the front end owns, so that the binary works end to end.
#include <iostream>
#include <memory>
#include <string>

#include "cli/command.h"
#include "cli/embedded_default_config.h"
#include "sim/blas_kernels.h"

namespace spatialsim::cli {
namespace {

class VersionCommand : public Command {
 public:
  bool reads(const std::string&) const override { return false; }
  int execute(const sim::Config& /*config*/) override {
    std::cout << "spatialsim " << kProgramVersion << '\n';
    // The kernels OpenBLAS chose for this CPU (sim/blas_kernels.h): they set the fp32/fp64 products' speed.
    std::cout << "blas    " << sim::blas_configuration() << '\n';
    if (const std::string advice = sim::blas_advice(); !advice.empty())
      std::cout << "note    " << advice << '\n';
    return kExitOk;
  }
};

const CommandRegistry::Registration registration{
    "version", "print the program version and the BLAS kernels it runs",
    [](const sim::Config&) { return std::make_unique<VersionCommand>(); }};

}  // namespace
}  // namespace spatialsim::cli
