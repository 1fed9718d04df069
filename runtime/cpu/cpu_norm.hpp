// CPU kernels of the row-wise normalisations (softmax family, layer norm).
#pragma once

#include "runtime/base/kernel.hpp"

namespace fxl::cpu::red {

void registerNormKernels(KernelRegistry& reg);
// The softmax family on device `d` (its host logic shared; Backend::rows on a device).
void registerSoftmaxKernels(KernelRegistry& reg, DeviceKind d);

}  // namespace fxl::cpu::red
