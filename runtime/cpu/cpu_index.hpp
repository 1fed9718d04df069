// The shape family's indexing ops (embedding, index*, gather, scatter*, nonzero).
#pragma once

#include "runtime/base/kernel.hpp"

namespace fxl::cpu::shape {

void registerIndexKernels(KernelRegistry& reg);
// The gathers (embedding, index_select, index.Tensor, gather) on device `d`: the host logic
// shared, the gather by Backend::gather on a device.
void registerGatherKernels(KernelRegistry& reg, DeviceKind d);

}  // namespace fxl::cpu::shape
