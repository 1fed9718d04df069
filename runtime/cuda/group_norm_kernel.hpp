// The group norm (Backend::groupNorm, runtime/base/group_norm_loop.hpp), as the CPU kernel
// splits it (cpu_norm_batch.cpp): the forward and the input gradient a thread per row (n,
// group) of D = C / G * HW contiguous elements, the weight and bias gradients a thread per
// channel over the batch in (n, hw) order; math/rows.hpp's formulas and math/sum_order.hpp's
// order; elements loaded and stored by rows_kernel.hpp's rules. One kernel body for the GPU and
// the emulator.
#pragma once

#include <cstdint>

#include "runtime/cuda/launch.hpp"
#include "runtime/cuda/rows_kernel.hpp"
#include "runtime/math/rows.hpp"
#include "runtime/math/sum_order.hpp"

namespace fxl::cuda {

struct GroupNormParams
{
    bool backward = false;
    int phase = 0;  // backward: 0 the input gradient (per row), 1 the weight / bias gradients (per channel)
    int elem = kFloatF32;  // x's, dy's and out's (and the forward's mean / rstd outputs')
    int64_t N = 0, C = 0, HW = 1, G = 1;
    double eps = 0;
    const void* x = nullptr;
    const void* dy = nullptr;
    void* out = nullptr;  // forward: y; backward: dx (or null)
    const void* weight = nullptr;  // A-typed [C], or null
    const void* bias = nullptr;
    void* meanOut = nullptr;  // forward: [N * G], elem-typed
    void* rstdOut = nullptr;
    const void* mean = nullptr;  // backward: A-typed [N * G]
    const void* rstd = nullptr;
    void* dw = nullptr;  // backward: A-typed [C], or null
    void* db = nullptr;
};

template<class A>
FXL_HD inline void groupNormRow(const GroupNormParams& p, int64_t r)
{
    const int64_t cpg = p.C / p.G, D = cpg * p.HW, c0 = (r % p.G) * cpg;
    const A* w = static_cast<const A*>(p.weight);
    const int64_t base = r * D;
    if (!p.backward) {
        const A* b = static_cast<const A*>(p.bias);
        const math::rows::Moments<A> m =
            math::rows::moments<A>(D, [&](int64_t i) { return rowsLoad<A>(p.elem, p.x, base + i); });
        const A var = m.m2 / static_cast<A>(D);
        const A rstd = math::rows::rstdOf(var, static_cast<A>(p.eps));
        for (int64_t j = 0; j < D; ++j) {
            const int64_t c = c0 + j / p.HW;
            rowsStore<A>(p.elem, p.out, base + j,
                         math::rows::affine(math::rows::normalized(rowsLoad<A>(p.elem, p.x, base + j), m.mean, rstd),
                                            w != nullptr, w ? w[c] : A(0), b != nullptr, b ? b[c] : A(0)));
        }
        rowsStore<A>(p.elem, p.meanOut, r, m.mean);
        rowsStore<A>(p.elem, p.rstdOut, r, rstd);
        return;
    }
    const A mean = static_cast<const A*>(p.mean)[r], rs = static_cast<const A*>(p.rstd)[r];
    auto g = [&](int64_t j) {
        const A v = rowsLoad<A>(p.elem, p.dy, base + j);
        return w ? v * w[c0 + j / p.HW] : v;
    };
    auto xhat = [&](int64_t j) { return math::rows::normalized(rowsLoad<A>(p.elem, p.x, base + j), mean, rs); };
    const A sg = math::sum::sumOrdered<A>(D, g);
    const A sgx = math::sum::sumOrdered<A>(D, [&](int64_t j) { return g(j) * xhat(j); });
    const A dA = static_cast<A>(D), scale = rs / dA;
    for (int64_t j = 0; j < D; ++j)
        rowsStore<A>(p.elem, p.out, base + j, math::rows::normInputGrad(scale, dA, g(j), sg, xhat(j), sgx));
}

template<class A>
FXL_HD inline void groupNormChannel(const GroupNormParams& p, int64_t c)
{
    const int64_t cpg = p.C / p.G, grp = c / cpg;
    const A* mean = static_cast<const A*>(p.mean);
    const A* rstd = static_cast<const A*>(p.rstd);
    auto at = [&](int64_t i) { return ((i / p.HW) * p.C + c) * p.HW + i % p.HW; };
    if (p.dw)
        static_cast<A*>(p.dw)[c] = math::sum::sumOrdered<A>(p.N * p.HW, [&](int64_t i) {
            const int64_t s = (i / p.HW) * p.G + grp;
            return rowsLoad<A>(p.elem, p.dy, at(i))
                * math::rows::normalized(rowsLoad<A>(p.elem, p.x, at(i)), mean[s], rstd[s]);
        });
    if (p.db)
        static_cast<A*>(p.db)[c] =
            math::sum::sumOrdered<A>(p.N * p.HW, [&](int64_t i) { return rowsLoad<A>(p.elem, p.dy, at(i)); });
}

// The threads a launch needs: a row each (forward, backward phase 0), a channel each (phase 1).
FXL_HD inline int64_t groupNormThreads(const GroupNormParams& p)
{
    return p.backward && p.phase == 1 ? p.C : p.N * p.G;
}

FXL_HD inline void groupNormBody(const Coord& c, const GroupNormParams& p)
{
    const int64_t n = groupNormThreads(p);
    const bool channels = p.backward && p.phase == 1;
    for (int64_t i = c.globalX(); i < n; i += c.strideX()) {
        if (p.elem == kFloatF64) {
            if (channels)
                groupNormChannel<double>(p, i);
            else
                groupNormRow<double>(p, i);
        } else {
            if (channels)
                groupNormChannel<float>(p, i);
            else
                groupNormRow<float>(p, i);
        }
    }
}

}  // namespace fxl::cuda
