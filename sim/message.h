#pragma once
// A message between tiles. The engine reads src, dst, bytes, kind, phase and depth; the rest is carried
// unread for the program that receives it.
//
// Why values travel beside the message, not in it: every event copies its message into and out of the
// event queue, and a counting-mode run moves millions of them with no values at all. A message is plain
// data (48 bytes, trivially copyable); the values a message carries, if any, are held by the engine and
// named by `payload` (Engine::send with a payload, Engine::payload at delivery).

#include <cstdint>
#include <memory>
#include <type_traits>

#include "sim/types.h"

namespace spatialsim::sim {

// Values a message carries. Programs derive their own payload types; the engine only holds the pointer,
// so a value forwarded along a lane is shared, not copied.
struct Payload {
  virtual ~Payload() = default;
};
using PayloadPtr = std::shared_ptr<const Payload>;

// The engine's handle of a payload in flight; kNoPayload when the message carries no values.
using PayloadId = std::uint32_t;
inline constexpr PayloadId kNoPayload = 0;

struct Message {
  TileId src = 0;
  TileId dst = 0;
  std::uint64_t bytes = 0;
  MessageKind kind = MessageKind::lane;
  Phase phase = Phase::forward;
  // Depth stamp. On send: the sender's stamp of the value. On delivery: sender's stamp + hops.
  std::uint32_t depth = 0;
  // Routing tags for the receiving program (for example an operation, a group of tiles and a sequence
  // number).
  // The engine never looks at them; tracing records `group` and `serial`.
  std::uint32_t port = 0;
  std::uint32_t group = 0;
  std::uint32_t serial = 0;
  std::uint32_t slot = 0;
  PayloadId payload = kNoPayload;  // set by the engine
};
static_assert(std::is_trivially_copyable_v<Message>);
static_assert(sizeof(Message) == 48);

}  // namespace spatialsim::sim
