// The shape family's sorting ops (sort, argsort, topk).
#pragma once

#include "runtime/base/kernel.hpp"

namespace fxl::cpu::shape {

void registerSortKernels(KernelRegistry& reg);

}  // namespace fxl::cpu::shape
