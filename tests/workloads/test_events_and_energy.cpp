// Events and energy (MODEL.md section 3) for every schedule, against formulas on odd, non-dividing sizes.
//
// Events are the deliveries the engine processes: one per message and one per timer (docs/model.md section 2,
// docs/hdf5.md). The messages of a step are counted here from the structure of each pass (MODEL.md section 4,
// docs/model.md sections 3 and 7, docs/reversible.md, docs/forward-gradients.md): per wavefront, r (c - 1)
// lane hops and c (r - 1) partial-sum hops per layer and pass, one message per piece of a layer boundary, the
// host's inputs and targets, recomputation's restart signals, the tangent companions; per step, the K
// scalars' trees. The timers are one injection per wavefront and, for a schedule that trains, one update per
// tile of every layer. The byte-hops of the same messages are summed beside them, so that the event count is
// checked against traffic that is itself right.
//
// Energy is byte_hops x e_hop + sram_bytes x e_sram + flops x e_flop, each term from the formulas (not from
// the run's counters), read from the results file the binary writes: prices set in the config, the named
// presets' prices (docs/model.md: dally2023 0.4, 1, 0.1 pJ; dally2022 0.12, 1, 0.1 pJ) and a preset with one
// price overridden.
//
// Only the placement (where each block sits and which way it flows) and the machine's sizes are taken from
// the setup; the splits, pieces and distances are tests/workloads/layout_formulas.h's or worked out here,
// never mappings/'s (split, plan_redistribution, scalar_tree, revolve's plan) or the grid's routes.
#include <H5Cpp.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <ostream>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "tests/cli/binary_run_fixture.h"
#include "tests/test_names.h"
#include "tests/workloads/layout_formulas.h"
#include "tests/workloads/network_test_support.h"

namespace spatialsim::workloads {
namespace {

using testing_support::config_with;
using testing_support::manhattan;
using testing_support::run_with;

// Per step: byte-hops and messages.
struct Count {
  std::uint64_t byte_hops = 0, messages = 0;
  Count& operator+=(const Count& o) {
    byte_hops += o.byte_hops;
    messages += o.messages;
    return *this;
  }
};

// The inputs the formulas read: sizes from the setup, the schedules' options from the configuration.
struct Step {
  Step(const sim::Config& config, const RunSetup& s)
      : setup(s),
        blocks(s.placement.blocks),
        T(s.tokens),
        G((s.tokens + s.tokens_per_wavefront - 1) / s.tokens_per_wavefront),
        b_a(s.bytes.activation),
        b_p(s.bytes.partial_sum),
        b_w(s.bytes.weight),
        cross_entropy(config.raw("model.loss") == "cross-entropy"),
        K(config.get_uint("fg.tangents")),
        split(static_cast<std::uint32_t>(config.get_uint("splitfg.split"))),  // every case sets it
        segment(static_cast<std::uint32_t>(config.get_uint("checkpoint.segment"))),
        slots(static_cast<std::uint32_t>(config.get_uint("revolve.slots"))),
        rebroadcast(config.raw("backprop.xstash") == "rebroadcast") {}
  // Checkpoint segments: checkpoint.segment layers, round(sqrt(L)) when 0.
  std::uint32_t segment_length() const {
    const double L = setup.model.layers();
    return segment != 0 ? segment : static_cast<std::uint32_t>(std::lround(std::sqrt(L)));
  }
  const RunSetup& setup;
  const std::vector<mappings::BlockLayout>& blocks;
  const std::uint64_t T, G, b_a, b_p, b_w;
  const bool cross_entropy;
  const std::uint64_t K;
  const std::uint32_t split, segment, slots;
  const bool rebroadcast;
};

std::uint64_t row_hops(const mappings::BlockLayout& b) {
  return b.rows * (b.cols - 1);
}
std::uint64_t column_hops(const mappings::BlockLayout& b) {
  return b.cols * (b.rows - 1);
}

// ---- MLP schedules ----

class Mlp {
 public:
  explicit Mlp(const Step& s)
      : m(s), f(testing_support::forward_traffic(s.setup)), L(s.setup.model.layers()) {}

