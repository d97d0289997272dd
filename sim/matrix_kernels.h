#pragma once
// The tiles' matrix kernels, batched through CBLAS (OpenBLAS): every tile multiplies whole slices, never
// element by element. All matrices are row-major and contiguous.
//
// Usage:
//   sim::multiply(a, b, c);                  // c = a b
//   sim::multiply_add_at_b(a, b, c);         // c += a^T b
//   sim::multiply_a_bt(a, b, c);             // c = a b^T

#include "sim/matrix.h"

namespace spatialsim::sim {

template <typename T>
void multiply(const Matrix<T>& a, const Matrix<T>& b, Matrix<T>& c);  // c = a b (c resized)
template <typename T>
void multiply_add_at_b(const Matrix<T>& a, const Matrix<T>& b, Matrix<T>& c);  // c += a^T b
template <typename T>
void multiply_a_bt(const Matrix<T>& a, const Matrix<T>& b, Matrix<T>& c);  // c = a b^T (c resized)

}  // namespace spatialsim::sim
