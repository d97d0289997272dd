#include "workloads/tangent_generator.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "sim/config.h"
#include "sim/counters.h"
#include "sim/enum_names.h"
#include "sim/option_spec.h"
#include "workloads/philox.h"
#include "workloads/run_setup.h"

namespace spatialsim::workloads {
namespace {

const sim::OptionRegistration options{
    {"fg.tangent", "choice",
     "gaussian|rademacher: distribution of the forward-gradient tangents' elements (N(0,1) or +-1)",
     sim::OptionReach::values_only},
    {"fg.tangents", "tangents", "K, the tangents per step of the forward-gradient schedules (1..65536)"},
};

constexpr sim::EnumNames<TangentKind, 2> kTangentKindNames{
    {{{TangentKind::gaussian, "gaussian"}, {TangentKind::rademacher, "rademacher"}}}};

// Counter word 1 of a bias element: the row field's top bit, which no weight row reaches (kMaxRows).
constexpr std::uint32_t kBiasFlag = 0x80000000u;

// Arguments are checked on every call (tiles call per slice, so the checks are cheap next to Philox); the
// message is built only on failure.
[[noreturn]] void beyond_limit(const std::string& what) {
  throw std::invalid_argument("TangentGenerator: " + what);
}

// A range's end computed without wraparound: a Range near 2^32 must not alias a small one.
std::uint64_t end_of(mappings::Range r) {
  return std::uint64_t{r.begin} + r.size;
}

// The four 32-bit words for columns [block * lanes, (block + 1) * lanes) of one row of tangent k.
// Layout (docs/tangents.md): key = the seed's two halves; counter = {column block, row or bias flag,
// k << 16 | layer, step}. Every field is within its limit, so the map is injective.
PhiloxBlock block_words(std::uint64_t seed, std::uint64_t step, std::uint32_t layer, std::uint32_t k,
                        std::uint32_t row_word, std::uint32_t block) {
  const PhiloxKey key{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)};
  const PhiloxBlock counter{block, row_word, (k << 16) | layer, static_cast<std::uint32_t>(step)};
  return philox4x32<10>(counter, key);
}

// Box-Muller on words (w[0], w[1]) -> lanes 0, 1 and (w[2], w[3]) -> lanes 2, 3. The radius uniform is
// (w + 1/2) / 2^32, never 0 or 1, so the logarithm is finite; the largest radius is sqrt(2 ln 2^33) = 6.76.
// Computed in double whatever the output type, so that float slices are the double values rounded.
std::array<double, 4> gaussians(const PhiloxBlock& w) {
  constexpr double kTwoPi = 6.283185307179586476925286766559;
  constexpr double kInv2To32 = 0x1.0p-32;
  std::array<double, 4> g{};
  for (int pair = 0; pair < 2; ++pair) {
    const double u = (static_cast<double>(w[2 * pair]) + 0.5) * kInv2To32;
    const double angle = kTwoPi * (static_cast<double>(w[2 * pair + 1]) * kInv2To32);
    const double radius = std::sqrt(-2.0 * std::log(u));
    g[2 * pair] = radius * std::cos(angle);
    g[2 * pair + 1] = radius * std::sin(angle);
  }
  return g;
}

double sign(const PhiloxBlock& w, std::uint32_t lane) {
  return ((w[lane / 32] >> (lane % 32)) & 1u) != 0 ? -1.0 : 1.0;
}

std::uint32_t lanes_per_block(TangentKind kind) {
  return kind == TangentKind::gaussian ? TangentGenerator::kGaussiansPerBlock
                                       : TangentGenerator::kSignsPerBlock;
}

}  // namespace

std::string_view name(TangentKind kind) {
  return kTangentKindNames.name(kind);
}

TangentKind parse_tangent_kind(const sim::Config& config) {
  return kTangentKindNames.from_config(config, "fg.tangent");
}

std::uint32_t parse_tangent_count(const sim::Config& config) {
  return static_cast<std::uint32_t>(config.get_whole_in("fg.tangents", 1, TangentGenerator::kMaxTangents));
}

namespace {

// The tangent streams ride with the forward pass, whose flops and traffic grow with 1 + 2K (X W and X V_k
// per stream); split-fg's head adds at most the three products of a backward pass (run_setup.h).
bool tangents_fit(long double pass, long double tangents) {
  return pass * (4 + 2 * tangents) < sim::kCountLimit;
}

}  // namespace

std::uint64_t most_tangents_that_fit(long double pass) {
  if (!(pass > 0)) return std::numeric_limits<std::uint64_t>::max();  // nothing that could wrap
  // The quotient's floor, then the test itself decides: where the quotient is whole its K reaches 2^62
  // exactly, and the division may round either way.
  long double most = std::floor(std::max((sim::kCountLimit / pass - 4) / 2, 0.0L));
  while (most > 0 && !tangents_fit(pass, most)) --most;
  while (tangents_fit(pass, most + 1)) ++most;
  return static_cast<std::uint64_t>(most);
}

