// Pooling and resampling on the CPU: max_pool2d/3d_with_indices (+ backwards), avg_pool1d/2d/3d
// (+ 2-d/3-d backwards), adaptive average pooling 1-d/2-d/3-d (+ 2-d/3-d backwards), upsample_nearest2d.vec,
// upsample_bilinear2d.vec (+ backwards) and grid_sampler_2d (bilinear, nearest and bicubic; zeros, border and
// reflection padding).
//
// Inputs are [..., C, *spatial] (D = 1, 2 or 3 spatial dims; one or two leading dims); every
// leading index ("plane") is independent, so a chunk of the batch gives the same bits as the
// whole batch, whatever the strides or the thread count (threads split planes, or output
// elements of a plane). Numerics (runtime/base/kernel.hpp, docs/numerics.md):
//   max pools      window positions visited row-major; an element replaces the running max
//                  when it is greater or NaN (PyTorch's rule: the last NaN wins); the index is
//                  the flat position inside the input plane (first valid one when the window
//                  holds only -inf). Exact: no rounding.
//   average pools  S(window, row-major) in the reduction family's order (sumOrdered,
//                  runtime/cpu/cpu_reduction.hpp) in A (f32 for f32/bf16/f16, f64 for f64),
//                  then / divisor (avg: divisor_override, else the window clipped to the padded
//                  input when count_include_pad, else the valid elements); adaptive: / k_0 / k_1
//                  ... one division per dim as PyTorch; rounded once.
//   backwards      one thread per plane adds, in increasing output position, each output's
//                  share (max: g at the recorded index; avg: g / divisor; adaptive: g / k_0 /
//                  k_1 ...) into an A buffer starting at +0; rounded once. The order depends on
//                  the shapes only.
//   upsampling     PyTorch's source-index rules (nearest: floor(dst * scale) in float;
//                  bilinear: area_pixel_compute_source_index, align_corners both ways) and
//                  out = (x00*w0 + x01*w1)*h0 + (x10*w0 + x11*w1)*h1 in A.
// Outputs are contiguous, except that pools and upsampling keep a channels-last input's layout
// (PyTorch's suggest_memory_format), as do the pool backwards for self's layout.
#include "runtime/cpu/cpu_pool.hpp"

#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "runtime/base/backend.hpp"
#include "runtime/base/plane_loop.hpp"
#include "runtime/cpu/cpu_common.hpp"
#include "runtime/cpu/cpu_conv.hpp"
#include "runtime/cpu/cpu_elementwise.hpp"
#include "runtime/cpu/cpu_reduction.hpp"
#include "runtime/cpu/thread_pool.hpp"
#include "runtime/math/windows.hpp"

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

constexpr int kMaxSp = 3;

inline void decode(int64_t flat, const int64_t* sizes, int D, int64_t* c)
{
    for (int j = D - 1; j >= 0; --j) {
        c[j] = flat % sizes[j];
        flat /= sizes[j];
    }
}

struct PoolGeom
{
    int D = 0;
    int64_t planes = 0;
    int64_t in[kMaxSp] = {1, 1, 1}, out[kMaxSp] = {1, 1, 1}, k[kMaxSp] = {1, 1, 1};
    int64_t s[kMaxSp] = {1, 1, 1}, p[kMaxSp] = {0, 0, 0}, d[kMaxSp] = {1, 1, 1};
    int64_t inSp = 1, outSp = 1;
    std::vector<int64_t> lead;  // the leading (plane) sizes
    std::vector<int64_t> outSizes() const
    {
        std::vector<int64_t> r = lead;
        for (int j = 0; j < D; ++j) r.push_back(out[j]);
        return r;
    }
    void finish()
    {
        inSp = outSp = 1;
        for (int j = 0; j < D; ++j) {
            inSp *= in[j];
            outSp *= out[j];
        }
    }
};

// Planes and spatial sizes of x for a D-d pool: x is [C, *sp] or [N, C, *sp].
PoolGeom planesOf(const Tensor& x, int D, const char* op)
{
    if (x.dim() != D + 1 && x.dim() != D + 2)
        throw KernelError(std::string(op) + ": input must be " + std::to_string(D + 1) + "-d or "
                          + std::to_string(D + 2) + "-d, got " + sizesText(x.sizes()));
    PoolGeom g;
    g.D = D;
    const int64_t nl = x.dim() - D;
    g.planes = 1;
    for (int64_t j = 0; j < nl; ++j) {
        g.lead.push_back(x.size(j));
        g.planes *= x.size(j);
    }
    for (int j = 0; j < D; ++j) g.in[j] = x.size(nl + j);
    return g;
}

// A per-dim int list: 1 value (repeated) or D values; `fallback` when empty (nullptr: error).
void dimList(const Value& v, const char* op, const char* name, int D, int64_t* dst, const int64_t* fallback,
             int64_t minValue)
{
    const std::vector<int64_t> l = v.isNone() ? std::vector<int64_t>{} : v.toIntList();
    if (l.empty() && fallback) {
        for (int j = 0; j < D; ++j) dst[j] = fallback[j];
        return;
    }
    if (l.size() != 1 && l.size() != static_cast<size_t>(D))
        throw KernelError(std::string(op) + ": " + name + " has " + std::to_string(l.size()) + " values, expected 1 or "
                          + std::to_string(D));
    for (int j = 0; j < D; ++j) {
        dst[j] = l.size() == 1 ? l[0] : l[static_cast<size_t>(j)];
        if (dst[j] < minValue)
            throw KernelError(std::string(op) + ": " + name + " must be >= " + std::to_string(minValue) + ", got "
                              + sizesText(l));
    }
}

// PyTorch's pooling_output_shape (with its checks).
int64_t pooledSize(int64_t in, int64_t k, int64_t p, int64_t s, int64_t d, bool ceil, const char* op)
{
    if (p > k / 2) throw KernelError(std::string(op) + ": padding should be at most half of the kernel size");
    const int64_t num = in + 2 * p - d * (k - 1) - 1 + (ceil ? s - 1 : 0);
    int64_t o = (num >= 0 ? num / s : -((-num + s - 1) / s)) + 1;
    if (ceil && (o - 1) * s >= in + p) --o;
    if (o < 1)
        throw KernelError(std::string(op) + ": output size would be " + std::to_string(o) + " for input size "
                          + std::to_string(in));
    return o;
}

