// Allreduce: every tile ends with the sum of all tiles' values.
// - allreduce-reduce-broadcast: reduce-tree into the corner, then broadcast-tree back out (the baseline
//   the issue asks for).
// - allreduce-centre: the same binomial trees rooted at the centre tile. On a mesh that halves the depth
//   (each line is split into two half-length segments) and lowers the energy; on a torus every tile is a
//   centre, so it equals the baseline. docs/kernels.md compares the two.
#include "kernels/tree_collective.h"

namespace spatialsim::kernels {
namespace {

const KernelRegistry::Registration corner =
    register_tree_variant({"allreduce-reduce-broadcast",
                           "sum of all tiles to every tile: reduce-tree to the corner, then broadcast-tree",
                           TreeMode::allreduce, LineShape::binomial, RootPlace::corner});
const KernelRegistry::Registration centre = register_tree_variant(
    {"allreduce-centre", "sum of all tiles to every tile: binomial reduce to the centre tile, then broadcast",
     TreeMode::allreduce, LineShape::binomial, RootPlace::centre});

}  // namespace
}  // namespace spatialsim::kernels
