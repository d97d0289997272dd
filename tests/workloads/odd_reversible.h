#pragma once
// Reversible models of odd half-widths on uneven block splits, shared by the tests that count their traffic
// (test_reversible_counts.cpp) and their flops and stash (test_reversible_values.cpp): the case, how gtest
// prints and names it, and the options that configure it.
//
// Usage:
//   INSTANTIATE_TEST_SUITE_P(OddHalfWidths, MyTest,
//   ::testing::ValuesIn(testing_support::kOddReversibleCases),
//                            testing_support::odd_reversible_name);
//   run_with(testing_support::overrides_of(GetParam()), "reversible");

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "tests/test_names.h"

namespace spatialsim::testing_support {

struct OddReversible {
  std::uint32_t inputs, width, depth, outputs;
  std::string block, placement, activation, bias;
  std::uint32_t tokens, wavefront;
  std::uint32_t act_bytes, psum_bytes, weight_bytes;
};

// gtest prints a failing case's parameter with this (not as raw bytes).
inline void PrintTo(const OddReversible& c, std::ostream* os) {
  *os << c.inputs << "," << c.width << "x" << c.depth << "," << c.outputs << " on " << c.block << " "
      << c.placement << " " << c.activation << " bias=" << c.bias << " T=" << c.tokens << "/" << c.wavefront
      << " b_a=" << c.act_bytes << " b_p=" << c.psum_bytes << " b_w=" << c.weight_bytes;
}

inline std::vector<std::string> overrides_of(const OddReversible& c) {
  return {"--model.kind=reversible",
          "--model.inputs=" + std::to_string(c.inputs),
          "--model.width=" + std::to_string(c.width),
          "--model.depth=" + std::to_string(c.depth),
          "--model.outputs=" + std::to_string(c.outputs),
          "--mapping.block=" + c.block,
          "--mapping.placement=" + c.placement,
          "--model.activation=" + c.activation,
          "--model.bias=" + c.bias,
          "--step.tokens=" + std::to_string(c.tokens),
          "--step.wavefront=" + std::to_string(c.wavefront),
          "--machine.act_bytes=" + std::to_string(c.act_bytes),
          "--machine.psum_bytes=" + std::to_string(c.psum_bytes),
          "--machine.weight_bytes=" + std::to_string(c.weight_bytes),
          "--sim.arith=none"};
}

inline const std::array<OddReversible, 2> kOddReversibleCases = {
    // F, G: 5 x 5 on 3x2 (rows 2, 2, 1; columns 3, 2); T = 13 in 4 wavefronts (the last of 1 token).
    OddReversible{7, 10, 3, 5, "3x2", "zigzag", "relu", "true", 13, 4, 2, 4, 2},
    // F, G: 7 x 7 on 2x3 (rows 4, 3; columns 3, 2, 2), b_p < b_a, no bias, no Z kept.
    OddReversible{9, 14, 2, 3, "2x3", "rowmajor", "identity", "false", 11, 3, 3, 2, 4},
};

inline std::string odd_reversible_name(const ::testing::TestParamInfo<OddReversible>& param_info) {
  const OddReversible& c = param_info.param;
  std::string name = "d";
  name.append(std::to_string(c.width)).append("_L").append(std::to_string(c.depth));
  for (const std::string* part : {&c.block, &c.placement, &c.activation}) name.append("_").append(*part);
  return gtest_name(name);
}

}  // namespace spatialsim::testing_support
