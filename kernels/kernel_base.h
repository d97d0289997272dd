#pragma once
// What the kernel implementations share: the payload that carries one element's value, the send that
// every kernel message goes through, and the grid checks of validate().
//
// Usage (inside a kernel):
//   require_square(grid, name());
//   send_element(engine, {.src = a, .dst = b, .kind = sim::MessageKind::lane, .port = kPortA}, value,
//                stamp, m_element_bytes, engine.now());
//   double v = element_value(engine, message);

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

#include "kernels/i_kernel.h"
#include "sim/engine.h"
#include "sim/message.h"

namespace spatialsim::kernels {

// One matrix or vector element, as a real value.
struct ElementPayload : sim::Payload {
  explicit ElementPayload(double v) : value(v) {}
  double value;
};

inline double element_value(const sim::Engine& engine, const sim::Message& message) {
  return static_cast<const ElementPayload&>(*engine.payload(message)).value;
}

// Sends one element from `message.src` to `message.dst` now, in phase `forward`. `message` supplies the
// endpoints, the kind and the routing tags; `stamp` is the depth stamp of the value on the sender.
// Contract: every kernel message carries exactly one element, so element-hops = byte-hops / element_bytes.
inline sim::Cycle send_element(sim::Engine& engine, sim::Message message, double value, std::uint32_t stamp,
                               std::uint64_t element_bytes, sim::Cycle depart) {
  message.bytes = element_bytes;
  message.phase = sim::Phase::forward;
  message.depth = stamp;
  return engine.send(message, depart, std::make_shared<const ElementPayload>(value));
}

inline void require_tiles(const GridShape& grid, std::string_view kernel) {
  if (grid.width == 0 || grid.height == 0)
    throw std::invalid_argument("kernel " + std::string(kernel) + ": the grid needs at least one tile, got " +
                                std::to_string(grid.width) + "x" + std::to_string(grid.height));
}

inline void require_square(const GridShape& grid, std::string_view kernel) {
  require_tiles(grid, kernel);
  if (grid.width != grid.height)
    throw std::invalid_argument("kernel " + std::string(kernel) +
                                ": needs a square grid (one matrix element per tile, m x m), got " +
                                std::to_string(grid.width) + "x" + std::to_string(grid.height) + "; give " +
                                std::to_string(grid.width) + "x" + std::to_string(grid.width) + " or " +
                                std::to_string(grid.height) + "x" + std::to_string(grid.height));
}

}  // namespace spatialsim::kernels
