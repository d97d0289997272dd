#pragma once
// One dense layer y = act(x W + b), W of shape d_in x d_out, held weight-stationary on an r x c block of
// tiles (MODEL.md section 4). Forward: X[:, I_i] travels along lane i; tile (i, j) multiplies it by its
// slice W[I_i, J_j]; partial sums accumulate along column j to the output tile, which adds the bias and
// applies the activation. Backward: the same tiles with the flows reversed: dZ[:, J_j] goes back along
// column j, the shares of dX[:, I_i] are summed back along row i to the lane entry, and each tile adds
// X[:, I_i]^T dZ[:, J_j] to its own dW slice.
//
// The block only moves and computes; what happens to its outputs (the next layer, the loss) is decided by
// its listener, and what it keeps for the backward pass by the XStash policy of each forward pass.
//
// Forward gradients (BlockSpec::tangents = K > 0, docs/forward-gradients.md): every forward message carries
// the primal and K tangent streams stacked by rows ((1 + K) T_g rows: stream 0 is the primal, stream k + 1
// tangent k). Each tile adds X[:, I_i] V_k[I_i, J_j] to tangent k's partial sums, with its slice of V_k
// regenerated from the TangentSource; the output tile adds dB_k and multiplies by act'(Z). The tangent bytes
// are counted as a companion message of kind `tangent` on the same route (BlockPort::tangent_shadow).
// The tangent arithmetic (finish_tangent_column, add_tangent_products) is in
// weight_stationary_block_tangents.cpp.
//
// Usage:
//   WeightStationaryBlock<float> block(spec, grid, listener);
//   block.load_parameters(weights, bias);  block.record_resident_storage(engine, true);
//   block.enter_lane(engine, wf, row, x_slice, depth, engine.now(), XStash::replicate, Phase::forward);
//   ... engine delivers BlockPort messages to block.on_message ...
//   block.start_backward(engine, wf, col, dy_slice, depth, engine.now());

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "mappings/activation.h"
#include "mappings/block_layout.h"
#include "mappings/message_template.h"
#include "mappings/partition.h"
#include "mappings/tangent_source.h"
#include "mappings/values.h"
#include "mappings/wavefront_slots.h"
#include "mappings/x_stash.h"
#include "sim/engine.h"

namespace spatialsim::mappings {

// message.port values used by blocks. Programs that host blocks use values from kFirstProgramPort on.
// tangent_shadow: the byte count of the tangent streams riding with a forward message (values travel in the
// primal message's payload); its delivery only ends its share of the pass's liveness.
enum class BlockPort : std::uint32_t { lane = 1, psum, grad_column, grad_share, rebroadcast, tangent_shadow };
inline constexpr std::uint32_t kFirstProgramPort = 16;

struct ElementBytes {
  std::uint32_t activation = 2;   // b_a: per activation (and gradient) element on a link or in a stash
  std::uint32_t partial_sum = 2;  // b_p: per partial-sum element on a link
  std::uint32_t weight = 2;       // per weight element in SRAM
};

struct BlockSpec {
  std::uint32_t layer = 0;
  std::uint32_t d_in = 1;
  std::uint32_t d_out = 1;
  BlockLayout layout;
  Activation activation = Activation::identity;
  bool apply_activation = true;
  bool has_bias = true;
  bool computes_input_gradient = true;  // false for the first layer: no one needs dX there
  ElementBytes bytes;
  std::vector<std::uint32_t> wavefront_tokens;  // T_g of each wavefront (the last may be smaller)
  bool with_values = true;                      // false: counting mode, messages carry no numbers
  std::uint32_t tangents = 0;                   // K tangent streams in every forward pass (0: none)
  // With tangents: whether the inputs carry them too. False for the network's input (dx_0 = 0): its lanes
  // carry the primal only, and the tiles start the tangents with X V_k alone.
  bool input_tangents = true;
};

template <typename T>
class BlockListener {
 public:
  virtual ~BlockListener() = default;
  // Column `col` of wavefront `wf` is complete on output tile `col` and usable from cycle `ready`.
  virtual void on_forward_output(sim::Engine& engine, std::uint32_t layer, std::uint32_t wf,
                                 std::uint32_t col, ValuesPtr<T> y, std::uint32_t depth, sim::Cycle ready,
                                 sim::Phase phase) = 0;
  // dX[:, I_row] of wavefront `wf` is complete on the lane entry of `row`, usable from cycle `ready`.
  virtual void on_backward_output(sim::Engine& engine, std::uint32_t layer, std::uint32_t wf,
                                  std::uint32_t row, ValuesPtr<T> dx, std::uint32_t depth,
                                  sim::Cycle ready) = 0;
};

template <typename T>
class WeightStationaryBlock {
 public:
  WeightStationaryBlock(BlockSpec spec, const sim::Grid& grid, BlockListener<T>& listener);