// Pool arguments: kernel_size, stride (empty = kernel), padding, [dilation], ceil_mode.
PoolGeom poolGeom(const KernelCall& call, const Tensor& x, int D, const char* op, bool hasDilation)
{
    PoolGeom g = planesOf(x, D, op);
    dimList(call.arg("kernel_size"), op, "kernel_size", D, g.k, nullptr, 1);
    dimList(call.arg("stride"), op, "stride", D, g.s, g.k, 1);
    dimList(call.arg("padding"), op, "padding", D, g.p, nullptr, 0);
    if (hasDilation) dimList(call.arg("dilation"), op, "dilation", D, g.d, nullptr, 1);
    const bool ceil = call.arg("ceil_mode").toInt() != 0;
    for (int j = 0; j < D; ++j) g.out[j] = pooledSize(g.in[j], g.k[j], g.p[j], g.s[j], g.d[j], ceil, op);
    g.finish();
    return g;
}

// The loop's geometry (Backend::plane on a device).
PlaneGeom planeGeomOf(const PoolGeom& g)
{
    PlaneGeom p;
    p.D = g.D;
    p.planes = g.planes;
    for (int j = 0; j < kMaxSp; ++j) {
        p.in[j] = g.in[j];
        p.out[j] = g.out[j];
        p.k[j] = g.k[j];
        p.s[j] = g.s[j];
        p.p[j] = g.p[j];
        p.d[j] = g.d[j];
    }
    p.inSp = g.inSp;
    p.outSp = g.outSp;
    return p;
}

// out[plane, :] = +0, then out[plane, index(o)] += src[plane, o] for o increasing, on the device
// (the max-pool and nearest-upsampling backwards); src is the gradient widened.
Tensor scatterAddOnDevice(const KernelCall& call, const PoolGeom& g, const Tensor& src, const Tensor& index,
                          bool indexPerPlane, const std::vector<int64_t>& sizes)
{
    Tensor r = call.newTensor(sizes, src.dtype());
    PlaneLoop loop;
    loop.op = PlaneOp::ScatterAdd;
    loop.g = planeGeomOf(g);
    loop.src = &src;
    loop.index = &index;
    loop.indexPerPlane = indexPerPlane;
    loop.out = &r;
    call.backend->plane(loop);
    return r;
}

// The flat input position of every output of a nearest upsampling (ih, iw: per output row / column).
std::vector<int64_t> nearestMap(const PoolGeom& g, const std::vector<int64_t>& ih, const std::vector<int64_t>& iw)
{
    std::vector<int64_t> m(static_cast<size_t>(g.outSp));
    for (int64_t oh = 0; oh < g.out[0]; ++oh)
        for (int64_t ow = 0; ow < g.out[1]; ++ow)
            m[static_cast<size_t>(oh * g.out[1] + ow)] =
                ih[static_cast<size_t>(oh)] * g.in[1] + iw[static_cast<size_t>(ow)];
    return m;
}

// The layout PyTorch gives a pool / upsampling output: the input's suggested memory format.
Tensor layoutLike(const KernelCall& call, const Tensor& out, const Tensor& like)
{
    return suggestsChannelsLast(like) && out.dim() == like.dim() ? toChannelsLast(call, out) : out;
}

// ---- max pooling

void maxPool(KernelCall& call, int D)
{
    const char* op = D == 2 ? "max_pool2d_with_indices" : "max_pool3d_with_indices";
    const Tensor& x = call.tensor("self");
    const PoolGeom g = poolGeom(call, x, D, op, true);
    Tensor out, idx = call.newTensor(g.outSizes(), DType::I64);
    if (call.backend->device() != DeviceKind::Cpu) {
        dispatchFloating(x.dtype(), op, [](auto) {});  // the CPU's refusal of other dtypes
        const Tensor xv = widenedOnDevice(call, x);
        const Tensor y = call.newTensor(g.outSizes(), xv.dtype());
        PlaneLoop loop;
        loop.op = PlaneOp::MaxPool;
        loop.g = planeGeomOf(g);
        loop.src = &xv;
        loop.out = &y;
        loop.outIndex = &idx;
        call.backend->plane(loop);
        out = narrowedOnDevice(call, y, x.dtype());
        call.result =
            Value::ofList({Value::ofTensor(layoutLike(call, out, x)), Value::ofTensor(layoutLike(call, idx, x))});
        return;
    }
    int64_t* ip = idx.data<int64_t>();
    dispatchFloating(x.dtype(), op, [&](auto tag) {
        using T = decltype(tag);
        using A = AccOf<T>;
        const std::vector<A> xv = widen<T, A>(x, *call.backend);
        std::vector<A> y(static_cast<size_t>(g.planes * g.outSp));
        int64_t kSp = 1;
        for (int j = 0; j < D; ++j) kSp *= g.k[j];
        static_assert(kMaxSp == 3, "math::win::maxPoolWindow scans at most 3 spatial dims");
        parallelRows(call.pool, g.planes * g.outSp, grainFor(kSp), [&](int64_t b, int64_t e) {
            for (int64_t r = b; r < e; ++r) {
                A best = -std::numeric_limits<A>::infinity();
                int64_t bestAt = -1;
                math::win::maxPoolWindow(xv.data() + r / g.outSp * g.inSp, g, r % g.outSp, best, bestAt);
                y[static_cast<size_t>(r)] = best;
                ip[r] = bestAt;
            }
        });
        out = narrowed<T, A>(call, g.outSizes(), x.dtype(), y);
    });
    call.result = Value::ofList({Value::ofTensor(layoutLike(call, out, x)), Value::ofTensor(layoutLike(call, idx, x))});
}

