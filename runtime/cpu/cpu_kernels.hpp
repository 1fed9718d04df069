// The CPU backend's kernels: one registration function per kernel family file, all called
// once by KernelRegistry::instance().
#pragma once

#include "runtime/base/kernel.hpp"

namespace fxl {

void registerCpuKernels(KernelRegistry& reg);

}  // namespace fxl
