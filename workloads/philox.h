#pragma once
// Philox4x32-R, the counter-based generator of Salmon, Moraes, Dror and Shaw, "Parallel random numbers:
// as easy as 1, 2, 3" (SC11), with the constants of their Random123 library. A counter-based generator is
// a keyed bijection of a 128-bit counter: the value for any counter is computed directly, with no state
// and no sequence to walk, which is what lets every tile regenerate its own slice of a forward-gradient
// tangent in any order (docs/tangents.md). Ten rounds is Random123's default (7 already pass TestU01's
// BigCrush; 10 is the safety margin); the round count is a template parameter only so that the tests can
// also check the published 7-round vectors.
//
// Usage:
//   const workloads::PhiloxKey key{0xa4093822u, 0x299f31d0u};
//   const workloads::PhiloxBlock out = workloads::philox4x32({1u, 2u, 3u, 4u}, key);  // 4 random words
//
// Contract: a pure function of (counter, key); bit-identical on every platform and compiler (only 32-bit
// unsigned arithmetic, whose wraparound is defined), and equal to Random123's philox4x32_R for the same
// arguments (tests/workloads/test_philox.cpp checks the known-answer vectors).

#include <array>
#include <cstdint>

namespace spatialsim::workloads {

using PhiloxBlock = std::array<std::uint32_t, 4>;  // a counter, or the four output words
using PhiloxKey = std::array<std::uint32_t, 2>;

namespace philox_detail {

// Random123's PHILOX_M4x32_0/1 (the multipliers) and PHILOX_W32_0/1 (the Weyl key increments: the
// golden ratio and sqrt(3) - 1, as 32-bit fractions).
inline constexpr std::uint32_t kMultiplier0 = 0xD2511F53u;
inline constexpr std::uint32_t kMultiplier1 = 0xCD9E8D57u;
inline constexpr std::uint32_t kWeyl0 = 0x9E3779B9u;
inline constexpr std::uint32_t kWeyl1 = 0xBB67AE85u;

constexpr PhiloxBlock round(const PhiloxBlock& ctr, const PhiloxKey& key) {
  const std::uint64_t product0 = std::uint64_t{kMultiplier0} * ctr[0];
  const std::uint64_t product1 = std::uint64_t{kMultiplier1} * ctr[2];
  const auto hi0 = static_cast<std::uint32_t>(product0 >> 32);
  const auto lo0 = static_cast<std::uint32_t>(product0);
  const auto hi1 = static_cast<std::uint32_t>(product1 >> 32);
  const auto lo1 = static_cast<std::uint32_t>(product1);
  return {hi1 ^ ctr[1] ^ key[0], lo1, hi0 ^ ctr[3] ^ key[1], lo0};
}

}  // namespace philox_detail

// Philox4x32 with `Rounds` rounds; the first round uses the key as given, each later one the key advanced
// by the Weyl increments once more (Random123's philox4x32_R).
template <int Rounds = 10>
constexpr PhiloxBlock philox4x32(PhiloxBlock counter, PhiloxKey key) {
  static_assert(Rounds >= 1 && Rounds <= 16, "Random123 defines Philox for 1..16 rounds");
  for (int r = 0; r < Rounds; ++r) {
    if (r > 0) {
      key[0] += philox_detail::kWeyl0;
      key[1] += philox_detail::kWeyl1;
    }
    counter = philox_detail::round(counter, key);
  }
  return counter;
}

}  // namespace spatialsim::workloads