// gi[plane, indices[plane, o]] += g[plane, o], o increasing, one thread per plane.
void maxPoolBackward(KernelCall& call, int D)
{
    const char* op = D == 2 ? "max_pool2d_with_indices_backward" : "max_pool3d_with_indices_backward";
    const Tensor& go = call.tensor("grad_output");
    const Tensor& x = call.tensor("self");
    const Tensor& ind = call.tensor("indices");
    const PoolGeom g = poolGeom(call, x, D, op, true);
    if (go.sizes() != g.outSizes() || ind.sizes() != g.outSizes())
        throw KernelError(std::string(op) + ": grad_output " + sizesText(go.sizes()) + " / indices "
                          + sizesText(ind.sizes()) + " do not match the pooled size " + sizesText(g.outSizes()));
    if (go.dtype() != x.dtype()) throw KernelError(std::string(op) + ": grad_output and self dtypes differ");
    if (ind.dtype() != DType::I64) throw KernelError(std::string(op) + ": indices must be int64");
    const Tensor ic = contiguous(ind, *call.backend);
    // the indices checked on the host (downloaded from a device)
    const std::vector<unsigned char> ib = ew::hostBytes(ic);
    const int64_t* hp = reinterpret_cast<const int64_t*>(ib.data());
    for (int64_t q = 0; q < ic.numel(); ++q)
        if (hp[q] < 0 || hp[q] >= g.inSp)
            throw KernelError(std::string(op) + ": index " + std::to_string(hp[q]) + " out of range [0, "
                              + std::to_string(g.inSp) + ")");
    Tensor out;
    if (call.backend->device() != DeviceKind::Cpu) {
        dispatchFloating(x.dtype(), op, [](auto) {});
        const Tensor gv = widenedOnDevice(call, go);
        out = narrowedOnDevice(call, scatterAddOnDevice(call, g, gv, ic, true, x.sizes()), x.dtype());
        call.result = Value::ofTensor(layoutLike(call, out, x));
        return;
    }
    const int64_t* ip = hp;
    dispatchFloating(x.dtype(), op, [&](auto tag) {
        using T = decltype(tag);
        using A = AccOf<T>;
        const std::vector<A> gv = widen<T, A>(go, *call.backend);
        std::vector<A> r(static_cast<size_t>(g.planes * g.inSp), A(0));
        parallelRows(call.pool, g.planes, grainFor(g.outSp + g.inSp), [&](int64_t b, int64_t e) {
            for (int64_t pl = b; pl < e; ++pl) {
                A* rp = r.data() + pl * g.inSp;
                for (int64_t o = 0; o < g.outSp; ++o)
                    rp[ip[pl * g.outSp + o]] += gv[static_cast<size_t>(pl * g.outSp + o)];
            }
        });
        out = narrowed<T, A>(call, x.sizes(), x.dtype(), r);
    });
    call.result = Value::ofTensor(layoutLike(call, out, x));
}

// ---- average pooling

struct AvgWindow
{
    int64_t lo[kMaxSp], hi[kMaxSp];  // clipped to the input
    int64_t divisor;  // 0: empty window
};

// PyTorch's window of output o: start o*s - p, end min(start + k, in + p); pool size from the
// padded window; clipped to [0, in).
AvgWindow avgWindow(const PoolGeom& g, const int64_t* oc, bool countIncludePad, std::optional<int64_t> divOverride)
{
    AvgWindow w;
    int64_t poolSize = 1, valid = 1;
    bool empty = false;
    for (int j = 0; j < g.D; ++j) {
        const math::win::AvgSpan sp = math::win::avgSpan(oc[j], g.k[j], g.s[j], g.p[j], g.in[j]);
        poolSize *= sp.padded;
        w.lo[j] = sp.lo;
        w.hi[j] = sp.hi;
        if (sp.lo >= sp.hi) empty = true;
        valid *= std::max<int64_t>(sp.hi - sp.lo, 0);
    }
    w.divisor = empty ? 0 : divOverride ? *divOverride : countIncludePad ? poolSize : valid;
    return w;
}

struct AvgArgs
{
    PoolGeom g;
    bool countIncludePad = true;
    std::optional<int64_t> divisor;
};

AvgArgs avgArgs(const KernelCall& call, const Tensor& x, int D, const char* op)
{
    AvgArgs a;
    a.g = poolGeom(call, x, D, op, false);
    a.countIncludePad = call.arg("count_include_pad").toInt() != 0;
    const Value& dv = optArg(call, "divisor_override");
    if (!dv.isNone()) {
        a.divisor = dv.toInt();
        if (*a.divisor == 0) throw KernelError(std::string(op) + ": divisor_override must not be zero");
    }
    return a;
}

// Window elements' flat offsets (row-major) into `offs`.
void windowOffsets(const PoolGeom& g, const int64_t* lo, const int64_t* hi, std::vector<int64_t>& offs)
{
    offs.clear();
    int64_t c[kMaxSp] = {0, 0, 0};
    for (int j = 0; j < g.D; ++j) {
        if (lo[j] >= hi[j]) return;
        c[j] = lo[j];
    }
    for (;;) {
        int64_t off = 0;
        for (int j = 0; j < g.D; ++j) off = off * g.in[j] + c[j];
        offs.push_back(off);
        int j = g.D - 1;
        for (; j >= 0; --j) {
            if (++c[j] < hi[j]) break;
            c[j] = lo[j];
        }
        if (j < 0) return;
    }
}

void avgPool(KernelCall& call, int D)
{
    const char* op = D == 1 ? "avg_pool1d" : D == 2 ? "avg_pool2d" : "avg_pool3d";
    const Tensor& x = call.tensor("self");
    const AvgArgs a = avgArgs(call, x, D, op);
    const PoolGeom& g = a.g;
    Tensor out;
    dispatchFloating(x.dtype(), op, [&](auto tag) {
        using T = decltype(tag);
        using A = AccOf<T>;
        const std::vector<A> xv = widen<T, A>(x, *call.backend);
        std::vector<A> y(static_cast<size_t>(g.planes * g.outSp));
        int64_t kSp = 1;
        for (int j = 0; j < D; ++j) kSp *= g.k[j];
        parallelRows(call.pool, g.planes * g.outSp, grainFor(kSp), [&](int64_t b, int64_t e) {
            std::vector<int64_t> offs;
            for (int64_t r = b; r < e; ++r) {
                const int64_t pl = r / g.outSp, o = r % g.outSp;
                const A* xp = xv.data() + pl * g.inSp;
                int64_t oc[kMaxSp];
                decode(o, g.out, D, oc);
                const AvgWindow w = avgWindow(g, oc, a.countIncludePad, a.divisor);
                if (w.divisor == 0) {
                    y[static_cast<size_t>(r)] = A(0);
                    continue;
                }
                windowOffsets(g, w.lo, w.hi, offs);
                const int64_t* op2 = offs.data();
                const A s = sumOrdered<A>(static_cast<int64_t>(offs.size()), [&](int64_t q) { return xp[op2[q]]; });
                y[static_cast<size_t>(r)] = s / static_cast<A>(w.divisor);
            }
        });
        out = narrowed<T, A>(call, g.outSizes(), x.dtype(), y);
    });
    call.result = Value::ofTensor(layoutLike(call, out, x));
}

