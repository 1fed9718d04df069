// The sum family's row reduction (runtime/base/row_sum_loop.hpp): one thread per output row
// sums the row in math/sum_order.hpp's order (blocks, lane tree, cascade), redoes a float sum
// that is not finite in double, divides for a mean and stores rounded once, as the CPU kernel
// does. One kernel body for the GPU and the emulator (launch.hpp).
#pragma once

#include <cstdint>

#include "runtime/cuda/launch.hpp"
#include "runtime/math/bits.hpp"
#include "runtime/math/storage.hpp"
#include "runtime/math/sum_order.hpp"

namespace fxl::cuda {

// Element types of the source: floats, then integers (bool as u8).
enum SumElem : int
{
    kSumF32 = 0,
    kSumF64 = 1,
    kSumBf16 = 2,
    kSumF16 = 3,
    kSumI64 = 4,
    kSumI32 = 5,
    kSumI16 = 6,
    kSumI8 = 7,
    kSumU8 = 8
};

struct RowSumParams
{
    const void* src = nullptr;
    int elem = kSumF32;
    void* out = nullptr;  // contiguous: the source's float type, or int64 for integers
    int64_t rows = 0, cols = 0;
    int nRowDims = 0, nColDims = 0;
    int64_t rowSizes[kMaxDims] = {}, rowStrides[kMaxDims] = {};
    int64_t colSizes[kMaxDims] = {}, colStrides[kMaxDims] = {};
    int64_t offset = 0;  // of src's element [0, 0, ...]
    bool mean = false;
};

FXL_HD inline int64_t rowSumOffset(int64_t r, int nd, const int64_t* sizes, const int64_t* strides)
{
    int64_t o = 0;
    for (int k = nd - 1; k >= 0; --k) {
        o += (r % sizes[k]) * strides[k];
        r /= sizes[k];
    }
    return o;
}

template<class A>
FXL_HD inline A rowSumLoad(const RowSumParams& p, int64_t at)
{
    switch (p.elem) {
    case kSumF32: return static_cast<A>(static_cast<const float*>(p.src)[at]);
    case kSumF64: return static_cast<A>(static_cast<const double*>(p.src)[at]);
    case kSumBf16: return static_cast<A>(math::bf16ToF32(static_cast<const uint16_t*>(p.src)[at]));
    case kSumF16: return static_cast<A>(math::f16ToF32(static_cast<const uint16_t*>(p.src)[at]));
    case kSumI64: return static_cast<A>(static_cast<uint64_t>(static_cast<const int64_t*>(p.src)[at]));
    case kSumI32:
        return static_cast<A>(static_cast<uint64_t>(static_cast<int64_t>(static_cast<const int32_t*>(p.src)[at])));
    case kSumI16:
        return static_cast<A>(static_cast<uint64_t>(static_cast<int64_t>(static_cast<const int16_t*>(p.src)[at])));
    case kSumI8:
        return static_cast<A>(static_cast<uint64_t>(static_cast<int64_t>(static_cast<const int8_t*>(p.src)[at])));
    default: return static_cast<A>(static_cast<uint64_t>(static_cast<const uint8_t*>(p.src)[at]));
    }
}

// The row's sum in A over its elements in logical order.
template<class A>
FXL_HD inline A rowSumOf(const RowSumParams& p, int64_t base)
{
    return math::sum::sumOrdered<A>(p.cols, [&](int64_t i) {
        return rowSumLoad<A>(p, base + rowSumOffset(i, p.nColDims, p.colSizes, p.colStrides));
    });
}

// v rounded once to the output's float type (the CPU's narrowTo).
FXL_HD inline void rowSumStoreFloat(const RowSumParams& p, int64_t r, double v)
{
    switch (p.elem) {
    case kSumF64: static_cast<double*>(p.out)[r] = math::canonical(v); break;
    case kSumBf16: static_cast<uint16_t*>(p.out)[r] = math::f32ToBf16(static_cast<float>(v)); break;
    case kSumF16: static_cast<uint16_t*>(p.out)[r] = math::f32ToF16(static_cast<float>(v)); break;
    default: static_cast<float*>(p.out)[r] = math::canonical(static_cast<float>(v)); break;
    }
}

FXL_HD inline void rowSumBody(const Coord& c, const RowSumParams& p)
{
    for (int64_t r = c.globalX(); r < p.rows; r += c.strideX()) {
        const int64_t base = p.offset + rowSumOffset(r, p.nRowDims, p.rowSizes, p.rowStrides);
        if (p.elem >= kSumI64) {
            static_cast<int64_t*>(p.out)[r] = static_cast<int64_t>(rowSumOf<uint64_t>(p, base));
        } else if (p.elem == kSumF64) {
            const double s = rowSumOf<double>(p, base);
            rowSumStoreFloat(p, r, p.mean ? math::sum::meanOf(s, p.cols) : s);
        } else {
            const float s = rowSumOf<float>(p, base);
            if (math::isNan(s) || math::isInf(s)) {  // overflowed part way, or met an inf / nan: the order in double
                const double d = rowSumOf<double>(p, base);
                rowSumStoreFloat(p, r, p.mean ? math::sum::meanOf(d, p.cols) : d);
            } else {
                const float v = p.mean ? math::sum::meanOf(s, p.cols) : s;
                rowSumStoreFloat(p, r, static_cast<double>(v));
            }
        }
    }
}

}  // namespace fxl::cuda
