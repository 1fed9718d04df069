// Arithmetic and selection kernels.
#pragma once

#include "runtime/base/kernel.hpp"

namespace fxl::cpu::ew {

void registerArithmetic(KernelRegistry& reg, DeviceKind d);

}  // namespace fxl::cpu::ew
