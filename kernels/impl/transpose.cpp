// Transpose of an m x m matrix held one element per tile: element (i, j) sits on tile (x = j, y = i) and
// moves to tile (x = i, y = j), in one message routed x then y. Diagonal elements stay put (no message).
// Kind `redistribution`: values moved into a new layout, as between two layers' blocks.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/kernel_base.h"

namespace spatialsim::kernels {
namespace {

constexpr std::string_view kName = "transpose";
constexpr std::string_view kDescription =
    "m x m matrix, one element per tile: element (i,j) moves to tile (j,i) in one message";

class Transpose final : public Kernel {
 public:
  std::string_view name() const override { return kName; }
  std::string_view description() const override { return kDescription; }
  void validate(const GridShape& grid) const override { require_square(grid, name()); }

  void run(sim::Engine& engine, std::uint64_t element_bytes) override {
    const sim::Grid& grid = engine.grid();
    m_size = grid.width();
    m_held.assign(grid.tile_count(), 0.0);
    m_deliveries.assign(grid.tile_count(), 0);
    engine.set_handler(this);
    for (std::uint32_t i = 0; i < m_size; ++i) {
      for (std::uint32_t j = 0; j < m_size; ++j) {
        const sim::TileId from = grid.tile_id(j, i);
        const sim::TileId to = grid.tile_id(i, j);
        if (from == to) {
          m_held[to] = element(i, j);
          ++m_deliveries[to];
          continue;
        }
        send_element(engine, {.src = from, .dst = to, .kind = sim::MessageKind::redistribution},
                     element(i, j), 0, element_bytes, engine.now());
      }
    }
    engine.run();
  }

  void on_message(sim::Engine& engine, const sim::Message& message) override {
    m_held[message.dst] = element_value(engine, message);
    ++m_deliveries[message.dst];
  }

  bool check() const override {
    if (m_held.empty()) return false;
    // Tile (x, y) must hold element (x, y) of the original: row x, column y.
    for (std::uint32_t y = 0; y < m_size; ++y) {
      for (std::uint32_t x = 0; x < m_size; ++x) {
        const std::size_t t = std::size_t{y} * m_size + x;
        if (m_deliveries[t] != 1 || m_held[t] != element(x, y)) return false;
      }
    }
    return true;
  }

 private:
  double element(std::uint32_t row, std::uint32_t col) const {
    return static_cast<double>(std::size_t{row} * m_size + col + 1);
  }

  std::uint32_t m_size = 0;
  std::vector<double> m_held;
  std::vector<std::uint32_t> m_deliveries;
};

const KernelRegistry::Registration registration{
    std::string(kName), std::string(kDescription),
    [](const sim::Config&) { return std::make_unique<Transpose>(); }};

}  // namespace
}  // namespace spatialsim::kernels
