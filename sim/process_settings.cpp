#include "sim/process_settings.h"

#include "sim/allocator_settings.h"
#include "sim/blas_kernels.h"

namespace spatialsim::sim {

void prepare_process() {
  keep_freed_memory_for_reuse();  // false where the allocator is not glibc's: nothing to set there
  use_single_threaded_blas();
}

}  // namespace spatialsim::sim
