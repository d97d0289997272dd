#pragma once
// The forward-gradient tangents v_k (MODEL.md section 7), regenerated instead of stored or sent: the value
// of tangent k at a parameter of a layer is a pure function of (seed, step, layer, k, parameter), computed
// from one Philox4x32-10 block (workloads/philox.h). A tile asks for exactly its slice (rows x columns of
// W, and columns of the bias), in any order, and the slices of any tiling assemble into the same tangent
// as one generated whole. Counter layout, limits and statistics: docs/tangents.md.
//
// Usage:
//   const workloads::TangentGenerator tangents(workloads::parse_tangent_kind(cfg), seed, step);
//   std::vector<float> v(rows.size * cols.size);               // the tile's slice, row-major
//   tangents.fill_weights(layer, k, rows, cols, d_out, v.data());
//   std::vector<float> vb(cols.size);
//   tangents.fill_bias(layer, k, cols, vb.data());
//   double one = tangents.weight(layer, k, row, col);          // == the same element of a fill
//
// Contract: values depend on (kind, seed, step, layer, k, row, col) only: not on the tiling, the ranges
// asked for, the order of calls or the output precision (a float fill is the double value rounded to
// float). Distinct arguments within the limits below address distinct Philox counters, so no two
// elements of any tangent share random bits except the two halves of one Box-Muller pair. Arguments
// beyond the limits throw std::invalid_argument. Gaussian values: mean 0, variance 1, |v| < 6.8 (32-bit
// uniforms); Rademacher values: exactly +1 or -1 with probability 1/2 each.

#include <cstdint>
#include <optional>
#include <string_view>

#include "mappings/partition.h"

namespace spatialsim::sim {
class Config;
}

namespace spatialsim::workloads {

enum class TangentKind : std::uint8_t { gaussian, rademacher };

std::string_view name(TangentKind kind);  // the config name: "gaussian" | "rademacher"
// `fg.tangent`; an unknown name is a sim::ConfigError naming the key and the choices.
TangentKind parse_tangent_kind(const sim::Config& config);
// `fg.tangents` (K): an integer in 1..TangentGenerator::kMaxTangents, else a sim::ConfigError.
std::uint32_t parse_tangent_count(const sim::Config& config);
// Refuses fg.tangents when K tangent streams could make a count of the configured run wrap (run_setup.h).
void require_tangent_counts_fit(const sim::Config& config, std::uint32_t tangents);
// The most tangents a run whose passes are bounded by `pass` (run_setup.h's pass_bound) takes: the largest K
// with pass x (4 + 2K) below 2^62, or 0 when not even one fits.
std::uint64_t most_tangents_that_fit(long double pass);

class TangentGenerator {
 public:
  // The limits of the counter layout (docs/tangents.md): each field has this many distinct values.
  static constexpr std::uint64_t kMaxSteps = std::uint64_t{1} << 32;  // step < 2^32
  static constexpr std::uint32_t kMaxLayers = 1u << 16;               // layer < 65536
  static constexpr std::uint32_t kMaxTangents = 1u << 16;             // k < 65536
  static constexpr std::uint32_t kMaxRows = 1u << 31;                 // row (input index) < 2^31
  // Columns (output index, and bias index) may be any std::uint32_t.

  // Elements of one row that share a Philox block: four Gaussians (two Box-Muller pairs), or 128
  // Rademacher signs (one bit each).
  static constexpr std::uint32_t kGaussiansPerBlock = 4;
  static constexpr std::uint32_t kSignsPerBlock = 128;

  // Contract: step < kMaxSteps, else std::invalid_argument. Cheap: a value type of three fields, made
  // once per step.
  TangentGenerator(TangentKind kind, std::uint64_t seed, std::uint64_t step);

  // One element of v_k: W_layer(row, col) (row: input index, col: output index; W is d_in x d_out as in
  // docs/conventions-math.md), or b_layer(col).
  double weight(std::uint32_t layer, std::uint32_t k, std::uint32_t row, std::uint32_t col) const;
  double bias(std::uint32_t layer, std::uint32_t k, std::uint32_t col) const;

  // A tile's slice of v_k for W_layer, written row-major to out[(r - rows.begin) * cols.size +
  // (c - cols.begin)]: rows.size * cols.size values. d_out is the layer's output width, checked against
  // the columns asked for (the values themselves do not depend on it).
  void fill_weights(std::uint32_t layer, std::uint32_t k, mappings::Range rows, mappings::Range cols,
                    std::uint32_t d_out, float* out) const;
  void fill_weights(std::uint32_t layer, std::uint32_t k, mappings::Range rows, mappings::Range cols,
                    std::uint32_t d_out, double* out) const;
  // A tile's slice of v_k for b_layer: out[c - cols.begin], cols.size values.
  void fill_bias(std::uint32_t layer, std::uint32_t k, mappings::Range cols, float* out) const;
  void fill_bias(std::uint32_t layer, std::uint32_t k, mappings::Range cols, double* out) const;

 private:
  // rows: weight rows, or std::nullopt for the bias; ranges already checked against the limits.
  template <typename T>
  void fill(std::uint32_t layer, std::uint32_t k, std::optional<mappings::Range> rows, mappings::Range cols,
            T* out) const;
  template <typename T>
  void fill_row(std::uint32_t layer, std::uint32_t k, std::uint32_t row_word, mappings::Range cols,
                T* out) const;

  TangentKind m_kind;
  std::uint64_t m_seed;
  std::uint64_t m_step;
};

}  // namespace spatialsim::workloads