void avgPoolBackward(KernelCall& call, int D)
{
    const char* op = D == 2 ? "avg_pool2d_backward" : "avg_pool3d_backward";
    const Tensor& go = call.tensor("grad_output");
    const Tensor& x = call.tensor("self");
    const AvgArgs a = avgArgs(call, x, D, op);
    const PoolGeom& g = a.g;
    if (go.sizes() != g.outSizes())
        throw KernelError(std::string(op) + ": grad_output " + sizesText(go.sizes())
                          + " does not match the pooled size " + sizesText(g.outSizes()));
    if (go.dtype() != x.dtype()) throw KernelError(std::string(op) + ": grad_output and self dtypes differ");
    Tensor out;
    dispatchFloating(x.dtype(), op, [&](auto tag) {
        using T = decltype(tag);
        using A = AccOf<T>;
        const std::vector<A> gv = widen<T, A>(go, *call.backend);
        std::vector<A> r(static_cast<size_t>(g.planes * g.inSp), A(0));
        parallelRows(call.pool, g.planes, grainFor(g.outSp + g.inSp), [&](int64_t b, int64_t e) {
            std::vector<int64_t> offs;
            for (int64_t pl = b; pl < e; ++pl) {
                A* rp = r.data() + pl * g.inSp;
                for (int64_t o = 0; o < g.outSp; ++o) {
                    int64_t oc[kMaxSp];
                    decode(o, g.out, D, oc);
                    const AvgWindow w = avgWindow(g, oc, a.countIncludePad, a.divisor);
                    if (w.divisor == 0) continue;
                    const A delta = gv[static_cast<size_t>(pl * g.outSp + o)] / static_cast<A>(w.divisor);
                    windowOffsets(g, w.lo, w.hi, offs);
                    for (int64_t off : offs) rp[off] += delta;
                }
            }
        });
        out = narrowed<T, A>(call, x.sizes(), x.dtype(), r);
    });
    call.result = Value::ofTensor(layoutLike(call, out, x));
}

// ---- adaptive average pooling: window [floor(o*in/out), ceil((o+1)*in/out))

using math::win::adaptiveEnd;
using math::win::adaptiveStart;

PoolGeom adaptiveGeom(const Tensor& x, const std::vector<int64_t>& outSize, int D, const char* op)
{
    PoolGeom g = planesOf(x, D, op);
    if (outSize.size() != static_cast<size_t>(D) && outSize.size() != 1)
        throw KernelError(std::string(op) + ": output_size has " + std::to_string(outSize.size()) + " values, expected "
                          + std::to_string(D));
    for (int j = 0; j < D; ++j) {
        g.out[j] = outSize.size() == 1 ? outSize[0] : outSize[static_cast<size_t>(j)];
        if (g.out[j] < 0) throw KernelError(std::string(op) + ": negative output size");
        if (g.in[j] == 0 && g.out[j] > 0)
            throw KernelError(std::string(op) + ": empty input dim " + std::to_string(j) + " in "
                              + sizesText(x.sizes()));
    }
    g.finish();
    return g;
}

void adaptiveWindow(const PoolGeom& g, const int64_t* oc, int64_t* lo, int64_t* hi)
{
    for (int j = 0; j < g.D; ++j) {
        lo[j] = adaptiveStart(oc[j], g.out[j], g.in[j]);
        hi[j] = adaptiveEnd(oc[j], g.out[j], g.in[j]);
    }
}

void adaptiveAvgPool(KernelCall& call, int D)
{
    const char* op = D == 1 ? "adaptive_avg_pool1d" : D == 2 ? "_adaptive_avg_pool2d" : "_adaptive_avg_pool3d";
    const Tensor& x = call.tensor("self");
    const PoolGeom g = adaptiveGeom(x, call.arg("output_size").toIntList(), D, op);
    Tensor out;
    dispatchFloating(x.dtype(), op, [&](auto tag) {
        using T = decltype(tag);
        using A = AccOf<T>;
        const std::vector<A> xv = widen<T, A>(x, *call.backend);
        std::vector<A> y(static_cast<size_t>(g.planes * g.outSp));
        int64_t kSp = 1;  // typical window
        for (int j = 0; j < D; ++j)
            kSp *= (g.in[j] + std::max<int64_t>(g.out[j], 1) - 1) / std::max<int64_t>(g.out[j], 1);
        parallelRows(call.pool, g.planes * g.outSp, grainFor(kSp), [&](int64_t b, int64_t e) {
            std::vector<int64_t> offs;
            for (int64_t r = b; r < e; ++r) {
                const int64_t pl = r / g.outSp, o = r % g.outSp;
                const A* xp = xv.data() + pl * g.inSp;
                int64_t oc[kMaxSp], lo[kMaxSp], hi[kMaxSp];
                decode(o, g.out, D, oc);
                adaptiveWindow(g, oc, lo, hi);
                windowOffsets(g, lo, hi, offs);
                const int64_t* op2 = offs.data();
                A s = sumOrdered<A>(static_cast<int64_t>(offs.size()), [&](int64_t q) { return xp[op2[q]]; });
                for (int j = 0; j < D; ++j) s = s / static_cast<A>(hi[j] - lo[j]);
                y[static_cast<size_t>(r)] = s;
            }
        });
        out = narrowed<T, A>(call, g.outSizes(), x.dtype(), y);
    });
    call.result = Value::ofTensor(layoutLike(call, out, x));
}