  // Slices W (d_in x d_out) and b (d_out, or empty) onto the tiles.
  void load_parameters(const sim::Matrix<double>& weights, const std::vector<double>& bias);
  // Records what stays resident on the tiles for a whole step in a fresh engine's ledger: the weight
  // slices, and for schedules that train a gradient accumulator of the same size (category optimizer).
  void record_resident_storage(sim::Engine& engine, bool with_gradients) const;

  // X[:, I_row] of wavefront `wf` is at the lane entry of `row` (now), usable from `ready`.
  [[gnu::flatten]] void enter_lane(sim::Engine& engine, std::uint32_t wf, std::uint32_t row, ValuesPtr<T> x,
                                   std::uint32_t depth, sim::Cycle ready, XStash stash, sim::Phase phase);
  // The input X[:, I_row] that a forward pass under XStash::checkpoint kept on the lane entry of `row`
  // (nullptr in counting mode), released from the ledger when `release` (its last use).
  // Contract: such a checkpoint exists for (wf, row).
  ValuesPtr<T> take_checkpoint(sim::Engine& engine, std::uint32_t wf, std::uint32_t row, bool release);
  // dL/dY[:, J_col] (after this layer's activation) of wavefront `wf` is at output tile `col` (now).
  [[gnu::flatten]] void start_backward(sim::Engine& engine, std::uint32_t wf, std::uint32_t col,
                                       ValuesPtr<T> dy, std::uint32_t depth, sim::Cycle ready);
  // The tangents of the current step (BlockSpec::tangents > 0). Not owned; must outlive the step.
  void set_tangent_source(const TangentSource* source) { m_tangent_source = source; }
  // Delivers a BlockPort message addressed to this block (message.group == layer).
  void on_message(sim::Engine& engine, const sim::Message& message);

  // Assembles the tiles' dW slices (and db) into whole matrices (d_in x d_out, d_out).
  void collect_gradients(sim::Matrix<double>& weights, std::vector<double>& bias) const;
  // Assembles the tiles' weight slices (to check an update, or export).
  void collect_parameters(sim::Matrix<double>& weights, std::vector<double>& bias) const;
  void zero_gradients();

  // The per-wavefront state this block holds now, and the most slots one of its pools made: its memory is
  // bounded by the wavefronts in flight, not by the step's wavefront count.
  SlotCensus wavefront_census() const {
    SlotCensus c;
    c.count(m_first_passes);
    c.count(m_recomputations);
    c.count(m_stashes);
    c.count(m_backward_passes);
    return c;
  }

  // Parameters held by tile `tile_index` (its weight slice, plus its bias slice on an output tile).
  std::uint64_t parameter_count(std::uint32_t tile_index) const;
  const BlockSpec& spec() const { return m_spec; }
  const std::vector<Range>& row_ranges() const { return m_rows; }  // I_i
  const std::vector<Range>& col_ranges() const { return m_cols; }  // J_j
  sim::TileId tile(std::uint32_t i, std::uint32_t j) const { return m_tiles[i * m_spec.layout.cols + j].id; }
  sim::TileId lane_entry_tile(std::uint32_t i) const { return tile(i, m_spec.layout.entry_col()); }
  sim::TileId output_tile(std::uint32_t j) const { return tile(m_spec.layout.output_row(), j); }

  // Per-tile parameter and gradient slices, for the optimizer that runs on each tile.
  struct TileSlice {
    sim::TileId id = 0;
    std::uint32_t row = 0;
    std::uint32_t col = 0;
    sim::Matrix<T> weights;    // W[I_i, J_j]
    std::vector<T> bias;       // b[J_j] on output tiles, else empty
    sim::Matrix<T> grad;       // dW accumulator
    std::vector<T> bias_grad;  // db accumulator (output tiles)
  };
  std::vector<TileSlice>& tiles() { return m_tiles; }
  const std::vector<TileSlice>& tiles() const { return m_tiles; }

 private:
  // Per wavefront and tile, what the two joins of a tile wait for.
  struct Join {
    ValuesPtr<T> mine;      // this tile's own contribution
    ValuesPtr<T> incoming;  // the running sum from upstream
    std::uint32_t depth = 0;
    sim::Cycle ready = 0;
    bool have_mine = false;
    bool have_incoming = false;

