// Cannon's matrix multiplication C = A B of two m x m matrices held one element per tile: A(i,j) and
// B(i,j) start on tile (x = j, y = i), and C(i,j) ends there.
// - Skew: A(i,j) moves to column (j - i) mod m of its row, B(i,j) to row (i - j) mod m of its column, one
//   message each (kind `redistribution`: data moved into the algorithm's layout).
// - Then m steps: every tile multiplies the A and B it holds into its C; after each of the first m - 1
//   steps it passes A one tile west and B one tile north, cyclically (kind `lane`: operands streaming past
//   the tiles). On a mesh the wrap-around shift travels the whole row or column (m - 1 hops); on a torus it
//   takes the wrap link (1 hop).
// Tiles run asynchronously: a tile does step k once it holds A and B for step k, whatever its neighbours
// are doing, so messages carry their step number (`serial`) and wait until their step comes.
//
// How far ahead of its tile an operand can arrive. Step k on tile p needs step k - 1 done on p, on its east
// neighbour (which sends p's A for step k) and on its south neighbour (B for step k). The east neighbour's
// own dependence on p goes once round the row, m - 1 such links, so it can run up to m - 1 steps ahead of p
// and an operand can arrive for any step from p's next one to m - 1: no bound below m holds for every
// timing, and a slot for every step would take 2 m^3 of them. The timing keeps it far smaller (measured,
// docs/kernels.md "Cannon's memory"): with unlimited link bandwidth every operand arrives for the step its
// tile does next; with finite bandwidth the skew's messages queue on the links, a few tiles get their first
// operands late while their neighbours stream on, and those tiles collect operands up to about m/2 steps
// ahead, about m^2 of them in all at the peak. So each tile keeps a ring of two slots per operand (its next
// step and the one after), and an operand for a step beyond the ring waits in a map (m_ahead) until its step
// enters the ring: memory O(m^2) plus the operands that have actually arrived early.
#include <algorithm>
#include <cmath>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "kernels/kernel_base.h"
#include "sim/matrix.h"

namespace spatialsim::kernels {
namespace {

constexpr std::string_view kName = "cannon";
constexpr std::string_view kDescription =
    "Cannon's C = A B, m x m, one element per tile: skew, then m - 1 shift-multiply-accumulate steps";

constexpr std::uint32_t kPortA = 0;
constexpr std::uint32_t kPortB = 1;

// One operand waiting for the step that uses it.
struct Slot {
  double value = 0.0;
  std::uint32_t stamp = 0;
  bool present = false;
};
static_assert(sizeof(Slot) == 16);

// Ring slots per tile and operand: the tile's next step and the one after.
constexpr std::uint32_t kRing = 2;

// The memory a cannon run may take, engine included (see Cannon::validate).
constexpr std::uint64_t kMaxBytes = std::uint64_t{3} << 29;  // 1.5 GiB
// Peak resident bytes per tile of a cannon run, engine included, with a margin: 85.6 MB at 256x256 and
// 293 MB at 512x512 (1118 bytes a tile) on a torus with machine.link_bytes_per_cycle = 1, hop latency 3
// and 64-byte elements, the timing that leaves the most operands waiting in m_ahead (0.97 m^2 at the
// peak). Most of it is the engine's per-tile state and the skew's 2 m^2 messages, all in flight at once;
// cannon's own share is 68 bytes a tile (the ring and m_ahead_count) plus about 60 per early operand.
constexpr std::uint64_t kBytesPerTile = 1152;

class Cannon final : public Kernel {
 public:
  std::string_view name() const override { return kName; }
  std::string_view description() const override { return kDescription; }
  void validate(const GridShape& grid) const override {
    require_square(grid, name());
    // Memory is O(m^2) (time is O(m^3) events: about 100 s at 512x512). 1.5 GiB keeps a run inside a 2 GB
    // budget and allows sides up to 1182, below the grid's tile limit of 2048x2048.
    const std::uint64_t m = grid.width;
    if (m * m > kMaxBytes / kBytesPerTile) {
      std::uint64_t largest = 1;
      while ((largest + 1) * (largest + 1) <= kMaxBytes / kBytesPerTile) ++largest;
      throw std::invalid_argument("kernel cannon: a " + std::to_string(m) + "x" + std::to_string(m) +
                                  " grid needs about " + std::to_string(m * m * kBytesPerTile / 1000000) +
                                  " MB (about " + std::to_string(kBytesPerTile) +
                                  " bytes per tile), more than the 1.5 GiB it may use; the largest "
                                  "mapping.grid it allows is " +
                                  std::to_string(largest) + "x" + std::to_string(largest));
    }
  }

