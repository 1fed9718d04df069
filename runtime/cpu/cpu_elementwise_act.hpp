// Floating-point unary kernels, activations and activation backward.
#pragma once

#include "runtime/base/kernel.hpp"

namespace fxl::cpu::ew {

void registerActivations(KernelRegistry& reg, DeviceKind d);

}  // namespace fxl::cpu::ew