    // This tile's own contribution is in (its values, in arithmetic mode, set in `mine` by the caller);
    // true if the join starts holding with it.
    bool add_mine(std::uint32_t stamp, sim::Cycle at) {
      have_mine = true;
      note(stamp, at);
      return !have_incoming;
    }
    // The running sum from upstream arrived; true if the join was holding already (its own share was in).
    bool add_incoming(const sim::PayloadPtr& values, std::uint32_t stamp, sim::Cycle at) {
      if (values) incoming = values_of<T>(values);
      have_incoming = true;
      note(stamp, at);
      return have_mine;
    }
    // Complete: its own share, and the upstream sum unless this tile starts the chain (`first`).
    bool complete(bool first) const { return have_mine && (first || have_incoming); }
    // The sum it passes on (null in counting mode): its own share, plus upstream's unless it is `first`.
    // Read depth and ready, then clear().
    ValuesPtr<T> sum(bool first) { return first ? std::move(mine) : combine(incoming, mine, T{1}); }
    // Back to empty for the next wavefront (cheaper than assigning a fresh Join: no temporaries).
    void clear() {
      mine.reset();
      incoming.reset();
      depth = 0;
      ready = 0;
      have_mine = false;
      have_incoming = false;
    }

   private:
    void note(std::uint32_t stamp, sim::Cycle at) {
      depth = std::max(depth, stamp);
      ready = std::max(ready, at);
    }
  };
  // What a tile's weight gradient dW[I_i, J_j] += X[:, I_i]^T dZ[:, J_j] waits for in a backward pass: both
  // operands, which arrive separately and in either order.
  struct WeightGradientInputs {
    ValuesPtr<T> dz;  // dZ[:, J_j] once it reached this tile
    ValuesPtr<T> x;   // X[:, I_i] from the stash or a rebroadcast
    bool have_dz = false;
    bool have_x = false;
    bool x_from_stash = false;  // this tile's own stash: released once dW is done
    bool x_in_transit = false;  // arrived by rebroadcast before dZ: held as transit storage
    std::uint32_t depth = 0;
    sim::Cycle ready = 0;
    void clear() {
      dz.reset();
      x.reset();
      have_dz = have_x = x_from_stash = x_in_transit = false;
      depth = 0;
      ready = 0;
    }
  };
  // A wavefront's state in this block is held only while it is in flight (WavefrontSlots), in three
  // parts with their own lifetimes; `live` counts what keeps each one held (messages on their way, joins
  // and weight-gradient states partly filled, stash entries), and at zero its slot goes back to the pool.
  struct LaneState {
    ValuesPtr<T> checkpoint_x;    // restart point (XStash::checkpoint)
    bool has_checkpoint = false;  // (payloads are null in counting mode)
  };
  // One forward pass of a wavefront: the first, or a recomputation. The two can overlap in time (a
  // recomputation may start while the first pass's last columns are still on their way), so each has its
  // own joins and its own stash policy.
  struct PassState {
    XStash stash = XStash::none;
    std::uint32_t live = 0;   // messages of this pass on their way, joins holding
    std::vector<Join> joins;  // per tile: the partial-sum join along the column
    void reset() {
      stash = XStash::none;
      live = 0;
    }
  };
  // What forward passes leave for the backward pass: the simulated machine's own stash, held from the
  // forward pass that writes it until the backward pass has read it. Small per wavefront, because many
  // wavefronts hold one at once (about 2L under backprop).
  struct StashState {
    XStash policy = XStash::none;  // of the pass that prepared the backward pass
    std::uint32_t live = 0;        // entries held
    std::vector<ValuesPtr<T>> x;   // per tile: X[:, I_i] (arithmetic mode; counting mode counts only)
    std::vector<ValuesPtr<T>> z;   // per column (output tiles): Z[:, J_j] (arithmetic mode)
    std::vector<LaneState> lanes;  // per row
    void reset() {
      policy = XStash::none;
      live = 0;
    }
  };
  // The backward pass of a wavefront: held only while it runs through this block.
  struct TileBackward {
    Join join;  // dX-share join along the row
    WeightGradientInputs dw_inputs;
  };
  struct BackwardPassState {
    XStash policy = XStash::none;  // the stash's, from the start of the pass
    std::uint32_t live = 0;        // messages on their way, joins and dW states holding
    std::vector<TileBackward> tiles;
    void reset() {
      policy = XStash::none;
      live = 0;
    }
  };