  // 2 m^3 deliveries: docs/kernels.md measured 99 s at 512x512 (2.7e8), so a 1182x1182 grid takes about
  // 20 minutes there. From 384x384 on (about 40 s at that rate) the run says so before it starts.
  std::string long_run_note(const GridShape& grid) const override {
    const std::uint64_t m = grid.width;
    if (m < 384) return {};
    const double seconds = 99.0 * std::pow(static_cast<double>(m) / 512.0, 3);
    std::ostringstream note;
    note.precision(2);
    note << "cannon on a " << m << "x" << m
         << " grid simulates 2 m^3 = " << static_cast<double>(2 * m * m * m) << " message deliveries: about "
         << (seconds < 120 ? seconds : seconds / 60) << (seconds < 120 ? " s" : " minutes")
         << " at the rate docs/kernels.md measured (99 s at 512x512)";
    return note.str();
  }

  void run(sim::Engine& engine, std::uint64_t element_bytes) override {
    const sim::Grid& grid = engine.grid();
    const std::uint32_t m = grid.width();
    m_size = m;
    m_element_bytes = element_bytes;
    m_a = sim::Matrix<double>(m, m);
    m_b = sim::Matrix<double>(m, m);
    for (std::uint32_t i = 0; i < m; ++i) {
      for (std::uint32_t j = 0; j < m; ++j) {
        // Distinct and never 0, so that an operand dropped, repeated or paired with the wrong one changes
        // C (small patterns with zeros and repeated columns let such errors pass). Entries of C are at
        // most m^5, below 2^53 for every allowed side (at most 1182): the products are exact.
        m_a(i, j) = static_cast<double>(std::uint64_t{i} * m + j + 1);
        m_b(i, j) = static_cast<double>(std::uint64_t{j} * m + i + 1);
      }
    }
    m_c = sim::Matrix<double>(m, m);
    m_ring.assign(std::size_t{grid.tile_count()} * 2 * kRing, Slot{});
    m_ahead.clear();
    m_ahead_count.assign(grid.tile_count(), 0);
    m_next_step.assign(grid.tile_count(), 0);
    engine.set_handler(this);

    // The skew: an element already in place is put in its slot without a message.
    for (std::uint32_t i = 0; i < m; ++i) {
      for (std::uint32_t j = 0; j < m; ++j) {
        const sim::TileId home = grid.tile_id(j, i);
        const sim::TileId a_to = grid.tile_id((j + m - i) % m, i);
        const sim::TileId b_to = grid.tile_id(j, (i + m - j) % m);
        skew(engine, home, a_to, kPortA, m_a(i, j));
        skew(engine, home, b_to, kPortB, m_b(i, j));
      }
    }
    for (sim::TileId t = 0; t < grid.tile_count(); ++t) advance(engine, t);
    engine.run();
  }

  void on_message(sim::Engine& engine, const sim::Message& message) override {
    put(message.dst, message.port, message.serial, element_value(engine, message), message.depth);
    advance(engine, message.dst);
  }

  bool check() const override {
    if (m_size == 0) return false;
    for (std::uint32_t t = 0; t < m_size * m_size; ++t)
      if (m_next_step[t] != m_size) return false;  // a tile did not do all its steps
    // Dense reference: plain triple loop over the original operands.
    for (std::uint32_t i = 0; i < m_size; ++i) {
      for (std::uint32_t j = 0; j < m_size; ++j) {
        double sum = 0.0;
        for (std::uint32_t l = 0; l < m_size; ++l) sum += m_a(i, l) * m_b(l, j);
        if (m_c(i, j) != sum) return false;
      }
    }
    return true;
  }

 private:
  // The ring slot of `step`, valid while next_step <= step < next_step + kRing.
  Slot& ring(sim::TileId tile, std::uint32_t port, std::uint32_t step) {
    return m_ring[((std::size_t{tile} * 2 + port) * kRing) + (step % kRing)];
  }
  std::uint64_t ahead_key(sim::TileId tile, std::uint32_t port, std::uint32_t step) const {
    return (((std::uint64_t{tile} * m_size) + step) * 2) + port;
  }

