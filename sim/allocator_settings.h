#pragma once
// How the process's allocator treats large freed blocks: kept for reuse instead of handed back to the
// kernel.
//
// Why: an arithmetic run allocates the values each message carries (slices of 64 KB to a few MB) and frees
// them when the message has been used, thousands of times a step. By default glibc serves a block of
// 128 KB or more with its own mmap and unmaps it on free, and gives the top of its heap back to the kernel
// once 128 KB of it is free, so the next slice of the same size faults every page in again. On the
// project's VM the faults and the memset of fresh matrices were a third of an fp32 run's profile, and an
// fp32 step ran 1.6 times as fast without them (docs/performance.md, "Freed slices kept for reuse").
// Memory then stays at the run's peak instead of following it down; it never grows past it.
//
// Usage:
//   sim::keep_freed_memory_for_reuse();   // before any thread starts (sim::prepare_process does)

namespace spatialsim::sim {

// Blocks up to 32 MB (glibc's largest threshold) come from the heap, and freed memory at its top stays
// there. A no-op where the C library is not glibc. Returns whether the allocator took the settings.
bool keep_freed_memory_for_reuse();

}  // namespace spatialsim::sim
