// The turning placement: each block's lane entries sit one hop beyond the previous block's output edge,
// in the same order, so that with matching partitions (c of layer l == r of layer l+1) every element
// moves exactly one hop between layers. The path turns at every block: down, east, up, east, down, ...
// which keeps the whole network in a band two blocks tall, for any depth, when the blocks are square
// (r = c). Other blocks are moved out of each other's way, and the band then drifts (docs/model.md).

#include <cstdint>

#include "mappings/placement/i_placement.h"
#include "mappings/placement/placement_base.h"

namespace spatialsim::mappings {
namespace {

Step opposite(Step s) {
  switch (s) {
    case Step::east:
      return Step::west;
    case Step::west:
      return Step::east;
    case Step::south:
      return Step::north;
    case Step::north:
      return Step::south;
  }
  return s;
}

// The direction a block's outputs leave it: away from the output row.
Step outward(const BlockLayout& b) {
  return b.outputs_at_first_row ? opposite(b.row_step) : b.row_step;
}

// Where block k's outputs should go: even blocks vertically (down, then up, alternating), odd blocks east.
Step desired_outward(std::size_t k) {
  if (k % 2 == 1) return Step::east;
  return (k / 2) % 2 == 0 ? Step::south : Step::north;
}

sim::Coord plus(sim::Coord a, sim::Coord b) {
  return {a.x + b.x, a.y + b.y};
}

class ZigZagPlacement final : public PlacementStrategy {
 public:
  Placement place(const std::vector<BlockShape>& shapes) const override {
    std::vector<BlockLayout> blocks;
    blocks.reserve(shapes.size());
    OccupiedTiles occupied;
    for (std::size_t k = 0; k < shapes.size(); ++k) {
      BlockLayout b;
      b.rows = shapes[k].rows;
      b.cols = shapes[k].cols;
      if (k == 0) {
        b.anchor = {0, 0};
        b.row_step = Step::south;
        b.col_step = Step::east;
      } else {
        const BlockLayout& prev = blocks.back();
        const Step out = outward(prev);
        // Lane entries line up with the previous outputs (same order), one hop outward; lanes continue
        // outward from there.
        b.row_step = prev.col_step;
        b.col_step = out;
        b.anchor = plus(prev.output_tile(0), unit(out));
      }
      // Choose which end of the columns holds the outputs so that they face the next block.
      b.outputs_at_first_row = b.row_step != desired_outward(k);
      // Blocks with r != c have different extents across and along the band, so a turn can run into an
      // earlier block; step further out until it is clear. (Such blocks cannot give one hop per element
      // anyway: c of one layer then differs from r of the next.)
      if (k > 0) {
        const sim::Coord step = unit(b.col_step);
        while (occupied.overlaps(b)) b.anchor = plus(b.anchor, step);
      }
      occupied.add(b);
      blocks.push_back(b);
    }
    return finish_placement(std::move(blocks));
  }
};

const PlacementRegistry::Registration registration{
    "zigzag",
    "turning band, two blocks tall for square blocks: one hop per element between layers when partitions "
    "match",
    [](const sim::Config&) { return std::make_unique<ZigZagPlacement>(); }};

}  // namespace
}  // namespace spatialsim::mappings