  // Per-token byte-hops and per-wavefront messages (layout_formulas.h's convention) to a step's.
  Count step(const testing_support::Traffic& t) const { return {m.T * t.byte_hops, m.G * t.messages}; }

  // A forward pass: lanes, partial sums, boundaries, the host; cross-entropy's log-sum-exp chain along the
  // last layer's output tiles, there and back, one b_p-byte value per token and hop (docs/model.md section 5;
  // the output row of a block is a line of neighbours).
  Count forward() const {
    Count c = step(f.host);
    for (std::uint32_t l = 0; l < L; ++l)
      c += step(f.lanes[l]), c += step(f.psums[l]), c += step(f.boundary[l]);
    if (m.cross_entropy)
      c += {2 * m.b_p * m.T * (m.blocks[L - 1].cols - 1), 2 * m.G * (m.blocks[L - 1].cols - 1)};
    return c;
  }
  // Backprop's backward pass through layers [first, L): dZ down each column, b_a T d_out (r - 1); the dX
  // shares along each row, b_p T d_in (c - 1), and the dX pieces back over boundary l - 1, for every layer
  // but the network's first (nobody needs the data's gradient).
  Count backward(std::uint32_t first) const {
    const std::vector<std::uint32_t>& w = m.setup.model.widths;
    Count c;
    for (std::uint32_t l = first; l < L; ++l) {
      const mappings::BlockLayout& b = m.blocks[l];
      c += {m.b_a * m.T * w[l + 1] * (b.rows - 1), m.G * column_hops(b)};
      if (l == 0) continue;
      c += {m.b_p * m.T * w[l] * (b.cols - 1), m.G * row_hops(b)};
      c += step(f.boundary[l - 1]);
    }
    return c;
  }
  // backprop.xstash = rebroadcast: each lane entry sends its X along its row again, as the forward lane.
  Count rebroadcast() const {
    Count c;
    for (std::uint32_t l = 0; l < L; ++l) c += step(f.lanes[l]);
    return c;
  }
  // One recomputation episode per wavefront: layers [from, to] forward again from the checkpoint on `from`'s
  // lane entries (the boundaries inside the episode only), started by one b_p-byte signal to each of those
  // lane entries from `to`'s restart column: the output column with the fewest signal hops in all (the lowest
  // on a tie), fixed before the run (docs/model.md section 7).
  Count episode(std::uint32_t from, std::uint32_t to) const {
    Count c;
    for (std::uint32_t l = from; l <= to; ++l) {
      c += step(f.lanes[l]), c += step(f.psums[l]);
      if (l < to) c += step(f.boundary[l]);
    }
    std::uint64_t nearest = UINT64_MAX;
    for (std::uint32_t j = 0; j < m.blocks[to].cols; ++j) {
      std::uint64_t hops = 0;
      for (std::uint32_t i = 0; i < m.blocks[from].rows; ++i)
        hops += manhattan(m.blocks[to].output_tile(j), m.blocks[from].lane_entry(i));
      nearest = std::min(nearest, hops);
    }
    c += {m.G * m.b_p * nearest, m.G * m.blocks[from].rows};
    return c;
  }
  // checkpoint: every segment of s layers (s = round(sqrt(L)) when 0) rebuilt once from its first layer.
  Count checkpoint_recompute() const {
    const std::uint32_t s = m.segment_length();
    Count c;
    for (std::uint32_t first = 0; first < L; first += s) c += episode(first, std::min(first + s, L) - 1);
    return c;
  }
  // revolve with one slot (the input): the first pass keeps the last layer's stash, and every other layer t =
  // 0..L-2 is rebuilt from the input, layers 0..t: p(L, 1) = 0 + 1 + ... + (L - 1) layers.
  Count revolve_one_slot_recompute() const {
    Count c;
    for (std::uint32_t t = 0; t + 1 < L; ++t) c += episode(0, t);
    return c;
  }
  // The K tangent streams of a trunk of S layers ride every forward message of it as one companion of K times
  // the primal's bytes: lanes (not layer 0's: the input has no tangents), partial sums, and the boundaries
  // between trunk layers.
  Count tangents(std::uint32_t S) const {
    Count c;
    for (std::uint32_t l = 0; l < S; ++l) {
      if (l > 0) c += step(f.lanes[l]);
      c += step(f.psums[l]);
      if (l + 1 < S) c += step(f.boundary[l]);
    }
    c.byte_hops *= m.K;
    return c;
  }
  // The K scalars, once per step, over docs/forward-gradients.md's trees (K b_p bytes per message).
  Count scalar_trees(std::uint32_t S) const {
    const testing_support::TreeCount t = testing_support::scalar_trees(m.blocks, S);
    return {m.K * m.b_p * t.hops, t.messages};
  }

