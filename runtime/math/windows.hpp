#pragma once
// The window, index and weight formulas of pooling, upsampling and grid sampling, one source
// for every device. They decide which input elements an output reads and with which weights;
// the loops that walk the windows and the sums over them (sum_order.hpp) are the kernels',
// except max pooling's scan, whose order decides which index a tie or a NaN reports.
// A is the compute type (float for f32 / bf16 / f16, double for f64). Shape checks happen on
// the host before a kernel runs; nothing here fails.
#include <cstdint>

#include "runtime/math/arith.hpp"
#include "runtime/math/bits.hpp"
#include "runtime/math/hostdev.hpp"

namespace fxl::math::win {

// ---- pooling
// The input index of window tap k of output o along one dim (may fall outside [0, in)).
FXL_HD inline int64_t poolTap(int64_t o, int64_t k, int64_t stride, int64_t pad, int64_t dilation)
{
    return o * stride - pad + k * dilation;
}

// The output position along one dim that reads input i through tap k (o*s - p + k*d = i), or -1
// when there is none (convolution's input gradient).
FXL_HD inline int64_t tapSource(int64_t i, int64_t k, int64_t stride, int64_t pad, int64_t dilation, int64_t out)
{
    const int64_t t = i + pad - k * dilation;
    if (t < 0 || t % stride != 0 || t / stride >= out) return -1;
    return t / stride;
}

// max pooling replaces the best so far by v when v is larger or NaN (PyTorch's rule: the last
// NaN of the window wins, its index is the one reported).
template<class A>
FXL_HD inline bool maxPoolTakes(A v, A best)
{
    return v > best || isNan(v);
}

// The max-pooling window of output element o (flat over the D <= 3 spatial dims, the last
// fastest) in one plane `xp`: the taps in row-major order, the best by maxPoolTakes, `best`
// entering as -inf. `bestAt` gets the winner's flat offset in the plane: the first tap inside
// the input when none beats -inf, -1 when the window holds no input. `G` has D, in, out, k, s,
// p, d (the CPU's and the device's pooling geometries).
template<class A, class G>
FXL_HD inline void maxPoolWindow(const A* xp, const G& g, int64_t o, A& best, int64_t& bestAt)
{
    int64_t oc[3], kc[3];
    for (int64_t f = o, j = g.D - 1; j >= 0; --j) {
        oc[j] = f % g.out[j];
        f /= g.out[j];
    }
    int64_t kSp = 1;
    for (int j = 0; j < g.D; ++j) kSp *= g.k[j];
    bestAt = -1;
    for (int64_t kp = 0; kp < kSp; ++kp) {
        for (int64_t f = kp, j = g.D - 1; j >= 0; --j) {
            kc[j] = f % g.k[j];
            f /= g.k[j];
        }
        int64_t off = 0;
        for (int j = 0; j < g.D && off >= 0; ++j) {
            const int64_t i = poolTap(oc[j], kc[j], g.s[j], g.p[j], g.d[j]);
            off = (i < 0 || i >= g.in[j]) ? -1 : off * g.in[j] + i;
        }
        if (off < 0) continue;
        if (bestAt < 0) bestAt = off;
        const A v = xp[off];
        if (maxPoolTakes(v, best)) {
            best = v;
            bestAt = off;
        }
    }
}

// Average pooling along one dim: PyTorch's window of output o starts at o*s - p and ends at
// min(start + k, in + p) (the padded window, whose size counts with count_include_pad), then is
// clipped to [0, in).
struct AvgSpan
{
    int64_t lo, hi, padded;
};
FXL_HD inline AvgSpan avgSpan(int64_t o, int64_t k, int64_t stride, int64_t pad, int64_t in)
{
    const int64_t a = o * stride - pad;
    const int64_t zPadded = a + k < in + pad ? a + k : in + pad;
    const int64_t lo = a > 0 ? a : 0;
    const int64_t hi = zPadded < in ? zPadded : in;
    return {lo, hi, zPadded - a};
}

// Adaptive pooling's window of output o along one dim: [floor(o*in/out), ceil((o+1)*in/out)).
FXL_HD inline int64_t adaptiveStart(int64_t o, int64_t out, int64_t in) { return (o * in) / out; }
FXL_HD inline int64_t adaptiveEnd(int64_t o, int64_t out, int64_t in) { return ((o + 1) * in + out - 1) / out; }

// ---- padding
// The source index of output o of reflection_pad (reflect != 0: j < 0 -> -j, j >= n -> 2(n-1) - j)
// or replication_pad (clamped to [0, n - 1]) along a dim of n elements padded by `lo` before.
FXL_HD inline int64_t padSource(int64_t o, int64_t lo, int64_t n, bool reflect)
{
    int64_t i = o - lo;
    if (reflect) {
        if (i < 0) i = -i;
        if (i >= n) i = 2 * (n - 1) - i;
        return i;
    }
    return i < 0 ? 0 : i > n - 1 ? n - 1 : i;
}

// ---- upsampling
// compute_scales_value: 1/scale when a positive scale is given, else in/out.
template<class S>
FXL_HD inline S scaleValue(bool hasScale, double scale, int64_t in, int64_t out)
{
    return hasScale && scale > 0 ? static_cast<S>(1.0 / scale) : static_cast<S>(in) / static_cast<S>(out);
}

// upsample_nearest's source index of output o (the scale in float, as PyTorch computes it).
FXL_HD inline int64_t nearestIndex(int64_t o, int64_t in, int64_t out, bool hasScale, double scale)
{
    if (out == in) return o;
    if (out == 2 * in) return o >> 1;
    const float sc = scaleValue<float>(hasScale, scale, in, out);
    const int64_t i = static_cast<int64_t>(math::floor(static_cast<float>(o) * sc));
    return i < in - 1 ? i : in - 1;
}

// One dim's bilinear taps: i0, i1 (= i0 or i0 + 1) and their weights.
template<class A>
struct LinearTap
{
    int64_t i0, i1;
    A w0, w1;
};

// The scale of linear upsampling along one dim.
template<class A>
FXL_HD inline A linearScale(int64_t in, int64_t out, bool alignCorners, bool hasScale, double scale)
{
    if (alignCorners) return out > 1 ? static_cast<A>(in - 1) / static_cast<A>(out - 1) : A(0);
    return scaleValue<A>(hasScale, scale, in, out);
}

// The taps of output o (PyTorch's area_pixel_compute_source_index and its clamps).
template<class A>
FXL_HD inline LinearTap<A> linearTap(int64_t o, int64_t in, A sc, bool alignCorners)
{
    A src;
    if (alignCorners) {
        src = sc * static_cast<A>(o);
    } else {
        src = sc * (static_cast<A>(o) + A(0.5)) - A(0.5);
        if (src < A(0)) src = A(0);
    }
    const int64_t f = static_cast<int64_t>(math::floor(src));
    const int64_t i0 = f < in - 1 ? f : in - 1;
    A l1 = src - static_cast<A>(i0);
    l1 = l1 < A(0) ? A(0) : l1;  // std::max(l1, 0)
    l1 = A(1) < l1 ? A(1) : l1;  // std::min(l1, 1)
    return {i0, i0 + (i0 < in - 1 ? 1 : 0), A(1) - l1, l1};
}

// Bilinear output from the four taps: (x00 w0 + x01 w1) along w for both rows, then along h.
template<class A>
FXL_HD inline A bilinear(A x00, A x01, A x10, A x11, const LinearTap<A>& h, const LinearTap<A>& w)
{
    const A t0 = x00 * w.w0 + x01 * w.w1;
    const A t1 = x10 * w.w0 + x11 * w.w1;
    return t0 * h.w0 + t1 * h.w1;
}

// The bilinear backward's contribution of gradient g to the tap with weights wh (along h) and
// ww (along w): (wh * ww) * g.
template<class A>
FXL_HD inline A bilinearGrad(A wh, A ww, A g)
{
    return wh * ww * g;
}

// ---- grid sampling (grid_sampler_2d): PyTorch's unnormalisation and padding rules.
template<class A>
FXL_HD inline A unnormalize(A c, int64_t size, bool alignCorners)
{
    return alignCorners ? ((c + A(1)) / A(2)) * static_cast<A>(size - 1)
                        : ((c + A(1)) * static_cast<A>(size) - A(1)) / A(2);
}

// std::min(size - 1, std::max(c, 0)) (a NaN c gives size - 1)
template<class A>
FXL_HD inline A clipCoordinate(A c, int64_t size)
{
    const A lo = c < A(0) ? A(0) : c;
    const A top = static_cast<A>(size - 1);
    return lo < top ? lo : top;
}

template<class A>
FXL_HD inline A reflectCoordinate(A in, int64_t twiceLow, int64_t twiceHigh)
{
    if (twiceLow == twiceHigh) return A(0);
    const A mn = static_cast<A>(twiceLow) / A(2);
    const A span = static_cast<A>(twiceHigh - twiceLow) / A(2);
    in = math::fabs(in - mn);
    const A extra = math::fmod(in, span);
    // the parity of floor(in / span) without converting it to an integer (PyTorch's int cast is
    // undefined for a NaN, an infinity or a quotient past the int range; the result there is
    // NaN, or, for a huge finite quotient, which is an even integer, extra + mn as here)
    const bool even = math::fmod(math::floor(in / span), A(2)) == A(0);
    return even ? extra + mn : span - extra + mn;
}

// A tap's coordinate under the padding mode (0 zeros: as it is; 1 border: clipped; 2
// reflection: reflected, then clipped), as PyTorch's compute_coordinates.
template<class A>
FXL_HD inline A paddedCoordinate(A c, int64_t size, int padding, bool alignCorners)
{
    if (padding == 1) return clipCoordinate(c, size);
    if (padding == 2) {
        c = alignCorners ? reflectCoordinate(c, 0, 2 * (size - 1)) : reflectCoordinate(c, -1, 2 * size - 1);
        return clipCoordinate(c, size);
    }
    return c;
}

template<class A>
FXL_HD inline A sourceCoordinate(A c, int64_t size, int padding, bool alignCorners)
{
    return paddedCoordinate(unnormalize(c, size, alignCorners), size, padding, alignCorners);
}

// A coordinate as an index: the value truncated, as PyTorch's cast; a value that is not finite
// or past the int64 range gives an index outside every tensor (a tap that reads 0).
inline constexpr int64_t kNoTap = -9223372036854775807LL - 1;
template<class A>
FXL_HD inline int64_t tapIndex(A c)
{
    return !isNan(c) && !isInf(c) && math::fabs(c) < A(9.0e18) ? static_cast<int64_t>(c) : kNoTap;
}

// nearest: the coordinate rounded half to even
template<class A>
FXL_HD inline int64_t nearestTap(A c)
{
    return tapIndex(math::rint(c));
}

// bilinear weights of the four corners around (ix, iy): nw, ne, sw, se
template<class A>
struct Corners
{
    int64_t x0, y0;
    A nw, ne, sw, se;
};
template<class A>
FXL_HD inline Corners<A> corners(A ix, A iy)
{
    const A x0 = math::floor(ix), y0 = math::floor(iy);
    const A x1 = x0 + A(1), y1 = y0 + A(1);
    return {tapIndex(x0),          tapIndex(y0),          (x1 - ix) * (y1 - iy),
            (ix - x0) * (y1 - iy), (x1 - ix) * (iy - y0), (ix - x0) * (iy - y0)};
}
// out = ((nw * w_nw + ne * w_ne) + sw * w_sw) + se * w_se
template<class A>
FXL_HD inline A blendCorners(A nw, A ne, A sw, A se, const Corners<A>& c)
{
    return ((nw * c.nw + ne * c.ne) + sw * c.sw) + se * c.se;
}

// Keys' cubic convolution of four samples at fraction t (A = -0.75), PyTorch's cubic_interp1d.
template<class A>
FXL_HD inline A cubicInterp(A x0, A x1, A x2, A x3, A t)
{
    const A a = A(-0.75);
    auto near = [a](A x) { return ((a + A(2)) * x - (a + A(3))) * x * x + A(1); };
    auto far = [a](A x) { return ((a * x - A(5) * a) * x + A(8) * a) * x - A(4) * a; };
    return x0 * far(t + A(1)) + x1 * near(t) + x2 * near(A(1) - t) + x3 * far(A(2) - t);
}

}  // namespace fxl::math::win
