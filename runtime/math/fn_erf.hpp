#pragma once
// erf and erfc, float32 correctly rounded and float64 faithful, with IEEE operations only (see
// hostdev.hpp / bits.hpp): the same bits on the host and on a GPU.
//
// float32 fast path (everything in double):
//   |x| < 1/2:        erf(x) = x * P(x^2), P of degree 8 fitted (Chebyshev nodes) to erf(sqrt s)/sqrt s
//                     on s in [0, 1/4] (relative error 2^-55.4); erfc(x) = 1 - x * P(x^2).
//   1/2 <= |x| < 12:  erfc(|x|) = exp(-x^2) * erfcx(|x|). x^2 is exact in double (24-bit x). exp(-y)
//                     = 2^(-k/64) * exp(-r), k = round(64 y / ln2), r = y - k ln2/64 with ln2/64 split
//                     in a 32-bit head (k*head exact, y - k*head exact) and a tail, |r| <= 0.0055,
//                     exp(-r) by its Taylor polynomial of degree 5 (error < 2^-54.7), 2^(-j/64) from
//                     a 64-entry table (each correctly rounded). erfcx = exp(x^2) erfc(x) is fitted
//                     on 18 pieces (4 per binade from 1/2 up to 8, then [8,10), [10,12)) by polynomials
//                     of degree 11 in x - centre (relative error 2^-49.7, measured on 200 points per
//                     piece in 150-bit arithmetic with the coefficients rounded to double).
//                     erf(x) = 1 - erfc(|x|) (erfc <= 0.48 there, so the error stays relative);
//                     erfc(x) = 2 - erfc(|x|) for x < 0.
//   Error of the fast result d: polynomial errors above plus at most ~12 roundings of 2^-53
//   (products, Horner/Estrin steps, table entries) for a relative error below 2^-48.5 everywhere.
//   Rounding test: with eps = 2^-46 (5x that bound), the exact value lies in [d(1-eps), d(1+eps)]
//   (up to the 2^-53 of computing those two ends, far inside the margin); when both ends round to
//   the same float, so does the exact value (rounding is monotonic), and that float is returned.
//   This includes subnormal results, which the double -> float conversion rounds directly.
// float32 accurate path (about 2^-21 of the inputs), in double-double:
//   erf(x) = 2x/sqrt(pi) e^(-x^2) sum_n (2x^2)^n / (2n+1)!!  (positive terms, |x| < 4),
//   erfc(x) = e^(-x^2)/sqrt(pi) / (x + (1/2)/(x + 1/(x + (3/2)/(x + ...)))) (continued fraction,
//   x >= 4, 200/x + 10 levels: truncation error below 2^-78 checked in 200-bit arithmetic),
//   erfc = 1 -/+ erf for |x| < 4 (loses at most 26 bits of the ~90). e^(-y) for a double-double y:
//   3-part ln2 reduction, Taylor of degree 9 on r/256, squared 8 times; relative error ~2^-90.
//   A double-double is rounded to float through round-to-odd in double (no double rounding). The
//   exhaustive sweep of all 2^32 inputs (tests/bench/bench_math_exhaustive) confirms both floats.
// float64 (faithful): the same splitting, with double-double where it matters:
//   |x| < 1/2: x * P(x^2), P of degree 9 (2^-65.2) with its constant in double-double; the
//   products x * P0 and x * x^2 exact (fma), so only the rounding of (P(s) - P0)/s (< 9% of the
//   value) and of the final sum remain: error < 0.6 ulp.
//   1/2 <= x < 26.5: erfc = exp(-x^2) erfcx(x) as a double-double: x^2 = hh + hl exactly (fma),
//   exp as above with a double-double 2^(-j/64) table and degree-6 Taylor (2^-64.8); erfcx on 23
//   pieces of degree 14 (2^-61.8) with a double-double constant and c1*t exact (fma), the rest
//   (< 1/32 of the value) in double; measured relative error of the double-double below
//   0.08 * 2^-53, so the rounded result is within ~0.6 ulp. erf = 1 - erfc and erfc(-x) = 2 - erfc
//   round the double-double once. x >= 26.5 (subnormal erfc): the accurate path above, rounded
//   once to the subnormal grid (scaleDown); tiny erf likewise (|x| < 2^-1000).
#include <cstdint>

#include "runtime/math/bits.hpp"
#include "runtime/math/double_double.hpp"
#include "runtime/math/hostdev.hpp"

