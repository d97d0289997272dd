#pragma once
// A dense row-major matrix of values, the unit of tile arithmetic and of message payloads.
//
// Usage:
//   sim::Matrix<float> m(rows, cols);   // zero-filled
//   m(r, c) = 1.0f;  float* row = m.row(r);

#include <cstddef>
#include <cstdint>
#include <vector>

namespace spatialsim::sim {

template <typename T>
class Matrix {
 public:
  Matrix() = default;
  Matrix(std::uint32_t rows, std::uint32_t cols)
      : m_rows(rows), m_cols(cols), m_data(std::size_t{rows} * cols) {}

  std::uint32_t rows() const { return m_rows; }
  std::uint32_t cols() const { return m_cols; }
  std::size_t size() const { return m_data.size(); }
  T& operator()(std::uint32_t r, std::uint32_t c) { return m_data[std::size_t{r} * m_cols + c]; }
  const T& operator()(std::uint32_t r, std::uint32_t c) const { return m_data[std::size_t{r} * m_cols + c]; }
  T* row(std::uint32_t r) { return m_data.data() + std::size_t{r} * m_cols; }
  const T* row(std::uint32_t r) const { return m_data.data() + std::size_t{r} * m_cols; }
  T* data() { return m_data.data(); }
  const T* data() const { return m_data.data(); }
  std::vector<T>& values() { return m_data; }
  const std::vector<T>& values() const { return m_data; }
  bool operator==(const Matrix&) const = default;

 private:
  std::uint32_t m_rows = 0;
  std::uint32_t m_cols = 0;
  std::vector<T> m_data;
};

}  // namespace spatialsim::sim
