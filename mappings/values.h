#pragma once
// The payload of a message that carries numbers: a T_g x n slice of activations, partial sums or
// gradients. In counting mode (sim.arith=none) messages carry no payload at all (nullptr).

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

template <typename T>
ValuesPtr<T> make_values(sim::Matrix<T> m) {
  return std::make_shared<const Values<T>>(std::move(m));
}

// The values a message carries, or nullptr in counting mode.
template <typename T>
ValuesPtr<T> values_of(const sim::Message& m) {
  return std::static_pointer_cast<const Values<T>>(m.payload);
}

}  // namespace spatialsim::mappings
