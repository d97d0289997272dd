#pragma once
// A message that a tile sends once per wavefront along a fixed path (a lane, a partial-sum column, a
// redistribution transfer): addressed and tagged once, when the mapping is built, and completed per send
// with the wavefront's numbers.
//
// Why: working out the source and destination tiles, the ports and the sizes from the layout for every
// message was a tenth of a counting-mode event's instructions (docs/performance.md); a template is read,
// not recomputed.
//
// Usage:
//   MessageTemplate lane{.base = {.src = a, .dst = b, .kind = MessageKind::lane, .port = 1, .group = layer,
//                                 .slot = 3},
//                        .bytes_per_token = 2 * 64};
//   engine.send(lane.make(wf, tokens, Phase::forward, depth), ready);

#include <cstdint>

#include "sim/message.h"

namespace spatialsim::mappings {

struct MessageTemplate {
  sim::Message base;                  // src, dst, kind, port, group and slot; the rest is set per send
  std::uint64_t bytes_per_token = 0;  // the message's size for a wavefront of one token

  // The message of wavefront `wf` (of `tokens` tokens) in `phase`, stamped with `depth`.
  sim::Message make(std::uint32_t wf, std::uint32_t tokens, sim::Phase phase, std::uint32_t depth) const {
    sim::Message m = base;
    m.bytes = bytes_per_token * tokens;
    m.phase = phase;
    m.depth = depth;
    m.serial = wf;
    return m;
  }
};

}  // namespace spatialsim::mappings
