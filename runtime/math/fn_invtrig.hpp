#pragma once
// Inverse trigonometric functions asin, acos, atan, atan2: float versions correctly rounded to
// nearest-even on every input, double versions faithful (measured at most 0.5 ulp + 2^-9).
//
// Method. Every function is reduced to atan(y/x) with y >= 0, x >= 0:
//   atan(x) = atan(|x|/1), atan2(y, x) = atan(|y|/|x|) (pi - that when x < 0),
//   asin(x) = atan(|x| / sqrt(1-x^2)), acos(x) = atan(sqrt(1-x^2) / |x|) (pi - that when x < 0),
// the sign of x (asin, atan) or y (atan2) put back at the end. With zf = y/x rounded to float (it
// only picks the branch and the bucket): zf < 2^-5 evaluates atan(t) with t = y/x; zf >= 2^6 uses
// atan(y/x) = pi/2 - atan(t) with t = x/y; in between, c = zf truncated to 4 significant bits plus
// half of its last bit (the middle of zf's bucket; 88 buckets from 2^-5 to 2^6) gives
//   atan(y/x) = atan(c) + atan(t),  t = (y - c x) / (x + c y),  |t| <= 2^-5,
// with atan(c) from a table (double-double, generated with MPFR). atan(t) = t + t^3 P(t^2) is its
// Taylor series (through t^9 on the fast path: truncation < 2^-53.5 |t|; through t^13 on the
// accurate path: < 2^-70 |t|).
//
// float fast path: all in double. Relative error bound, term by term: y/x (for asin and acos a
// quotient of rounded values, sqrt(1-x^2) = sqrt(fma(-x, x, 1)) included: <= 2.5 * 2^-53; atan's
// condition number |q atan'(q) / atan(q)| <= 1 carries it to the result), y - c x and x + c y (one
// fma each; |t| <= |atan(y/x)| / 15 outside the small branch, which damps their error), the table
// entry's rounding (2^-53), the truncation (2^-53.5), the final sums (2^-53 each, two when x < 0):
// below 7 * 2^-53 < 2^-50 (measured: 2^-51.7 over 2^21 random inputs per function). The rounding
// test asks whether the double r lies within 32 of its ulps (a relative 2^-48, four times the
// bound) of a float midpoint (its low 29 bits against 0x10000000): if not, every value within the
// error bound of r rounds to the same float as r, so (float)r is correctly rounded. The test fails
// for about 2^-23 of the inputs (the exhaustive sweeps: 24 inputs of asin, 49 of acos, 104 of atan).
// Accurate path: the same reduction in double-double (the products c x, c y split with fma, the
// quotient t as t_hi + t_lo from the exact remainder fma(-t_hi, den, num), sqrt(1-x^2) as
// s_hi + s_lo, atan(c) and pi as double-double): relative error below 2^-62 (measured 2^-62.9).
// The float is then decided by the sign of (r_hi - midpoint) + r_lo; only an input within ~2^-60
// relative of a midpoint could be left undecided: the exhaustive sweeps of asin, acos and atan meet
// none, and atan2 (which cannot be swept) is checked on 2^28 random pairs plus its hard cases.
// Tiny results: |x| < 2^-12 gives asin(x) = atan(x) = x (|x^3/6| < half an ulp); atan2 with
// y/x < 2^-60 and x > 0 rounds y/x - (y/x)^3/3 through a round-to-odd double on the side the exact
// remainder fma(-q, x, y) gives, which is right for subnormal float results too.
// double versions: the accurate path, rounded once to double.
#include <cstdint>

#include "runtime/math/bits.hpp"
#include "runtime/math/hostdev.hpp"
#if defined(FXL_INVTRIG_COUNT_SLOW)
#include <atomic>
#endif

