#include "passes/builtin_passes.hpp"

#include "passes/annotate_regions.hpp"
#include "passes/chunk_region.hpp"
#include "passes/concretize_symbols.hpp"
#include "passes/auto_chunk.hpp"
#include "passes/cse.hpp"
#include "passes/dce.hpp"
#include "passes/partition.hpp"
#include "passes/remat.hpp"
#include "passes/remove_detach.hpp"
#include "passes/sac.hpp"

namespace fxl {

void registerBuiltinPasses(PassRegistry& reg)
{
    reg.add(makeRemoveDetachPass());
    reg.add(makeDcePass());
    reg.add(makeCsePass());
    reg.add(makeAnnotateRegionsPass());
    reg.add(makeSacPass());
    reg.add(makeRematPass());
    reg.add(makePartitionPass());
    reg.add(makeChunkRegionPass());
    reg.add(makeConcretizeSymbolsPass());
    reg.add(makeAutoChunkPass());
}

}  // namespace fxl
