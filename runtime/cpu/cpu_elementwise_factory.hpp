// Factories and fills.
#pragma once

#include "runtime/base/kernel.hpp"

namespace fxl::cpu::ew {

void registerFactories(KernelRegistry& reg, DeviceKind d);

}  // namespace fxl::cpu::ew
