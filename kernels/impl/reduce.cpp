// Sum of one value per tile into the corner tile (0,0): columns into row 0, then row 0 into the corner.
#include "kernels/tree_collective.h"

namespace spatialsim::kernels {
namespace {

const KernelRegistry::Registration chain = register_tree_variant(
    {"reduce-chain", "sum of all tiles into the corner, neighbour to neighbour: columns, then row 0",
     TreeMode::reduce, LineShape::chain, RootPlace::corner});
const KernelRegistry::Registration tree = register_tree_variant(
    {"reduce-tree", "sum of all tiles into the corner over a binomial tree: columns, then row 0",
     TreeMode::reduce, LineShape::binomial, RootPlace::corner});

}  // namespace
}  // namespace spatialsim::kernels
