#pragma once
// The K directional derivatives d_k of a forward-gradient step, from per-tile shares to every trunk tile
// (docs/forward-gradients.md): each holder tile (an output tile of the last trunk layer, or of the loss)
// sums its shares over the step's wavefronts; the holders' sums are reduced along a spanning tree to one
// root; the root broadcasts the K totals along a spanning tree of the trunk tiles. Every message is one
// K-value `scalar` message (K * b_p bytes, phase backward); the engine's depth stamps count the trees'
// depth.
//
// Usage:
//   TangentScalars<double> scalars(setup, grid, listener);
//   scalars.reset();                                          // each step
//   scalars.add_share(engine, holder, shares, depth, ready);  // once per holder and wavefront
//   ... engine delivers the setup's ports to scalars.on_message ...
//   listener.on_scalars(engine, tile, d, depth, ready);       // once per trunk tile
//   scalars.totals();                                         // d_1..d_K after the step

#include <cstdint>
#include <vector>

#include "mappings/scalar_tree.h"
#include "sim/engine.h"

namespace spatialsim::workloads {

class ScalarListener {
 public:
  virtual ~ScalarListener() = default;
  // The K scalars reached trunk tile `tile` (empty in counting mode).
  virtual void on_scalars(sim::Engine& engine, sim::TileId tile, const std::vector<double>& d,
                          std::uint32_t depth, sim::Cycle ready) = 0;
};

struct TangentScalarsSetup {
  std::uint32_t tangents = 1;            // K
  std::uint32_t wavefronts = 1;          // shares each holder waits for
  std::vector<sim::TileId> holders;      // the last is the root of both trees
  std::vector<sim::TileId> trunk_tiles;  // receive the totals
  std::uint32_t bytes_per_scalar = 2;    // b_p
  std::uint32_t reduce_port = 0;
  std::uint32_t broadcast_port = 0;
  std::uint32_t group = 0;  // message.group
  bool with_values = true;
};

template <typename T>
class TangentScalars {
 public:
  TangentScalars(TangentScalarsSetup setup, const sim::Grid& grid, ScalarListener& listener);

  void reset();
  // Holder `holder` (an index into setup.holders) has one wavefront's shares of d_1..d_K (empty in
  // counting mode). Contract: called setup.wavefronts times per holder and step.
  void add_share(sim::Engine& engine, std::uint32_t holder, const std::vector<double>& shares,
                 std::uint32_t depth, sim::Cycle ready);
  void on_message(sim::Engine& engine, const sim::Message& message);
  const std::vector<double>& totals() const { return m_totals; }

 private:
  struct Node {
    std::vector<double> sum;
    std::uint32_t shares = 0;
    std::uint32_t children = 0;  // children's sums received
    std::uint32_t depth = 0;
    sim::Cycle ready = 0;
  };
  void add(Node& node, const std::vector<double>& values, std::uint32_t depth, sim::Cycle ready);
  void try_reduce(sim::Engine& engine, std::uint32_t member);
  void broadcast(sim::Engine& engine, std::uint32_t member, const std::vector<double>& d, std::uint32_t depth,
                 sim::Cycle ready);
  void send(sim::Engine& engine, std::uint32_t port, sim::TileId from, sim::TileId to, std::uint32_t slot,
            const std::vector<double>& d, std::uint32_t depth, sim::Cycle ready);

  TangentScalarsSetup m_setup;
  ScalarListener& m_listener;
  mappings::ScalarTree m_reduce;
  mappings::ScalarTree m_broadcast;
  std::vector<std::uint32_t> m_holder_member;  // holder index -> reduce-tree member
  std::vector<Node> m_nodes;                   // per reduce-tree member
  std::vector<double> m_totals;
};

extern template class TangentScalars<float>;
extern template class TangentScalars<double>;

}  // namespace spatialsim::workloads
