// The pooling and nearest-resampling kernels (Backend::plane, runtime/base/plane_loop.hpp):
// the max pool a thread per output element; the scatter-add (the backwards) a thread per
// plane, adding in increasing output position as the CPU's threads do; the gather a thread per
// output element, copying the element's bytes. One kernel body for the GPU and the emulator.
#pragma once

#include <cstdint>

#include "runtime/base/plane_loop.hpp"
#include "runtime/cuda/launch.hpp"
#include "runtime/math/bits.hpp"
#include "runtime/math/windows.hpp"

namespace fxl::cuda {

struct PlaneParams
{
    PlaneOp op = PlaneOp::MaxPool;
    bool f64 = false;  // A is double, else float (MaxPool, ScatterAdd)
    int64_t itemBytes = 0;  // Gather
    PlaneGeom g;
    const void* src = nullptr;
    const int64_t* index = nullptr;
    bool indexPerPlane = false;
    void* out = nullptr;
    int64_t* outIndex = nullptr;
};

template<class A>
FXL_HD inline A minusInfinity()
{
    if constexpr (sizeof(A) == 8)
        return math::doubleFromBits(0xfff0000000000000ull);
    else
        return math::floatFromBits(0xff800000u);
}

template<class A>
FXL_HD inline void maxPoolAt(const PlaneParams& p, int64_t r)
{
    const PlaneGeom& g = p.g;
    static_assert(kPlaneMaxSpatial == 3, "math::win::maxPoolWindow scans at most 3 spatial dims");
    A best = minusInfinity<A>();
    int64_t bestAt = -1;
    math::win::maxPoolWindow(static_cast<const A*>(p.src) + r / g.outSp * g.inSp, g, r % g.outSp, best, bestAt);
    static_cast<A*>(p.out)[r] = best;
    p.outIndex[r] = bestAt;
}

template<class A>
FXL_HD inline void scatterAddPlane(const PlaneParams& p, int64_t pl)
{
    const PlaneGeom& g = p.g;
    A* rp = static_cast<A*>(p.out) + pl * g.inSp;
    const A* gp = static_cast<const A*>(p.src) + pl * g.outSp;
    const int64_t* ip = p.index + (p.indexPerPlane ? pl * g.outSp : 0);
    for (int64_t i = 0; i < g.inSp; ++i) rp[i] = A(0);
    for (int64_t o = 0; o < g.outSp; ++o) rp[ip[o]] += gp[o];
}

FXL_HD inline void planeBody(const Coord& c, const PlaneParams& p)
{
    const PlaneGeom& g = p.g;
    if (p.op == PlaneOp::ScatterAdd) {
        for (int64_t pl = c.globalX(); pl < g.planes; pl += c.strideX()) {
            if (p.f64)
                scatterAddPlane<double>(p, pl);
            else
                scatterAddPlane<float>(p, pl);
        }
        return;
    }
    const int64_t n = g.planes * g.outSp;
    for (int64_t r = c.globalX(); r < n; r += c.strideX()) {
        if (p.op == PlaneOp::MaxPool) {
            if (p.f64)
                maxPoolAt<double>(p, r);
            else
                maxPoolAt<float>(p, r);
            continue;
        }
        const int64_t pl = r / g.outSp, o = r % g.outSp;
        const int64_t from = pl * g.inSp + p.index[(p.indexPerPlane ? pl * g.outSp : 0) + o];
        const char* s = static_cast<const char*>(p.src) + from * p.itemBytes;
        char* d = static_cast<char*>(p.out) + r * p.itemBytes;
        for (int64_t b = 0; b < p.itemBytes; ++b) d[b] = s[b];
    }
}

// The threads a launch needs: one per plane (ScatterAdd), else one per output element.
FXL_HD inline int64_t planeThreads(const PlaneParams& p)
{
    return p.op == PlaneOp::ScatterAdd ? p.g.planes : p.g.planes * p.g.outSp;
}

}  // namespace fxl::cuda
