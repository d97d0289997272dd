// `spatialsim kernel`: runs one collective kernel (kernels/) on a W x H grid with real values and prints
// byte_hops, element_hops, depth, makespan, events, the result check and, with finite link bandwidth, the
// makespan lower bound and its terms (docs/kernels.md).
//
//   spatialsim kernel --kernel.name=cannon --mapping.grid=8x8 --machine.topology=torus --kernel.bytes=4
//
// With `out` given explicitly (--out FILE) it also writes the figures to that HDF5 file: root attributes
// (the machine and the config), `/kernels/<name>` (the figures and the (phase, kind) counters) and
// `/kernels/<name>/bound` (every term of the bound); docs/hdf5.md, "Kernel files". The default `out` is
// the run command's results file, so the kernel writes nothing unless asked.
//
// Exit codes (cli/command.h): 0, 1 if the kernel computed a wrong value (the file is still written), 2 for
// bad input (an unknown kernel, a zero grid, a non-square grid for transpose or cannon, an `out` that
// cannot be written), reported as one line by main().

#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>

#include "analysis/hdf5_file.h"
#include "analysis/results_writer.h"
#include "cli/command.h"
#include "cli/command_line.h"
#include "cli/embedded_default_config.h"
#include "kernels/kernel_runner.h"
#include "sim/counters.h"
#include "sim/grid.h"
#include "sim/machine_limits.h"
#include "sim/option_spec.h"

