// aten.convolution / aten.convolution_backward on the CPU: 1-d, 2-d and 3-d, groups, stride,
// padding (zeros), dilation, optional bias, transposed (with output_padding), unbatched inputs.
//
// Numerics (runtime/base/kernel.hpp, docs/numerics.md): inputs are widened exactly to the
// accumulation type A (f32 for f32/bf16/f16, f64 for f64); every output element is computed by
// one thread as ONE sum in the reduction family's order (runtime/math/sum_order.hpp:
// blocks of 128, 8 lanes, a binary cascade), over a sequence whose order depends only on the
// shapes; then rounded once to the storage dtype. No FMA.
//   forward     y[n,oc,o]   = S_{icl, kpos}(xpad[n, ic, o*s - p + kpos*d] * w[oc, icl, kpos]) (+ bias[oc])
//               terms in (input channel of the group, kernel position row-major) order; padded
//               positions contribute 0 * w (as PyTorch's zero padding); the bias is added after
//               the sum (one rounding).
//   grad_input  gi[n,ic,i]  = S_{ocl, kpos}(g[n, oc, o] * w[oc, icl, kpos]) over the (output
//               channel of the group, kernel position) pairs, in that order, whose output
//               position o = (i + p - kpos*d) / s is whole and in range (others are absent).
//   grad_weight gw[oc,icl,k] = S_{n, o}(g[n, oc, o] * xpad[n, ic, o*s - p + k*d]), (n, o) row-major.
//   grad_bias   gb[oc]      = S_{n, o}(g[n, oc, o]).
// Forward and grad_input elements of batch row n read only row n: a chunk of the batch gives
// the same bits as the whole batch. grad_weight / grad_bias reduce over the batch (their order
// depends on N * output size only). Thread count never changes a bit: threads split outputs.
// A transposed convolution is the grad_input of the regular convolution it transposes (and its
// backward the regular forward / grad_weight with the roles swapped), so it has the same orders.
// Outputs are contiguous, or channels-last where PyTorch's are (a channels-last input or weight).
#include "runtime/cpu/cpu_conv.hpp"
#include "runtime/math/accumulate.hpp"
#include "runtime/math/windows.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "runtime/base/backend.hpp"
#include "runtime/base/conv_loop.hpp"
#include "runtime/cpu/cpu_common.hpp"
#include "runtime/cpu/cpu_elementwise.hpp"
#include "runtime/cpu/cpu_reduction.hpp"
#include "runtime/cpu/thread_pool.hpp"

