// The forward-gradient tangents: tiles' slices assemble into the whole tangent in any order and at either
// precision, the counter layout is the documented one (and reaches the Philox known answers), distinct
// (seed, step, layer, k) give unrelated streams, the limits throw, and fixed-seed statistics: Gaussian
// moments, Rademacher signs, and no correlation between tangents or between Box-Muller partners.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "mappings/partition.h"
#include "sim/config.h"
#include "sim/option_spec.h"
#include "tests/enum_printers.h"
#include "workloads/philox.h"
#include "workloads/tangent_generator.h"

namespace spatialsim::workloads {
namespace {

using mappings::Range;

constexpr std::uint32_t kRows = 37;  // d_in
constexpr std::uint32_t kCols = 53;  // d_out

template <typename T>
std::vector<T> whole_weights(const TangentGenerator& gen, std::uint32_t layer, std::uint32_t k,
                             std::uint32_t rows = kRows, std::uint32_t cols = kCols) {
  std::vector<T> v(std::size_t{rows} * cols);
  gen.fill_weights(layer, k, {0, rows}, {0, cols}, cols, v.data());
  return v;
}

// Ranges from cut points {0, a, b, ..., n}: uneven on purpose (sizes 1, 3, 13, ...), and not aligned to the
// four- or 128-column Philox blocks.
std::vector<Range> cuts(std::vector<std::uint32_t> at) {
  std::vector<Range> out;
  for (std::size_t i = 0; i + 1 < at.size(); ++i) out.push_back({at[i], at[i + 1] - at[i]});
  return out;
}

class Tangents : public ::testing::TestWithParam<TangentKind> {};

template <typename T>
void expect_tiles_assemble_the_whole(TangentKind kind) {
  const TangentGenerator gen(kind, /*seed=*/7, /*step=*/3);
  const std::vector<T> whole = whole_weights<T>(gen, 2, 1);
  const std::vector<T> whole_bias = [&] {
    std::vector<T> b(kCols);
    gen.fill_bias(2, 1, {0, kCols}, b.data());
    return b;
  }();
  for (const auto& [row_parts, col_parts] :
       {std::pair{mappings::split(kRows, 5), mappings::split(kCols, 7)},
        std::pair{cuts({0, 1, 4, 17, 30, 37}), cuts({0, 3, 4, 17, 33, 52, 53})}}) {
    struct Tile {
      Range rows, cols;
    };
    std::vector<Tile> tiles;
    for (Range r : row_parts)
      for (Range c : col_parts) tiles.push_back({r, c});
    std::shuffle(tiles.begin(), tiles.end(), std::mt19937(42));  // tiles generate in any order

    std::vector<T> assembled(whole.size(), T(99));
    std::vector<T> assembled_bias(kCols, T(99));
    for (const Tile& t : tiles) {
      std::vector<T> slice(std::size_t{t.rows.size} * t.cols.size);
      gen.fill_weights(2, 1, t.rows, t.cols, kCols, slice.data());
      for (std::uint32_t r = 0; r < t.rows.size; ++r)
        for (std::uint32_t c = 0; c < t.cols.size; ++c)
          assembled[std::size_t{t.rows.begin + r} * kCols + t.cols.begin + c] = slice[r * t.cols.size + c];
      if (t.rows.begin == 0) {  // the bias lives with the first row of tiles, as a column slice
        std::vector<T> bias(t.cols.size);
        gen.fill_bias(2, 1, t.cols, bias.data());
        std::copy(bias.begin(), bias.end(), assembled_bias.begin() + t.cols.begin);
      }
    }
    EXPECT_EQ(assembled, whole);
    EXPECT_EQ(assembled_bias, whole_bias);
  }
  // Element by element, too.
  for (std::uint32_t r = 0; r < kRows; ++r)
    for (std::uint32_t c = 0; c < kCols; ++c)
      ASSERT_EQ(static_cast<T>(gen.weight(2, 1, r, c)), whole[r * kCols + c]) << r << ", " << c;
  for (std::uint32_t c = 0; c < kCols; ++c) ASSERT_EQ(static_cast<T>(gen.bias(2, 1, c)), whole_bias[c]);
}

TEST_P(Tangents, TilesOfAnUnevenSplitAssembleTheWholeInAnyOrder) {
  expect_tiles_assemble_the_whole<double>(GetParam());
  expect_tiles_assemble_the_whole<float>(GetParam());
}

TEST_P(Tangents, FloatSlicesAreTheDoubleValuesRounded) {
  const TangentGenerator gen(GetParam(), 11, 0);
  const auto d = whole_weights<double>(gen, 0, 3);
  const auto f = whole_weights<float>(gen, 0, 3);
  for (std::size_t i = 0; i < d.size(); ++i) ASSERT_EQ(f[i], static_cast<float>(d[i])) << i;
}

TEST_P(Tangents, ValuesDoNotDependOnTheDeclaredWidth) {
  // A tile knows d_out only to have its columns checked; the values are keyed by (row, col) alone.
  const TangentGenerator gen(GetParam(), 5, 9);
  std::vector<double> narrow(10), wide(10);
  gen.fill_weights(1, 0, {4, 2}, {3, 5}, 8, narrow.data());
  gen.fill_weights(1, 0, {4, 2}, {3, 5}, 4096, wide.data());
  EXPECT_EQ(narrow, wide);
}

// How many elements of two 37 x 53 tangents are equal: none for Gaussians (doubles from 64 random bits),
// about half for Rademacher signs.
void expect_unrelated(const std::vector<double>& a, const std::vector<double>& b, TangentKind kind,
                      const char* what) {
  const auto n = static_cast<double>(a.size());
  double equal = 0;
  for (std::size_t i = 0; i < a.size(); ++i) equal += a[i] == b[i] ? 1 : 0;
  if (kind == TangentKind::gaussian)
    EXPECT_EQ(equal, 0) << what;
  else
    EXPECT_NEAR(equal / n, 0.5, 5 * 0.5 / std::sqrt(n)) << what;
}

TEST_P(Tangents, DistinctSeedStepLayerOrTangentGiveDifferentStreams) {
  const TangentKind kind = GetParam();
  const std::uint64_t seed = 0x0123456789abcdefull;
  const auto base = whole_weights<double>(TangentGenerator(kind, seed, 4), 3, 2);
  expect_unrelated(base, whole_weights<double>(TangentGenerator(kind, seed + 1, 4), 3, 2), kind, "seed");
  expect_unrelated(base, whole_weights<double>(TangentGenerator(kind, seed ^ (1ull << 40), 4), 3, 2), kind,
                   "seed's high word");
  expect_unrelated(base, whole_weights<double>(TangentGenerator(kind, seed, 5), 3, 2), kind, "step");
  expect_unrelated(base, whole_weights<double>(TangentGenerator(kind, seed, 4), 4, 2), kind, "layer");
  expect_unrelated(base, whole_weights<double>(TangentGenerator(kind, seed, 4), 3, 3), kind, "tangent");
  // Layer and k share a counter word; swapping them must not alias.
  expect_unrelated(base, whole_weights<double>(TangentGenerator(kind, seed, 4), 2, 3), kind, "layer <-> k");
  // The bias is not a copy of any weight row, nor are the rows copies of each other.
  const TangentGenerator gen(kind, seed, 4);
  std::vector<double> bias(kCols);
  gen.fill_bias(3, 2, {0, kCols}, bias.data());
  const std::vector<double> row0(base.begin(), base.begin() + kCols);
  const std::vector<double> row1(base.begin() + kCols, base.begin() + 2 * kCols);
  if (kind == TangentKind::gaussian) {
    EXPECT_NE(bias, row0);
    EXPECT_NE(row0, row1);
  }
}

INSTANTIATE_TEST_SUITE_P(Kinds, Tangents, ::testing::Values(TangentKind::gaussian, TangentKind::rademacher),
                         [](const auto& test) { return std::string(name(test.param)); });

// The documented layout (docs/tangents.md): key = {seed low, seed high}; counter = {col / lanes, row (or
// 2^31 for the bias), k << 16 | layer, step}; Gaussians by Box-Muller on word pairs, signs from bits.
TEST(TangentLayout, IsTheDocumentedOne) {
  const std::uint64_t seed = 0x299f31d0a4093822ull;  // key {0xa4093822, 0x299f31d0}, Random123's pi key
  const std::uint32_t step = 0x03707344, layer = 0x8a2e, k = 0x1319, row = 0x05a308d3, col = 4 * 9 + 2;
  const PhiloxBlock w = philox4x32({9, row, (k << 16) | layer, step}, {0xa4093822u, 0x299f31d0u});
  const double radius = std::sqrt(-2.0 * std::log((w[2] + 0.5) * 0x1.0p-32));
  const double angle = 6.283185307179586476925286766559 * (w[3] * 0x1.0p-32);
  const TangentGenerator gaussian(TangentKind::gaussian, seed, step);
  EXPECT_EQ(gaussian.weight(layer, k, row, col), radius * std::cos(angle));
  EXPECT_EQ(gaussian.weight(layer, k, row, col + 1), radius * std::sin(angle));

  const PhiloxBlock b = philox4x32({0, 0x80000000u, (k << 16) | layer, step}, {0xa4093822u, 0x299f31d0u});
  const TangentGenerator rademacher(TangentKind::rademacher, seed, step);
  for (std::uint32_t c : {0u, 1u, 31u, 32u, 77u, 127u})
    EXPECT_EQ(rademacher.bias(layer, k, c), ((b[c / 32] >> (c % 32)) & 1u) ? -1.0 : 1.0) << c;
}

TEST(TangentLayout, FirstBlockOfSeedZeroIsTheZeroKnownAnswer) {
  // seed 0, step 0, layer 0, k 0, row 0, columns 0..3: counter and key all zero, so the words are
  // Random123's first philox4x32-10 vector.
  const PhiloxBlock kat{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u};
  const TangentGenerator rademacher(TangentKind::rademacher, 0, 0);
  for (std::uint32_t c = 0; c < 128; ++c)
    ASSERT_EQ(rademacher.weight(0, 0, 0, c), ((kat[c / 32] >> (c % 32)) & 1u) ? -1.0 : 1.0) << c;
}

TEST(TangentLimits, FieldsBeyondTheCounterLayoutThrow) {
  const TangentGenerator gen(TangentKind::gaussian, 1, TangentGenerator::kMaxSteps - 1);
  double v[2];
  EXPECT_THROW(TangentGenerator(TangentKind::gaussian, 1, TangentGenerator::kMaxSteps),
               std::invalid_argument);
  EXPECT_THROW(gen.weight(TangentGenerator::kMaxLayers, 0, 0, 0), std::invalid_argument);
  EXPECT_THROW(gen.weight(0, TangentGenerator::kMaxTangents, 0, 0), std::invalid_argument);
  EXPECT_THROW(gen.weight(0, 0, TangentGenerator::kMaxRows, 0), std::invalid_argument);
  EXPECT_THROW(gen.fill_weights(0, 0, {TangentGenerator::kMaxRows - 1, 2}, {0, 1}, 1, v),
               std::invalid_argument);
  EXPECT_THROW(gen.fill_weights(0, 0, {0, 1}, {52, 2}, 53, v), std::invalid_argument);  // beyond d_out
  EXPECT_THROW(gen.fill_bias(0, 0, {0xffffffffu, 2}, v), std::invalid_argument);        // wraps 2^32
  // The last value of every field is fine.
  EXPECT_TRUE(std::isfinite(gen.weight(TangentGenerator::kMaxLayers - 1, TangentGenerator::kMaxTangents - 1,
                                       TangentGenerator::kMaxRows - 1, 0xffffffffu)));
  EXPECT_TRUE(std::isfinite(gen.bias(0, 0, 0xffffffffu)));
  gen.fill_weights(0, 0, {0, 1}, {51, 2}, 53, v);  // ends exactly at d_out
}

// ---- statistics, fixed seeds, 5 standard errors ----

constexpr std::uint32_t kStatRows = 250, kStatCols = 400;  // 1e5 values of one tangent

double mean(const std::vector<double>& v) {
  return std::accumulate(v.begin(), v.end(), 0.0) / v.size();
}
double moment(const std::vector<double>& v, int p) {
  double s = 0;
  for (double x : v) s += std::pow(x, p);
  return s / v.size();
}
double correlation(const std::vector<double>& a, const std::vector<double>& b) {
  const double ma = mean(a), mb = mean(b);
  double sab = 0, saa = 0, sbb = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    sab += (a[i] - ma) * (b[i] - mb);
    saa += (a[i] - ma) * (a[i] - ma);
    sbb += (b[i] - mb) * (b[i] - mb);
  }
  return sab / std::sqrt(saa * sbb);
}

// The measured figure, printed for docs/tangents.md's table ("Statistics") and recorded in gtest's XML.
double report(const std::string& quantity, double value) {
  std::cout << "[ measured ] " << quantity << " = " << value << "\n";
  ::testing::Test::RecordProperty(quantity, std::to_string(value));
  return value;
}

TEST(TangentStatistics, GaussianMomentsAreStandardNormal) {
  const TangentGenerator gen(TangentKind::gaussian, 2024, 17);
  const auto v = whole_weights<double>(gen, 1, 0, kStatRows, kStatCols);
  const double n = static_cast<double>(v.size());
  // Standard errors of the sample moments of N(0,1): sqrt(E[x^2p] - E[x^p]^2 / n), with E[x^2] = 1,
  // E[x^4] = 3, E[x^8] = 105.
  EXPECT_NEAR(report("gaussian_mean", mean(v)), 0.0, 5 * std::sqrt(1 / n));
  EXPECT_NEAR(report("gaussian_E_v2", moment(v, 2)), 1.0, 5 * std::sqrt((3 - 1) / n));
  EXPECT_NEAR(report("gaussian_E_v4", moment(v, 4)), 3.0, 5 * std::sqrt((105 - 9) / n));
  EXPECT_NEAR(moment(v, 3), 0.0, 5 * std::sqrt(15 / n));  // E[x^6] = 15
  EXPECT_LT(report("gaussian_max_abs",
                   std::abs(*std::max_element(v.begin(), v.end(),
                                              [](double a, double b) { return std::abs(a) < std::abs(b); }))),
            6.8);
}

TEST(TangentStatistics, GaussianLanesAreAlikeAndBoxMullerPartnersUncorrelated) {
  // Each of the four lanes of a Philox block (cos and sin halves of two pairs) is N(0,1) by itself, and
  // the two halves of a pair are uncorrelated (they are independent for exact Box-Muller).
  const TangentGenerator gen(TangentKind::gaussian, 99, 1);
  const auto v = whole_weights<double>(gen, 0, 0, kStatRows, kStatCols);
  std::vector<std::vector<double>> lanes(4);
  for (std::size_t i = 0; i < v.size(); ++i) lanes[(i % kStatCols) % 4].push_back(v[i]);
  const double n = static_cast<double>(lanes[0].size());
  for (int lane = 0; lane < 4; ++lane) {
    EXPECT_NEAR(mean(lanes[lane]), 0.0, 5 * std::sqrt(1 / n)) << lane;
    EXPECT_NEAR(moment(lanes[lane], 2), 1.0, 5 * std::sqrt(2 / n)) << lane;
  }
  EXPECT_NEAR(correlation(lanes[0], lanes[1]), 0.0, 5 / std::sqrt(n));
  EXPECT_NEAR(correlation(lanes[2], lanes[3]), 0.0, 5 / std::sqrt(n));
  EXPECT_NEAR(correlation(lanes[1], lanes[2]), 0.0, 5 / std::sqrt(n));
  // Squares of partners: independent normals have uncorrelated squares; a faulty radius would not.
  for (auto& lane : lanes)
    for (double& x : lane) x *= x;
  EXPECT_NEAR(correlation(lanes[0], lanes[1]), 0.0, 5 / std::sqrt(n));
}

TEST(TangentStatistics, RademacherIsExactlyPlusOrMinusOneWithMeanZero) {
  const TangentGenerator gen(TangentKind::rademacher, 2024, 17);
  const auto v = whole_weights<double>(gen, 1, 0, kStatRows, kStatCols);
  for (double x : v) ASSERT_TRUE(x == 1.0 || x == -1.0) << x;
  EXPECT_NEAR(report("rademacher_mean", mean(v)), 0.0, 5 / std::sqrt(static_cast<double>(v.size())));
  // Neighbours share a Philox word; their signs are still uncorrelated.
  const std::vector<double> current(v.begin(), v.end() - 1), next(v.begin() + 1, v.end());
  EXPECT_NEAR(correlation(current, next), 0.0, 5 / std::sqrt(static_cast<double>(next.size())));
}

class TangentIndependence : public ::testing::TestWithParam<TangentKind> {};

TEST_P(TangentIndependence, TangentsOfOneStepAreUncorrelated) {
  const TangentGenerator gen(GetParam(), 31337, 2);
  std::vector<std::vector<double>> v;
  for (std::uint32_t k = 0; k < 4; ++k) v.push_back(whole_weights<double>(gen, 5, k, kStatRows, kStatCols));
  const double bound = 5 / std::sqrt(static_cast<double>(v[0].size()));
  report(std::string(name(GetParam())) + "_correlation_v0_v1", correlation(v[0], v[1]));
  for (std::size_t a = 0; a < v.size(); ++a)
    for (std::size_t b = a + 1; b < v.size(); ++b)
      EXPECT_NEAR(correlation(v[a], v[b]), 0.0, bound) << "k = " << a << ", " << b;
}

INSTANTIATE_TEST_SUITE_P(Kinds, TangentIndependence,
                         ::testing::Values(TangentKind::gaussian, TangentKind::rademacher),
                         [](const auto& test) { return std::string(name(test.param)); });

// ---- configuration ----

TEST(TangentConfig, ParsesKindAndCountAndNamesTheKeyInErrors) {
  ASSERT_NE(sim::OptionTable::find("fg.tangent"), nullptr);
  ASSERT_NE(sim::OptionTable::find("fg.tangents"), nullptr);
  sim::Config cfg;
  cfg.set("fg.tangent", "rademacher", "test");
  cfg.set("fg.tangents", "16", "test");
  EXPECT_EQ(parse_tangent_kind(cfg), TangentKind::rademacher);
  EXPECT_EQ(parse_tangent_count(cfg), 16u);
  cfg.set("fg.tangent", "gaussian", "test");
  EXPECT_EQ(parse_tangent_kind(cfg), TangentKind::gaussian);

  for (const auto& [key, value] : {std::pair{"fg.tangent", "uniform"}, std::pair{"fg.tangents", "0"},
                                   std::pair{"fg.tangents", "65537"}, std::pair{"fg.tangents", "two"}}) {
    sim::Config bad = cfg;
    bad.set(key, value, "test");
    try {
      parse_tangent_kind(bad);
      parse_tangent_count(bad);
      ADD_FAILURE() << key << " = " << value << " was accepted";
    } catch (const sim::ConfigError& e) {
      EXPECT_EQ(e.key(), key) << e.what();
    }
  }
}

}  // namespace
}  // namespace spatialsim::workloads
