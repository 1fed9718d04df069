// The convolution as a backend receives it (Backend::conv), after the host logic the CPU and
// device kernels share (runtime/cpu/cpu_conv.cpp: argument checks, shapes, the operands widened
// to the accumulation type A, float for f32 / bf16 / f16 and double for f64, contiguous). Each
// core computes every element of its output as one sum in the reduction family's order
// (math/sum_order.hpp), over the sequence of terms cpu_conv.cpp's comment defines:
//   Forward     y[n, oc, o]     over (input channel of the group, kernel position), + bias
//   GradInput   gi[n, ic, i]    over (output channel of the group, kernel position) pairs that reach i
//   GradWeight  gw[oc, icl, k]  over (n, o)
//   ChannelSum  gb[c]           over (n, position)
#pragma once

#include <cstdint>

#include "runtime/math/hostdev.hpp"

namespace fxl {

class Tensor;

inline constexpr int kConvMaxSpatial = 3;

// The regular (not transposed) convolution's shapes: x [N, Ci, in...], w [Co, Ci/G, k...],
// y [N, Co, out...].
struct ConvGeom
{
    int D = 0;
    int64_t N = 0, G = 1, Ci = 0, Co = 0, Cgi = 0, Cgo = 0;
    int64_t in[kConvMaxSpatial] = {1, 1, 1}, out[kConvMaxSpatial] = {1, 1, 1}, k[kConvMaxSpatial] = {1, 1, 1};
    int64_t s[kConvMaxSpatial] = {1, 1, 1}, p[kConvMaxSpatial] = {0, 0, 0}, d[kConvMaxSpatial] = {1, 1, 1};
    int64_t inSp = 1, outSp = 1, kSp = 1;
    void finish()
    {
        inSp = outSp = kSp = 1;
        for (int j = 0; j < D; ++j) {
            inSp *= in[j];
            outSp *= out[j];
            kSp *= k[j];
        }
        Cgi = Ci / G;
        Cgo = Co / G;
    }
};

// Row-major coordinates of a flat index over `sizes` (D dims).
FXL_HD inline void convDecode(int64_t flat, const int64_t* sizes, int D, int64_t* c)
{
    for (int j = D - 1; j >= 0; --j) {
        c[j] = flat % sizes[j];
        flat /= sizes[j];
    }
}

enum class ConvCore : uint8_t
{
    Forward,  // a = x, b = w, bias optional; out [N, Co, out...]
    GradInput,  // a = grad_output [N, Co, out...], b = w; out [N, Ci, in...]
    GradWeight,  // a = grad_output, b = x; out [Co, Cgi, k...]
    ChannelSum  // a = grad_output seen as [sumN, sumC, sumSp]; out [sumC]
};

struct ConvLoop
{
    ConvCore core = ConvCore::Forward;
    ConvGeom g;
    const Tensor* a = nullptr;
    const Tensor* b = nullptr;
    const Tensor* bias = nullptr;
    const Tensor* out = nullptr;  // A-typed, contiguous
    int64_t sumN = 0, sumC = 0, sumSp = 0;  // ChannelSum
};

}  // namespace fxl
