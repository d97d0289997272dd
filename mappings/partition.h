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

// The overlap of two ranges (size 0 when disjoint).
inline Range intersect(Range a, Range b) {
  const std::uint32_t lo = a.begin > b.begin ? a.begin : b.begin;
  const std::uint32_t hi = a.end() < b.end() ? a.end() : b.end();
  return hi > lo ? Range{lo, hi - lo} : Range{lo, 0};
}

}  // namespace spatialsim::mappings