  // An operand has arrived on `tile` for `step`: into the ring if the step is in it, else into the map.
  void put(sim::TileId tile, std::uint32_t port, std::uint32_t step, double value, std::uint32_t stamp) {
    const std::uint32_t next = m_next_step[tile];
    if (step < next || step >= m_size) [[unlikely]]
      misplaced(tile, step, next, "a step it has done or one past the last");
    if (step - next < kRing) [[likely]] {
      Slot& s = ring(tile, port, step);
      if (s.present) [[unlikely]]
        misplaced(tile, step, next, "a ring slot already filled");
      s = {value, stamp, true};
      return;
    }
    put_ahead(tile, port, step, next, {value, stamp, true});
  }
  // Out of line: few operands come this early.
  [[gnu::noinline]] void put_ahead(sim::TileId tile, std::uint32_t port, std::uint32_t step,
                                   std::uint32_t next, const Slot& operand) {
    if (!m_ahead.emplace(ahead_key(tile, port, step), operand).second)
      misplaced(tile, step, next, "a step it already holds an operand for");
    ++m_ahead_count[tile];
  }
  // An arrival the order of the steps rules out: a bug in the kernel, not bad input.
  [[noreturn, gnu::noinline, gnu::cold]] static void misplaced(sim::TileId tile, std::uint32_t step,
                                                               std::uint32_t next, const char* what) {
    throw std::logic_error("kernel cannon: tile " + std::to_string(tile) + " at step " +
                           std::to_string(next) + " got an operand for step " + std::to_string(step) + ", " +
                           what);
  }

  // Tile t has moved on to step `next`: an operand that came early for the step now entering the ring
  // moves from the map into it.
  [[gnu::noinline]] void pull_ahead(sim::TileId t, std::uint32_t next) {
    const std::uint32_t step = next + kRing - 1;
    if (step >= m_size) return;
    for (std::uint32_t port : {kPortA, kPortB}) {
      const auto it = m_ahead.find(ahead_key(t, port, step));
      if (it == m_ahead.end()) continue;
      ring(t, port, step) = it->second;
      m_ahead.erase(it);
      --m_ahead_count[t];
    }
  }

  void skew(sim::Engine& engine, sim::TileId from, sim::TileId to, std::uint32_t port, double value) {
    if (from == to) {
      put(to, port, 0, value, 0);
      return;
    }
    send_element(engine, {.src = from, .dst = to, .kind = sim::MessageKind::redistribution, .port = port},
                 value, 0, m_element_bytes, engine.now());
  }

  // Does every step tile t has both operands for, in order, passing the operands on after each.
  void advance(sim::Engine& engine, sim::TileId t) {
    const sim::Grid& grid = engine.grid();
    const sim::Coord c = grid.coord(t);
    const auto x = static_cast<std::uint32_t>(c.x);
    const auto y = static_cast<std::uint32_t>(c.y);
    while (m_next_step[t] < m_size) {
      const std::uint32_t k = m_next_step[t];
      Slot& a = ring(t, kPortA, k);
      Slot& b = ring(t, kPortB, k);
      if (!a.present || !b.present) return;
      m_c(y, x) += a.value * b.value;
      // The product is a computed value: its stamp is the max of its inputs' (C's own stamp is never larger).
      engine.note_depth(std::max(a.stamp, b.stamp));
      const sim::Cycle done = engine.compute(t, 2, sim::Phase::forward, engine.now());
      if (k + 1 < m_size) {
        const sim::TileId west = grid.tile_id((x + m_size - 1) % m_size, y);
        const sim::TileId north = grid.tile_id(x, (y + m_size - 1) % m_size);
        send_element(engine,
                     {.src = t, .dst = west, .kind = sim::MessageKind::lane, .port = kPortA, .serial = k + 1},
                     a.value, a.stamp, m_element_bytes, done);
        send_element(
            engine, {.src = t, .dst = north, .kind = sim::MessageKind::lane, .port = kPortB, .serial = k + 1},
            b.value, b.stamp, m_element_bytes, done);
      }
      a.present = false;
      b.present = false;
      m_next_step[t] = k + 1;
      if (m_ahead_count[t] != 0) pull_ahead(t, k + 1);
    }
  }

  std::uint32_t m_size = 0;
  std::uint64_t m_element_bytes = 0;
  sim::Matrix<double> m_a;  // the original operands, for the dense reference
  sim::Matrix<double> m_b;
  sim::Matrix<double> m_c;   // C(i,j) accumulates on tile (x = j, y = i)
  std::vector<Slot> m_ring;  // [tile][port][step % kRing]
  // Operands that arrived for a step beyond their tile's ring, by ahead_key (tile, step, port).
  std::unordered_map<std::uint64_t, Slot> m_ahead;
  std::vector<std::uint32_t> m_ahead_count;  // per tile: its operands in m_ahead
  std::vector<std::uint32_t> m_next_step;    // per tile: the step it does next
};

const KernelRegistry::Registration registration{
    std::string(kName), std::string(kDescription),
    [](const sim::Config&) { return std::make_unique<Cannon>(); }};

}  // namespace
}  // namespace spatialsim::kernels
