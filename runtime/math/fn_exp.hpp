#pragma once
// The exp family of runtime/math/: exp, exp2, expm1, sinh, cosh, tanh, for float (correctly
// rounded, round-to-nearest-even, for all 2^32 inputs) and double (faithful, error < 1 ulp).
//
// Method. x = k*ln2/64 + r (exp2: x = k/64 + r/ln2) with k an integer found with the 0x1.8p52
// shifter, |r| <= ln2/128 (1 + 2^-40). Accurate path: ln2/64 = kC1 + kC2 + kC3 and x - k*kC1 is
// exact in one fma (x and k*kC1 are multiples of 2^-60, the result is below 2^-7), r = rh + rl
// is known to 2^-100. Fast path (float inputs; no fma: without -mfma an x86 fma is a library
// call): kF1 has 29 bits, so k*kF1 and x - k*kF1 are exact; r is known to 2^-78.
// exp(x) = 2^(k>>6) * 2^((k&63)/64) * exp(r), with a 64-entry table of 2^(j/64) as
// double-double (1 KiB) and a polynomial for expm1(r).
//
// float fast path (all in double): expm1(r) = r + r^2 q(r), q a near-minimax (Chebyshev) fit:
// degree 2 for exp/exp2/cosh (|exp(r) - 1 - r - r^2 q| < 2^-46.5), degree 3 for expm1/sinh/tanh
// (relative error of expm1(r) < 2^-50.1). With the table's 2^-53 (double-double where a
// cancellation s - 1 would amplify it) and a few roundings of 2^-53 each, the double d
// is within 2^-46.2 (relative) of the exact value for exp/exp2/cosh, within 2^-49 for
// expm1 (s - 1 + sl + s*p: |s*p| <= 1.01 |result| when k != 0), sinh = (u + u/(1+u))/2 and
// tanh = u/(u+2) (both terms of one sign, u = expm1, so relative errors do not grow).
// Rounding test: we use eps = 2^-45 > every bound above. For a result in float's normal range,
// |d - exact| <= 2^-45 |d| < 2^8 ulps of d (d's ulp is 2^-52 of its binade), so d decides the
// float rounding unless its low 29 significand bits are within 256 of 0x10000000 (the float
// midpoint); for a result in float's subnormal range (exp/exp2 only) the test is
// float(d(1-eps)) == float(d(1+eps)). Rounding is monotonic, so when the test passes, the exact
// value, lying in [d(1-eps), d(1+eps)], rounds to float(d). About 1 input in 2^19 fails the test.
// Accurate path (rare): the same reduction with double-double arithmetic (expm1(r) by Taylor to
// degree 8, relative error < 2^-70), the result as a double-double hi + lo, rounded to float
// exactly (float(hi) unless hi is a float midpoint, then the sign of lo decides). The float
// functions were checked against MPFR on all 2^32 inputs (tests/bench/bench_math_exhaustive),
// which is the final proof of their correct rounding. Measured maximum relative errors of d
// (4e5 random inputs each against MPFR): exp/exp2/cosh 2^-46.5, expm1/sinh/tanh 2^-49.8.
// double functions: the accurate path above rounded once to double (relative error < 2^-70
// before that rounding: < 0.5001 ulp), with the subnormal range rounded in one step (1 + a
// trick) and overflow scaled in two steps; sinh/cosh/tanh combine double-double values.
#include <cstdint>

#include "runtime/math/bits.hpp"
#include "runtime/math/double_double.hpp"
#include "runtime/math/hostdev.hpp"

// the rare accurate paths stay out of line, so that the fast paths need no stack frame
#if defined(__CUDACC__)
#define FXL_EXP_COLD __noinline__
#elif defined(__GNUC__)
#define FXL_EXP_COLD __attribute__((noinline))
#else
#define FXL_EXP_COLD
#endif

