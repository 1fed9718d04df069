// The group norm as a backend receives it (Backend::groupNorm), after the host logic the CPU
// and device kernels share (runtime/cpu/cpu_norm_batch.cpp: argument checks, outputs
// allocated, the per-channel weight and bias and the backward's mean / rstd widened to the
// accumulation type A: double for f64, float otherwise, contiguous). Rows (n, group) of
// C / G * HW contiguous elements: the moments, the normalised row and its affine; backward: the
// input gradient per row, the weight and bias gradients per channel over the batch.
#pragma once

#include <cstdint>

namespace fxl {

class Tensor;

struct GroupNormLoop
{
    bool backward = false;
    int64_t N = 0, C = 0, HW = 1, G = 1;
    double eps = 0;
    const Tensor* x = nullptr;  // contiguous [N, C, HW...]
    const Tensor* dy = nullptr;  // backward: contiguous, x's sizes and dtype
    const Tensor* out = nullptr;  // forward: y; backward: dx or null (x's dtype, contiguous)
    const Tensor* weight = nullptr;  // A-typed [C], or null
    const Tensor* bias = nullptr;
    const Tensor* meanOut = nullptr;  // forward: [N, G] in x's dtype
    const Tensor* rstdOut = nullptr;
    const Tensor* mean = nullptr;  // backward: A-typed [N * G]
    const Tensor* rstd = nullptr;
    const Tensor* dw = nullptr;  // backward: A-typed [C], or null
    const Tensor* db = nullptr;
};

}  // namespace fxl
