// The built-in passes, registered in a fixed order (the order `fxlens passes list` shows).
#include "passes/builtin_passes.hpp"

namespace fxl {

void registerBuiltinPasses(PassRegistry& reg) {
    reg.add(makeRemoveDetachPass());
    reg.add(makeDcePass());
    reg.add(makeCsePass());
    // --- other engineers: add ONE reg.add(makeXxxPass()); line each below this line

    reg.add(makeAnnotateRegionsPass());
    reg.add(makeSacPass());
    reg.add(makeRematPass());
    reg.add(makePartitionPass());
    // --- end of other engineers' passes
}

}  // namespace fxl
