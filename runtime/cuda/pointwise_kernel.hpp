// The pointwise kernel: out = f(in...) for every element of the output's shape, each operand
// with its own strides (the inputs expanded to the output's shape, stride 0 where broadcast).
// Each thread computes whole elements with the device form of the functor the CPU kernel uses
// (runtime/base/pointwise_fn.hpp: the same runtime/math/ formula), so an element's bits do not
// depend on the device, the geometry or the position. One kernel body for the GPU and the
// emulator (launch.hpp); one instance per listed functor.
#pragma once

#include <cstdint>

#include "runtime/base/pointwise_fn.hpp"
#include "runtime/cuda/launch.hpp"

namespace fxl::cuda {

inline constexpr int kPointwiseOperands = 4;  // the output and up to three inputs

struct PointwiseParams
{
    int nOps = 0;
    int ndim = 0;  // dims after merging (at least 1)
    int64_t numel = 0;
    int64_t sizes[kMaxDims] = {};
    int64_t strides[kPointwiseOperands][kMaxDims] = {};  // in bytes
    char* base[kPointwiseOperands] = {};  // operand k's element [0, 0, ...]
};

// apply(ptr): ptr[0] the output element, ptr[1..nOps-1] the inputs' elements.
template<class Apply>
FXL_HD inline void pointwiseBody(const Coord& c, const PointwiseParams& p, const Apply& apply)
{
    for (int64_t i = c.globalX(); i < p.numel; i += c.strideX()) {
        char* ptr[kPointwiseOperands] = {p.base[0], p.base[1], p.base[2], p.base[3]};
        int64_t rest = i;
        for (int d = p.ndim - 1; d >= 0; --d) {
            const int64_t idx = rest % p.sizes[d];
            rest /= p.sizes[d];
            for (int k = 0; k < p.nOps; ++k) ptr[k] += idx * p.strides[k][d];
        }
        apply(ptr);
    }
}

// The pointwise kernel of functor F (fn.kind == pw::kKindOf<F>).
template<class F>
FXL_HD inline void pointwiseFnBody(const Coord& c, const PointwiseParams& p, const pw::Fn& fn)
{
    const F f = pw::functorOf<F>(fn);
    pointwiseBody(c, p, [&](char* const* ptr) { pw::apply(f, fn.slot, ptr); });
}

}  // namespace fxl::cuda