namespace spatialsim::cli {
namespace {

const sim::OptionRegistration options{
    {"kernel.name", "choice", "the kernel `spatialsim kernel` runs (spatialsim --list names them)"},
    {"kernel.bytes", "bytes", "bytes per element each kernel message carries (>= 1)"}};

// The kernel's figures in `out`. The bound is written whatever the bandwidth (with unlimited bandwidth
// its link terms are 0), so that every kernel file has the same datasets.
void write_kernel_file(const std::string& out, const sim::Config& config, const std::string& name,
                       const kernels::KernelMachine& machine, const kernels::KernelResult& r) {
  analysis::Hdf5File file(out);
  analysis::write_config_attributes(file, config, kProgramVersion);
  file.set_attribute("/", "kernel", name);
  file.set_attribute("/", "grid_width", machine.width);
  file.set_attribute("/", "grid_height", machine.height);
  file.set_attribute("/", "topology", sim::name(machine.topology));
  file.set_attribute("/", "bytes_per_element", machine.element_bytes);
  file.set_attribute("/", "link_bytes_per_cycle", machine.link_bytes_per_cycle);
  file.set_attribute("/", "hop_latency", machine.hop_latency);
  file.set_attribute("/", "check_passed", r.check_passed);

  const std::string group = "/kernels/" + name;
  file.write_scalar(group + "/byte_hops", r.byte_hops, "byte-hops");
  file.write_scalar(group + "/element_hops", r.element_hops, "element-hops");
  file.write_scalar(group + "/depth", r.depth, "hops");
  file.write_scalar(group + "/makespan_cycles", r.makespan_cycles, "cycles");
  file.write_scalar(group + "/events", r.events, "events");
  analysis::write_phase_kind_counters(file, group, r.counters);

  const kernels::MakespanBound& b = r.bound;
  const std::string bound = group + "/bound";
  file.write_scalar(bound + "/busiest_link_bytes", b.busiest_link_bytes, "bytes");
  file.write_scalar(bound + "/busiest_link_cycles", b.busiest_link_cycles, "cycles");
  file.write_scalar(bound + "/byte_hops", b.byte_hops, "byte-hops");
  file.write_scalar(bound + "/link_cycles", b.link_cycles, "cycles");
  file.write_scalar(bound + "/links", b.links, "links");
  file.write_scalar(bound + "/longest_route_hops", b.longest_route_hops, "hops");
  file.write_scalar(bound + "/depth", b.depth, "hops");
  file.write_scalar(bound + "/min_serialization", b.min_serialization, "cycles");
  file.write_scalar(bound + "/busiest_link_term", b.busiest_link_term, "cycles");
  file.write_scalar(bound + "/average_link_term", b.average_link_term, "cycles");
  file.write_scalar(bound + "/depth_term", b.depth_term, "cycles");
  file.write_scalar(bound + "/cycles", b.cycles, "cycles");
  file.commit();
}

class KernelCommand final : public Command {
 public:
  bool reads(const std::string& key) const override {
    return key.rfind("kernel.", 0) == 0 || key == "mapping.grid" || key == "machine.topology" ||
           key == "machine.link_bytes_per_cycle" || key == "machine.hop_latency" || key == "out";
  }
  int execute(const sim::Config& config) override {
    const std::string name = config.get_choice("kernel.name", kernels::KernelRegistry::names());
    // `auto` sizes a run's grid to its placement; a kernel has no placement to size it by.
    if (config.raw("mapping.grid") == "auto")
      config.fail("mapping.grid",
                  "is the size of a run's placement; a kernel needs the grid given, as "
                  "--mapping.grid=WxH (width x height, for example 8x8)");
    const auto [width, height] =
        config.get_dims("mapping.grid", /*allow_auto=*/false, sim::Config::DimsNames::width_by_height);
    if (const std::string why = sim::grid_size_problem(width, height); !why.empty())
      config.fail("mapping.grid", why);
    // Every kernel sends at most 2 (w + h) messages per tile over at most w + h hops: bound the byte-hops
    // so that no count can wrap.
    const std::uint64_t element_bytes = config.get_positive("kernel.bytes");
    const long double span = static_cast<long double>(width) + height + 2;
    if (static_cast<long double>(width) * height * 2 * span * span >= sim::kCountLimit)  // even at 1 byte
      config.fail(
          "mapping.grid",
          "is too large for the kernels: even at kernel.bytes = 1 the byte-hops could pass 2^62 and "
          "wrap; give a smaller grid (the bound grows as W x H x (W + H)^2: a squarer grid of as many "
          "tiles may fit)");
    if (static_cast<long double>(element_bytes) * width * height * 2 * span * span >= sim::kCountLimit)
      config.fail("kernel.bytes",
                  "is too large for this grid: the byte-hops could pass 2^62 and wrap; give fewer "
                  "bytes per element or a smaller grid");
    kernels::KernelMachine machine{
        .width = width,
        .height = height,
        .topology = sim::topology_from_config(config),
        .element_bytes = element_bytes,
        .link_bytes_per_cycle = config.get_uint("machine.link_bytes_per_cycle"),
        // The limit `run` applies (sim/machine_limits.h): a larger latency wraps the event clock.
        .hop_latency = sim::hop_latency_from_config(config)};

    auto kernel = kernels::KernelRegistry::create(name, config);
    try {
      kernel->validate({machine.width, machine.height});
    } catch (const std::invalid_argument& e) {
      config.fail("mapping.grid", e.what());  // one line with the value's origin, exit code 2
    }
    const bool write_file = config.is_explicit("out");
    const std::string out = config.get_string("out");
    if (write_file) {
      try {
        analysis::check_output_path(out, "out");
      } catch (const analysis::OutputError& e) {
        config.fail("out", e.problem());  // bad input: one line with the value's origin, exit code 2
      }
    }
    if (const std::string note = kernel->long_run_note({machine.width, machine.height}); !note.empty())
      std::cerr << "spatialsim: note: " << note << '\n';
    const kernels::KernelResult r = kernels::run_kernel(*kernel, machine);

    std::cout << "kernel = " << name << "\ngrid = " << width << "x" << height
              << "\ntopology = " << sim::name(machine.topology)
              << "\nbytes_per_element = " << machine.element_bytes << "\nbyte_hops = " << r.byte_hops
              << "\nelement_hops = " << r.element_hops << "\ndepth = " << r.depth
              << "\nmakespan_cycles = " << r.makespan_cycles << "\nevents = " << r.events
              << "\ncheck = " << (r.check_passed ? "passed" : "FAILED") << '\n';
    if (machine.link_bytes_per_cycle != 0) {
      const kernels::MakespanBound& b = r.bound;
      // Every term of the bound, as in the file (docs/kernels.md; scripts/kernel-bound-table.sh reads them).
      std::cout << "bound.busiest_link_bytes = " << b.busiest_link_bytes
                << "\nbound.busiest_link_cycles = " << b.busiest_link_cycles
                << "\nbound.byte_hops = " << b.byte_hops << "\nbound.link_cycles = " << b.link_cycles
                << "\nbound.links = " << b.links << "\nbound.longest_route_hops = " << b.longest_route_hops
                << "\nbound.depth = " << b.depth << "\nbound.min_serialization = " << b.min_serialization
                << "\nbound.busiest_link_term = " << b.busiest_link_term
                << "\nbound.average_link_term = " << b.average_link_term
                << "\nbound.depth_term = " << b.depth_term << "\nbound.cycles = " << b.cycles << '\n';
    }
    if (write_file) {
      try {
        write_kernel_file(out, config, name, machine, r);
      } catch (const analysis::OutputError& e) {
        std::cerr << error_line(e.what()) << '\n';
        return kExitCheckFailed;
      }
    }
    return r.check_passed ? 0 : 1;
  }
};

const CommandRegistry::Registration registration{
    "kernel", "run one collective kernel (broadcast, reduce, transpose, cannon, allreduce) with real values",
    [](const sim::Config&) { return std::make_unique<KernelCommand>(); }};

}  // namespace
}  // namespace spatialsim::cli
