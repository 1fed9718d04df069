#include <cmath>

#include "math_cases.hpp"
#include "runtime/math/fn_pow.hpp"

namespace fxltest::oracle {

namespace {

// Hard pairs for float pow: exact results and exact midpoints (x with few significant bits and a
// small integer or dyadic y), results at the subnormal and overflow boundaries, x near 1 with a
// huge y, and negative x with integer y.
HardBinary powHardPairs()
{
    HardBinary h{"pow", {}, {}};
    auto add = [&](float x, float y) {
        h.xs.push_back(x);
        h.ys.push_back(y);
        h.xs.push_back(-x);
        h.ys.push_back(y);
    };
    // x^2, x^3, ... with odd x of 13, 9, 7, ... bits: exact midpoints (25 bits) and exact floats
    for (int n = 2; n <= 25; ++n) {
        const int bits = (25 + n - 1) / n;
        for (int a = (1 << (bits - 1)) + 1; a < (1 << bits) && a < (1 << (bits - 1)) + 200; a += 2)
            for (int s : {0, -40, 30, -75 / n}) add(std::ldexp(float(a), s), float(n));
    }
    // x^1.5 and x^2.5 with x a square: a^3, a^5 with 25 bits; x^0.25 with x a 4th power
    for (int a = 323; a < 500; a += 2) add(float(a * a), 1.5f);
    for (int a = 31; a < 40; a += 2) add(float(a * a), 2.5f);
    for (int a = 3; a < 64; a += 2) add(float(a * a * a * a), 0.25f);
    for (int a = 3; a < 64; a += 2) add(float(a * a * a * a), -0.25f);
    // powers of two: 2^-149 .. 2^127 and just beyond
    for (float y : {-149.0f, -150.0f, -151.0f, 127.0f, 128.0f, -126.0f, -0.5f, 0.5f, 74.5f, -74.5f, 63.75f})
        add(2.0f, y);
    add(0.5f, 149.0f);
    add(0.5f, 150.0f);
    add(std::ldexp(1.0f, -149), 1.0f);
    add(std::ldexp(1.0f, -149), 0.5f);
    add(std::ldexp(1.0f, -149), -0.5f);
    add(std::ldexp(1.0f, -149), 2.0f);
    add(std::ldexp(3.0f, -75), 2.0f);  // 9*2^-150: a midpoint in the subnormal range
    add(std::ldexp(5.0f, -76), 2.0f);  // 25*2^-152
    add(std::ldexp(3.0f, -50), 3.0f);  // 27*2^-150
    add(std::ldexp(1.0f, 64), 2.0f);  // 2^128: overflow
    add(std::ldexp(0x1.fffffep0f, 63), 2.0f);
    add(std::ldexp(0x1.6a09e6p0f, 63), 2.0f);
    add(3.0f, 2.0f);
    add(3.0f, -2.0f);
    add(-8.0f, 1.0f / 3.0f);
    add(10.0f, 38.0f);
    add(10.0f, 39.0f);
    add(10.0f, -45.0f);
    add(10.0f, -46.0f);
    // x near 1, huge y
    for (int j = 1; j <= 8; ++j)
        for (float y : {1e6f, 1e7f, 8388608.0f, 1.5e9f, -1e9f, 3e9f})
            add(1.0f + std::ldexp(float(j), -23), y), add(1.0f - std::ldexp(float(j), -24), y);
    // results at the overflow and underflow thresholds
    add(0x1.fffffep127f, 1.0f);
    add(0x1.fffffep127f, 1.0000001f);
    add(0x1p-126f, 1.0f);
    add(0x1p-126f, 1.1834f);
    add(std::sqrt(0x1.fffffep127f), 2.0f);
    add(float(std::sqrt(0x1.ffffffp127)), 2.0f);
    // non-exact results closest to a midpoint among 4e8 structured random pairs (x near 1 with a
    // large y, x with a small integer y, y spread so that |x^y| stays in range): the accurate path
    add(0x1.00018cp+0f, 0x1.bdd888p+21f);  // 2^-27.3 ulp from a midpoint
    add(0x1.006558p+0f, 0x1.53ccp+15f);  // 2^-25.9 ulp from a midpoint
    add(0x1.004592p+0f, 0x1.40e8p+16f);  // 2^-24.7 ulp from a midpoint
    add(0x1.00435ep+0f, -0x1.802p+15f);  // 2^-24.6 ulp from a midpoint
    add(0x1.00016ep+0f, 0x1.807b2p+19f);  // 2^-24.6 ulp from a midpoint
    add(0x1.0085a2p+0f, 0x1.674p+12f);  // 2^-24.5 ulp from a midpoint
    add(0x1.ffb14cp-1f, 0x1.38eep+16f);  // 2^-23.8 ulp from a midpoint
    add(0x1.ff974cp-1f, -0x1.1756p+15f);  // 2^-23.6 ulp from a midpoint
    add(0x1.ffa0cp-1f, 0x1.a44p+11f);  // 2^-23.6 ulp from a midpoint
    add(0x1.ff678p-1f, 0x1.f228p+13f);  // 2^-23.3 ulp from a midpoint
    add(0x1.ff9a84p-1f, 0x1.0b1p+15f);  // 2^-23.2 ulp from a midpoint
    add(0x1.ffd69ap-1f, -0x1.049ap+18f);  // 2^-23.0 ulp from a midpoint
    add(0x1.9230fap-21f, -0x1.319c18p+1f);  // 2^-26.5 ulp from a midpoint
    add(0x1.c9882ap-100f, -0x1.0127bp+0f);  // 2^-26.1 ulp from a midpoint
    add(0x1.3e844ep+127f, 0x1.e7013ep-2f);  // 2^-25.8 ulp from a midpoint
    add(0x1.6f347p-73f, 0x1.16f8ep-1f);  // 2^-25.5 ulp from a midpoint
    add(0x1.ff8bf4p+9f, -0x1.816bp+3f);  // 2^-24.9 ulp from a midpoint
    add(0x1.6ed272p+13f, 0x1.7eadfap-1f);  // 2^-24.6 ulp from a midpoint
    add(0x1.271996p-7f, 0x1.8p+1f);  // 2^-25.3 ulp from a midpoint
    add(0x1.753846p+5f, 0x1.4p+2f);  // 2^-24.5 ulp from a midpoint
    add(0x1.753846p+4f, 0x1.4p+2f);  // 2^-24.5 ulp from a midpoint
    add(0x1.753846p-5f, 0x1.4p+2f);  // 2^-24.5 ulp from a midpoint
    add(0x1.48e49ep-9f, 0x1.4p+2f);  // 2^-24.4 ulp from a midpoint
    add(0x1.7ffffep-3f, 0x1p+1f);  // 2^-24.0 ulp from a midpoint
    return h;
}

}  // namespace

void addPowCases(FunctionCases& c)
{
    c.binaryF32.push_back(BinaryF32{"pow", [](float x, float y) { return fxl::math::pow(x, y); }, mpfr_pow,
                                    [](double x, double y) { return ::pow(x, y); }});
    c.binaryF64.push_back(BinaryF64Case{
        {"pow_f64", [](double x, double y) { return fxl::math::pow(x, y); }, mpfr_pow}, 0.0, 4.0, -40.0, 40.0});
    c.hardBinary.push_back(powHardPairs());
}

}  // namespace fxltest::oracle
