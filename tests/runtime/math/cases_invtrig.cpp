#include <cmath>
#include <limits>

#include "math_cases.hpp"
#include "runtime/math/fn_invtrig.hpp"

namespace fxltest::oracle {

void addInvTrigCases(FunctionCases& c)
{
    namespace m = fxl::math;
    c.unaryF32.push_back({"asin", [](float x) { return m::asin(x); }, mpfr_asin, [](double x) { return ::asin(x); }});
    c.unaryF32.push_back({"acos", [](float x) { return m::acos(x); }, mpfr_acos, [](double x) { return ::acos(x); }});
    c.unaryF32.push_back({"atan", [](float x) { return m::atan(x); }, mpfr_atan, [](double x) { return ::atan(x); }});
    c.binaryF32.push_back({"atan2", [](float y, float x) { return m::atan2(y, x); }, mpfr_atan2,
                           [](double y, double x) { return ::atan2(y, x); }});

    c.unaryF64.push_back({{"asin_f64", [](double x) { return m::asin(x); }, mpfr_asin}, -1.0, 1.0});
    c.unaryF64.push_back({{"acos_f64", [](double x) { return m::acos(x); }, mpfr_acos}, -1.0, 1.0});
    c.unaryF64.push_back({{"atan_f64", [](double x) { return m::atan(x); }, mpfr_atan}, -100.0, 100.0});
    c.binaryF64.push_back(
        {{"atan2_f64", [](double y, double x) { return m::atan2(y, x); }, mpfr_atan2}, -10.0, 10.0, -10.0, 10.0});

    // asin: the 24 inputs of the exhaustive sweep whose fast path is undecided (the accurate path
    // decides them all), then the branch edges
    c.hardUnary.push_back({"asin",
                           {0x1.d12edp-12f,
                            0x1.7ffff8p-10f,
                            0x1.0f2b38p-5f,
                            0x1.137f0cp-5f,
                            0x1.2ac35cp-5f,
                            0x1.2f02f8p-5f,
                            0x1.b0e18cp-4f,
                            0x1.cbf43cp-4f,
                            0x1.6fe272p-2f,
                            0x1.7136c8p-2f,
                            0x1.9b7b4p-2f,
                            0x1.107434p-1f,
                            -0x1.d12edp-12f,
                            -0x1.7ffff8p-10f,
                            -0x1.0f2b38p-5f,
                            -0x1.137f0cp-5f,
                            -0x1.2ac35cp-5f,
                            -0x1.2f02f8p-5f,
                            -0x1.b0e18cp-4f,
                            -0x1.cbf43cp-4f,
                            -0x1.6fe272p-2f,
                            -0x1.7136c8p-2f,
                            -0x1.9b7b4p-2f,
                            -0x1.107434p-1f,
                            0x1p-12f,
                            0x1.000002p-12f,
                            0x1.fffffep-13f,
                            0x1.fffffep-1f,
                            1.0f,
                            0x1p-5f,
                            0x1.fffffep-6f,
                            0.5f,
                            0x1.6a09e6p-1f,
                            -0x1p-12f,
                            -0x1.000002p-12f,
                            -0x1.fffffep-13f,
                            -0x1.fffffep-1f,
                            -1.0f,
                            -0x1p-5f,
                            -0x1.fffffep-6f,
                            -0.5f,
                            -0x1.6a09e6p-1f}});
    // acos: the 49 inputs of the exhaustive sweep whose fast path is undecided (the accurate path
    // decides them all), then the branch edges
    c.hardUnary.push_back({"acos",
                           {0x1.110b3ep-26f,
                            0x1.110b4p-26f,
                            0x1.110b42p-26f,
                            0x1.110b44p-26f,
                            0x1.110b46p-26f,
                            0x1.110b48p-26f,
                            0x1.110b4ap-26f,
                            0x1.110b4cp-26f,
                            0x1.110b4ep-26f,
                            0x1.222168p-23f,
                            0x1.1110b4p-22f,
                            0x1.9110b4p-22f,
                            0x1.08885ap-21f,
                            0x1.48885ap-21f,
                            0x1.88885ap-21f,
                            0x1.c8885ap-21f,
                            0x1.04a444p-12f,
                            0x1.04c444p-12f,
                            0x1.04e444p-12f,
                            0x1.76922p-11f,
                            0x1.d4921ep-11f,
                            0x1.3c990cp-10f,
                            0x1.fa5036p-9f,
                            0x1.83bfbp-8f,
                            0x1.eee51p-8f,
                            0x1.145f36p-6f,
                            0x1.6dd8eap-4f,
                            0x1.16e4aap-3f,
                            0x1.d6c3cp-2f,
                            -0x1.bbbd2ep-24f,
                            -0x1.bbbd3p-24f,
                            -0x1.ddde98p-23f,
                            -0x1.6eef4cp-22f,
                            -0x1.eeef4cp-22f,
                            -0x1.3777a6p-21f,
                            -0x1.7777a6p-21f,
                            -0x1.b777a6p-21f,
                            -0x1.f777a6p-21f,
                            -0x1.cdbddap-11f,
                            -0x1.3abeeap-10f,
                            -0x1.6066e8p-10f,
                            -0x1.38e764p-9f,
                            -0x1.bb8b4p-9f,
                            -0x1.80d99ap-7f,
                            -0x1.ad7a4ap-5f,
                            -0x1.cd19a2p-3f,
                            -0x1.dbfe6ep-3f,
                            -0x1.eb9ddcp-3f,
                            -0x1.00c66p-1f,
                            0x1.fffffep-1f,
                            1.0f,
                            0x1p-12f,
                            0x1p-149f,
                            0.5f,
                            0x1.6a09e6p-1f,
                            0x1p-25f,
                            -0x1.fffffep-1f,
                            -1.0f,
                            -0x1p-12f,
                            -0x1p-149f,
                            -0.5f,
                            -0x1.6a09e6p-1f,
                            -0x1p-25f}});
    // atan: the 104 inputs of the exhaustive sweep whose fast path is undecided (the accurate path
    // decides them all), then the branch edges
    c.hardUnary.push_back({"atan", {0x1.713746p-12f,  0x1.4f7476p-11f,
                                    0x1.588696p-10f,  0x1.ac6ff4p-10f,
                                    0x1.0de61p-9f,    0x1.f83792p-9f,
                                    0x1.d046f6p-8f,   0x1.6e7674p-5f,
                                    0x1.1ad646p-4f,   0x1.76d58ep-4f,
                                    0x1.26d5e4p-3f,   0x1.4846c2p-3f,
                                    0x1.c0db62p-2f,   0x1.120b18p+0f,
                                    0x1.6afe3ap+1f,   0x1.5edce2p+2f,
                                    0x1.7e298ap+2f,   0x1.f235a4p+2f,
                                    0x1.35cd6cp+5f,   0x1.836deap+5f,
                                    0x1.9ba944p+5f,   0x1.a4133ap+5f,
                                    0x1.d7dee6p+5f,   0x1.12109cp+7f,
                                    0x1.b1da34p+8f,   0x1.e827f8p+9f,
                                    0x1.fc44d6p+9f,   0x1.95dd1ap+10f,
                                    0x1.61b4fap+13f,  0x1.51b2cap+14f,
                                    0x1.932212p+14f,  0x1.721ee4p+18f,
                                    0x1.943602p+19f,  0x1.f79b74p+19f,
                                    0x1.ef7c36p+20f,  0x1.46cf46p+21f,
                                    0x1.c3c4e4p+22f,  0x1.c3c4e6p+22f,
                                    0x1.e00a22p+25f,  0x1.e00a24p+25f,
                                    0x1.e00a26p+25f,  0x1.e00a28p+25f,
                                    0x1.e00a2ap+25f,  0x1.e00a2cp+25f,
                                    0x1.e00a2ep+25f,  0x1.e00a3p+25f,
                                    0x1.e00a32p+25f,  0x1.e00a34p+25f,
                                    0x1.e00a36p+25f,  0x1.e00a38p+25f,
                                    0x1.e00a3ap+25f,  0x1.e00a3cp+25f,
                                    -0x1.713746p-12f, -0x1.4f7476p-11f,
                                    -0x1.588696p-10f, -0x1.ac6ff4p-10f,
                                    -0x1.0de61p-9f,   -0x1.f83792p-9f,
                                    -0x1.d046f6p-8f,  -0x1.6e7674p-5f,
                                    -0x1.1ad646p-4f,  -0x1.76d58ep-4f,
                                    -0x1.26d5e4p-3f,  -0x1.4846c2p-3f,
                                    -0x1.c0db62p-2f,  -0x1.120b18p+0f,
                                    -0x1.6afe3ap+1f,  -0x1.5edce2p+2f,
                                    -0x1.7e298ap+2f,  -0x1.f235a4p+2f,
                                    -0x1.35cd6cp+5f,  -0x1.836deap+5f,
                                    -0x1.9ba944p+5f,  -0x1.a4133ap+5f,
                                    -0x1.d7dee6p+5f,  -0x1.12109cp+7f,
                                    -0x1.b1da34p+8f,  -0x1.e827f8p+9f,
                                    -0x1.fc44d6p+9f,  -0x1.95dd1ap+10f,
                                    -0x1.61b4fap+13f, -0x1.51b2cap+14f,
                                    -0x1.932212p+14f, -0x1.721ee4p+18f,
                                    -0x1.943602p+19f, -0x1.f79b74p+19f,
                                    -0x1.ef7c36p+20f, -0x1.46cf46p+21f,
                                    -0x1.c3c4e4p+22f, -0x1.c3c4e6p+22f,
                                    -0x1.e00a22p+25f, -0x1.e00a24p+25f,
                                    -0x1.e00a26p+25f, -0x1.e00a28p+25f,
                                    -0x1.e00a2ap+25f, -0x1.e00a2cp+25f,
                                    -0x1.e00a2ep+25f, -0x1.e00a3p+25f,
                                    -0x1.e00a32p+25f, -0x1.e00a34p+25f,
                                    -0x1.e00a36p+25f, -0x1.e00a38p+25f,
                                    -0x1.e00a3ap+25f, -0x1.e00a3cp+25f,
                                    0x1p-12f,         0x1.000002p-12f,
                                    0x1.fffffep-13f,  0x1p26f,
                                    0x1.fffffep25f,   0x1p-5f,
                                    0x1.fffffep-6f,   0x1p6f,
                                    0x1.fffffep5f,    1.0f,
                                    -0x1p-12f,        -0x1.000002p-12f,
                                    -0x1.fffffep-13f, -0x1p26f,
                                    -0x1.fffffep25f,  -0x1p-5f,
                                    -0x1.fffffep-6f,  -0x1p6f,
                                    -0x1.fffffep5f,   -1.0f}});

    // atan2: every C99 special pair (signed zeros, infinities, NaN) with the extreme finite
    // values, pairs near the axes (subnormal results, the round-to-odd branch for y/x < 2^-60,
    // its midpoint cases y/x = (2k+1) 2^-150), x = y, tiny and huge ratios, the reduction's
    // branch edges (y/x = 2^-5, 2^6).
    HardBinary h2{"atan2", {}, {}};
    const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
    const float den = std::numeric_limits<float>::denorm_min(), fmin = std::numeric_limits<float>::min();
    const float fmax = std::numeric_limits<float>::max();
    auto both = [&](float y, float x) {
        for (float sy : {1.0f, -1.0f})
            for (float sx : {1.0f, -1.0f}) {
                h2.xs.push_back(sy * y);  // xs holds the first argument (y), ys the second (x)
                h2.ys.push_back(sx * x);
            }
    };
    const std::vector<float> special = {0.0f, den, 3 * den, fmin, 0x1p-60f, 0.5f, 1.0f, 2.0f, 3.0f, 0x1p60f, fmax, inf};
    for (float y : special)
        for (float x : special) both(y, x);
    for (float v : {0.0f, 1.0f, inf}) {
        h2.xs.push_back(nan), h2.ys.push_back(v);
        h2.xs.push_back(v), h2.ys.push_back(nan);
        h2.xs.push_back(-nan), h2.ys.push_back(-v);
    }
    h2.xs.push_back(nan), h2.ys.push_back(nan);
    for (int k = 1; k < 64; k += 2) {  // y/x a subnormal midpoint or near one
        both(static_cast<float>(k) * den, 2.0f);
        both(static_cast<float>(k) * den, 3.0f);
        both(static_cast<float>(k) * den, std::nextafter(2.0f, 0.0f));
        both(static_cast<float>(k) * den, std::nextafter(2.0f, 4.0f));
    }
    for (float x : {1.0f, 0x1p30f, 0x1p100f, 0x1p127f, 0x1.5p-100f}) {
        for (float r : {0x1p-61f, 0x1p-60f, 0x1.000002p-60f, 0x1.fffffep-61f, 0x1p-30f, 0x1p-5f, 0x1.fffffep-6f,
                        0x1.000002p-5f, 0x1p6f, 0x1.fffffep5f, 0x1.000002p6f, 0x1p26f, 0x1p40f})
            both(x * r, x), both(x, x * r);
        both(x, x);
        both(std::nextafter(x, 0.0f), x);
        both(std::nextafter(x, inf), x);
    }
    for (float v : {den, 0x1p-140f, fmin, 0x1p-20f, 0.3f, 1.7f, 12345.678f, 0x1p100f, fmax}) both(v, v);
    for (float y : {den, 0x1p-140f, 0x1p-100f, 1e-30f})
        for (float x : {1.0f, 2.0f, 0x1p100f, fmax}) both(y, x), both(x, y);
    both(fmax, den);
    both(den, fmax);
    // atan's delicate inputs as ratios: atan2(v, 1) = atan(v), the same scaled by 2^40, and their
    // supplements (x < 0)
    for (const HardUnary& h : c.hardUnary)
        if (h.name == "atan")
            for (float v : h.xs) {
                both(v, 1.0f);
                both(v * 0x1p40f, 0x1p40f);
            }
    c.hardBinary.push_back(h2);
}

}  // namespace fxltest::oracle