namespace fxl::math {
namespace detail_exp {

using dd::DD;
using dd::fastTwoSum;
using dd::twoSum;

// 2^(j/64) = T[2j] + T[2j+1], j = 0..63
FXL_HD inline const double* table()
{
    static constexpr double T[128] = {0x1.0000000000000p+0, 0.0,
                                      0x1.02c9a3e778061p+0, -0x1.19083535b085dp-56,
                                      0x1.059b0d3158574p+0, 0x1.d73e2a475b465p-55,
                                      0x1.0874518759bc8p+0, 0x1.186be4bb284ffp-57,
                                      0x1.0b5586cf9890fp+0, 0x1.8a62e4adc610bp-54,
                                      0x1.0e3ec32d3d1a2p+0, 0x1.03a1727c57b53p-59,
                                      0x1.11301d0125b51p+0, -0x1.6c51039449b3ap-54,
                                      0x1.1429aaea92de0p+0, -0x1.32fbf9af1369ep-54,
                                      0x1.172b83c7d517bp+0, -0x1.19041b9d78a76p-55,
                                      0x1.1a35beb6fcb75p+0, 0x1.e5b4c7b4968e4p-55,
                                      0x1.1d4873168b9aap+0, 0x1.e016e00a2643cp-54,
                                      0x1.2063b88628cd6p+0, 0x1.dc775814a8495p-55,
                                      0x1.2387a6e756238p+0, 0x1.9b07eb6c70573p-54,
                                      0x1.26b4565e27cddp+0, 0x1.2bd339940e9d9p-55,
                                      0x1.29e9df51fdee1p+0, 0x1.612e8afad1255p-55,
                                      0x1.2d285a6e4030bp+0, 0x1.0024754db41d5p-54,
                                      0x1.306fe0a31b715p+0, 0x1.6f46ad23182e4p-55,
                                      0x1.33c08b26416ffp+0, 0x1.32721843659a6p-54,
                                      0x1.371a7373aa9cbp+0, -0x1.63aeabf42eae2p-54,
                                      0x1.3a7db34e59ff7p+0, -0x1.5e436d661f5e3p-56,
                                      0x1.3dea64c123422p+0, 0x1.ada0911f09ebcp-55,
                                      0x1.4160a21f72e2ap+0, -0x1.ef3691c309278p-58,
                                      0x1.44e086061892dp+0, 0x1.89b7a04ef80d0p-59,
                                      0x1.486a2b5c13cd0p+0, 0x1.3c1a3b69062f0p-56,
                                      0x1.4bfdad5362a27p+0, 0x1.d4397afec42e2p-56,
                                      0x1.4f9b2769d2ca7p+0, -0x1.4b309d25957e3p-54,
                                      0x1.5342b569d4f82p+0, -0x1.07abe1db13cadp-55,
                                      0x1.56f4736b527dap+0, 0x1.9bb2c011d93adp-54,
                                      0x1.5ab07dd485429p+0, 0x1.6324c054647adp-54,
                                      0x1.5e76f15ad2148p+0, 0x1.ba6f93080e65ep-54,
                                      0x1.6247eb03a5585p+0, -0x1.383c17e40b497p-54,
                                      0x1.6623882552225p+0, -0x1.bb60987591c34p-54,
                                      0x1.6a09e667f3bcdp+0, -0x1.bdd3413b26456p-54,
                                      0x1.6dfb23c651a2fp+0, -0x1.bbe3a683c88abp-57,
                                      0x1.71f75e8ec5f74p+0, -0x1.16e4786887a99p-55,
                                      0x1.75feb564267c9p+0, -0x1.0245957316dd3p-54,
                                      0x1.7a11473eb0187p+0, -0x1.41577ee04992fp-55,
                                      0x1.7e2f336cf4e62p+0, 0x1.05d02ba15797ep-56,
                                      0x1.82589994cce13p+0, -0x1.d4c1dd41532d8p-54,
                                      0x1.868d99b4492edp+0, -0x1.fc6f89bd4f6bap-54,
                                      0x1.8ace5422aa0dbp+0, 0x1.6e9f156864b27p-54,
                                      0x1.8f1ae99157736p+0, 0x1.5cc13a2e3976cp-55,
                                      0x1.93737b0cdc5e5p+0, -0x1.75fc781b57ebcp-57,
                                      0x1.97d829fde4e50p+0, -0x1.d185b7c1b85d1p-54,
                                      0x1.9c49182a3f090p+0, 0x1.c7c46b071f2bep-56,
                                      0x1.a0c667b5de565p+0, -0x1.359495d1cd533p-54,
                                      0x1.a5503b23e255dp+0, -0x1.d2f6edb8d41e1p-54,
                                      0x1.a9e6b5579fdbfp+0, 0x1.0fac90ef7fd31p-54,
                                      0x1.ae89f995ad3adp+0, 0x1.7a1cd345dcc81p-54,
                                      0x1.b33a2b84f15fbp+0, -0x1.2805e3084d708p-57,
                                      0x1.b7f76f2fb5e47p+0, -0x1.5584f7e54ac3bp-56,
                                      0x1.bcc1e904bc1d2p+0, 0x1.23dd07a2d9e84p-55,
                                      0x1.c199bdd85529cp+0, 0x1.11065895048ddp-55,
                                      0x1.c67f12e57d14bp+0, 0x1.2884dff483cadp-54,
                                      0x1.cb720dcef9069p+0, 0x1.503cbd1e949dbp-56,
                                      0x1.d072d4a07897cp+0, -0x1.cbc3743797a9cp-54,
                                      0x1.d5818dcfba487p+0, 0x1.2ed02d75b3707p-55,
                                      0x1.da9e603db3285p+0, 0x1.c2300696db532p-54,
                                      0x1.dfc97337b9b5fp+0, -0x1.1a5cd4f184b5cp-54,
                                      0x1.e502ee78b3ff6p+0, 0x1.39e8980a9cc8fp-55,
                                      0x1.ea4afa2a490dap+0, -0x1.e9c23179c2893p-54,
                                      0x1.efa1bee615a27p+0, 0x1.dc7f486a4b6b0p-54,
                                      0x1.f50765b6e4540p+0, 0x1.9d3e12dd8a18bp-54,
                                      0x1.fa7c1819e90d8p+0, 0x1.74853f3a5931ep-55};
    return T;
}

constexpr double kShift = 0x1.8p52;
constexpr double kInvLn2_64 = 0x1.71547652b82fep+6;  // 64/ln2
constexpr double kC1 = 0x1.62e42fefa39efp-7;  // ln2/64 = kC1 + kC2 + kC3
constexpr double kC2 = 0x1.abc9e3b39803fp-62;
constexpr double kC3 = 0x1.7b57a079a1934p-117;
constexpr double kLn2Hi = 0x1.62e42fefa39efp-1;
constexpr double kLn2Lo = 0x1.abc9e3b39803fp-56;
constexpr double kEps = 0x1p-45;  // bound on the fast paths' relative error (see above)

FXL_HD inline DD ddAdd(DD a, DD b)
{
    const DD s = twoSum(a.hi, b.hi);
    return fastTwoSum(s.hi, s.lo + (a.lo + b.lo));
}
// a / b for double-doubles (relative error ~2^-100)
FXL_HD inline DD ddDiv(DD a, DD b)
{
    const double q0 = a.hi / b.hi;
    const double rem = fma(-q0, b.hi, a.hi) + (a.lo - q0 * b.lo);
    return fastTwoSum(q0, rem / b.hi);
}
FXL_HD inline double pow2(int m)  // 2^m, -1022 <= m <= 1023
{
    return doubleFromBits(static_cast<uint64_t>(1023 + m) << 52);
}
FXL_HD inline DD scale(DD v, int m) { return {v.hi * pow2(m), v.lo * pow2(m)}; }

// k and r = x - k ln2/64 as rh + rl (|x| <= 750)
FXL_HD inline int reduceE(double x, double& rh, double& rl)
{
    const double t = fma(x, kInvLn2_64, kShift);
    const double kd = t - kShift;
    const int k = static_cast<int32_t>(static_cast<uint32_t>(bitsOf(t)));
    const double a = fma(-kd, kC1, x);  // exact
    const double pm = kd * kC2;
    const double pe = fma(kd, kC2, -pm);
    const DD s = twoSum(a, -pm);
    rh = s.hi;
    rl = (s.lo - pe) - kd * kC3;
    return k;
}
// k and r = (x - k/64) ln2 as rh + rl (|x| <= 1100)
FXL_HD inline int reduce2(double x, double& rh, double& rl)
{
    const double t = x * 64.0 + kShift;
    const double kd = t - kShift;
    const int k = static_cast<int32_t>(static_cast<uint32_t>(bitsOf(t)));
    const double r = x - kd * 0x1p-6;  // exact
    rh = r * kLn2Hi;
    rl = fma(r, kLn2Hi, -rh) + r * kLn2Lo;
    return k;
}
// expm1(rh + rl) for |rh| <= 0.0055, as a double-double (relative error < 2^-70)
FXL_HD inline DD expm1Red(double rh, double rl)
{
    const double r2h = rh * rh;
    const double r2l = fma(rh, rh, -r2h);
    const double q = 0x1.5555555555555p-3
        + rh
            * (0x1.5555555555555p-5
               + rh
                   * (0x1.1111111111111p-7
                      + rh * (0x1.6c16c16c16c17p-10 + rh * (0x1.a01a01a01a01ap-13 + rh * 0x1.a01a01a01a01ap-16))));
    const double t = (r2h * rh) * q;
    const DD h = fastTwoSum(rh, 0.5 * r2h);
    const double lo = h.lo + (0.5 * r2l + (t + rl * (1.0 + rh)));
    return fastTwoSum(h.hi, lo);
}
// 2^((k&63)/64) (1 + P), unscaled (in [0.99, 2.02])
FXL_HD inline DD expFromParts(int k, DD P)
{
    const double* T = table();
    const double th = T[2 * (k & 63)], tl = T[2 * (k & 63) + 1];
    const double ch = th * P.hi;
    const double cl = fma(th, P.hi, -ch);
    const DD h = fastTwoSum(th, ch);
    const double lo = h.lo + (cl + (th * P.lo + tl * (1.0 + P.hi)));
    return fastTwoSum(h.hi, lo);
}
// 2^(k>>6) 2^((k&63)/64) (1 + P) - 1, for -60 <= k>>6 <= 1000
FXL_HD inline DD expm1FromParts(int k, DD P)
{
    if (k == 0) return P;
    const double* T = table();
    const double sc = pow2(k >> 6);
    const double a = T[2 * (k & 63)] * sc, b = T[2 * (k & 63) + 1] * sc;
    const double ch = a * P.hi;
    const double cl = fma(a, P.hi, -ch);
    const DD s = twoSum(a, -1.0);
    const DD u = twoSum(s.hi, ch);
    const double lo = (s.lo + u.lo) + (cl + (a * P.lo + b * (1.0 + P.hi)));
    return fastTwoSum(u.hi, lo);
}
// exp(x) as a double-double, for |x| <= 700 (the result scaled by 2^(k>>6), normal)
FXL_HD inline DD expDD(double x)
{
    double rh, rl;
    const int k = reduceE(x, rh, rl);
    return scale(expFromParts(k, expm1Red(rh, rl)), k >> 6);
}
// expm1(x) as a double-double, for -40 <= x <= 700
FXL_HD inline DD expm1DD(double x)
{
    double rh, rl;
    const int k = reduceE(x, rh, rl);
    return expm1FromParts(k, expm1Red(rh, rl));
}

// round hi + lo (|lo| <= ulp(hi)/2) to the nearest float, ties to even, subnormals included
FXL_HD inline float roundToFloat(DD v)
{
    const float f = static_cast<float>(v.hi);
    if (v.lo == 0) return f;
    const double a = fabs(v.hi);
    bool mid;
    if (a >= 0x1p-126)
        mid = (bitsOf(a) & 0x1fffffffull) == 0x10000000ull;
    else {
        const double t = a * 0x1p149;
        mid = t - static_cast<double>(static_cast<int64_t>(t)) == 0.5;
    }
    if (!mid) return f;
    // hi is a float midpoint: move it one double ulp towards the exact value
    const bool up = (v.lo > 0) == (v.hi > 0);
    return static_cast<float>(doubleFromBits(bitsOf(v.hi) + (up ? 1 : static_cast<uint64_t>(-1))));
}

// (hi + lo) 2^m rounded to double (once, also in the subnormal range), v in [0.5, 2.1]
FXL_HD inline double finish(DD v, int m)
{
    if (m >= -1021) {
        const double s = v.hi + v.lo;
        if (m > 1023) return s * pow2(m - 1) * 2.0;
        return s * pow2(m);
    }
    const double e = pow2(m + 1022);
    const double a = v.hi * e, b = v.lo * e;
    if (a >= 1.0) return ((v.hi + v.lo) * e) * 0x1p-1022;
    const DD s = twoSum(1.0, a);
    const double w = s.hi + (s.lo + b);
    return (w - 1.0) * 0x1p-1022;
}

// float fast paths: returns the double d (relative error < kEps) and the float rounding
// of the exact value when the test passes
FXL_HD inline bool decidedNormal(double d)  // |d| in float's normal range (or beyond: overflow)
{
    const uint32_t low = static_cast<uint32_t>(bitsOf(d));
    return ((low + (256u - 0x10000000u)) & 0x1fffffffu) > 512u;
}
FXL_HD inline bool decidedAny(double d)
{
    return static_cast<float>(d * (1.0 + kEps)) == static_cast<float>(d * (1.0 - kEps));
}

// The fast paths use no fma (without -mfma on x86 it is a library call): x - k*kF1 is exact
// (kF1 has 29 bits, k at most 15, x a float: all multiples of 2^-35, the result below 2^-7),
// k*kF2 is rounded (2^-80), ln2/64 - kF1 - kF2 < 2^-95.
constexpr double kF1 = 0x1.62e42ffp-7;
constexpr double kF2 = -0x1.718432a1b0e26p-41;

// exp(x) for a float x in [-104, 89], in double, relative error < 2^-46.2
FXL_HD inline double expFast(double x)
{
    const double t = x * kInvLn2_64 + kShift;
    const double kd = t - kShift;
    const int64_t k = static_cast<int32_t>(static_cast<uint32_t>(bitsOf(t)));
    const double r = (x - kd * kF1) - kd * kF2;
    const double s = doubleFromBits(bitsOf(table()[2 * (k & 63)]) + (static_cast<uint64_t>(k >> 6) << 52));
    const double q = 0x1.0p-1 + r * (0x1.55556dfb54db7p-3 + r * 0x1.555565c3ff8a9p-5);
    const double p = r + (r * r) * q;
    return s + s * p;
}
// 2^x for a float x in [-151, 128]
FXL_HD inline double exp2Fast(double x)
{
    const double t = x * 64.0 + kShift;
    const double kd = t - kShift;
    const int64_t k = static_cast<int32_t>(static_cast<uint32_t>(bitsOf(t)));
    const double r = (x - kd * 0x1p-6) * kLn2Hi;
    const double s = doubleFromBits(bitsOf(table()[2 * (k & 63)]) + (static_cast<uint64_t>(k >> 6) << 52));
    const double q = 0x1.0p-1 + r * (0x1.55556dfb54db7p-3 + r * 0x1.555565c3ff8a9p-5);
    const double p = r + (r * r) * q;
    return s + s * p;
}
// expm1(x) for x a float or twice a float, in [-40, 180], relative error < 2^-49
FXL_HD inline double expm1Fast(double x)
{
    const double t = x * kInvLn2_64 + kShift;
    const double kd = t - kShift;
    const int k = static_cast<int32_t>(static_cast<uint32_t>(bitsOf(t)));
    const double r = (x - kd * kF1) - kd * kF2;
    const double* T = table();
    const double sc = pow2(k >> 6);
    const double s = T[2 * (k & 63)] * sc, sl = T[2 * (k & 63) + 1] * sc;
    const double q =
        0x1.ffffffffff574p-2 + r * (0x1.5555555555252p-3 + r * (0x1.55556b3e385f1p-5 + r * 0x1.11111d9625013p-7));
    const double p = r + (r * r) * q;
    return s * p + ((s - 1.0) + sl);
}

// accurate paths (float results)
FXL_HD inline DD coshDD(double ax)  // ax <= 700
{
    const DD e = expDD(ax);
    const DD q = ddDiv({1.0, 0.0}, e);
    const DD c = ddAdd(e, q);
    return {0.5 * c.hi, 0.5 * c.lo};
}
FXL_HD inline DD tanhDD(double ax)  // ax <= 300
{
    const DD u = expm1DD(2.0 * ax);
    return ddDiv(u, ddAdd(u, {2.0, 0.0}));
}
FXL_HD inline DD sinhDD(double ax)  // ax <= 700
{
    const DD u = expm1DD(ax);
    const DD v = ddDiv(u, ddAdd(u, {1.0, 0.0}));
    const DD s = ddAdd(u, v);
    return {0.5 * s.hi, 0.5 * s.lo};
}
FXL_HD FXL_EXP_COLD inline float expAccurateF(double x)
{
    double rh, rl;
    const int k = reduceE(x, rh, rl);
    return roundToFloat(scale(expFromParts(k, expm1Red(rh, rl)), k >> 6));
}
FXL_HD FXL_EXP_COLD inline float exp2AccurateF(double x)
{
    double rh, rl;
    const int k = reduce2(x, rh, rl);
    return roundToFloat(scale(expFromParts(k, expm1Red(rh, rl)), k >> 6));
}
FXL_HD FXL_EXP_COLD inline float expm1AccurateF(double x) { return roundToFloat(expm1DD(x)); }
FXL_HD FXL_EXP_COLD inline float sinhAccurateF(double ax) { return roundToFloat(sinhDD(ax)); }
FXL_HD FXL_EXP_COLD inline float coshAccurateF(double ax) { return roundToFloat(coshDD(ax)); }
FXL_HD FXL_EXP_COLD inline float tanhAccurateF(double ax) { return roundToFloat(tanhDD(ax)); }
// exp(ax) 2^extra rounded to double, for 0 <= ax <= 712
FXL_HD inline double expScaled(double ax, int extra)
{
    double rh, rl;
    const int k = reduceE(ax, rh, rl);
    return finish(expFromParts(k, expm1Red(rh, rl)), (k >> 6) + extra);
}

}  // namespace detail_exp

// ---------------------------------------------------------------- float
FXL_HD inline float exp(float x)
{
    using namespace detail_exp;
    const double xd = x;
    const uint32_t ax = bitsOf(x) & 0x7fffffffu;
    if (ax >= 0x42ae0000u) {  // |x| >= 87
        if (ax > 0x7f800000u) return canonicalNanF();
        if (x > 89.0f) return floatFromBits(0x7f800000u);
        if (x < -104.0f) return 0.0f;
        const double d = expFast(xd);
        if (x < -87.0f ? decidedAny(d) : decidedNormal(d)) return static_cast<float>(d);
    } else {
        const double d = expFast(xd);
        if (decidedNormal(d)) return static_cast<float>(d);
    }
    return expAccurateF(xd);
}

FXL_HD inline float exp2(float x)
{
    using namespace detail_exp;
    const double xd = x;
    const uint32_t ax = bitsOf(x) & 0x7fffffffu;
    if (ax < 0x33000000u) return 1.0f;  // |x| < 2^-25: 1 + x ln2 rounds to 1
    if (ax >= 0x42fc0000u) {  // |x| >= 126
        if (ax > 0x7f800000u) return canonicalNanF();
        if (x >= 128.0f) return floatFromBits(0x7f800000u);
        if (x <= -150.0f) return 0.0f;
        const double d = exp2Fast(xd);
        if (x < -125.0f ? decidedAny(d) : decidedNormal(d)) return static_cast<float>(d);
    } else {
        const double d = exp2Fast(xd);
        if (decidedNormal(d)) return static_cast<float>(d);
    }
    return exp2AccurateF(xd);
}

FXL_HD inline float expm1(float x)
{
    using namespace detail_exp;
    const uint32_t ax = bitsOf(x) & 0x7fffffffu;
    if (ax < 0x33000000u) return x;  // |x| < 2^-25 (and +-0): x + x^2/2 rounds to x
    if (ax >= 0x41900000u) {  // |x| >= 18
        if (ax > 0x7f800000u) return canonicalNanF();
        if (x > 89.0f) return floatFromBits(0x7f800000u);
        if (x < 0.0f) return -1.0f;  // e^x < 2^-25: -1 + e^x rounds to -1
    }
    const double xd = x;
    const double d = expm1Fast(xd);
    if (decidedNormal(d)) return static_cast<float>(d);
    return expm1AccurateF(xd);
}

FXL_HD inline float sinh(float x)
{
    using namespace detail_exp;
    const uint32_t ax = bitsOf(x) & 0x7fffffffu;
    if (ax < 0x39000000u) return x;  // |x| < 2^-13: x + x^3/6 rounds to x
    if (ax >= 0x42b40000u) {  // |x| >= 90
        if (ax > 0x7f800000u) return canonicalNanF();
        return copysign(floatFromBits(0x7f800000u), x);
    }
    const double a = floatFromBits(ax);
    const double u = expm1Fast(a);
    const double d = 0.5 * (u + u / (1.0 + u));
    const float f = decidedNormal(d) ? static_cast<float>(d) : sinhAccurateF(a);
    return copysign(f, x);
}

FXL_HD inline float cosh(float x)
{
    using namespace detail_exp;
    const uint32_t ax = bitsOf(x) & 0x7fffffffu;
    if (ax < 0x39800000u) return 1.0f;  // |x| < 2^-12: 1 + x^2/2 rounds to 1
    if (ax >= 0x42b40000u) {  // |x| >= 90
        if (ax > 0x7f800000u) return canonicalNanF();
        return floatFromBits(0x7f800000u);
    }
    const double a = floatFromBits(ax);
    const double e = expFast(a);
    const double d = 0.5 * (e + 1.0 / e);
    if (decidedNormal(d)) return static_cast<float>(d);
    return coshAccurateF(a);
}

FXL_HD inline float tanh(float x)
{
    using namespace detail_exp;
    const uint32_t ax = bitsOf(x) & 0x7fffffffu;
    if (ax < 0x39000000u) return x;  // |x| < 2^-13: x - x^3/3 rounds to x
    if (ax >= 0x41200000u) {  // |x| >= 10: 1 - tanh < 2^-26
        if (ax > 0x7f800000u) return canonicalNanF();
        return copysign(1.0f, x);
    }
    const double a2 = 2.0 * static_cast<double>(floatFromBits(ax));
    const double u = expm1Fast(a2);
    const double d = u / (u + 2.0);
    const float f = decidedNormal(d) ? static_cast<float>(d) : tanhAccurateF(0.5 * a2);
    return copysign(f, x);
}

// ---------------------------------------------------------------- double
FXL_HD inline double exp(double x)
{
    using namespace detail_exp;
    if (isNan(x)) return canonicalNanD();
    if (x > 709.8) return doubleFromBits(0x7ff0000000000000ull);
    if (x < -745.2) return 0.0;
    double rh, rl;
    const int k = reduceE(x, rh, rl);
    return finish(expFromParts(k, expm1Red(rh, rl)), k >> 6);
}

FXL_HD inline double exp2(double x)
{
    using namespace detail_exp;
    if (isNan(x)) return canonicalNanD();
    if (x >= 1024.0) return doubleFromBits(0x7ff0000000000000ull);
    if (x < -1076.0) return 0.0;
    double rh, rl;
    const int k = reduce2(x, rh, rl);
    return finish(expFromParts(k, expm1Red(rh, rl)), k >> 6);
}

FXL_HD inline double expm1(double x)
{
    using namespace detail_exp;
    if (isNan(x)) return canonicalNanD();
    if (fabs(x) < 0x1p-60) return x;
    if (x > 40.0) return exp(x);
    if (x < -40.0) return -1.0;
    const DD v = expm1DD(x);
    return v.hi + v.lo;
}

FXL_HD inline double sinh(double x)
{
    using namespace detail_exp;
    if (isNan(x)) return canonicalNanD();
    const double ax = fabs(x);
    if (ax < 0x1p-28) return x;
    if (ax > 711.0) return copysign(doubleFromBits(0x7ff0000000000000ull), x);
    if (ax > 40.0) return copysign(expScaled(ax, -1), x);  // e^-2ax < 2^-115
    const DD v = sinhDD(ax);
    return copysign(v.hi + v.lo, x);
}

FXL_HD inline double cosh(double x)
{
    using namespace detail_exp;
    if (isNan(x)) return canonicalNanD();
    const double ax = fabs(x);
    if (ax < 0x1p-27) return 1.0;
    if (ax > 711.0) return doubleFromBits(0x7ff0000000000000ull);
    if (ax > 40.0) return expScaled(ax, -1);
    const DD v = coshDD(ax);
    return v.hi + v.lo;
}

FXL_HD inline double tanh(double x)
{
    using namespace detail_exp;
    if (isNan(x)) return canonicalNanD();
    const double ax = fabs(x);
    if (ax < 0x1p-28) return x;
    if (ax > 22.0) return copysign(1.0, x);
    const DD v = tanhDD(ax);
    return copysign(v.hi + v.lo, x);
}

}  // namespace fxl::math

#undef FXL_EXP_COLD
