// CPU kernels of aten.convolution and aten.convolution_backward (1-d/2-d/3-d, groups,
// stride, padding, dilation, transposed).
#pragma once

#include "runtime/kernel.hpp"

namespace fxl::cpu {

void registerConvKernels(KernelRegistry& reg);

}  // namespace fxl::cpu
