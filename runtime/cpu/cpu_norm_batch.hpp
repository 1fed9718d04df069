// CPU kernels of the normalisations over groups of channels and over the batch:
// native_group_norm (+ backward), native_batch_norm (+ backward), _native_batch_norm_legit
// (with running stats, .no_stats), _native_batch_norm_legit_functional and
// _native_batch_norm_legit_no_training.
#pragma once

#include "runtime/base/kernel.hpp"

namespace fxl::cpu::red {

// The group norm and the batch norm, for the CPU and for CUDA (their loops the backend's on a
// device: Backend::groupNorm, Backend::batchNorm).
void registerBatchNormKernels(KernelRegistry& reg, DeviceKind d);

}  // namespace fxl::cpu::red