void require_tangent_counts_fit(const sim::Config& config, std::uint32_t tangents) {
  const long double pass = pass_bound(setup_from_config(config));
  if (!tangents_fit(pass, tangents))
    config.fail("fg.tangents",
                "is too many for this model and step: the tangent traffic and flops could pass "
                "2^62 and wrap; give at most " +
                    std::to_string(most_tangents_that_fit(pass)));
}

TangentGenerator::TangentGenerator(TangentKind kind, std::uint64_t seed, std::uint64_t step)
    : m_kind(kind), m_seed(seed), m_step(step) {
  if (step >= kMaxSteps)
    beyond_limit("step " + std::to_string(step) + " is beyond the counter layout's limit of 2^32");
}

template <typename T>
void TangentGenerator::fill_row(std::uint32_t layer, std::uint32_t k, std::uint32_t row_word,
                                mappings::Range cols, T* out) const {
  if (cols.size == 0) return;
  const std::uint32_t lanes = lanes_per_block(m_kind);
  const auto last = static_cast<std::uint32_t>(end_of(cols) - 1);  // end_of(cols) <= 2^32: checked
  for (std::uint32_t block = cols.begin / lanes; block <= last / lanes; ++block) {
    const PhiloxBlock words = block_words(m_seed, m_step, layer, k, row_word, block);
    // The lanes of this block inside [cols.begin, last]: whole blocks except at the two ends.
    const std::uint64_t first_col = std::uint64_t{block} * lanes;
    const auto lane_begin = static_cast<std::uint32_t>(first_col < cols.begin ? cols.begin - first_col : 0);
    const auto lane_end =
        static_cast<std::uint32_t>(first_col + lanes - 1 > last ? last - first_col + 1 : lanes);
    T* dst = out + (first_col + lane_begin - cols.begin);
    if (m_kind == TangentKind::gaussian) {
      const std::array<double, 4> g = gaussians(words);
      for (std::uint32_t lane = lane_begin; lane < lane_end; ++lane) *dst++ = static_cast<T>(g[lane]);
    } else {
      for (std::uint32_t lane = lane_begin; lane < lane_end; ++lane)
        *dst++ = static_cast<T>(sign(words, lane));
    }
  }
}

template <typename T>
void TangentGenerator::fill(std::uint32_t layer, std::uint32_t k, std::optional<mappings::Range> rows,
                            mappings::Range cols, T* out) const {
  if (layer >= kMaxLayers)
    beyond_limit("layer " + std::to_string(layer) + " is beyond the counter layout's limit of 65536 layers");
  if (k >= kMaxTangents)
    beyond_limit("tangent " + std::to_string(k) + " is beyond the counter layout's limit of 65536 tangents");
  if (end_of(cols) > (std::uint64_t{1} << 32))
    beyond_limit("columns up to " + std::to_string(end_of(cols)) + " overflow 32 bits");
  if (!rows) {
    fill_row(layer, k, kBiasFlag, cols, out);
    return;
  }
  if (end_of(*rows) > kMaxRows)
    beyond_limit("rows up to " + std::to_string(end_of(*rows)) +
                 " are beyond the counter layout's limit of 2^31");
  for (std::uint32_t r = 0; r < rows->size; ++r)
    fill_row(layer, k, rows->begin + r, cols, out + std::size_t{r} * cols.size);
}

double TangentGenerator::weight(std::uint32_t layer, std::uint32_t k, std::uint32_t row,
                                std::uint32_t col) const {
  double value = 0;
  fill(layer, k, mappings::Range{row, 1}, {col, 1}, &value);
  return value;
}

double TangentGenerator::bias(std::uint32_t layer, std::uint32_t k, std::uint32_t col) const {
  double value = 0;
  fill(layer, k, std::nullopt, {col, 1}, &value);
  return value;
}

namespace {

void check_width(mappings::Range cols, std::uint32_t d_out) {
  if (end_of(cols) > d_out)
    beyond_limit("columns up to " + std::to_string(end_of(cols)) +
                 " exceed d_out = " + std::to_string(d_out));
}

}  // namespace

void TangentGenerator::fill_weights(std::uint32_t layer, std::uint32_t k, mappings::Range rows,
                                    mappings::Range cols, std::uint32_t d_out, float* out) const {
  check_width(cols, d_out);
  fill(layer, k, rows, cols, out);
}

void TangentGenerator::fill_weights(std::uint32_t layer, std::uint32_t k, mappings::Range rows,
                                    mappings::Range cols, std::uint32_t d_out, double* out) const {
  check_width(cols, d_out);
  fill(layer, k, rows, cols, out);
}

void TangentGenerator::fill_bias(std::uint32_t layer, std::uint32_t k, mappings::Range cols,
                                 float* out) const {
  fill(layer, k, std::nullopt, cols, out);
}

void TangentGenerator::fill_bias(std::uint32_t layer, std::uint32_t k, mappings::Range cols,
                                 double* out) const {
  fill(layer, k, std::nullopt, cols, out);
}

}  // namespace spatialsim::workloads
