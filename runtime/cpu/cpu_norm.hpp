// CPU kernels of the row-wise normalisations (softmax family, layer norm).
#pragma once

#include "runtime/base/kernel.hpp"

namespace fxl::cpu::red {

void registerNormKernels(KernelRegistry& reg);

}  // namespace fxl::cpu::red
