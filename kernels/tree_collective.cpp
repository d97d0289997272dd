#include "kernels/tree_collective.h"

#include <algorithm>
#include <numeric>

#include "kernels/kernel_base.h"

namespace spatialsim::kernels {
namespace {

// Message ports: partial sums go up the tree, the final value comes down.
constexpr std::uint32_t kPortUp = 0;
constexpr std::uint32_t kPortDown = 1;

// Parent of every position of a line of n tiles rooted at position r (parent[r] == r). See the header for
// the segments; `ring` is true on a torus.
std::vector<std::uint32_t> line_parents(std::uint32_t n, std::uint32_t r, bool ring, LineShape shape) {
  const std::uint32_t east_length = ring ? n / 2 + 1 : n - r;
  const std::uint32_t west_length = ring ? (n + 1) / 2 : r + 1;
  const auto east = [&](std::uint32_t i) { return (r + i) % n; };
  const auto west = [&](std::uint32_t i) { return (r + n - i) % n; };
  const auto parent_index = [&](std::uint32_t i) { return shape == LineShape::chain ? i - 1 : i & (i - 1); };
  std::vector<std::uint32_t> parent(n, r);
  for (std::uint32_t i = 1; i < east_length; ++i) parent[east(i)] = east(parent_index(i));
  for (std::uint32_t i = 1; i < west_length; ++i) parent[west(i)] = west(parent_index(i));
  return parent;
}

}  // namespace

SpanningTree build_spanning_tree(const sim::Grid& grid, LineShape shape, RootPlace root) {
  const std::uint32_t w = grid.width();
  const std::uint32_t h = grid.height();
  const bool ring = grid.topology() == sim::Topology::torus;
  const std::uint32_t rx = root == RootPlace::corner ? 0 : (w - 1) / 2;
  const std::uint32_t ry = root == RootPlace::corner ? 0 : (h - 1) / 2;
  const auto px = line_parents(w, rx, ring, shape);
  const auto py = line_parents(h, ry, ring, shape);

  SpanningTree tree;
  tree.root = grid.tile_id(rx, ry);
  tree.parent.resize(grid.tile_count());
  tree.children.resize(grid.tile_count());
  for (std::uint32_t y = 0; y < h; ++y) {
    for (std::uint32_t x = 0; x < w; ++x) {
      // Row then column: the root's row is the trunk, every other tile hangs off its column.
      const sim::TileId parent = y == ry ? grid.tile_id(px[x], ry) : grid.tile_id(x, py[y]);
      const sim::TileId t = grid.tile_id(x, y);
      tree.parent[t] = parent;
      if (t != tree.root) tree.children[parent].push_back(t);
    }
  }
  for (sim::TileId t = 0; t < grid.tile_count(); ++t) {
    std::stable_sort(tree.children[t].begin(), tree.children[t].end(),
                     [&](sim::TileId a, sim::TileId b) { return grid.hops(t, a) > grid.hops(t, b); });
  }
  return tree;
}

void TreeCollective::validate(const GridShape& grid) const {
  require_tiles(grid, name());
}

void TreeCollective::run(sim::Engine& engine, std::uint64_t element_bytes) {
  const sim::Grid& grid = engine.grid();
  const std::uint32_t n = grid.tile_count();
  m_element_bytes = element_bytes;
  m_tree = build_spanning_tree(grid, m_variant.shape, m_variant.root);
  m_partial.resize(n);
  for (sim::TileId t = 0; t < n; ++t) m_partial[t] = input_value(t);
  m_partial_stamp.assign(n, 0);
  m_waiting_for.resize(n);
  for (sim::TileId t = 0; t < n; ++t)
    m_waiting_for[t] = static_cast<std::uint32_t>(m_tree.children[t].size());
  m_result.assign(n, 0.0);
  m_deliveries.assign(n, 0);
  m_expected = m_variant.mode == TreeMode::broadcast
                   ? input_value(m_tree.root)
                   : std::accumulate(m_partial.begin(), m_partial.end(), 0.0);

  engine.set_handler(this);
  if (m_variant.mode == TreeMode::broadcast) {
    broadcast_step(engine, m_tree.root, input_value(m_tree.root), 0);
  } else {
    // The leaves start; every other tile sends once it has heard from all its children.
    for (sim::TileId t = 0; t < n; ++t)
      if (m_waiting_for[t] == 0) reduce_step(engine, t);
  }
  engine.run();
}

void TreeCollective::on_message(sim::Engine& engine, const sim::Message& message) {
  const sim::TileId t = message.dst;
  if (message.port == kPortDown) {
    broadcast_step(engine, t, element_value(engine, message), message.depth);
    return;
  }
  m_partial[t] += element_value(engine, message);
  m_partial_stamp[t] = std::max(m_partial_stamp[t], message.depth);
  if (--m_waiting_for[t] == 0) reduce_step(engine, t);
}

void TreeCollective::reduce_step(sim::Engine& engine, sim::TileId t) {
  if (t != m_tree.root) {
    send_element(engine,
                 {.src = t, .dst = m_tree.parent[t], .kind = sim::MessageKind::scalar, .port = kPortUp},
                 m_partial[t], m_partial_stamp[t], m_element_bytes, engine.now());
    return;
  }
  // The root's sum is a computed value: its stamp counts toward depth even with no message after it.
  engine.note_depth(m_partial_stamp[t]);
  if (m_variant.mode == TreeMode::allreduce) {
    broadcast_step(engine, t, m_partial[t], m_partial_stamp[t]);
  } else {
    m_result[t] = m_partial[t];
    ++m_deliveries[t];
  }
}

void TreeCollective::broadcast_step(sim::Engine& engine, sim::TileId t, double value, std::uint32_t stamp) {
  m_result[t] = value;
  ++m_deliveries[t];
  for (const sim::TileId child : m_tree.children[t]) {
    send_element(engine, {.src = t, .dst = child, .kind = sim::MessageKind::scalar, .port = kPortDown}, value,
                 stamp, m_element_bytes, engine.now());
  }
}

bool TreeCollective::check() const {
  if (m_result.empty()) return false;  // never ran
  if (m_variant.mode == TreeMode::reduce) {
    const bool all_heard =
        std::all_of(m_waiting_for.begin(), m_waiting_for.end(), [](auto w) { return w == 0; });
    return all_heard && m_deliveries[m_tree.root] == 1 && m_result[m_tree.root] == m_expected;
  }
  for (sim::TileId t = 0; t < m_result.size(); ++t)
    if (m_deliveries[t] != 1 || m_result[t] != m_expected) return false;
  return true;
}

}  // namespace spatialsim::kernels
