// CPU kernels of the pooling and resampling operators: max_pool{2,3}d_with_indices (+ 2-d
// backward), avg_pool{1,2,3}d (+ 2-d backward), adaptive average pooling 1-d/2-d/3-d (+ 2-d
// backward), upsample_nearest2d / upsample_bilinear2d (.vec, + backwards), grid_sampler_2d.
#pragma once

#include "runtime/kernel.hpp"

namespace fxl::cpu {

void registerPoolKernels(KernelRegistry& reg);

}  // namespace fxl::cpu
