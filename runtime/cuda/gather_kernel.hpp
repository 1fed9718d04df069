// The indexed gather (runtime/base/gather_loop.hpp): each thread copies whole elements,
// out[p] = base[offset(p)]; an index out of range is not an assert (it would poison the
// context) but a record in device memory, first error wins (compare-and-swap on a flag, never
// on values), that the backend reads after the launch and turns into the CPU kernel's error
// text. One kernel body for the GPU and the emulator (launch.hpp).
#pragma once

#include <cstdint>
#include <cstring>

#include "runtime/cuda/launch.hpp"

namespace fxl::cuda {

inline constexpr int kMaxGatherIndices = 6;

// The device-side error record: flag 0 until an error; then which index operand and value.
struct DeviceErrorRecord
{
    unsigned long long flag;
    long long which;
    long long value;
};

struct GatherParams
{
    int ndim = 0, nIdx = 0, itemSize = 0;
    int64_t numel = 0;
    int64_t shape[kMaxDims] = {};
    const char* base = nullptr;
    int64_t baseStrides[kMaxDims] = {};
    char* out = nullptr;
    int64_t outStrides[kMaxDims] = {};
    const char* idx[kMaxGatherIndices] = {};
    int idxItem[kMaxGatherIndices] = {};  // 8 int64, 4 int32, 2 int16, 1 int8 (-1: uint8 / bool)
    int64_t idxStrides[kMaxGatherIndices][kMaxDims] = {};
    int64_t idxSize[kMaxGatherIndices] = {}, idxStride[kMaxGatherIndices] = {};
    bool wrapNegative = false;
    DeviceErrorRecord* error = nullptr;
};

FXL_HD inline int64_t gatherIndexAt(const char* p, int item)
{
    switch (item) {
    case 8: {
        int64_t v;
        memcpy(&v, p, 8);
        return v;
    }
    case 4: {
        int32_t v;
        memcpy(&v, p, 4);
        return v;
    }
    case 2: {
        int16_t v;
        memcpy(&v, p, 2);
        return v;
    }
    case 1: {
        int8_t v;
        memcpy(&v, p, 1);
        return v;
    }
    default: {
        uint8_t v;
        memcpy(&v, p, 1);
        return v;
    }
    }
}

// Records the first error (the emulator runs threads one after another; the GPU wrapper passes
// an atomic compare-and-swap).
template<class Claim>
FXL_HD inline void gatherBody(const Coord& c, const GatherParams& p, Claim&& claim)
{
    for (int64_t e = c.globalX(); e < p.numel; e += c.strideX()) {
        int64_t rest = e, b = 0, o = 0;
        int64_t pos[kMaxDims];
        for (int d = p.ndim - 1; d >= 0; --d) {
            pos[d] = rest % p.shape[d];
            rest /= p.shape[d];
            b += pos[d] * p.baseStrides[d];
            o += pos[d] * p.outStrides[d];
        }
        bool bad = false;
        for (int k = 0; k < p.nIdx && !bad; ++k) {
            int64_t io = 0;
            for (int d = 0; d < p.ndim; ++d) io += pos[d] * p.idxStrides[k][d];
            const int width = p.idxItem[k] < 0 ? 1 : p.idxItem[k];
            int64_t v = gatherIndexAt(p.idx[k] + io * width, p.idxItem[k]);
            if (v < 0 && p.wrapNegative && v >= -p.idxSize[k]) v += p.idxSize[k];
            if (v < 0 || v >= p.idxSize[k]) {
                if (claim(p.error)) {
                    p.error->which = k;
                    p.error->value = v;
                }
                bad = true;
            }
            b += v * p.idxStride[k];
        }
        if (bad) continue;
        memcpy(p.out + o * p.itemSize, p.base + b * p.itemSize, static_cast<size_t>(p.itemSize));
    }
}

}  // namespace fxl::cuda
