#pragma once
// A small matrix written out in a test, row by row:
//   const auto a = testing_support::matrix_of<double>(2, 3, {1, 2, 3, 4, 5, 6});   // [1 2 3; 4 5 6]
// A literal with the wrong number of values is a mistake in the test, refused rather than zero-filled.
#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>

#include "sim/matrix.h"

namespace spatialsim::testing_support {
template <typename T>
sim::Matrix<T> matrix_of(std::uint32_t rows, std::uint32_t cols, std::initializer_list<T> values) {
  if (values.size() != std::size_t{rows} * cols)
    throw std::logic_error("matrix_of: " + std::to_string(values.size()) + " values for a " +
                           std::to_string(rows) + "x" + std::to_string(cols) + " matrix");
  sim::Matrix<T> m(rows, cols);
  std::copy(values.begin(), values.end(), m.data());
  return m;
}
}  // namespace spatialsim::testing_support
