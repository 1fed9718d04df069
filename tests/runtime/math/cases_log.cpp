#include <cmath>
#include <initializer_list>
#include <vector>

#include "math_cases.hpp"
#include "runtime/math/fn_log.hpp"

namespace fxltest::oracle {

void addLogCases(FunctionCases& c)
{
    namespace m = fxl::math;
    c.unaryF32.push_back({"log", [](float x) { return m::log(x); }, mpfr_log, [](double x) { return ::log(x); }});
    c.unaryF32.push_back({"log2", [](float x) { return m::log2(x); }, mpfr_log2, [](double x) { return ::log2(x); }});
    c.unaryF32.push_back(
        {"log10", [](float x) { return m::log10(x); }, mpfr_log10, [](double x) { return ::log10(x); }});
    c.unaryF32.push_back(
        {"log1p", [](float x) { return m::log1p(x); }, mpfr_log1p, [](double x) { return ::log1p(x); }});
    c.unaryF32.push_back(
        {"asinh", [](float x) { return m::asinh(x); }, mpfr_asinh, [](double x) { return ::asinh(x); }});
    c.unaryF32.push_back(
        {"acosh", [](float x) { return m::acosh(x); }, mpfr_acosh, [](double x) { return ::acosh(x); }});
    c.unaryF32.push_back(
        {"atanh", [](float x) { return m::atanh(x); }, mpfr_atanh, [](double x) { return ::atanh(x); }});

    c.unaryF64.push_back({{"log_f64", [](double x) { return m::log(x); }, mpfr_log}, 0.0, 10.0});
    c.unaryF64.push_back({{"log2_f64", [](double x) { return m::log2(x); }, mpfr_log2}, 0.0, 10.0});
    c.unaryF64.push_back({{"log10_f64", [](double x) { return m::log10(x); }, mpfr_log10}, 0.0, 10.0});
    c.unaryF64.push_back({{"log1p_f64", [](double x) { return m::log1p(x); }, mpfr_log1p}, -1.0, 10.0});
    c.unaryF64.push_back({{"asinh_f64", [](double x) { return m::asinh(x); }, mpfr_asinh}, -10.0, 10.0});
    c.unaryF64.push_back({{"acosh_f64", [](double x) { return m::acosh(x); }, mpfr_acosh}, 1.0, 10.0});
    c.unaryF64.push_back({{"atanh_f64", [](double x) { return m::atanh(x); }, mpfr_atanh}, -1.0, 1.0});

    // the boundaries of fn_log.hpp's paths (each value with its float neighbours)
    auto around = [](std::initializer_list<float> vs) {
        std::vector<float> out;
        for (float v : vs)
            for (float s : {v, -v}) {
                out.push_back(s);
                out.push_back(std::nextafter(s, INFINITY));
                out.push_back(std::nextafter(s, -INFINITY));
            }
        return out;
    };
    // x near 1 (the table row with log c = 0 is [1-2^-9, 1+2^-8)), powers of 2 and of 10 (exact
    // results), the row boundaries around 1, the ends of the reduced interval
    const std::vector<float> logs =
        around({1.0f,       0.5f,      1.0f - 0x1p-9f, 1.0f + 0x1p-8f, 2.0f, 0x1p-126f, 0x1p-149f, 0x1p127f,
                0x1.6bp-1f, 0x1.6bp0f, 10.0f,          100.0f,         1e3f, 1e4f,      1e5f,      1e6f,
                1e7f,       1e8f,      1e9f,           1e10f,          0.1f, 0.01f});
    c.hardUnary.push_back({"log", logs});
    c.hardUnary.push_back({"log2", logs});
    c.hardUnary.push_back({"log10", logs});
    // |x| < 2^-26 returns x; 1 + x is inexact in double from 2^53 on
    c.hardUnary.push_back(
        {"log1p",
         around({0x1p-26f, 0x1p-25f, 1.0f, 0x1p-9f, 0x1p-8f, 0.5f, 0x1p53f, 0x1p54f, 0x1p24f, 3.4028235e38f})});
    // |x| < 2^-12 returns x; 2 switches between the log1p and the log form
    c.hardUnary.push_back({"asinh", around({0x1p-12f, 0x1p-11f, 2.0f, 1.0f, 0x1p26f, 0x1p27f, 3.4028235e38f})});
    c.hardUnary.push_back({"acosh", around({1.0f, 1.0f + 0x1p-23f, 2.0f, 0x1p26f, 0x1p27f, 3.4028235e38f})});
    c.hardUnary.push_back({"atanh", around({0x1p-12f, 0x1p-11f, 0.5f, 1.0f, 1.0f - 0x1p-24f, 1.0f - 0x1p-23f})});
    // inputs whose fast path fails the rounding test (the accurate path decides them)
    c.hardUnary.push_back(
        {"log",
         {0x1.f2823cp-90f,  0x1.49430ap-69f,  0x1.6af1a4p-89f,  0x1.e61238p-27f,  0x1.34dd14p+32f,  0x1.728bd6p+112f,
          0x1.bb40d4p+7f,   0x1.be46c2p+95f,  0x1.7a9e0ep-44f,  0x1.cb534cp+13f,  0x1.0bbddp+105f,  0x1.79ee1p+122f,
          0x1.1cb978p-75f,  0x1.9e36f8p+80f,  0x1.c3fec6p-97f,  0x1.e3f9aep-55f,  0x1.ff2a68p-73f,  0x1.e25cc2p-52f,
          0x1.51f628p-54f,  0x1.f0ddep-8f,    0x1.c1a22p+45f,   0x1.9711dcp+15f,  0x1.ee1b66p+24f,  0x1.6b6dfep-124f,
          0x1.e201ap-124f,  0x1.55c90ep-123f, 0x1.5c1bd8p-122f, 0x1.8f5266p-122f, 0x1.385052p-121f, 0x1.2cadcep-120f,
          0x1.61ff4cp-120f, 0x1.a5e53ep-120f, 0x1.e45dd8p-120f, 0x1.528acp-119f,  0x1.6cdae4p-119f, 0x1.9d1f6ep-119f,
          0x1.a0ad4cp-118f, 0x1.e88594p-118f, 0x1.0286c8p-116f, 0x1.996896p-115f, 0x1.301682p-113f, 0x1.5411aap-113f,
          0x1.27fe5ep-112f, 0x1.3b3ccap-112f, 0x1.6580a8p-112f, 0x1.80c1f4p-112f, 0x1.4bc09p-111f,  0x1.41f0a4p-110f,
          0x1.4ece16p-109f, 0x1.e59be2p-108f, 0x1.2cd4e8p-107f, 0x1.02ab36p-106f, 0x1.35d92ap-106f}});
    c.hardUnary.push_back(
        {"log2",
         {0x1.d7012p-112f, 0x1.4bf912p+57f, 0x1.d7012p+104f,  0x1.d7012p-73f,   0x1.2e88cep+108f, 0x1.d7012p-85f,
          0x1.22952p+67f,  0x1.2e88cep-84f, 0x1.b637a2p-10f,  0x1.d7012p+121f,  0x1.d7012p-65f,   0x1.beafb2p-13f,
          0x1.d7012p+83f,  0x1.d7012p-111f, 0x1.beafb2p+10f,  0x1.ff800cp-12f,  0x1.ff800cp+9f,   0x1.4bf912p+37f,
          0x1.2e88cep+98f, 0x1.ea1f18p+26f, 0x1.2e88cep-109f, 0x1.2e88cep+124f, 0x1.beafb2p-11f,  0x1.d7012p-125f,
          0x1.ea1f18p-24f, 0x1.22952p+110f, 0x1.d7012p-103f,  0x1.22952p+75f,   0x1.2e88cep-96f,  0x1.beafb2p-12f,
          0x1.5b2c84p+11f, 0x1.ff800cp-13f, 0x1.2e88cep-75f,  0x1.22952p+69f,   0x1.2e88cep+68f,  0x1.ea1f18p-17f,
          0x1.d7012p+89f,  0x1.22952p-118f, 0x1.aa932cp+29f}});
    c.hardUnary.push_back(
        {"log10",
         {0x1.7a21dp-35f,   0x1.134432p-8f,   0x1.e2b60ep-73f, 0x1.49cf06p+85f,  0x1.5f3ca2p+11f, 0x1.d8aa44p-32f,
          0x1.9f1198p+39f,  0x1.11e20ap+47f,  0x1.c14dd4p-25f, 0x1.84352ep-123f, 0x1.14a46cp+47f, 0x1.a0d9acp-46f,
          0x1.34cafep+104f, 0x1.3fdd6ep+101f, 0x1.207a4ap+76f, 0x1.857436p-41f,  0x1.f007bp-36f,  0x1.920cc4p-45f,
          0x1.41bba4p-99f,  0x1.750f98p+49f,  0x1.ed2c76p-1f,  0x1.4ba008p+57f,  0x1.7f15ccp-9f,  0x1.367d14p-119f,
          0x1.46806ap+3f,   0x1.41af0ep+3f,   0x1.f35ec2p+41f, 0x1.9fb95p-56f}});
    c.hardUnary.push_back(
        {"log1p",
         {0x1.1315c6p+71f, 0x1.cf071cp+96f,  -0x1.d1a8dcp-10f, 0x1.ef9732p+117f, 0x1.c75178p+72f,  -0x1.161204p-2f,
          0x1.f34e58p+11f, 0x1.728bd6p+112f, 0x1.ff4e6p+25f,   0x1.6b18cp+49f,   0x1.6fa7p-19f,    0x1.d459a6p+65f,
          0x1.54ef86p+0f,  0x1.8a1386p+46f,  0x1.b0ed0ep+85f,  0x1.ed630cp+107f, 0x1.13c432p-4f,   -0x1.9a1258p-7f,
          0x1.ec60bep+62f, 0x1.500126p-15f,  0x1.cd71a2p+74f,  0x1.51c28p+73f,   -0x1.1ab3fp-3f,   0x1.606c78p+22f,
          0x1.778d58p+58f, 0x1.9889b6p+52f,  -0x1.2070d8p-15f, 0x1.e4d416p+94f,  -0x1.30d656p-15f, 0x1.87e0cap+99f,
          0x1.88517p-8f,   0x1.79ee1p+122f,  0x1.08dad8p+5f,   0x1.16e4d6p+85f,  0x1.4860bp+10f,   0x1.18c6d2p+45f,
          0x1.ea8d98p-17f, 0x1.553862p+28f,  0x1.7d0ecep+0f,   0x1.6ad4ep+69f}});
    c.hardUnary.push_back(
        {"asinh",
         {0x1.52ea6p+42f,    -0x1.1d90eap+69f, 0x1.dd7cd4p+69f,  0x1.f6efcap+28f,  -0x1.014bd2p+114f, -0x1.cd5086p+105f,
          0x1.dfb4p+109f,    -0x1.f6f116p+59f, 0x1.420f18p-6f,   -0x1.94f4e8p+98f, 0x1.ddd3c2p+38f,   -0x1.d12eccp-12f,
          -0x1.4fde46p+8f,   0x1.58a40cp+83f,  0x1.35f9bap+77f,  0x1.380036p+47f,  -0x1.5f313ap+41f,  -0x1.06454ap+49f,
          -0x1.b8d0eep+27f,  0x1.e7c7d2p+17f,  0x1.f6bf38p-4f,   0x1.abfddcp+96f,  0x1.c4bd58p-9f,    -0x1.d2cccep+119f,
          -0x1.ee33b4p+11f,  0x1.024c22p+75f,  0x1.d465f2p+83f,  0x1.a8b2ccp+73f,  -0x1.8cbfeap+38f,  -0x1.43cc74p+35f,
          -0x1.d67764p+6f,   0x1.c0b924p+16f,  -0x1.7221a2p+50f, 0x1.4fd968p+42f,  -0x1.f63f84p-6f,   0x1.d0c89ep+35f,
          -0x1.887af2p+118f, 0x1.be8888p+97f,  -0x1.396cfep+51f}});
    c.hardUnary.push_back(
        {"acosh",
         {0x1.1315c6p+70f,  0x1.cf071cp+95f,  0x1.3377dep+85f,  0x1.34dd14p+31f,  0x1.55c574p+45f,  0x1.9889b6p+51f,
          0x1.2961dep+114f, 0x1.d8df6p+31f,   0x1.ef9732p+116f, 0x1.2a343p+42f,   0x1.c75178p+71f,  0x1.dbbe3ap+35f,
          0x1.b025a2p+99f,  0x1.728bd6p+111f, 0x1.8fd3e6p+123f, 0x1.dade26p+25f,  0x1.7b4f4cp+60f,  0x1.82358p+98f,
          0x1.5190cp+77f,   0x1.d39a5p+6f,    0x1.426daap+115f, 0x1.386986p+122f, 0x1.cd5086p+105f, 0x1.89c112p+114f,
          0x1.6b18cp+48f,   0x1.6e9aacp+105f, 0x1.d56c46p+70f,  0x1.bec6d6p+26f,  0x1.e3a6aep+102f, 0x1.76677p+92f,
          0x1.e1883cp+94f,  0x1.c99cc2p+37f,  0x1.1fdfb2p+7f,   0x1.47fd88p+111f, 0x1.d459a6p+64f,  0x1.8a1386p+45f,
          0x1.be46c2p+94f,  0x1.3ff594p+11f,  0x1.b0ed0ep+84f,  0x1.d97b64p+46f}});
    c.hardUnary.push_back(
        {"atanh", {0x1.df1af2p-3f,  0x1.89ad84p-3f, 0x1.e44d42p-6f,  0x1.95f2e8p-1f,  0x1.6fe13ap-7f, 0x1.713748p-12f,
                   0x1.71373ep-12f, 0x1.c77fd4p-4f, 0x1.7f5d2cp-2f,  0x1.44006p-8f,   0x1.48ebacp-8f, 0x1.54f994p-6f,
                   0x1.8db9cap-11f, 0x1.40a9c6p-5f, 0x1.bcee6cp-11f, 0x1.eeb82p-6f,   0x1.97982ep-2f, 0x1.d863b4p-1f,
                   0x1.71374p-12f,  0x1.7f9a92p-2f, 0x1.b08ebcp-3f,  0x1.43608ep-9f,  0x1.64e8fep-6f, 0x1.943f3p-10f,
                   0x1.f3931ap-7f,  0x1.08c8d4p-6f, 0x1.302eb8p-4f,  0x1.4f7472p-11f, 0x1.4850a2p-9f, 0x1.4f7474p-11f,
                   0x1.e88494p-8f,  0x1.4d1bcap-9f, 0x1.71374ap-12f, 0x1.184a06p-10f}});
}

}  // namespace fxltest::oracle
