#include "analysis/theory.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <stdexcept>

#include "mappings/partition.h"
#include "mappings/placement/pipeline_stages.h"
#include "mappings/redistribution.h"

namespace spatialsim::analysis {
namespace {

void require_layers(const std::vector<LayerGeometry>& layers) {
  if (layers.empty()) throw std::invalid_argument("theory: the model has no layers");
  for (const auto& g : layers) {
    if (g.rows == 0 || g.cols == 0 || g.rows > g.d_in || g.cols > g.d_out)
      throw std::invalid_argument("theory: a block must have 1 <= rows <= d_in and 1 <= cols <= d_out");
  }
}

void require_matching(const std::vector<LayerGeometry>& layers) {
  for (std::size_t l = 0; l + 1 < layers.size(); ++l) {
    if (layers[l].cols != layers[l + 1].rows || layers[l].d_out != layers[l + 1].d_in) {
      throw std::invalid_argument("theory: layers " + std::to_string(l) + " and " + std::to_string(l + 1) +
                                  " do not have matching partitions (c = " + std::to_string(layers[l].cols) +
                                  ", next r = " + std::to_string(layers[l + 1].rows) +
                                  "); count redistribution on the placement instead");
    }
  }
}

// Redistribution per token with matching partitions: every element of each boundary moves one hop.
std::uint64_t matched_redistribution(const std::vector<LayerGeometry>& layers,
                                     std::uint32_t activation_bytes) {
  std::uint64_t sum = 0;
  for (std::size_t l = 0; l + 1 < layers.size(); ++l)
    sum += std::uint64_t{activation_bytes} * layers[l].d_out;
  return sum;
}

sim::TileId tile_at(const sim::Grid& grid, sim::Coord c) {
  if (!grid.contains(c)) throw std::invalid_argument("theory: the placement does not fit the grid");
  return grid.tile_id(static_cast<std::uint32_t>(c.x), static_cast<std::uint32_t>(c.y));
}

void require_placement(const std::vector<std::uint32_t>& widths, const mappings::Placement& placement) {
  if (widths.size() < 2 || placement.blocks.size() + 1 != widths.size())
    throw std::invalid_argument("theory: need L + 1 widths for a placement of L blocks (L >= 1)");
}

}  // namespace

double hops_per_flop(double d, double k, double n, double b) {
  return hops_per_flop(d, k, n, b, b);
}

double hops_per_flop(double d, double k, double n, double b_a, double b_p) {
  return (b_a * d + b_p * k) * std::sqrt(n) / (2.0 * d * k);
}

double inflight_fully_spatial(double L, double T_tau, double c, double d, StashSum indexing) {
  double layer_latencies = L * L;  // sum over l of the latencies a stash of layer l waits
  if (indexing == StashSum::from_zero) layer_latencies = L * (L + 1);
  if (indexing == StashSum::from_one) layer_latencies = L * (L - 1);
  return layer_latencies * T_tau * c * d;
}

double inflight_pipeline(double L, double p, double T_tau, double c, double d) {
  return 0.5 * L * p * T_tau * c * d;
}

double depth_hops(double L, double n) {
  return 2.0 * L * std::sqrt(n);
}

double reuse_threshold(double e_sram_pj, double e_mac_pj) {
  return e_sram_pj / e_mac_pj;
}

double reuse_threshold_as_counted(double weight_bytes, double e_sram_pj, double e_flop_pj) {
  return weight_bytes * e_sram_pj / (2.0 * e_flop_pj);
}

RepresentativeWidths representative_widths(const std::vector<std::uint32_t>& widths) {
  if (widths.size() < 2) throw std::invalid_argument("theory: need at least two widths");
  std::map<std::uint32_t, std::uint32_t> count;  // ordered: the first maximum is the smallest width
  for (std::uint32_t w : widths) ++count[w];
  RepresentativeWidths r;
  std::uint32_t best = 0;
  for (const auto& [w, n] : count) {
    if (n > best) {
      best = n;
      r.d = w;
    }
  }
  std::map<std::uint32_t, std::uint32_t> outputs;
  for (std::size_t l = 0; l + 1 < widths.size(); ++l)
    if (widths[l] == r.d) ++outputs[widths[l + 1]];
  r.k = r.d;
  best = 0;
  for (const auto& [w, n] : outputs) {
    if (n >= best) {  // >=: ties go to the larger width
      best = n;
      r.k = w;
    }
  }
  return r;
}

std::vector<LayerGeometry> layer_geometry(const std::vector<std::uint32_t>& widths,
                                          const mappings::Placement& placement) {
  require_placement(widths, placement);
  std::vector<LayerGeometry> out;
  for (std::size_t l = 0; l < placement.blocks.size(); ++l)
    out.push_back({widths[l], widths[l + 1], placement.blocks[l].rows, placement.blocks[l].cols});
  require_layers(out);
  return out;
}

bool partitions_match(const std::vector<LayerGeometry>& layers) {
  for (std::size_t l = 0; l + 1 < layers.size(); ++l)
    if (layers[l].cols != layers[l + 1].rows || layers[l].d_out != layers[l + 1].d_in) return false;
  return true;
}

ByteHopsPerToken forward_block_byte_hops_per_token(const std::vector<LayerGeometry>& layers,
                                                   const mappings::ElementBytes& bytes) {
  require_layers(layers);
  ByteHopsPerToken h;
  for (const auto& g : layers) {
    // Row i's lane crosses c - 1 links with |I_i| elements; the row ranges sum to d_in, whatever the split.
    h.lane += std::uint64_t{bytes.activation} * g.d_in * (g.cols - 1);
    h.psum += std::uint64_t{bytes.partial_sum} * g.d_out * (g.rows - 1);
  }
  return h;
}

ByteHopsPerToken backward_block_byte_hops_per_token(const std::vector<LayerGeometry>& layers,
                                                    const mappings::ElementBytes& bytes, bool rebroadcast) {
  require_layers(layers);
  ByteHopsPerToken h;
  for (std::size_t l = 0; l < layers.size(); ++l) {
    const LayerGeometry& g = layers[l];
    h.lane += std::uint64_t{bytes.activation} * g.d_out * (g.rows - 1);
    if (l > 0) h.psum += std::uint64_t{bytes.partial_sum} * g.d_in * (g.cols - 1);
    if (rebroadcast) h.rebroadcast += std::uint64_t{bytes.activation} * g.d_in * (g.cols - 1);
  }
  return h;
}

ByteHopsPerToken forward_byte_hops_per_token(const std::vector<LayerGeometry>& layers,
                                             const mappings::ElementBytes& bytes) {
  ByteHopsPerToken h = forward_block_byte_hops_per_token(layers, bytes);
  require_matching(layers);
  h.redistribution = matched_redistribution(layers, bytes.activation);
  return h;
}

ByteHopsPerToken backward_byte_hops_per_token(const std::vector<LayerGeometry>& layers,
                                              const mappings::ElementBytes& bytes, bool rebroadcast) {
  ByteHopsPerToken h = backward_block_byte_hops_per_token(layers, bytes, rebroadcast);
  require_matching(layers);
  h.redistribution = matched_redistribution(layers, bytes.activation);
  return h;
}

std::uint64_t redistribution_byte_hops_per_token(const std::vector<std::uint32_t>& widths,
                                                 const mappings::Placement& placement,
                                                 std::uint32_t activation_bytes, const sim::Grid& grid) {
  require_placement(widths, placement);
  std::uint64_t sum = 0;
  for (std::size_t l = 0; l + 1 < placement.blocks.size(); ++l) {
    const mappings::BlockLayout& from = placement.blocks[l];
    const mappings::BlockLayout& to = placement.blocks[l + 1];
    const std::uint32_t width = widths[l + 1];
    const auto plan =
        mappings::plan_redistribution(mappings::split(width, from.cols), mappings::split(width, to.rows));
    for (const mappings::Transfer& t : plan.transfers) {
      const std::uint32_t hops = grid.hops(tile_at(grid, from.output_tile(t.producer_col)),
                                           tile_at(grid, to.lane_entry(t.consumer_row)));
      sum += std::uint64_t{activation_bytes} * t.features.size * hops;
    }
  }
  return sum;
}

std::uint64_t host_byte_hops_per_token(const std::vector<std::uint32_t>& widths,
                                       const mappings::Placement& placement, std::uint32_t activation_bytes,
                                       const sim::Grid& grid) {
  require_placement(widths, placement);
  const mappings::BlockLayout& first = placement.blocks.front();
  const mappings::BlockLayout& last = placement.blocks.back();
  std::uint64_t sum = 0;
  const auto rows = mappings::split(widths.front(), first.rows);
  for (std::uint32_t i = 0; i < first.rows; ++i)
    sum +=
        std::uint64_t{activation_bytes} * rows[i].size * grid.host_hops(tile_at(grid, first.lane_entry(i)));
  const auto cols = mappings::split(widths.back(), last.cols);
  for (std::uint32_t j = 0; j < last.cols; ++j)
    sum +=
        std::uint64_t{activation_bytes} * cols[j].size * grid.host_hops(tile_at(grid, last.output_tile(j)));
  return sum;
}

double PlacementDepth::mean_layer_hops() const {
  if (forward_layer_hops.empty()) return 0;
  double sum = 0;
  for (std::uint32_t h : forward_layer_hops) sum += h;
  return sum / static_cast<double>(forward_layer_hops.size());
}

PlacementDepth depth_on_placement(const std::vector<std::uint32_t>& widths,
                                  const mappings::Placement& placement, const sim::Grid& grid,
                                  bool rebroadcast, bool cross_entropy) {
  require_placement(widths, placement);
  const auto& blocks = placement.blocks;
  const std::size_t L = blocks.size();
  const auto hops = [&](sim::Coord a, sim::Coord b) { return grid.hops(tile_at(grid, a), tile_at(grid, b)); };
  // Within a block, neighbouring tiles are one hop apart: a tile's distance along its row from the lane
  // entry, and along its column from the output row.
  const auto lane_hops = [](const mappings::BlockLayout& b, std::uint32_t j) {
    return j > b.entry_col() ? j - b.entry_col() : b.entry_col() - j;
  };
  const auto column_hops = [](const mappings::BlockLayout& b, std::uint32_t i) {
    return i > b.output_row() ? i - b.output_row() : b.output_row() - i;
  };
  std::uint32_t deepest = 0;
  const auto arrives = [&](std::uint32_t stamp) { deepest = std::max(deepest, stamp); };

  // Forward. entry[i]: the stamp with which row i's inputs reach the lane entry.
  std::vector<std::uint32_t> entry(blocks.front().rows);
  for (std::uint32_t i = 0; i < entry.size(); ++i) {
    entry[i] = grid.host_hops(tile_at(grid, blocks.front().lane_entry(i)));
    arrives(entry[i]);
  }
  PlacementDepth out;
  std::vector<std::uint32_t> output;  // per column of the current layer: the stamp of its outputs
  std::uint32_t previous_latest = 0;
  for (std::size_t l = 0; l < L; ++l) {
    const mappings::BlockLayout& b = blocks[l];
    // Row i's product reaches tile (i, j) lane_hops(j) after the entry, then runs column_hops(i) to the
    // output row: column j's output is lane_hops(j) + max_i (entry[i] + column_hops(i)). Every lane and
    // partial-sum message arrives no later than the output of its column.
    std::uint32_t rows_latest = 0;
    for (std::uint32_t i = 0; i < b.rows; ++i)
      rows_latest = std::max(rows_latest, entry[i] + column_hops(b, i));
    output.assign(b.cols, 0);
    for (std::uint32_t j = 0; j < b.cols; ++j) {
      output[j] = rows_latest + lane_hops(b, j);
      arrives(output[j]);
    }
    const std::uint32_t latest = *std::max_element(output.begin(), output.end());
    out.forward_layer_hops.push_back(latest - previous_latest);
    previous_latest = latest;
    if (l + 1 == L) break;
    // Redistribution: a lane entry starts when the last of its pieces has arrived.
    const mappings::BlockLayout& next = blocks[l + 1];
    const auto plan = mappings::plan_redistribution(mappings::split(widths[l + 1], b.cols),
                                                    mappings::split(widths[l + 1], next.rows));
    entry.assign(next.rows, 0);
    for (const mappings::Transfer& t : plan.transfers) {
      const std::uint32_t stamp =
          output[t.producer_col] + hops(b.output_tile(t.producer_col), next.lane_entry(t.consumer_row));
      arrives(stamp);
      entry[t.consumer_row] = std::max(entry[t.consumer_row], stamp);
    }
  }

  // The loss, on the last block's output tiles: targets from the grid edge; with cross-entropy the
  // per-token log-sum-exp is reduced along the output tiles from column 0 to c - 1 and broadcast back.
  const mappings::BlockLayout& last = blocks.back();
  std::vector<std::uint32_t> dy(last.cols);
  for (std::uint32_t j = 0; j < last.cols; ++j) {
    const std::uint32_t target = grid.host_hops(tile_at(grid, last.output_tile(j)));
    arrives(target);
    dy[j] = std::max(output[j], target);
  }
  if (cross_entropy) {
    for (std::uint32_t j = 1; j < last.cols; ++j) {
      const std::uint32_t stamp = dy[j - 1] + hops(last.output_tile(j - 1), last.output_tile(j));
      arrives(stamp);
      dy[j] = std::max(dy[j], stamp);
    }
    for (std::uint32_t j = last.cols - 1; j-- > 0;) {
      const std::uint32_t stamp = dy[j + 1] + hops(last.output_tile(j + 1), last.output_tile(j));
      arrives(stamp);
      dy[j] = std::max(dy[j], stamp);
    }
  }
  out.forward = deepest;

  // Backward. dy[j]: the stamp with which column j's dY is complete on its output tile.
  for (std::size_t l = L; l-- > 0;) {
    const mappings::BlockLayout& b = blocks[l];
    // dY reaches tile (i, j) column_hops(i) after the output row; the rebroadcast X leaves the lane entry
    // when that tile's dY is there and reaches tile (i, j) lane_hops(j) later.
    for (std::uint32_t i = 0; i < b.rows; ++i) {
      for (std::uint32_t j = 0; j < b.cols; ++j) {
        arrives(dy[j] + column_hops(b, i));
        if (rebroadcast) arrives(dy[b.entry_col()] + column_hops(b, i) + lane_hops(b, j));
      }
    }
    if (l == 0) break;  // the first layer's dX is not computed
    // Row i's dX sums the shares of every column on the way to the lane entry: its stamp there is
    // column_hops(i) + max_j (dy[j] + lane_hops(j)). Then its pieces go back to the previous block.
    std::uint32_t columns_latest = 0;
    for (std::uint32_t j = 0; j < b.cols; ++j)
      columns_latest = std::max(columns_latest, dy[j] + lane_hops(b, j));
    const mappings::BlockLayout& previous = blocks[l - 1];
    const auto plan = mappings::plan_redistribution(mappings::split(widths[l], previous.cols),
                                                    mappings::split(widths[l], b.rows));
    std::vector<std::uint32_t> next_dy(previous.cols, 0);
    for (const mappings::Transfer& t : plan.transfers) {
      const std::uint32_t dx = columns_latest + column_hops(b, t.consumer_row);
      const std::uint32_t stamp =
          dx + hops(b.lane_entry(t.consumer_row), previous.output_tile(t.producer_col));
      arrives(stamp);
      next_dy[t.producer_col] = std::max(next_dy[t.producer_col], stamp);
    }
    dy = std::move(next_dy);
  }
  out.backprop = deepest;
  return out;
}

std::vector<double> stash_bytes_per_token(const std::vector<LayerGeometry>& layers,
                                          std::uint32_t activation_bytes, bool replicate, bool nonlinear) {
  require_layers(layers);
  std::vector<double> out;
  for (std::size_t l = 0; l < layers.size(); ++l) {
    const LayerGeometry& g = layers[l];
    double s = double(activation_bytes) * g.d_in * (replicate ? g.cols : 1);
    if (nonlinear && l + 1 < layers.size()) s += double(activation_bytes) * g.d_out;
    out.push_back(s);
  }
  return out;
}

double inflight_of_layers(const std::vector<double>& stash_per_token, double T_tau, StashSum indexing) {
  const double L = static_cast<double>(stash_per_token.size());
  double sum = 0;
  for (std::size_t l = 0; l < stash_per_token.size(); ++l) {
    // Layer-latencies layer l's stash waits; their sum over l is L^2, L (L + 1) or L (L - 1).
    double wait = 2 * (L - double(l)) - 1;
    if (indexing == StashSum::from_zero) wait = 2 * (L - double(l));
    if (indexing == StashSum::from_one) wait = 2 * (L - double(l) - 1);
    sum += wait * T_tau * stash_per_token[l];
  }
  return sum;
}

double inflight_1f1b(const std::vector<double>& stash_per_token, std::uint32_t stages, double T_tau) {
  const auto L = static_cast<std::uint32_t>(stash_per_token.size());
  if (stages == 0 || stages > L) throw std::invalid_argument("inflight_1f1b: need 1 <= stages <= layers");
  double sum = 0;
  for (std::uint32_t l = 0; l < L; ++l)
    sum += double(stages - mappings::stage_of_layer(l, L, stages)) * T_tau * stash_per_token[l];
  return sum;
}

std::uint64_t forward_flops_per_token(const std::vector<LayerGeometry>& layers) {
  std::uint64_t sum = 0;
  for (const auto& g : layers) sum += 2ull * g.d_in * g.d_out;
  return sum;
}

std::string two_significant(double x) {
  if (x == 0) return "0";
  // printf spells these "inf" and "nan", with no exponent to parse.
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  char buffer[64];
  // %.1e rounds first, so 99.6 becomes 1.0e+02 and is then printed in scientific form, not as "100".
  std::snprintf(buffer, sizeof buffer, "%.1e", x);
  const std::string s = buffer;
  const std::size_t e = s.find('e');
  const int exponent = std::stoi(s.substr(e + 1));
  if (exponent >= -1 && exponent <= 1) {
    std::snprintf(buffer, sizeof buffer, "%.*f", 1 - exponent, x);
    return buffer;
  }
  return s.substr(0, e) + "e" + std::to_string(exponent);
}

std::string gigabytes(double bytes) {
  return two_significant(bytes / 1e9) + " GB";
}

}  // namespace spatialsim::analysis
