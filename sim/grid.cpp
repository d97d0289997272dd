#include "sim/grid.h"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "sim/enum_names.h"

namespace spatialsim::sim {
namespace {

constexpr EnumNames<Topology, 2> kTopologyNames{{{{Topology::mesh, "mesh"}, {Topology::torus, "torus"}}}};

}  // namespace

std::string_view name(Topology t) {
  return kTopologyNames.name(t);
}

Topology topology_from_config(const Config& config) {
  return kTopologyNames.from_config(config, "machine.topology");
}

std::string grid_size_problem(std::uint64_t width, std::uint64_t height) {
  if (width * height <= Grid::kMaxTiles) return "";
  return "has " + std::to_string(width * height) + " tiles, more than the " +
         std::to_string(Grid::kMaxTiles) + " a grid may have (2048x2048); give a smaller grid";
}

Grid::Grid(std::uint32_t width, std::uint32_t height, Topology topology)
    : m_width(width), m_height(height), m_topology(topology) {
  if (width == 0 || height == 0) throw std::invalid_argument("grid: width and height must be positive");
  if (const std::string why = grid_size_problem(width, height); !why.empty())
    throw std::invalid_argument("grid: " + why);
  m_coords.reserve(std::size_t{width} * height);
  for (TileId t = 0; t < width * height; ++t) m_coords.push_back(coord(t));
}

Grid::Graph link_graph(const Grid& grid) {
  const std::uint32_t width = grid.width();
  const std::uint32_t height = grid.height();
  Grid::Graph graph(std::size_t{width} * height);
  for (std::uint32_t y = 0; y < height; ++y) {
    for (std::uint32_t x = 0; x < width; ++x) {
      const TileId here = grid.tile_id(x, y);
      if (x + 1 < width) boost::add_edge(here, grid.tile_id(x + 1, y), graph);
      if (y + 1 < height) boost::add_edge(here, grid.tile_id(x, y + 1), graph);
      if (grid.topology() == Topology::torus) {
        if (x + 1 == width && width > 2) boost::add_edge(here, grid.tile_id(0, y), graph);
        if (y + 1 == height && height > 2) boost::add_edge(here, grid.tile_id(x, 0), graph);
      }
    }
  }
  return graph;
}

std::int32_t Grid::signed_steps(std::int32_t from, std::int32_t to, std::uint32_t extent) const {
  const std::int32_t direct = to - from;
  if (m_topology == Topology::mesh) return direct;
  const auto n = static_cast<std::int32_t>(extent);
  const std::int32_t forward = ((direct % n) + n) % n;  // steps going east/south with wrap
  const std::int32_t backward = n - forward;            // steps going west/north with wrap
  if (forward == 0) return 0;
  return forward <= backward ? forward : -backward;
}

std::uint32_t Grid::torus_hops(Coord a, Coord b) const {
  return static_cast<std::uint32_t>(std::abs(signed_steps(a.x, b.x, m_width)) +
                                    std::abs(signed_steps(a.y, b.y, m_height)));
}

std::uint32_t Grid::host_hops(TileId t) const {
  const Coord c = coord(t);
  const std::int32_t to_edge = std::min({c.x, c.y, static_cast<std::int32_t>(m_width) - 1 - c.x,
                                         static_cast<std::int32_t>(m_height) - 1 - c.y});
  return 1 + static_cast<std::uint32_t>(to_edge);
}

}  // namespace spatialsim::sim
