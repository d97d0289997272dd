#pragma once
// Where a layer's r x c block of tiles sits on the grid and which way its data flows.
//
// Logical tile (i, j) holds W[I_i, J_j]. Physically it sits at anchor + i * row_step + j * col_step,
// where row_step and col_step are perpendicular unit directions (8 choices: every rotation and
// reflection). Lanes carry X[:, I_i] along row i, entering at column `entry_col()` (0 or c-1) and flowing
// toward the other end; partial sums flow along column j toward the output row `output_row()` (0 or r-1).
// The backward pass reverses both flows on the same tiles.
//
// Usage:
//   BlockLayout b{.rows = 3, .cols = 5, .anchor = {2, 0}, .row_step = Step::south, .col_step = Step::east};
//   sim::Coord c = b.coord(1, 4);   // {6, 1}
//   sim::Coord e = b.lane_entry(2); // {2, 2}: row 2's lane enters at column 0

#include <cstdint>

#include "sim/grid.h"

namespace spatialsim::mappings {

// A block's rows and columns run along the grid's compass directions.
using Step = sim::Direction;
using sim::unit;

struct BlockLayout {
  std::uint32_t rows = 1;  // r: ranges of d_in (lanes)
  std::uint32_t cols = 1;  // c: ranges of d_out (partial-sum columns)
  sim::Coord anchor;       // grid coordinate of logical tile (0, 0)
  Step row_step = Step::south;
  Step col_step = Step::east;
  bool lanes_enter_at_last_col = false;  // lanes enter at column c-1 and flow toward column 0
  bool outputs_at_first_row = false;     // partial sums flow toward row 0, which holds the outputs

  sim::Coord coord(std::uint32_t i, std::uint32_t j) const {
    const sim::Coord a = unit(row_step);
    const sim::Coord b = unit(col_step);
    const auto si = static_cast<std::int32_t>(i);
    const auto sj = static_cast<std::int32_t>(j);
    return {anchor.x + si * a.x + sj * b.x, anchor.y + si * a.y + sj * b.y};
  }
  std::uint32_t entry_col() const { return lanes_enter_at_last_col ? cols - 1 : 0; }
  std::uint32_t exit_col() const { return lanes_enter_at_last_col ? 0 : cols - 1; }
  std::uint32_t output_row() const { return outputs_at_first_row ? 0 : rows - 1; }
  std::uint32_t first_psum_row() const { return outputs_at_first_row ? rows - 1 : 0; }
  // The next column along the forward lane direction / the next row along the forward psum direction.
  std::uint32_t lane_next(std::uint32_t j) const { return lanes_enter_at_last_col ? j - 1 : j + 1; }
  std::uint32_t lane_prev(std::uint32_t j) const { return lanes_enter_at_last_col ? j + 1 : j - 1; }
  std::uint32_t psum_next(std::uint32_t i) const { return outputs_at_first_row ? i - 1 : i + 1; }
  std::uint32_t psum_prev(std::uint32_t i) const { return outputs_at_first_row ? i + 1 : i - 1; }

  sim::Coord lane_entry(std::uint32_t i) const { return coord(i, entry_col()); }
  sim::Coord output_tile(std::uint32_t j) const { return coord(output_row(), j); }

  // Bounding box (inclusive corners).
  sim::Coord min_corner() const;
  sim::Coord max_corner() const;
  std::uint32_t tile_count() const { return rows * cols; }
  bool operator==(const BlockLayout&) const = default;
};

inline sim::Coord BlockLayout::min_corner() const {
  const sim::Coord far = coord(rows - 1, cols - 1);
  return {anchor.x < far.x ? anchor.x : far.x, anchor.y < far.y ? anchor.y : far.y};
}
inline sim::Coord BlockLayout::max_corner() const {
  const sim::Coord far = coord(rows - 1, cols - 1);
  return {anchor.x > far.x ? anchor.x : far.x, anchor.y > far.y ? anchor.y : far.y};
}

}  // namespace spatialsim::mappings
