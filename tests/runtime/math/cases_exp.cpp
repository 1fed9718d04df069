#include <cmath>
#include <initializer_list>

#include "math_cases.hpp"
#include "runtime/math/fn_exp.hpp"

namespace fxltest::oracle {

void addExpCases(FunctionCases& c)
{
    namespace fm = fxl::math;
    c.unaryF32.push_back({"exp", [](float x) { return fm::exp(x); }, mpfr_exp, [](double x) { return ::exp(x); }});
    c.unaryF32.push_back({"exp2", [](float x) { return fm::exp2(x); }, mpfr_exp2, [](double x) { return ::exp2(x); }});
    c.unaryF32.push_back(
        {"expm1", [](float x) { return fm::expm1(x); }, mpfr_expm1, [](double x) { return ::expm1(x); }});
    c.unaryF32.push_back({"sinh", [](float x) { return fm::sinh(x); }, mpfr_sinh, [](double x) { return ::sinh(x); }});
    c.unaryF32.push_back({"cosh", [](float x) { return fm::cosh(x); }, mpfr_cosh, [](double x) { return ::cosh(x); }});
    c.unaryF32.push_back({"tanh", [](float x) { return fm::tanh(x); }, mpfr_tanh, [](double x) { return ::tanh(x); }});

    // Hard inputs: where the accurate double-double value lies closest to a float midpoint, the
    // inputs whose fast-path double rounds to the wrong float (the first ones of each list; exp
    // from all 2^32 inputs, the others from every 16th bit pattern), and each threshold the code
    // tests with its float neighbours (both signs where the function is odd or even).
    auto around = [](std::initializer_list<float> xs, bool bothSigns) {
        std::vector<float> out;
        for (float x : xs)
            for (float v : {x, std::nextafter(x, INFINITY), std::nextafter(x, -INFINITY)}) {
                out.push_back(v);
                if (bothSigns) out.push_back(-v);
            }
        return out;
    };
    auto join = [](std::vector<float> a, std::initializer_list<float> b) {
        a.insert(a.end(), b.begin(), b.end());
        return a;
    };
    c.hardUnary.push_back({"exp",
                           join(around({88.0f, 89.0f, 0x1.62e43p+6f, -87.0f, -0x1.5d589ep+6f, -104.0f, -0x1.9fe368p+6f,
                                        0x1p-25f, -0x1p-25f, 0x1p-24f},
                                       false),
                                {-0x1.d2259ap+3f, -0x1.e1dbe2p-8f, -0x1.c1c4b8p-10f, 0x1.fdff02p-17f, 0x1.62b666p+1f,
                                 0x1.036492p+1f, 0x1.8d7cb6p-12f, 0x1.112856p+6f, -0x1.6e1ddp-8f, 0x1.cce332p+0f,
                                 -0x1.c02f76p-6f, -0x1.6a004p-18f, -0x1.8p-24f, -0x1.ba156p-10f, 0x1.7ff4p-11f})});
    c.hardUnary.push_back(
        {"exp2",
         join(around({128.0f, 126.0f, -125.0f, -126.0f, -149.0f, -150.0f, 0x1p-25f, -0x1p-25f}, false),
              {-0x1.d8568p-10f, -0x1.595aep-14f, -0x1.7719ep-19f, 0x1.9a4e4p-1f, -0x1.32d8ep+0f, -0x1.96c7p-3f,
               0x1.cd272p+0f, -0x1.1e162p-12f})});
    c.hardUnary.push_back(
        {"expm1",
         join(around({0x1p-25f, -0x1p-25f, 18.0f, -18.0f, 89.0f, 0x1.62e43p+6f, 0x1p-24f, -0x1p-24f}, false),
              {-0x1.bc1a6p-6f, -0x1.a8ebap-6f, 0x1p-23f, 0x1.3988ep-22f, -0x1.cc66ap-17f, 0x1.dbe9ep-12f,
               -0x1.22a7cp-16f})});
    c.hardUnary.push_back({"sinh",
                           join(around({0x1p-13f, 90.0f, 0x1.65a9fap+6f}, true),
                                {0x1.250cp-11f, 0x1.37adcp-8f, 0x1.89418p-1f, 0x1.f51a6p-11f, 0x1.ee016p-1f,
                                 0x1.aacb8p-4f, 0x1.7505cp-9f, 0x1.8609cp+1f})});
    c.hardUnary.push_back({"cosh",
                           join(around({0x1p-12f, 90.0f, 0x1.65a9fap+6f}, true),
                                {0x1.deeeap-11f, -0x1.deeeap-11f, 0x1.8a85cp-10f, -0x1.8a85cp-10f, 0x1.e3736p-1f,
                                 -0x1.e3736p-1f, 0x1.3988ep-11f, -0x1.3988ep-11f})});
    c.hardUnary.push_back({"tanh",
                           join(around({0x1p-13f, 10.0f, 0x1.205966p+3f}, true),
                                {0x1.5969ap+2f, 0x1.9c696p-7f, 0x1.43d32p-6f, 0x1.054fp-2f, 0x1.a6b56p+2f, 0x1.5914p-8f,
                                 0x1.0f166p+1f, 0x1.71374p-12f})});

    c.unaryF64.push_back({{"exp_f64", [](double x) { return fm::exp(x); }, mpfr_exp}, -750.0, 750.0});
    c.unaryF64.push_back({{"exp2_f64", [](double x) { return fm::exp2(x); }, mpfr_exp2}, -1080.0, 1030.0});
    c.unaryF64.push_back({{"expm1_f64", [](double x) { return fm::expm1(x); }, mpfr_expm1}, -2.0, 2.0});
    c.unaryF64.push_back({{"sinh_f64", [](double x) { return fm::sinh(x); }, mpfr_sinh}, -25.0, 25.0});
    c.unaryF64.push_back({{"cosh_f64", [](double x) { return fm::cosh(x); }, mpfr_cosh}, -25.0, 25.0});
    c.unaryF64.push_back({{"tanh_f64", [](double x) { return fm::tanh(x); }, mpfr_tanh}, -10.0, 10.0});
}

}  // namespace fxltest::oracle
