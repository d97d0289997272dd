#pragma once
// A network of weight-stationary blocks running on the grid: the program the engine delivers messages
// to during a step. It feeds wavefronts in from the host, moves each layer's outputs to the next
// layer's lane entries (redistribution), hands the last layer's outputs to the loss, and, when the
// schedule trains, runs the reverse flow down to the first layer. Under a forward-gradient schedule the
// trunk's forward passes also carry K tangent streams and the trunk's gradient is the estimate formed from
// the K scalars d_k (network_program_fg.cpp, docs/forward-gradients.md).
//
// Usage:
//   NetworkProgram<float> program(setup, grid, schedule);
//   sim::Engine engine(grid, timing);  engine.set_handler(&program);
//   program.load(parameters);
//   program.start_step(engine, &data);  engine.run();  engine.finish();
//   program.loss();  program.gradients();

#include <algorithm>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "mappings/message_template.h"
#include "mappings/redistribution.h"
#include "mappings/weight_stationary_block.h"
#include "workloads/block_chain.h"
#include "workloads/chain_ports.h"
#include "workloads/data.h"
#include "workloads/forward_gradient/generated_tangents.h"
#include "workloads/forward_gradient/tangent_scalars.h"
#include "workloads/host_injection.h"
#include "workloads/loss_stage.h"
#include "workloads/model_spec.h"
#include "workloads/network_setup.h"
#include "workloads/optimizers/i_optimizer.h"
#include "workloads/parameters.h"
#include "workloads/piece_gather.h"
#include "workloads/schedules/i_schedule.h"
#include "workloads/tile_optimizer.h"

