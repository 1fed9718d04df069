#include <bit>
#include <cmath>
#include <cstdint>

#include "math_cases.hpp"
#include "runtime/math/fn_trig.hpp"

namespace fxltest::oracle {
namespace {

std::vector<float> floatsFromBits(std::initializer_list<uint32_t> bits)
{
    std::vector<float> out;
    for (uint32_t b : bits) {
        out.push_back(std::bit_cast<float>(b));
        out.push_back(std::bit_cast<float>(b | 0x80000000u));
    }
    return out;
}

// The thresholds of fn_trig.hpp's paths (|x| < pi/4: no reduction; < 2^20: Cody-Waite; else
// Payne-Hanek), the floats nearest to multiples of pi/2, tiny and huge arguments.
std::vector<float> trigThresholds()
{
    return floatsFromBits({0x3f490fdau, 0x3f490fdbu, 0x3f490fdcu, 0x497fffffu, 0x49800000u, 0x49800001u,
                           0x3fc90fdbu, 0x3fc90fdau, 0x40490fdbu, 0x4096cbe4u, 0x40c90fdbu, 0x40fb53d1u,
                           0x4116cbe4u, 0x431d1463u, 0x44c4597cu, 0x46756fdau, 0x481965e8u, 0x7f7fffffu,
                           0x7f000000u, 0x5f000000u, 0x39800000u, 0x39000000u, 0x00000001u, 0x00800000u,
                           0x33800000u, 0x3f800000u, 0x40000000u,
                           0x6f79be45u /* the float nearest to a multiple of pi/2: |r| = 2^-29.2 */});
}

}  // namespace

void addTrigCases(FunctionCases& c)
{
    namespace fm = fxl::math;
    c.unaryF32.push_back({"sin", [](float x) { return fm::sin(x); }, mpfr_sin, [](double x) { return ::sin(x); }});
    c.unaryF32.push_back({"cos", [](float x) { return fm::cos(x); }, mpfr_cos, [](double x) { return ::cos(x); }});
    c.unaryF32.push_back({"tan", [](float x) { return fm::tan(x); }, mpfr_tan, [](double x) { return ::tan(x); }});
    c.unaryF64.push_back({{"sin_f64", [](double x) { return fm::sin(x); }, mpfr_sin}, -10.0, 10.0});
    c.unaryF64.push_back({{"cos_f64", [](double x) { return fm::cos(x); }, mpfr_cos}, -10.0, 10.0});
    c.unaryF64.push_back({{"tan_f64", [](double x) { return fm::tan(x); }, mpfr_tan}, -10.0, 10.0});

    // inputs whose fast-path result does not decide the rounding (they take the accurate path),
    // found by sweeping all floats, and the path thresholds
    HardUnary s{"sin", trigThresholds()}, co{"cos", trigThresholds()}, t{"tan", trigThresholds()};
    const std::vector<float> hs = floatsFromBits({
        0x39e89746u, 0x3a5352c0u, 0x3b3e349du, 0x3c69df4fu, 0x3d7e9be3u, 0x3ec0cc57u, 0x3f960b2cu, 0x404b29dau,
        0x413c6b41u, 0x425dcc8au, 0x43702634u, 0x44802694u, 0x4584d06fu, 0x468734e5u, 0x478dfb6eu, 0x48981032u,
        0x499fa03cu, 0x4a867e30u, 0x4b876c0du, 0x4c84b75du, 0x4da88f47u, 0x4e97a291u, 0x4f824de8u, 0x5069281fu,
        0x51635a3eu, 0x5278dfe0u, 0x539cafb6u, 0x5489743fu, 0x55800c25u, 0x56886770u, 0x578be59fu, 0x58a35675u,
        0x59c75fdbu, 0x5ac423d5u, 0x5bb335d9u, 0x5cdaa4f7u, 0x5dd2375du, 0x5ec06ff1u, 0x5fbcdcc4u, 0x60b5dad2u,
    });
    const std::vector<float> hc = floatsFromBits({
        0x397fffc1u, 0x397ffff9u, 0x39ddb3d5u, 0x3a400003u, 0x3ab7d376u, 0x3b25815du, 0x3b95e14du, 0x3c06a401u,
        0x3c8432c1u, 0x3ce975d3u, 0x3d66dc96u, 0x3dd62860u, 0x3e46b8dbu, 0x3eceffceu, 0x3f410e63u, 0x3fe4a9efu,
        0x40668e40u, 0x40eeb9a6u, 0x4177ffe7u, 0x41f75fcdu, 0x427f8a21u, 0x430b5f8eu, 0x43b1ceccu, 0x444f1ec0u,
        0x44dffc37u, 0x4571652du, 0x45ffecceu, 0x4692d5b2u, 0x474b22c4u, 0x47eb5db6u, 0x485af5b0u, 0x48f6bdacu,
    });
    const std::vector<float> ht = floatsFromBits({
        0x39b89b8cu, 0x3a27ba34u, 0x3a9863f7u, 0x3b21b04bu, 0x3ba15fd2u, 0x3c219bbau, 0x3cb34ae3u, 0x3d262259u,
        0x3d8505fbu, 0x3deb9943u, 0x3e48384fu, 0x3ecb6bc0u, 0x3f512c11u, 0x3fdd8717u, 0x4036cc65u, 0x40c958ceu,
        0x41323541u, 0x41b64326u, 0x4242bf06u, 0x42d87a38u, 0x435ce396u, 0x43f536ecu, 0x4486d3d5u, 0x44f79c4eu,
        0x45833894u, 0x460c9740u, 0x46a1c87du, 0x4721d55bu, 0x47b0c22fu, 0x4831c299u, 0x48b0fd1fu, 0x491de1a8u,
    });
    s.xs.insert(s.xs.end(), hs.begin(), hs.end());
    co.xs.insert(co.xs.end(), hc.begin(), hc.end());
    t.xs.insert(t.xs.end(), ht.begin(), ht.end());
    c.hardUnary.push_back(s);
    c.hardUnary.push_back(co);
    c.hardUnary.push_back(t);
}

}  // namespace fxltest::oracle
