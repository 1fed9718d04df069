// The pooling and nearest-resampling loops as a backend receives them (Backend::plane), after
// the host logic the CPU and device kernels share (runtime/cpu/cpu_pool.cpp: argument checks,
// the pooled sizes, index maps, operands widened to the accumulation type A where they are
// summed: double for f64, float otherwise). Every leading index of the input is a plane,
// independent of the others; within a plane the order is cpu_pool.cpp's:
//   MaxPool     out[pl, o] = the max over o's window visited row-major (greater or NaN
//               replaces), outIndex the flat input position; exact.
//   ScatterAdd  out[pl, :] = +0, then out[pl, index(o)] += src[pl, o] for o increasing (the
//               max-pool and nearest-upsampling backwards).
//   Gather      out[pl, o] = src[pl, index(o)], the element's bytes (nearest upsampling).
#pragma once

#include <cstdint>

namespace fxl {

class Tensor;

inline constexpr int kPlaneMaxSpatial = 3;

struct PlaneGeom
{
    int D = 0;
    int64_t planes = 0;
    int64_t in[kPlaneMaxSpatial] = {1, 1, 1}, out[kPlaneMaxSpatial] = {1, 1, 1}, k[kPlaneMaxSpatial] = {1, 1, 1};
    int64_t s[kPlaneMaxSpatial] = {1, 1, 1}, p[kPlaneMaxSpatial] = {0, 0, 0}, d[kPlaneMaxSpatial] = {1, 1, 1};
    int64_t inSp = 1, outSp = 1;
};

enum class PlaneOp : uint8_t
{
    MaxPool,
    ScatterAdd,
    Gather
};

struct PlaneLoop
{
    PlaneOp op = PlaneOp::MaxPool;
    PlaneGeom g;
    const Tensor* src = nullptr;  // contiguous [planes, inSp] (MaxPool, Gather) or [planes, outSp] (ScatterAdd)
    const Tensor* index = nullptr;  // int64: [planes, outSp], or one map [outSp] (indexPerPlane false)
    bool indexPerPlane = false;
    const Tensor* out = nullptr;  // contiguous: [planes, outSp] (MaxPool, Gather), [planes, inSp] (ScatterAdd)
    const Tensor* outIndex = nullptr;  // MaxPool: int64 [planes, outSp]
};

}  // namespace fxl
