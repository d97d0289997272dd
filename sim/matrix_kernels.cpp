#include "sim/matrix_kernels.h"

#include <cblas.h>

#include <limits>
#include <stdexcept>
#include <string>

#include "sim/blas_kernels.h"

namespace spatialsim::sim {
namespace {

void gemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int m, int n, int k, float alpha, const float* a, int lda,
          const float* b, int ldb, float beta, float* c, int ldc) {
  use_single_threaded_blas();
  cblas_sgemm(CblasRowMajor, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
void gemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int m, int n, int k, double alpha, const double* a, int lda,
          const double* b, int ldb, double beta, double* c, int ldc) {
  use_single_threaded_blas();
  cblas_dgemm(CblasRowMajor, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
// CBLAS takes sizes as int. A dimension past INT_MAX (a slice of over 2^31 elements in one direction, 8 GB
// of fp32 even as a single row) would turn negative: refused rather than handed to the library, as bad
// input (exit 2), since the run's sizes chose it.
int to_int(std::uint32_t v) {
  if (v > static_cast<std::uint32_t>(std::numeric_limits<int>::max()))
    throw std::invalid_argument("a matrix dimension of " + std::to_string(v) +
                                " elements is beyond what CBLAS takes (2^31 - 1); give narrower layers "
                                "(model.widths), fewer step.tokens or a finer mapping.block");
  return static_cast<int>(v);
}

}  // namespace

template <typename T>
void multiply(const Matrix<T>& a, const Matrix<T>& b, Matrix<T>& c) {
  if (a.cols() != b.rows()) throw std::logic_error("multiply: inner dimensions differ");
  c = Matrix<T>(a.rows(), b.cols());
  if (c.size() == 0 || a.cols() == 0) return;
  gemm(CblasNoTrans, CblasNoTrans, to_int(a.rows()), to_int(b.cols()), to_int(a.cols()), T{1}, a.data(),
       to_int(a.cols()), b.data(), to_int(b.cols()), T{0}, c.data(), to_int(c.cols()));
}

template <typename T>
void multiply_add_at_b(const Matrix<T>& a, const Matrix<T>& b, Matrix<T>& c) {
  if (a.rows() != b.rows() || c.rows() != a.cols() || c.cols() != b.cols())
    throw std::logic_error("multiply_add_at_b: shapes differ");
  if (c.size() == 0 || a.rows() == 0) return;
  gemm(CblasTrans, CblasNoTrans, to_int(a.cols()), to_int(b.cols()), to_int(a.rows()), T{1}, a.data(),
       to_int(a.cols()), b.data(), to_int(b.cols()), T{1}, c.data(), to_int(c.cols()));
}

template <typename T>
void multiply_a_bt(const Matrix<T>& a, const Matrix<T>& b, Matrix<T>& c) {
  if (a.cols() != b.cols()) throw std::logic_error("multiply_a_bt: shapes differ");
  c = Matrix<T>(a.rows(), b.rows());
  if (c.size() == 0 || a.cols() == 0) return;
  gemm(CblasNoTrans, CblasTrans, to_int(a.rows()), to_int(b.rows()), to_int(a.cols()), T{1}, a.data(),
       to_int(a.cols()), b.data(), to_int(b.cols()), T{0}, c.data(), to_int(c.cols()));
}

template <typename T>
void add_to_rows(Matrix<T>& m, std::uint32_t first, std::uint32_t count, const T* v) {
  if (std::uint64_t{first} + count > m.rows()) throw std::logic_error("add_to_rows: rows past the matrix");
  for (std::uint32_t r = first; r < first + count; ++r) {
    T* row = m.row(r);
    for (std::uint32_t c = 0; c < m.cols(); ++c) row[c] += v[c];
  }
}

template void multiply(const Matrix<float>&, const Matrix<float>&, Matrix<float>&);
template void multiply(const Matrix<double>&, const Matrix<double>&, Matrix<double>&);
template void multiply_add_at_b(const Matrix<float>&, const Matrix<float>&, Matrix<float>&);
template void multiply_add_at_b(const Matrix<double>&, const Matrix<double>&, Matrix<double>&);
template void multiply_a_bt(const Matrix<float>&, const Matrix<float>&, Matrix<float>&);
template void multiply_a_bt(const Matrix<double>&, const Matrix<double>&, Matrix<double>&);
template void add_to_rows(Matrix<float>&, std::uint32_t, std::uint32_t, const float*);
template void add_to_rows(Matrix<double>&, std::uint32_t, std::uint32_t, const double*);

}  // namespace spatialsim::sim