  Count traffic(const std::string& schedule) const {
    Count c = forward();
    if (schedule == "backprop") c += backward(0);
    if (schedule == "backprop" && m.rebroadcast) c += rebroadcast();
    if (schedule == "checkpoint") c += backward(0), c += checkpoint_recompute();
    if (schedule == "revolve") c += backward(0), c += revolve_one_slot_recompute();
    if (schedule == "forward-gradient") c += tangents(L), c += scalar_trees(L);
    if (schedule == "split-fg") c += tangents(m.split), c += backward(m.split), c += scalar_trees(m.split);
    return c;
  }

 private:
  const Step& m;
  const testing_support::ForwardTraffic f;
  const std::uint32_t L;
};

// ---- The reversible schedule (docs/reversible.md) ----

// The 2L + 2 dense layers in placement order: entry (0), F_k (2k - 1), G_k (2k), exit (2L + 1). Trunk values
// a_k, b_k of h = d/2 features have homes: F_k's (G_k's) output tiles; a_0 and b_0 the entry's, features 0..h
// and h..d of its output. Each edge moves a value's elements from their home to a layer's lanes or output
// tiles: one message per (source tile, destination tile) pair that shares elements, as many hops as the two
// tiles are apart.
class Reversible {
 public:
  Reversible(const Step& s, const sim::Config& config)
      : m(s),
        L(static_cast<std::uint32_t>(config.get_uint("model.depth"))),
        d(static_cast<std::uint32_t>(config.get_uint("model.width"))),
        h(d / 2) {
    d_in = {static_cast<std::uint32_t>(config.get_uint("model.inputs"))};
    d_out = {d};
    for (std::uint32_t l = 0; l < 2 * L; ++l) d_in.push_back(h), d_out.push_back(h);
    d_in.push_back(d), d_out.push_back(static_cast<std::uint32_t>(config.get_uint("model.outputs")));
  }

  Count traffic(const std::string& schedule) const {
    const std::uint32_t exit = 2 * L + 1;
    Count c;
    // Host: the entry's lanes, the exit's output tiles.
    for (std::uint32_t e = 0; e < d_in[0]; ++e) c.byte_hops += m.b_a * m.T * host(lane(0, e));
    for (std::uint32_t e = 0; e < d_out[exit]; ++e) c.byte_hops += m.b_a * m.T * host(out(exit, e));
    c.messages += m.G * (m.blocks[0].rows + m.blocks[exit].cols);
    if (m.cross_entropy)
      c += {2 * m.b_p * m.T * (m.blocks[exit].cols - 1), 2 * m.G * (m.blocks[exit].cols - 1)};
    for (std::uint32_t l = 0; l <= exit; ++l) c += layer(l, true);  // forward lanes and partial sums
    c += every_edge();
    if (schedule != "reversible") return c;
    // Backward: dZ down the columns of every layer, the dX shares along the rows of all but the entry, and
    // every edge reversed.
    for (std::uint32_t l = 0; l <= exit; ++l) c += layer(l, false);
    c += every_edge();
    // Recompute, block k = L..1: G_k and F_k forward again; a_k to G_k's lanes; b_{k-1} from G_k's output
    // tiles home and on to F_k's lanes; a_{k-1} from F_k's output tiles home (k >= 2: nobody needs a_0).
    for (std::uint32_t k = 1; k <= L; ++k) {
      c += layer(2 * k - 1, true), c += layer(2 * k, true);
      c += edge([&](std::uint32_t e) { return home(true, k, e); },
                [&](std::uint32_t e) { return lane(2 * k, e); });
      c += edge([&](std::uint32_t e) { return out(2 * k, e); },
                [&](std::uint32_t e) { return home(false, k - 1, e); });
      c += edge([&](std::uint32_t e) { return home(false, k - 1, e); },
                [&](std::uint32_t e) { return lane(2 * k - 1, e); });
      if (k >= 2)
        c += edge([&](std::uint32_t e) { return out(2 * k - 1, e); },
                  [&](std::uint32_t e) { return home(true, k - 1, e); });
    }
    return c;
  }

