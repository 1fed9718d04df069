// CPU kernels of the pooling and resampling operators: max_pool{2,3}d_with_indices (+
// backwards), avg_pool{1,2,3}d (+ 2-d/3-d backwards), adaptive average pooling 1-d/2-d/3-d (+
// 2-d/3-d backwards), upsample_nearest2d / upsample_bilinear2d (.vec, + backwards), grid_sampler_2d.
#pragma once

#include "runtime/base/kernel.hpp"

namespace fxl::cpu {

void registerPoolKernels(KernelRegistry& reg);

}  // namespace fxl::cpu
