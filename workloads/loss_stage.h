#pragma once
// The loss, computed where the last layer's outputs are: on its output tiles. Targets arrive there from
// the host. With mse every output tile works alone; with cross-entropy the softmax needs each token's
// log-sum-exp over all d_L outputs, which are spread over the c output tiles: the per-token values are
// reduced along the chain of output tiles (column 0 to c-1) and the total is broadcast back, as `scalar`
// traffic (one b_p-byte value per token per hop). With forward gradients the outputs also carry K tangent
// streams; each output tile then reports its share of <dL/dY, dY_k> to the listener.
//
// The loss value itself is a diagnostic: it is summed from the tiles' local values without traffic,
// because no schedule needs it on the grid.
//
// Usage:
//   LossStage<float> stage(loss_stage_setup(network_setup, last_block), listener);
//   stage.on_target(engine, wf, col, target, depth);       // from the host
//   stage.on_output(engine, wf, col, y, depth, ready);      // from the last block
//   ... listener.on_loss_gradient(engine, wf, col, dy, depth, ready) when dL/dy is known

#include <cstdint>
#include <vector>

#include "mappings/partition.h"
#include "mappings/values.h"
#include "mappings/weight_stationary_block.h"
#include "sim/engine.h"
#include "workloads/loss.h"
#include "workloads/network_setup.h"

namespace spatialsim::workloads {

template <typename T>
class LossGradientListener {
 public:
  virtual ~LossGradientListener() = default;
  virtual void on_loss_gradient(sim::Engine& engine, std::uint32_t wf, std::uint32_t col,
                                mappings::ValuesPtr<T> dy, std::uint32_t depth, sim::Cycle ready) = 0;
  // Forward gradients (LossStageSetup::tangents = K > 0): this output tile's share of each tangent's
  // directional derivative <dL/dY[:, J_col], dY_k[:, J_col]> for wavefront `wf` (K values; empty in
  // counting mode).
  virtual void on_tangent_partials(sim::Engine& /*engine*/, std::uint32_t /*wf*/, std::uint32_t /*col*/,
                                   std::vector<double> /*partials*/, std::uint32_t /*depth*/,
                                   sim::Cycle /*ready*/) {}
};

struct LossStageSetup {
  Loss loss = Loss::mse;
  std::vector<mappings::Range> cols;            // J_j of the last layer (they cover 0..d_L)
  std::vector<sim::TileId> output_tiles;        // output tile of each column
  std::vector<std::uint32_t> wavefront_tokens;  // T_g per wavefront
  std::uint32_t total_tokens = 1;               // T: the loss is a mean over the step's tokens
  std::uint32_t activation_bytes = 2;
  std::uint32_t partial_sum_bytes = 2;
  std::uint32_t layer_tag = 0;  // message.group for this stage's messages
  std::uint32_t reduce_port = 0;
  std::uint32_t broadcast_port = 0;
  bool with_values = true;
  bool wants_gradient = true;  // false for schedules that only need the loss
  // K: the outputs carry K tangent streams stacked under the primal rows ((1 + K) T_g rows), and the
  // stage reports each tangent's share of the directional derivative (docs/forward-gradients.md).
  std::uint32_t tangents = 0;
};

// The loss stage at the end of a chain of blocks: on the output tiles of `last` (its layer tags the
// stage's messages and storage), for the step's wavefronts, on the chain's loss ports (chain_ports.h). It
// wants the gradient and sees no tangents; a program that needs otherwise sets those two.
template <typename T>
LossStageSetup loss_stage_setup(const NetworkSetup& setup, const mappings::WeightStationaryBlock<T>& last);

template <typename T>
class LossStage {
 public:
  LossStage(LossStageSetup setup, LossGradientListener<T>& listener);

  void on_target(sim::Engine& engine, std::uint32_t wf, std::uint32_t col, mappings::ValuesPtr<T> target,
                 std::uint32_t depth);
  void on_output(sim::Engine& engine, std::uint32_t wf, std::uint32_t col, mappings::ValuesPtr<T> y,
                 std::uint32_t depth, sim::Cycle ready);
  // A reduce or broadcast message of this stage.
  void on_message(sim::Engine& engine, const sim::Message& message);

  // Clears the loss and the recorded outputs for a new step.
  void reset(std::uint32_t outputs);
  double loss() const { return m_loss; }  // mean over the step's tokens, summed over wavefronts so far
  // The network's outputs of the step (T x d_L), as the output tiles computed them (arithmetic mode).
  const sim::Matrix<double>& outputs() const { return m_outputs; }

 private:
  struct Column {
    mappings::ValuesPtr<T> y;
    mappings::ValuesPtr<T> target;
    mappings::ValuesPtr<T> partial_lse;  // running log-sum-exp along the chain (cross-entropy)
    mappings::ValuesPtr<T> incoming_lse;
    bool have_y = false;
    bool have_target = false;
    bool have_incoming = false;
    std::uint32_t depth = 0;
    sim::Cycle ready = 0;
  };
  std::uint32_t tokens(std::uint32_t wf) const { return m_setup.wavefront_tokens[wf]; }
  std::uint64_t scalar_bytes(std::uint32_t wf) const {
    return std::uint64_t{m_setup.partial_sum_bytes} * tokens(wf);
  }
  void try_start(sim::Engine& engine, std::uint32_t wf, std::uint32_t col);
  void try_reduce(sim::Engine& engine, std::uint32_t wf, std::uint32_t col);
  void finish(sim::Engine& engine, std::uint32_t wf, std::uint32_t col,
              const mappings::ValuesPtr<T>& total_lse);
  // <dY, dY_k> for every tangent k: dY the primal gradient (T_g rows), y the stacked outputs.
  std::vector<double> tangent_partials(const sim::Matrix<T>& dy, const sim::Matrix<T>& y) const;
  void send(sim::Engine& engine, std::uint32_t port, std::uint32_t wf, std::uint32_t from_col,
            std::uint32_t to_col, mappings::ValuesPtr<T> lse, std::uint32_t depth, sim::Cycle ready);

  LossStageSetup m_setup;
  LossGradientListener<T>& m_listener;
  std::vector<std::vector<Column>> m_columns;  // [wf][col]
  std::vector<std::uint32_t> m_first_token;    // per wavefront
  sim::Matrix<double> m_outputs;
  double m_loss = 0;
};

extern template class LossStage<float>;
extern template class LossStage<double>;

}  // namespace spatialsim::workloads
