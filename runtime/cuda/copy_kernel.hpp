// The strided copy: dst[i] = src[i] over the elements of a shape, each side with its own
// strides and offset (in elements), bytes moved unchanged (same dtype). One kernel body for
// the GPU and the emulator (launch.hpp).
#pragma once

#include <cstdint>
#include <cstring>

#include "runtime/cuda/launch.hpp"

namespace fxl::cuda {

struct StridedCopyParams
{
    char* dst = nullptr;
    const char* src = nullptr;
    int itemSize = 0;  // 1, 2, 4 or 8
    int ndim = 0;
    int64_t numel = 0;
    int64_t sizes[kMaxDims] = {};
    int64_t dstStrides[kMaxDims] = {};
    int64_t srcStrides[kMaxDims] = {};
    int64_t dstOffset = 0, srcOffset = 0;
};

FXL_HD inline void stridedCopyBody(const Coord& c, const StridedCopyParams& p)
{
    for (int64_t i = c.globalX(); i < p.numel; i += c.strideX()) {
        int64_t rest = i, d = p.dstOffset, s = p.srcOffset;
        for (int k = p.ndim - 1; k >= 0; --k) {
            const int64_t idx = rest % p.sizes[k];
            rest /= p.sizes[k];
            d += idx * p.dstStrides[k];
            s += idx * p.srcStrides[k];
        }
        const char* from = p.src + s * p.itemSize;
        char* to = p.dst + d * p.itemSize;
        switch (p.itemSize) {  // constant sizes: one load and one store each
        case 1: memcpy(to, from, 1); break;
        case 2: memcpy(to, from, 2); break;
        case 4: memcpy(to, from, 4); break;
        default: memcpy(to, from, 8); break;
        }
    }
}

}  // namespace fxl::cuda
