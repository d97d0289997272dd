// Philox4x32 against the published known-answer vectors. Source: the philox4x32 rows of Random123's
// tests/kat_vectors (D. E. Shaw Research), as cut-and-pasted into DEShawResearch/Random123-Boost,
// libs/random/test/test_philox.cpp (commit 916db91a); the same rows appear verbatim in independent ports.
// Row format there: counter[4] key[2] -> output[4], hexadecimal words, counter and key word 0 first.
#include <gtest/gtest.h>

#include <cstdint>
#include <ostream>

#include "workloads/philox.h"

namespace spatialsim::workloads {
namespace {

struct KnownAnswer {
  int rounds;
  PhiloxBlock counter;
  PhiloxKey key;
  PhiloxBlock expected;
};

std::ostream& operator<<(std::ostream& os, const KnownAnswer& kat) {
  os << "philox4x32-" << kat.rounds << " counter " << std::hex;
  for (auto w : kat.counter) os << w << ' ';
  return os << "key " << kat.key[0] << ' ' << kat.key[1] << std::dec;
}

constexpr PhiloxBlock kZero{0, 0, 0, 0};
constexpr PhiloxBlock kOnes{0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu};
// The hexadecimal digits of pi, Random123's "arbitrary" test input.
constexpr PhiloxBlock kPiCounter{0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u};
constexpr PhiloxKey kPiKey{0xa4093822u, 0x299f31d0u};

const KnownAnswer kKnownAnswers[] = {
    {10, kZero, {0, 0}, {0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}},
    {10, kOnes, {0xffffffffu, 0xffffffffu}, {0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu}},
    {10, kPiCounter, kPiKey, {0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}},
    // The 7-round rows pin the key schedule separately from the round count.
    {7, kZero, {0, 0}, {0x5f6fb709u, 0x0d893f64u, 0x4f121f81u, 0x4f730a48u}},
    {7, kOnes, {0xffffffffu, 0xffffffffu}, {0x5207ddc2u, 0x45165e59u, 0x4d8ee751u, 0x8c52f662u}},
    {7, kPiCounter, kPiKey, {0x4dfccabau, 0x190a87f0u, 0xc47362bau, 0xb6b5242au}},
};

class PhiloxKnownAnswer : public ::testing::TestWithParam<KnownAnswer> {};

TEST_P(PhiloxKnownAnswer, MatchesRandom123) {
  const KnownAnswer& kat = GetParam();
  const PhiloxBlock out =
      kat.rounds == 10 ? philox4x32<10>(kat.counter, kat.key) : philox4x32<7>(kat.counter, kat.key);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(out[i], kat.expected[i]) << "word " << i;
}

INSTANTIATE_TEST_SUITE_P(Random123Vectors, PhiloxKnownAnswer, ::testing::ValuesIn(kKnownAnswers));

// The generator is usable at compile time (no hidden state); ten rounds is the default.
static_assert(philox4x32(kPiCounter, kPiKey) ==
              PhiloxBlock{0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u});

TEST(Philox, NeighbouringCountersShareNoWords) {
  // Counter-based use walks counters that differ in one low bit; the outputs must not.
  const PhiloxKey key{1, 2};
  const PhiloxBlock a = philox4x32({0, 0, 0, 0}, key);
  const PhiloxBlock b = philox4x32({1, 0, 0, 0}, key);
  const PhiloxBlock c = philox4x32({0, 0, 0, 0}, PhiloxKey{1, 3});
  for (int i = 0; i < 4; ++i) {
    EXPECT_NE(a[i], b[i]) << "word " << i;
    EXPECT_NE(a[i], c[i]) << "word " << i;
  }
}

}  // namespace
}  // namespace spatialsim::workloads
