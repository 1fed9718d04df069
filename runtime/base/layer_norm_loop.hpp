// The layer norm as a backend receives it, after the host logic the CPU and device kernels
// share (shapes, dtypes, outputs allocated, the affine parameters and the backward's mean and
// rstd widened to the accumulation type A: float for f32 / bf16 / f16, double for f64). Rows are
// x's dims before `axis`, a row's elements the dims from `axis` on (both row-major). Forward: per
// row the moments, rstd and the normalized row (math/rows.hpp), a float row whose moments are
// not finite redone in double; backward: per row the input gradient (its wide formula where the
// float one is not finite), per column the weight and bias gradients summed over the rows in
// math/sum_order.hpp's order (a float column sum that is not finite redone in double). Values
// rounded once to the outputs' dtypes (Backend::layerNorm).
#pragma once

#include <cstdint>

namespace fxl {

class Tensor;

struct LayerNormLoop
{
    bool backward = false;
    const Tensor* x = nullptr;
    int64_t axis = 0;
    double eps = 0;
    const Tensor* weight = nullptr;  // A-typed, contiguous [n], or null
    const Tensor* bias = nullptr;  // forward: A-typed, contiguous [n], or null
    // forward outputs: out (x's sizes), mean and rstd ([rows] elements), contiguous, x's dtype
    const Tensor* out = nullptr;
    const Tensor* mean = nullptr;  // backward: A-typed, contiguous [rows] inputs
    const Tensor* rstd = nullptr;
    // backward: dy (x's sizes), dx (contiguous, or null), dw and db (contiguous [n], or null)
    const Tensor* dy = nullptr;
    const Tensor* dx = nullptr;
    const Tensor* dw = nullptr;
    const Tensor* db = nullptr;
};

}  // namespace fxl
