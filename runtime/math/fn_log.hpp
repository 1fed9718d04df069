#pragma once
// The log family: log, log2, log10, log1p, asinh, acosh, atanh, for float and double.
//
// Method. A positive double x is split as x = 2^e * m with m in [0x1.6bp-1, 0x1.6bp0) (about
// [0.71, 1.42)), by integer arithmetic on its bits, and m's interval of 128 (index i) gives a
// constant invc ~ 1/c with 12 significant bits, with log(c) = -log(invc) in the table as a
// double-double (the interval [1-2^-9, 1+2^-8) around 1 has invc = 1, log c = 0 exactly, so
// that no cancellation occurs near x = 1). Then r = m*invc - 1, |r| < 2^-7.98, and
//   log x = e*ln2 + log c + log1p(r).
//
// float functions. Fast path: the float input widened to double, log1p(r) by its Taylor
// polynomial of degree 7 (truncation < |r|^8/8, i.e. 2^-58.9 relative to log1p(r)), summed in
// double. For a float x, m has 24 bits and invc 12, so r = m*invc - 1 is exact (for the double
// arguments of log1p & co, m is split so that r is within 2^-53 relative). The rounding errors
// (ln2 and log c stored to 2^-53 relative, the products and sums, each 2^-53 of
// a term at most 3 times the result: |e*ln2|, |log c| <= 3|log x| since m's interval excludes
// cancellation) add up to less than 12 * 2^-53 < 2^-49.4 relative for log, log2, log10; the
// functions built on log1p (log1p, asinh, acosh, atanh) add an argument computed with at most 6
// further roundings (each 2^-53, and log1p(a(1+d)) = log1p(a)(1+d') with |d'| <= |d|), which keeps
// them below 2^-48. The rounding test: the float result is decided when the double y is farther
// than eps*|y| from a midpoint between two floats, eps = 2^-47 (log, log2, log10) or 2^-45
// (the others), i.e. the 29 low mantissa bits of y differ from 0x10000000 by more than 64
// (resp. 256) units of y's last place (|y| < 2^53 ulp(y)): every result here is a normal float,
// so the true value then lies on the same side of every midpoint as y and rounds to the same
// float. Since the exact log of a float other than 1 is irrational (and log2, log10 are exact only
// at powers of 2 and 10, which are floats, not midpoints), the test fails only near genuine hard
// cases: about 2^-22 of the inputs. Those take the accurate path: the same reduction with
// double-double arithmetic (log c and ln2 as double-doubles, log1p(r) = r - r^2/2 + r^3*A(r) with
// r^2, r^3 and the leading coefficient 1/3 of A in double-double, A to degree 8, truncation
// 2^-88): relative error below 2^-75, far below the distance of any float's log from a midpoint
// (the exhaustive 2^32 sweep, tests/bench/bench_math_exhaustive, confirms every input), then a
// correct rounding of the double-double to float (a double that is exactly a midpoint is moved
// off it in the direction of the low part).
//
// double functions: the accurate path alone (plus the exact double-double arguments 1+x,
// x + sqrt(x^2 +- 1), 2x/(1-x)), rounded to double: error about 0.5 ulp + 2^-70 relative,
// faithful (< 1 ulp).
//
// Special values follow C99 Annex F: log(+-0) = -inf, log(x<0) = NaN, log(+inf) = +inf,
// log1p(-1) = -inf, acosh(1) = +0, atanh(+-1) = +-inf, odd functions keep the sign of zero;
// every NaN result is the canonical NaN.
#include <cstdint>

#include "runtime/math/bits.hpp"
#include "runtime/math/double_double.hpp"
#include "runtime/math/hostdev.hpp"

