#pragma once
// sin, cos, tan for float (correctly rounded, round to nearest-even, all 2^32 inputs) and double
// (faithful, < 1 ulp), with only IEEE operations and integer arithmetic (see hostdev.hpp).
//
// Argument reduction: x = k*pi/2 + r, |r| <= pi/4 (1 + 2^-50), computed on |x| (sin and tan are
// odd, cos even: the sign is applied at the end).
//  - |x| < 2^20: Cody-Waite with pi/2 = P1 + P2 + P3 + P4 (P1..P3 of 33 bits, so k*Pi is exact for
//    k < 2^20). x - k*P1 is exact (both are multiples of 2^-53 or coarser and the difference is < 1);
//    the float fast path then rounds twice (|error| <= 2^-52 |r| + 2^-98; for floats |r| > 2^-30 here);
//    the accurate reduction keeps r as a double-double with the exact two-sums of the
//    k*P2 and k*P3 terms (error about 2^-106 |r| + 2^-131).
//  - |x| >= 2^20: Payne-Hanek: |x| = m*2^e (m < 2^53), the 192 bits of 2/pi from weight 2^-(e-1)
//    on (a table of 1280 bits), times m, modulo 2^192, give x*2/pi mod 4 (2 integer bits, 190 fraction
//    bits) with an error below 2^-137; the fraction, rounded to the nearest quadrant, is normalised
//    and turned into a double-double, times pi/2 in double-double (relative error about 2^-103 for
//    the fractions that occur: |r| > 2^-62 for every double, > 2^-30 for every float).
//    64x64->128-bit products are built from 32-bit halves.
// float fast path: with r as a double, sin(r) = r + r^3 S(r^2) and cos(r) = C(r^2) (degree-5
// polynomials in r^2 fitted for relative error: 2^-47.5 and 2^-43.6 on |r| <= 0.786), tan = sin/cos.
// Error of the double y, relative: reduction < 2^-51.9 (two roundings; |r| > 2^-30 for every float),
// which sin(r) passes on with a factor <= 1 and cos(r) with <= 0.79; polynomial <= 2^-43.6; evaluation
// < 2^-51.7 (five roundings, the terms after r or 1 being below 0.31 of the result); the division
// of tan 2^-53: |y - f(x)| < 2^-43.3 |f(x)| for all three. The rounding of y to float decides the
// correctly rounded result when y - 2^-42|y| and y + 2^-42|y| round to the same float: the exact value
// lies between them (computing the two bounds adds only 2^-53 relative), and rounding to float is
// monotonic. Otherwise (about 2^-17 of the inputs) the accurate path: double-double reduction,
// double-double Taylor series to degree 25 / 26 (truncation < 2^-100, rounding < 2^-98),
// double-double division for tan: relative error < 2^-95, tested the same way with 2^-90 and with a
// round-to-odd step that makes double-double -> double -> float a single correct rounding; the
// exhaustive sweep finds every float decided there. sin(x) ~ x for tiny x comes out of the same test
// (y = x exactly); subnormal results are rounded by the conversion of the double to float.
// double: the same double-double reduction r = rh + rl; sin(r) = rh + rh^3 S1 (a double-double
// product, S1 = -1/6 as a double-double) + rh^5 Q(rh^2) (degree 5, the whole fit 2^-57 relative)
// + rl (1 - rh^2/2); cos(r) = (1 - z/2) + (the exact rounding error of that - the error of z = rh^2
// (fma) - rh rl + z^2 C(z)) (degree 5, fit 2^-59); each returned as an unevaluated double-double whose
// low part carries 2^-56 or less of error, so the rounded sum is within about 0.55 ulp; tan is their
// quotient corrected with one fma (same order of error). Measured max errors: see the report
// (tests/bench/bench_math_exhaustive --f64 24).
#include <cstdint>

#include "runtime/math/bits.hpp"
#include "runtime/math/double_double.hpp"
#include "runtime/math/hostdev.hpp"

