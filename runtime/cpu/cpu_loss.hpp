// CPU kernels of the losses and of embedding backward.
#pragma once

#include "runtime/base/kernel.hpp"

namespace fxl::cpu::red {

void registerLossKernels(KernelRegistry& reg);
// nll_loss and nll_loss2d (forward, backward) on device `d`: the host logic shared, the
// loss by Backend::nll on a device.
void registerNllKernels(KernelRegistry& reg, DeviceKind d);

}  // namespace fxl::cpu::red
