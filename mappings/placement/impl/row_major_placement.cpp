// The naive placement: blocks in row-major order on a square-ish arrangement of equal cells, all with
// the same orientation (lanes east, partial sums south). Consecutive layers' outputs (bottom edge) and
// lane entries (west edge of the next block) are far apart, which shows what redistribution costs when
// the mapper does not plan for it.

#include <algorithm>
#include <cmath>

#include "mappings/placement/i_placement.h"
#include "mappings/placement/placement_base.h"

namespace spatialsim::mappings {
namespace {

class RowMajorPlacement final : public PlacementStrategy {
 public:
  Placement place(const std::vector<BlockShape>& shapes) const override {
    std::uint32_t cell_h = 1;
    std::uint32_t cell_w = 1;
    for (const auto& s : shapes) {
      cell_h = std::max(cell_h, s.rows);
      cell_w = std::max(cell_w, s.cols);
    }
    const auto per_row = static_cast<std::uint32_t>(std::ceil(std::sqrt(static_cast<double>(shapes.size()))));
    std::vector<BlockLayout> blocks;
    for (std::size_t k = 0; k < shapes.size(); ++k) {
      BlockLayout b;
      b.rows = shapes[k].rows;
      b.cols = shapes[k].cols;
      b.row_step = Step::south;
      b.col_step = Step::east;
      b.anchor = {static_cast<std::int32_t>((k % per_row) * cell_w),
                  static_cast<std::int32_t>((k / per_row) * cell_h)};
      blocks.push_back(b);
    }
    return finish_placement(std::move(blocks));
  }
};

const PlacementRegistry::Registration registration{
    "rowmajor", "naive: equal cells in row-major order, one fixed orientation (redistribution is long)",
    [](const sim::Config&) { return std::make_unique<RowMajorPlacement>(); }};

}  // namespace
}  // namespace spatialsim::mappings