 private:
  using Where = std::function<sim::Coord(std::uint32_t)>;
  // Element e of n split over k parts (MODEL.md section 4: the first n % k parts one larger).
  static std::uint32_t part(std::uint32_t e, std::uint32_t n, std::uint32_t k) {
    const auto sizes = testing_support::split_sizes(n, k);
    std::uint32_t p = 0;
    for (std::uint32_t begin = 0; e >= begin + sizes[p]; ++p) begin += sizes[p];
    return p;
  }
  sim::Coord lane(std::uint32_t l, std::uint32_t e) const {
    return m.blocks[l].lane_entry(part(e, d_in[l], m.blocks[l].rows));
  }
  sim::Coord out(std::uint32_t l, std::uint32_t e) const {
    return m.blocks[l].output_tile(part(e, d_out[l], m.blocks[l].cols));
  }
  sim::Coord home(bool a, std::uint32_t k, std::uint32_t e) const {
    if (k == 0) return out(0, a ? e : h + e);
    return out(a ? 2 * k - 1 : 2 * k, e);
  }
  std::uint64_t host(sim::Coord t) const { return testing_support::host_hops(m.setup, t); }
  // One layer's own hops: forward lanes and partial sums, or backward dZ and dX shares (not the entry's).
  Count layer(std::uint32_t l, bool forward) const {
    const mappings::BlockLayout& b = m.blocks[l];
    if (forward)
      return {m.T * (m.b_a * d_in[l] * (b.cols - 1) + m.b_p * d_out[l] * (b.rows - 1)),
              m.G * (row_hops(b) + column_hops(b))};
    Count c{m.T * m.b_a * d_out[l] * (b.rows - 1), m.G * column_hops(b)};
    if (l > 0) c += {m.T * m.b_p * d_in[l] * (b.cols - 1), m.G * row_hops(b)};
    return c;
  }
  Count edge(const Where& from, const Where& to) const {
    std::set<std::pair<std::pair<std::int32_t, std::int32_t>, std::pair<std::int32_t, std::int32_t>>> pairs;
    Count c;
    for (std::uint32_t e = 0; e < h; ++e) {
      const sim::Coord a = from(e), b = to(e);
      c.byte_hops += m.b_a * m.T * manhattan(a, b);
      pairs.insert({{a.x, a.y}, {b.x, b.y}});
    }
    c.messages = m.G * pairs.size();
    return c;
  }
  // Every edge of the forward pass once: b_{k-1} -> F_k's lanes, a_k -> G_k's lanes, the skips a_{k-1} ->
  // F_k's and b_{k-1} -> G_k's output tiles, and a_L, b_L -> the exit's lanes (b_L after a_L's h).
  Count every_edge() const {
    Count c;
    for (std::uint32_t k = 1; k <= L; ++k) {
      c += edge([&](std::uint32_t e) { return home(false, k - 1, e); },
                [&](std::uint32_t e) { return lane(2 * k - 1, e); });
      c += edge([&](std::uint32_t e) { return home(true, k, e); },
                [&](std::uint32_t e) { return lane(2 * k, e); });
      c += edge([&](std::uint32_t e) { return home(true, k - 1, e); },
                [&](std::uint32_t e) { return out(2 * k - 1, e); });
      c += edge([&](std::uint32_t e) { return home(false, k - 1, e); },
                [&](std::uint32_t e) { return out(2 * k, e); });
    }
    c += edge([&](std::uint32_t e) { return home(true, L, e); },
              [&](std::uint32_t e) { return lane(2 * L + 1, e); });
    c += edge([&](std::uint32_t e) { return home(false, L, e); },
              [&](std::uint32_t e) { return lane(2 * L + 1, h + e); });
    return c;
  }

