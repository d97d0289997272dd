#pragma once
// The payload of a message that carries numbers: a T_g x n slice of activations, partial sums or
// gradients. In counting mode (sim.arith=none) messages carry no payload at all (nullptr).

#include <cstdint>
#include <memory>

#include "sim/matrix.h"
#include "sim/message.h"

namespace spatialsim::mappings {

template <typename T>
struct Values final : sim::Payload {
  sim::Matrix<T> matrix;
  explicit Values(sim::Matrix<T> m) : matrix(std::move(m)) {}
};

template <typename T>
using ValuesPtr = std::shared_ptr<const Values<T>>;

// Out of line (as the copying halves of slice_columns and combine): called in arithmetic mode only, they
// would otherwise be inlined into every flattened event handler, on the counting-mode path too.
template <typename T>
[[gnu::noinline]] ValuesPtr<T> make_values(sim::Matrix<T> m) {
  return std::make_shared<const Values<T>>(std::move(m));
}

// The values a message carries (engine.payload(message)) as T values, or nullptr in counting mode.
template <typename T>
ValuesPtr<T> values_of(const sim::PayloadPtr& payload) {
  if (!payload) return nullptr;  // counting mode: no reference count to touch
  return std::static_pointer_cast<const Values<T>>(payload);
}

// Columns [first, first + count) of v, copied (slice_columns' copying half, out of line).
template <typename T>
[[gnu::noinline]] ValuesPtr<T> copy_columns(const sim::Matrix<T>& v, std::uint32_t first,
                                            std::uint32_t count) {
  sim::Matrix<T> out(v.rows(), count);
  for (std::uint32_t t = 0; t < out.rows(); ++t)
    for (std::uint32_t k = 0; k < count; ++k) out(t, k) = v(t, first + k);
  return make_values(std::move(out));
}
// Columns [first, first + count) of v: v itself (shared, not copied) when that is all of it; null in
// counting mode. How a slice of one tile's output becomes the piece another tile needs.
template <typename T>
ValuesPtr<T> slice_columns(const ValuesPtr<T>& v, std::uint32_t first, std::uint32_t count) {
  if (!v) return nullptr;
  if (first == 0 && count == v->matrix.cols()) return v;
  return copy_columns(v->matrix, first, count);
}

// a + sign * b, elementwise, in a new matrix (combine's arithmetic, out of line).
template <typename T>
[[gnu::noinline]] ValuesPtr<T> add_scaled(const sim::Matrix<T>& a, const sim::Matrix<T>& b, T sign) {
  sim::Matrix<T> out = a;
  const T* bv = b.data();
  T* o = out.data();
  for (std::size_t k = 0; k < out.size(); ++k) o[k] += sign * bv[k];
  return make_values(std::move(out));
}
// a + sign * b, elementwise (a partial sum joining the running one, or a reconstruction); null in
// counting mode.
template <typename T>
ValuesPtr<T> combine(const ValuesPtr<T>& a, const ValuesPtr<T>& b, T sign) {
  if (!a || !b) return nullptr;
  return add_scaled(a->matrix, b->matrix, sign);
}

}  // namespace spatialsim::mappings
