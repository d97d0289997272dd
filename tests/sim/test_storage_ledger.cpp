#include <gtest/gtest.h>

#include "sim/storage_ledger.h"

namespace spatialsim::sim {
namespace {

TEST(StorageLedger, IntegratesStashOverTimeAndTracksPeaks) {
  StorageLedger ledger(3);
  ledger.add(0, StorageCategory::stash, 100, 2);
  ledger.add(1, StorageCategory::stash, 50, 4);
  ledger.release(0, StorageCategory::stash, 100, 10);
  ledger.add(1, StorageCategory::stash, 70, 10);
  ledger.release(1, StorageCategory::stash, 120, 12);
  ledger.finish(20);
  // Brute force: 100 over [2,10), 50 over [4,12), 70 over [10,12).
  EXPECT_EQ(ledger.byte_cycles(StorageCategory::stash), 100u * 8 + 50u * 8 + 70u * 2);
  EXPECT_EQ(ledger.peak_total(StorageCategory::stash), 150u);
  EXPECT_EQ(ledger.peak_tile(StorageCategory::stash), 120u);
  EXPECT_EQ(ledger.peak_of_tile(0, StorageCategory::stash), 100u);
  EXPECT_EQ(ledger.byte_cycles(StorageCategory::weights), 0u);
}

TEST(StorageLedger, ReleasingMoreThanHeldIsAProgramError) {
  StorageLedger ledger(1);
  ledger.add(0, StorageCategory::stash, 10, 0);
  EXPECT_THROW(ledger.release(0, StorageCategory::stash, 11, 1), std::logic_error);
}

TEST(StorageLedger, RecordsOverflowPerTileWithItsLargestExcess) {
  StorageLedger ledger(2, 100);
  ledger.add(1, StorageCategory::weights, 80, 0);
  ledger.add(1, StorageCategory::stash, 30, 3);   // 10 over
  ledger.add(1, StorageCategory::stash, 25, 4);   // 35 over
  ledger.add(0, StorageCategory::stash, 100, 5);  // exactly full: no overflow
  ASSERT_EQ(ledger.overflows().size(), 1u);
  EXPECT_EQ(ledger.overflows()[0].tile, 1u);
  EXPECT_EQ(ledger.overflows()[0].category, StorageCategory::stash);
  EXPECT_EQ(ledger.overflows()[0].excess_bytes, 35u);
  EXPECT_EQ(ledger.overflows()[0].first_cycle, 3u);
}

}  // namespace
}  // namespace spatialsim::sim
