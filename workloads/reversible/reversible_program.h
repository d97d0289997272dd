#pragma once
// A reversible additive-coupling network running on the grid (docs/reversible.md): the program the engine
// delivers messages to during a step. Every dense layer (entry, F_k, G_k, exit) is a WeightStationaryBlock
// on its own block of tiles; the trunk values a_k, b_k move between them along a CouplingGraph's edges.
//
// Forward: y1 = x1 + F(x2), y2 = x2 + G(y1), the additions done on the output tiles of F and G, where the
// skip operand arrives by redistribution. The trunk stashes nothing but its last output (a_L, b_L, on
// their home tiles); the entry and exit layers stash their own inputs as in backprop (replicate).
// Backward, block k from the last: resend a_k to G_k (recompute, replicate stash), b_{k-1} = b_k - G(a_k)
// on G_k's output tiles, resend b_{k-1} to F_k (recompute), a_{k-1} = a_k - F(b_{k-1}) on F_k's output
// tiles; each reconstructed value goes home along its skip edge reversed. Then G_k and F_k backpropagate:
// db_k enters G_k and passes through its skip edge to b_{k-1}; dX of G_k joins da_k on F_k's output tiles,
// which enters F_k and passes through to a_{k-1}; dX of F_k joins db_{k-1}.
//
// Usage (as NetworkProgram):
//   ReversibleProgram<double> program(setup, grid, schedule);   // setup.model.kind == reversible
//   program.load(parameters);  program.start_step(engine, &data);  engine.run();
//   program.gradients();  program.reconstruction_drift();

#include <cstdint>
#include <memory>
#include <vector>

#include "mappings/wavefront_slots.h"
#include "mappings/weight_stationary_block.h"
#include "workloads/block_chain.h"
#include "workloads/chain_ports.h"
#include "workloads/data.h"
#include "workloads/host_injection.h"
#include "workloads/loss_stage.h"
#include "workloads/network_setup.h"
#include "workloads/optimizers/i_optimizer.h"
#include "workloads/piece_gather.h"
#include "workloads/reversible/coupling_graph.h"
#include "workloads/reversible/reconstruction_drift.h"
#include "workloads/schedules/i_schedule.h"
#include "workloads/tile_optimizer.h"

