// The tiles' matrix kernels on small non-square matrices, each result worked out by hand. The gradient
// tests cover them through whole runs; here a wrong transpose or leading dimension is named directly.
#include "sim/matrix_kernels.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "tests/matrix_of.h"

namespace spatialsim::sim {
namespace {

using testing_support::matrix_of;

template <typename T>
class MatrixKernels : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(MatrixKernels, Precisions);

// a = [1 2 3; 4 5 6] (2x3), b = [1 0; 0 1; 2 -1] (3x2): a b = [7 -1; 16 -1].
TYPED_TEST(MatrixKernels, MultiplyIsTheRowByColumnProduct) {
  using T = TypeParam;
  const auto a = matrix_of<T>(2, 3, {1, 2, 3, 4, 5, 6});
  const auto b = matrix_of<T>(3, 2, {1, 0, 0, 1, 2, -1});
  Matrix<T> c(5, 5);  // resized by the kernel
  multiply(a, b, c);
  EXPECT_EQ(c, matrix_of<T>(2, 2, {7, -1, 16, -1}));
  EXPECT_THROW(multiply(a, a, c), std::logic_error);
}

// a^T b with a = [1 2 3; 4 5 6] (2x3) and b = [1 1; 2 0] (2x2): a^T b = [9 1; 12 2; 15 3], added to c = 1.
TYPED_TEST(MatrixKernels, MultiplyAddATransposeBAccumulates) {
  using T = TypeParam;
  const auto a = matrix_of<T>(2, 3, {1, 2, 3, 4, 5, 6});
  const auto b = matrix_of<T>(2, 2, {1, 1, 2, 0});
  auto c = matrix_of<T>(3, 2, {1, 1, 1, 1, 1, 1});
  multiply_add_at_b(a, b, c);
  EXPECT_EQ(c, matrix_of<T>(3, 2, {10, 2, 13, 3, 16, 4}));
  Matrix<T> wrong(2, 2);
  EXPECT_THROW(multiply_add_at_b(a, b, wrong), std::logic_error);
}

// a b^T with a = [1 2 3; 4 5 6] (2x3) and b = [1 0 1] (1x3): [4; 10].
TYPED_TEST(MatrixKernels, MultiplyABTransposeTakesBsRowsAsColumns) {
  using T = TypeParam;
  const auto a = matrix_of<T>(2, 3, {1, 2, 3, 4, 5, 6});
  const auto b = matrix_of<T>(1, 3, {1, 0, 1});
  Matrix<T> c;
  multiply_a_bt(a, b, c);
  EXPECT_EQ(c, matrix_of<T>(2, 1, {4, 10}));
}

// Only the rows named change: rows 1 and 2 of a 4x3 matrix of ones gain v = [1 2 3].
TYPED_TEST(MatrixKernels, AddToRowsTouchesOnlyTheRowsNamed) {
  using T = TypeParam;
  Matrix<T> m = matrix_of<T>(4, 3, {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1});
  const T v[] = {1, 2, 3};
  add_to_rows(m, 1, 2, v);
  EXPECT_EQ(m, matrix_of<T>(4, 3, {1, 1, 1, 2, 3, 4, 2, 3, 4, 1, 1, 1}));
  add_to_rows(m, 4, 0, v);  // an empty range at the end is allowed
  EXPECT_THROW(add_to_rows(m, 3, 2, v), std::logic_error);
}

}  // namespace
}  // namespace spatialsim::sim