namespace spatialsim::workloads {

template <typename T>
class NetworkProgram final : public sim::MessageHandler,
                             public mappings::BlockListener<T>,
                             public LossGradientListener<T>,
                             public ScalarListener {
 public:
  NetworkProgram(const NetworkSetup& setup, const sim::Grid& grid, const Schedule& schedule);

  void load(const NetworkParameters& parameters);
  // Records the resident storage in `engine` (fresh for each step) and schedules the step's wavefront
  // injections; `data` may be null in counting mode.
  void start_step(sim::Engine& engine, const StepData* data);

  // The optimizer every tile applies after each step (null: no update), with its learning rate.
  void set_optimizer(const Optimizer* optimizer, double lr);
  // Once the step has drained: every tile updates its own slice at now() (phase update, no traffic).
  // Run the engine again to process the updates.
  void schedule_update(sim::Engine& engine);

  double loss() const { return m_loss->loss(); }
  // The most checkpoints any wavefront held at once during the steps run so far.
  std::uint32_t max_checkpoints() const { return m_max_checkpoints; }
  const sim::Matrix<double>& outputs() const { return m_loss->outputs(); }
  NetworkParameters gradients() const;
  NetworkParameters parameters() const;
  BlockChain<T>& blocks() { return m_blocks; }
  // Per-wavefront state held now (the program's and its blocks'), and the most slots any one pool made:
  // bounded by the wavefronts in flight, not by the step's wavefront count (docs/performance.md).
  mappings::SlotCensus wavefront_census() const;
  // Forward gradients: the K scalars d_k of the last step started (empty before the step has reduced them,
  // in counting mode, and for an exact schedule).
  std::vector<double> tangent_scalars() const {
    return m_scalars ? m_scalars->totals() : std::vector<double>{};
  }

  // Block messages (most of them) go straight to their block; the dispatcher stays a few instructions
  // with nothing to save, and the program's own ports are handled out of line.
  // The program's event-path entry points are flattened, as the block's are (weight_stationary_block.h).
  void on_message(sim::Engine& engine, const sim::Message& message) override {
    if (message.port < mappings::kFirstProgramPort)
      m_blocks[message.group]->on_message(engine, message);
    else
      on_program_message(engine, message);
  }
  [[gnu::flatten]] void on_forward_output(sim::Engine& engine, std::uint32_t layer, std::uint32_t wf,
                                          std::uint32_t col, mappings::ValuesPtr<T> y, std::uint32_t depth,
                                          sim::Cycle ready, sim::Phase phase) override;
  [[gnu::flatten]] void on_backward_output(sim::Engine& engine, std::uint32_t layer, std::uint32_t wf,
                                           std::uint32_t row, mappings::ValuesPtr<T> dx, std::uint32_t depth,
                                           sim::Cycle ready) override;
  void on_loss_gradient(sim::Engine& engine, std::uint32_t wf, std::uint32_t col, mappings::ValuesPtr<T> dy,
                        std::uint32_t depth, sim::Cycle ready) override;
  void on_tangent_partials(sim::Engine& engine, std::uint32_t wf, std::uint32_t col,
                           std::vector<double> partials, std::uint32_t depth, sim::Cycle ready) override;
  void on_scalars(sim::Engine& engine, sim::TileId tile, const std::vector<double>& d, std::uint32_t depth,
                  sim::Cycle ready) override;

 private:
  // The program's own ports; the host's, the loss stage's and the update's are ChainPort's.
  enum class Port : std::uint32_t {
    redistribute_forward = port_id(ChainPort::first_own),
    redistribute_backward,
    recompute_signal,
    tangent_shadow,  // the tangent bytes of a redistributed piece: counted, then ignored
    scalar_reduce,
    scalar_broadcast,
  };
  // dL/dY of one column of a layer whose backward pass waits for a recomputation, and that column's rebuilt
  // stash: the backward pass starts once both are in, from the later of the two and with the larger stamp
  // (dZ = dY act'(Z) reads the recomputed Z).
  struct HeldGradient {
    mappings::ValuesPtr<T> dy;
    std::uint32_t depth = 0;
    sim::Cycle ready = 0;
    bool have_dy = false;
    bool recomputed = false;
    void note(std::uint32_t stamp, sim::Cycle at) {
      depth = std::max(depth, stamp);
      ready = std::max(ready, at);
    }
  };
  // A lane input (forward) or an output gradient (backward) arriving in pieces from several tiles.
  using Gather = PieceGather<T>;
  using HeldSlots = mappings::ItemSlots<HeldGradient>;

  [[gnu::noinline, gnu::flatten]] void on_program_message(sim::Engine& engine, const sim::Message& message);
  std::uint32_t layers() const { return static_cast<std::uint32_t>(m_blocks.size()); }
  std::uint32_t tokens(std::uint32_t wf) const { return m_setup.wavefront_tokens[wf]; }
  std::uint64_t activation_bytes(std::uint32_t wf, std::uint32_t elements) const {
    return std::uint64_t{m_setup.bytes.activation} * tokens(wf) * elements;
  }
  // Feeds X[:, I_row] into `layer`'s lane under the schedule's policy for this pass.
  void enter(sim::Engine& engine, std::uint32_t layer, std::uint32_t wf, std::uint32_t row,
             mappings::ValuesPtr<T> x, std::uint32_t depth, sim::Phase phase);
  // dL/dY of (layer, wf, col) is on the output tile: start its backward pass, or hold it until the
  // schedule's recomputation has rebuilt what that needs.
  void deliver_output_gradient(sim::Engine& engine, std::uint32_t layer, std::uint32_t wf, std::uint32_t col,
                               mappings::ValuesPtr<T> dy, std::uint32_t depth, sim::Cycle ready);
  void restart_from_checkpoint(sim::Engine& engine, const sim::Message& signal);
  // The recomputation has rebuilt column `col` of its target layer (stamp `depth`, usable from `ready`).
  void finish_recomputed_column(sim::Engine& engine, std::uint32_t layer, std::uint32_t wf, std::uint32_t col,
                                std::uint32_t depth, sim::Cycle ready);
  void receive_forward_piece(sim::Engine& engine, const sim::Message& m);
  void receive_backward_piece(sim::Engine& engine, const sim::Message& m);
  // --- forward gradients (network_program_fg.cpp) ---
  void setup_forward_gradient();
  void begin_forward_gradient_step();
  // Value streams a forward message into `layer` carries: 1 + K inside the trunk, else 1.
  std::uint64_t streams(std::uint32_t layer) const { return layer < m_trunk ? 1 + m_fg->tangents : 1; }
  // Counts the tangent streams riding with the redistributed piece `primal`: a companion message on its
  // route, K times its bytes, with no values.
  void send_tangent_shadow(sim::Engine& engine, const sim::Message& primal, sim::Cycle ready);
  // split-fg: keeps the split layer's output tangents on its output tile (from `ready`, when the column is
  // complete) and returns the primal rows.
  mappings::ValuesPtr<T> split_off_tangents(sim::Engine& engine, std::uint32_t wf, std::uint32_t col,
                                            const mappings::ValuesPtr<T>& y, sim::Cycle ready);
  // split-fg: u = dL/dh reached the split tile: its shares of d_k = <u, dh_k>.
  void take_split_gradient(sim::Engine& engine, std::uint32_t wf, std::uint32_t col,
                           const mappings::ValuesPtr<T>& u, std::uint32_t depth, sim::Cycle ready);
  void add_estimate(sim::Engine& engine, std::uint32_t layer, std::uint32_t tile_index,
                    const std::vector<double>& d, sim::Cycle ready);
  double learning_rate(std::uint32_t layer) const;

  NetworkSetup m_setup;
  const sim::Grid& m_grid;
  const Schedule& m_schedule;
  BlockChain<T> m_blocks;
  std::vector<mappings::RedistributionPlan> m_plans;  // m_plans[l]: layer l -> layer l + 1
  // The messages of m_plans[l]'s transfers, per transfer id: forward (output tile to lane entry) and
  // backward (lane entry back to output tile), built once.
  struct TransferPaths {
    std::vector<mappings::MessageTemplate> forward;
    std::vector<mappings::MessageTemplate> backward;
  };
  std::vector<TransferPaths> m_paths;  // [l], as m_plans
  // The schedule's answers per layer, asked once (its contract: the same for every wavefront and step).
  std::vector<mappings::XStash> m_forward_stash;
  std::vector<const RecomputeEpisode*> m_episodes;
  std::unique_ptr<LossStage<T>> m_loss;
  std::vector<PieceGathers<T>> m_forward_pieces;   // [layer]: per lane
  std::vector<PieceGathers<T>> m_backward_pieces;  // [layer]: per output column
  HostInjection m_injection;
  const StepData* m_data = nullptr;
  std::vector<HeldSlots> m_held;  // [layer]: per output column
  // [layer] with an episode: the output column whose dL/dY starts it (restart_column()).
  std::vector<std::uint32_t> m_restart_column;
  std::vector<std::uint32_t> m_episode_target;  // per wavefront: the layer being recomputed for
  std::vector<std::uint32_t> m_checkpoints;     // per wavefront: checkpoints held now
  std::uint32_t m_max_checkpoints = 0;
  double m_lr = 0;  // the run's learning rate (learning_rate(): per layer)
  TileOptimizer<T> m_updates;
  // Forward gradients.
  const ForwardGradientPlan* m_fg = nullptr;  // the schedule's plan; null: exact schedule
  std::uint32_t m_trunk = 0;                  // layers 0..m_trunk-1 carry tangents
  std::uint64_t m_steps_started = 0;
  std::unique_ptr<GeneratedTangents> m_tangents;  // this step's
  std::unique_ptr<TangentScalars<T>> m_scalars;
  std::vector<mappings::ValuesPtr<T>> m_split_tangents;  // split-fg: [wf * cols + col] of the split layer
  struct TrunkSlice {
    std::uint32_t layer = 0;
    std::uint32_t tile_index = 0;  // in the layer's block
  };
  // [tile id]: the trunk slices the tile holds (empty off the trunk), found in one load when the K scalars
  // reach the tile.
  std::vector<std::vector<TrunkSlice>> m_trunk_slices;
};

extern template class NetworkProgram<float>;
extern template class NetworkProgram<double>;

}  // namespace spatialsim::workloads
