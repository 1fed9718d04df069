// mm / addmm / bmm / baddbmm on the fixed-order GEMM engine; on a device backend the same
// host logic with the device's chains (Backend::gemm) and the pointwise loop's epilogue.
#pragma once

#include "runtime/base/kernel.hpp"

namespace fxl::cpu {

void registerMatmulKernels(KernelRegistry& reg, DeviceKind d);

}  // namespace fxl::cpu
