// Comparison, min/max, clamp, logical and predicate kernels.
#pragma once

#include "runtime/base/kernel.hpp"

namespace fxl::cpu::ew {

void registerComparisons(KernelRegistry& reg, DeviceKind d);

}  // namespace fxl::cpu::ew
