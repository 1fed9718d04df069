// Padding kernels: constant_pad_nd (negative pads crop), reflection_pad{1,2,3}d and
// replication_pad{2,3}d. Pure data movement (bit copies of the input's elements and of the
// fill value), so every dtype gives PyTorch's bits and threads never change a result.
#pragma once

#include "runtime/base/kernel.hpp"

namespace fxl::cpu {

void registerPadKernels(KernelRegistry& reg);

}  // namespace fxl::cpu
