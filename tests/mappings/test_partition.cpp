#include "mappings/partition.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>

namespace spatialsim::mappings {
namespace {

TEST(Split, SizesDifferByAtMostOneLargerFirstAndCoverTheDimension) {
  for (std::uint32_t n = 1; n <= 40; ++n)
    for (std::uint32_t k = 1; k <= n; ++k) {
      const auto parts = split(n, k);
      ASSERT_EQ(parts.size(), k);
      std::uint32_t at = 0;
      for (const Range& p : parts) {
        EXPECT_EQ(p.begin, at);
        EXPECT_TRUE(p.size == n / k || p.size == n / k + 1);
        EXPECT_LE(p.size, parts.front().size);  // the first ranges are the largest
        at = p.end();
      }
      EXPECT_EQ(at, n);
    }
  EXPECT_THROW(split(3, 4), std::invalid_argument);
  EXPECT_THROW(split(3, 0), std::invalid_argument);
}

// The busiest tile's product, against the largest ranges split actually hands out, on sizes that divide
// and sizes that do not.
TEST(BusiestTileProductFlops, IsTwiceTokensTimesTheLargestRanges) {
  for (std::uint32_t d_in : {1u, 7u, 12u, 37u})
    for (std::uint32_t d_out : {1u, 5u, 16u, 31u})
      for (std::uint32_t r = 1; r <= std::min(d_in, 4u); ++r)
        for (std::uint32_t c = 1; c <= std::min(d_out, 4u); ++c) {
          std::uint64_t largest = 0;
          for (const Range& i : split(d_in, r))
            for (const Range& j : split(d_out, c))
              largest = std::max<std::uint64_t>(largest, std::uint64_t{i.size} * j.size);
          EXPECT_EQ(busiest_tile_product_flops(9, d_in, d_out, r, c), 2 * 9 * largest)
              << d_in << "x" << d_out << " on " << r << "x" << c;
        }
}

}  // namespace
}  // namespace spatialsim::mappings
