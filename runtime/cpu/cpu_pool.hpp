// CPU kernels of the pooling and resampling operators: max_pool{2,3}d_with_indices (+
// backwards), avg_pool{1,2,3}d (+ 2-d/3-d backwards), adaptive average pooling 1-d/2-d/3-d (+
// 2-d/3-d backwards), upsample_nearest2d / upsample_bilinear2d (.vec, + backwards), grid_sampler_2d.
#pragma once

#include "runtime/base/kernel.hpp"

namespace fxl::cpu {

// Every pooling and resampling kernel for the CPU; for a device (CUDA) the max pools and the
// nearest upsampling with their backwards, whose loops are the backend's (Backend::plane).
void registerPoolKernels(KernelRegistry& reg, DeviceKind d);

}  // namespace fxl::cpu
