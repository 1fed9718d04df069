// The layer norm (runtime/base/layer_norm_loop.hpp): the forward and the backward's input
// gradient one thread per row, the backward's weight and bias gradients one thread per column,
// each with the CPU kernel's row formulas (math/rows.hpp) and sum order. Kernel bodies for the
// GPU and the emulator (launch.hpp).
#pragma once

#include <cstdint>

#include "runtime/cuda/launch.hpp"
#include "runtime/cuda/rows_kernel.hpp"
#include "runtime/math/bits.hpp"
#include "runtime/math/rows.hpp"
#include "runtime/math/sum_order.hpp"

namespace fxl::cuda {

struct LayerNormParams
{
    int elem = kFloatF32;  // x's (and dy's, out's, dx's) float type
    int paramElem = kFloatF32;  // dw's and db's
    int64_t rows = 0, n = 0;
    int nRowDims = 0, nColDims = 0;
    int64_t rowSizes[kMaxDims] = {}, colSizes[kMaxDims] = {};
    int64_t xRowStrides[kMaxDims] = {}, xColStrides[kMaxDims] = {};
    int64_t gRowStrides[kMaxDims] = {}, gColStrides[kMaxDims] = {};
    const void* x = nullptr;
    int64_t xOffset = 0;
    const void* dy = nullptr;
    int64_t dyOffset = 0;
    const void* weight = nullptr;  // accumulation type, contiguous, or null
    const void* bias = nullptr;
    double eps = 0;
    void* out = nullptr;  // forward, contiguous
    void* meanOut = nullptr;  // forward: x's type; backward input: accumulation type
    void* rstdOut = nullptr;
    void* dx = nullptr;
    void* dw = nullptr;
    void* db = nullptr;
    void* scratch = nullptr;  // per row: 3 n accumulation values and 3 n doubles
};

FXL_HD inline int64_t lnOffset(int64_t k, int nd, const int64_t* sizes, const int64_t* strides)
{
    int64_t o = 0;
    for (int d = nd - 1; d >= 0; --d) {
        o += (k % sizes[d]) * strides[d];
        k /= sizes[d];
    }
    return o;
}

// A row's scratch: 3 n accumulation values, padded to 8 bytes, then 3 n doubles (every row
// starts 8-byte aligned).
FXL_HD inline int64_t lnRowBytes(int64_t n, int64_t accBytes) { return (3 * n * accBytes + 7) / 8 * 8 + 3 * n * 8; }

template<class A>
FXL_HD inline bool lnFinite(A v)
{
    return !(math::isNan(v) || math::isInf(v));
}

template<class A>
FXL_HD inline void layerNormForwardBodyIn(const Coord& c, const LayerNormParams& p)
{
    const A* w = static_cast<const A*>(p.weight);
    const A* b = static_cast<const A*>(p.bias);
    const A nA = static_cast<A>(p.n), epsA = static_cast<A>(p.eps);
    for (int64_t r = c.globalX(); r < p.rows; r += c.strideX()) {
        const int64_t base = p.xOffset + lnOffset(r, p.nRowDims, p.rowSizes, p.xRowStrides);
        auto at = [&](int64_t j) { return base + lnOffset(j, p.nColDims, p.colSizes, p.xColStrides); };
        A* v = reinterpret_cast<A*>(static_cast<char*>(p.scratch) + r * lnRowBytes(p.n, sizeof(A)));
        for (int64_t j = 0; j < p.n; ++j) v[j] = rowsLoad<A>(p.elem, p.x, at(j));
        const math::rows::Moments<A> mm = math::rows::moments<A>(p.n, [&](int64_t i) { return v[i]; });
        A mean = mm.mean;
        A var = mm.m2 / nA;
        if (sizeof(A) == 4) {
            if (!lnFinite(mean) || !lnFinite(var)) {  // the moments in double, rounded once
                double wm = 0, wm2 = 0;
                if (p.n > 0) {
                    const math::rows::Moments<double> wide = math::rows::moments<double>(
                        p.n, [&](int64_t i) { return rowsLoad<double>(p.elem, p.x, at(i)); });
                    wm = wide.mean;
                    wm2 = wide.m2;
                }
                mean = static_cast<A>(wm);
                var = static_cast<A>(wm2 / static_cast<double>(p.n));
            }
        } else if (p.n == 0) {
            mean = 0;
        }
        const A rstd = math::rows::rstdOf(var, epsA);
        math::rows::layerNormRow(v, p.n, mean, rstd, w, b);
        for (int64_t j = 0; j < p.n; ++j) rowsStore<A>(p.elem, p.out, r * p.n + j, v[j]);
        rowsStore<A>(p.elem, p.meanOut, r, mean);
        rowsStore<A>(p.elem, p.rstdOut, r, rstd);
    }
}

template<class A>
FXL_HD inline void layerNormInputGradBodyIn(const Coord& c, const LayerNormParams& p)
{
    const A* w = static_cast<const A*>(p.weight);
    const A* mean = static_cast<const A*>(p.meanOut);
    const A* rstd = static_cast<const A*>(p.rstdOut);
    for (int64_t r = c.globalX(); r < p.rows; r += c.strideX()) {
        const int64_t xb = p.xOffset + lnOffset(r, p.nRowDims, p.rowSizes, p.xRowStrides);
        const int64_t gb = p.dyOffset + lnOffset(r, p.nRowDims, p.rowSizes, p.gRowStrides);
        auto xAt = [&](int64_t j) { return xb + lnOffset(j, p.nColDims, p.colSizes, p.xColStrides); };
        auto gAt = [&](int64_t j) { return gb + lnOffset(j, p.nColDims, p.colSizes, p.gColStrides); };
        char* row = static_cast<char*>(p.scratch) + r * lnRowBytes(p.n, sizeof(A));
        A* g = reinterpret_cast<A*>(row);
        A* xh = g + p.n;
        for (int64_t j = 0; j < p.n; ++j) {
            g[j] = rowsLoad<A>(p.elem, p.dy, gAt(j));
            xh[j] = rowsLoad<A>(p.elem, p.x, xAt(j));
        }
        const A m = mean[r], rs = rstd[r];
        if (!math::rows::layerNormInputGradRow(g, xh, p.n, m, rs, w)) {
            // PyTorch's CPU formula in double, rounded once
            double* gd = reinterpret_cast<double*>(row + (3 * p.n * static_cast<int64_t>(sizeof(A)) + 7) / 8 * 8);
            double* xd = gd + p.n;
            double* dd = xd + p.n;
            for (int64_t j = 0; j < p.n; ++j) {
                gd[j] = rowsLoad<double>(p.elem, p.dy, gAt(j));
                xd[j] = rowsLoad<double>(p.elem, p.x, xAt(j));
                if (w) gd[j] *= static_cast<double>(w[j]);
            }
            math::rows::layerNormInputGradWide(gd, xd, p.n, m, rs, dd);
            for (int64_t j = 0; j < p.n; ++j) g[j] = static_cast<A>(dd[j]);
        }
        for (int64_t j = 0; j < p.n; ++j) rowsStore<A>(p.elem, p.dx, r * p.n + j, g[j]);
    }
}

template<class A>
FXL_HD inline void layerNormParamGradBodyIn(const Coord& c, const LayerNormParams& p)
{
    const A* mean = static_cast<const A*>(p.meanOut);
    const A* rstd = static_cast<const A*>(p.rstdOut);
    for (int64_t j = c.globalX(); j < p.n; j += c.strideX()) {
        const int64_t xo = lnOffset(j, p.nColDims, p.colSizes, p.xColStrides);
        const int64_t go = lnOffset(j, p.nColDims, p.colSizes, p.gColStrides);
        auto xAt = [&](int64_t i) { return p.xOffset + lnOffset(i, p.nRowDims, p.rowSizes, p.xRowStrides) + xo; };
        auto gAt = [&](int64_t i) { return p.dyOffset + lnOffset(i, p.nRowDims, p.rowSizes, p.gRowStrides) + go; };
        if (p.dw) {
            A s = math::sum::sumOrdered<A>(p.rows, [&](int64_t i) {
                return rowsLoad<A>(p.elem, p.dy, gAt(i))
                    * math::rows::normalized(rowsLoad<A>(p.elem, p.x, xAt(i)), mean[i], rstd[i]);
            });
            if (sizeof(A) == 4 && !lnFinite(s))
                s = static_cast<A>(math::sum::sumOrdered<double>(p.rows, [&](int64_t i) {
                    return rowsLoad<double>(p.elem, p.dy, gAt(i))
                        * math::rows::normalized(rowsLoad<double>(p.elem, p.x, xAt(i)), static_cast<double>(mean[i]),
                                                 static_cast<double>(rstd[i]));
                }));
            rowsStore<A>(p.paramElem, p.dw, j, s);
        }
        if (p.db) {
            A s = math::sum::sumOrdered<A>(p.rows, [&](int64_t i) { return rowsLoad<A>(p.elem, p.dy, gAt(i)); });
            if (sizeof(A) == 4 && !lnFinite(s))
                s = static_cast<A>(math::sum::sumOrdered<double>(
                    p.rows, [&](int64_t i) { return rowsLoad<double>(p.elem, p.dy, gAt(i)); }));
            rowsStore<A>(p.paramElem, p.db, j, s);
        }
    }
}

FXL_HD inline void layerNormForwardBody(const Coord& c, const LayerNormParams& p)
{
    if (p.elem == kFloatF64)
        layerNormForwardBodyIn<double>(c, p);
    else
        layerNormForwardBodyIn<float>(c, p);
}
FXL_HD inline void layerNormInputGradBody(const Coord& c, const LayerNormParams& p)
{
    if (p.elem == kFloatF64)
        layerNormInputGradBodyIn<double>(c, p);
    else
        layerNormInputGradBodyIn<float>(c, p);
}
FXL_HD inline void layerNormParamGradBody(const Coord& c, const LayerNormParams& p)
{
    if (p.elem == kFloatF64)
        layerNormParamGradBodyIn<double>(c, p);
    else
        layerNormParamGradBodyIn<float>(c, p);
}

}  // namespace fxl::cuda
