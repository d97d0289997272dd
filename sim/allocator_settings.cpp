#include "sim/allocator_settings.h"

#include <cstdlib>  // defines __GLIBC__ under glibc

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace spatialsim::sim {

bool keep_freed_memory_for_reuse() {
#if defined(__GLIBC__)
  // 32 MB: glibc's DEFAULT_MMAP_THRESHOLD_MAX on 64-bit, the most it accepts. Setting it also stops glibc
  // from moving the threshold itself. The trim threshold is a size, so "never" is its largest value.
  constexpr int kLargestHeapBlock = 32 * 1024 * 1024;
  const bool mmap_set = mallopt(M_MMAP_THRESHOLD, kLargestHeapBlock) == 1;
  const bool trim_set = mallopt(M_TRIM_THRESHOLD, 0x7fffffff) == 1;
  return mmap_set && trim_set;
#else
  return false;
#endif
}

}  // namespace spatialsim::sim
