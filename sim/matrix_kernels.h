#pragma once
// The tiles' matrix kernels, batched through CBLAS (OpenBLAS): every tile multiplies whole slices, never
// element by element. All matrices are row-major and contiguous.
//
// Usage:
//   sim::multiply(a, b, c);                  // c = a b
//   sim::multiply_add_at_b(a, b, c);         // c += a^T b
//   sim::multiply_a_bt(a, b, c);             // c = a b^T
//   sim::add_to_rows(z, 0, z.rows(), b);     // z[r, :] += b for every row (a bias)

#include "sim/matrix.h"

namespace spatialsim::sim {

template <typename T>
void multiply(const Matrix<T>& a, const Matrix<T>& b, Matrix<T>& c);  // c = a b (c resized)
template <typename T>
void multiply_add_at_b(const Matrix<T>& a, const Matrix<T>& b, Matrix<T>& c);  // c += a^T b
template <typename T>
void multiply_a_bt(const Matrix<T>& a, const Matrix<T>& b, Matrix<T>& c);  // c = a b^T (c resized)
// m[r, :] += v for rows first .. first + count - 1; v holds m.cols() values.
template <typename T>
void add_to_rows(Matrix<T>& m, std::uint32_t first, std::uint32_t count, const T* v);

}  // namespace spatialsim::sim