void adaptiveAvgPoolBackward(KernelCall& call, int D)
{
    const char* op = D == 2 ? "_adaptive_avg_pool2d_backward" : "_adaptive_avg_pool3d_backward";
    const Tensor& go = call.tensor("grad_output");
    const Tensor& x = call.tensor("self");
    if (go.dim() != x.dim()) throw KernelError(std::string(op) + ": grad_output and self ranks differ");
    if (go.dtype() != x.dtype()) throw KernelError(std::string(op) + ": grad_output and self dtypes differ");
    std::vector<int64_t> outSize(go.sizes().end() - D, go.sizes().end());
    const PoolGeom g = adaptiveGeom(x, outSize, D, op);
    if (go.sizes() != g.outSizes())
        throw KernelError(std::string(op) + ": grad_output " + sizesText(go.sizes()) + " does not fit self "
                          + sizesText(x.sizes()));
    Tensor out;
    dispatchFloating(x.dtype(), op, [&](auto tag) {
        using T = decltype(tag);
        using A = AccOf<T>;
        const std::vector<A> gv = widen<T, A>(go, *call.backend);
        std::vector<A> r(static_cast<size_t>(g.planes * g.inSp), A(0));
        parallelRows(call.pool, g.planes, grainFor(g.outSp + g.inSp), [&](int64_t b, int64_t e) {
            std::vector<int64_t> offs;
            for (int64_t pl = b; pl < e; ++pl) {
                A* rp = r.data() + pl * g.inSp;
                for (int64_t o = 0; o < g.outSp; ++o) {
                    int64_t oc[kMaxSp], lo[kMaxSp], hi[kMaxSp];
                    decode(o, g.out, D, oc);
                    adaptiveWindow(g, oc, lo, hi);
                    A delta = gv[static_cast<size_t>(pl * g.outSp + o)];
                    for (int j = 0; j < D; ++j) delta = delta / static_cast<A>(hi[j] - lo[j]);
                    windowOffsets(g, lo, hi, offs);
                    for (int64_t off : offs) rp[off] += delta;
                }
            }
        });
        out = narrowed<T, A>(call, x.sizes(), x.dtype(), r);
    });
    call.result = Value::ofTensor(layoutLike(call, out, x));
}

// ---- upsampling (4-d input [N, C, H, W])

struct UpsampleArgs
{
    PoolGeom g;
    std::optional<double> scale[2];  // the scale_factors, when given
};

UpsampleArgs upsampleArgs(const KernelCall& call, const Tensor& x, const char* op)
{
    UpsampleArgs a;
    if (x.dim() != 4) throw KernelError(std::string(op) + ": input must be 4-d, got " + sizesText(x.sizes()));
    a.g = planesOf(x, 2, op);
    const Value& os = call.arg("output_size");
    const Value& sf = call.arg("scale_factors");
    if (os.isNone() == sf.isNone())
        throw KernelError(std::string(op) + ": exactly one of output_size and scale_factors must be given");
    if (!os.isNone()) {
        const std::vector<int64_t> v = os.toIntList();
        if (v.size() != 2) throw KernelError(std::string(op) + ": output_size must have 2 values");
        for (int j = 0; j < 2; ++j) a.g.out[j] = v[static_cast<size_t>(j)];
    } else {
        if (sf.kind != Value::Kind::List || sf.items.size() != 2)
            throw KernelError(std::string(op) + ": scale_factors must have 2 values");
        for (int j = 0; j < 2; ++j) {
            const double s = sf.items[static_cast<size_t>(j)].toDouble();
            a.scale[j] = s;
            a.g.out[j] = static_cast<int64_t>(static_cast<double>(a.g.in[j]) * s);
        }
    }
    for (int j = 0; j < 2; ++j)
        if (a.g.out[j] <= 0 || a.g.in[j] <= 0)
            throw KernelError(std::string(op) + ": input " + sizesText(x.sizes())
                              + " and output sizes must be positive");
    a.g.finish();
    return a;
}

int64_t nearestIndex(int64_t o, int64_t in, int64_t out, std::optional<double> scale)
{
    return math::win::nearestIndex(o, in, out, scale.has_value(), scale.value_or(0.0));
}

void upsampleNearest2d(KernelCall& call)
{
    const char* op = "upsample_nearest2d";
    const Tensor& x = call.tensor("input");
    const UpsampleArgs a = upsampleArgs(call, x, op);
    const PoolGeom& g = a.g;
    std::vector<int64_t> ih(static_cast<size_t>(g.out[0])), iw(static_cast<size_t>(g.out[1]));
    for (int64_t o = 0; o < g.out[0]; ++o) ih[static_cast<size_t>(o)] = nearestIndex(o, g.in[0], g.out[0], a.scale[0]);
    for (int64_t o = 0; o < g.out[1]; ++o) iw[static_cast<size_t>(o)] = nearestIndex(o, g.in[1], g.out[1], a.scale[1]);
    Tensor out;
    if (call.backend->device() != DeviceKind::Cpu) {
        dispatchFloating(x.dtype(), op, [](auto) {});
        const std::vector<int64_t> m = nearestMap(g, ih, iw);
        const Tensor map = ew::tensorFromHost(call, {g.outSp}, DType::I64, m.data());
        const Tensor c = contiguous(x, *call.backend);
        out = call.newTensor(g.outSizes(), x.dtype());
        PlaneLoop loop;
        loop.op = PlaneOp::Gather;
        loop.g = planeGeomOf(g);
        loop.src = &c;
        loop.index = &map;
        loop.out = &out;
        call.backend->plane(loop);
        call.result = Value::ofTensor(layoutLike(call, out, x));
        return;
    }
    dispatchFloating(x.dtype(), op, [&](auto tag) {
        using T = decltype(tag);
        const Tensor c = contiguous(x, *call.backend);
        const T* xp = c.template data<T>();
        out = call.newTensor(g.outSizes(), x.dtype());
        T* yp = out.template data<T>();
        parallelRows(call.pool, g.planes * g.out[0], grainFor(g.out[1]), [&](int64_t b, int64_t e) {
            for (int64_t r = b; r < e; ++r) {
                const int64_t pl = r / g.out[0], oh = r % g.out[0];
                const T* src = xp + pl * g.inSp + ih[static_cast<size_t>(oh)] * g.in[1];
                T* dst = yp + r * g.out[1];
                for (int64_t ow = 0; ow < g.out[1]; ++ow) dst[ow] = src[iw[static_cast<size_t>(ow)]];
            }
        });
    });
    call.result = Value::ofTensor(layoutLike(call, out, x));
}

