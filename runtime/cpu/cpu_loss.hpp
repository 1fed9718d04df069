// CPU kernels of the losses and of embedding backward.
#pragma once

#include "runtime/base/kernel.hpp"

namespace fxl::cpu::red {

void registerLossKernels(KernelRegistry& reg);
// nll_loss, nll_loss2d (forward, backward) and embedding_dense_backward on device `d`: the
// host logic shared; on a device the loss by Backend::nll, the gradient by Backend::segmentSum.
void registerDeviceLossKernels(KernelRegistry& reg, DeviceKind d);

}  // namespace fxl::cpu::red
