// The CPU backend's kernels: one registration function per kernel family file, all called
// once by KernelRegistry::instance().
#pragma once

#include "runtime/base/kernel.hpp"

namespace fxl {

void registerCpuKernels(KernelRegistry& reg);
// The CUDA backend's operators that share the CPU kernels' host logic (the elementwise and
// matmul families: their loops go through Backend::pointwise and Backend::gemm).
void registerCudaKernels(KernelRegistry& reg);

}  // namespace fxl
