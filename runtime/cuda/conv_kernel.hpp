// The convolution kernels (Backend::conv, runtime/base/conv_loop.hpp): a thread per output
// element, each summing its terms in the order the CPU's cores sum them (cpu_conv.cpp), through
// the same math/ calls (tapSum, tapProduct, withBias, sumOrdered). The CPU keeps tables of
// offsets and a column buffer per row; here each term's offset is computed where it is read,
// which gives the same sequence. The input gradient collects the kernel positions that reach
// its element first (at most kConvMaxTaps). One kernel body for the GPU and the emulator.
#pragma once

#include <cstdint>

#include "runtime/base/conv_loop.hpp"
#include "runtime/cuda/launch.hpp"
#include "runtime/math/accumulate.hpp"
#include "runtime/math/sum_order.hpp"
#include "runtime/math/windows.hpp"

namespace fxl::cuda {

inline constexpr int64_t kConvMaxTaps = 256;  // kernel positions of one filter (16 x 16, 6 x 6 x 6)

struct ConvParams
{
    ConvCore core = ConvCore::Forward;
    bool f64 = false;  // A is double, else float
    ConvGeom g;
    const void* a = nullptr;
    const void* b = nullptr;
    const void* bias = nullptr;
    void* out = nullptr;
    int64_t count = 0;  // output elements
    int64_t sumN = 0, sumC = 0, sumSp = 0;
};

// The input offset (within one channel) that output position o reads through kernel position
// kp, or -1 in the padding.
FXL_HD inline int64_t convInputOffset(const ConvGeom& g, int64_t o, int64_t kp)
{
    int64_t oc[kConvMaxSpatial], kc[kConvMaxSpatial];
    convDecode(o, g.out, g.D, oc);
    convDecode(kp, g.k, g.D, kc);
    int64_t off = 0;
    for (int j = 0; j < g.D; ++j) {
        const int64_t i = math::win::poolTap(oc[j], kc[j], g.s[j], g.p[j], g.d[j]);
        if (i < 0 || i >= g.in[j]) return -1;
        off = off * g.in[j] + i;
    }
    return off;
}

template<class A>
FXL_HD inline A convForwardAt(const ConvGeom& g, const A* x, const A* w, const A* bias, int64_t r)
{
    const int64_t o = r % g.outSp, och = (r / g.outSp) % g.Co, n = r / (g.outSp * g.Co);
    const int64_t grp = och / g.Cgo, L = g.Cgi * g.kSp;
    const A* xg = x + (n * g.Ci + grp * g.Cgi) * g.inSp;
    const A* wr = w + och * L;
    const A acc = math::acc::tapSum<A>(
        L,
        [&](int64_t i) {
            const int64_t off = convInputOffset(g, o, i % g.kSp);
            return off >= 0 ? xg[(i / g.kSp) * g.inSp + off] : A(0);
        },
        [&](int64_t i) { return wr[i]; });
    return math::acc::withBias(acc, bias != nullptr, bias ? bias[och] : A(0));
}

template<class A>
FXL_HD inline A convGradInputAt(const ConvGeom& g, const A* go, const A* w, int64_t r)
{
    const int64_t i = r % g.inSp, ic = (r / g.inSp) % g.Ci, n = r / (g.inSp * g.Ci);
    const int64_t grp = ic / g.Cgi, icl = ic % g.Cgi;
    int64_t icc[kConvMaxSpatial], kc[kConvMaxSpatial];
    convDecode(i, g.in, g.D, icc);
    int64_t taps[kConvMaxTaps], offs[kConvMaxTaps];
    int64_t valid = 0;
    for (int64_t kp = 0; kp < g.kSp; ++kp) {
        convDecode(kp, g.k, g.D, kc);
        int64_t off = 0;
        for (int j = 0; j < g.D && off >= 0; ++j) {
            const int64_t t = math::win::tapSource(icc[j], kc[j], g.s[j], g.p[j], g.d[j], g.out[j]);
            off = t < 0 ? -1 : off * g.out[j] + t;
        }
        if (off >= 0) {
            taps[valid] = kp;
            offs[valid] = off;
            ++valid;
        }
    }
    return math::sum::sumOrdered<A>(g.Cgo * valid, [&](int64_t q) {
        const int64_t och = grp * g.Cgo + q / valid, t = q % valid;
        return math::acc::tapProduct(go[(n * g.Co + och) * g.outSp + offs[t]],
                                     w[(och * g.Cgi + icl) * g.kSp + taps[t]]);
    });
}

template<class A>
FXL_HD inline A convGradWeightAt(const ConvGeom& g, const A* go, const A* x, int64_t r)
{
    const int64_t kp = r % g.kSp, icl = (r / g.kSp) % g.Cgi, och = r / (g.kSp * g.Cgi);
    const int64_t ic = (och / g.Cgo) * g.Cgi + icl;
    return math::sum::sumOrdered<A>(g.N * g.outSp, [&](int64_t q) {
        const int64_t n = q / g.outSp, o = q % g.outSp;
        const A gv = go[(n * g.Co + och) * g.outSp + o];
        const int64_t off = convInputOffset(g, o, kp);
        return math::acc::tapProduct(gv, off >= 0 ? x[(n * g.Ci + ic) * g.inSp + off] : A(0));
    });
}

template<class A>
FXL_HD inline A convChannelSumAt(const A* go, int64_t N, int64_t C, int64_t sp, int64_t c)
{
    return math::sum::sumOrdered<A>(N * sp, [&](int64_t q) { return go[((q / sp) * C + c) * sp + q % sp]; });
}

template<class A>
FXL_HD inline void convBodyTyped(const Coord& c, const ConvParams& p)
{
    const A* a = static_cast<const A*>(p.a);
    const A* b = static_cast<const A*>(p.b);
    A* out = static_cast<A*>(p.out);
    for (int64_t r = c.globalX(); r < p.count; r += c.strideX()) {
        switch (p.core) {
        case ConvCore::Forward: out[r] = convForwardAt<A>(p.g, a, b, static_cast<const A*>(p.bias), r); break;
        case ConvCore::GradInput: out[r] = convGradInputAt<A>(p.g, a, b, r); break;
        case ConvCore::GradWeight: out[r] = convGradWeightAt<A>(p.g, a, b, r); break;
        case ConvCore::ChannelSum: out[r] = convChannelSumAt<A>(a, p.sumN, p.sumC, p.sumSp, r); break;
        }
    }
}

FXL_HD inline void convBody(const Coord& c, const ConvParams& p)
{
    if (p.f64)
        convBodyTyped<double>(c, p);
    else
        convBodyTyped<float>(c, p);
}

}  // namespace fxl::cuda
