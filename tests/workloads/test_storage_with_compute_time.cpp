// In-flight storage when computing takes time (machine.flops_per_cycle > 0, MODEL.md sections 2 and 3): a
// stashed value is held from the cycle it exists until the computation that last reads it has finished,
// not from and until the messages that started those computations arrived. By hand, on one token and 1x1
// blocks at 1 flop per cycle, where every product takes 2 d_in d_out = 32 cycles and a tile does one
// thing at a time.
#include <gtest/gtest.h>

#include "tests/workloads/network_test_support.h"

namespace spatialsim::workloads {
namespace {

using testing_support::run_with;

// One layer on tile 0: X (b_a d_in = 8 bytes) arrives over the host hop at 1; X W ends at 33, where the
// loss gives dY; dW = X^T dZ runs from 33 to 65 and reads X until then. The update ends at 97.
TEST(StorageWithComputeTime, XIsHeldUntilItsWeightGradientEnds) {
  const RunResult r =
      run_with({"--model.widths=4,4", "--model.bias=false", "--mapping.block=1x1", "--step.tokens=1",
                "--step.wavefront=1", "--machine.flops_per_cycle=1", "--sim.arith=none"},
               "backprop");
  EXPECT_EQ(r.counters.inflight_byte_cycles, 8u * (65 - 1));
  EXPECT_EQ(r.counters.peak_stash_bytes, 8u);
  EXPECT_EQ(r.counters.makespan_cycles, 97u);
}

// Two relu layers on tiles 0 and 1. Layer 0: X0 at 1, X0 W0 ends at 33, where Z0 exists (stashed for
// relu'); y0 reaches tile 1 at 34. Layer 1: X1 at 34, X1 W1 ends at 66 (the loss's dY there); its dX
// share runs 66..98, then its dW 98..130 (one thing at a time), so X1 is held until 130; dX reaches tile 0
// at 99, where dZ0 = dY0 relu'(Z0) releases Z0, and dW0 runs 99..131. The updates end at 162 and 163.
TEST(StorageWithComputeTime, ZIsHeldFromTheEndOfItsProductUntilItsBackwardStarts) {
  const RunResult r = run_with(
      {"--model.widths=4,4,4", "--model.bias=false", "--model.activation=relu", "--mapping.block=1x1",
       "--step.tokens=1", "--step.wavefront=1", "--machine.flops_per_cycle=1", "--sim.arith=none"},
      "backprop");
  const std::uint64_t x0 = 8 * (131 - 1), z0 = 8 * (99 - 33), x1 = 8 * (130 - 34);
  EXPECT_EQ(r.counters.inflight_byte_cycles, x0 + z0 + x1);
  EXPECT_EQ(r.counters.peak_stash_bytes, 24u);  // all three from 34 to 99
  EXPECT_EQ(r.counters.makespan_cycles, 163u);
}

}  // namespace
}  // namespace spatialsim::workloads