namespace fxl::math {
namespace detail_log {

// 128 rows {invc, log(c) high, log(c) low}: row i covers the doubles with bits in
// [kOff + i*2^45, kOff + (i+1)*2^45) (scaled into [0x1.6bp-1, 0x1.6bp0)); row 74 is [1-2^-9, 1+2^-8).
FXL_HD inline const double* table()
{
    static constexpr double T[128 * 3] = {
        0x1.6820000000000p+0,
        -0x1.5d76dd9a778d0p-2,
        -0x1.279b3b76168b3p-57,
        0x1.6620000000000p+0,
        -0x1.57c2f53b05209p-2,
        -0x1.4c017c2a52127p-57,
        0x1.6420000000000p+0,
        -0x1.5206dfd186716p-2,
        -0x1.9fa51e79aff41p-57,
        0x1.6240000000000p+0,
        -0x1.4c9f09e152c3cp-2,
        -0x1.10c78fe91038bp-56,
        0x1.6060000000000p+0,
        -0x1.472fdbe4fd3f2p-2,
        -0x1.b2629fc10f5b7p-56,
        0x1.5e80000000000p+0,
        -0x1.41b941cce0beep-2,
        -0x1.6fec1bc0376f6p-56,
        0x1.5ca0000000000p+0,
        -0x1.3c3b2736b3f61p-2,
        0x1.747a74f77e325p-57,
        0x1.5ac0000000000p+0,
        -0x1.36b5776bc1117p-2,
        0x1.a1e958f770386p-56,
        0x1.58e0000000000p+0,
        -0x1.31281d5f10fa4p-2,
        -0x1.ef195748543f8p-56,
        0x1.5720000000000p+0,
        -0x1.2bf287cc41362p-2,
        0x1.6156c4e26290bp-58,
        0x1.5560000000000p+0,
        -0x1.26b620935063cp-2,
        -0x1.1767e2e6f25cep-57,
        0x1.53a0000000000p+0,
        -0x1.2172d5c2abbbbp-2,
        0x1.594223fc705c0p-56,
        0x1.51e0000000000p+0,
        -0x1.1c2895218f2c0p-2,
        0x1.ed37f8d4b1345p-58,
        0x1.5020000000000p+0,
        -0x1.16d74c2e8ac66p-2,
        0x1.e134b941dc654p-59,
        0x1.4e60000000000p+0,
        -0x1.117ee81dfe4c4p-2,
        0x1.10eba2e6869b7p-57,
        0x1.4ca0000000000p+0,
        -0x1.0c1f55d88a8a1p-2,
        0x1.9ef6c0426ae00p-56,
        0x1.4b00000000000p+0,
        -0x1.071b85fcd590dp-2,
        -0x1.d1707f97bde80p-58,
        0x1.4960000000000p+0,
        -0x1.021164a9290ddp-2,
        -0x1.43f9daeecc232p-58,
        0x1.47a0000000000p+0,
        -0x1.f939c4e72d59dp-3,
        -0x1.e500ec33c030bp-63,
        0x1.4600000000000p+0,
        -0x1.ef0adcbdc5936p-3,
        -0x1.48637950dc20dp-57,
        0x1.4460000000000p+0,
        -0x1.e4ceeda61dda6p-3,
        -0x1.a0e33f47845a2p-57,
        0x1.42e0000000000p+0,
        -0x1.db50da24bd322p-3,
        0x1.6fa403574f7afp-57,
        0x1.4140000000000p+0,
        -0x1.d0fb7f2255e51p-3,
        0x1.4ac818ceca4c4p-57,
        0x1.3fc0000000000p+0,
        -0x1.c765b9e4d68d6p-3,
        0x1.2992d12127811p-57,
        0x1.3e20000000000p+0,
        -0x1.bcf6736f7d6c7p-3,
        -0x1.76b0a6e1c43a2p-60,
        0x1.3ca0000000000p+0,
        -0x1.b34885022e81ep-3,
        0x1.5e99b6f2309fap-58,
        0x1.3b20000000000p+0,
        -0x1.a98ed238b8089p-3,
        -0x1.bfed1ee6b0199p-58,
        0x1.39a0000000000p+0,
        -0x1.9fc93e5409c31p-3,
        0x1.7329d09885e3bp-59,
        0x1.3820000000000p+0,
        -0x1.95f7ac2b3b4f5p-3,
        -0x1.442f000de8626p-59,
        0x1.36a0000000000p+0,
        -0x1.8c19fe2982058p-3,
        0x1.fe1f2836ed575p-57,
        0x1.3520000000000p+0,
        -0x1.8230164c1a332p-3,
        0x1.14bad17a5bddbp-57,
        0x1.33a0000000000p+0,
        -0x1.7839d62023552p-3,
        0x1.8b08013e47f9cp-57,
        0x1.3240000000000p+0,
        -0x1.6f0d28ae56b4cp-3,
        0x1.906d99184b992p-57,
        0x1.30e0000000000p+0,
        -0x1.65d5e99cc3c47p-3,
        -0x1.e5b8d5321bfa8p-57,
        0x1.2f60000000000p+0,
        -0x1.5bbc05f140486p-3,
        -0x1.258abb468d482p-58,
        0x1.2e00000000000p+0,
        -0x1.526e5e3a1b438p-3,
        0x1.746ff8a470d3ap-57,
        0x1.2ca0000000000p+0,
        -0x1.4915d832fb562p-3,
        0x1.dc00d79ec3456p-57,
        0x1.2b40000000000p+0,
        -0x1.3fb25a59528cbp-3,
        0x1.065329c022936p-58,
        0x1.29e0000000000p+0,
        -0x1.3643cad0588f1p-3,
        0x1.c37b3480acbdbp-58,
        0x1.2880000000000p+0,
        -0x1.2cca0f5f5f251p-3,
        0x1.e3235fe23f016p-57,
        0x1.2740000000000p+0,
        -0x1.2423113ba50e3p-3,
        0x1.e3ba766fc9a72p-66,
        0x1.25e0000000000p+0,
        -0x1.1a93b7d42f611p-3,
        0x1.77e9d8abe639fp-57,
        0x1.24a0000000000p+0,
        -0x1.11d8e5e290472p-3,
        0x1.05ad155aa5374p-57,
        0x1.2340000000000p+0,
        -0x1.08338affa282ap-3,
        0x1.86a6fb83b1dbap-57,
        0x1.2200000000000p+0,
        -0x1.fec9131dbeabbp-4,
        0x1.5746b9981b36cp-58,
        0x1.20c0000000000p+0,
        -0x1.ed1794e83780cp-4,
        0x1.43749d0483dcap-58,
        0x1.1f80000000000p+0,
        -0x1.db5270187d927p-4,
        -0x1.e15ab8607d2acp-58,
        0x1.1e20000000000p+0,
        -0x1.c7af7a8472d76p-4,
        -0x1.472281ea1f818p-58,
        0x1.1d00000000000p+0,
        -0x1.b78c82bb0eda1p-4,
        -0x1.0878cf0327e21p-61,
        0x1.1bc0000000000p+0,
        -0x1.a58b60c2b2324p-4,
        0x1.cd71727ca7984p-58,
        0x1.1a80000000000p+0,
        -0x1.9375e55595edep-4,
        0x1.e463f9e4dd920p-59,
        0x1.1940000000000p+0,
        -0x1.814be23f8c036p-4,
        -0x1.1c0ed417efe41p-58,
        0x1.1820000000000p+0,
        -0x1.70e12b325c82ap-4,
        0x1.e4d51d665d0f7p-58,
        0x1.16e0000000000p+0,
        -0x1.5e8fa4d8591c7p-4,
        0x1.8fb947780f93dp-63,
        0x1.15c0000000000p+0,
        -0x1.4e01108a35ae6p-4,
        0x1.81069d28db75bp-59,
        0x1.1480000000000p+0,
        -0x1.3b87598b1b6eep-4,
        0x1.594aca31297a3p-61,
        0x1.1360000000000p+0,
        -0x1.2ad449eff2316p-4,
        0x1.d72f82dc39ca0p-59,
        0x1.1240000000000p+0,
        -0x1.1a0fba1bf8a52p-4,
        0x1.9e731491f21c9p-64,
        0x1.1120000000000p+0,
        -0x1.0939853a1cc8cp-4,
        0x1.3c34f846e1c9fp-58,
        0x1.0fe0000000000p+0,
        -0x1.ecdf0f87b6168p-5,
        -0x1.0c529ff02178cp-59,
        0x1.0ec0000000000p+0,
        -0x1.cae72fb95c20bp-5,
        0x1.f9012d8df3f0ep-59,
        0x1.0dc0000000000p+0,
        -0x1.ac97221711f8dp-5,
        -0x1.f780991163015p-60,
        0x1.0ca0000000000p+0,
        -0x1.8a5a9cc614ca4p-5,
        0x1.4800c074d0c95p-59,
        0x1.0b80000000000p+0,
        -0x1.67f94f094bd98p-5,
        -0x1.f3e7e4ed6b2d6p-60,
        0x1.0a60000000000p+0,
        -0x1.4572e981cad90p-5,
        0x1.5064c828a904cp-60,
        0x1.0960000000000p+0,
        -0x1.26a32a86d2f72p-5,
        0x1.ea56fe240fa05p-62,
        0x1.0840000000000p+0,
        -0x1.03d5d85e73eefp-5,
        -0x1.2c1da539d60edp-61,
        0x1.0740000000000p+0,
        -0x1.c98d18d00c814p-6,
        0x1.50589df0f25bfp-61,
        0x1.0620000000000p+0,
        -0x1.83624fba83bd7p-6,
        -0x1.c96b4004622b7p-61,
        0x1.0520000000000p+0,
        -0x1.44c28d451662cp-6,
        -0x1.4a08cf28350efp-61,
        0x1.0420000000000p+0,
        -0x1.05e547826bc91p-6,
        0x1.e21f5e1f7e49ep-60,
        0x1.0300000000000p+0,
        -0x1.7dc475f810a77p-7,
        0x1.16d7687d3df21p-62,
        0x1.0200000000000p+0,
        -0x1.fe02a6b106789p-8,
        0x1.e44b7e3711ebfp-67,
        0x1.0100000000000p+0,
        -0x1.ff00aa2b10bc0p-9,
        -0x1.2821ad5a6d353p-63,
        0x1.0000000000000p+0,
        0x0.0p+0,
        0x0.0p+0,
        0x1.fc00000000000p-1,
        0x1.010157588de71p-7,
        0x1.46662d417ced0p-62,
        0x1.f820000000000p-1,
        0x1.fbea8b13c03d9p-7,
        0x1.27b17e4e134e1p-62,
        0x1.f440000000000p-1,
        0x1.7c61b1cf5dee0p-6,
        0x1.b83db2ddc8012p-60,
        0x1.f080000000000p-1,
        0x1.f7a9b16782856p-6,
        -0x1.36c720c147756p-60,
        0x1.ecc0000000000p-1,
        0x1.39f07ba0ebd62p-5,
        0x1.4eb2172bbbf58p-59,
        0x1.e920000000000p-1,
        0x1.766d923c20ff8p-5,
        0x1.505e384982ab6p-59,
        0x1.e580000000000p-1,
        0x1.b35dd9b58baadp-5,
        -0x1.6526154e379dfp-61,
        0x1.e1e0000000000p-1,
        0x1.f0c30c1116351p-5,
        0x1.94ee90500a333p-62,
        0x1.de60000000000p-1,
        0x1.163d6ef957a03p-4,
        0x1.3f1c9c64537c0p-60,
        0x1.dae0000000000p-1,
        0x1.345179b63dd42p-4,
        0x1.e9b0a868391a8p-63,
        0x1.d780000000000p-1,
        0x1.518874226130ap-4,
        0x1.d96258b3d8a8fp-60,
        0x1.d420000000000p-1,
        0x1.6ef528c056a2cp-4,
        -0x1.8b5d9f2b77346p-58,
        0x1.d0c0000000000p-1,
        0x1.8c985e9b9ec84p-4,
        -0x1.bbf21801ae8cbp-59,
        0x1.cd80000000000p-1,
        0x1.a956d3ecade63p-4,
        0x1.e5300b12bd55ep-58,
        0x1.ca40000000000p-1,
        0x1.c6494a2e418a6p-4,
        -0x1.754df3b1a5d90p-60,
        0x1.c720000000000p-1,
        0x1.e2507702af03bp-4,
        0x1.0cff5bbb6e609p-58,
        0x1.c400000000000p-1,
        0x1.fe89139dbd566p-4,
        -0x1.ac9f4215f9393p-58,
        0x1.c0e0000000000p-1,
        0x1.0d79e7cd48e5ap-3,
        0x1.1423c24f1d3c1p-59,
        0x1.bde0000000000p-1,
        0x1.1b35ae3b81dbfp-3,
        -0x1.173b00b54eb3bp-57,
        0x1.bac0000000000p-1,
        0x1.299d30c606ea7p-3,
        -0x1.ff0c47ee4eafbp-57,
        0x1.b7e0000000000p-1,
        0x1.36f4c27577593p-3,
        0x1.d97c5ab133ffep-60,
        0x1.b4e0000000000p-1,
        0x1.44f8b726f8efbp-3,
        0x1.4886573767e0fp-57,
        0x1.b200000000000p-1,
        0x1.527e5e4a1b58dp-3,
        -0x1.71a9682395bfdp-61,
        0x1.af20000000000p-1,
        0x1.601b076e7a8a9p-3,
        0x1.afa9bf91ca867p-57,
        0x1.ac60000000000p-1,
        0x1.6d35fee52b83bp-3,
        0x1.814b09b1e0a37p-57,
        0x1.a980000000000p-1,
        0x1.7b0091651528cp-3,
        0x1.4069f303518c8p-57,
        0x1.a6e0000000000p-1,
        0x1.87ad07c493478p-3,
        0x1.5878f399ec494p-57,
        0x1.a420000000000p-1,
        0x1.9509aa0044f8fp-3,
        0x1.9d6d34d717c19p-58,
        0x1.a160000000000p-1,
        0x1.a27cc30640ecbp-3,
        -0x1.6d39b16890a9ep-57,
        0x1.9ec0000000000p-1,
        0x1.af6895610dbaep-3,
        -0x1.445fbd49bb184p-60,
        0x1.9c20000000000p-1,
        0x1.bc69684aee63ep-3,
        -0x1.2a2ebe0642956p-57,
        0x1.99a0000000000p-1,
        0x1.c8df7cb9a8f77p-3,
        0x1.0bd63879b9fb6p-58,
        0x1.9700000000000p-1,
        0x1.d60a17f903515p-3,
        -0x1.c0df841a71b7ap-57,
        0x1.9480000000000p-1,
        0x1.e2a877a6b2c12p-3,
        -0x1.fa21e3df99430p-58,
        0x1.9200000000000p-1,
        0x1.ef5ade4dcffe6p-3,
        -0x1.08ab2ddc708a0p-58,
        0x1.8fa0000000000p-1,
        0x1.fb7d86eee3b90p-3,
        -0x1.8736e025ebdaep-59,
        0x1.8d40000000000p-1,
        0x1.03d95a1d67686p-2,
        -0x1.dfc3727bdcd30p-58,
        0x1.8ac0000000000p-1,
        0x1.0a504e97bb40cp-2,
        0x1.29ccd218877e5p-57,
        0x1.8860000000000p-1,
        0x1.107e404ab0f81p-2,
        0x1.b79f71540978ap-58,
        0x1.8620000000000p-1,
        0x1.1661caecb9ba4p-2,
        -0x1.fff9fc4aba901p-56,
        0x1.83c0000000000p-1,
        0x1.1ca28c64bae54p-2,
        -0x1.3e10bd559adb8p-56,
        0x1.8180000000000p-1,
        0x1.22981fbef797bp-2,
        -0x1.0b04ac06cebe0p-59,
        0x1.7f40000000000p-1,
        0x1.2896a13e086a4p-2,
        -0x1.2fd81e96ad9cfp-56,
        0x1.7d00000000000p-1,
        0x1.2e9e2bce12286p-2,
        0x1.8251a3b83d97ap-62,
        0x1.7ae0000000000p-1,
        0x1.34585a594b8adp-2,
        -0x1.9bf230f410fddp-56,
        0x1.78a0000000000p-1,
        0x1.3a71c56bb48c6p-2,
        0x1.1bed6a2120b29p-57,
        0x1.7680000000000p-1,
        0x1.403d086cea79cp-2,
        -0x1.0a8bb78cf7cdap-56,
        0x1.7460000000000p-1,
        0x1.4610bc29c5e18p-2,
        -0x1.64f9886472e95p-57,
        0x1.7240000000000p-1,
        0x1.4becf95d97913p-2,
        0x1.89bffb8b1f5d2p-57,
        0x1.7020000000000p-1,
        0x1.51d1d9310456cp-2,
        0x1.f5441b391c5d0p-57,
        0x1.6e20000000000p-1,
        0x1.5765f1749da6bp-2,
        0x1.a4d83e4faa5b5p-57,
        0x1.6c20000000000p-1,
        0x1.5d01dc49ff2e8p-2,
        0x1.5719f4bda516fp-58,
        0x1.6a20000000000p-1,
        0x1.62a5afc06121fp-2,
        -0x1.5aea088066ca7p-56,
    };
    return T;
}

inline constexpr uint64_t kOff = 0x3FE6B00000000000ull;
inline constexpr double kLn2 = 0x1.62e42fefa39efp-1;
inline constexpr double kLn2H = 0x1.62e42fefa4000p-1;  // 41 bits: e*kLn2H is exact
inline constexpr double kLn2L = -0x1.8432a1b0e2634p-43;
inline constexpr double kInvLn2 = 0x1.71547652b82fep+0;
inline constexpr double kInvLn2L = 0x1.777d0ffda0d24p-56;
inline constexpr double kInvLn10 = 0x1.bcb7b1526e50ep-2;
inline constexpr double kInvLn10L = 0x1.95355baaafad3p-57;
inline constexpr double kLog10of2 = 0x1.34413509f79ffp-2;

using dd::DD;
using dd::fastTwoSum;
using dd::twoSum;
FXL_HD inline DD add(DD a, DD b)
{
    const DD s = twoSum(a.hi, b.hi);
    return fastTwoSum(s.hi, s.lo + (a.lo + b.lo));
}
FXL_HD inline DD mul(DD a, DD b)
{
    const double p = a.hi * b.hi;
    double e = fma(a.hi, b.hi, -p);
    e = fma(a.hi, b.lo, e);
    e = fma(a.lo, b.hi, e);
    return fastTwoSum(p, e);
}
// sqrt of a normalized double-double h + l > 0
FXL_HD inline DD sqrtDD(double h, double l)
{
    const double s = sqrt(h);
    const double e = fma(-s, s, h) + l;
    return fastTwoSum(s, e / (2.0 * s));
}

// x = 2^e * m (x a positive normal double), i the table row
struct Reduced
{
    int e;
    int i;
    double m;
};
FXL_HD inline Reduced reduce(double x)
{
    const uint64_t u = bitsOf(x);
    const uint64_t t = u - kOff;
    const int64_t e = static_cast<int64_t>(t) >> 52;
    const int i = static_cast<int>((t >> 45) & 127u);
    return {static_cast<int>(e), i, doubleFromBits(u - (static_cast<uint64_t>(e) << 52))};
}

// log1p(r) - r for |r| < 2^-7.98 (Taylor, degree 7), in double
FXL_HD inline double log1pTail(double r)
{
    const double r2 = r * r;
    const double a = -0.5 + r * 0x1.5555555555555p-2;
    const double b = -0.25 + r * 0.2;
    const double c = -0x1.5555555555555p-3 + r * 0x1.2492492492492p-3;
    return r2 * (a + r2 * (b + r2 * c));
}

// fast path: the natural log of a positive normal double x (plus corr, a small correction
// added to log1p(r)). m is split into mh (its 41 high bits) and m - mh, so that mh*invc - 1 is
// exact and r is within 2^-53 of m*invc - 1 relative (exact for a float x). No fma here: without
// -mfma the host's fma is a library call. Returns {log c + log1p(r) + corr, e}.
struct Fast
{
    double lo;  // log c + log1p(r) + corr
    double e;
};
FXL_HD inline Fast fastParts(double x, double corr)
{
    const Reduced d = reduce(x);
    const double* T = table() + 3 * d.i;
    const double mh = doubleFromBits(bitsOf(d.m) & 0xfffffffffffff000ull);
    const double r = (mh * T[0] - 1.0) + (d.m - mh) * T[0];
    return {T[1] + (r + (log1pTail(r) + corr)), static_cast<double>(d.e)};
}
FXL_HD inline double fastLn(double x, double corr)
{
    const Fast f = fastParts(x, corr);
    return f.e * kLn2 + f.lo;
}
// the same for x a float (widened): r = m*invc - 1 is exact (m has 24 bits, invc 12)
FXL_HD inline Fast fastPartsF(double x)
{
    const Reduced d = reduce(x);
    const double* T = table() + 3 * d.i;
    const double r = d.m * T[0] - 1.0;
    return {T[1] + (r + log1pTail(r)), static_cast<double>(d.e)};
}

// the rounding test: true when y (|y| a normal float's range) is farther than tol units of its
// last place from a midpoint between two floats
FXL_HD inline bool decided(double y, uint32_t tol)
{
    const uint32_t low = static_cast<uint32_t>(bitsOf(y)) & 0x1fffffffu;
    return low - (0x10000000u - tol) > 2u * tol;
}
inline constexpr uint32_t kTolLog = 64;  // eps = 2^-47
inline constexpr uint32_t kTolLog1p = 256;  // eps = 2^-45

// accurate path: log(hi + lo) + eadj*ln2 as a double-double, for hi a positive normal
// double and |lo| <= ulp(hi); relative error below 2^-75
FXL_HD inline DD lnAcc(double hi, double lo, int eadj)
{
    const Reduced d = reduce(hi);
    const double* T = table() + 3 * d.i;
    const double invc = T[0];
    // m*invc = p + pl exactly, r = p - 1 exactly (p in [1/2, 2])
    const double p = d.m * invc;
    const double pl = fma(d.m, invc, -p);
    const double r = p - 1.0;
    const double corr = pl / p + lo / hi;
    // log1p(r) = r - r^2/2 + r^3 * (1/3 + B), B = -r/4 + r^2/5 - ... + r^8/11
    double B = 0x1.745d1745d1746p-4;
    B = -0.1 + r * B;
    B = 0x1.c71c71c71c71cp-4 + r * B;
    B = -0.125 + r * B;
    B = 0x1.2492492492492p-3 + r * B;
    B = -0x1.5555555555555p-3 + r * B;
    B = 0.2 + r * B;
    B = -0.25 + r * B;
    B = r * B;
    DD A = twoSum(0x1.5555555555555p-2, B);
    A.lo += 0x1.5555555555555p-56;
    const double r2 = r * r;
    const double r2l = fma(r, r, -r2);
    const double r3 = r2 * r;
    const double r3l = fma(r2, r, -r3) + r2l * r;
    DD s = fastTwoSum(r, -0.5 * r2);
    s.lo += -0.5 * r2l;
    s = add(s, mul({r3, r3l}, A));
    const double e = static_cast<double>(d.e + eadj);
    DD k = twoSum(e * kLn2H, T[1]);
    k.lo += e * kLn2L + (T[2] + corr);
    return add(k, s);
}

// the float nearest to v (normalized, |v| in the normal float range)
FXL_HD inline float roundToFloat(DD v)
{
    if ((bitsOf(v.hi) & 0x1fffffffu) == 0x10000000u && v.lo != 0) {
        // v.hi is a midpoint between two floats: move off it towards v
        const bool up = (v.lo > 0) == (v.hi > 0);
        return static_cast<float>(v.hi * (up ? 1.0 + 0x1p-40 : 1.0 - 0x1p-40));
    }
    return static_cast<float>(v.hi);
}

// log1p(a) for a = ah + al (normalized double-double, a > -1) as a double-double, accurate
FXL_HD inline DD ln1pAcc(double ah, double al)
{
    DD u = twoSum(1.0, ah);
    u = fastTwoSum(u.hi, u.lo + al);
    return lnAcc(u.hi, u.lo, 0);
}

// float specials
FXL_HD inline float logSpecialF(float x)
{
    const uint32_t u = bitsOf(x);
    if ((u & 0x7fffffffu) == 0) return floatFromBits(0xff800000u);
    if (u == 0x7f800000u) return x;
    return canonicalNanF();
}
// double x <= 0, inf, nan
FXL_HD inline double logSpecialD(double x)
{
    const uint64_t u = bitsOf(x);
    if ((u & 0x7fffffffffffffffull) == 0) return doubleFromBits(0xfff0000000000000ull);
    if (u == 0x7ff0000000000000ull) return x;
    return canonicalNanD();
}
// a positive finite double as hi * 2^eadj with hi normal
FXL_HD inline DD lnAccD(double x)
{
    if (x < 0x1p-1022) return lnAcc(x * 0x1p54, 0.0, -54);
    return lnAcc(x, 0.0, 0);
}

// asinh: log(|x| + sqrt(x^2+1)) for a float |x| >= 2^-12, accurate
FXL_HD inline DD asinhAccF(double ax)
{
    const double q = ax * ax;  // exact
    DD s2 = twoSum(q, 1.0);
    const DD s = sqrtDD(s2.hi, s2.lo);
    DD a = twoSum(ax, s.hi);
    a = fastTwoSum(a.hi, a.lo + s.lo);
    return lnAcc(a.hi, a.lo, 0);
}
// acosh for a float x > 1, accurate
FXL_HD inline DD acoshAccF(double x)
{
    if (x < 2.0) {
        const double t = x - 1.0;
        const double q = t * (2.0 + t);  // exact
        const DD s = sqrtDD(q, 0.0);
        DD a = twoSum(t, s.hi);
        a = fastTwoSum(a.hi, a.lo + s.lo);
        return ln1pAcc(a.hi, a.lo);
    }
    const double q = x * x;  // exact
    DD s2 = twoSum(q, -1.0);
    const DD s = sqrtDD(s2.hi, s2.lo);
    DD a = twoSum(x, s.hi);
    a = fastTwoSum(a.hi, a.lo + s.lo);
    return lnAcc(a.hi, a.lo, 0);
}
// atanh for 2^-12 <= ax < 1: log1p(2ax/(1-ax))/2, accurate
FXL_HD inline DD atanhAcc(double ax)
{
    const DD d = twoSum(1.0, -ax);
    const double n = 2.0 * ax;
    const double qh = n / d.hi;
    const double ql = (fma(-qh, d.hi, n) - qh * d.lo) / d.hi;
    const DD q = fastTwoSum(qh, ql);
    const DD v = ln1pAcc(q.hi, q.lo);
    return {0.5 * v.hi, 0.5 * v.lo};
}

}  // namespace detail_log

// ---- float ----

FXL_HD inline float log(float x)
{
    using namespace detail_log;
    if (bitsOf(x) - 1u >= 0x7f7fffffu) return logSpecialF(x);
    const double xd = static_cast<double>(x);
    const Fast f = fastPartsF(xd);
    const double y = f.e * kLn2 + f.lo;
    if (decided(y, kTolLog)) return static_cast<float>(y);
    return roundToFloat(lnAcc(xd, 0.0, 0));
}

FXL_HD inline float log2(float x)
{
    using namespace detail_log;
    if (bitsOf(x) - 1u >= 0x7f7fffffu) return logSpecialF(x);
    const double xd = static_cast<double>(x);
    const Fast f = fastPartsF(xd);
    const double y = f.lo * kInvLn2 + f.e;
    if (decided(y, kTolLog)) return static_cast<float>(y);
    return roundToFloat(mul(lnAcc(xd, 0.0, 0), {kInvLn2, kInvLn2L}));
}

FXL_HD inline float log10(float x)
{
    using namespace detail_log;
    if (bitsOf(x) - 1u >= 0x7f7fffffu) return logSpecialF(x);
    const double xd = static_cast<double>(x);
    const Fast f = fastPartsF(xd);
    const double y = f.lo * kInvLn10 + f.e * kLog10of2;
    if (decided(y, kTolLog)) return static_cast<float>(y);
    return roundToFloat(mul(lnAcc(xd, 0.0, 0), {kInvLn10, kInvLn10L}));
}

FXL_HD inline float log1p(float x)
{
    using namespace detail_log;
    const uint32_t u = bitsOf(x);
    const uint32_t a = u & 0x7fffffffu;
    if (a < 0x32800000u) return x;  // |x| < 2^-26: x - x^2/2 rounds to x
    if (u >= 0xbf800000u || a >= 0x7f800000u) {
        if (u == 0xbf800000u) return floatFromBits(0xff800000u);
        if (u == 0x7f800000u) return x;
        return canonicalNanF();
    }
    const double xd = static_cast<double>(x);
    const DD v = twoSum(1.0, xd);  // exact: v.lo = 0 unless x >= 2^53
    const double y = fastLn(v.hi, v.lo / v.hi);
    if (decided(y, kTolLog1p)) return static_cast<float>(y);
    return roundToFloat(lnAcc(v.hi, v.lo, 0));
}

FXL_HD inline float asinh(float x)
{
    using namespace detail_log;
    const uint32_t a = bitsOf(x) & 0x7fffffffu;
    if (a < 0x39800000u) return x;  // |x| < 2^-12: x - x^3/6 rounds to x
    if (a >= 0x7f800000u) return a == 0x7f800000u ? x : canonicalNanF();
    const double ax = static_cast<double>(floatFromBits(a));
    const double q = ax * ax;  // exact
    double y;
    if (ax < 2.0) {
        // log1p(ax + ax^2 / (1 + sqrt(1 + ax^2)))
        const double t = ax + q / (1.0 + sqrt(1.0 + q));
        const DD v = twoSum(1.0, t);
        y = fastLn(v.hi, v.lo / v.hi);
    } else {
        y = fastLn(ax + sqrt(q + 1.0), 0.0);
    }
    const float r = decided(y, kTolLog1p) ? static_cast<float>(y) : roundToFloat(asinhAccF(ax));
    return copysign(r, x);
}

FXL_HD inline float acosh(float x)
{
    using namespace detail_log;
    const uint32_t u = bitsOf(x);
    if (u - 0x3f800001u >= 0x3fffffffu) {  // not in (1, inf)
        if (u == 0x3f800000u) return 0.0f;
        if (u == 0x7f800000u) return x;
        return canonicalNanF();
    }
    const double xd = static_cast<double>(x);
    double y;
    if (xd < 2.0) {
        const double t = xd - 1.0;
        const double s = t + sqrt(t * (2.0 + t));
        const DD v = twoSum(1.0, s);
        y = fastLn(v.hi, v.lo / v.hi);
    } else {
        y = fastLn(xd + sqrt(xd * xd - 1.0), 0.0);
    }
    if (decided(y, kTolLog1p)) return static_cast<float>(y);
    return roundToFloat(acoshAccF(xd));
}

FXL_HD inline float atanh(float x)
{
    using namespace detail_log;
    const uint32_t a = bitsOf(x) & 0x7fffffffu;
    if (a < 0x39800000u) return x;  // |x| < 2^-12: x + x^3/3 rounds to x
    if (a >= 0x3f800000u) {
        if (a == 0x3f800000u) return copysign(floatFromBits(0x7f800000u), x);
        return canonicalNanF();
    }
    const double ax = static_cast<double>(floatFromBits(a));
    const double t = 2.0 * ax / (1.0 - ax);  // 1 - ax exact
    const DD v = twoSum(1.0, t);
    const double y = 0.5 * fastLn(v.hi, v.lo / v.hi);
    const float r = decided(y, kTolLog1p) ? static_cast<float>(y) : roundToFloat(atanhAcc(ax));
    return copysign(r, x);
}

// ---- double ----

FXL_HD inline double log(double x)
{
    using namespace detail_log;
    if (!(x > 0) || isInf(x)) return logSpecialD(x);
    return lnAccD(x).hi;
}

FXL_HD inline double log2(double x)
{
    using namespace detail_log;
    if (!(x > 0) || isInf(x)) return logSpecialD(x);
    return mul(lnAccD(x), {kInvLn2, kInvLn2L}).hi;
}

FXL_HD inline double log10(double x)
{
    using namespace detail_log;
    if (!(x > 0) || isInf(x)) return logSpecialD(x);
    return mul(lnAccD(x), {kInvLn10, kInvLn10L}).hi;
}

FXL_HD inline double log1p(double x)
{
    using namespace detail_log;
    if (fabs(x) < 0x1p-54) return x;  // x - x^2/2 rounds to x (signed zeros, subnormals)
    if (!(x > -1.0) || isInf(x)) {
        if (x == -1.0) return doubleFromBits(0xfff0000000000000ull);
        if (x > 0) return x;
        return canonicalNanD();
    }
    if (fabs(x) < 0x1p-20) {
        // x - x^2/2 + x^3/3 - x^4/4: the rest is below 2^-80 relative; log(1 + x) would lose the
        // square of the low part of 1 + x
        return x + (x * x) * (-0.5 + x * (0x1.5555555555555p-2 - 0.25 * x));
    }
    return ln1pAcc(x, 0.0).hi;
}

FXL_HD inline double asinh(double x)
{
    using namespace detail_log;
    const double ax = fabs(x);
    if (ax < 0x1p-26) return x;  // x - x^3/6 rounds to x
    if (!(ax < 0x1p28)) {
        if (isNan(x)) return canonicalNanD();
        if (isInf(x)) return x;
        return copysign(lnAcc(ax, 0.0, 1).hi, x);  // log(2|x|): the rest is below 2^-58 relative
    }
    const double qh = ax * ax;
    const double ql = fma(ax, ax, -qh);
    DD s2 = twoSum(1.0, qh);
    s2 = fastTwoSum(s2.hi, s2.lo + ql);
    const DD s = sqrtDD(s2.hi, s2.lo);
    DD a = twoSum(ax, s.hi);
    a = fastTwoSum(a.hi, a.lo + s.lo);
    return copysign(lnAcc(a.hi, a.lo, 0).hi, x);
}

FXL_HD inline double acosh(double x)
{
    using namespace detail_log;
    if (!(x > 1.0) || isInf(x)) {
        if (x == 1.0) return 0.0;
        if (x > 1.0) return x;
        return canonicalNanD();
    }
    if (x > 0x1p28) return lnAcc(x, 0.0, 1).hi;  // log(2x): the rest is below 2^-58 relative
    const double qh = x * x;
    const double ql = fma(x, x, -qh);
    DD s2 = twoSum(qh, -1.0);
    s2 = fastTwoSum(s2.hi, s2.lo + ql);
    const DD s = sqrtDD(s2.hi, s2.lo);
    DD a = twoSum(x, s.hi);
    a = fastTwoSum(a.hi, a.lo + s.lo);
    return lnAcc(a.hi, a.lo, 0).hi;
}

FXL_HD inline double atanh(double x)
{
    using namespace detail_log;
    const double ax = fabs(x);
    if (ax < 0x1p-27) return x;  // x + x^3/3 rounds to x
    if (!(ax < 1.0)) {
        if (ax == 1.0) return copysign(doubleFromBits(0x7ff0000000000000ull), x);
        return canonicalNanD();
    }
    return copysign(atanhAcc(ax).hi, x);
}

}  // namespace fxl::math
