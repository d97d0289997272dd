// Large freed blocks are kept for reuse, not handed back to the kernel (sim/allocator_settings.h).
#include "sim/allocator_settings.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace spatialsim::sim {
namespace {

// Where the test keeps its block, so that the compiler cannot drop the allocation.
void* volatile g_block = nullptr;

TEST(AllocatorSettings, ABlockOfMegabytesComesFromTheHeapAndStaysThereOnceFreed) {
#if !defined(__GLIBC__) || defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "glibc's allocator only (AddressSanitizer brings its own)";
#else
  ASSERT_TRUE(keep_freed_memory_for_reuse());
  // 8 MB: glibc's own mapping by default (its threshold starts at 128 KB and moves up only as mapped
  // blocks are freed), handed back on free.
  constexpr std::size_t kBytes = std::size_t{8} << 20;
  const std::size_t mapped_before = mallinfo2().hblks;
  g_block = std::malloc(kBytes);
  ASSERT_NE(g_block, nullptr);
  std::memset(g_block, 1, kBytes);
  EXPECT_EQ(mallinfo2().hblks, mapped_before) << "the block has a mapping of its own";
  std::free(g_block);
  g_block = nullptr;
  EXPECT_GE(mallinfo2().fordblks, kBytes) << "the freed block went back to the kernel";
#endif
}

}  // namespace
}  // namespace spatialsim::sim
