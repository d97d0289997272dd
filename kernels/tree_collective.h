#pragma once
// Broadcast, reduce and allreduce over a spanning tree of the grid: the shared implementation behind the
// kernels registered in impl/broadcast.cpp, impl/reduce.cpp and impl/allreduce.cpp.
//
// Usage:
//   const TreeVariant v{"reduce-tree", "binomial-tree reduce to the corner tile", TreeMode::reduce,
//                       LineShape::binomial, RootPlace::corner};
//   auto kernel = std::make_unique<TreeCollective>(v);
//
// The tree is built row then column: the root's row is covered first, then every tile of that row covers
// its column. Along each line the tree has one of two shapes:
// - chain: position i receives from i - 1 (one hop per message, n - 1 sequential messages);
// - binomial: position i receives from i with its lowest set bit cleared (i & (i - 1)), the recursive
//   halving tree: a tile is at most floor(log2 n) messages from the root.
// A line is split at the root into an east and a west segment (i counts hops from the root). On a mesh
// with the root at the corner there is only the east segment; with the root at the centre, and on every
// torus ring (which wraps, so any root is a centre), the two segments hold floor(n/2) + 1 and ceil(n/2)
// positions, the root included in both. docs/kernels.md derives the energy and depth of each shape.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/i_kernel.h"

namespace spatialsim::kernels {

enum class TreeMode : std::uint8_t { broadcast, reduce, allreduce };
enum class LineShape : std::uint8_t { chain, binomial };
enum class RootPlace : std::uint8_t { corner, centre };

struct TreeVariant {
  std::string_view name;
  std::string_view description;
  TreeMode mode;
  LineShape shape;
  RootPlace root;
};

// The tree, as parent and child lists. Children are ordered farthest first, so that under finite link
// bandwidth the largest subtree's message leaves first.
struct SpanningTree {
  sim::TileId root = 0;
  std::vector<sim::TileId> parent;  // parent[root] == root
  std::vector<std::vector<sim::TileId>> children;
};

SpanningTree build_spanning_tree(const sim::Grid& grid, LineShape shape, RootPlace root);

class TreeCollective final : public Kernel {
 public:
  explicit TreeCollective(const TreeVariant& variant) : m_variant(variant) {}

  std::string_view name() const override { return m_variant.name; }
  std::string_view description() const override { return m_variant.description; }
  void validate(const GridShape& grid) const override;
  void run(sim::Engine& engine, std::uint64_t element_bytes) override;
  bool check() const override;
  void on_message(sim::Engine& engine, const sim::Message& message) override;

 private:
  // The value tile t starts with: t + 1, distinct and never 0, so that a value dropped or counted twice
  // changes the sum the check compares (the sum, at most 2^22 (2^22 + 1) / 2, is exact in a double).
  // Values that repeated every 101 tiles and included 0 let a dropped message from the tile holding 0 pass.
  static double input_value(sim::TileId t) { return static_cast<double>(t) + 1.0; }
  // Sends tile t's partial sum to its parent, or finishes the reduction at the root.
  void reduce_step(sim::Engine& engine, sim::TileId t);
  // Tile t holds the final value: keep it and pass it to the children.
  void broadcast_step(sim::Engine& engine, sim::TileId t, double value, std::uint32_t stamp);

  TreeVariant m_variant;
  std::uint64_t m_element_bytes = 0;
  SpanningTree m_tree;
  std::vector<double> m_partial;               // reduce: own value plus the children's sums heard so far
  std::vector<std::uint32_t> m_partial_stamp;  // depth stamp of m_partial
  std::vector<std::uint32_t> m_waiting_for;    // reduce: children not heard from yet
  std::vector<double> m_result;                // broadcast: the value the tile ended with
  std::vector<std::uint32_t> m_deliveries;     // broadcast: how many times the tile was given the value
  double m_expected = 0.0;                     // what every result tile must hold
};

// The registration of one variant under its name (its factory ignores the configuration: a tree
// collective has no options of its own).
inline KernelRegistry::Registration register_tree_variant(const TreeVariant& variant) {
  return {std::string(variant.name), std::string(variant.description),
          [variant](const sim::Config&) { return std::make_unique<TreeCollective>(variant); }};
}

}  // namespace spatialsim::kernels