using math::win::LinearTap;

// One dim's bilinear taps of every output (math/windows.hpp).
template<class A>
std::vector<LinearTap<A>> linearTaps(int64_t in, int64_t out, bool alignCorners, std::optional<double> scale)
{
    const A sc = math::win::linearScale<A>(in, out, alignCorners, scale.has_value(), scale.value_or(0.0));
    std::vector<LinearTap<A>> taps(static_cast<size_t>(out));
    for (int64_t o = 0; o < out; ++o) taps[static_cast<size_t>(o)] = math::win::linearTap(o, in, sc, alignCorners);
    return taps;
}

void upsampleBilinear2d(KernelCall& call)
{
    const char* op = "upsample_bilinear2d";
    const Tensor& x = call.tensor("input");
    const UpsampleArgs a = upsampleArgs(call, x, op);
    const bool alignCorners = call.arg("align_corners").toInt() != 0;
    const PoolGeom& g = a.g;
    Tensor out;
    dispatchFloating(x.dtype(), op, [&](auto tag) {
        using T = decltype(tag);
        using A = AccOf<T>;
        const std::vector<LinearTap<A>> th = linearTaps<A>(g.in[0], g.out[0], alignCorners, a.scale[0]);
        const std::vector<LinearTap<A>> tw = linearTaps<A>(g.in[1], g.out[1], alignCorners, a.scale[1]);
        const Tensor c = contiguous(x, *call.backend);
        const T* xp = c.template data<T>();
        out = call.newTensor(g.outSizes(), x.dtype());
        T* yp = out.template data<T>();
        parallelRows(call.pool, g.planes * g.out[0], grainFor(4 * g.out[1]), [&](int64_t b, int64_t e) {
            for (int64_t r = b; r < e; ++r) {
                const int64_t pl = r / g.out[0], oh = r % g.out[0];
                const LinearTap<A>& h = th[static_cast<size_t>(oh)];
                const T* r0 = xp + pl * g.inSp + h.i0 * g.in[1];
                const T* r1 = xp + pl * g.inSp + h.i1 * g.in[1];
                T* dst = yp + r * g.out[1];
                for (int64_t ow = 0; ow < g.out[1]; ++ow) {
                    const LinearTap<A>& w = tw[static_cast<size_t>(ow)];
                    dst[ow] = narrowTo<T>(math::win::bilinear(widenTo<A>(r0[w.i0]), widenTo<A>(r0[w.i1]),
                                                              widenTo<A>(r1[w.i0]), widenTo<A>(r1[w.i1]), h, w));
                }
            }
        });
    });
    call.result = Value::ofTensor(layoutLike(call, out, x));
}

// ---- upsampling backwards: one thread per plane adds each output's gradient (nearest: to its
// source; bilinear: (h_w * w_w) * g to each of its four taps, PyTorch's order) in increasing
// output position into an A buffer; rounded once.

struct UpsampleBwdArgs
{
    PoolGeom g;  // in = input_size's spatial sizes, out = grad_output's
    std::optional<double> scale[2];
    std::vector<int64_t> inputSize;
};

UpsampleBwdArgs upsampleBwdArgs(const KernelCall& call, const Tensor& go, const char* op)
{
    UpsampleBwdArgs a;
    a.inputSize = call.arg("input_size").toIntList();
    if (a.inputSize.size() != 4 || go.dim() != 4)
        throw KernelError(std::string(op) + ": input_size and grad_output must be 4-d");
    a.g.D = 2;
    a.g.lead = {a.inputSize[0], a.inputSize[1]};
    a.g.planes = a.inputSize[0] * a.inputSize[1];
    a.g.in[0] = a.inputSize[2];
    a.g.in[1] = a.inputSize[3];
    const Value& os = call.arg("output_size");
    const Value& sf = call.arg("scale_factors");
    std::vector<int64_t> outSize;
    if (!os.isNone()) outSize = os.toIntList();
    if (!sf.isNone()) {
        if (sf.kind != Value::Kind::List || sf.items.size() != 2)
            throw KernelError(std::string(op) + ": scale_factors must have 2 values");
        for (int j = 0; j < 2; ++j) a.scale[j] = sf.items[static_cast<size_t>(j)].toDouble();
        if (outSize.empty())
            for (int j = 0; j < 2; ++j)
                outSize.push_back(static_cast<int64_t>(static_cast<double>(a.g.in[j]) * *a.scale[j]));
    }
    if (outSize.size() != 2) throw KernelError(std::string(op) + ": needs output_size or scale_factors");
    a.g.out[0] = outSize[0];
    a.g.out[1] = outSize[1];
    a.g.finish();
    const std::vector<int64_t> want = {a.inputSize[0], a.inputSize[1], outSize[0], outSize[1]};
    if (go.sizes() != want)
        throw KernelError(std::string(op) + ": grad_output " + sizesText(go.sizes()) + ", expected " + sizesText(want));
    for (int j = 0; j < 2; ++j)
        if (a.g.in[j] <= 0 || a.g.out[j] <= 0) throw KernelError(std::string(op) + ": sizes must be positive");
    return a;
}

