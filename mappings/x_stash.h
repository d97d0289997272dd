#pragma once
// The stash policy of a layer's forward pass: what a schedule chooses per layer and a block carries out.
// Its own header so that schedules name it without seeing the engine or a route (i_schedule.h).

#include <cstdint>

namespace spatialsim::mappings {

// What a forward pass leaves behind for the backward pass of the same wavefront.
enum class XStash : std::uint8_t {
  none,         // nothing (inference, or layers that will be recomputed)
  replicate,    // every tile of row i keeps X[:, I_i]; output tiles keep Z if the activation needs it
  rebroadcast,  // only the lane entry keeps X[:, I_i] and rebroadcasts it along the row in backward
  checkpoint,   // only the lane entry keeps X[:, I_i], as a restart point for recomputing (no backward)
};

// Whether a forward pass under `stash` leaves what this layer's own backward pass needs.
constexpr bool prepares_backward(XStash stash) {
  return stash == XStash::replicate || stash == XStash::rebroadcast;
}

// Whether a tile keeps its X for the backward pass under `stash`: every tile of the row under replicate,
// only the lane entry under rebroadcast. A block's forward pass stores by this rule and its backward pass
// reads and releases by it, so it is written once.
constexpr bool keeps_x(XStash stash, bool lane_entry) {
  return stash == XStash::replicate || (stash == XStash::rebroadcast && lane_entry);
}

}  // namespace spatialsim::mappings
