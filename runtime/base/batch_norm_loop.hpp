// The batch norm as a backend receives it (Backend::batchNorm), after the host logic the CPU
// and device kernels share (runtime/cpu/cpu_norm_batch.cpp: argument checks, the [N, C, HW]
// reading, outputs allocated, the per-channel tensors widened to the accumulation type A:
// double for f64, float otherwise, contiguous [C]). Per channel: the statistics over its N * HW
// elements in (n, hw) order (math/rows.hpp's moments), the running statistics updated in
// place, the outputs rounded once; the backward's sums S(dy), S(dy * xhat) and input gradient.
#pragma once

#include <cstdint>

namespace fxl {

class Tensor;

struct BatchNormLoop
{
    bool backward = false;
    bool training = true;  // forward: batch statistics; backward: train (saved statistics)
    int64_t N = 0, C = 0, HW = 1;
    double eps = 0, momentum = 0;
    const Tensor* x = nullptr;  // contiguous [N, C, *]
    const Tensor* dy = nullptr;  // backward: contiguous, x's sizes and dtype
    const Tensor* out = nullptr;  // forward: y; backward: dx or null; contiguous, x's dtype
    // A-typed [C], null when absent
    const Tensor* weight = nullptr;
    const Tensor* bias = nullptr;
    const Tensor* runningMean = nullptr;  // forward: read (eval) or updated (training)
    const Tensor* runningVar = nullptr;
    const Tensor* mean = nullptr;  // backward: save_mean (train) or running_mean (eval)
    const Tensor* rstd = nullptr;  // backward: save_invstd (train) or running_var (eval)
    const Tensor* meanOut = nullptr;  // forward, training
    const Tensor* rstdOut = nullptr;
    const Tensor* dw = nullptr;  // backward, or null
    const Tensor* db = nullptr;
};

}  // namespace fxl
