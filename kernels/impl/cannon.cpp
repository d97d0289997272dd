// Cannon's matrix multiplication C = A B of two m x m matrices held one element per tile: A(i,j) and
// B(i,j) start on tile (x = j, y = i), and C(i,j) ends there.
// - Skew: A(i,j) moves to column (j - i) mod m of its row, B(i,j) to row (i - j) mod m of its column, one
//   message each (kind `redistribution`: data moved into the algorithm's layout).
// - Then m steps: every tile multiplies the A and B it holds into its C; after each of the first m - 1
//   steps it passes A one tile west and B one tile north, cyclically (kind `lane`: operands streaming past
//   the tiles). On a mesh the wrap-around shift travels the whole row or column (m - 1 hops); on a torus it
//   takes the wrap link (1 hop).
// Tiles run asynchronously: a tile does step k once it holds A and B for step k, whatever its neighbours
// are doing, so messages carry their step number and wait in per-step slots.
#include <algorithm>
#include <memory>
#include <string>
#include <string_view>
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
  bool present = false;
  double value = 0.0;
  std::uint32_t stamp = 0;
};

// The memory cannon may take for its operand slots (see Cannon::validate).
constexpr std::uint64_t kMaxSlotBytes = std::uint64_t{3} << 29;  // 1.5 GiB

class Cannon final : public Kernel {
 public:
  std::string_view name() const override { return kName; }
  std::string_view description() const override { return kDescription; }
  void validate(const GridShape& grid) const override {
    require_square(grid, name());
    // The per-step operand slots (2 m^3 of them, m_slots_a and m_slots_b) are nearly all of the memory:
    // 1.57 GB of the 1.64 GB peak measured at 320x320 (6.5 GB at 512x512, std::bad_alloc at 1024x1024).
    // 1.5 GiB of slots keeps a run under about 1.7 GB, well inside a 2 GB budget; the side this allows is
    // 322.
    const std::uint64_t m = grid.width;
    const std::uint64_t slot_bytes = 2 * sizeof(Slot);
    if (m * m * m > kMaxSlotBytes / slot_bytes) {
      std::uint64_t largest = 1;
      while ((largest + 1) * (largest + 1) * (largest + 1) <= kMaxSlotBytes / slot_bytes) ++largest;
      throw std::invalid_argument("kernel cannon: a " + std::to_string(m) + "x" + std::to_string(m) +
                                  " grid needs " + std::to_string(m * m * m * slot_bytes / 1000000) +
                                  " MB for its operand slots (2 m^3 of " + std::to_string(sizeof(Slot)) +
                                  " bytes), more than the 1.5 GiB it may use; the largest mapping.grid it "
                                  "allows is " +
                                  std::to_string(largest) + "x" + std::to_string(largest));
    }
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
        m_a(i, j) = static_cast<double>((i * 7 + j * 3) % 11) - 5.0;
        m_b(i, j) = static_cast<double>((i * 5 + j * 2) % 13) - 6.0;
      }
    }
    m_c = sim::Matrix<double>(m, m);
    m_slots_a.assign(std::size_t{m} * m * m, Slot{});
    m_slots_b.assign(std::size_t{m} * m * m, Slot{});
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
    slot(message.port, message.dst, message.serial) = {true, element_value(engine, message), message.depth};
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
  Slot& slot(std::uint32_t port, sim::TileId tile, std::uint32_t step) {
    auto& slots = port == kPortA ? m_slots_a : m_slots_b;
    return slots[(std::size_t{tile} * m_size) + step];
  }

  void skew(sim::Engine& engine, sim::TileId from, sim::TileId to, std::uint32_t port, double value) {
    if (from == to) {
      slot(port, to, 0) = {true, value, 0};
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
      Slot& a = slot(kPortA, t, k);
      Slot& b = slot(kPortB, t, k);
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
      ++m_next_step[t];
    }
  }

  std::uint32_t m_size = 0;
  std::uint64_t m_element_bytes = 0;
  sim::Matrix<double> m_a;  // the original operands, for the dense reference
  sim::Matrix<double> m_b;
  sim::Matrix<double> m_c;                 // C(i,j) accumulates on tile (x = j, y = i)
  std::vector<Slot> m_slots_a;             // [tile][step]
  std::vector<Slot> m_slots_b;             // [tile][step]
  std::vector<std::uint32_t> m_next_step;  // per tile: the step it does next
};

const KernelRegistry::Registration registration{
    std::string(kName), std::string(kDescription),
    [](const sim::Config&) { return std::make_unique<Cannon>(); }};

}  // namespace
}  // namespace spatialsim::kernels
