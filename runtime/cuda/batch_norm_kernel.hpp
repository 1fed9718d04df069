// The batch norm (Backend::batchNorm, runtime/base/batch_norm_loop.hpp): a thread per channel,
// as the CPU kernel's threads take channels (cpu_norm_batch.cpp): the channel's statistics over
// its N * HW elements in (n, hw) order with math/rows.hpp's formulas, the running statistics
// updated, then the channel's outputs; the backward's two sums and input gradient likewise.
// Elements are loaded and stored by rows_kernel.hpp's rules (exact widening, one rounding).
// One kernel body for the GPU and the emulator.
#pragma once

#include <cstdint>

#include "runtime/cuda/launch.hpp"
#include "runtime/cuda/rows_kernel.hpp"
#include "runtime/math/rows.hpp"
#include "runtime/math/sum_order.hpp"

namespace fxl::cuda {

struct BatchNormParams
{
    bool backward = false;
    bool training = true;  // forward: batch statistics; backward: train (the saved statistics)
    int elem = kFloatF32;  // x's, dy's and out's element type (float, or double for f64)
    int64_t N = 0, C = 0, HW = 1;
    double eps = 0, momentum = 0;
    const void* x = nullptr;
    const void* dy = nullptr;  // backward
    void* out = nullptr;  // forward: y; backward: dx (null when not asked for)
    // per channel, in the accumulation type A (double for f64, else float); null when absent
    const void* weight = nullptr;
    const void* bias = nullptr;
    void* runningMean = nullptr;  // forward: read (eval) or updated in place (training)
    void* runningVar = nullptr;
    const void* mean = nullptr;  // backward: save_mean (train) or running_mean (eval)
    const void* rstd = nullptr;  // backward: save_invstd (train) or running_var (eval)
    void* meanOut = nullptr;  // forward, training: the batch statistics
    void* rstdOut = nullptr;
    void* dw = nullptr;  // backward: S(dy * xhat), S(dy)
    void* db = nullptr;
};

template<class A>
FXL_HD inline void batchNormChannel(const BatchNormParams& p, int64_t c)
{
    const int64_t M = p.N * p.HW;
    auto at = [&](int64_t i) { return ((i / p.HW) * p.C + c) * p.HW + i % p.HW; };
    const A* w = static_cast<const A*>(p.weight);
    const A eps = static_cast<A>(p.eps);
    if (!p.backward) {
        A* rm = static_cast<A*>(p.runningMean);
        A* rv = static_cast<A*>(p.runningVar);
        A mean, rstd;
        if (p.training) {
            const math::rows::Moments<A> m =
                math::rows::moments<A>(M, [&](int64_t i) { return rowsLoad<A>(p.elem, p.x, at(i)); });
            const A var = m.m2 / static_cast<A>(M);
            mean = m.mean;
            rstd = math::rows::rstdOf(var, eps);
            const A mom = static_cast<A>(p.momentum);
            if (rm) rm[c] = math::rows::runningUpdate(rm[c], mean, mom);
            if (rv) rv[c] = math::rows::runningUpdate(rv[c], math::rows::unbiasedVariance(var, M), mom);
            static_cast<A*>(p.meanOut)[c] = mean;
            static_cast<A*>(p.rstdOut)[c] = rstd;
        } else {
            mean = rm[c];
            rstd = math::rows::rstdOf(rv[c], eps);
        }
        const A* b = static_cast<const A*>(p.bias);
        const A wc = w ? w[c] : A(0), bc = b ? b[c] : A(0);
        for (int64_t i = 0; i < M; ++i)
            rowsStore<A>(p.elem, p.out, at(i),
                         math::rows::affine(math::rows::normalized(rowsLoad<A>(p.elem, p.x, at(i)), mean, rstd),
                                            w != nullptr, wc, b != nullptr, bc));
        return;
    }
    const A m = static_cast<const A*>(p.mean)[c];
    A rs = static_cast<const A*>(p.rstd)[c];
    if (!p.training) rs = math::rows::rstdOf(rs, eps);  // the running variance
    const A wc = w ? w[c] : A(1);
    auto xhat = [&](int64_t i) { return math::rows::normalized(rowsLoad<A>(p.elem, p.x, at(i)), m, rs); };
    const A sdy = math::sum::sumOrdered<A>(M, [&](int64_t i) { return rowsLoad<A>(p.elem, p.dy, at(i)); });
    const A sdyx = math::sum::sumOrdered<A>(M, [&](int64_t i) { return rowsLoad<A>(p.elem, p.dy, at(i)) * xhat(i); });
    if (p.dw) static_cast<A*>(p.dw)[c] = sdyx;
    if (p.db) static_cast<A*>(p.db)[c] = sdy;
    if (!p.out) return;
    const A mA = static_cast<A>(M);
    if (p.training) {
        const A scale = rs * wc / mA;
        for (int64_t i = 0; i < M; ++i)
            rowsStore<A>(p.elem, p.out, at(i),
                         math::rows::normInputGrad(scale, mA, rowsLoad<A>(p.elem, p.dy, at(i)), sdy, xhat(i), sdyx));
    } else {
        for (int64_t i = 0; i < M; ++i)
            rowsStore<A>(p.elem, p.out, at(i), math::rows::fixedStatsGrad(rowsLoad<A>(p.elem, p.dy, at(i)), rs, wc));
    }
}

FXL_HD inline void batchNormBody(const Coord& c, const BatchNormParams& p)
{
    for (int64_t ch = c.globalX(); ch < p.C; ch += c.strideX()) {
        if (p.elem == kFloatF64)
            batchNormChannel<double>(p, ch);
        else
            batchNormChannel<float>(p, ch);
    }
}

}  // namespace fxl::cuda
