#pragma once
// A small, portable, seedable random source. std::normal_distribution differs between standard libraries,
// so the same seed would give different weights on another machine; this one gives the same numbers
// everywhere: SplitMix64 for bits, Box-Muller for normals.
//
// Usage:
//   workloads::Random rng(seed, /*stream=*/3);
//   double g = rng.normal();  double u = rng.uniform();  std::uint64_t k = rng.below(10);

#include <cmath>
#include <cstdint>

namespace spatialsim::workloads {

class Random {
 public:
  // Distinct (seed, stream) pairs give independent-looking sequences (stream: weights, data, ...).
  Random(std::uint64_t seed, std::uint64_t stream)
      : m_state(mix(seed ^ mix(stream + 0x632BE59BD9B4E019ull))) {}

  std::uint64_t next() {
    m_state += 0x9E3779B97F4A7C15ull;
    return mix(m_state);
  }
  // Uniform in [0, 1), 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  std::uint64_t below(std::uint64_t n) { return next() % n; }
  double normal() {
    if (m_have_spare) {
      m_have_spare = false;
      return m_spare;
    }
    double u1 = uniform();
    while (u1 <= 0.0) u1 = uniform();
    const double u2 = uniform();
    const double radius = std::sqrt(-2.0 * std::log(u1));
    constexpr double kTwoPi = 6.283185307179586476925286766559;
    m_spare = radius * std::sin(kTwoPi * u2);
    m_have_spare = true;
    return radius * std::cos(kTwoPi * u2);
  }

 private:
  static std::uint64_t mix(std::uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  std::uint64_t m_state;
  double m_spare = 0;
  bool m_have_spare = false;
};

}  // namespace spatialsim::workloads
