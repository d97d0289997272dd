#pragma once
// A message between tiles. The engine reads src, dst, bytes, kind, phase and depth; the rest is carried
// unread for the program that receives it.

#include <cstdint>
#include <memory>

#include "sim/types.h"

namespace spatialsim::sim {

// Values a message carries. Programs derive their own payload types; the engine only moves the pointer,
// so a value forwarded along a lane is shared, not copied.
struct Payload {
  virtual ~Payload() = default;
};

struct Message {
  TileId src = 0;
  TileId dst = 0;
  std::uint64_t bytes = 0;
  MessageKind kind = MessageKind::lane;
  Phase phase = Phase::forward;
  // Depth stamp. On send: the sender's stamp of the value. On delivery: sender's stamp + hops.
  std::uint32_t depth = 0;
  // Routing tags for the receiving program (for example an operation, a layer and a wavefront).
  // The engine never looks at them; tracing records `group` and `serial`.
  std::uint32_t port = 0;
  std::uint32_t group = 0;
  std::uint32_t serial = 0;
  std::uint32_t slot = 0;
  std::shared_ptr<const Payload> payload;
};

}  // namespace spatialsim::sim
