// `spatialsim kernel`: runs one collective kernel (kernels/) on a W x H grid with real values and prints
// byte_hops, element_hops, depth, makespan, events, the result check and, with finite link bandwidth, the
// makespan lower bound and its terms (docs/kernels.md).
//
//   spatialsim kernel --kernel.name=cannon --mapping.grid=8x8 --machine.topology=torus --kernel.bytes=4
//
// Exit codes (cli/command.h): 0, 1 if the kernel computed a wrong value, 2 for bad input (an unknown
// kernel, a zero grid, a non-square grid for transpose or cannon), reported as one line by main().


#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>

#include "cli/command.h"
#include "kernels/kernel_runner.h"
#include "sim/option_spec.h"

namespace spatialsim::cli {
namespace {

const sim::OptionRegistration options{
    {"kernel.name", "choice", "the kernel `spatialsim kernel` runs (spatialsim --list names them)"},
    {"kernel.bytes", "bytes", "bytes per element each kernel message carries (>= 1)"}};

class KernelCommand final : public Command {
 public:
  int execute(const sim::Config& config) override {
    const std::string name = config.get_choice("kernel.name", kernels::KernelRegistry::names());
    const auto [width, height] = config.get_dims("mapping.grid");
    kernels::KernelMachine machine{
        .width = width,
        .height = height,
        .topology = config.get_choice("machine.topology", {"mesh", "torus"}) == "torus" ? sim::Topology::torus
                                                                                        : sim::Topology::mesh,
        .element_bytes = config.get_positive("kernel.bytes"),
        .link_bytes_per_cycle = config.get_uint("machine.link_bytes_per_cycle"),
        .hop_latency = config.get_positive("machine.hop_latency")};

    auto kernel = kernels::KernelRegistry::create(name, config);
    try {
      kernel->validate({machine.width, machine.height});
    } catch (const std::invalid_argument& e) {
      throw sim::ConfigError("mapping.grid", e.what());  // main(): one line, exit code 2
    }
    const kernels::KernelResult r = kernels::run_kernel(*kernel, machine);

    std::cout << "kernel = " << name << "\ngrid = " << width << "x" << height
              << "\ntopology = " << sim::name(machine.topology)
              << "\nbytes_per_element = " << machine.element_bytes << "\nbyte_hops = " << r.byte_hops
              << "\nelement_hops = " << r.element_hops << "\ndepth = " << r.depth
              << "\nmakespan_cycles = " << r.makespan_cycles << "\nevents = " << r.events
              << "\ncheck = " << (r.check_passed ? "passed" : "FAILED") << '\n';
    if (machine.link_bytes_per_cycle != 0) {
      const kernels::MakespanBound& b = r.bound;
      std::cout << "bound.busiest_link_bytes = " << b.busiest_link_bytes
                << "\nbound.busiest_link_cycles = " << b.busiest_link_cycles << "\nbound.links = " << b.links
                << "\nbound.longest_route_hops = " << b.longest_route_hops << "\nbound.cycles = " << b.cycles
                << '\n';
    }
    // TODO(merge, analysis/hdf5_file.h): when --out is given, write to config.get_string("out") (temporary
    // name, renamed when complete): attributes kernel, grid width/height, topology, bytes_per_element,
    // link_bytes_per_cycle, hop_latency, check_passed; datasets byte_hops and bytes by (phase, kind)
    // (r.counters), element_hops, depth, makespan_cycles, events, and the bound terms of r.bound.
    return r.check_passed ? 0 : 1;
  }
};

const CommandRegistry::Registration registration{
    "kernel", "runs one collective kernel (broadcast, reduce, transpose, cannon, allreduce) with real values",
    [](const sim::Config&) { return std::make_unique<KernelCommand>(); }};

}  // namespace
}  // namespace spatialsim::cli