void upsampleNearest2dBackward(KernelCall& call)
{
    const char* op = "upsample_nearest2d_backward";
    const Tensor& go = call.tensor("grad_output");
    const UpsampleBwdArgs a = upsampleBwdArgs(call, go, op);
    const PoolGeom& g = a.g;
    std::vector<int64_t> ih(static_cast<size_t>(g.out[0])), iw(static_cast<size_t>(g.out[1]));
    for (int64_t o = 0; o < g.out[0]; ++o) ih[static_cast<size_t>(o)] = nearestIndex(o, g.in[0], g.out[0], a.scale[0]);
    for (int64_t o = 0; o < g.out[1]; ++o) iw[static_cast<size_t>(o)] = nearestIndex(o, g.in[1], g.out[1], a.scale[1]);
    Tensor out;
    if (call.backend->device() != DeviceKind::Cpu) {
        dispatchFloating(go.dtype(), op, [](auto) {});
        const std::vector<int64_t> m = nearestMap(g, ih, iw);
        const Tensor map = ew::tensorFromHost(call, {g.outSp}, DType::I64, m.data());
        const Tensor gv = widenedOnDevice(call, go);
        out = narrowedOnDevice(call, scatterAddOnDevice(call, g, gv, map, false, a.inputSize), go.dtype());
        call.result = Value::ofTensor(out);
        return;
    }
    dispatchFloating(go.dtype(), op, [&](auto tag) {
        using T = decltype(tag);
        using A = AccOf<T>;
        const std::vector<A> gv = widen<T, A>(go, *call.backend);
        std::vector<A> r(static_cast<size_t>(g.planes * g.inSp), A(0));
        parallelRows(call.pool, g.planes, grainFor(g.outSp + g.inSp), [&](int64_t b, int64_t e) {
            for (int64_t pl = b; pl < e; ++pl) {
                A* rp = r.data() + pl * g.inSp;
                const A* gp = gv.data() + pl * g.outSp;
                for (int64_t oh = 0; oh < g.out[0]; ++oh)
                    for (int64_t ow = 0; ow < g.out[1]; ++ow)
                        rp[ih[static_cast<size_t>(oh)] * g.in[1] + iw[static_cast<size_t>(ow)]] +=
                            gp[oh * g.out[1] + ow];
            }
        });
        out = narrowed<T, A>(call, a.inputSize, go.dtype(), r);
    });
    call.result = Value::ofTensor(out);
}

void upsampleBilinear2dBackward(KernelCall& call)
{
    const char* op = "upsample_bilinear2d_backward";
    const Tensor& go = call.tensor("grad_output");
    const UpsampleBwdArgs a = upsampleBwdArgs(call, go, op);
    const bool alignCorners = call.arg("align_corners").toInt() != 0;
    const PoolGeom& g = a.g;
    Tensor out;
    dispatchFloating(go.dtype(), op, [&](auto tag) {
        using T = decltype(tag);
        using A = AccOf<T>;
        const std::vector<LinearTap<A>> th = linearTaps<A>(g.in[0], g.out[0], alignCorners, a.scale[0]);
        const std::vector<LinearTap<A>> tw = linearTaps<A>(g.in[1], g.out[1], alignCorners, a.scale[1]);
        const std::vector<A> gv = widen<T, A>(go, *call.backend);
        std::vector<A> r(static_cast<size_t>(g.planes * g.inSp), A(0));
        parallelRows(call.pool, g.planes, grainFor(4 * g.outSp + g.inSp), [&](int64_t b, int64_t e) {
            for (int64_t pl = b; pl < e; ++pl) {
                A* rp = r.data() + pl * g.inSp;
                const A* gp = gv.data() + pl * g.outSp;
                for (int64_t oh = 0; oh < g.out[0]; ++oh) {
                    const LinearTap<A>& h = th[static_cast<size_t>(oh)];
                    for (int64_t ow = 0; ow < g.out[1]; ++ow) {
                        const LinearTap<A>& w = tw[static_cast<size_t>(ow)];
                        const A v = gp[oh * g.out[1] + ow];
                        rp[h.i0 * g.in[1] + w.i0] += math::win::bilinearGrad(h.w0, w.w0, v);
                        rp[h.i0 * g.in[1] + w.i1] += math::win::bilinearGrad(h.w0, w.w1, v);
                        rp[h.i1 * g.in[1] + w.i0] += math::win::bilinearGrad(h.w1, w.w0, v);
                        rp[h.i1 * g.in[1] + w.i1] += math::win::bilinearGrad(h.w1, w.w1, v);
                    }
                }
            }
        });
        out = narrowed<T, A>(call, a.inputSize, go.dtype(), r);
    });
    call.result = Value::ofTensor(out);
}

// ---- grid_sampler_2d(input [N, C, H, W], grid [N, Ho, Wo, 2] of (x, y) in [-1, 1]):
// PyTorch's unnormalisation and padding rules (zeros / border / reflection); bilinear:
// out = nw*w_nw + ne*w_ne + sw*w_sw + se*w_se (absent corners 0); nearest: round half to even;
// bicubic: the 4x4 taps around the unnormalised point (the padding applied to each tap, not to
// the point; absent taps 0), Keys' cubic convolution with A = -0.75 along x for each of the 4
// rows, then along y. Computed in A, rounded once.

using math::win::cubicInterp;
using math::win::paddedCoordinate;
using math::win::sourceCoordinate;
using math::win::tapIndex;
using math::win::unnormalize;