namespace fxl::cpu {
namespace {

using red::AccOf;
using red::dispatchFloating;
using red::grainFor;
using red::narrowed;
using red::narrowedOnDevice;
using red::narrowTo;
using red::parallelRows;
using red::sumOrdered;
using red::widen;
using red::widenedOnDevice;
using red::widenTo;

constexpr int kMaxSp = kConvMaxSpatial;

// The regular (not transposed) convolution's shapes (runtime/base/conv_loop.hpp).
using Geom = ConvGeom;

inline void decode(int64_t flat, const int64_t* sizes, int D, int64_t* c) { convDecode(flat, sizes, D, c); }

// ---- the three cores (A: accumulation type; all arrays contiguous)

template<class A>
void forwardCore(const Geom& g, const A* x, const A* w, const A* bias, A* y, ThreadPool* pool)
{
    const int64_t L = g.Cgi * g.kSp;
    const int64_t rows = g.N * g.G * g.outSp;
    parallelRows(pool, rows, grainFor(L * (g.Cgo + 1)), [&](int64_t b, int64_t e) {
        std::vector<A> col(static_cast<size_t>(L));
        std::vector<int64_t> ioff(static_cast<size_t>(g.kSp));
        for (int64_t r = b; r < e; ++r) {
            const int64_t o = r % g.outSp, grp = (r / g.outSp) % g.G, n = r / (g.outSp * g.G);
            int64_t oc[kMaxSp], kc[kMaxSp];
            decode(o, g.out, g.D, oc);
            for (int64_t kp = 0; kp < g.kSp; ++kp) {
                decode(kp, g.k, g.D, kc);
                int64_t off = 0;
                for (int j = 0; j < g.D && off >= 0; ++j) {
                    const int64_t i = math::win::poolTap(oc[j], kc[j], g.s[j], g.p[j], g.d[j]);
                    off = (i < 0 || i >= g.in[j]) ? -1 : off * g.in[j] + i;
                }
                ioff[static_cast<size_t>(kp)] = off;
            }
            for (int64_t icl = 0; icl < g.Cgi; ++icl) {
                const A* xp = x + (n * g.Ci + grp * g.Cgi + icl) * g.inSp;
                A* cp = col.data() + icl * g.kSp;
                for (int64_t kp = 0; kp < g.kSp; ++kp) {
                    const int64_t off = ioff[static_cast<size_t>(kp)];
                    cp[kp] = off >= 0 ? xp[off] : A(0);
                }
            }
            for (int64_t ocl = 0; ocl < g.Cgo; ++ocl) {
                const int64_t och = grp * g.Cgo + ocl;
                const A* wr = w + och * L;
                const A* cp = col.data();
                const A acc = math::acc::tapSum<A>(
                    L, [&](int64_t i) { return cp[i]; }, [&](int64_t i) { return wr[i]; });
                y[(n * g.Co + och) * g.outSp + o] = math::acc::withBias(acc, bias != nullptr, bias ? bias[och] : A(0));
            }
        }
    });
}

template<class A>
void gradInputCore(const Geom& g, const A* go, const A* w, A* gi, ThreadPool* pool)
{
    const int64_t rows = g.N * g.Ci * g.inSp;
    parallelRows(pool, rows, grainFor(g.Cgo * g.kSp), [&](int64_t b, int64_t e) {
        std::vector<int64_t> ooff(static_cast<size_t>(g.kSp));
        std::vector<A> buf(static_cast<size_t>(g.Cgo * g.kSp));
        for (int64_t r = b; r < e; ++r) {
            const int64_t i = r % g.inSp, ic = (r / g.inSp) % g.Ci, n = r / (g.inSp * g.Ci);
            const int64_t grp = ic / g.Cgi, icl = ic % g.Cgi;
            int64_t icc[kMaxSp], kc[kMaxSp];
            decode(i, g.in, g.D, icc);
            for (int64_t kp = 0; kp < g.kSp; ++kp) {
                decode(kp, g.k, g.D, kc);
                int64_t off = 0;
                for (int j = 0; j < g.D && off >= 0; ++j) {
                    const int64_t t = math::win::tapSource(icc[j], kc[j], g.s[j], g.p[j], g.d[j], g.out[j]);
                    off = t < 0 ? -1 : off * g.out[j] + t;
                }
                ooff[static_cast<size_t>(kp)] = off;
            }
            int64_t m = 0;
            for (int64_t ocl = 0; ocl < g.Cgo; ++ocl) {
                const int64_t och = grp * g.Cgo + ocl;
                const A* gp = go + (n * g.Co + och) * g.outSp;
                const A* wr = w + (och * g.Cgi + icl) * g.kSp;
                for (int64_t kp = 0; kp < g.kSp; ++kp) {
                    const int64_t off = ooff[static_cast<size_t>(kp)];
                    if (off >= 0) buf[static_cast<size_t>(m++)] = math::acc::tapProduct(gp[off], wr[kp]);
                }
            }
            const A* bp = buf.data();
            gi[r] = sumOrdered<A>(m, [&](int64_t q) { return bp[q]; });
        }
    });
}

template<class A>
void gradWeightCore(const Geom& g, const A* go, const A* x, A* gw, ThreadPool* pool)
{
    const int64_t rows = g.Co * g.Cgi * g.kSp;
    const int64_t M = g.N * g.outSp;
    parallelRows(pool, rows, grainFor(M), [&](int64_t b, int64_t e) {
        std::vector<int64_t> ioff(static_cast<size_t>(g.outSp));
        for (int64_t r = b; r < e; ++r) {
            const int64_t kp = r % g.kSp, icl = (r / g.kSp) % g.Cgi, och = r / (g.kSp * g.Cgi);
            const int64_t ic = (och / g.Cgo) * g.Cgi + icl;
            int64_t kc[kMaxSp], oc[kMaxSp];
            decode(kp, g.k, g.D, kc);
            for (int64_t o = 0; o < g.outSp; ++o) {
                decode(o, g.out, g.D, oc);
                int64_t off = 0;
                for (int j = 0; j < g.D && off >= 0; ++j) {
                    const int64_t i = math::win::poolTap(oc[j], kc[j], g.s[j], g.p[j], g.d[j]);
                    off = (i < 0 || i >= g.in[j]) ? -1 : off * g.in[j] + i;
                }
                ioff[static_cast<size_t>(o)] = off;
            }
            const int64_t* tab = ioff.data();
            gw[r] = sumOrdered<A>(M, [&](int64_t q) {
                const int64_t n = q / g.outSp, o = q % g.outSp;
                const A gv = go[(n * g.Co + och) * g.outSp + o];
                const int64_t off = tab[o];
                return math::acc::tapProduct(gv, off >= 0 ? x[(n * g.Ci + ic) * g.inSp + off] : A(0));
            });
        }
    });
}

// gb[c] = S_{n, o}(g[n, c, o]) for g [N, C, sp].
template<class A>
void channelSumCore(const A* go, int64_t N, int64_t C, int64_t sp, A* gb, ThreadPool* pool)
{
    parallelRows(pool, C, grainFor(N * sp), [&](int64_t b, int64_t e) {
        for (int64_t c = b; c < e; ++c)
            gb[c] = sumOrdered<A>(N * sp, [&](int64_t q) { return go[((q / sp) * C + c) * sp + q % sp]; });
    });
}

// ---- arguments (tensors <-> widened arrays: widen / narrowed, runtime/cpu/cpu_reduction.hpp)

// A per-spatial-dim list argument: one value (repeated) or D values.
void spatialList(const KernelCall& call, const char* op, const char* name, int D, int64_t* dst, int64_t minValue)
{
    const std::vector<int64_t> v = call.arg(name).toIntList();
    if (v.size() != 1 && v.size() != static_cast<size_t>(D))
        throw KernelError(std::string(op) + ": " + name + " has " + std::to_string(v.size()) + " values, expected 1 or "
                          + std::to_string(D));
    for (int j = 0; j < D; ++j) {
        dst[j] = v.size() == 1 ? v[0] : v[static_cast<size_t>(j)];
        if (dst[j] < minValue)
            throw KernelError(std::string(op) + ": " + name + " must be >= " + std::to_string(minValue) + ", got "
                              + sizesText(v));
    }
}

struct ConvArgs
{
    Geom geom;  // of the regular convolution (for a transposed one: the one it transposes)
    bool transposed = false;
    bool batched = true;
    int64_t outChannels = 0;  // of the op's result
    std::vector<int64_t> resultSizes;  // the op's output sizes (without a batch dim when unbatched)
};

// Shapes of convolution(input, weight, ...) (the op's input x, not the regular conv's).
ConvArgs convArgs(const KernelCall& call, const Tensor& x, const Tensor& w, const char* op)
{
    ConvArgs a;
    const int64_t wd = w.dim();
    if (wd < 3 || wd > 5)
        throw KernelError(std::string(op) + ": weight must be 3-d, 4-d or 5-d, got " + sizesText(w.sizes()));
    a.batched = x.dim() == wd;
    if (!a.batched && x.dim() != wd - 1)
        throw KernelError(std::string(op) + ": input " + sizesText(x.sizes()) + " does not fit weight "
                          + sizesText(w.sizes()));
    const int D = static_cast<int>(wd - 2);
    const int64_t xo = a.batched ? 0 : -1;  // x's size of dim j is x.size(j + xo)
    const int64_t N = a.batched ? x.size(0) : 1, C = x.size(1 + xo);
    Geom& g = a.geom;
    g.D = D;
    g.N = N;
    g.G = call.arg("groups").toInt();
    if (g.G < 1) throw KernelError(std::string(op) + ": groups must be >= 1");
    a.transposed = call.arg("transposed").toInt() != 0;
    spatialList(call, op, "stride", D, g.s, 1);
    spatialList(call, op, "padding", D, g.p, 0);
    spatialList(call, op, "dilation", D, g.d, 1);
    int64_t outPad[kMaxSp] = {0, 0, 0};
    if (a.transposed) spatialList(call, op, "output_padding", D, outPad, 0);
    for (int j = 0; j < D; ++j) g.k[j] = w.size(2 + j);
    if (C % g.G != 0 || w.size(0) % (a.transposed ? g.G : 1) != 0)
        throw KernelError(std::string(op) + ": input channels " + std::to_string(C) + " not divisible by groups "
                          + std::to_string(g.G));
    if (!a.transposed) {
        if (w.size(1) * g.G != C || w.size(0) % g.G != 0)
            throw KernelError(std::string(op) + ": weight " + sizesText(w.sizes()) + " does not fit "
                              + std::to_string(C) + " input channels in " + std::to_string(g.G) + " groups");
        g.Ci = C;
        g.Co = w.size(0);
        a.outChannels = g.Co;
        for (int j = 0; j < D; ++j) {
            g.in[j] = x.size(2 + j + xo);
            const int64_t num = g.in[j] + 2 * g.p[j] - g.d[j] * (g.k[j] - 1) - 1;
            if (num < 0)
                throw KernelError(std::string(op) + ": input " + sizesText(x.sizes()) + " (padded) is smaller than the "
                                  + "dilated kernel " + sizesText(w.sizes()));
            g.out[j] = num / g.s[j] + 1;
        }
    } else {
        if (w.size(0) != C)
            throw KernelError(std::string(op) + ": transposed weight " + sizesText(w.sizes()) + " does not fit "
                              + std::to_string(C) + " input channels");
        g.Co = C;  // the regular conv's output is this op's input
        g.Ci = w.size(1) * g.G;
        a.outChannels = g.Ci;
        for (int j = 0; j < D; ++j) {
            if (outPad[j] >= g.s[j] && outPad[j] >= g.d[j])
                throw KernelError(std::string(op) + ": output_padding must be smaller than stride or dilation");
            g.out[j] = x.size(2 + j + xo);
            g.in[j] = (g.out[j] - 1) * g.s[j] - 2 * g.p[j] + g.d[j] * (g.k[j] - 1) + outPad[j] + 1;
            if (g.in[j] <= 0)
                throw KernelError(std::string(op) + ": transposed output size is not positive for input "
                                  + sizesText(x.sizes()));
        }
    }
    g.finish();
    if (a.batched) a.resultSizes.push_back(N);
    a.resultSizes.push_back(a.outChannels);
    for (int j = 0; j < D; ++j) a.resultSizes.push_back(a.transposed ? g.in[j] : g.out[j]);
    return a;
}

void checkDtypes(const char* op, const Tensor& a, const Tensor& b, const char* an, const char* bn)
{
    if (a.dtype() != b.dtype())
        throw KernelError(std::string(op) + ": " + an + " is " + std::string(dtypeAbbr(a.dtype())) + " but " + bn
                          + " is " + std::string(dtypeAbbr(b.dtype())));
}

// ---- on a device: the same host logic, the cores run by the backend (Backend::conv)

// One core into a new A-typed tensor of `sizes`.
Tensor runCore(const KernelCall& call, ConvCore core, const Geom& g, const Tensor& a, const Tensor* b,
               const Tensor* bias, const std::vector<int64_t>& sizes)
{
    Tensor out = call.newTensor(sizes, a.dtype());
    ConvLoop loop;
    loop.core = core;
    loop.g = g;
    loop.a = &a;
    loop.b = b;
    loop.bias = bias;
    loop.out = &out;
    call.backend->conv(loop);
    return out;
}

Tensor convolutionOnDevice(const KernelCall& call, const ConvArgs& a, const Tensor& x, const Tensor& w, const Value& bv)
{
    const Geom& g = a.geom;
    const Tensor xv = widenedOnDevice(call, x), wv = widenedOnDevice(call, w);
    Tensor biasv;
    if (!bv.isNone()) biasv = widenedOnDevice(call, bv.tensor);
    if (!a.transposed)
        return narrowedOnDevice(
            call, runCore(call, ConvCore::Forward, g, xv, &wv, bv.isNone() ? nullptr : &biasv, a.resultSizes),
            x.dtype());
    const Tensor y = runCore(call, ConvCore::GradInput, g, xv, &wv, nullptr, a.resultSizes);
    if (!bv.isNone()) {  // the bias after the sum: one rounding
        const std::vector<int64_t> rows{g.N, g.Ci, g.inSp};
        const Tensor yv = y.asStrided(rows, {g.Ci * g.inSp, g.inSp, 1}, 0);
        const Tensor bb = biasv.asStrided(rows, {0, 1, 0}, 0);
        if (y.dtype() == DType::F64)
            ew::pointwise<double, double, double>(
                call.pool, yv, {yv, bb}, ew::lifted<double, double, double>(math::arith::Add<double>{1.0, true}));
        else
            ew::pointwise<float, float, float>(call.pool, yv, {yv, bb},
                                               ew::lifted<float, float, float>(math::arith::Add<float>{1.0f, true}));
    }
    return narrowedOnDevice(call, y, x.dtype());
}

void convolution(KernelCall& call)
{
    const char* op = "convolution";
    const Tensor& x = call.tensor("input");
    const Tensor& w = call.tensor("weight");
    const Value& bv = call.arg("bias");
    checkDtypes(op, x, w, "input", "weight");
    if (!bv.isNone()) {
        checkDtypes(op, x, bv.tensor, "input", "bias");
        if (bv.tensor.numel() != (call.arg("transposed").toInt() ? w.size(1) * call.arg("groups").toInt() : w.size(0)))
            throw KernelError(std::string(op) + ": bias " + sizesText(bv.tensor.sizes())
                              + " does not have one value per output channel");
    }
    const ConvArgs a = convArgs(call, x, w, op);
    Backend& be = *call.backend;
    Tensor out;
    if (be.device() != DeviceKind::Cpu) {
        dispatchFloating(x.dtype(), op, [](auto) {});  // the CPU's refusal of other dtypes
        out = convolutionOnDevice(call, a, x, w, bv);
    } else
        dispatchFloating(x.dtype(), op, [&](auto tag) {
            using T = decltype(tag);
            using A = AccOf<T>;
            const std::vector<A> xv = widen<T, A>(x, be), wv = widen<T, A>(w, be);
            std::vector<A> biasv;
            if (!bv.isNone()) biasv = widen<T, A>(bv.tensor, be);
            const Geom& g = a.geom;
            if (!a.transposed) {
                std::vector<A> y(static_cast<size_t>(g.N * g.Co * g.outSp));
                forwardCore<A>(g, xv.data(), wv.data(), biasv.empty() ? nullptr : biasv.data(), y.data(), call.pool);
                out = narrowed<T, A>(call, a.resultSizes, x.dtype(), y);
            } else {
                std::vector<A> y(static_cast<size_t>(g.N * g.Ci * g.inSp));
                gradInputCore<A>(g, xv.data(), wv.data(), y.data(), call.pool);
                if (!biasv.empty())  // the bias after the sum: one rounding
                    for (size_t q = 0; q < y.size(); ++q)
                        y[q] = y[q] + biasv[static_cast<size_t>((static_cast<int64_t>(q) / g.inSp) % g.Ci)];
                out = narrowed<T, A>(call, a.resultSizes, x.dtype(), y);
            }
        });
    // the output's layout as PyTorch's (and the meta's): channels-last when input or weight is
    if (out.dim() >= 4 && (suggestsChannelsLast(x) || suggestsChannelsLast(w))) out = toChannelsLast(call, out);
    call.result = Value::ofTensor(out);
}

void convolutionBackward(KernelCall& call)
{
    const char* op = "convolution_backward";
    const Tensor& go = call.tensor("grad_output");
    const Tensor& x = call.tensor("input");
    const Tensor& w = call.tensor("weight");
    checkDtypes(op, x, w, "input", "weight");
    checkDtypes(op, x, go, "input", "grad_output");
    std::vector<int64_t> mask = call.arg("output_mask").toIntList();
    mask.resize(3, 0);
    const ConvArgs a = convArgs(call, x, w, op);
    if (go.sizes() != a.resultSizes)
        throw KernelError(std::string(op) + ": grad_output is " + sizesText(go.sizes()) + ", the convolution gives "
                          + sizesText(a.resultSizes));
    std::vector<int64_t> biasSizes{a.outChannels};
    const Value& bs = call.arg("bias_sizes");
    if (!bs.isNone() && mask[2]) {  // (PyTorch passes [0] for a convolution without bias)
        biasSizes = bs.toIntList();
        int64_t n = 1;
        for (int64_t s : biasSizes) n *= s;
        if (n != a.outChannels)
            throw KernelError(std::string(op) + ": bias_sizes " + sizesText(biasSizes) + " do not hold "
                              + std::to_string(a.outChannels) + " output channels");
    }
    Backend& be = *call.backend;
    Tensor gi, gw, gb;
    if (be.device() != DeviceKind::Cpu) {
        dispatchFloating(x.dtype(), op, [](auto) {});
        const Geom& g = a.geom;
        const Tensor gv = widenedOnDevice(call, go), wv = widenedOnDevice(call, w);
        Tensor xv;
        if (mask[1]) xv = widenedOnDevice(call, x);
        if (mask[0])
            gi = narrowedOnDevice(
                call,
                runCore(call, a.transposed ? ConvCore::Forward : ConvCore::GradInput, g, gv, &wv, nullptr, x.sizes()),
                x.dtype());
        if (mask[1])
            gw = narrowedOnDevice(call,
                                  a.transposed ? runCore(call, ConvCore::GradWeight, g, xv, &gv, nullptr, w.sizes())
                                               : runCore(call, ConvCore::GradWeight, g, gv, &xv, nullptr, w.sizes()),
                                  w.dtype());
        if (mask[2]) {
            Tensor r = call.newTensor(biasSizes, gv.dtype());
            ConvLoop loop;
            loop.core = ConvCore::ChannelSum;
            loop.a = &gv;
            loop.out = &r;
            loop.sumN = g.N;
            loop.sumC = a.outChannels;
            loop.sumSp = a.transposed ? g.inSp : g.outSp;
            be.conv(loop);
            gb = narrowedOnDevice(call, r, go.dtype());
        }
    } else
        dispatchFloating(x.dtype(), op, [&](auto tag) {
            using T = decltype(tag);
            using A = AccOf<T>;
            const Geom& g = a.geom;
            const std::vector<A> gv = widen<T, A>(go, be), wv = widen<T, A>(w, be);
            std::vector<A> xv;
            if (mask[1]) xv = widen<T, A>(x, be);
            // regular: g is the conv's output gradient [N, Co, out], x [N, Ci, in]
            // transposed: the op's input x plays the regular output [N, Co, out], g the regular input
            if (mask[0]) {
                if (!a.transposed) {
                    std::vector<A> r(static_cast<size_t>(g.N * g.Ci * g.inSp));
                    gradInputCore<A>(g, gv.data(), wv.data(), r.data(), call.pool);
                    gi = narrowed<T, A>(call, x.sizes(), x.dtype(), r);
                } else {
                    std::vector<A> r(static_cast<size_t>(g.N * g.Co * g.outSp));
                    forwardCore<A>(g, gv.data(), wv.data(), nullptr, r.data(), call.pool);
                    gi = narrowed<T, A>(call, x.sizes(), x.dtype(), r);
                }
            }
            if (mask[1]) {
                std::vector<A> r(static_cast<size_t>(w.numel()));
                if (!a.transposed)
                    gradWeightCore<A>(g, gv.data(), xv.data(), r.data(), call.pool);
                else
                    gradWeightCore<A>(g, xv.data(), gv.data(), r.data(), call.pool);
                gw = narrowed<T, A>(call, w.sizes(), w.dtype(), r);
            }
            if (mask[2]) {
                std::vector<A> r(static_cast<size_t>(a.outChannels));
                const int64_t sp = a.transposed ? g.inSp : g.outSp;
                channelSumCore<A>(gv.data(), g.N, a.outChannels, sp, r.data(), call.pool);
                gb = narrowed<T, A>(call, biasSizes, go.dtype(), r);
            }
        });
    // PyTorch's layout: channels-last grad_input and grad_weight when input or weight is
    if (x.dim() >= 4 && (suggestsChannelsLast(x) || suggestsChannelsLast(w))) {
        if (gi.defined()) gi = toChannelsLast(call, gi);
        if (gw.defined()) gw = toChannelsLast(call, gw);
    }
    call.result = Value::ofList({red::tensorOrNone(gi), red::tensorOrNone(gw), red::tensorOrNone(gb)});
}

}  // namespace

bool suggestsChannelsLast(const Tensor& t)
{
    const int64_t n = t.dim();
    if (n != 4 && n != 5) return false;
    const std::vector<int64_t> order = n == 4 ? std::vector<int64_t>{1, 3, 2, 0} : std::vector<int64_t>{1, 4, 3, 2, 0};
    if (t.stride(1) == 0) return false;
    int64_t minv = 0;
    for (int64_t d : order) {
        const int64_t sz = t.size(d), st = t.stride(d);
        if (sz == 0 || st < minv) return false;
        if (d == 0 && minv == t.stride(1)) return false;
        minv = st;
        if (sz > 1) minv *= sz;
    }
    return true;
}

Tensor toChannelsLast(const KernelCall& call, const Tensor& t)
{
    const int64_t n = t.dim();
    const std::vector<int64_t> order = n == 4 ? std::vector<int64_t>{1, 3, 2, 0} : std::vector<int64_t>{1, 4, 3, 2, 0};
    std::vector<int64_t> strides(static_cast<size_t>(n));
    int64_t acc = 1;
    for (int64_t d : order) {
        strides[static_cast<size_t>(d)] = acc;
        acc *= std::max<int64_t>(t.size(d), 1);
    }
    Tensor store = call.newTensor({t.numel()}, t.dtype());
    Tensor out = store.asStrided(t.sizes(), strides, 0);
    call.backend->copy(out, t);
    return out;
}

void registerConvKernels(KernelRegistry& reg, DeviceKind d)
{
    reg.add("aten.convolution.default", d, convolution);
    reg.add("aten.convolution_backward.default", d, convolutionBackward);
}

}  // namespace fxl::cpu
