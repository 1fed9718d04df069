// mm / addmm / bmm / baddbmm on the fixed-order GEMM engine.
#pragma once

#include "runtime/base/kernel.hpp"

namespace fxl::cpu {

void registerMatmulKernels(KernelRegistry& reg);

}  // namespace fxl::cpu
