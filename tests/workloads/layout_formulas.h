#pragma once
// The layer mapping's geometry, one forward pass's traffic and backprop's backward SRAM, written from
// MODEL.md and docs/model.md independently of mappings/ (its split, redistribution plan and routes), for
// tests that compute expected counts by formula. Only the placement (where each block sits, which way it
// flows) and the machine's sizes are taken from the setup: they are inputs, not what the tests check.
//
// Usage:
//   const RunSetup setup = setup_from_config(config_with(overrides));
//   const ForwardTraffic f = forward_traffic(setup);   // per token (byte-hops) and per wavefront (messages)
//   T * f.lanes[l].byte_hops, G * f.boundary[l].messages, ...

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <utility>
#include <vector>

#include "workloads/run_setup.h"

namespace spatialsim::testing_support {

// n elements over k tiles: the first n % k get one more.
inline std::vector<std::uint32_t> split_sizes(std::uint32_t n, std::uint32_t k) {
  std::vector<std::uint32_t> out(k, n / k);
  for (std::uint32_t p = 0; p < n % k; ++p) ++out[p];
  return out;
}

inline std::vector<std::uint32_t> split_begins(const std::vector<std::uint32_t>& sizes) {
  std::vector<std::uint32_t> out(sizes.size(), 0);
  for (std::size_t p = 1; p < sizes.size(); ++p) out[p] = out[p - 1] + sizes[p - 1];
  return out;
}

inline std::uint64_t manhattan(sim::Coord a, sim::Coord b) {
  return static_cast<std::uint64_t>(std::abs(a.x - b.x) + std::abs(a.y - b.y));
}

// The host is outside the grid: one edge link, then the route from the nearest edge tile (a mesh).
inline std::uint64_t host_hops(const workloads::RunSetup& s, sim::Coord t) {
  const auto w = static_cast<std::int32_t>(s.grid_width), h = static_cast<std::int32_t>(s.grid_height);
  return 1 + static_cast<std::uint64_t>(std::min({t.x, t.y, w - 1 - t.x, h - 1 - t.y}));
}

// Calls fn(j, i, elements) for every output column j of layer l and lane i of layer l + 1 that share
// features: one redistribution piece each.
template <typename Fn>
void for_each_piece(const workloads::RunSetup& s, std::uint32_t l, Fn&& fn) {
  const std::uint32_t d = s.model.widths[l + 1];
  const auto cols = split_sizes(d, s.placement.blocks[l].cols);
  const auto rows = split_sizes(d, s.placement.blocks[l + 1].rows);
  const auto col_begin = split_begins(cols), row_begin = split_begins(rows);
  for (std::uint32_t j = 0; j < cols.size(); ++j)
    for (std::uint32_t i = 0; i < rows.size(); ++i) {
      const std::uint32_t lo = std::max(col_begin[j], row_begin[i]);
      const std::uint32_t hi = std::min(col_begin[j] + cols[j], row_begin[i] + rows[i]);
      if (hi > lo) fn(j, i, hi - lo);
    }
}

struct Traffic {
  std::uint64_t byte_hops = 0;  // per token
  std::uint64_t messages = 0;   // per wavefront
  Traffic& operator+=(const Traffic& o) {
    byte_hops += o.byte_hops;
    messages += o.messages;
    return *this;
  }
};

// One forward pass of an mlp: per layer, its lanes (c - 1 hops each) and partial-sum columns (r - 1 hops),
// its outputs carried to the next layer's lanes (boundary[l], none for the last layer), and the host's
// inputs and targets.
struct ForwardTraffic {
  std::vector<Traffic> lanes, psums, boundary;
  Traffic host;
};

inline ForwardTraffic forward_traffic(const workloads::RunSetup& s) {
  const std::vector<std::uint32_t>& widths = s.model.widths;
  const auto L = static_cast<std::uint32_t>(widths.size() - 1);
  const std::uint64_t b_a = s.bytes.activation, b_p = s.bytes.partial_sum;
  const auto& blocks = s.placement.blocks;
  ForwardTraffic f;
  f.lanes.resize(L);
  f.psums.resize(L);
  f.boundary.resize(L);
  for (std::uint32_t l = 0; l < L; ++l) {
    const mappings::BlockLayout& b = blocks[l];
    for (std::uint32_t size : split_sizes(widths[l], b.rows))
      f.lanes[l].byte_hops += b_a * size * (b.cols - 1);
    for (std::uint32_t size : split_sizes(widths[l + 1], b.cols))
      f.psums[l].byte_hops += b_p * size * (b.rows - 1);
    f.lanes[l].messages = b.rows * (b.cols - 1);
    f.psums[l].messages = b.cols * (b.rows - 1);
    if (l + 1 < L)
      for_each_piece(s, l, [&](std::uint32_t j, std::uint32_t i, std::uint32_t elements) {
        f.boundary[l].byte_hops += b_a * elements * manhattan(b.output_tile(j), blocks[l + 1].lane_entry(i));
        ++f.boundary[l].messages;
      });
  }
  const auto in_rows = split_sizes(widths[0], blocks[0].rows);
  const auto out_cols = split_sizes(widths[L], blocks[L - 1].cols);
  for (std::uint32_t i = 0; i < in_rows.size(); ++i)
    f.host.byte_hops += b_a * in_rows[i] * host_hops(s, blocks[0].lane_entry(i));
  for (std::uint32_t j = 0; j < out_cols.size(); ++j)
    f.host.byte_hops += b_a * out_cols[j] * host_hops(s, blocks[L - 1].output_tile(j));
  f.host.messages = in_rows.size() + out_cols.size();
  return f;
}

// docs/model.md's SRAM rows for backprop's backward pass of an mlp with bias and an activation on every
// layer but the last, over `tokens` tokens in `wavefronts` wavefronts: Z read back, the bias gradient read
// and written, the weights read for dX (not layer 0), the dW accumulator read and written and X read on
// every tile (in both xstash variants). Layers [first, L) only: split-fg's head is such a backprop.
inline std::uint64_t backprop_backward_sram(const workloads::RunSetup& s, std::uint64_t tokens,
                                            std::uint64_t wavefronts, std::size_t first = 0) {
  const std::vector<std::uint32_t>& widths = s.model.widths;
  const std::size_t L = widths.size() - 1;
  const std::uint64_t b_a = s.bytes.activation, b_w = s.bytes.weight;
  std::uint64_t bytes = 0;
  for (std::size_t l = first; l < L; ++l) {
    const std::uint64_t d_in = widths[l], d_out = widths[l + 1], cols = s.placement.blocks[l].cols;
    if (l + 1 < L) bytes += b_a * tokens * d_out;
    bytes += wavefronts * 2 * d_out * b_w;
    if (l > 0) bytes += wavefronts * d_in * d_out * b_w;
    bytes += wavefronts * 2 * d_in * d_out * b_w + b_a * tokens * d_in * cols;
  }
  return bytes;
}

// One of docs/forward-gradients.md's spanning trees on a mesh: every member but the root receives one
// message from its parent, the member farthest from the root among the members on its shortest routes
// from the root. On a mesh those routes fill the rectangle spanned by the root and the member, and the
// member's tree path is as long as its shortest route, so its message travels the difference of the two
// members' distances from the root. (The tie-break among equally far parents changes no count.)
struct TreeCount {
  std::uint64_t messages = 0, hops = 0;
};

inline TreeCount spanning_tree(const std::set<std::pair<std::int32_t, std::int32_t>>& members,
                               sim::Coord root) {
  TreeCount t;
  for (const auto& [x, y] : members) {
    const sim::Coord m{x, y};
    if (m.x == root.x && m.y == root.y) continue;
    std::uint64_t parent = 0;  // the root itself is a member on every route
    for (const auto& [px, py] : members) {
      const bool same = px == x && py == y;
      const bool inside = std::min(root.x, x) <= px && px <= std::max(root.x, x) &&
                          std::min(root.y, y) <= py && py <= std::max(root.y, y);
      if (!same && inside) parent = std::max(parent, manhattan(root, sim::Coord{px, py}));
    }
    ++t.messages;
    t.hops += manhattan(root, m) - parent;
  }
  return t;
}

// The forward-gradient scalars' two trees, once per step (docs/forward-gradients.md, "The scalars d_k"):
// the holders (the output tiles of the last trunk layer, `trunk` - 1) reduce to the root, the output tile
// of that layer's last block column, which broadcasts to every trunk tile once (a tile holding slices of
// several trunk layers once). Messages and hops of both trees; each message carries the K scalars.
inline TreeCount scalar_trees(const std::vector<mappings::BlockLayout>& blocks, std::uint32_t trunk) {
  const mappings::BlockLayout& last = blocks[trunk - 1];
  const sim::Coord root = last.output_tile(last.cols - 1);
  std::set<std::pair<std::int32_t, std::int32_t>> holders, trunk_tiles;
  for (std::uint32_t j = 0; j < last.cols; ++j) holders.emplace(last.output_tile(j).x, last.output_tile(j).y);
  for (std::uint32_t l = 0; l < trunk; ++l)
    for (std::uint32_t i = 0; i < blocks[l].rows; ++i)
      for (std::uint32_t j = 0; j < blocks[l].cols; ++j)
        trunk_tiles.emplace(blocks[l].coord(i, j).x, blocks[l].coord(i, j).y);
  const TreeCount reduce = spanning_tree(holders, root), broadcast = spanning_tree(trunk_tiles, root);
  return {reduce.messages + broadcast.messages, reduce.hops + broadcast.hops};
}

}  // namespace spatialsim::testing_support