namespace fxl::math {
namespace detail_trig {

using dd::DD;
using dd::fastTwoSum;
using dd::twoProd;
using dd::twoSum;

FXL_HD inline DD ddAdd(DD a, DD b)
{
    const DD s = twoSum(a.hi, b.hi);
    const DD t = twoSum(a.lo, b.lo);
    DD u = fastTwoSum(s.hi, s.lo + t.hi);
    return fastTwoSum(u.hi, u.lo + t.lo);
}
FXL_HD inline DD ddMul(DD a, DD b)
{
    const DD p = twoProd(a.hi, b.hi);
    return fastTwoSum(p.hi, p.lo + (a.hi * b.lo + a.lo * b.hi));
}
FXL_HD inline DD ddDiv(DD a, DD b)
{
    const double q1 = a.hi / b.hi;
    const DD p = ddMul({q1, 0.0}, b);
    const DD r = ddAdd(a, {-p.hi, -p.lo});
    const double q2 = r.hi / b.hi;
    const DD p2 = ddMul({q2, 0.0}, b);
    const DD r2 = ddAdd(r, {-p2.hi, -p2.lo});
    const double q3 = r2.hi / b.hi;
    const DD q = fastTwoSum(q1, q2);
    return fastTwoSum(q.hi, q.lo + q3);
}

// 64x64 -> 128-bit product from 32-bit halves
FXL_HD inline void mul64(uint64_t a, uint64_t b, uint64_t& hi, uint64_t& lo)
{
    const uint64_t a0 = a & 0xffffffffull, a1 = a >> 32;
    const uint64_t b0 = b & 0xffffffffull, b1 = b >> 32;
    const uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    const uint64_t mid = (p00 >> 32) + (p01 & 0xffffffffull) + (p10 & 0xffffffffull);
    lo = (mid << 32) | (p00 & 0xffffffffull);
    hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
}

FXL_HD inline int clz64(uint64_t v)  // v != 0
{
    int n = 0;
    if (!(v >> 32)) {
        n += 32;
        v <<= 32;
    }
    if (!(v >> 48)) {
        n += 16;
        v <<= 16;
    }
    if (!(v >> 56)) {
        n += 8;
        v <<= 8;
    }
    if (!(v >> 60)) {
        n += 4;
        v <<= 4;
    }
    if (!(v >> 62)) {
        n += 2;
        v <<= 2;
    }
    if (!(v >> 63)) n += 1;
    return n;
}

// 64 bits of 2/pi starting at bit position p of the stream: 64 zero bits, then 2/pi's bits
// 1, 2, 3, ... (weights 2^-1, 2^-2, ...).
FXL_HD inline uint64_t twoOverPiBits(int p)
{
    static constexpr uint64_t T[21] = {0x0000000000000000ull, 0xa2f9836e4e441529ull, 0xfc2757d1f534ddc0ull,
                                       0xdb6295993c439041ull, 0xfe5163abdebbc561ull, 0xb7246e3a424dd2e0ull,
                                       0x06492eea09d1921cull, 0xfe1deb1cb129a73eull, 0xe88235f52ebb4484ull,
                                       0xe99c7026b45f7e41ull, 0x3991d639835339f4ull, 0x9c845f8bbdf9283bull,
                                       0x1ff897ffde05980full, 0xef2f118b5a0a6d1full, 0x6d367ecf27cb09b7ull,
                                       0x4f463f669e5fea2dull, 0x7527bac7ebe5f17bull, 0x3d0739f78a5292eaull,
                                       0x6bfb5fb11f8d5d08ull, 0x56033046fc7b6babull, 0xf0cfbc209af4361dull};
    const int j = p >> 6, sh = p & 63;
    if (sh == 0) return T[j];
    return (T[j] << sh) | (T[j + 1] >> (64 - sh));
}

FXL_HD inline double pow2(int n)  // 2^n for -1022 <= n <= 1023
{
    return doubleFromBits(static_cast<uint64_t>(1023 + n) << 52);
}

// Payne-Hanek: |x| = m * 2^e (m < 2^53, e >= -60): x = q*pi/2 + r, q mod 4, r a double-double.
FXL_HD inline DD reducePayneHanek(uint64_t m, int e, unsigned& q)
{
    const int p = e + 62;  // position of the bit of weight 2^-(e-1)
    const uint64_t W0 = twoOverPiBits(p), W1 = twoOverPiBits(p + 64), W2 = twoOverPiBits(p + 128);
    uint64_t h2, l2, h1, l1;
    mul64(m, W2, h2, l2);
    mul64(m, W1, h1, l1);
    const uint64_t w2 = l2;
    const uint64_t w1 = h2 + l1;
    const uint64_t w0 = h1 + m * W0 + (w1 < l1 ? 1u : 0u);
    // x*2/pi mod 4 = (w0:w1:w2) * 2^-190
    q = static_cast<unsigned>(w0 >> 62);
    uint64_t a = (w0 << 2) | (w1 >> 62), b = (w1 << 2) | (w2 >> 62), c = w2 << 2;  // fraction * 2^192
    bool neg = false;
    if (a >> 63) {  // fraction >= 1/2: next quadrant, r < 0
        q += 1;
        neg = true;
        a = ~a;
        b = ~b;
        c = ~c + 1;
        if (c == 0) {
            b += 1;
            if (b == 0) a += 1;
        }
    }
    int shift = 0;
    if (a == 0) {
        a = b;
        b = c;
        c = 0;
        shift += 64;
        if (a == 0) {
            a = b;
            b = 0;
            shift += 64;
            if (a == 0) {
                q &= 3u;
                return {0.0, 0.0};
            }
        }
    }
    const int n = clz64(a);
    if (n) {
        a = (a << n) | (b >> (64 - n));
        b = (b << n) | (c >> (64 - n));
    }
    shift += n;
    // fraction = (a + b*2^-64) * 2^(-64-shift)
    const double fa = static_cast<double>(a >> 11) * pow2(11 - 64 - shift);
    const uint64_t low = ((a & 0x7ffull) << 53) | (b >> 11);
    const double fb = static_cast<double>(low) * pow2(-53 - 64 - shift);
    const DD f = fastTwoSum(fa, fb);
    const double PIO2H = 0x1.921fb54442d18p+0, PIO2L = 0x1.1a62633145c07p-54;
    const DD pr = twoProd(f.hi, PIO2H);
    DD r = fastTwoSum(pr.hi, pr.lo + (f.hi * PIO2L + f.lo * PIO2H));
    q &= 3u;
    if (neg) r = {-r.hi, -r.lo};
    return r;
}

constexpr double kP1 = 0x1.921fb54400000p+0, kP2 = 0x1.0b4611a600000p-34, kP3 = 0x1.3198a2e000000p-69,
                 kP4 = 0x1.b839a252049c1p-104, kP3d = 0x1.3198a2e037073p-69;
constexpr double kInvPio2 = 0x1.45f306dc9c883p-1, kShifter = 0x1.8p52;

// |x| < 2^20, x >= 0: x = q*pi/2 + r with r as an accurate double-double
FXL_HD inline DD reduceSmallDD(double ax, unsigned& q)
{
    const double t = ax * kInvPio2 + kShifter;
    const double k = t - kShifter;
    q = static_cast<unsigned>(bitsOf(t)) & 3u;
    const double r1 = ax - k * kP1;  // exact
    const DD a = twoSum(r1, -(k * kP2));
    const DD c = twoSum(a.lo, -(k * kP3));
    const DD h = twoSum(a.hi, c.hi);
    const double tail = (h.lo + c.lo) - k * kP4;
    return fastTwoSum(h.hi, tail);
}

// any finite double >= 0
FXL_HD inline DD reduceDD(double ax, unsigned& q)
{
    if (ax < 0x1p20) return reduceSmallDD(ax, q);
    const uint64_t u = bitsOf(ax);
    const uint64_t m = (u & 0xfffffffffffffull) | (1ull << 52);
    const int e = static_cast<int>(u >> 52) - 1075;
    return reducePayneHanek(m, e, q);
}

// ---------- float ----------
FXL_HD inline double sinPolyF(double r)
{
    const double z = r * r;
    const double S1 = -0x1.55555555521d3p-3, S2 = 0x1.1111110c7ff7ap-7, S3 = -0x1.a019f92f686b8p-13,
                 S4 = 0x1.71d767b55706ep-19, S5 = -0x1.a95fa83fcef44p-26;
    const double p = S1 + z * (S2 + z * (S3 + z * (S4 + z * S5)));
    return r + (r * z) * p;
}
FXL_HD inline double cosPolyF(double r)
{
    const double z = r * r;
    const double C1 = -0x1.ffffffffe95d3p-2, C2 = 0x1.55555545abe66p-5, C3 = -0x1.6c16b337ad868p-10,
                 C4 = 0x1.a00eb0a8195d1p-16, C5 = -0x1.23c7dbe5a2c21p-22;
    return 1.0 + z * (C1 + z * (C2 + z * (C3 + z * (C4 + z * C5))));
}

// reduction of a float's |x| to a double r (relative error < 2^-51.9)
FXL_HD inline double reduceF(double ax, uint32_t au, unsigned& q)
{
    if (au < 0x3f490fdbu) {  // |x| < pi/4
        q = 0;
        return ax;
    }
    if (au < 0x49800000u) {  // |x| < 2^20
        const double t = ax * kInvPio2 + kShifter;
        const double k = t - kShifter;
        q = static_cast<unsigned>(bitsOf(t)) & 3u;
        return ((ax - k * kP1) - k * kP2) - k * kP3d;
    }
    const uint64_t m = (au & 0x7fffffu) | 0x800000u;
    const int e = static_cast<int>(au >> 23) - 150;
    return reducePayneHanek(m, e, q).hi;
}

FXL_HD inline DD sinDD(DD r)
{
    static constexpr double S[24] = {
        -0x1.5555555555555p-3,  -0x1.5555555555555p-57,  0x1.1111111111111p-7,  0x1.1111111111111p-63,
        -0x1.a01a01a01a01ap-13, -0x1.a01a01a01a01ap-73,  0x1.71de3a556c734p-19, -0x1.c154f8ddc6c00p-73,
        -0x1.ae64567f544e4p-26, 0x1.c062e06d1f209p-80,   0x1.6124613a86d09p-33, 0x1.f28e0cc748ebep-87,
        -0x1.ae7f3e733b81fp-41, -0x1.1d8656b0ee8cbp-97,  0x1.952c77030ad4ap-49, 0x1.ac981465ddc6cp-103,
        -0x1.2f49b46814157p-57, -0x1.2650f61dbdcb4p-112, 0x1.71b8ef6dcf572p-66, -0x1.d043ae40c4647p-120,
        -0x1.761b41316381ap-75, 0x1.3423c7d91404fp-130,  0x1.3f3ccdd165fa9p-84, -0x1.58ddadf344487p-139};
    const DD z = ddMul(r, r);
    // the small terms in double, the first ones in double-double
    double t = S[22];
    for (int i = 20; i >= 12; i -= 2) t = S[i] + z.hi * t;
    DD p = {t, 0.0};
    for (int i = 10; i >= 0; i -= 2) p = ddAdd({S[i], S[i + 1]}, ddMul(z, p));
    return ddAdd(r, ddMul(ddMul(r, z), p));
}
FXL_HD inline DD cosDD(DD r)
{
    static constexpr double C[26] = {-0x1.0000000000000p-1,  0x0.0p+0,
                                     0x1.5555555555555p-5,   0x1.5555555555555p-59,
                                     -0x1.6c16c16c16c17p-10, 0x1.f49f49f49f49fp-65,
                                     0x1.a01a01a01a01ap-16,  0x1.a01a01a01a01ap-76,
                                     -0x1.27e4fb7789f5cp-22, -0x1.cbbc05b4fa99ap-76,
                                     0x1.1eed8eff8d898p-29,  -0x1.2aec959e14c06p-83,
                                     -0x1.93974a8c07c9dp-37, -0x1.05d6f8a2efd1fp-92,
                                     0x1.ae7f3e733b81fp-45,  0x1.1d8656b0ee8cbp-101,
                                     -0x1.6827863b97d97p-53, -0x1.eec01221a8b0bp-107,
                                     0x1.e542ba4020225p-62,  0x1.ea72b4afe3c2fp-120,
                                     -0x1.0ce396db7f853p-70, 0x1.aebcdbd20331cp-124,
                                     0x1.f2cf01972f578p-80,  -0x1.9ada5fcc1ab14p-135,
                                     -0x1.88e85fc6a4e5ap-89, 0x1.71c37ebd16540p-143};
    const DD z = ddMul(r, r);
    double t = C[24];
    for (int i = 22; i >= 12; i -= 2) t = C[i] + z.hi * t;
    DD p = {t, 0.0};
    for (int i = 10; i >= 0; i -= 2) p = ddAdd({C[i], C[i + 1]}, ddMul(z, p));
    return ddAdd({1.0, 0.0}, ddMul(z, p));
}

// round-to-odd of a normalised double-double to a double: then the rounding to float is correct
FXL_HD inline double roundToOdd(DD v)
{
    if (v.lo == 0.0) return v.hi;
    uint64_t u = bitsOf(v.hi);
    if (u & 1u) return v.hi;
    const bool up = (v.lo > 0) == (v.hi > 0);  // away from zero
    u = up ? u + 1 : u - 1;
    return doubleFromBits(u);
}

// which: 0 sin, 1 cos, 2 tan, of the float x (finite), accurately. decided: whether the interval of
// +-2^-90 relative around the double-double result rounds to one float (it does for every float:
// checked exhaustively).
FXL_HD inline float slowF(float x, int which, bool& decided)
{
    const double ax = static_cast<double>(fabs(x));
    unsigned q;
    const DD r = reduceDD(ax, q);
    DD y;
    if (which == 2) {
        const DD s = sinDD(r), c = cosDD(r);
        y = (q & 1u) ? ddDiv(c, s) : ddDiv(s, c);
        if (q & 1u) y = {-y.hi, -y.lo};
    } else {
        if (which == 1) q += 1;
        y = (q & 1u) ? cosDD(r) : sinDD(r);
        if (q & 2u) y = {-y.hi, -y.lo};
    }
    const double u = fabs(y.hi) * 0x1p-90;
    const float lo = static_cast<float>(roundToOdd(fastTwoSum(y.hi, y.lo - u)));
    const float hi = static_cast<float>(roundToOdd(fastTwoSum(y.hi, y.lo + u)));
    decided = bitsOf(lo) == bitsOf(hi);
    const float f = static_cast<float>(roundToOdd(y));
    if (which != 1 && (bitsOf(x) >> 31)) return floatFromBits(bitsOf(f) ^ 0x80000000u);
    return f;
}
FXL_HD inline float slowF(float x, int which)
{
    bool decided;
    return slowF(x, which, decided);
}

// sin(r + q pi/2) from sin(r) and cos(r), without branches: q odd takes cos, q & 2 flips the sign
FXL_HD inline double selectF(double s, double c, unsigned q)
{
    const uint64_t odd = 0 - static_cast<uint64_t>(q & 1u);
    const uint64_t sign = static_cast<uint64_t>(q & 2u) << 62;
    return doubleFromBits(((bitsOf(c) & odd) | (bitsOf(s) & ~odd)) ^ sign);
}

FXL_HD inline bool decidedF(double y)
{
    const double e = fabs(y) * 0x1p-42;
    return static_cast<float>(y - e) == static_cast<float>(y + e);
}

// ---------- double ----------
FXL_HD inline DD sinCosD(DD r, bool wantCos)
{
    const double rh = r.hi, rl = r.lo;
    const double z = rh * rh;
    if (!wantCos) {
        const double S1 = -0x1.5555555555555p-3, S2 = 0x1.111111111110bp-7, S3 = -0x1.a01a01a018a42p-13,
                     S4 = 0x1.71de3a532d015p-19, S5 = -0x1.ae645288d0e1ep-26, S6 = 0x1.612089421030bp-33,
                     S7 = -0x1.aaa0c22696e53p-41;
        // rh^3 * S1 (about 0.1 |r|) as a double-double, the rest in double
        const double S1L = -0x1.5555555555555p-57;
        const double zl = math::fma(rh, rh, -z);
        const double rz = rh * z;
        const double rzl = math::fma(rh, z, -rz) + rh * zl;
        const double m = S1 * rz;
        const double ml = math::fma(S1, rz, -m) + (S1 * rzl + S1L * rz);
        const double p = S2 + z * (S3 + z * (S4 + z * (S5 + z * (S6 + z * S7))));
        const DD s = fastTwoSum(rh, m);
        return fastTwoSum(s.hi, s.lo + (ml + ((rz * z) * p + rl * (1.0 - 0.5 * z))));
    }
    const double C2 = 0x1.555555555554bp-5, C3 = -0x1.6c16c16c14f57p-10, C4 = 0x1.a01a019c7e823p-16,
                 C5 = -0x1.27e4f7e67a908p-22, C6 = 0x1.1ee9d4b9a3b46p-29, C7 = -0x1.8fa3065b6879bp-37;
    const double zl = math::fma(rh, rh, -z);
    const double hz = 0.5 * z;
    const double w = 1.0 - hz;
    const double e1 = (1.0 - w) - hz;
    const double p = C2 + z * (C3 + z * (C4 + z * (C5 + z * (C6 + z * C7))));
    const double c = e1 + ((z * z) * p - (0.5 * zl + rh * rl));
    return fastTwoSum(w, c);
}

}  // namespace detail_trig

FXL_HD inline float sin(float x)
{
    using namespace detail_trig;
    const uint32_t au = bitsOf(x) & 0x7fffffffu;
    if (au >= 0x7f800000u) return canonicalNanF();
    const double ax = static_cast<double>(floatFromBits(au));
    unsigned q;
    const double r = reduceF(ax, au, q);
    const double y = selectF(sinPolyF(r), cosPolyF(r), q);
    if (!decidedF(y)) return slowF(x, 0);
    const float f = static_cast<float>(y);
    return floatFromBits(bitsOf(f) ^ (bitsOf(x) & 0x80000000u));
}

FXL_HD inline float cos(float x)
{
    using namespace detail_trig;
    const uint32_t au = bitsOf(x) & 0x7fffffffu;
    if (au >= 0x7f800000u) return canonicalNanF();
    const double ax = static_cast<double>(floatFromBits(au));
    unsigned q;
    const double r = reduceF(ax, au, q);
    const double y = selectF(sinPolyF(r), cosPolyF(r), q + 1);
    if (!decidedF(y)) return slowF(x, 1);
    return static_cast<float>(y);
}

FXL_HD inline float tan(float x)
{
    using namespace detail_trig;
    const uint32_t au = bitsOf(x) & 0x7fffffffu;
    if (au >= 0x7f800000u) return canonicalNanF();
    const double ax = static_cast<double>(floatFromBits(au));
    unsigned q;
    const double r = reduceF(ax, au, q);
    const double s = sinPolyF(r), c = cosPolyF(r);
    const double y = (q & 1u) ? -c / s : s / c;
    if (!decidedF(y)) return slowF(x, 2);
    const float f = static_cast<float>(y);
    return floatFromBits(bitsOf(f) ^ (bitsOf(x) & 0x80000000u));
}

FXL_HD inline double sin(double x)
{
    using namespace detail_trig;
    const uint64_t au = bitsOf(x) & 0x7fffffffffffffffull;
    if (au >= 0x7ff0000000000000ull) return canonicalNanD();
    const double ax = doubleFromBits(au);
    unsigned q = 0;
    DD r = {ax, 0.0};
    if (ax >= 0x1.92p-1) r = reduceDD(ax, q);
    const DD y = sinCosD(r, q & 1u);
    double v = y.hi;
    if (q & 2u) v = -v;
    return doubleFromBits(bitsOf(v) ^ (bitsOf(x) & 0x8000000000000000ull));
}

FXL_HD inline double cos(double x)
{
    using namespace detail_trig;
    const uint64_t au = bitsOf(x) & 0x7fffffffffffffffull;
    if (au >= 0x7ff0000000000000ull) return canonicalNanD();
    const double ax = doubleFromBits(au);
    unsigned q = 0;
    DD r = {ax, 0.0};
    if (ax >= 0x1.92p-1) r = reduceDD(ax, q);
    q += 1;
    const DD y = sinCosD(r, q & 1u);
    return (q & 2u) ? -y.hi : y.hi;
}

FXL_HD inline double tan(double x)
{
    using namespace detail_trig;
    const uint64_t au = bitsOf(x) & 0x7fffffffffffffffull;
    if (au >= 0x7ff0000000000000ull) return canonicalNanD();
    const double ax = doubleFromBits(au);
    unsigned q = 0;
    DD r = {ax, 0.0};
    if (ax >= 0x1.92p-1) r = reduceDD(ax, q);
    const DD s = sinCosD(r, false), c = sinCosD(r, true);
    const DD n = (q & 1u) ? c : s, d = (q & 1u) ? s : c;
    const double t0 = n.hi / d.hi;
    const double rem = (math::fma(-t0, d.hi, n.hi) + n.lo) - t0 * d.lo;
    double v = t0 + rem / d.hi;
    if (q & 1u) v = -v;
    return doubleFromBits(bitsOf(v) ^ (bitsOf(x) & 0x8000000000000000ull));
}

}  // namespace fxl::math