void gridSampler2d(KernelCall& call)
{
    const char* op = "grid_sampler_2d";
    const Tensor& x = call.tensor("input");
    const Tensor& grid = call.tensor("grid");
    const int64_t mode = call.arg("interpolation_mode").toInt();
    const int64_t padding = call.arg("padding_mode").toInt();
    const bool alignCorners = call.arg("align_corners").toInt() != 0;
    if (x.dim() != 4 || grid.dim() != 4 || grid.size(3) != 2 || grid.size(0) != x.size(0))
        throw KernelError(std::string(op) + ": expected input [N, C, H, W] and grid [N, Ho, Wo, 2], got "
                          + sizesText(x.sizes()) + " and " + sizesText(grid.sizes()));
    if (x.dtype() != grid.dtype()) throw KernelError(std::string(op) + ": input and grid dtypes differ");
    if (mode < 0 || mode > 2) throw KernelError(std::string(op) + ": interpolation_mode must be 0, 1 or 2");
    if (padding < 0 || padding > 2) throw KernelError(std::string(op) + ": padding_mode must be 0, 1 or 2");
    const int64_t N = x.size(0), C = x.size(1), H = x.size(2), W = x.size(3), Ho = grid.size(1), Wo = grid.size(2);
    Tensor out;
    dispatchFloating(x.dtype(), op, [&](auto tag) {
        using T = decltype(tag);
        using A = AccOf<T>;
        const std::vector<A> xv = widen<T, A>(x, *call.backend), gv = widen<T, A>(grid, *call.backend);
        std::vector<A> y(static_cast<size_t>(N * C * Ho * Wo));
        parallelRows(call.pool, N * Ho, grainFor(C * Wo * 4), [&](int64_t b, int64_t e) {
            for (int64_t r = b; r < e; ++r) {
                const int64_t n = r / Ho, oh = r % Ho;
                for (int64_t ow = 0; ow < Wo; ++ow) {
                    const A* gp = gv.data() + ((n * Ho + oh) * Wo + ow) * 2;
                    auto at = [&](const A* plane, int64_t yy, int64_t xx) {
                        return (yy >= 0 && yy < H && xx >= 0 && xx < W) ? plane[yy * W + xx] : A(0);
                    };
                    if (mode == 2) {
                        const A ix = unnormalize(gp[0], W, alignCorners), iy = unnormalize(gp[1], H, alignCorners);
                        const A x0 = math::floor(ix), y0 = math::floor(iy), tx = ix - x0, ty = iy - y0;
                        int64_t xs[4], ys[4];
                        for (int k = 0; k < 4; ++k) {
                            // PyTorch casts the padded coordinate to an integer (toward zero)
                            xs[k] =
                                tapIndex(paddedCoordinate(x0 + A(k - 1), W, static_cast<int>(padding), alignCorners));
                            ys[k] =
                                tapIndex(paddedCoordinate(y0 + A(k - 1), H, static_cast<int>(padding), alignCorners));
                        }
                        for (int64_t ch = 0; ch < C; ++ch) {
                            const A* plane = xv.data() + (n * C + ch) * H * W;
                            A rows[4];
                            for (int k = 0; k < 4; ++k)
                                rows[k] = cubicInterp(at(plane, ys[k], xs[0]), at(plane, ys[k], xs[1]),
                                                      at(plane, ys[k], xs[2]), at(plane, ys[k], xs[3]), tx);
                            y[static_cast<size_t>(((n * C + ch) * Ho + oh) * Wo + ow)] =
                                cubicInterp(rows[0], rows[1], rows[2], rows[3], ty);
                        }
                        continue;
                    }
                    const A ix = sourceCoordinate(gp[0], W, static_cast<int>(padding), alignCorners);
                    const A iy = sourceCoordinate(gp[1], H, static_cast<int>(padding), alignCorners);
                    for (int64_t ch = 0; ch < C; ++ch) {
                        const A* plane = xv.data() + (n * C + ch) * H * W;
                        A v;
                        if (mode == 1) {
                            v = at(plane, math::win::nearestTap(iy), math::win::nearestTap(ix));
                        } else {
                            const math::win::Corners<A> c = math::win::corners(ix, iy);
                            v = math::win::blendCorners(at(plane, c.y0, c.x0), at(plane, c.y0, c.x0 + 1),
                                                        at(plane, c.y0 + 1, c.x0), at(plane, c.y0 + 1, c.x0 + 1), c);
                        }
                        y[static_cast<size_t>(((n * C + ch) * Ho + oh) * Wo + ow)] = v;
                    }
                }
            }
        });
        out = narrowed<T, A>(call, {N, C, Ho, Wo}, x.dtype(), y);
    });
    call.result = Value::ofTensor(out);
}

}  // namespace

void registerPoolKernels(KernelRegistry& reg, DeviceKind d)
{
    if (d != DeviceKind::Cpu) {  // the families with a device loop (Backend::plane)
        reg.add("aten.max_pool2d_with_indices.default", d, [](KernelCall& c) { maxPool(c, 2); });
        reg.add("aten.max_pool3d_with_indices.default", d, [](KernelCall& c) { maxPool(c, 3); });
        reg.add("aten.max_pool2d_with_indices_backward.default", d, [](KernelCall& c) { maxPoolBackward(c, 2); });
        reg.add("aten.max_pool3d_with_indices_backward.default", d, [](KernelCall& c) { maxPoolBackward(c, 3); });
        reg.add("aten.upsample_nearest2d.vec", d, upsampleNearest2d);
        reg.add("aten.upsample_nearest2d_backward.vec", d, upsampleNearest2dBackward);
        return;
    }
    const DeviceKind cpu = DeviceKind::Cpu;
    reg.add("aten.max_pool2d_with_indices.default", cpu, [](KernelCall& c) { maxPool(c, 2); });
    reg.add("aten.max_pool3d_with_indices.default", cpu, [](KernelCall& c) { maxPool(c, 3); });
    reg.add("aten.max_pool2d_with_indices_backward.default", cpu, [](KernelCall& c) { maxPoolBackward(c, 2); });
    reg.add("aten.max_pool3d_with_indices_backward.default", cpu, [](KernelCall& c) { maxPoolBackward(c, 3); });
    reg.add("aten.avg_pool3d_backward.default", cpu, [](KernelCall& c) { avgPoolBackward(c, 3); });
    reg.add("aten._adaptive_avg_pool3d_backward.default", cpu, [](KernelCall& c) { adaptiveAvgPoolBackward(c, 3); });
    reg.add("aten.avg_pool1d.default", cpu, [](KernelCall& c) { avgPool(c, 1); });
    reg.add("aten.avg_pool2d.default", cpu, [](KernelCall& c) { avgPool(c, 2); });
    reg.add("aten.avg_pool3d.default", cpu, [](KernelCall& c) { avgPool(c, 3); });
    reg.add("aten.avg_pool2d_backward.default", cpu, [](KernelCall& c) { avgPoolBackward(c, 2); });
    reg.add("aten.adaptive_avg_pool1d.default", cpu, [](KernelCall& c) { adaptiveAvgPool(c, 1); });
    reg.add("aten._adaptive_avg_pool2d.default", cpu, [](KernelCall& c) { adaptiveAvgPool(c, 2); });
    reg.add("aten._adaptive_avg_pool3d.default", cpu, [](KernelCall& c) { adaptiveAvgPool(c, 3); });
    reg.add("aten._adaptive_avg_pool2d_backward.default", cpu, [](KernelCall& c) { adaptiveAvgPoolBackward(c, 2); });
    reg.add("aten.upsample_nearest2d.vec", cpu, upsampleNearest2d);
    reg.add("aten.upsample_bilinear2d.vec", cpu, upsampleBilinear2d);
    reg.add("aten.upsample_nearest2d_backward.vec", cpu, upsampleNearest2dBackward);
    reg.add("aten.upsample_bilinear2d_backward.vec", cpu, upsampleBilinear2dBackward);
    reg.add("aten.grid_sampler_2d.default", cpu, gridSampler2d);
}

}  // namespace fxl::cpu
