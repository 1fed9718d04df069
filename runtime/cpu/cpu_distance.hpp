// CPU kernels of the pairwise distances: _cdist_forward and _pdist_forward.
#pragma once

#include "runtime/base/kernel.hpp"

namespace fxl::cpu::red {

void registerDistanceKernels(KernelRegistry& reg);

}  // namespace fxl::cpu::red
