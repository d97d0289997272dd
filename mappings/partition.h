#pragma once
// Splitting a dimension of n elements into k contiguous ranges whose sizes differ by at most one
// (MODEL.md section 4): the first n % k ranges have one element more. Sizes need not divide.
//
// Usage:
//   auto parts = mappings::split(37, 3);   // {0,13} {13,12} {25,12}

#include <cstdint>
#include <stdexcept>
#include <vector>

namespace spatialsim::mappings {

struct Range {
  std::uint32_t begin = 0;
  std::uint32_t size = 0;
  std::uint32_t end() const { return begin + size; }
  bool operator==(const Range&) const = default;
};

inline std::vector<Range> split(std::uint32_t n, std::uint32_t k) {
  if (k == 0 || k > n) throw std::invalid_argument("split: need 1 <= parts <= elements");
  std::vector<Range> out(k);
  const std::uint32_t base = n / k;
  const std::uint32_t extra = n % k;
  std::uint32_t at = 0;
  for (std::uint32_t p = 0; p < k; ++p) {
    out[p] = {at, base + (p < extra ? 1u : 0u)};
    at += out[p].size;
  }
  return out;
}

// The flops of a T x d_in by d_in x d_out product on the busiest tile of an r x c block: split hands logical
// tile (0, 0) the largest ranges, ceil(d_in / r) by ceil(d_out / c), so 2 T ceil(d_in / r) ceil(d_out / c).
inline std::uint64_t busiest_tile_product_flops(std::uint64_t tokens, std::uint64_t d_in, std::uint64_t d_out,
                                                std::uint64_t rows, std::uint64_t cols) {
  return 2 * tokens * ((d_in + rows - 1) / rows) * ((d_out + cols - 1) / cols);
}

// The overlap of two ranges (size 0 when disjoint).
inline Range intersect(Range a, Range b) {
  const std::uint32_t lo = a.begin > b.begin ? a.begin : b.begin;
  const std::uint32_t hi = a.end() < b.end() ? a.end() : b.end();
  return hi > lo ? Range{lo, hi - lo} : Range{lo, 0};
}

}  // namespace spatialsim::mappings
