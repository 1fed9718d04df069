// Factories of the built-in passes. registerBuiltinPasses (passes/builtin_passes.cpp) adds
// them to a PassRegistry in a fixed order; each pass lives in its own passes/<name>.cpp.
#pragma once

#include <memory>

#include "passes/pass.hpp"

namespace fxl {

// --- cleanup passes (passes/dce.cpp, passes/cse.cpp, passes/remove_detach.cpp)
std::unique_ptr<Pass> makeDcePass();
std::unique_ptr<Pass> makeCsePass();
std::unique_ptr<Pass> makeRemoveDetachPass();

// --- other engineers: add ONE factory declaration each below this line
// (annotate_regions, sac, remat: passes/annotate_regions.cpp, passes/sac.cpp, passes/remat.cpp;
//  partition: passes/partition.cpp)

// activation checkpointing (passes/annotate_regions.cpp, passes/sac.cpp, passes/remat.cpp)
std::unique_ptr<Pass> makeAnnotateRegionsPass();
std::unique_ptr<Pass> makeSacPass();
std::unique_ptr<Pass> makeRematPass();
// partition (passes/partition.cpp)
std::unique_ptr<Pass> makePartitionPass();
// --- end of other engineers' factories

}  // namespace fxl
