#include <cmath>

#include "math_cases.hpp"
#include "runtime/math/fn_erf.hpp"

namespace fxltest::oracle {

void addErfCases(FunctionCases& c)
{
    c.unaryF32.push_back(
        UnaryF32{"erf", [](float x) { return fxl::math::erf(x); }, mpfr_erf, [](double x) { return ::erf(x); }});
    c.unaryF32.push_back(
        UnaryF32{"erfc", [](float x) { return fxl::math::erfc(x); }, mpfr_erfc, [](double x) { return ::erfc(x); }});
    c.unaryF64.push_back(UnaryF64Case{{"erf_f64", [](double x) { return fxl::math::erf(x); }, mpfr_erf}, -6.0, 6.0});
    c.unaryF64.push_back(
        UnaryF64Case{{"erfc_f64", [](double x) { return fxl::math::erfc(x); }, mpfr_erfc}, -6.0, 28.0});
    // the ends of each branch (|x| = 1/2, the table pieces, the cut-offs to +-1, 0 and 2) and the
    // inputs the exhaustive sweep found where the fast path's rounding test fails
    c.hardUnary.push_back(
        HardUnary{"erf",
                  {0.5f, -0.5f, 0x1.fffffep-2f, 3.921875f, -3.921875f, 0x1.f5fffep+1f, 3.9192059f, 1e-30f, -0x1p-149f,
                   0x1p-126f, 1.25f, 7.999999f,
                   // the rounding test of the fast path fails: double-double path
                   0x1.0874eap-1f, -0x1.44ecf4p-1f, 0x1.89bbfap-1f, 0x1.b4384cp-1f, 0x1.bc9582p+0f, -0x1.c8c8a2p+0f,
                   0x1.f5f54ep+0f, 0x1.8ce4eap+1f, 0x1.429dp-31f, -0x1.4b808cp-31f, 0x1.5d47a4p-30f}});
    c.hardUnary.push_back(
        HardUnary{"erfc",
                  {0.5f, -0.5f, 0x1.fffffep-2f, -0x1.fffffep-2f, 10.25f, 0x1.47fffep+3f, 10.1276245f, 10.127625f,
                   -3.84375f, -3.8325069f, 0x1p-26f, -0x1p-26f, 11.999999f, 7.999999f, 8.0f, 4.0f,
                   // the rounding test of the fast path fails: double-double path
                   -0x1.40f228p-1f, -0x1.835e5ap-1f, 0x1.adf14cp-1f, -0x1.0af4dp+0f, 0x1.5e0ecp+0f, -0x1.083cd4p+1f,
                   -0x1.ea8f96p+1f, 0x1.323042p+2f, 0x1.423412p+2f, 0x1.73dc3p+2f, 0x1.81a544p+2f}});
}

}  // namespace fxltest::oracle
