// Segment sums in index order (runtime/base/segment_sum_loop.hpp): one thread per output
// element (segment, column) sums its segment's source rows in order, in math/sum_order.hpp's
// order, as the CPU kernel does. One kernel body for the GPU and the emulator (launch.hpp).
#pragma once

#include <cstdint>

#include "runtime/cuda/launch.hpp"
#include "runtime/cuda/rows_kernel.hpp"
#include "runtime/math/loss.hpp"
#include "runtime/math/sum_order.hpp"

namespace fxl::cuda {

struct SegmentSumParams
{
    int elem = kFloatF32;  // src's and out's float type
    const void* src = nullptr;
    int64_t srcOffset = 0;
    const int64_t* rowOffsets = nullptr;  // device copies
    const int64_t* segStart = nullptr;
    const int64_t* members = nullptr;
    int64_t segments = 0, cols = 0, colStride = 0;
    bool byFreq = false;
    void* out = nullptr;
};

template<class A>
FXL_HD inline void segmentSumBodyIn(const Coord& c, const SegmentSumParams& p)
{
    const int64_t total = p.segments * p.cols;
    for (int64_t e = c.globalX(); e < total; e += c.strideX()) {
        const int64_t s = e / p.cols, j = e % p.cols;
        const int64_t start = p.segStart[s], count = p.segStart[s + 1] - start;
        const A scale = math::loss::embeddingFreqScale<A>(count);
        const A sum = math::sum::sumOrdered<A>(count, [&](int64_t i) {
            const A v = rowsLoad<A>(p.elem, p.src, p.srcOffset + p.rowOffsets[p.members[start + i]] + j * p.colStride);
            return p.byFreq ? scale * v : v;
        });
        rowsStore<A>(p.elem, p.out, e, sum);
    }
}

FXL_HD inline void segmentSumBody(const Coord& c, const SegmentSumParams& p)
{
    if (p.elem == kFloatF64)
        segmentSumBodyIn<double>(c, p);
    else
        segmentSumBodyIn<float>(c, p);
}

}  // namespace fxl::cuda
