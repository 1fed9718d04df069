// The row-wise normalisations (runtime/base/rows_loop.hpp): one thread per row gathers the
// row (and the forward's output for a backward) into its scratch in the accumulation type,
// runs math/rows.hpp's row formula (the CPU kernel's call) and stores the row rounded once.
// One kernel body for the GPU and the emulator (launch.hpp).
#pragma once

#include <cstdint>

#include "runtime/cuda/launch.hpp"
#include "runtime/math/bits.hpp"
#include "runtime/math/rows.hpp"
#include "runtime/math/storage.hpp"

namespace fxl::cuda {

enum RowsKind : int
{
    kRowsSoftmax = 0,
    kRowsLogSoftmax = 1,
    kRowsSafeSoftmax = 2,
    kRowsSoftmaxBackward = 3,
    kRowsLogSoftmaxBackward = 4
};

// Float element types of the operands.
enum FloatElem : int
{
    kFloatF32 = 0,
    kFloatF64 = 1,
    kFloatBf16 = 2,
    kFloatF16 = 3
};

struct RowsParams
{
    int kind = kRowsSoftmax;
    int inElem = kFloatF32, outElem = kFloatF32;  // in0's (and in1's), out's
    const void* in[2] = {};
    void* out = nullptr;
    int64_t rows = 0, n = 0;
    int nRowDims = 0;
    int64_t rowSizes[kMaxDims] = {};
    int64_t rowStrides[3][kMaxDims] = {};  // in0, in1, out (elements)
    int64_t colStride[3] = {}, offset[3] = {};
    void* scratch = nullptr;  // rows * n * 2 accumulation-type values
};

template<class A>
FXL_HD inline A rowsLoad(int elem, const void* base, int64_t at)
{
    switch (elem) {
    case kFloatF64: return static_cast<A>(static_cast<const double*>(base)[at]);
    case kFloatBf16: return static_cast<A>(math::bf16ToF32(static_cast<const uint16_t*>(base)[at]));
    case kFloatF16: return static_cast<A>(math::f16ToF32(static_cast<const uint16_t*>(base)[at]));
    default: return static_cast<A>(static_cast<const float*>(base)[at]);
    }
}

template<class A>
FXL_HD inline void rowsStore(int elem, void* base, int64_t at, A v)
{
    switch (elem) {
    case kFloatF64: static_cast<double*>(base)[at] = math::canonical(static_cast<double>(v)); break;
    case kFloatBf16: static_cast<uint16_t*>(base)[at] = math::f32ToBf16(static_cast<float>(v)); break;
    case kFloatF16: static_cast<uint16_t*>(base)[at] = math::f32ToF16(static_cast<float>(v)); break;
    default: static_cast<float*>(base)[at] = math::canonical(static_cast<float>(v)); break;
    }
}

template<class A>
FXL_HD inline void rowsBodyIn(const Coord& c, const RowsParams& p)
{
    const bool backward = p.kind == kRowsSoftmaxBackward || p.kind == kRowsLogSoftmaxBackward;
    for (int64_t r = c.globalX(); r < p.rows; r += c.strideX()) {
        int64_t off[3] = {p.offset[0], p.offset[1], p.offset[2]};
        int64_t rest = r;
        for (int k = p.nRowDims - 1; k >= 0; --k) {
            const int64_t idx = rest % p.rowSizes[k];
            rest /= p.rowSizes[k];
            for (int o = 0; o < 3; ++o) off[o] += idx * p.rowStrides[o][k];
        }
        A* v = static_cast<A*>(p.scratch) + r * p.n * 2;
        A* w = v + p.n;
        for (int64_t j = 0; j < p.n; ++j) v[j] = rowsLoad<A>(p.inElem, p.in[0], off[0] + j * p.colStride[0]);
        if (backward)
            for (int64_t j = 0; j < p.n; ++j) w[j] = rowsLoad<A>(p.inElem, p.in[1], off[1] + j * p.colStride[1]);
        switch (p.kind) {
        case kRowsSoftmax: math::rows::softmaxRow(v, p.n, false, false); break;
        case kRowsLogSoftmax: math::rows::softmaxRow(v, p.n, true, false); break;
        case kRowsSafeSoftmax: math::rows::softmaxRow(v, p.n, false, true); break;
        case kRowsSoftmaxBackward: math::rows::softmaxBackwardRow(v, w, p.n, false); break;
        default: math::rows::softmaxBackwardRow(v, w, p.n, true); break;
        }
        for (int64_t j = 0; j < p.n; ++j) rowsStore<A>(p.outElem, p.out, off[2] + j * p.colStride[2], v[j]);
    }
}

FXL_HD inline void rowsBody(const Coord& c, const RowsParams& p)
{
    if (p.inElem == kFloatF64)
        rowsBodyIn<double>(c, p);
    else
        rowsBodyIn<float>(c, p);
}

}  // namespace fxl::cuda