namespace fxl::math {
namespace detail_erf {

using dd::DD;
using dd::fastTwoSum;
using dd::twoSum;

FXL_HD inline DD add(DD a, DD b)
{
    const DD s = twoSum(a.hi, b.hi);
    const DD t = twoSum(a.lo, b.lo);
    DD r = fastTwoSum(s.hi, s.lo + t.hi);
    return fastTwoSum(r.hi, r.lo + t.lo);
}
FXL_HD inline DD mul(DD a, DD b)
{
    const double p = a.hi * b.hi;
    double e = math::fma(a.hi, b.hi, -p);
    e = math::fma(a.hi, b.lo, e);
    e = math::fma(a.lo, b.hi, e);
    return fastTwoSum(p, e);
}
FXL_HD inline DD mulD(DD a, double b)
{
    const double p = a.hi * b;
    double e = math::fma(a.hi, b, -p);
    e = math::fma(a.lo, b, e);
    return fastTwoSum(p, e);
}
FXL_HD inline DD divD(DD a, double b)
{
    const double q1 = a.hi / b;
    const double r = math::fma(-q1, b, a.hi) + a.lo;
    return fastTwoSum(q1, r / b);
}
FXL_HD inline DD div(DD a, DD b)
{
    const double q1 = a.hi / b.hi;
    DD r = add(a, mulD(DD{-b.hi, -b.lo}, q1));
    const double q2 = r.hi / b.hi;
    r = add(r, mulD(DD{-b.hi, -b.lo}, q2));
    const double q3 = r.hi / b.hi;
    const DD q = fastTwoSum(q1, q2);
    return fastTwoSum(q.hi, q.lo + q3);
}

// e^(-y) = (m.hi + m.lo) * 2^-k for 0 <= y < 2^11 (double-double y), relative error ~2^-90
FXL_HD inline DD expNeg(DD y, int& k)
{
    constexpr double kInvLn2 = 0x1.71547652b82fep+0;
    constexpr double kL0 = 0x1.62e42fefa2000p-1, kL1 = 0x1.9ef35793c6000p-41, kL2 = 0x1.673007e5ed5e8p-81;
    constexpr double kShift = 0x1.8p52;
    const double kd = (y.hi * kInvLn2 + kShift) - kShift;
    k = static_cast<int>(kd);
    const double r0 = y.hi - kd * kL0;  // exact (see the reduction note in the header comment)
    DD r = twoSum(r0, -kd * kL1);  // kd * kL1 exact (40-bit kL1, 11-bit kd)
    r = fastTwoSum(r.hi, r.lo + (y.lo - kd * kL2));
    // e^(-r) = (e^(-s))^256, s = r / 256
    const DD ms{-r.hi * 0x1p-8, -r.lo * 0x1p-8};
    DD p{1.0, 0.0};
    for (int n = 9; n >= 1; --n) p = add(DD{1.0, 0.0}, divD(mul(ms, p), static_cast<double>(n)));
    for (int i = 0; i < 8; ++i) p = mul(p, p);
    return p;
}

// x * x as an exact double-double
FXL_HD inline DD square(double x)
{
    const double h = x * x;
    return {h, math::fma(x, x, -h)};
}

// erf(x) for 0 <= x < 4, double-double
FXL_HD inline DD erfSeries(double x)
{
    constexpr DD k2OverSqrtPi{0x1.20dd750429b6dp+0, 0x1.1ae3a914fed80p-56};
    const DD x2 = square(x);
    const DD twoX2{2 * x2.hi, 2 * x2.lo};
    DD t{1.0, 0.0}, s{1.0, 0.0};
    for (int n = 1; n < 200; ++n) {
        t = divD(mul(t, twoX2), static_cast<double>(2 * n + 1));
        s = add(s, t);
        if (t.hi < s.hi * 0x1p-106) break;
    }
    int k = 0;
    const DD e = expNeg(x2, k);
    DD r = mulD(mul(mul(e, s), k2OverSqrtPi), x);
    const double sc = scaleByPow2Normal(1.0, -k);  // k <= 23 here
    return {r.hi * sc, r.lo * sc};
}

// erfc(x) for x >= 4 as (m.hi + m.lo) * 2^-k, double-double m
FXL_HD inline DD erfcFraction(double x, int& k)
{
    constexpr DD kInvSqrtPi{0x1.20dd750429b6dp-1, 0x1.1ae3a914fed80p-57};
    const int n = static_cast<int>(200.0 / x) + 10;
    DD t{x, 0.0};
    for (int i = n; i >= 1; --i) t = add(DD{x, 0.0}, div(DD{0.5 * i, 0.0}, t));
    const DD e = expNeg(square(x), k);
    return div(mul(e, kInvSqrtPi), t);
}

// erfc(x) for any finite x with -6 < x < 28, as m * 2^-k
FXL_HD inline DD erfcAccurate(double x, int& k)
{
    if (x >= 4) return erfcFraction(x, k);
    if (x <= -4) {
        const DD m = erfcFraction(-x, k);
        const double sc = scaleByPow2Normal(1.0, -k);  // k <= 52
        k = 0;
        return add(DD{2.0, 0.0}, DD{-m.hi * sc, -m.lo * sc});
    }
    k = 0;
    const DD e = erfSeries(math::fabs(x));
    if (x < 0) return add(DD{1.0, 0.0}, e);
    return add(DD{1.0, 0.0}, DD{-e.hi, -e.lo});
}

// erf(x) for 0 <= x < 6
FXL_HD inline DD erfAccurate(double x)
{
    if (x < 4) return erfSeries(x);
    int k = 0;
    const DD m = erfcFraction(x, k);
    const double sc = scaleByPow2Normal(1.0, -k);
    return add(DD{1.0, 0.0}, DD{-m.hi * sc, -m.lo * sc});
}

// (m.hi + m.lo) * 2^-k for m.hi >= 2^-100 and 0 <= k <= 1200: within 0.5 ulp + 2^-52 |m.lo| when
// the result is normal, correctly rounded (the sum m.hi + m.lo is) when it is subnormal
FXL_HD inline double scaleDown(DD m, int k)
{
    const double v = m.hi + m.lo;
    const int ev = static_cast<int>((bitsOf(v) >> 52) & 0x7ff) - 1023;
    const int k1 = k > 600 ? 600 : k;
    const double s1 = scaleByPow2Normal(1.0, -k1), s2 = scaleByPow2Normal(1.0, -(k - k1));
    if (ev - k >= -1021) return (v * s1) * s2;  // exact
    // subnormal: round m.hi once, then correct by the exact residual against half the 2^-1074 grid
    const double r0 = (m.hi * s1) * s2;
    const double back = (r0 * scaleByPow2Normal(1.0, k - k1)) * scaleByPow2Normal(1.0, k1);  // exact
    const double e = (m.hi - back) + m.lo;
    const double half = scaleByPow2Normal(1.0, k - 1075);
    const double g = doubleFromBits(uint64_t{1});
    if (e > half) return r0 + g;
    if (e < -half) return r0 - g;
    return r0;
}

// hi + lo rounded to odd in double, then to float: the correctly rounded float (the double keeps
// 29 more bits, so an odd double is never a float rounding boundary). hi, lo normal or zero.
FXL_HD inline float roundToFloat(DD v)
{
    uint64_t b = bitsOf(v.hi);
    if (v.lo != 0 && (b & 1) == 0) {
        const bool away = (v.lo > 0) == (v.hi > 0);
        b = away ? b + 1 : b - 1;
    }
    return static_cast<float>(doubleFromBits(b));
}

// the float of d when [d(1-2^-46), d(1+2^-46)] rounds to one float; ok = false otherwise
FXL_HD inline float roundIfDecided(double d, bool& ok)
{
    const double e = d * 0x1p-46;
    const float a = static_cast<float>(d - e);
    const float b = static_cast<float>(d + e);
    ok = a == b;
    return static_cast<float>(d);  // the same float when ok (keeps the sign of a zero)
}

// erf(x)/x on |x| < 1/2, as a polynomial in s = x^2
FXL_HD inline double smallPoly(double s)
{
    static constexpr double P[9] = {
        0x1.20dd750429b6dp+0,  -0x1.812746b0379b5p-2,  0x1.ce2f21a03d814p-4,
        -0x1.b82ce30f2b28fp-6, 0x1.565bcbf8e0365p-8,   -0x1.c02d4f6e4921ap-11,
        0x1.f98db34e8872ep-14, -0x1.f224dfc5409afp-17, 0x1.8b4b60851826bp-20,
    };
    const double s2 = s * s;
    const double s4 = s2 * s2;
    const double a = P[0] + P[1] * s;
    const double b = P[2] + P[3] * s;
    const double c = P[4] + P[5] * s;
    const double d = P[6] + P[7] * s;
    return (a + b * s2) + (c + d * s2 + P[8] * s4) * s4;
}

// erfc(x) for 1/2 <= x < 12 (the fast double evaluation)
FXL_HD inline double erfcFast(double x)
{
    static constexpr double R[18 * 12] = {
        // [0.5, 0.625) c=0.5625
        0x1.2b84f076e14fbp-1,
        -0x1.e18ab7052be7fp-2,
        0x1.482bd9fad9ed0p-2,
        -0x1.8bed65e01718dp-3,
        0x1.b1a22aa7a6b26p-4,
        -0x1.b659430180280p-5,
        0x1.9dcc1517152e0p-6,
        -0x1.6ff6b3863eeadp-7,
        0x1.364e9d2c77174p-8,
        -0x1.f300e4c1e8f36p-10,
        0x1.80cf8aef5fe4bp-11,
        -0x1.1cbb7ebfcb00ep-12,
        // [0.625, 0.75) c=0.6875
        0x1.0fce4e96dd619p-1,
        -0x1.97fe7bf1c60f0p-2,
        0x1.071da7f78298dp-2,
        -0x1.2ecd75f4d05d4p-3,
        0x1.3e0e0ed6b5d99p-4,
        -0x1.358dce2b360d0p-5,
        0x1.1a31bff6bd164p-6,
        -0x1.e5d3e4ffbbecdp-8,
        0x1.8d6290934985ap-9,
        -0x1.366c5c9bb06c0p-10,
        0x1.d1c47bd469244p-12,
        -0x1.4fb6e705c76dap-13,
        // [0.75, 0.875) c=0.8125
        0x1.f0723ff5acdf9p-2,
        -0x1.5cbc2c216df00p-2,
        0x1.aa32b83507192p-3,
        -0x1.d43ed8ca5d7a1p-4,
        0x1.d7f26045a2233p-5,
        -0x1.ba6d691685a19p-6,
        0x1.859d3cc7d6a7fp-7,
        -0x1.44bd2e2cc1d0cp-8,
        0x1.01b053ac143d7p-9,
        -0x1.87346a3836c34p-11,
        0x1.1d8f226ba7850p-12,
        -0x1.910b7c3150f8dp-14,
        // [0.875, 1.0) c=0.9375
        0x1.c7f81382721efp-2,
        -0x1.2c84af7c10e14p-2,
        0x1.5c775dfc44978p-3,
        -0x1.6dcc9e7a2c9b5p-4,
        0x1.61fee765ff4cfp-5,
        -0x1.3fc8366a2e34bp-6,
        0x1.102167dc10804p-7,
        -0x1.b75cb1ae11f3dp-9,
        0x1.524f4b7f4dfadp-10,
        -0x1.f329ae760fd5ap-12,
        0x1.6294779a43ddfp-13,
        -0x1.e538569621ee6p-15,
        // [1.0, 1.25) c=1.125
        0x1.9531e09b149b5p-2,
        -0x1.e78b356770fbbp-3,
        0x1.05e72521ca1c2p-3,
        -0x1.01343a2c9226bp-4,
        0x1.d4e711a2d0455p-6,
        -0x1.910a5d7c00f6cp-7,
        0x1.446c51a829651p-8,
        -0x1.f38c6d55f40a9p-10,
        0x1.6fd8a97a04b8cp-11,
        -0x1.041d9ce4bb005p-12,
        0x1.6433d82ef6818p-14,
        -0x1.d4dcfd47fa66dp-16,
        // [1.25, 1.5) c=1.375
        0x1.5f88f52f3c76bp-2,
        -0x1.797a639d8129dp-3,
        0x1.701342cbcea83p-4,
        -0x1.4bcdb9d9083c7p-5,
        0x1.17eba60d2c408p-6,
        -0x1.bdf24bcca59c2p-8,
        0x1.51aba02dd5310p-9,
        -0x1.e8ae68ede2684p-11,
        0x1.535e9b55f3db8p-12,
        -0x1.c5f98c4f65df7p-14,
        0x1.269df07fc7eafp-15,
        -0x1.7091cf82bb3c6p-17,
        // [1.5, 1.75) c=1.625
        0x1.3583f6644327bp-2,
        -0x1.2b11e6959934cp-3,
        0x1.0a15ac2adab38p-4,
        -0x1.ba018e6428106p-6,
        0x1.5a142948a5355p-7,
        -0x1.014eae282dc31p-8,
        0x1.6d609f9101e1bp-10,
        -0x1.f1b43d65e5c08p-12,
        0x1.465e39594f179p-13,
        -0x1.9d6181af728c5p-15,
        0x1.fd09750591e0ep-17,
        -0x1.2edb7d4c6e7adp-18,
        // [1.75, 2.0) c=1.875
        0x1.13e5743b60480p-2,
        -0x1.e36580c7f734ap-4,
        0x1.8a6efeed233afp-5,
        -0x1.2ef92f6f10798p-6,
        0x1.b99589d40b789p-8,
        -0x1.33237c3ee8d56p-9,
        0x1.99b60e622a7f2p-11,
        -0x1.070e0cc6bb470p-12,
        0x1.46314bfe8f854p-14,
        -0x1.87a59c56f6b69p-16,
        0x1.ca06226a3bae1p-18,
        -0x1.036d098c5690ep-19,
        // [2.0, 2.5) c=2.25
        0x1.d94446d627932p-3,
        -0x1.6a70d2bb37411p-4,
        0x1.0615670e25d55p-5,
        -0x1.6883f9919a458p-7,
        0x1.da59555fe35bcp-9,
        -0x1.2bd251ba232acp-10,
        0x1.6d774842f8f1ap-12,
        -0x1.aed7f03fc8de0p-14,
        0x1.ec6eb1bbb58cap-16,
        -0x1.11761a2da8b06p-17,
        0x1.2b7900e4aae7bp-19,
        -0x1.3b896a370da0cp-21,
        // [2.5, 3.0) c=2.75
        0x1.8c9eb68ff27d7p-3,
        -0x1.0305781330099p-4,
        0x1.43b98bac83954p-6,
        -0x1.84e9ab30e6bccp-8,
        0x1.c2c72fd6495f5p-10,
        -0x1.f99e41ebe3c1bp-12,
        0x1.131bb33a8def3p-13,
        -0x1.2312b40e1ef96p-15,
        0x1.2bf7cae6b52abp-17,
        -0x1.2d9fe0478b311p-19,
        0x1.2b802e9188af3p-21,
        -0x1.1fba2be3b3bd0p-23,
        // [3.0, 3.5) c=3.25
        0x1.54a7a08d4bb45p-3,
        -0x1.82a8522b868a1p-5,
        0x1.a7eddc9ee64b6p-7,
        -0x1.c24b49c47a33ep-9,
        0x1.d0858579aeb98p-11,
        -0x1.d25ebba16b3fdp-13,
        0x1.c882f1e4481a1p-15,
        -0x1.b45d03dc92253p-17,
        0x1.97da1805f6883p-19,
        -0x1.7539cd3d72e28p-21,
        0x1.51c001d4427dbp-23,
        -0x1.2917b68430b1bp-25,
        // [3.5, 4.0) c=3.75
        0x1.2a2af19c14930p-3,
        -0x1.2aa6503acda11p-5,
        0x1.22f0664f3cc1fp-7,
        -0x1.1434ae05873c9p-9,
        0x1.fff032a0a7b41p-12,
        -0x1.cfcdea1af391ap-14,
        0x1.9b50d1c080b0cp-16,
        -0x1.65778b67e246fp-18,
        0x1.30c13051804dap-20,
        -0x1.fe3b6332af115p-23,
        0x1.a6ed98691355bp-25,
        -0x1.5613bc2a260d8p-27,
        // [4.0, 5.0) c=4.5
        0x1.f5b2a049cf4c3p-4,
        -0x1.aa3eb6a946f7cp-6,
        0x1.62c12cb5fa895p-8,
        -0x1.218ed930b477ap-10,
        0x1.d00785e04ccdep-13,
        -0x1.6d54b126cc0b3p-15,
        0x1.1ad6b7069c64bp-17,
        -0x1.aef9061493bc0p-20,
        0x1.4341e267b5476p-22,
        -0x1.ddee96646ddfbp-25,
        0x1.64d782ea43f3fp-27,
        -0x1.005ee01e24542p-29,
        // [5.0, 6.0) c=5.5
        0x1.9d8a8f2284f2bp-4,
        -0x1.238ca71b93fc3p-6,
        0x1.95252b932fc0bp-9,
        -0x1.15976ddda440bp-11,
        0x1.774f48226e1a8p-14,
        -0x1.f4e46d1236a24p-17,
        0x1.4a17eb0e029ccp-19,
        -0x1.add7b821d8ef4p-22,
        0x1.1493bfa7dac29p-24,
        -0x1.5ff5072b29380p-27,
        0x1.c317b803a8a2ep-30,
        -0x1.18c362dcf1313p-32,
        // [6.0, 7.0) c=6.5
        0x1.5f75c42e97171p-4,
        -0x1.a6e2cf277a0cbp-7,
        0x1.f75ef7a0fb69fp-10,
        -0x1.28787f0e7f6cdp-12,
        0x1.59b2929565ad5p-15,
        -0x1.8f23fecb3d22fp-18,
        0x1.c871a73913973p-21,
        -0x1.028f496d3a2c0p-23,
        0x1.2240d64f0c156p-26,
        -0x1.42fa23d065768p-29,
        0x1.694ff357d9ff1p-32,
        -0x1.8b219daaf22f4p-35,
        // [7.0, 8.0) c=7.5
        0x1.31742f4d8d4d3p-4,
        -0x1.404455ba9f3bep-7,
        0x1.4d07bba6014cap-10,
        -0x1.5783a27fad30bp-13,
        0x1.5f8a69c9573c8p-16,
        -0x1.64fcbb70d2e67p-19,
        0x1.67ca2e356d885p-22,
        -0x1.67f14f5b91642p-25,
        0x1.657ae87253135p-28,
        -0x1.608a7dd8a0358p-31,
        0x1.5d1a7f21f0ab5p-34,
        -0x1.5384cc445c857p-37,
        // [8.0, 10.0) c=9.0
        0x1.fe6cc4a0f952fp-5,
        -0x1.c046699d77d49p-8,
        0x1.876373f4abc18p-11,
        -0x1.53c131b5d40e7p-14,
        0x1.254380e40f80ep-17,
        -0x1.f77350285f903p-21,
        0x1.adc63b0472b84p-24,
        -0x1.6ce69a4ebcb2cp-27,
        0x1.340c49a47e1c6p-30,
        -0x1.02cd2df747e31p-33,
        0x1.bf05ca526546ep-37,
        -0x1.739a8d2440016p-40,
        // [10.0, 12.0) c=11.0
        0x1.a273c57e476cdp-5,
        -0x1.2ddd3d589bfb0p-8,
        0x1.b1c892387bb33p-12,
        -0x1.3672f0981352fp-15,
        0x1.baa1d9cd730abp-19,
        -0x1.3a555d73108f6p-22,
        0x1.bcbef9aaa0811p-26,
        -0x1.3972960b0a1f6p-29,
        0x1.b8171b0eba367p-33,
        -0x1.33dfad66bbb9dp-36,
        0x1.b713a6122395dp-40,
        -0x1.30e435f9a972dp-43,
    };
    static constexpr double T[64] = {
        0x1.0000000000000p+0, 0x1.fa7c1819e90d8p-1, 0x1.f50765b6e4540p-1, 0x1.efa1bee615a27p-1, 0x1.ea4afa2a490dap-1,
        0x1.e502ee78b3ff6p-1, 0x1.dfc97337b9b5fp-1, 0x1.da9e603db3285p-1, 0x1.d5818dcfba487p-1, 0x1.d072d4a07897cp-1,
        0x1.cb720dcef9069p-1, 0x1.c67f12e57d14bp-1, 0x1.c199bdd85529cp-1, 0x1.bcc1e904bc1d2p-1, 0x1.b7f76f2fb5e47p-1,
        0x1.b33a2b84f15fbp-1, 0x1.ae89f995ad3adp-1, 0x1.a9e6b5579fdbfp-1, 0x1.a5503b23e255dp-1, 0x1.a0c667b5de565p-1,
        0x1.9c49182a3f090p-1, 0x1.97d829fde4e50p-1, 0x1.93737b0cdc5e5p-1, 0x1.8f1ae99157736p-1, 0x1.8ace5422aa0dbp-1,
        0x1.868d99b4492edp-1, 0x1.82589994cce13p-1, 0x1.7e2f336cf4e62p-1, 0x1.7a11473eb0187p-1, 0x1.75feb564267c9p-1,
        0x1.71f75e8ec5f74p-1, 0x1.6dfb23c651a2fp-1, 0x1.6a09e667f3bcdp-1, 0x1.6623882552225p-1, 0x1.6247eb03a5585p-1,
        0x1.5e76f15ad2148p-1, 0x1.5ab07dd485429p-1, 0x1.56f4736b527dap-1, 0x1.5342b569d4f82p-1, 0x1.4f9b2769d2ca7p-1,
        0x1.4bfdad5362a27p-1, 0x1.486a2b5c13cd0p-1, 0x1.44e086061892dp-1, 0x1.4160a21f72e2ap-1, 0x1.3dea64c123422p-1,
        0x1.3a7db34e59ff7p-1, 0x1.371a7373aa9cbp-1, 0x1.33c08b26416ffp-1, 0x1.306fe0a31b715p-1, 0x1.2d285a6e4030bp-1,
        0x1.29e9df51fdee1p-1, 0x1.26b4565e27cddp-1, 0x1.2387a6e756238p-1, 0x1.2063b88628cd6p-1, 0x1.1d4873168b9aap-1,
        0x1.1a35beb6fcb75p-1, 0x1.172b83c7d517bp-1, 0x1.1429aaea92de0p-1, 0x1.11301d0125b51p-1, 0x1.0e3ec32d3d1a2p-1,
        0x1.0b5586cf9890fp-1, 0x1.0874518759bc8p-1, 0x1.059b0d3158574p-1, 0x1.02c9a3e778061p-1,
    };
    constexpr double kInv = 0x1.71547652b82fep+6;  // 64/ln2
    constexpr double kHead = 0x1.62e42fee00000p-7, kTail = 0x1.a39ef35793c76p-39;  // ln2/64
    constexpr double kShift = 0x1.8p52;
    const uint64_t bx = bitsOf(x);
    const int idx = (static_cast<int>(bx >> 52) - 1022) * 4 + static_cast<int>((bx >> 50) & 3);
    const double c = doubleFromBits((bx & 0xfffc000000000000ull) | 0x0002000000000000ull);
    const double t = x - c;
    const double* q = R + 12 * idx;
    const double t2 = t * t;
    const double t4 = t2 * t2;
    const double p0 = (q[0] + q[1] * t) + (q[2] + q[3] * t) * t2;
    const double p1 = (q[4] + q[5] * t) + (q[6] + q[7] * t) * t2;
    const double p2 = (q[8] + q[9] * t) + (q[10] + q[11] * t) * t2;
    const double rx = p0 + (p1 + p2 * t4) * t4;
    // exp(-x^2)
    const double y = x * x;
    const double kd = y * kInv + kShift;
    const int k = static_cast<int>(bitsOf(kd) & 0xffffffffu);
    const double kf = kd - kShift;
    const double r = (y - kf * kHead) - kf * kTail;
    const double r2 = r * r;
    const double er =
        (1.0 - r) + r2 * ((0.5 - r * 0x1.5555555555555p-3) + r2 * (0x1.5555555555555p-5 - r * 0x1.1111111111111p-7));
    return scaleByPow2Normal(T[k & 63] * er * rx, -(k >> 6));
}

// float64 fast evaluation: erfc(x) for 1/2 <= x < 28 as m * 2^-k (m a double-double, relative
// error below 2^-55.5: exp(-x^2) with x^2 a double-double and a 2^(-j/64) table in double-double,
// erfcx from 23 pieces of degree 14 fitted to 2^-61.8 with a double-double constant term)
FXL_HD inline DD erfcFast64(double x, int& k)
{
    static constexpr double R[23 * 16] = {
        // [0.5, 0.625)
        0x1.2b84f076e14fbp-1,
        0x1.b8bd1accf8123p-55,
        -0x1.e18ab7052be7fp-2,
        0x1.482bd9fad9ed0p-2,
        -0x1.8bed65e01718dp-3,
        0x1.b1a22aa7a6dc0p-4,
        -0x1.b65943018044bp-5,
        0x1.9dcc15144e60fp-6,
        -0x1.6ff6b384549eap-7,
        0x1.364eb2971663bp-8,
        -0x1.f301024e7364dp-10,
        0x1.80374a09f9181p-11,
        -0x1.1c526ea8234e3p-12,
        0x1.95aaaba9902dbp-14,
        -0x1.182ae9c31bfc7p-15,
        0x1.7644b18a328d3p-17,
        // [0.625, 0.75)
        0x1.0fce4e96dd619p-1,
        -0x1.7210607953137p-57,
        -0x1.97fe7bf1c60f0p-2,
        0x1.071da7f78298dp-2,
        -0x1.2ecd75f4d05d4p-3,
        0x1.3e0e0ed6b5f18p-4,
        -0x1.358dce2b361d2p-5,
        0x1.1a31bff52474bp-6,
        -0x1.e5d3e4fd95addp-8,
        0x1.8d62a9331d3ebp-9,
        -0x1.366c6d306b039p-10,
        0x1.d1156c47d8bfdp-12,
        -0x1.4f40fe571fbc6p-13,
        0x1.d273f51e2a090p-15,
        -0x1.3a6c7c6ddd754p-16,
        0x1.9a5717c23dca5p-18,
        // [0.75, 0.875)
        0x1.f0723ff5acdf9p-2,
        -0x1.7b669ffa31576p-58,
        -0x1.5cbc2c216df00p-2,
        0x1.aa32b83507192p-3,
        -0x1.d43ed8ca5d7a1p-4,
        0x1.d7f26045a23f1p-5,
        -0x1.ba6d691685b3fp-6,
        0x1.859d3cc5fa92bp-7,
        -0x1.44bd2e2b88ea8p-8,
        0x1.01b062044ad41p-9,
        -0x1.87347d13c73f9p-11,
        0x1.1d292762a4586p-12,
        -0x1.908562e839196p-14,
        0x1.0fbd540209fd3p-15,
        -0x1.6598c2ee828efp-17,
        0x1.c7f4f4733a310p-19,
        // [0.875, 1)
        0x1.c7f81382721efp-2,
        -0x1.3f947ee724dfcp-62,
        -0x1.2c84af7c10e14p-2,
        0x1.5c775dfc44978p-3,
        -0x1.6dcc9e7a2c9b5p-4,
        0x1.61fee765ff5d7p-5,
        -0x1.3fc8366a2e3f4p-6,
        0x1.102167daf7951p-7,
        -0x1.b75cb1aca9733p-9,
        0x1.524f5c6cff97fp-10,
        -0x1.f329c4301121bp-12,
        0x1.621c1d854b178p-13,
        -0x1.e49dd69e2f7d0p-15,
        0x1.40b410eef0cecp-16,
        -0x1.9bffea8aed130p-18,
        0x1.00a66d5118efcp-19,
        // [1, 1.25)
        0x1.9531e09b149b5p-2,
        -0x1.aa513235e9c37p-58,
        -0x1.e78b356770fbbp-3,
        0x1.05e72521ca1b8p-3,
        -0x1.01343a2c92265p-4,
        0x1.d4e711a2df97dp-6,
        -0x1.910a5d7c0a74fp-7,
        0x1.446c5166ccf6bp-8,
        -0x1.f38c6d04f3ad5p-10,
        0x1.6fd9a57ab0516p-11,
        -0x1.041e391b70554p-12,
        0x1.62743c54867d8p-14,
        -0x1.d2b191005da3ep-16,
        0x1.299709067c415p-17,
        -0x1.72482ff57138fp-19,
        0x1.bd959b011bb31p-21,
        // [1.25, 1.5)
        0x1.5f88f52f3c76bp-2,
        -0x1.b7eb97a02d0e7p-57,
        -0x1.797a639d8129dp-3,
        0x1.701342cbcea7bp-4,
        -0x1.4bcdb9d9083c2p-5,
        0x1.17eba60d31fcap-6,
        -0x1.bdf24bccac636p-8,
        0x1.51ab9ffce7498p-9,
        -0x1.e8ae68b40bd86p-11,
        0x1.535f57fdef4bfp-12,
        -0x1.c5fa6b654fc76p-14,
        0x1.254ed21cb0573p-15,
        -0x1.6f05375dc7606p-17,
        0x1.bdb6307acafabp-19,
        -0x1.08656e1942900p-20,
        0x1.2ffe74e740f05p-22,
        // [1.5, 1.75)
        0x1.3583f6644327bp-2,
        -0x1.88eb8ebfdccaep-56,
        -0x1.2b11e6959934cp-3,
        0x1.0a15ac2adab35p-4,
        -0x1.ba018e6428103p-6,
        0x1.5a142948a9b2fp-7,
        -0x1.014eae28304b8p-8,
        0x1.6d609f6ab13bbp-10,
        -0x1.f1b43d3aab633p-12,
        0x1.465ecd15a6148p-13,
        -0x1.9d62286b3c83ep-15,
        0x1.fafc8f8040fc5p-17,
        -0x1.2db3136957f1ap-18,
        0x1.5d22b721946bdp-20,
        -0x1.8b37d99d598e8p-22,
        0x1.b26a77261d01bp-24,
        // [1.75, 2)
        0x1.13e5743b60480p-2,
        0x1.ca1dfca5d5331p-56,
        -0x1.e36580c7f734ap-4,
        0x1.8a6efeed233adp-5,
        -0x1.2ef92f6f10797p-6,
        0x1.b99589d40f23dp-8,
        -0x1.33237c3eeacf6p-9,
        0x1.99b60e42dd5abp-11,
        -0x1.070e0cb5ddd1ep-12,
        0x1.4631c4b0ad990p-14,
        -0x1.87a61e708549fp-16,
        0x1.c85948300d255p-18,
        -0x1.0285bff556249p-19,
        0x1.1d4ed2590fb95p-21,
        -0x1.34621ec6dbd54p-23,
        0x1.44429817e5e64p-25,
        // [2, 2.5)
        0x1.d94446d627932p-3,
        -0x1.a8198a8216449p-58,
        -0x1.6a70d2bb37411p-4,
        0x1.0615670e25a7bp-5,
        -0x1.6883f9919a177p-7,
        0x1.da595561f7d31p-9,
        -0x1.2bd251bb2fe84p-10,
        0x1.6d7743d3b35a3p-12,
        -0x1.aed7ebc558f93p-14,
        0x1.ec773cc51b889p-16,
        -0x1.117a6b9b9f74cp-17,
        0x1.27af477cc6335p-19,
        -0x1.37b2d3e2bafe1p-21,
        0x1.40e119faabcc4p-23,
        -0x1.478772de8066dp-25,
        0x1.428297084d79cp-27,
        // [2.5, 3)
        0x1.8c9eb68ff27d7p-3,
        -0x1.bb4e763c64a35p-57,
        -0x1.0305781330099p-4,
        0x1.43b98bac83823p-6,
        -0x1.84e9ab30e6ab2p-8,
        0x1.c2c72fd72763dp-10,
        -0x1.f99e41ecb124ep-12,
        0x1.131bb16125983p-13,
        -0x1.2312b25805865p-15,
        0x1.2bfb5b0d83f91p-17,
        -0x1.2da32d24fb79ap-19,
        0x1.2856fda52a137p-21,
        -0x1.1ccb30f457aedp-23,
        0x1.0c1223e921938p-25,
        -0x1.f4a74bd173f40p-28,
        0x1.c52907556b237p-30,
        // [3, 3.5)
        0x1.54a7a08d4bb45p-3,
        -0x1.6a0d91336bdc9p-61,
        -0x1.82a8522b868a1p-5,
        0x1.a7eddc9ee6425p-7,
        -0x1.c24b49c47a2c4p-9,
        0x1.d085857a17f32p-11,
        -0x1.d25ebba1c4c85p-13,
        0x1.c882f02381739p-15,
        -0x1.b45d025e9b82ap-17,
        0x1.97dd78d660966p-19,
        -0x1.753cadda71686p-21,
        0x1.4ec0940662f33p-23,
        -0x1.2688f42649504p-25,
        0x1.fcf360e689c4dp-28,
        -0x1.b48194f146c80p-30,
        0x1.6c5a759d1a00ap-32,
        // [3.5, 4)
        0x1.2a2af19c14930p-3,
        -0x1.fa04a06a33f29p-57,
        -0x1.2aa6503acda11p-5,
        0x1.22f0664f3cbf9p-7,
        -0x1.1434ae05873abp-9,
        0x1.fff032a0df889p-12,
        -0x1.cfcdea1b1f6c4p-14,
        0x1.9b50d0d260eb3p-16,
        -0x1.65778aaccad91p-18,
        0x1.30c2fb3f99919p-20,
        -0x1.fe3e34cfa3fcap-23,
        0x1.a3bee4ac74431p-25,
        -0x1.53924ed57f3c1p-27,
        0x1.0e5ba114e575cp-29,
        -0x1.ab9e392a1a0ddp-32,
        0x1.4a426fe27ac1ep-34,
        // [4, 5)
        0x1.f5b2a049cf4c6p-4,
        -0x1.fc4bbbfb1695ap-58,
        -0x1.aa3eb6a946f7ep-6,
        0x1.62c12cb5f7577p-8,
        -0x1.218ed930b236fp-10,
        0x1.d00785f2ed4a2p-13,
        -0x1.6d54b133ec9bcp-15,
        0x1.1ad6a32dfad8ap-17,
        -0x1.aef8ea15b5627p-20,
        0x1.4354fafb29edap-22,
        -0x1.de099483b985bp-25,
        0x1.5c64dee8492b2p-27,
        -0x1.f4beb087cdd64p-30,
        0x1.6341a438d32d1p-32,
        -0x1.ffd7fc8b66a49p-35,
        0x1.61e17f2856383p-37,
        // [5, 6)
        0x1.9d8a8f2284f2cp-4,
        -0x1.5b0277fa1ecb8p-58,
        -0x1.238ca71b93fc3p-6,
        0x1.95252b932efe3p-9,
        -0x1.15976ddda3c96p-11,
        0x1.774f4826dc84ap-14,
        -0x1.f4e46d17a549ep-17,
        0x1.4a17e19c015eep-19,
        -0x1.add7ac8bdb3b4p-22,
        0x1.149cd77868980p-24,
        -0x1.600032fb79104p-27,
        0x1.bb09d28e92873p-30,
        -0x1.13cc640fa7fe1p-32,
        0x1.53e6f026c6974p-35,
        -0x1.a7aa48e1d6aa5p-38,
        0x1.ffa31aecd2b1bp-41,
        // [6, 7)
        0x1.5f75c42e97171p-4,
        -0x1.a1eaaa8191c30p-58,
        -0x1.a6e2cf277a0cbp-7,
        0x1.f75ef7a0fb2dbp-10,
        -0x1.28787f0e7f4c4p-12,
        0x1.59b29296c518ap-15,
        -0x1.8f23feccb8bbcp-18,
        0x1.c871a15eb111cp-21,
        -0x1.028f464393fafp-23,
        0x1.224679548e574p-26,
        -0x1.43003d2c8368bp-29,
        0x1.6450c626f8875p-32,
        -0x1.85b5c4cad7ea8p-35,
        0x1.a6c691e105afep-38,
        -0x1.ce9da307f1d6cp-41,
        0x1.edc7cc26cfbb4p-44,
        // [7, 8)
        0x1.31742f4d8d4d3p-4,
        -0x1.f82bc955e371ap-59,
        -0x1.404455ba9f3bep-7,
        0x1.4d07bba601411p-10,
        -0x1.5783a27fad25ap-13,
        0x1.5f8a69c9ddb97p-16,
        -0x1.64fcbb7154629p-19,
        0x1.67ca2bf7eb089p-22,
        -0x1.67f14d332f89dp-25,
        0x1.657f395fb012ap-28,
        -0x1.608ea718c39cbp-31,
        0x1.59467a5f42484p-34,
        -0x1.4fd1ec88a5d8fp-37,
        0x1.4477f5cba6c9ap-40,
        -0x1.3b9fea8ccfb9dp-43,
        0x1.2cf599a55d87cp-46,
        // [8, 10)
        0x1.fe6cc4a0f9538p-5,
        0x1.c95be62ca9a6dp-59,
        -0x1.c046699d77d52p-8,
        0x1.876373f4a0f3ap-11,
        -0x1.53c131b5cb12bp-14,
        0x1.254381038c7bdp-17,
        -0x1.f773505cb29e2p-21,
        0x1.adc5f7f2d9185p-24,
        -0x1.6ce6628541cf8p-27,
        0x1.342c86d0928d0p-30,
        -0x1.02e81292a8dd2p-33,
        0x1.b0c9753a199e2p-37,
        -0x1.67a6df3f2064ap-40,
        0x1.2993a36ef8adfp-43,
        -0x1.fdf2639361d9cp-47,
        0x1.a1a4d9748a23dp-50,
        // [10, 12)
        0x1.a273c57e476cep-5,
        -0x1.6d026e15898ddp-59,
        -0x1.2ddd3d589bfb0p-8,
        0x1.b1c8923879d89p-12,
        -0x1.3672f09812095p-15,
        0x1.baa1d9d8421c6p-19,
        -0x1.3a555d7a9115bp-22,
        0x1.bcbee2a214b78p-26,
        -0x1.3972860b3fe84p-29,
        0x1.b82d44f802e67p-33,
        -0x1.33ef1a771ca05p-36,
        0x1.ad455610c318ap-40,
        -0x1.2a09216a14054p-43,
        0x1.9c7f711a39bf6p-47,
        -0x1.2483729cd7b0bp-50,
        0x1.91ef603d1e157p-54,
        // [12, 14)
        0x1.627bcc27cb4aep-5,
        -0x1.d520e73ec05a6p-60,
        -0x1.b1be47a913fc3p-9,
        0x1.0898f73586fcfp-12,
        -0x1.41e750b2e0630p-16,
        0x1.8682d2185613fp-20,
        -0x1.d868cc70fec14p-24,
        0x1.1cf1ff6c66bc0p-27,
        -0x1.56cb0dcc1c24cp-31,
        0x1.9b410ba77fca0p-35,
        -0x1.ec0bb84fea4dfp-39,
        0x1.258f57c76ac0bp-42,
        -0x1.5d48d1833d990p-46,
        0x1.9e8de23079636p-50,
        -0x1.f4ec48a43eaecp-54,
        0x1.27ac5c94c0537p-57,
        // [14, 16)
        0x1.33714a024097ep-5,
        0x1.f3b4d0ae3b609p-59,
        -0x1.467f441a50cf9p-9,
        0x1.59fa2994d54efp-13,
        -0x1.6dd369db39093p-17,
        0x1.81fb2ba7eb23fp-21,
        -0x1.96605f1ea3df3p-25,
        0x1.aaf0d3bb7387ap-29,
        -0x1.bf9951f4c8cacp-33,
        0x1.d445b87bc52b7p-37,
        -0x1.e8e126f65d7d4p-41,
        0x1.fd55f8870923fp-45,
        -0x1.08c04fa46e102p-48,
        0x1.12b2af44b40aap-52,
        -0x1.20f2da76e03a7p-56,
        0x1.2a9201316c9e6p-60,
        // [16, 20)
        0x1.005fe090c5e5dp-5,
        -0x1.4a17d4faf57b0p-59,
        -0x1.c661852c5133ap-10,
        0x1.920b4fb071805p-14,
        -0x1.63325936575edp-18,
        0x1.3955a9a783b07p-22,
        -0x1.13fdbd8e85377p-26,
        0x1.e578451cc08a4p-31,
        -0x1.aa56197432044p-35,
        0x1.75d9d3b2456c6p-39,
        -0x1.475879397a50ap-43,
        0x1.1e33bf7425d68p-47,
        -0x1.f3513415a8f59p-52,
        0x1.b349a5c3bfbdep-56,
        -0x1.8c70b42552b7fp-60,
        0x1.588ed44894fa9p-64,
        // [20, 24)
        0x1.a3bc12161d4ebp-6,
        -0x1.b352d33781d73p-61,
        -0x1.30a253d642e9cp-10,
        0x1.b9bd9f029a792p-15,
        -0x1.3ff35b4b9df71p-19,
        0x1.cf017aa140a05p-24,
        -0x1.4eabfd67b379ap-28,
        0x1.e35421d7de652p-33,
        -0x1.5ca813fdd65c7p-37,
        0x1.f6830e75a25e3p-42,
        -0x1.69c4ae4c16814p-46,
        0x1.042eed78dade4p-50,
        -0x1.75bc0f9218b5ep-55,
        0x1.0c41613ee7e8bp-59,
        -0x1.8c9f4964694a9p-64,
        0x1.1c1a756950205p-68,
        // [24, 28)
        0x1.63438bf2c3ee9p-6,
        -0x1.1fc7374725534p-61,
        -0x1.b49a775427ef7p-11,
        0x1.0c15fcc6f7feap-15,
        -0x1.48fb6bc697934p-20,
        0x1.936a6b39ad21bp-25,
        -0x1.ee543f9178683p-30,
        0x1.2ea50cffc60e6p-34,
        -0x1.724f1c6dde09ep-39,
        0x1.c4c5dc1c78e79p-44,
        -0x1.1499a7e7b148dp-48,
        0x1.51b515d24d16ap-53,
        -0x1.9bf017239bc78p-58,
        0x1.f6387b529e992p-63,
        -0x1.38b597549e121p-67,
        0x1.7cafb0123f524p-72,
    };
    static constexpr double T[128] = {
        0x1.0000000000000p+0, 0x0.0p+0,
        0x1.fa7c1819e90d8p-1, 0x1.74853f3a5931ep-56,
        0x1.f50765b6e4540p-1, 0x1.9d3e12dd8a18bp-55,
        0x1.efa1bee615a27p-1, 0x1.dc7f486a4b6b0p-55,
        0x1.ea4afa2a490dap-1, -0x1.e9c23179c2893p-55,
        0x1.e502ee78b3ff6p-1, 0x1.39e8980a9cc8fp-56,
        0x1.dfc97337b9b5fp-1, -0x1.1a5cd4f184b5cp-55,
        0x1.da9e603db3285p-1, 0x1.c2300696db532p-55,
        0x1.d5818dcfba487p-1, 0x1.2ed02d75b3707p-56,
        0x1.d072d4a07897cp-1, -0x1.cbc3743797a9cp-55,
        0x1.cb720dcef9069p-1, 0x1.503cbd1e949dbp-57,
        0x1.c67f12e57d14bp-1, 0x1.2884dff483cadp-55,
        0x1.c199bdd85529cp-1, 0x1.11065895048ddp-56,
        0x1.bcc1e904bc1d2p-1, 0x1.23dd07a2d9e84p-56,
        0x1.b7f76f2fb5e47p-1, -0x1.5584f7e54ac3bp-57,
        0x1.b33a2b84f15fbp-1, -0x1.2805e3084d708p-58,
        0x1.ae89f995ad3adp-1, 0x1.7a1cd345dcc81p-55,
        0x1.a9e6b5579fdbfp-1, 0x1.0fac90ef7fd31p-55,
        0x1.a5503b23e255dp-1, -0x1.d2f6edb8d41e1p-55,
        0x1.a0c667b5de565p-1, -0x1.359495d1cd533p-55,
        0x1.9c49182a3f090p-1, 0x1.c7c46b071f2bep-57,
        0x1.97d829fde4e50p-1, -0x1.d185b7c1b85d1p-55,
        0x1.93737b0cdc5e5p-1, -0x1.75fc781b57ebcp-58,
        0x1.8f1ae99157736p-1, 0x1.5cc13a2e3976cp-56,
        0x1.8ace5422aa0dbp-1, 0x1.6e9f156864b27p-55,
        0x1.868d99b4492edp-1, -0x1.fc6f89bd4f6bap-55,
        0x1.82589994cce13p-1, -0x1.d4c1dd41532d8p-55,
        0x1.7e2f336cf4e62p-1, 0x1.05d02ba15797ep-57,
        0x1.7a11473eb0187p-1, -0x1.41577ee04992fp-56,
        0x1.75feb564267c9p-1, -0x1.0245957316dd3p-55,
        0x1.71f75e8ec5f74p-1, -0x1.16e4786887a99p-56,
        0x1.6dfb23c651a2fp-1, -0x1.bbe3a683c88abp-58,
        0x1.6a09e667f3bcdp-1, -0x1.bdd3413b26456p-55,
        0x1.6623882552225p-1, -0x1.bb60987591c34p-55,
        0x1.6247eb03a5585p-1, -0x1.383c17e40b497p-55,
        0x1.5e76f15ad2148p-1, 0x1.ba6f93080e65ep-55,
        0x1.5ab07dd485429p-1, 0x1.6324c054647adp-55,
        0x1.56f4736b527dap-1, 0x1.9bb2c011d93adp-55,
        0x1.5342b569d4f82p-1, -0x1.07abe1db13cadp-56,
        0x1.4f9b2769d2ca7p-1, -0x1.4b309d25957e3p-55,
        0x1.4bfdad5362a27p-1, 0x1.d4397afec42e2p-57,
        0x1.486a2b5c13cd0p-1, 0x1.3c1a3b69062f0p-57,
        0x1.44e086061892dp-1, 0x1.89b7a04ef80d0p-60,
        0x1.4160a21f72e2ap-1, -0x1.ef3691c309278p-59,
        0x1.3dea64c123422p-1, 0x1.ada0911f09ebcp-56,
        0x1.3a7db34e59ff7p-1, -0x1.5e436d661f5e3p-57,
        0x1.371a7373aa9cbp-1, -0x1.63aeabf42eae2p-55,
        0x1.33c08b26416ffp-1, 0x1.32721843659a6p-55,
        0x1.306fe0a31b715p-1, 0x1.6f46ad23182e4p-56,
        0x1.2d285a6e4030bp-1, 0x1.0024754db41d5p-55,
        0x1.29e9df51fdee1p-1, 0x1.612e8afad1255p-56,
        0x1.26b4565e27cddp-1, 0x1.2bd339940e9d9p-56,
        0x1.2387a6e756238p-1, 0x1.9b07eb6c70573p-55,
        0x1.2063b88628cd6p-1, 0x1.dc775814a8495p-56,
        0x1.1d4873168b9aap-1, 0x1.e016e00a2643cp-55,
        0x1.1a35beb6fcb75p-1, 0x1.e5b4c7b4968e4p-56,
        0x1.172b83c7d517bp-1, -0x1.19041b9d78a76p-56,
        0x1.1429aaea92de0p-1, -0x1.32fbf9af1369ep-55,
        0x1.11301d0125b51p-1, -0x1.6c51039449b3ap-55,
        0x1.0e3ec32d3d1a2p-1, 0x1.03a1727c57b53p-60,
        0x1.0b5586cf9890fp-1, 0x1.8a62e4adc610bp-55,
        0x1.0874518759bc8p-1, 0x1.186be4bb284ffp-58,
        0x1.059b0d3158574p-1, 0x1.d73e2a475b465p-56,
        0x1.02c9a3e778061p-1, -0x1.19083535b085dp-57,
    };
    constexpr double kInv = 0x1.71547652b82fep+6;  // 64/ln2
    constexpr double kHead = 0x1.62e42fee00000p-7, kTail = 0x1.a39ef35793c76p-39;  // ln2/64
    constexpr double kShift = 0x1.8p52;
    const uint64_t bx = bitsOf(x);
    const int idx = (static_cast<int>(bx >> 52) - 1022) * 4 + static_cast<int>((bx >> 50) & 3);
    const double c = doubleFromBits((bx & 0xfffc000000000000ull) | 0x0002000000000000ull);
    const double t = x - c;
    const double* q = R + 16 * idx;
    const double t2 = t * t;
    const double t4 = t2 * t2;
    const double t8 = t4 * t4;
    const double a0 = (q[3] + q[4] * t) + (q[5] + q[6] * t) * t2;  // c2..c5
    const double a1 = (q[7] + q[8] * t) + (q[9] + q[10] * t) * t2;  // c6..c9
    const double a2 = (q[11] + q[12] * t) + (q[13] + q[14] * t) * t2;  // c10..c13
    const double rest = t2 * (a0 + a1 * t4 + (a2 + q[15] * t4) * t8);  // |rest| < R/32
    const double p1 = q[2] * t;  // |c1 t| < R/8: exact below
    const DD s0 = twoSum(q[0], p1);
    const DD r{s0.hi, s0.lo + ((math::fma(q[2], t, -p1) + q[1]) + rest)};
    // exp(-(x^2)), x^2 = hh + hl exactly
    const double hh = x * x;
    const double hl = math::fma(x, x, -hh);
    const double kd = hh * kInv + kShift;
    const int kk = static_cast<int>(bitsOf(kd) & 0xffffffffu);
    const double kf = kd - kShift;
    const DD s = twoSum(hh - kf * kHead, hl - kf * kTail);  // hh - kf*kHead exact; |s| < 0.0055
    const double y = s.hi;
    const double y2 = y * y;
    const double em1 = -y
        + y2
            * ((0.5 - y * 0x1.5555555555555p-3)
               + y2 * ((0x1.5555555555555p-5 - y * 0x1.1111111111111p-7) + y2 * 0x1.6c16c16c16c17p-10));
    const double qq = em1 - s.lo * (1.0 + em1);  // exp(-s) - 1
    const double th = T[2 * (kk & 63)], tl = T[2 * (kk & 63) + 1];
    const DD e{th, tl + th * qq};
    k = kk >> 6;
    const double p = e.hi * r.hi;
    const double pe = math::fma(e.hi, r.hi, -p);
    return fastTwoSum(p, pe + (e.hi * r.lo + e.lo * r.hi + e.lo * r.lo));
}

// erf(x) on |x| < 1/2 as a double-double: x * P(x^2), P of degree 9 (2^-65.2), constant in double-double
FXL_HD inline DD erfSmall64(double x)
{
    static constexpr double P[11] = {
        0x1.20dd750429b6dp+0,   0x1.1a70f6f39063dp-56, -0x1.812746b0379e6p-2,  0x1.ce2f21a042b29p-4,
        -0x1.b82ce3127f739p-6,  0x1.565bcd0aa6349p-8,  -0x1.c02db23d41138p-11, 0x1.f9a2a6635fe79p-14,
        -0x1.f4bb9f7301dedp-17, 0x1.b776442df3041p-20, -0x1.39fb524e9c1f7p-23,
    };
    const double s = x * x;
    const double s2 = s * s;
    const double s4 = s2 * s2;
    const double a0 = (P[2] + P[3] * s) + (P[4] + P[5] * s) * s2;
    const double a1 = (P[6] + P[7] * s) + (P[8] + P[9] * s) * s2;
    const double qs = a0 + (a1 + P[10] * s4) * s4;  // Q(s) = (P(s) - P0) / s
    // x * s * Q (< 9% of the value) with x * s in double-double: only Q's own rounding remains
    const double se = math::fma(x, x, -s);
    const double u = x * s;
    const double ue = math::fma(x, s, -u) + x * se;
    const double p = u * qs;
    const double pe = math::fma(u, qs, -p) + ue * qs;
    const double h = x * P[0];
    const DD hp = twoSum(h, p);
    return fastTwoSum(hp.hi, hp.lo + ((math::fma(x, P[0], -h) + x * P[1]) + pe));
}

}  // namespace detail_erf

FXL_HD inline float erf(float x)
{
    const uint32_t ax = bitsOf(x) & 0x7fffffffu;
    if (ax >= 0x7f800000u) return ax == 0x7f800000u ? copysign(1.0f, x) : canonicalNanF();
    if (ax >= 0x407b0000u) return copysign(1.0f, x);  // |x| >= 3.921875: 1 - erf < 2^-25
    const double xd = x;
    double d;
    if (ax < 0x3f000000u)
        d = xd * detail_erf::smallPoly(xd * xd);
    else {
        const double v = 1.0 - detail_erf::erfcFast(fabs(xd));
        d = x < 0 ? -v : v;
    }
    bool ok;
    const float f = detail_erf::roundIfDecided(d, ok);
    if (ok) return f;
    const float m = detail_erf::roundToFloat(detail_erf::erfAccurate(fabs(xd)));
    return x < 0 ? -m : m;
}

FXL_HD inline float erfc(float x)
{
    const uint32_t ax = bitsOf(x) & 0x7fffffffu;
    if (ax >= 0x7f800000u) return ax > 0x7f800000u ? canonicalNanF() : (x > 0 ? 0.0f : 2.0f);
    const double xd = x;
    double d;
    if (ax < 0x3f000000u)
        d = 1.0 - xd * detail_erf::smallPoly(xd * xd);
    else if (x > 0) {
        if (ax >= 0x41240000u) return 0.0f;  // x >= 10.25: erfc < 2^-151
        d = detail_erf::erfcFast(xd);
    } else {
        if (ax >= 0x40760000u) return 2.0f;  // x <= -3.84375: 2 - erfc < 2^-24 from 2, rounds to 2
        d = 2.0 - detail_erf::erfcFast(-xd);
    }
    bool ok;
    const float f = detail_erf::roundIfDecided(d, ok);
    if (ok) return f;
    int k = 0;
    detail_erf::DD m = detail_erf::erfcAccurate(xd, k);
    const double sc = scaleByPow2Normal(1.0, -k);  // k <= 160: normal
    return detail_erf::roundToFloat(detail_erf::DD{m.hi * sc, m.lo * sc});
}

FXL_HD inline double erf(double x)
{
    const uint64_t ax = bitsOf(x) & 0x7fffffffffffffffull;
    if (ax >= 0x7ff0000000000000ull) return ax == 0x7ff0000000000000ull ? copysign(1.0, x) : canonicalNanD();
    const double a = fabs(x);
    if (a >= 6) return copysign(1.0, x);  // 1 - erf(6) < 2^-54
    if (a < 0x1p-28) {
        // erf(x) = 2x/sqrt(pi) (1 - x^2/3 + ...), x^2/3 < 2^-57
        constexpr double kHi = 0x1.20dd750429b6dp+0, kLo = 0x1.1ae3a914fed80p-56;
        if (a >= 0x1p-1000) return math::fma(x, kHi, x * kLo);
        // tiny: the product in double-double at x * 2^1000, rounded once to the subnormal grid
        const double X = a * 0x1p+1000;
        const double h = X * kHi;
        const detail_erf::DD m = detail_erf::fastTwoSum(h, math::fma(X, kHi, -h) + X * kLo);
        const double v = detail_erf::scaleDown(m, 1000);
        return x < 0 ? -v : v;
    }
    if (a < 0.5) {
        const detail_erf::DD m = detail_erf::erfSmall64(x);
        return m.hi + m.lo;
    }
    int k = 0;
    const detail_erf::DD m = detail_erf::erfcFast64(a, k);  // k <= 52
    const double sc = scaleByPow2Normal(1.0, -k);
    const detail_erf::DD v = detail_erf::twoSum(1.0, -m.hi * sc);
    const double r = v.hi + (v.lo - m.lo * sc);
    return x < 0 ? -r : r;
}

FXL_HD inline double erfc(double x)
{
    const uint64_t ax = bitsOf(x) & 0x7fffffffffffffffull;
    if (ax >= 0x7ff0000000000000ull) return ax > 0x7ff0000000000000ull ? canonicalNanD() : (x > 0 ? 0.0 : 2.0);
    if (x >= 27.25) return 0.0;  // erfc(27.13) = 2^-1075
    if (x <= -6) return 2.0;  // 2 - erfc(-6) ... < 2^-53 from 2
    if (fabs(x) < 0x1p-56) return 1.0;
    int k = 0;
    if (fabs(x) < 0.5) {
        const detail_erf::DD m = detail_erf::erfSmall64(x);
        const detail_erf::DD v = detail_erf::twoSum(1.0, -m.hi);
        return v.hi + (v.lo - m.lo);
    }
    if (x < 0) {
        const detail_erf::DD m = detail_erf::erfcFast64(-x, k);  // k <= 52
        const double sc = scaleByPow2Normal(1.0, -k);
        const detail_erf::DD v = detail_erf::twoSum(2.0, -m.hi * sc);
        return v.hi + (v.lo - m.lo * sc);
    }
    // subnormal results (x > 26.5) need the rounding of the slow path: the oracle resolves their
    // error only to whole ulps of the subnormal grid
    const detail_erf::DD m = x < 26.5 ? detail_erf::erfcFast64(x, k) : detail_erf::erfcAccurate(x, k);
    return detail_erf::scaleDown(m, k);
}

}  // namespace fxl::math
