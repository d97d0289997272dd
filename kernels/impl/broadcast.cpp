// Broadcast of one value from the corner tile (0,0) to every tile, row then column.
#include "kernels/tree_collective.h"

namespace spatialsim::kernels {
namespace {

const KernelRegistry::Registration chain = register_tree_variant(
    {"broadcast-chain", "corner to all tiles, neighbour to neighbour: row 0, then every column",
     TreeMode::broadcast, LineShape::chain, RootPlace::corner});
const KernelRegistry::Registration tree = register_tree_variant(
    {"broadcast-tree", "corner to all tiles over a binomial (recursive halving) tree: row 0, then columns",
     TreeMode::broadcast, LineShape::binomial, RootPlace::corner});

}  // namespace
}  // namespace spatialsim::kernels