  // A tile's part in the block's flows, worked out once by the constructor and read on the event path: where
  // each of its messages goes (a template of a tile without that neighbour is unused), and its sizes.
  struct TileFlows {
    MessageTemplate lane;         // X[:, I_i] to the next tile of the lane (forward)
    MessageTemplate rebroadcast;  // the same path in the backward pass (XStash::rebroadcast)
    MessageTemplate psum;         // partial sums to the next tile of the column, toward the output row
    MessageTemplate grad_column;  // dZ[:, J_j] back along the column
    MessageTemplate grad_share;   // the share of dX[:, I_i] back along the row, toward the lane entry
    std::uint64_t x_bytes_per_token = 0;  // b_a |I_i|: X[:, I_i] on a link or in a stash
    std::uint64_t y_bytes_per_token = 0;  // b_a |J_j|
    std::uint64_t weight_count = 0;       // |I_i| |J_j|
    bool lane_entry = false;
    bool lane_exit = false;
    bool first_psum_row = false;
    bool output_row = false;
  };
  void build_flows();

  // Whole d_in x d_out and d_out values from one member of every tile's slice (weights or gradients).
  void assemble(sim::Matrix<T> TileSlice::*slice, std::vector<T> TileSlice::*bias_slice,
                sim::Matrix<double>& weights, std::vector<double>& bias) const;
  std::uint32_t local(std::uint32_t i, std::uint32_t j) const { return i * m_spec.layout.cols + j; }
  std::uint32_t tokens(std::uint32_t wf) const { return m_spec.wavefront_tokens[wf]; }
  // Whether the outputs go through a nonlinearity, whose derivative needs Z in the backward pass.
  bool has_nonlinearity() const {
    return m_spec.apply_activation && m_spec.activation != Activation::identity;
  }
  // Wavefront wf's X[:, I_i] and Y[:, J_j] (on a link or in a stash) at tile k = (i, j).
  std::uint64_t x_bytes(std::uint32_t wf, std::uint32_t k) const;
  std::uint64_t y_bytes(std::uint32_t wf, std::uint32_t k) const;
  // Sends wavefront `wf`'s message along `path`, which keeps the pass owning `live` (forward or backward)
  // in flight until delivered, with `values` (null in counting mode).
  void send(sim::Engine& engine, std::uint32_t& live, const MessageTemplate& path, std::uint32_t wf,
            sim::Phase phase, std::uint32_t depth, sim::Cycle depart, const ValuesPtr<T>& values) const {
    ++live;
    const sim::Message m = path.make(wf, tokens(wf), phase, depth);
    if (values)
      engine.send(m, depart, values);
    else
      engine.send(m, depart);
  }
  // The first forward pass, or the recomputations.
  WavefrontSlots<PassState>& passes(sim::Phase phase) {
    return phase == sim::Phase::recompute ? m_recomputations : m_first_passes;
  }
  // Gives `state`'s slot back once nothing keeps it in flight; called at the end of every public entry
  // point. A nested entry point may have given the slot back already (and another wavefront taken it).
  template <typename State>
  static void settle(WavefrontSlots<State>& slots, State& state, std::uint32_t wf) {
    if (state.live == 0 && slots.find(wf) == &state) slots.release(wf);
  }
  // The stash a pass that prepares the backward pass writes to, marked with the pass's policy at every
  // write: the stash can empty and give its slot back while the pass still runs (a block of one row: a
  // column's backward pass reads and releases its inputs before the lane reaches the next column), and the
  // next write takes a fresh slot, which must know the policy too.
  StashState& stash_written_by(std::uint32_t wf, XStash policy) {
    StashState& st = m_stashes.at(wf);
    st.policy = policy;
    return st;
  }
  // The stash a tile's weight gradient reads: held until that gradient is done.
  StashState& held_stash(std::uint32_t wf) {
    StashState* st = m_stashes.find(wf);
    if (st == nullptr) throw std::logic_error("block: a weight gradient without its stash");
    return *st;
  }
  // The stash is emptied by the backward pass's weight gradients (and by the first column's start).
  void settle_stash(std::uint32_t wf) {
    if (StashState* st = m_stashes.find(wf); st != nullptr && st->live == 0) m_stashes.release(wf);
  }

