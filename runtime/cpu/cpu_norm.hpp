// CPU kernels of the row-wise normalisations (softmax family, layer norm).
#pragma once

#include "runtime/base/kernel.hpp"

namespace fxl::cpu::red {

void registerNormKernels(KernelRegistry& reg);
// The softmax family and the layer norm on device `d` (their host logic shared; Backend::rows
// and Backend::layerNorm on a device).
void registerSoftmaxKernels(KernelRegistry& reg, DeviceKind d);

}  // namespace fxl::cpu::red
