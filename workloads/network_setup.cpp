#include "workloads/network_setup.h"

#include <stdexcept>

namespace spatialsim::workloads {

std::vector<std::uint32_t> wavefront_sizes(std::uint32_t tokens, std::uint32_t per_wavefront) {
  if (tokens == 0 || per_wavefront == 0)
    throw std::invalid_argument("wavefront_sizes: sizes must be positive");
  std::vector<std::uint32_t> sizes(tokens / per_wavefront, per_wavefront);
  if (tokens % per_wavefront != 0) sizes.push_back(tokens % per_wavefront);
  return sizes;
}

}  // namespace spatialsim::workloads