  // Delivery, one handler per BlockPort (on_message dispatches). The entry points of the event path are
  // flattened (everything they call within reach is inlined into them): a block event otherwise crossed
  // four or five calls, each saving and restoring the registers of its many arguments, and that was a
  // fifth of a counting-mode run's instructions (docs/performance.md).
  [[gnu::noinline, gnu::flatten]] void on_lane(sim::Engine& engine, const sim::Message& m);
  [[gnu::noinline, gnu::flatten]] void on_psum(sim::Engine& engine, const sim::Message& m);
  [[gnu::noinline]] void on_tangent_shadow(sim::Engine& engine, const sim::Message& m);
  [[gnu::noinline, gnu::flatten]] void on_grad_column(sim::Engine& engine, const sim::Message& m);
  [[gnu::noinline, gnu::flatten]] void on_grad_share(sim::Engine& engine, const sim::Message& m);
  [[gnu::noinline, gnu::flatten]] void on_rebroadcast(sim::Engine& engine, const sim::Message& m);
  // The tile of local index k (i * cols + j, the slot its messages carry) is the subject of these.
  void receive_lane(sim::Engine& engine, PassState& pass, std::uint32_t wf, std::uint32_t k,
                    const ValuesPtr<T>& x, std::uint32_t depth, sim::Cycle ready, sim::Phase phase);
  void join_forward(sim::Engine& engine, PassState& pass, std::uint32_t wf, std::uint32_t k,
                    sim::Phase phase);
  void finish_column(sim::Engine& engine, PassState& pass, std::uint32_t wf, std::uint32_t j,
                     const ValuesPtr<T>& sum, std::uint32_t depth, sim::Cycle ready, sim::Phase phase);
  void finish_tangent_column(sim::Engine& engine, PassState& pass, std::uint32_t wf, std::uint32_t j,
                             const ValuesPtr<T>& sum, std::uint32_t depth, sim::Cycle ready,
                             sim::Phase phase);
  // The arithmetic (arithmetic mode only), one named step each and out of line, so that the flattened
  // event handlers do not inline it into the counting-mode path.
  // X W (and the tangent products) of tile k: its contribution to the column's partial sums.
  [[gnu::noinline]] ValuesPtr<T> partial_product(std::uint32_t wf, std::uint32_t k,
                                                 const sim::Matrix<T>& x) const;
  // An output tile's column: act(Z) with Z = sum + b, keeping Z in `stash` (if not null) for the backward
  // pass.
  [[gnu::noinline]] ValuesPtr<T> output_values(const TileSlice& t, const sim::Matrix<T>& sum, bool nonlinear,
                                               StashState* stash, std::uint32_t j) const;
  // dZ = dY * act'(Z).
  [[gnu::noinline]] ValuesPtr<T> through_activation(const sim::Matrix<T>& dy, const sim::Matrix<T>& z) const;
  [[gnu::noinline]] static void add_bias_gradient(TileSlice& t, const sim::Matrix<T>& dz);
  // dZ W^T: the tile's share of dX[:, I_i].
  [[gnu::noinline]] static ValuesPtr<T> input_gradient_share(const TileSlice& t, const sim::Matrix<T>& dz);
  // Adds X V_k (X: the primal rows of `x`) to tangent k's rows of `partial`, for every k.
  void add_tangent_products(std::uint32_t wf, std::uint32_t i, std::uint32_t j, const sim::Matrix<T>& x,
                            sim::Matrix<T>& partial) const;
  // Counts the tangent streams that ride with wavefront `wf`'s forward message along `path`.
  void send_tangent_shadow(sim::Engine& engine, std::uint32_t& live, const MessageTemplate& path,
                           std::uint32_t wf, sim::Phase phase, std::uint32_t depth, sim::Cycle ready) const;
  void receive_dz(sim::Engine& engine, BackwardPassState& bp, std::uint32_t wf, std::uint32_t k,
                  const ValuesPtr<T>& dz, std::uint32_t depth, sim::Cycle ready);
  void receive_rebroadcast(sim::Engine& engine, BackwardPassState& bp, std::uint32_t wf, std::uint32_t k,
                           const ValuesPtr<T>& x, std::uint32_t depth, sim::Cycle ready);
  void try_weight_gradient(sim::Engine& engine, BackwardPassState& bp, std::uint32_t wf, std::uint32_t k);
  void join_backward(sim::Engine& engine, BackwardPassState& bp, std::uint32_t wf, std::uint32_t k);

  BlockSpec m_spec;
  BlockListener<T>& m_listener;
  std::vector<Range> m_rows;
  std::vector<Range> m_cols;
  std::vector<TileSlice> m_tiles;
  std::vector<TileFlows> m_flows;  // per tile, as m_tiles
  WavefrontSlots<PassState> m_first_passes;
  WavefrontSlots<PassState> m_recomputations;
  WavefrontSlots<StashState> m_stashes;
  WavefrontSlots<BackwardPassState> m_backward_passes;
  const TangentSource* m_tangent_source = nullptr;
};

extern template class WeightStationaryBlock<float>;
extern template class WeightStationaryBlock<double>;

}  // namespace spatialsim::mappings
