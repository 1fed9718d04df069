// The shape family's copies (cat, stack, repeat, flip, scatters into views, ...).
#pragma once

#include "runtime/base/kernel.hpp"

namespace fxl::cpu::shape {

void registerCopyKernels(KernelRegistry& reg, DeviceKind d);

}  // namespace fxl::cpu::shape
