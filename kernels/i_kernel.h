#pragma once
// A kernel: one classic program of the spatial computer model (broadcast, reduce, transpose, Cannon's
// matrix multiply, allreduce) run on the engine with real values, so that both its cost (byte-hops, depth,
// makespan) and its result can be checked. Kernels use sim/ only, not mappings/ or workloads/; their
// messages carry sim's labels, which are named for training traffic (phase forward, kinds lane and scalar).
//
// Usage:
//   auto kernel = kernels::KernelRegistry::create("reduce-tree", config);
//   kernel->validate({.width = 4, .height = 7});   // throws std::invalid_argument, one line
//   sim::Grid grid(4, 7, sim::Topology::mesh);
//   sim::Engine engine(grid, sim::MachineTiming{});
//   kernel->run(engine, /*element_bytes=*/4);      // seeds the messages and runs the engine until idle
//   engine.finish();
//   bool right = kernel->check();
// kernels::run_kernel (kernel_runner.h) does all of this and gathers the figures.

#include <cstdint>
#include <string>
#include <string_view>

#include "sim/engine.h"
#include "sim/registry.h"

namespace spatialsim::kernels {

// A grid size before a sim::Grid exists: validate() must be able to reject a zero size, which sim::Grid
// cannot even represent.
struct GridShape {
  std::uint32_t width = 0;
  std::uint32_t height = 0;
};

// Contract:
// - name() and description() are the registry's name and one-line description.
// - validate() throws std::invalid_argument with one line naming the kernel when the grid is unusable (zero
//   size, or a shape the kernel needs and does not have); it does nothing otherwise.
// - run() is called once per instance, on an engine whose grid passed validate(): it installs the kernel
//   as the engine's handler, seeds its messages (each carries whole elements of `element_bytes` bytes,
//   phase `forward`), and returns when the engine is idle. It never calls engine.finish().
// - check() is called after run(): true iff every tile holds exactly the values the kernel must produce,
//   each delivered exactly once. Values are small integers, so sums and products are exact in double.
// - long_run_note() is one line for a grid on which the kernel runs long (minutes), printed before it
//   starts so that a user is not left waiting without a word; empty otherwise.
class Kernel : public sim::MessageHandler {
 public:
  static constexpr std::string_view kRegistryHeading = "kernels (kernel.name)";
  virtual std::string_view name() const = 0;
  virtual std::string_view description() const = 0;
  virtual void validate(const GridShape& grid) const = 0;
  virtual void run(sim::Engine& engine, std::uint64_t element_bytes) = 0;
  virtual bool check() const = 0;
  virtual std::string long_run_note(const GridShape& /*grid*/) const { return {}; }
};

using KernelRegistry = sim::Registry<Kernel>;

}  // namespace spatialsim::kernels
