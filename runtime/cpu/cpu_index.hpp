// The shape family's indexing ops (embedding, index*, gather, scatter*, nonzero).
#pragma once

#include "runtime/base/kernel.hpp"

namespace fxl::cpu::shape {

void registerIndexKernels(KernelRegistry& reg);

}  // namespace fxl::cpu::shape
