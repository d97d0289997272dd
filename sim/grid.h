#pragma once
// The tile grid: W x H tiles, 4-neighbour links, mesh or torus, dimension-order (x then y) routing.
//
// Usage:
//   sim::Grid grid(8, 4, sim::Topology::mesh);
//   std::uint32_t h = grid.hops(grid.tile_id(0, 0), grid.tile_id(7, 3));   // 10
//   grid.for_each_link_on_route(a, b, [](sim::LinkId link) { ... });      // the links a message crosses
//
// Contract: tile id = y * width + x; x grows east, y grows south. hops(a, b) is the length of the XY route,
// which is the Manhattan distance on a mesh and the wrap-around minimum per dimension on a torus (ties on
// an even ring go the positive way: east, south). A message to self has 0 hops. The connectivity is also
// given as a Boost.Graph adjacency list (`link_graph(grid)`), which tests use as the independent BFS
// reference.

#include <boost/graph/adjacency_list.hpp>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "sim/types.h"

namespace spatialsim::sim {

class Config;

enum class Topology : std::uint8_t { mesh, torus };
std::string_view name(Topology t);
// Reads machine.topology; any other value is a ConfigError naming it and the choices.
Topology topology_from_config(const Config& config);

// A directed link: the output port `direction` of tile `from`. Dense id: from * 4 + direction.
using LinkId = std::uint32_t;
enum class Direction : std::uint8_t { east = 0, west = 1, south = 2, north = 3 };

struct Coord {
  std::int32_t x = 0;
  std::int32_t y = 0;
  bool operator==(const Coord&) const = default;
};

// One hop in direction d: x grows eastward, y southward.
constexpr Coord unit(Direction d) {
  switch (d) {
    case Direction::east:
      return {1, 0};
    case Direction::west:
      return {-1, 0};
    case Direction::south:
      return {0, 1};
    case Direction::north:
      return {0, -1};
  }
  return {0, 0};
}

// Why a width x height grid cannot be built (more than Grid::kMaxTiles tiles), or "" if it can.
std::string grid_size_problem(std::uint64_t width, std::uint64_t height);

class Grid {
 public:
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS>;

  // The most tiles a grid may have. A run keeps about 440 bytes per tile (counters, ledger, routing, for
  // the default two schedules: 1.8 GB at 2048 x 2048, measured with `/usr/bin/time -v spatialsim run
  // --sim.arith=none --mapping.grid=2048x2048`), and a results file holds a map per tile. Front ends refuse
  // larger grids by name; the constructor throws.
  static constexpr std::uint64_t kMaxTiles = std::uint64_t{1} << 22;

  Grid(std::uint32_t width, std::uint32_t height, Topology topology);

  std::uint32_t width() const { return m_width; }
  std::uint32_t height() const { return m_height; }
  std::uint32_t tile_count() const { return m_width * m_height; }
  Topology topology() const { return m_topology; }
  std::uint32_t link_count() const { return tile_count() * 4; }  // ids; edge ports of a mesh are unused

  TileId tile_id(std::uint32_t x, std::uint32_t y) const { return y * m_width + x; }
  Coord coord(TileId t) const {
    return {static_cast<std::int32_t>(t % m_width), static_cast<std::int32_t>(t / m_width)};
  }
  bool contains(Coord c) const {
    return c.x >= 0 && c.y >= 0 && c.x < static_cast<std::int32_t>(m_width) &&
           c.y < static_cast<std::int32_t>(m_height);
  }

  // On the event path (once per message): coordinates from a table, no division.
  std::uint32_t hops(TileId from, TileId to) const {
    const Coord a = m_coords[from];
    const Coord b = m_coords[to];
    if (m_topology == Topology::mesh)  // branch-free: |dx| + |dy|
      return static_cast<std::uint32_t>(std::abs(a.x - b.x) + std::abs(a.y - b.y));
    return torus_hops(a, b);
  }

  // Hops from the host into tile `t`: the host sits outside the grid edge, and a message enters through
  // the edge tile nearest to `t` (one hop across the edge link, then the route inside).
  std::uint32_t host_hops(TileId t) const;

  // Calls fn(LinkId) for each link of the XY route from `from` to `to`, in order.
  template <typename Fn>
  void for_each_link_on_route(TileId from, TileId to, Fn&& fn) const {
    Coord a = coord(from);
    const Coord b = coord(to);
    step_dimension(a.x, b.x, m_width, Direction::east, Direction::west, a, fn, true);
    step_dimension(a.y, b.y, m_height, Direction::south, Direction::north, a, fn, false);
  }

 private:
  std::uint32_t torus_hops(Coord a, Coord b) const;
  // Signed number of steps along one dimension (positive = east/south) on the configured topology.
  std::int32_t signed_steps(std::int32_t from, std::int32_t to, std::uint32_t extent) const;

  template <typename Fn>
  void step_dimension(std::int32_t from, std::int32_t to, std::uint32_t extent, Direction positive,
                      Direction negative, Coord& at, Fn& fn, bool is_x) const {
    const std::int32_t steps = signed_steps(from, to, extent);
    const std::int32_t unit = steps >= 0 ? 1 : -1;
    const Direction dir = steps >= 0 ? positive : negative;
    const auto n = static_cast<std::int32_t>(extent);
    for (std::int32_t s = 0; s != steps; s += unit) {
      const TileId here = tile_id(static_cast<std::uint32_t>(at.x), static_cast<std::uint32_t>(at.y));
      fn(static_cast<LinkId>(here * 4 + static_cast<std::uint32_t>(dir)));
      std::int32_t& moving = is_x ? at.x : at.y;
      moving = ((moving + unit) % n + n) % n;
    }
  }

  std::uint32_t m_width;
  std::uint32_t m_height;
  Topology m_topology;
  std::vector<Coord> m_coords;  // per tile
};

// The grid's links as a Boost.Graph: one undirected edge per physical neighbour pair, and on a torus the
// wrap links (a ring of 2 would duplicate its link, a ring of 1 make a self loop: both are left out).
// Built when asked, not held by the grid: routing works from coordinates, and at 2048 x 2048 tiles the
// graph took 0.85 GB and about 1.8 s (`run --sim.arith=none --mapping.grid=2048x2048 --schedule=forward`:
// 1.75 GB and 3.1 s with it, 0.90 GB and 1.3 s without).
Grid::Graph link_graph(const Grid& grid);

}  // namespace spatialsim::sim
