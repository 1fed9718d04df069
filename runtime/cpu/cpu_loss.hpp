// CPU kernels of the losses and of embedding backward.
#pragma once

#include "runtime/base/kernel.hpp"

namespace fxl::cpu::red {

void registerLossKernels(KernelRegistry& reg);

}  // namespace fxl::cpu::red