namespace fxl::math {
namespace detail_invtrig {

inline constexpr double kPiH = 0x1.921fb54442d18p+1, kPiL = 0x1.1a62633145c07p-53;
inline constexpr double kPi2H = 0x1.921fb54442d18p+0, kPi2L = 0x1.1a62633145c07p-54;
inline constexpr float kPiF = 0x1.921fb6p+1f, kPi2F = 0x1.921fb6p+0f, kPi4F = 0x1.921fb6p-1f, k3Pi4F = 0x1.2d97c8p+1f;

// atan(c_i) as hi + lo for the bucket centres c_i = float bits ((0x3d0 + i) << 20 | 0x80000),
// i = 0..87 (z in [2^-5, 2^6), 8 buckets per binade).
FXL_HD inline double atanTableHi(uint32_t i, double* lo)
{
    static constexpr double T[176] = {
        0x1.0fe66da9b94eep-5, -0x1.164e77d4eb175p-60,  // atan(0x1.1p-5)
        0x1.2fdc4e3737dddp-5, -0x1.1e5e438d0ba04p-59,  // atan(0x1.3p-5)
        0x1.4fcfd072dff79p-5, 0x1.6d85bec38d078p-59,  // atan(0x1.5p-5)
        0x1.6fc0b4f27d5bbp-5, 0x1.119ab07e9c009p-62,  // atan(0x1.7p-5)
        0x1.8faebc6b17abap-5, 0x1.adf473cc8d797p-59,  // atan(0x1.9p-5)
        0x1.af99a7b3dd42fp-5, 0x1.a756ffaab786ep-59,  // atan(0x1.bp-5)
        0x1.cf8137c90a177p-5, 0x1.e0567596f063fp-59,  // atan(0x1.dp-5)
        0x1.ef652dceca4dcp-5, -0x1.4eb116f8ea623p-61,  // atan(0x1.fp-5)
        0x1.0f99ea71d52a7p-4, -0x1.2069feec3624fp-61,  // atan(0x1.1p-4)
        0x1.2f719318a4a9ap-4, 0x1.3fd1779b9801fp-63,  // atan(0x1.3p-4)
        0x1.4f3fd677292fbp-4, 0x1.008d36264979ep-59,  // atan(0x1.5p-4)
        0x1.6f03bdcea4b0dp-4, -0x1.3f00e512fa17dp-60,  // atan(0x1.7p-4)
        0x1.8ebc54478fb28p-4, 0x1.732880cad24ccp-59,  // atan(0x1.9p-4)
        0x1.ae68a71c722b8p-4, 0x1.c014e6910b9dbp-59,  // atan(0x1.bp-4)
        0x1.ce07c5c3cca32p-4, 0x1.138e6425918a7p-59,  // atan(0x1.dp-4)
        0x1.ed98c2190043bp-4, -0x1.3a598592c7b13p-61,  // atan(0x1.fp-4)
        0x1.0e6adccf40882p-3, -0x1.d71a31bb98d0dp-57,  // atan(0x1.1p-3)
        0x1.2dcbdb2fba1ffp-3, 0x1.8f28705561534p-58,  // atan(0x1.3p-3)
        0x1.4d087a9da4f17p-3, 0x1.1f323f1adf158p-57,  // atan(0x1.5p-3)
        0x1.6c1d4898933d9p-3, -0x1.2954a7603c427p-58,  // atan(0x1.7p-3)
        0x1.8b06ee2879c29p-3, -0x1.118cd30308c4fp-57,  // atan(0x1.9p-3)
        0x1.a9c231b403279p-3, 0x1.0e8bbe89cca85p-57,  // atan(0x1.bp-3)
        0x1.c84bf8a742e6ep-3, -0x1.95bdd0682ea26p-58,  // atan(0x1.dp-3)
        0x1.e6a148e96ec4dp-3, 0x1.866b22029f765p-57,  // atan(0x1.fp-3)
        0x1.09dc597d86362p-2, 0x1.62e47390cb865p-56,  // atan(0x1.1p-2)
        0x1.278372057ef46p-2, -0x1.077cdd36dfc81p-56,  // atan(0x1.3p-2)
        0x1.44aa436c2af0ap-2, -0x1.5d5e43c55b3bap-56,  // atan(0x1.5p-2)
        0x1.614840309cfe2p-2, -0x1.a725715711fp-56,  // atan(0x1.7p-2)
        0x1.7d5604b63b3f7p-2, 0x1.69c885c2b249ap-56,  // atan(0x1.9p-2)
        0x1.98cd5454d6b18p-2, 0x1.9e6c988fd0a77p-56,  // atan(0x1.bp-2)
        0x1.b3a911da65c6cp-2, 0x1.ae187b1ca504p-56,  // atan(0x1.dp-2)
        0x1.cde53432c1351p-2, -0x1.a2cfa4418f1adp-56,  // atan(0x1.fp-2)
        0x1.f40dd0b541418p-2, -0x1.a3992dc382a23p-57,  // atan(0x1.1p-1)
        0x1.1255d9bfbd2a9p-1, -0x1.2bdaee1c0ee35p-58,  // atan(0x1.3p-1)
        0x1.2958e59308e31p-1, -0x1.09e73b0c6c087p-56,  // atan(0x1.5p-1)
        0x1.3f13fb89e96f4p-1, 0x1.ecf8b492644fp-56,  // atan(0x1.7p-1)
        0x1.538f57b89061fp-1, -0x1.1bb74abda520cp-55,  // atan(0x1.9p-1)
        0x1.66d663923e087p-1, -0x1.6ea6febe8bbbap-56,  // atan(0x1.bp-1)
        0x1.78f6bbd5d315ep-1, 0x1.406a08980374p-55,  // atan(0x1.dp-1)
        0x1.89ff5ff57f1f8p-1, -0x1.55b9a5e177a1bp-55,  // atan(0x1.fp-1)
        0x1.a1a25f2c82506p-1, -0x1.8b4c3611182fcp-57,  // atan(0x1.1p+0)
        0x1.bde70ed439fe7p-1, -0x1.a2b56372c05efp-56,  // atan(0x1.3p+0)
        0x1.d6e57cf4f0acap-1, -0x1.763b9456ae66ep-55,  // atan(0x1.5p+0)
        0x1.ed0d97c9041c9p-1, -0x1.2629e3b5da49p-58,  // atan(0x1.7p+0)
        0x1.006132e34d617p+0, 0x1.b343dfa868d93p-54,  // atan(0x1.9p+0)
        0x1.092ce471853ccp+0, 0x1.269f9b3e200c2p-55,  // atan(0x1.bp+0)
        0x1.110eb007f39f7p+0, -0x1.12b2ff85e55p-54,  // atan(0x1.dp+0)
        0x1.1825f074030d9p+0, -0x1.9523f0af0d3b5p-58,  // atan(0x1.fp+0)
        0x1.21862f3fade36p+0, 0x1.4887628d68748p-54,  // atan(0x1.1p+1)
        0x1.2c1a241d66dc3p+0, 0x1.82b2d58b6a8e9p-54,  // atan(0x1.3p+1)
        0x1.34f1fbb19eb09p+0, 0x1.80d79b4cf61d5p-55,  // atan(0x1.5p+1)
        0x1.3c6e650b38047p+0, 0x1.6b63b358e746dp-54,  // atan(0x1.7p+1)
        0x1.42d70411f9ec1p+0, 0x1.2b08db7f10896p-55,  // atan(0x1.9p+1)
        0x1.4861b4cfbe71p+0,  -0x1.567d3d25932d1p-57,  // atan(0x1.bp+1)
        0x1.4d378c1999a0dp+0, -0x1.c857a639541c8p-57,  // atan(0x1.dp+1)
        0x1.51784fa1544bap+0, -0x1.236e3c857c019p-54,  // atan(0x1.fp+1)
        0x1.56f6f33a3e6a7p+0, -0x1.df6edd6f1ec3bp-56,  // atan(0x1.1p+2)
        0x1.5d013c41adabdp+0, 0x1.f82bba194dd5dp-54,  // atan(0x1.3p+2)
        0x1.61f06c6a92b89p+0, -0x1.487d50bceb1a5p-55,  // atan(0x1.5p+2)
        0x1.660b02c736a06p+0, -0x1.acb6afb332a0fp-56,  // atan(0x1.7p+2)
        0x1.698213a9d5053p+0, -0x1.b9839085189e3p-54,  // atan(0x1.9p+2)
        0x1.6c78c7edeb195p+0, 0x1.9239ad620ffe2p-54,  // atan(0x1.bp+2)
        0x1.6f08f07435fecp+0, -0x1.957a7170df016p-55,  // atan(0x1.dp+2)
        0x1.7145eac2088a4p+0, -0x1.fda5797b32a0bp-54,  // atan(0x1.fp+2)
        0x1.7424de90454d4p+0, -0x1.3a75d182e1a5fp-54,  // atan(0x1.1p+3)
        0x1.77467e364f601p+0, -0x1.bfda44f3537b8p-54,  // atan(0x1.3p+3)
        0x1.79d0f3fad1c92p+0, 0x1.38727dc4fb7d1p-55,  // atan(0x1.5p+3)
        0x1.7beb396c5699ap+0, -0x1.3dc969c7e2365p-55,  // atan(0x1.7p+3)
        0x1.7daff85a63058p+0, 0x1.1ee9bcca84eb2p-54,  // atan(0x1.9p+3)
        0x1.7f320a0f9f587p+0, 0x1.38dbb20936502p-56,  // atan(0x1.bp+3)
        0x1.807f2112987c7p+0, 0x1.178e474ec8c66p-54,  // atan(0x1.dp+3)
        0x1.81a16e43f190bp+0, -0x1.e6b0733383ad4p-54,  // atan(0x1.fp+3)
        0x1.831516233f561p+0, -0x1.7927ffec5f9dcp-54,  // atan(0x1.1p+4)
        0x1.84a99fe25186bp+0, 0x1.494c8619d0bbcp-54,  // atan(0x1.3p+4)
        0x1.85f14d43d81bep+0, 0x1.bf8770a76afafp-58,  // atan(0x1.5p+4)
        0x1.87001c35928d4p+0, -0x1.b4ba860ada728p-54,  // atan(0x1.7p+4)
        0x1.87e3aa32878aep+0, -0x1.9b0e3c3bbc6cfp-54,  // atan(0x1.9p+4)
        0x1.88a58ec949d14p+0, 0x1.b07443dd06ad8p-54,  // atan(0x1.bp+4)
        0x1.894cbdb6bedfcp+0, -0x1.ffb5195f35cp-60,  // atan(0x1.dp+4)
        0x1.89de605acdbb3p+0, -0x1.e2ac570eac042p-54,  // atan(0x1.fp+4)
        0x1.8a98bbf307aa8p+0, -0x1.d90abd3cb737ap-54,  // atan(0x1.1p+5)
        0x1.8b63797517bb5p+0, -0x1.bf3ab273b6cep-55,  // atan(0x1.3p+5)
        0x1.8c079f3350d26p+0, 0x1.838f674c6574dp-54,  // atan(0x1.5p+5)
        0x1.8c8f3c9e38564p+0, 0x1.f0c61f67df753p-54,  // atan(0x1.7p+5)
        0x1.8d0129acd6d1cp+0, 0x1.66034aec68494p-55,  // atan(0x1.9p+5)
        0x1.8d623796f0778p+0, 0x1.db4574d87445p-54,  // atan(0x1.bp+5)
        0x1.8db5e3944965ep+0, 0x1.ddf03d7d94a94p-54,  // atan(0x1.dp+5)
        0x1.8dfec478573ap+0,  0x1.48a5f6312c3fap-54,  // atan(0x1.fp+5)
    };
    if (lo) *lo = T[2 * i + 1];
    return T[2 * i];
}

#if defined(FXL_INVTRIG_COUNT_SLOW) && !defined(__CUDA_ARCH__)
// test builds only: how often the accurate path runs, and how often it is left undecided
inline std::atomic<uint64_t> slowCount{0}, undecidedCount{0};
#define FXL_INVTRIG_SLOW() (++::fxl::math::detail_invtrig::slowCount)
#define FXL_INVTRIG_UNDECIDED() (++::fxl::math::detail_invtrig::undecidedCount)
#else
#define FXL_INVTRIG_SLOW() ((void)0)
#define FXL_INVTRIG_UNDECIDED() ((void)0)
#endif

// atan(y/x) for y >= 0, x >= 0 (not both 0, finite), zf = y/x rounded to float (may be inf; any
// value within a relative 2^-20 of y/x does: it only picks the branch and the bucket); relative
// error < 2^-50.
FXL_HD inline double atanFast(double y, double x, float zf)
{
    const uint32_t zb = bitsOf(zf);
    double a, t;
    if (zb < 0x3d000000u) {
        a = 0;
        t = y / x;
    } else if (zb >= 0x42800000u) {
        a = kPi2H;
        t = -x / y;
    } else {
        const double c = floatFromBits((zb & 0xfff00000u) | 0x00080000u);
        a = atanTableHi((zb >> 20) - 0x3d0u, nullptr);
        t = fma(-c, x, y) / fma(c, y, x);
    }
    const double t2 = t * t;
    const double p = t2
        * (-0x1.5555555555555p-2
           + t2 * (0x1.999999999999ap-3 + t2 * (-0x1.2492492492492p-3 + t2 * 0x1.c71c71c71c71cp-4)));
    return a + fma(t, p, t);
}

// atan((yh + yl) / (xh + xl)) as rh + rl (|rl| <= ulp(rh)/2), relative error < 2^-62, for
// yh, xh >= 0 in [2^-900, 2^900] when their ratio is within [2^-30, 2^30] (else one may be 0),
// zf = yh/xh within a relative 2^-20 (as for atanFast).
FXL_HD inline void atanAccurate(double yh, double yl, double xh, double xl, float zf, double& rh, double& rl)
{
    const uint32_t zb = bitsOf(zf);
    double ah = 0, al = 0, th, tl;
    if (zb < 0x3d000000u) {
        th = yh / xh;
        tl = (fma(-th, xh, yh) + yl - th * xl) / xh;
    } else if (zb >= 0x42800000u) {
        ah = kPi2H;
        al = kPi2L;
        const double u = xh / yh;
        const double ul = (fma(-u, yh, xh) + xl - u * yl) / yh;
        th = -u;
        tl = -ul;
    } else {
        const double c = floatFromBits((zb & 0xfff00000u) | 0x00080000u);
        ah = atanTableHi((zb >> 20) - 0x3d0u, &al);
        const double ph = c * xh, pl = fma(c, xh, -ph);
        const double nh = yh - ph;  // exact: ph/2 <= yh <= 2 ph
        const double nl = (yl - pl) - c * xl;
        const double qh = c * yh, ql = fma(c, yh, -qh);
        const double dh = xh + qh;
        const double bb = dh - xh;
        double dl = (xh - (dh - bb)) + (qh - bb);
        dl += ql + xl + c * yl;
        th = nh / dh;
        tl = (fma(-th, dh, nh) + nl - th * dl) / dh;
    }
    const double t2 = th * th;
    const double q = t2
        * (-0x1.5555555555555p-2
           + t2
               * (0x1.999999999999ap-3
                  + t2
                      * (-0x1.2492492492492p-3
                         + t2 * (0x1.c71c71c71c71cp-4 + t2 * (-0x1.745d1745d1746p-4 + t2 * 0x1.3b13b13b13b14p-4)))));
    const double v = (tl - tl * t2) + th * q;  // atan(th + tl) - th
    const double s = ah + th;  // |ah| >= |th| or ah = 0
    const double e = (ah - s) + th;
    const double lo = (e + al) + v;
    rh = s + lo;
    rl = (s - rh) + lo;
}

// pi - (rh + rl) in place, rh in [0, pi/2]
FXL_HD inline void piMinus(double& rh, double& rl)
{
    const double s = kPiH - rh;
    const double e = (kPiH - s) - rh;
    const double lo = (e + kPiL) - rl;
    rh = s + lo;
    rl = (s - rh) + lo;
}

// is a positive double r (a normal float's range) farther than 32 of its ulps from every float
// midpoint?
FXL_HD inline bool decided(double r)
{
#if defined(FXL_INVTRIG_FORCE_SLOW)
    return false;  // test builds only: exercise the accurate path on every input
#endif
    return ((bitsOf(r) - 0x10000000u + 32u) & 0x1fffffffu) > 64u;
}

// the float nearest rh + rl (positive, in the normal float range; |rl| <= ulp(rh)/2)
FXL_HD inline float roundDD(double rh, double rl)
{
    const uint64_t b = bitsOf(rh);
    if (((b - 0x10000000u + 4u) & 0x1fffffffu) > 8u) return static_cast<float>(rh);
    const double down = doubleFromBits(b & ~0x1fffffffull);
    const double m = doubleFromBits((b & ~0x1fffffffull) | 0x10000000ull);
    const double d = (rh - m) + rl;
    if (!(fabs(d) > rh * 0x1p-60)) FXL_INVTRIG_UNDECIDED();
    return static_cast<float>(d > 0 ? m + (m - down) : down);
}

// 1 - x^2 as wh + wl, and its square root as sh + sl, for 0 <= x <= 1
FXL_HD inline void sqrtOneMinusSquare(double x, double& sh, double& sl)
{
    const double p = x * x, pl = fma(x, x, -p);
    const double wh = 1.0 - p;
    const double wl = ((1.0 - wh) - p) - pl;
    sh = sqrt(wh);
    sl = sh > 0 ? (fma(-sh, sh, wh) + wl) / (sh + sh) : 0.0;
}

}  // namespace detail_invtrig

FXL_HD inline float atan(float xf)
{
    using namespace detail_invtrig;
    const uint32_t ab = bitsOf(xf) & 0x7fffffffu;
    if (ab > 0x7f800000u) return canonicalNanF();
    if (ab < 0x39800000u) return xf;  // |x| < 2^-12: atan(x) rounds to x
    if (ab >= 0x4c800000u) return copysign(kPi2F, xf);  // |x| >= 2^26 (and inf): rounds to pi/2
    const double x = fabs(static_cast<double>(xf));
    const float zf = fabs(xf);
    double r = atanFast(x, 1.0, zf);
    float out;
    if (decided(r))
        out = static_cast<float>(r);
    else {
        FXL_INVTRIG_SLOW();
        double rl;
        atanAccurate(x, 0.0, 1.0, 0.0, zf, r, rl);
        out = roundDD(r, rl);
    }
    return copysign(out, xf);
}

FXL_HD inline float asin(float xf)
{
    using namespace detail_invtrig;
    const uint32_t ab = bitsOf(xf) & 0x7fffffffu;
    if (ab > 0x3f800000u) return canonicalNanF();  // |x| > 1, inf, NaN
    if (ab < 0x39800000u) return xf;  // |x| < 2^-12: asin(x) rounds to x
    const double x = fabs(static_cast<double>(xf));
    const double s = sqrt(fma(-x, x, 1.0));
    const float z = static_cast<float>(x) / static_cast<float>(s);  // (float)s: relative 2^-24
    double r = atanFast(x, s, z);
    float out;
    if (decided(r))
        out = static_cast<float>(r);
    else {
        FXL_INVTRIG_SLOW();
        double sh, sl, rl;
        sqrtOneMinusSquare(x, sh, sl);
        atanAccurate(x, 0.0, sh, sl, z, r, rl);
        out = roundDD(r, rl);
    }
    return copysign(out, xf);
}

FXL_HD inline float acos(float xf)
{
    using namespace detail_invtrig;
    const uint32_t bits = bitsOf(xf);
    const uint32_t ab = bits & 0x7fffffffu;
    if (ab > 0x3f800000u) return canonicalNanF();  // |x| > 1, inf, NaN
    const bool neg = bits >> 31;
    const double x = fabs(static_cast<double>(xf));
    const double s = sqrt(fma(-x, x, 1.0));
    const float z = static_cast<float>(s) / static_cast<float>(x);
    double r = atanFast(s, x, z);
    if (neg) r = kPiH - r;
    if (decided(r)) return static_cast<float>(r);
    FXL_INVTRIG_SLOW();
    double sh, sl, rl;
    sqrtOneMinusSquare(x, sh, sl);
    atanAccurate(sh, sl, x, 0.0, z, r, rl);
    if (neg) piMinus(r, rl);
    return roundDD(r, rl);
}

FXL_HD inline float atan2(float yf, float xf)
{
    using namespace detail_invtrig;
    const uint32_t by = bitsOf(yf), bx = bitsOf(xf);
    const uint32_t ay = by & 0x7fffffffu, ax = bx & 0x7fffffffu;
    if (ay > 0x7f800000u || ax > 0x7f800000u) return canonicalNanF();
    const bool xneg = bx >> 31;
    if (ay == 0) return copysign(xneg ? kPiF : 0.0f, yf);
    if (ay == 0x7f800000u) {
        if (ax == 0x7f800000u) return copysign(xneg ? k3Pi4F : kPi4F, yf);
        return copysign(kPi2F, yf);
    }
    if (ax == 0x7f800000u) return copysign(xneg ? kPiF : 0.0f, yf);
    if (ax == 0) return copysign(kPi2F, yf);
    const double y = floatFromBits(ay), x = floatFromBits(ax);
    const float z = floatFromBits(ay) / floatFromBits(ax);  // RN(y/x): below 2^-60 iff y/x is
    if (z < 0x1p-60f) {
        if (xneg) return copysign(kPiF, yf);  // pi - y/x rounds to float(pi)
        // atan(q) = q - q^3/3 with q = y/x: round to odd on the side the exact remainder gives
        const double q = y / x;
        const double rem = fma(-q, x, y);
        uint64_t b = bitsOf(q);
        if (!(b & 1)) b = rem > 0 ? b + 1 : b - 1;
        return copysign(static_cast<float>(doubleFromBits(b)), yf);
    }
    double r = atanFast(y, x, z);
    if (xneg) r = kPiH - r;
    if (decided(r)) return copysign(static_cast<float>(r), yf);
    FXL_INVTRIG_SLOW();
    double rl;
    atanAccurate(y, 0.0, x, 0.0, z, r, rl);
    if (xneg) piMinus(r, rl);
    return copysign(roundDD(r, rl), yf);
}

FXL_HD inline double atan(double x)
{
    using namespace detail_invtrig;
    const uint64_t ab = bitsOf(x) & 0x7fffffffffffffffull;
    if (ab > 0x7ff0000000000000ull) return canonicalNanD();
    if (ab < 0x3e30000000000000ull) return x;  // |x| < 2^-28
    if (ab >= 0x43b0000000000000ull) return copysign(kPi2H, x);  // |x| >= 2^60 (and inf)
    const double a = fabs(x);
    double rh, rl;
    atanAccurate(a, 0.0, 1.0, 0.0, static_cast<float>(a), rh, rl);
    return copysign(rh + rl, x);
}

FXL_HD inline double asin(double x)
{
    using namespace detail_invtrig;
    const uint64_t ab = bitsOf(x) & 0x7fffffffffffffffull;
    if (ab > 0x3ff0000000000000ull) return canonicalNanD();  // |x| > 1, inf, NaN
    if (ab < 0x3e30000000000000ull) return x;  // |x| < 2^-28
    const double a = fabs(x);
    double sh, sl, rh, rl;
    sqrtOneMinusSquare(a, sh, sl);
    atanAccurate(a, 0.0, sh, sl, static_cast<float>(a / sh), rh, rl);
    return copysign(rh + rl, x);
}

FXL_HD inline double acos(double x)
{
    using namespace detail_invtrig;
    const uint64_t bits = bitsOf(x);
    const uint64_t ab = bits & 0x7fffffffffffffffull;
    if (ab > 0x3ff0000000000000ull) return canonicalNanD();  // |x| > 1, inf, NaN
    const double a = fabs(x);
    double sh, sl, rh, rl;
    sqrtOneMinusSquare(a, sh, sl);
    atanAccurate(sh, sl, a, 0.0, static_cast<float>(sh / a), rh, rl);
    if (bits >> 63) piMinus(rh, rl);
    return rh + rl;
}

FXL_HD inline double atan2(double y, double x)
{
    using namespace detail_invtrig;
    const uint64_t by = bitsOf(y), bx = bitsOf(x);
    const uint64_t ay = by & 0x7fffffffffffffffull, ax = bx & 0x7fffffffffffffffull;
    constexpr uint64_t kInf = 0x7ff0000000000000ull;
    if (ay > kInf || ax > kInf) return canonicalNanD();
    const bool xneg = bx >> 63;
    if (ay == 0) return copysign(xneg ? kPiH : 0.0, y);
    if (ay == kInf) {
        if (ax == kInf) return copysign(xneg ? 3 * 0x1.921fb54442d18p-1 : 0x1.921fb54442d18p-1, y);
        return copysign(kPi2H, y);
    }
    if (ax == kInf) return copysign(xneg ? kPiH : 0.0, y);
    if (ax == 0) return copysign(kPi2H, y);
    double yv = doubleFromBits(ay), xv = doubleFromBits(ax);
    const double z = yv / xv;
    if (z < 0x1p-30)  // atan2 = z - z^3/3 (faithful as z), or pi - that
        return copysign(xneg ? kPiH + (kPiL - z) : z, y);
    if (!(z <= 0x1p30)) {  // pi/2 -+ x/y
        const double u = xv / yv;
        return copysign(xneg ? kPi2H + (kPi2L + u) : kPi2H + (kPi2L - u), y);
    }
    const double m = yv > xv ? yv : xv;
    if (m > 0x1p900) {
        yv *= 0x1p-200;
        xv *= 0x1p-200;
    } else if (m < 0x1p-900) {
        yv *= 0x1p200;
        xv *= 0x1p200;
    }
    double rh, rl;
    atanAccurate(yv, 0.0, xv, 0.0, static_cast<float>(z), rh, rl);
    if (xneg) piMinus(rh, rl);
    return copysign(rh + rl, y);
}

}  // namespace fxl::math