namespace spatialsim::workloads::reversible {

template <typename T>
class ReversibleProgram final : public sim::MessageHandler,
                                public mappings::BlockListener<T>,
                                public LossGradientListener<T> {
 public:
  // Contract: setup.model.kind == reversible, one placement block per dense layer (CouplingLayers order).
  // `schedule.trains()` selects training (reversible) or inference (forward).
  ReversibleProgram(const NetworkSetup& setup, const sim::Grid& grid, const Schedule& schedule);

  void load(const NetworkParameters& parameters);
  void start_step(sim::Engine& engine, const StepData* data);
  void set_optimizer(const Optimizer* optimizer, double lr);
  void schedule_update(sim::Engine& engine);

  double loss() const { return m_loss->loss(); }
  const sim::Matrix<double>& outputs() const { return m_loss->outputs(); }
  NetworkParameters gradients() const;
  NetworkParameters parameters() const;
  // Of the last step (arithmetic mode, training): reconstructed against forward trunk values.
  const ReconstructionDrift& reconstruction_drift() const { return m_drift; }
  // Per-wavefront state held now (the program's and its blocks'), and the most slots any one pool made:
  // bounded by the wavefronts in flight, not by the step's wavefront count (docs/performance.md).
  mappings::SlotCensus wavefront_census() const;
  const CouplingGraph& graph() const { return m_graph; }

  void on_message(sim::Engine& engine, const sim::Message& message) override;
  void on_forward_output(sim::Engine& engine, std::uint32_t layer, std::uint32_t wf, std::uint32_t col,
                         mappings::ValuesPtr<T> y, std::uint32_t depth, sim::Cycle ready,
                         sim::Phase phase) override;
  void on_backward_output(sim::Engine& engine, std::uint32_t layer, std::uint32_t wf, std::uint32_t row,
                          mappings::ValuesPtr<T> dx, std::uint32_t depth, sim::Cycle ready) override;
  void on_loss_gradient(sim::Engine& engine, std::uint32_t wf, std::uint32_t col, mappings::ValuesPtr<T> dy,
                        std::uint32_t depth, sim::Cycle ready) override;

 private:
  // The program's own ports; the host's, the loss stage's and the update's are ChainPort's.
  enum class Port : std::uint32_t {
    value = port_id(ChainPort::first_own),  // a trunk value along an edge (forward, or recompute when resent)
    gradient,                               // a gradient along an edge, reversed
    reconstructed,                          // a reconstructed value going home along a skip edge, reversed
  };
  using Gather = PieceGather<T>;
  struct Stamped {
    mappings::ValuesPtr<T> values;
    std::uint32_t depth = 0;
    sim::Cycle ready = 0;
    bool present = false;
  };
  // One home column of one trunk value, for one wavefront.
  struct Site {
    Gather skip;         // forward: the skip operand's pieces
    Stamped layer_out;   // forward: the layer's output column
    Stamped value;       // backward: the stashed (a_L, b_L) or reconstructed value, until the subtraction
    Gather returned;     // backward: reconstructed pieces coming home
    Stamped recomputed;  // backward: the layer's recomputed output column
    Gather gradient;     // backward: gradient pieces from every edge of the value
    bool gradient_complete = false;
    bool resent = false;
    bool backward_started = false;
    // Nothing held and nothing more to come: before the backward pass touched it, or after it is done.
    bool idle() const {
      return skip.pieces == 0 && !layer_out.present && !value.present && returned.pieces == 0 &&
             !recomputed.present && gradient.pieces == 0 &&
             (backward_started || (!resent && !gradient_complete));
    }
  };
  // A wavefront's state is held only while it is in flight (mappings::WavefrontSlots): the sites of one
  // value (one per home column), the lane gathers of one layer, the entry layer's gradient halves.
  struct ValueSites {
    std::vector<Site> columns;
    void reset() {
      for (Site& s : columns) s = Site{};  // moves: the gathers hold no buffers by now, nothing to copy
    }
  };

  std::uint32_t tokens(std::uint32_t wf) const { return m_setup.wavefront_tokens[wf]; }
  std::uint64_t activation_bytes(std::uint32_t wf, std::uint32_t elements) const {
    return std::uint64_t{m_setup.bytes.activation} * tokens(wf) * elements;
  }
  bool trains() const { return m_schedule.trains(); }
  mappings::WeightStationaryBlock<T>& block(std::uint32_t layer) const { return *m_blocks[layer]; }
  Site& site(std::uint32_t value, std::uint32_t wf, std::uint32_t j) {
    return m_sites[value].at(wf).columns[j];
  }
  // Gives the wavefront's sites of `value` back once every one of them is idle.
  void settle_sites(std::uint32_t value, std::uint32_t wf);
  sim::TileId home_tile(std::uint32_t value, std::uint32_t j) const {
    return block(m_graph.home_layer(value)).output_tile(j);
  }
  mappings::Range home_range(std::uint32_t value, std::uint32_t j) const {
    return m_graph.home_ranges(value)[j];
  }

  void send_along(sim::Engine& engine, std::uint32_t edge, std::uint32_t wf, std::uint32_t j,
                  const mappings::ValuesPtr<T>& v, std::uint32_t depth, sim::Cycle ready, sim::Phase phase);
  void receive_value(sim::Engine& engine, const sim::Message& m);
  void try_forward_sum(sim::Engine& engine, std::uint32_t value, std::uint32_t wf, std::uint32_t j);
  void value_computed(sim::Engine& engine, std::uint32_t value, std::uint32_t wf, std::uint32_t j,
                      mappings::ValuesPtr<T> v, std::uint32_t depth, sim::Cycle ready);
  void resend_for_recompute(sim::Engine& engine, std::uint32_t value, std::uint32_t wf, std::uint32_t j,
                            std::uint32_t depth);
  void try_subtract(sim::Engine& engine, std::uint32_t value, std::uint32_t wf, std::uint32_t j);
  void receive_reconstructed(sim::Engine& engine, const sim::Message& m);
  void receive_gradient(sim::Engine& engine, const sim::Message& m);
  void try_backward(sim::Engine& engine, std::uint32_t value, std::uint32_t wf, std::uint32_t j);
  void entry_gradient_part(sim::Engine& engine, std::uint32_t value, std::uint32_t wf, std::uint32_t j,
                           const mappings::ValuesPtr<T>& g, std::uint32_t depth, sim::Cycle ready);
  void measure_drift(std::uint32_t value, std::uint32_t wf, std::uint32_t j,
                     const sim::Matrix<T>& reconstructed);
  // Sends `values` (feature columns r of the skip edge's consumer value, on its home column j at `tile`)
  // back along skip edge `edge_id`, reversed: each piece to the home tile of the operand column it came from.
  void send_to_skip_home(sim::Engine& engine, std::uint32_t edge_id, std::uint32_t j, sim::TileId tile,
                         std::uint32_t wf, mappings::Range r, const mappings::ValuesPtr<T>& values,
                         sim::Phase phase, Port port, std::uint32_t depth, sim::Cycle ready);

  NetworkSetup m_setup;
  const sim::Grid& m_grid;
  const Schedule& m_schedule;
  BlockChain<T> m_blocks;  // CouplingLayers order
  CouplingGraph m_graph;
  HostInjection m_injection;
  std::unique_ptr<LossStage<T>> m_loss;
  TileOptimizer<T> m_updates;
  std::vector<mappings::WavefrontSlots<ValueSites>> m_sites;  // [value]: per home column
  std::vector<PieceGathers<T>> m_lanes;                       // [layer]: per lane
  std::unique_ptr<PieceGathers<T>> m_entry_gradient;          // per entry column: a_0, b_0 parts
  std::vector<std::vector<sim::Matrix<T>>> m_forward_values;  // [value][wf], T_g x d/2: drift reference
  const StepData* m_data = nullptr;
  ReconstructionDrift m_drift;
};

extern template class ReversibleProgram<float>;
extern template class ReversibleProgram<double>;

}  // namespace spatialsim::workloads::reversible