  const Step& m;
  const std::uint32_t L, d, h;
  std::vector<std::uint32_t> d_in, d_out;
};

// ---- Events ----

struct EventCase {
  std::string label;
  std::string schedule;
  std::vector<std::string> overrides;
};

void PrintTo(const EventCase& c, std::ostream* os) {
  *os << c.schedule;
  for (const std::string& o : c.overrides) *os << " " << o;
}

const std::vector<std::string> kOdd = {
    "--model.widths=11,13,10,7,9", "--mapping.block=2x3", "--step.tokens=23",
    "--step.wavefront=5",          "--fg.tangents=3",     "--splitfg.split=2",
    "--machine.psum_bytes=3",      "--model.loss=mse",    "--sim.arith=none"};
const std::vector<std::string> kRowMajor = {"--model.widths=9,7,12,5,8,6",
                                            "--mapping.block=3x2",
                                            "--mapping.placement=rowmajor",
                                            "--step.tokens=17",
                                            "--step.wavefront=4",
                                            "--fg.tangents=2",
                                            "--splitfg.split=3",
                                            "--machine.act_bytes=3",
                                            "--model.loss=cross-entropy",
                                            "--train.steps=2",
                                            "--sim.arith=none"};
const std::vector<std::string> kReversible = {
    "--model.kind=reversible", "--model.inputs=7",    "--model.width=10", "--model.depth=3",
    "--model.outputs=5",       "--mapping.block=3x2", "--step.tokens=13", "--step.wavefront=4",
    "--machine.psum_bytes=4",  "--sim.arith=none"};
const std::vector<std::string> kReversibleRowMajor = {"--model.kind=reversible",
                                                      "--model.inputs=9",
                                                      "--model.width=14",
                                                      "--model.depth=2",
                                                      "--model.outputs=3",
                                                      "--mapping.block=2x3",
                                                      "--mapping.placement=rowmajor",
                                                      "--step.tokens=11",
                                                      "--step.wavefront=3",
                                                      "--machine.act_bytes=3",
                                                      "--model.loss=cross-entropy",
                                                      "--train.steps=2",
                                                      "--sim.arith=none"};

EventCase with(std::string label, std::string schedule, std::vector<std::string> base,
               const std::vector<std::string>& more = {}) {
  base.insert(base.end(), more.begin(), more.end());
  return {std::move(label), std::move(schedule), std::move(base)};
}

class Events : public ::testing::TestWithParam<EventCase> {};

// events = messages + timers, per step: the messages counted above, one injection timer per wavefront, and,
// for a schedule that trains, one update timer per tile of every layer (docs/model.md section 6: "every tile
// of every layer applies the optimizer"; a tile shared by two pipeline-stage layers counts twice, as the
// simulator does). No other timer: compute time and finite links delay deliveries without adding any (the
// cases with machine.flops_per_cycle or link_bytes_per_cycle set).
TEST_P(Events, AreTheFormulasMessagesPlusOneTimerPerWavefrontAndPerTileUpdate) {
  const EventCase& c = GetParam();
  const sim::Config config = config_with(c.overrides);
  const RunSetup setup = setup_from_config(config);
  const Step step(config, setup);
  if (c.schedule == "revolve") {
    ASSERT_EQ(step.slots, 1u) << "the formula knows revolve's one-slot plan only";
  }
  const Count traffic = config.raw("model.kind") == "reversible"
                            ? Reversible(step, config).traffic(c.schedule)
                            : Mlp(step).traffic(c.schedule);
  std::uint64_t timers = step.G;
  if (c.schedule != "forward")
    for (const mappings::BlockLayout& b : setup.placement.blocks) timers += std::uint64_t{b.rows} * b.cols;

  const RunResult r = run_with(c.overrides, c.schedule);
  const std::uint64_t steps = setup.steps;
  EXPECT_EQ(r.counters.byte_hops.total(), steps * traffic.byte_hops);
  EXPECT_EQ(r.counters.messages.total(), steps * traffic.messages);
  EXPECT_EQ(r.counters.events, steps * (traffic.messages + timers));
}

INSTANTIATE_TEST_SUITE_P(
    EverySchedule, Events,
    ::testing::Values(
        with("forward", "forward", kOdd), with("forward_ce", "forward", kRowMajor),
        with("backprop", "backprop", kOdd),
        with("backprop_rebroadcast_ce", "backprop", kRowMajor, {"--backprop.xstash=rebroadcast"}),
        with("backprop_stages2", "backprop", kOdd, {"--mapping.stages=2"}),
        with("checkpoint_s2", "checkpoint", kOdd, {"--checkpoint.segment=2"}),
        with("checkpoint_default_ce", "checkpoint", kRowMajor),
        with("checkpoint_s1_compute_time", "checkpoint", kOdd,
             {"--checkpoint.segment=1", "--machine.flops_per_cycle=7"}),
        with("checkpoint_s3_stages2", "checkpoint", kOdd, {"--checkpoint.segment=3", "--mapping.stages=2"}),
        with("revolve_1", "revolve", kOdd, {"--revolve.slots=1"}),
        with("revolve_1_ce_links", "revolve", kRowMajor,
             {"--revolve.slots=1", "--machine.link_bytes_per_cycle=3"}),
        with("reversible", "reversible", kReversible),
        with("reversible_rowmajor_ce_links", "reversible", kReversibleRowMajor,
             {"--machine.link_bytes_per_cycle=2"}),
        with("forward_reversible", "forward", kReversible),
        with("forward_gradient", "forward-gradient", kOdd),
        with("forward_gradient_ce", "forward-gradient", kRowMajor),
        with("forward_gradient_stages2", "forward-gradient", kOdd, {"--mapping.stages=2"}),
        with("split_fg", "split-fg", kOdd),
        with("split_fg_ce_compute_time", "split-fg", kRowMajor, {"--machine.flops_per_cycle=5"}),
        with("split_fg_1x3_s1", "split-fg",
             {"--model.widths=10,9,11,6", "--mapping.block=1x3", "--step.tokens=11", "--step.wavefront=4",
              "--fg.tangents=4", "--splitfg.split=1", "--model.loss=mse", "--sim.arith=none"})),
    [](const auto& param_info) { return testing_support::gtest_name(param_info.param.label); });

// ---- Energy ----

// SRAM bytes and FLOPs of a step of checkpoint and split-fg (docs/model.md section 2's rows, bias on, an
// activation other than identity after every layer but the last, sgd), F_l = 2 T d_in d_out, P the parameters
// of a range of layers.
struct Work {
  std::uint64_t sram = 0, flops = 0;
};

Work work(const Step& m, const std::string& schedule) {
  const std::vector<std::uint32_t>& w = m.setup.model.widths;
  const std::uint32_t L = m.setup.model.layers();
  auto F = [&](std::uint32_t l) { return 2 * m.T * w[l] * w[l + 1]; };
  auto parameters = [&](std::uint32_t first, std::uint32_t last) {
    std::uint64_t p = 0;
    for (std::uint32_t l = first; l < last; ++l) p += std::uint64_t{w[l]} * w[l + 1] + w[l + 1];
    return p;
  };
  const std::uint64_t weights_per_pass = m.G * m.b_w * parameters(0, L);  // read once per wavefront
  auto x_everywhere = [&](std::uint32_t l) { return m.b_a * m.T * w[l] * m.blocks[l].cols; };
  auto z = [&](std::uint32_t l) { return l + 1 < L ? m.b_a * m.T * w[l + 1] : 0; };
  Work k;
  k.sram = 3 * m.b_w * parameters(0, L);  // the update: parameter and gradient read, parameter written
  k.flops = 2 * parameters(0, L);
  if (schedule == "checkpoint") {
    // Forward: weights, and the checkpoints (the first layer of each segment, on its lane entries).
    // Recompute: weights again, each checkpoint read back, backprop's stash (X on every tile, Z). Backward:
    // backprop's. FLOPs: every layer forward twice, backward dX (not layer 0) and dW.
    const std::uint32_t s = m.segment_length();
    k.sram += 2 * weights_per_pass + testing_support::backprop_backward_sram(m.setup, m.T, m.G);
    for (std::uint32_t l = 0; l < L; ++l) {
      if (l % s == 0) k.sram += 2 * m.b_a * m.T * w[l];
      k.sram += x_everywhere(l) + z(l);
      k.flops += 2 * F(l) + (l > 0 ? 2 : 1) * F(l);
    }
  } else {  // split-fg, split S: trunk 0..S-1, head S..L-1
    // Forward: weights; the K tangents dh_k written at the split; the head's stash (X on every tile, Z).
    // Backward: the dh_k read back, the estimate's accumulator read and written (2 b_w per trunk parameter),
    // the head's backprop. FLOPs: trunk (1 + 2K) F_l, layer 0 (1 + K) F_0, head F_l forward; backward the
    // head's dX and dW, the shares <u, dh_k> (2 K T d_S) and the estimate (2 K per trunk parameter).
    const std::uint32_t S = m.split;
    const std::uint64_t dh = m.K * m.b_a * m.T * w[S];
    k.sram += weights_per_pass + 2 * dh + 2 * m.b_w * parameters(0, S) +
              testing_support::backprop_backward_sram(m.setup, m.T, m.G, S);
    k.flops += 2 * m.K * m.T * w[S] + 2 * m.K * parameters(0, S);
    for (std::uint32_t l = 0; l < L; ++l) {
      if (l >= S) {
        k.sram += x_everywhere(l) + z(l);
        k.flops += 3 * F(l);
      } else {
        k.flops += (l == 0 ? 1 + m.K : 1 + 2 * m.K) * F(l);
      }
    }
  }
  return k;
}

struct Prices {
  std::string options;  // on the command line
  std::string preset;
  double hop_pj, sram_pj, flop_pj;
};

void PrintTo(const Prices& p, std::ostream* os) {
  *os << "'" << p.options << "'";
}

class Energy : public cli::testing::BinaryRunTest, public ::testing::WithParamInterface<Prices> {};

// widths 9 -> 7 -> 12 -> 5 -> 8 -> 6 on 3x2 blocks in rowmajor cells, T = 17 in wavefronts of 4 (the last of
// 1 token), b_a = 3, b_p = 2, b_w = 4, K = 2, split after layer 3, checkpoint segments of 2 (layers {0, 1},
// {2, 3}, {4}), two steps; mse (the cross-entropy chain is the Events cases').
const std::vector<std::string> kEnergyOdd = {"--model.widths=9,7,12,5,8,6",
                                             "--mapping.block=3x2",
                                             "--mapping.placement=rowmajor",
                                             "--step.tokens=17",
                                             "--step.wavefront=4",
                                             "--fg.tangents=2",
                                             "--splitfg.split=3",
                                             "--checkpoint.segment=2",
                                             "--machine.act_bytes=3",
                                             "--machine.psum_bytes=2",
                                             "--machine.weight_bytes=4",
                                             "--model.loss=mse",
                                             "--train.steps=2",
                                             "--sim.arith=none"};

double read_double(const H5::H5File& in, const std::string& dataset) {
  return analysis::testing::read_all<double>(in.openDataSet(dataset), H5::PredType::NATIVE_DOUBLE).at(0);
}
std::uint64_t read_count(const H5::H5File& in, const std::string& dataset) {
  return analysis::testing::read_all<std::uint64_t>(in.openDataSet(dataset), H5::PredType::NATIVE_UINT64)
      .at(0);
}

// The run command's results file: each schedule's three terms are its formula byte-hops, SRAM bytes and FLOPs
// at the prices the configuration gives, and energy_pj is their sum; the prices used are recorded.
TEST_P(Energy, EachTermIsTheFormulaCountAtTheConfiguredPrice) {
  const Prices& p = GetParam();
  std::string args = "run --schedule=split-fg,checkpoint --out=e.h5 " + p.options;
  for (const std::string& o : kEnergyOdd) args += " " + o;
  const cli::testing::BinaryRun binary = run(args);
  ASSERT_EQ(binary.exit_code, 0) << binary.err << binary.out;

  const sim::Config config = config_with(kEnergyOdd);
  const RunSetup setup = setup_from_config(config);
  const Step step(config, setup);
  H5::H5File in(path("e.h5"), H5F_ACC_RDONLY);
  EXPECT_EQ(analysis::testing::read_string_attribute(in, "energy_preset"), p.preset);
  EXPECT_EQ(analysis::testing::read_attribute<double>(in, "energy_hop_pj", H5::PredType::NATIVE_DOUBLE),
            p.hop_pj);
  EXPECT_EQ(analysis::testing::read_attribute<double>(in, "energy_sram_pj", H5::PredType::NATIVE_DOUBLE),
            p.sram_pj);
  EXPECT_EQ(analysis::testing::read_attribute<double>(in, "energy_flop_pj", H5::PredType::NATIVE_DOUBLE),
            p.flop_pj);
  for (const std::string schedule : {"split-fg", "checkpoint"}) {
    const std::uint64_t steps = setup.steps;
    const std::uint64_t byte_hops = steps * Mlp(step).traffic(schedule).byte_hops;
    const Work w = work(step, schedule);
    const std::string g = "/runs/" + schedule + "/";
    // The counts first, so that a wrong energy is told apart from a wrong count.
    EXPECT_EQ(read_count(in, g + "byte_hops"), byte_hops) << schedule;
    EXPECT_EQ(read_count(in, g + "sram_bytes"), steps * w.sram) << schedule;
    EXPECT_EQ(read_count(in, g + "flops"), steps * w.flops) << schedule;
    const double hop = static_cast<double>(byte_hops) * p.hop_pj;
    const double sram = static_cast<double>(steps * w.sram) * p.sram_pj;
    const double flop = static_cast<double>(steps * w.flops) * p.flop_pj;
    EXPECT_DOUBLE_EQ(read_double(in, g + "energy_hop_pj"), hop) << schedule;
    EXPECT_DOUBLE_EQ(read_double(in, g + "energy_sram_pj"), sram) << schedule;
    EXPECT_DOUBLE_EQ(read_double(in, g + "energy_flop_pj"), flop) << schedule;
    EXPECT_DOUBLE_EQ(read_double(in, g + "energy_pj"), hop + sram + flop) << schedule;
  }
}

INSTANTIATE_TEST_SUITE_P(
    PricesAndPresets, Energy,
    ::testing::Values(Prices{"", "dally2023", 0.4, 1.0, 0.1},
                      Prices{"--energy.hop_pj=0.7 --energy.sram_pj=2 --energy.flop_pj=0.3", "dally2023", 0.7,
                             2.0, 0.3},
                      Prices{"--energy.preset=dally2022", "dally2022", 0.12, 1.0, 0.1},
                      Prices{"--energy.preset=dally2022 --energy.sram_pj=2.5", "dally2022", 0.12, 2.5, 0.1}),
    [](const auto& param_info) {
      const std::string& o = param_info.param.options;
      return testing_support::gtest_name(param_info.param.preset +
                                         (o.find("_pj") == std::string::npos ? "" : "_overridden"));
    });

}  // namespace
}  // namespace spatialsim::workloads
