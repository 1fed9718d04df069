#pragma once
// pow for float (correctly rounded, ties to even, every input pair) and double (faithful, < 1 ulp),
// with the C99 Annex F special values, every NaN result canonical.
//
// Method (both precisions): |x| = 2^k * m with m in [0x1.66p-1, 0x1.66p+0) (the offset 0x3f330000
// splits the binade so that m stays near 1); i = 7 bits of m picks r_i ~ 1/m (20 significant bits,
// r_i = 1 exactly on the two intervals around 1), z = m*r_i - 1 (exact for a float m: 24+20 bits;
// a double-double for a double m), |z| <= 2^-7. Then log2|x| = k + T_i + log2(1+z) with
// T_i = -log2(r_i) as a double-double (MPFR-made table, 2^-106 relative), t = y*log2|x| and
// pow = 2^t = 2^(N>>6) * 2^((N&63)/64) * 2^r, N = round(64 t), |r| <= 2^-7, 2^(j/64) a
// double-double table. Near x = 1, k = 0 and T_i = 0 exactly, so log2|x| keeps its full relative
// accuracy however large y is.
//
// float fast path, plain double arithmetic (no fma): log2|x| = RN(RN(k + T_i.hi) + p) with p the
// Taylor polynomial of log2(1+z) to z^7 (truncation 2^-52 relative, evaluation ~2^-51.4); since
// |x| = 2^k*m with m in [0.7, 1.4) there is no cancellation beyond a factor 1.5 (T_i = 0 on the two
// intervals at 1), so the relative error of log2|x| is below 6.5*2^-53 = 2^-50.3. t = RN(y*log2|x|);
// for every result that is not certainly an overflow or underflow |t| <= 152 (outside, 2^+-200 is
// returned), so t is off by at most 152*(2^-50.3 + 2^-53) = 2^-43.0, i.e. 2^-43.5 relative on 2^t.
// 2^r - 1 to r^5 (truncation 2^-54.7), the table's high part (2^-53), two roundings: 2^-51 more.
// The double `res` is within 2^-43.4 (relative) of x^y; measured maximum over 300000 pairs with
// |t| spread over [-152, 129] and x near 1: 2^-44.4. Rounding test, margin 2^-40 > 2^-43.4 (x10):
// for a normal float result, the 29 bits of res below the float mantissa must be more than 2^13
// double ulps (>= 2^-40 res) away from 0x10000000, the midpoint between two floats, then x^y and
// res lie between the same two midpoints and RN_float(res) is the answer; for a subnormal or an
// overflowing result, RN_float(res*(1-2^-40)) == RN_float(res*(1+2^-40)) (RN_float is monotone and
// both products, even rounded, bracket x^y). Otherwise (about 2^-15 of the generic inputs, and
// every exact midpoint x^y) the accurate path.
//
// float accurate path: the same reduction with double-double arithmetic throughout (log2(1+z) to
// z^16, 2^r to r^11, products and sums with fma-based error-free transformations), relative error
// of the double-double result about 2^-100 (tolerance used: 2^-80). The float nearest to the result
// and the midpoint M on its side are formed exactly; the sign of (result - M) is decided unless
// |result - M| < 2^-80*M, which happens for the exact midpoint cases (e.g. x with few significant
// bits and a small integer y, or y = p/2^q with x a perfect power, where x^y has 25 significant
// bits): they are rounded to even. A non-exact x^y that close to a midpoint would be misrounded;
// none is known (the expected count over all 2^64 pairs is far below one, but this is not proven).
//
// double: the same double-double log2 (z a double-double now, log2(1+z) to z^10, relative error
// about 2^-70) and 2^t (2^r to r^6, about 2^-64), so that t (|t| < 1080) is off by less than 2^-60
// and the double-double result by about 2^-60 relative; then one rounding of the double-double
// (results in the subnormal range are rounded once, on their own grid, with an added power of two)
// and an exact scaling by 2^e: faithful, measured max error 0.5002 ulp (2^24 random pairs).
#include <cstdint>

#include "runtime/math/bits.hpp"
#include "runtime/math/double_double.hpp"
#include "runtime/math/hostdev.hpp"

namespace fxl::math {
namespace detail_pow {

using dd::DD;
using dd::fastTwoSum;
using dd::twoSum;

// (a.hi + a.lo) * (b.hi + b.lo) + (c.hi + c.lo), about 2^-104 relative when no cancellation
FXL_HD inline DD ddMulAdd(DD a, DD b, DD c)
{
    const double p = a.hi * b.hi;
    const double pe = math::fma(a.hi, b.hi, -p) + (a.hi * b.lo + a.lo * b.hi);
    const DD s = twoSum(p, c.hi);
    return fastTwoSum(s.hi, s.lo + (pe + c.lo));
}
FXL_HD inline DD ddMul(DD a, DD b)
{
    const double p = a.hi * b.hi;
    const double pe = math::fma(a.hi, b.hi, -p) + (a.hi * b.lo + a.lo * b.hi);
    return fastTwoSum(p, pe);
}
FXL_HD inline DD ddAdd(DD a, DD b)
{
    const DD s = twoSum(a.hi, b.hi);
    return fastTwoSum(s.hi, s.lo + (a.lo + b.lo));
}

// r_i ~ 1/m on the 128 intervals [bits 0x3f330000 + (i << 16), + (1 << 16)) of m
FXL_HD inline double invTable(int i)
{
    static constexpr double R[128] = {
        0x1.6d1a6p+0, 0x1.6b14ap+0, 0x1.69148p+0, 0x1.671ap+0,  0x1.6525p+0,  0x1.63356p+0, 0x1.614b4p+0, 0x1.5f664p+0,
        0x1.5d868p+0, 0x1.5babcp+0, 0x1.59d62p+0, 0x1.58056p+0, 0x1.56398p+0, 0x1.54726p+0, 0x1.52bp+0,   0x1.50f22p+0,
        0x1.4f39p+0,  0x1.4d844p+0, 0x1.4bd3ep+0, 0x1.4a28p+0,  0x1.48806p+0, 0x1.46dcep+0, 0x1.453dap+0, 0x1.43a28p+0,
        0x1.420b6p+0, 0x1.40782p+0, 0x1.3ee9p+0,  0x1.3d5dap+0, 0x1.3bd6p+0,  0x1.3a524p+0, 0x1.38d22p+0, 0x1.3755cp+0,
        0x1.35dcep+0, 0x1.3467ap+0, 0x1.32f5cp+0, 0x1.31878p+0, 0x1.301c8p+0, 0x1.2eb4ep+0, 0x1.2d50ap+0, 0x1.2befap+0,
        0x1.2a91cp+0, 0x1.29372p+0, 0x1.27dfap+0, 0x1.268b4p+0, 0x1.2539ep+0, 0x1.23eb8p+0, 0x1.22a02p+0, 0x1.2157ap+0,
        0x1.2012p+0,  0x1.1ecf4p+0, 0x1.1d8f6p+0, 0x1.1c522p+0, 0x1.1b17cp+0, 0x1.19e02p+0, 0x1.18abp+0,  0x1.1778ap+0,
        0x1.1648ep+0, 0x1.151bap+0, 0x1.13f0ep+0, 0x1.12c8cp+0, 0x1.11a3p+0,  0x1.107fcp+0, 0x1.0f5eep+0, 0x1.0e406p+0,
        0x1.0d244p+0, 0x1.0c0a8p+0, 0x1.0af3p+0,  0x1.09ddcp+0, 0x1.08cacp+0, 0x1.07bap+0,  0x1.06ab6p+0, 0x1.059eep+0,
        0x1.0494ap+0, 0x1.038c6p+0, 0x1.02864p+0, 0x1.01824p+0, 0x1p+0,       0x1p+0,       0x1.fa11cp-1, 0x1.f631p-1,
        0x1.f25f6p-1, 0x1.ee9c8p-1, 0x1.eae8p-1,  0x1.e741ap-1, 0x1.e3a92p-1, 0x1.e01ep-1,  0x1.dca02p-1, 0x1.d92f2p-1,
        0x1.d5cacp-1, 0x1.d272cp-1, 0x1.cf26ep-1, 0x1.cbe6ep-1, 0x1.c8b26p-1, 0x1.c5894p-1, 0x1.c26b6p-1, 0x1.bf584p-1,
        0x1.bc4fep-1, 0x1.b951ep-1, 0x1.b65e2p-1, 0x1.b3748p-1, 0x1.b094cp-1, 0x1.adbe8p-1, 0x1.aaf1ep-1, 0x1.a82e6p-1,
        0x1.a5742p-1, 0x1.a2c2ap-1, 0x1.a01ap-1,  0x1.9d7ap-1,  0x1.9ae24p-1, 0x1.9853p-1,  0x1.95cbcp-1, 0x1.934c6p-1,
        0x1.90d5p-1,  0x1.8e652p-1, 0x1.8bfcep-1, 0x1.899cp-1,  0x1.87428p-1, 0x1.84fp-1,   0x1.82a4ap-1, 0x1.80602p-1,
        0x1.7e226p-1, 0x1.7beb4p-1, 0x1.79baap-1, 0x1.77908p-1, 0x1.756cap-1, 0x1.734fp-1,  0x1.71378p-1, 0x1.6f26p-1,
    };
    return R[i];
}
// -log2(r_i) as hi, lo
FXL_HD inline DD log2Table(int i)
{
    static constexpr double T[256] = {
        -0x1.0639cfe39cc28p-1,
        -0x1.a438c5edbe0c4p-55,
        -0x1.021f696aae95cp-1,
        -0x1.4b073e7e56d9fp-57,
        -0x1.fc154d903eb46p-2,
        -0x1.d1fd9464d4e24p-56,
        -0x1.f3f750b195e3ap-2,
        -0x1.5318e27231144p-57,
        -0x1.ebe4991e25946p-2,
        0x1.2892b40bb3cb9p-56,
        -0x1.e3dce15e17584p-2,
        0x1.214c24cbe3565p-59,
        -0x1.dbe0ed38cf2cap-2,
        0x1.0585671981b36p-56,
        -0x1.d3ef69b8a18aep-2,
        -0x1.adfbb2db1eddfp-56,
        -0x1.cc0918c03c7b9p-2,
        0x1.2fbfae30de57cp-57,
        -0x1.c42d27a3dcbc3p-2,
        -0x1.5d297da434ba2p-59,
        -0x1.bc5c5880cd90cp-2,
        -0x1.746f61cff2d71p-61,
        -0x1.b495d48cc341ep-2,
        0x1.30c342a2944b9p-57,
        -0x1.acd9d3f22737bp-2,
        0x1.f81ca6f6888cep-59,
        -0x1.a52804704ebdfp-2,
        0x1.529e34b3274b3p-56,
        -0x1.9d809ce727336p-2,
        -0x1.64191af6fe99bp-56,
        -0x1.95e2bc0842f9p-2,
        0x1.09c2b2a6f3e26p-58,
        -0x1.8e4faf41f99a4p-2,
        0x1.08b3a2492c174p-58,
        -0x1.86c6057689e8ap-2,
        0x1.f5261fe1eb098p-56,
        -0x1.7f45f0ac055cap-2,
        0x1.79cf7664bcd1ep-58,
        -0x1.77d0327c430a7p-2,
        0x1.3061b72edf0f9p-56,
        -0x1.7063e00b7efb5p-2,
        0x1.e5f581a533a3ap-56,
        -0x1.690099b9cb3d9p-2,
        0x1.c251b10bd7006p-58,
        -0x1.61a72016673a9p-2,
        -0x1.967e08f9de077p-56,
        -0x1.5a5712c9f6a2fp-2,
        -0x1.ac842e8abbb0bp-61,
        -0x1.53100ef4ada69p-2,
        -0x1.5b69cfa407fafp-56,
        -0x1.4bd1af2c86ce2p-2,
        -0x1.93fe30de496a2p-56,
        -0x1.449d483180645p-2,
        -0x1.85f59b3b79cd4p-56,
        -0x1.3d714c1360ce5p-2,
        -0x1.87356c9dafcep-56,
        -0x1.364de59746cebp-2,
        -0x1.b3364fb99c572p-57,
        -0x1.2f33d63ac6a69p-2,
        0x1.ed03d88c47881p-56,
        -0x1.28221d505ffb7p-2,
        -0x1.01a41d91887f2p-62,
        -0x1.21197c3be990dp-2,
        -0x1.a102ebd4d43f8p-56,
        -0x1.1a18eddf22e2dp-2,
        0x1.713695b4578acp-57,
        -0x1.1321337e2905bp-2,
        0x1.50dd2c4a0a85ep-61,
        -0x1.0c31438428a13p-2,
        0x1.86908a94f1ed5p-56,
        -0x1.054a79ca7c3bep-2,
        0x1.3cfc9aa2e1e3ep-57,
        -0x1.fcd65dedbc12cp-3,
        -0x1.766c6d49826bap-57,
        -0x1.ef2847fa56d2dp-3,
        -0x1.fd11d9708e85ap-57,
        -0x1.e18b002886e8ap-3,
        -0x1.45940d7e0a88bp-59,
        -0x1.d3fd9a32ca6c6p-3,
        0x1.6dfed52cf2076p-57,
        -0x1.c67f24933fe3ap-3,
        -0x1.c249130c7afd6p-59,
        -0x1.b91124bbb16f6p-3,
        0x1.483f928d80f2p-64,
        -0x1.abb2a74631be2p-3,
        0x1.06323eaa09af7p-57,
        -0x1.9e63f4853f27dp-3,
        -0x1.296920436683ap-57,
        -0x1.912412d5af6a5p-3,
        0x1.9db47ff1bc66dp-57,
        -0x1.83f3472af22e8p-3,
        0x1.9cef46bce28e3p-58,
        -0x1.76d1d6efa8d9bp-3,
        0x1.b13ee280c08e5p-58,
        -0x1.69bec13e5da46p-3,
        -0x1.1ab59c70cc677p-59,
        -0x1.5cba4815d2768p-3,
        0x1.f063b1d7ca844p-57,
        -0x1.4fc4ade5d274cp-3,
        -0x1.d581fe610629ap-60,
        -0x1.42de358d334cap-3,
        0x1.4403126cd72fbp-61,
        -0x1.36048942ccde3p-3,
        0x1.11c4509acd9c8p-59,
        -0x1.293a800d97e62p-3,
        -0x1.fb5c795261e6cp-57,
        -0x1.1c7f0ea0d9b1dp-3,
        -0x1.c7db106c351f4p-58,
        -0x1.0fcfd373a57eap-3,
        0x1.716e20ff509ccp-58,
        -0x1.032fab179b79bp-3,
        0x1.9e13000b877cbp-58,
        -0x1.ed3b0592f5c51p-4,
        0x1.2650ad66860ccp-61,
        -0x1.d43084c62ed7dp-4,
        -0x1.68d08b93d1bbap-59,
        -0x1.bb4045fae9a73p-4,
        -0x1.d7743a2e89fb1p-58,
        -0x1.a26d6c4bca3b3p-4,
        0x1.19ab439f1ac95p-60,
        -0x1.89b30df1ebccdp-4,
        0x1.f99128fd71218p-58,
        -0x1.71144c9812025p-4,
        -0x1.91f050a1f574cp-58,
        -0x1.588ee483c3392p-4,
        -0x1.d08d2414dc22fp-59,
        -0x1.402342d6b031ep-4,
        -0x1.dfbdb39c30515p-59,
        -0x1.27d1d5617338p-4,
        -0x1.ea42607f447a4p-58,
        -0x1.0f9b0aa0a6ecap-4,
        -0x1.022c861757a0bp-60,
        -0x1.eef91aba429ep-5,
        0x1.dec40dac50e46p-59,
        -0x1.beed897667a79p-5,
        -0x1.8877a60699474p-59,
        -0x1.8f143105da0b3p-5,
        0x1.b561c6db8ac54p-59,
        -0x1.5f6de23af4cf7p-5,
        -0x1.763fe6e768d3bp-61,
        -0x1.2ff5cf561236fp-5,
        -0x1.be6c877971b8cp-60,
        -0x1.00acba4e8a4c3p-5,
        -0x1.dafd282b1f6c3p-60,
        -0x1.a3322351dbeacp-6,
        -0x1.b83a3a005b1bep-60,
        -0x1.4560919e9ccd5p-6,
        -0x1.387a906d2ddbfp-66,
        -0x1.cfe32b6199e97p-7,
        0x1.ff036d92d7d7dp-61,
        -0x1.15cd79ac60bbbp-7,
        -0x1.ccc739c2e4cd4p-64,
        -0x0p+0,
        0x0p+0,
        -0x0p+0,
        0x0p+0,
        0x1.136501c41be5bp-6,
        0x1.d391b2eaf6e8fp-62,
        0x1.c938377c791ebp-6,
        -0x1.38f6221ca17bap-60,
        0x1.3ed36e439e6b7p-5,
        0x1.4cb423fbe213p-59,
        0x1.985bf0a9f1682p-5,
        0x1.9d0544bf2b55bp-61,
        0x1.f13950dd61d4bp-5,
        -0x1.5444cfc3c2d29p-59,
        0x1.24b63564eb2f2p-4,
        0x1.a49d58dfd1898p-59,
        0x1.507b1cf1c7cdcp-4,
        0x1.38b4efb3f4f66p-60,
        0x1.7bef0080d198dp-4,
        -0x1.854b2f7837b85p-58,
        0x1.a711028a03916p-4,
        0x1.8981b8b806e09p-60,
        0x1.d1e3699efd061p-4,
        -0x1.02dafd463eb28p-60,
        0x1.fc6705edc941dp-4,
        0x1.09b57b7b75b31p-60,
        0x1.134e5c3469e6p-3,
        0x1.a830dfaef6d3fp-59,
        0x1.2842b97a6467dp-3,
        0x1.ff50bc72a7e1dp-57,
        0x1.3d111c4a6d523p-3,
        -0x1.239e46540c608p-59,
        0x1.51baddd18fcc8p-3,
        0x1.d86d68430e722p-58,
        0x1.663fc4cb09b06p-3,
        -0x1.d896fab5b5f8p-57,
        0x1.7a9f9af9e2e08p-3,
        0x1.20e3e9eef9491p-57,
        0x1.8edca74cac696p-3,
        -0x1.282354ef597c3p-59,
        0x1.a2f5f1fedda7ep-3,
        -0x1.82770b8aad564p-57,
        0x1.b6ed037e9933bp-3,
        0x1.de845f03033f5p-57,
        0x1.cac1c3b7e327cp-3,
        0x1.687b75f36d7c3p-57,
        0x1.de741df856d7bp-3,
        -0x1.d4b32fcdff51ep-59,
        0x1.f204db90ea104p-3,
        0x1.6bfef3b6660ccp-58,
        0x1.02bad58e156f8p-2,
        -0x1.a7b3ac39e7e93p-56,
        0x1.0c626a3fb3e77p-2,
        -0x1.3bb3e5c68e6f8p-57,
        0x1.15fa7917fb548p-2,
        -0x1.5151cd70e9ae5p-56,
        0x1.1f8228f7556f8p-2,
        -0x1.14ae4f209931p-57,
        0x1.28fad14acb4d1p-2,
        0x1.2f053efb0073ep-62,
        0x1.32639bfc045f8p-2,
        0x1.cdfb14f37225bp-56,
        0x1.3bbd061a3e15cp-2,
        -0x1.2124cbbdebec2p-58,
        0x1.4508049660cb4p-2,
        0x1.63deee9533949p-56,
        0x1.4e43513c072acp-2,
        0x1.aedee74456314p-60,
        0x1.57705a2804cc9p-2,
        -0x1.f00adcc238671p-56,
        0x1.608f38798330dp-2,
        0x1.e34743552c452p-56,
        0x1.699f1b7644bfap-2,
        0x1.cf0d48ba01548p-56,
        0x1.72a17ffb007f6p-2,
        0x1.590bfb7377985p-57,
        0x1.7b9598b4b3912p-2,
        -0x1.4e258aeb2c579p-59,
        0x1.847bfcf2b9b65p-2,
        0x1.a3bc60cff15d1p-57,
        0x1.8d54575cbb376p-2,
        -0x1.18e87bdb6ebc2p-58,
        0x1.961fbe7d038ccp-2,
        -0x1.7ae9eefe029bap-56,
        0x1.9edd67b6077b9p-2,
        0x1.e66b4be819a59p-62,
        0x1.a78df5c7396e5p-2,
        0x1.93a150e9109bbp-56,
        0x1.b03194cb2058ap-2,
        -0x1.86c892bc0f92bp-57,
        0x1.b8c8730eee185p-2,
        0x1.e223eff8010fbp-56,
        0x1.c152c1169259dp-2,
        0x1.e2e348bc7e19p-58,
        0x1.c9d033c0a1dfdp-2,
        0x1.37e482dbedf4cp-56,
        0x1.d2417c78f84d7p-2,
        0x1.9e164335f37d9p-57,
        0x1.daa6532d9d83p-2,
        0x1.2e8de70336b59p-56,
        0x1.e2feef39dc32cp-2,
        -0x1.7126723e7acd8p-58,
        0x1.eb4b8a4267991p-2,
        0x1.64055b0f98598p-57,
    };
    return {T[2 * i], T[2 * i + 1]};
}
// 2^(j/64) as hi, lo
FXL_HD inline DD exp2Table(int j)
{
    static constexpr double E[128] = {
        0x1p+0,
        0x0p+0,
        0x1.02c9a3e778061p+0,
        -0x1.19083535b085dp-56,
        0x1.059b0d3158574p+0,
        0x1.d73e2a475b465p-55,
        0x1.0874518759bc8p+0,
        0x1.186be4bb284ffp-57,
        0x1.0b5586cf9890fp+0,
        0x1.8a62e4adc610bp-54,
        0x1.0e3ec32d3d1a2p+0,
        0x1.03a1727c57b53p-59,
        0x1.11301d0125b51p+0,
        -0x1.6c51039449b3ap-54,
        0x1.1429aaea92dep+0,
        -0x1.32fbf9af1369ep-54,
        0x1.172b83c7d517bp+0,
        -0x1.19041b9d78a76p-55,
        0x1.1a35beb6fcb75p+0,
        0x1.e5b4c7b4968e4p-55,
        0x1.1d4873168b9aap+0,
        0x1.e016e00a2643cp-54,
        0x1.2063b88628cd6p+0,
        0x1.dc775814a8495p-55,
        0x1.2387a6e756238p+0,
        0x1.9b07eb6c70573p-54,
        0x1.26b4565e27cddp+0,
        0x1.2bd339940e9d9p-55,
        0x1.29e9df51fdee1p+0,
        0x1.612e8afad1255p-55,
        0x1.2d285a6e4030bp+0,
        0x1.0024754db41d5p-54,
        0x1.306fe0a31b715p+0,
        0x1.6f46ad23182e4p-55,
        0x1.33c08b26416ffp+0,
        0x1.32721843659a6p-54,
        0x1.371a7373aa9cbp+0,
        -0x1.63aeabf42eae2p-54,
        0x1.3a7db34e59ff7p+0,
        -0x1.5e436d661f5e3p-56,
        0x1.3dea64c123422p+0,
        0x1.ada0911f09ebcp-55,
        0x1.4160a21f72e2ap+0,
        -0x1.ef3691c309278p-58,
        0x1.44e086061892dp+0,
        0x1.89b7a04ef80dp-59,
        0x1.486a2b5c13cdp+0,
        0x1.3c1a3b69062fp-56,
        0x1.4bfdad5362a27p+0,
        0x1.d4397afec42e2p-56,
        0x1.4f9b2769d2ca7p+0,
        -0x1.4b309d25957e3p-54,
        0x1.5342b569d4f82p+0,
        -0x1.07abe1db13cadp-55,
        0x1.56f4736b527dap+0,
        0x1.9bb2c011d93adp-54,
        0x1.5ab07dd485429p+0,
        0x1.6324c054647adp-54,
        0x1.5e76f15ad2148p+0,
        0x1.ba6f93080e65ep-54,
        0x1.6247eb03a5585p+0,
        -0x1.383c17e40b497p-54,
        0x1.6623882552225p+0,
        -0x1.bb60987591c34p-54,
        0x1.6a09e667f3bcdp+0,
        -0x1.bdd3413b26456p-54,
        0x1.6dfb23c651a2fp+0,
        -0x1.bbe3a683c88abp-57,
        0x1.71f75e8ec5f74p+0,
        -0x1.16e4786887a99p-55,
        0x1.75feb564267c9p+0,
        -0x1.0245957316dd3p-54,
        0x1.7a11473eb0187p+0,
        -0x1.41577ee04992fp-55,
        0x1.7e2f336cf4e62p+0,
        0x1.05d02ba15797ep-56,
        0x1.82589994cce13p+0,
        -0x1.d4c1dd41532d8p-54,
        0x1.868d99b4492edp+0,
        -0x1.fc6f89bd4f6bap-54,
        0x1.8ace5422aa0dbp+0,
        0x1.6e9f156864b27p-54,
        0x1.8f1ae99157736p+0,
        0x1.5cc13a2e3976cp-55,
        0x1.93737b0cdc5e5p+0,
        -0x1.75fc781b57ebcp-57,
        0x1.97d829fde4e5p+0,
        -0x1.d185b7c1b85d1p-54,
        0x1.9c49182a3f09p+0,
        0x1.c7c46b071f2bep-56,
        0x1.a0c667b5de565p+0,
        -0x1.359495d1cd533p-54,
        0x1.a5503b23e255dp+0,
        -0x1.d2f6edb8d41e1p-54,
        0x1.a9e6b5579fdbfp+0,
        0x1.0fac90ef7fd31p-54,
        0x1.ae89f995ad3adp+0,
        0x1.7a1cd345dcc81p-54,
        0x1.b33a2b84f15fbp+0,
        -0x1.2805e3084d708p-57,
        0x1.b7f76f2fb5e47p+0,
        -0x1.5584f7e54ac3bp-56,
        0x1.bcc1e904bc1d2p+0,
        0x1.23dd07a2d9e84p-55,
        0x1.c199bdd85529cp+0,
        0x1.11065895048ddp-55,
        0x1.c67f12e57d14bp+0,
        0x1.2884dff483cadp-54,
        0x1.cb720dcef9069p+0,
        0x1.503cbd1e949dbp-56,
        0x1.d072d4a07897cp+0,
        -0x1.cbc3743797a9cp-54,
        0x1.d5818dcfba487p+0,
        0x1.2ed02d75b3707p-55,
        0x1.da9e603db3285p+0,
        0x1.c2300696db532p-54,
        0x1.dfc97337b9b5fp+0,
        -0x1.1a5cd4f184b5cp-54,
        0x1.e502ee78b3ff6p+0,
        0x1.39e8980a9cc8fp-55,
        0x1.ea4afa2a490dap+0,
        -0x1.e9c23179c2893p-54,
        0x1.efa1bee615a27p+0,
        0x1.dc7f486a4b6bp-54,
        0x1.f50765b6e454p+0,
        0x1.9d3e12dd8a18bp-54,
        0x1.fa7c1819e90d8p+0,
        0x1.74853f3a5931ep-55,
    };
    return {E[2 * j], E[2 * j + 1]};
}
// (-1)^(n+1) / (n ln 2), n = 1..16, as hi, lo
FXL_HD inline DD log2Coeff(int n)
{
    static constexpr double C[32] = {
        0x1.71547652b82fep+0, 0x1.777d0ffda0d24p-56,  -0x1.71547652b82fep-1, -0x1.777d0ffda0d24p-57,
        0x1.ec709dc3a03fdp-2, 0x1.d27f05548af0cp-56,  -0x1.71547652b82fep-2, -0x1.777d0ffda0d24p-58,
        0x1.2776c50ef9bfep-2, 0x1.e4b29ccc535d4p-56,  -0x1.ec709dc3a03fdp-3, -0x1.d27f05548af0cp-57,
        0x1.a61762a7aded9p-3, 0x1.fb22e490ee2fp-58,   -0x1.71547652b82fep-3, -0x1.777d0ffda0d24p-59,
        0x1.484b13d7c02a9p-3, -0x1.e55fc724e0a2cp-61, -0x1.2776c50ef9bfep-3, -0x1.e4b29ccc535d4p-57,
        0x1.0c9a84994022dp-3, 0x1.42b91d166906ap-58,  -0x1.ec709dc3a03fdp-4, -0x1.d27f05548af0cp-58,
        0x1.c68f568d3176p-4,  0x1.ce23c4e96378ep-60,  -0x1.a61762a7aded9p-4, -0x1.fb22e490ee2fp-59,
        0x1.89f3b1694cffep-4, -0x1.2339777c86c81p-61, -0x1.71547652b82fep-4, -0x1.777d0ffda0d24p-60,
    };
    return {C[2 * (n - 1)], C[2 * (n - 1) + 1]};
}
// ln2^n / n!, n = 0..11, as hi, lo
FXL_HD inline DD exp2Coeff(int n)
{
    static constexpr double D[24] = {
        0x1p+0,
        0x0p+0,
        0x1.62e42fefa39efp-1,
        0x1.abc9e3b39803fp-56,
        0x1.ebfbdff82c58fp-3,
        -0x1.5e43a53e44da3p-57,
        0x1.c6b08d704a0cp-5,
        -0x1.d331627513351p-59,
        0x1.3b2ab6fba4e77p-7,
        0x1.4e65df05a9f75p-62,
        0x1.5d87fe78a6731p-10,
        0x1.0717f69a514bfp-66,
        0x1.430912f86c787p-13,
        0x1.bd2c2a261ac8dp-67,
        0x1.ffcbfc588b0c7p-17,
        -0x1.e53ab8cde09c6p-71,
        0x1.62c0223a5c824p-20,
        -0x1.3800cfc92c41ep-79,
        0x1.b5253d395e7c4p-24,
        -0x1.2dac78d2d8038p-79,
        0x1.e4cf5158b8ecap-28,
        -0x1.204bc4d5a312dp-85,
        0x1.e8cac7351bb25p-32,
        -0x1.f8543350dc6f6p-87,
    };
    return {D[2 * n], D[2 * n + 1]};
}

// log2(2^k * (1 + z) / r_i) = k + T_i + log2(1 + z), |z| <= 2^-7, as a double-double: the terms
// z^Top .. z^(Dd+1) of log2(1 + z) in double, z^Dd .. z in double-double. <16, 7>: relative error
// about 2^-100 (the float accurate path); <10, 3>: about 2^-70 (double pow)
template<int Top, int Dd>
FXL_HD inline DD log2Accurate(int k, int i, DD z)
{
    double q = log2Coeff(Top).hi;
    for (int n = Top - 1; n > Dd; --n) q = q * z.hi + log2Coeff(n).hi;
    DD acc = {q, 0.0};
    for (int n = Dd; n >= 1; --n) acc = ddMulAdd(acc, z, log2Coeff(n));
    acc = ddMul(acc, z);
    const DD t = log2Table(i);
    const double kd = static_cast<double>(k);
    const double hi0 = kd + t.hi;  // k == 0 or |k| >= 1 > |t.hi|
    const double lo0 = (kd - hi0) + t.hi;
    return ddAdd({hi0, lo0 + t.lo}, acc);
}

// 2^(t.hi + t.lo) = 2^e * (result), for |t.hi| < 2^40; result in [0.99, 2.01]. 2^r: the terms
// r^Top .. r^(Dd+1) in double, the others in double-double. <11, 4>: relative error about 2^-100;
// <6, 2>: about 2^-64
template<int Top, int Dd>
FXL_HD inline DD exp2Accurate(DD t, int* e)
{
    const double shifter = 0x1.8p52;
    double kd = t.hi * 64.0 + shifter;
    const int n = static_cast<int>(static_cast<int64_t>(bitsOf(kd) - bitsOf(shifter)));
    kd -= shifter;
    const double rh = t.hi - kd * 0x1p-6;  // exact
    const DD r = twoSum(rh, t.lo);
    double q = exp2Coeff(Top).hi;
    for (int m = Top - 1; m > Dd; --m) q = q * r.hi + exp2Coeff(m).hi;
    DD acc = {q, 0.0};
    for (int m = Dd; m >= 0; --m) acc = ddMulAdd(acc, r, exp2Coeff(m));
    *e = n >> 6;
    return ddMul(acc, exp2Table(n & 63));
}

// y's kind as an integer: 0 not an integer, 1 odd, 2 even (or infinite); y != 0, not NaN
FXL_HD inline int integerKind(uint32_t ay)
{
    const int e = static_cast<int>(ay >> 23) - 127;
    if (e < 0) return 0;
    if (e >= 24) return 2;
    const uint32_t frac = ay & ((1u << (23 - e)) - 1u);
    if (frac) return 0;
    return ((ay >> (23 - e)) & 1u) ? 1 : 2;
}
FXL_HD inline int integerKind(uint64_t ay)
{
    const int e = static_cast<int>(ay >> 52) - 1023;
    if (e < 0) return 0;
    if (e >= 53) return 2;
    const uint64_t frac = ay & ((uint64_t(1) << (52 - e)) - 1u);
    if (frac) return 0;
    return ((ay >> (52 - e)) & 1u) ? 1 : 2;
}

// The float accurate path: x^y for |x| = 2^k * (1 + z) / r_i, positive result.
FXL_HD inline float powfAccurate(int k, int i, double z, double y)
{
    const DD l = log2Accurate<16, 7>(k, i, {z, 0.0});
    const double th0 = y * l.hi;
    const DD t = fastTwoSum(th0, math::fma(y, l.hi, -th0) + y * l.lo);
    int e;
    const DD res = exp2Accurate<11, 4>(t, &e);
    // scale exactly (e in [-153, 131]: normal doubles)
    const double s = scaleByPow2Normal(1.0, e);
    const double rh = res.hi * s, rl = res.lo * s;
    const float f = static_cast<float>(rh);
    const uint32_t fb = bitsOf(f);
    const bool fInf = fb == 0x7f800000u;
    const double fd = fInf ? 0x1p128 : static_cast<double>(f);
    if (rh == fd) return f;
    const bool up = rh > fd;  // the midpoint M lies between f and its neighbour on rh's side
    double nd;
    if (up)
        nd = fb == 0x7f7fffffu ? 0x1p128 : static_cast<double>(floatFromBits(fb + 1u));
    else
        nd = fInf ? static_cast<double>(floatFromBits(0x7f7fffffu)) : static_cast<double>(floatFromBits(fb - 1u));
    const double mid = (fd + nd) * 0.5;  // exact
    const double delta = (rh - mid) + rl;
    const double tol = mid * 0x1p-80;
    const float lower = static_cast<float>(up ? fd : nd), upper = static_cast<float>(up ? nd : fd);
    if (delta > tol) return upper;
    if (delta < -tol) return lower;
    // an exact midpoint: ties to even
    return (bitsOf(lower) & 1u) ? upper : lower;
}

// |x| (bits ax, finite, nonzero) = 2^k * (1 + z) / r_i, z exact
FXL_HD inline double reduceF(uint32_t ax, int* kOut, int* iOut)
{
    int k = 0;
    if (ax < 0x00800000u) {  // subnormal x
        ax = bitsOf(floatFromBits(ax) * 0x1p23f);
        k = -23;
    }
    const uint32_t tmp = ax - 0x3f330000u;
    const int i = static_cast<int>((tmp >> 16) & 127u);
    k += static_cast<int32_t>(tmp) >> 23;
    const double m = static_cast<double>(floatFromBits(ax - (tmp & 0xff800000u)));
    *kOut = k;
    *iOut = i;
    return m * invTable(i) - 1.0;  // exact
}

// The float fast path, in plain double arithmetic: |x|^y within 2^-43.4 relative (see the header
// comment); 2^200 or 2^-200 where |x|^y certainly overflows or underflows the float range.
FXL_HD inline double powfFast(int k, int i, double z, double yd)
{
    // log2|x| = (k + T_i) + log2(1 + z), log2(1 + z) to z^7 (truncation 2^-52 relative)
    const double kt = static_cast<double>(k) + log2Table(i).hi;
    const double z2 = z * z;
    const double p01 = 0x1.71547652b82fep+0 + z * -0x1.71547652b82fep-1;
    const double p23 = 0x1.ec709dc3a03fdp-2 + z * -0x1.71547652b82fep-2;
    const double p45 = 0x1.2776c50ef9bfep-2 + z * -0x1.ec709dc3a03fdp-3;
    const double p = z * ((p01 + z2 * p23) + (z2 * z2) * (p45 + z2 * 0x1.a61762a7aded9p-3));
    const double th = yd * (kt + p);
    if (th > 129.0) return 0x1p200;
    if (th < -152.0) return 0x1p-200;
    // 2^t = 2^(n >> 6) * 2^((n & 63)/64) * 2^r, |r| <= 2^-7, 2^r - 1 to r^5 (truncation 2^-54.7)
    const double shifter = 0x1.8p52;
    double nd = th * 64.0 + shifter;
    const int n = static_cast<int>(static_cast<int64_t>(bitsOf(nd) - bitsOf(shifter)));
    nd -= shifter;
    const double r = th - nd * 0x1p-6;  // exact
    const double r2 = r * r;
    const double q = r * (0x1.62e42fefa39efp-1 + r * 0x1.ebfbdff82c58fp-3)
        + (r2 * r) * ((0x1.c6b08d704a0cp-5 + r * 0x1.3b2ab6fba4e77p-7) + r2 * 0x1.5d87fe78a6731p-10);
    const double e = exp2Table(n & 63).hi;
    return (e + e * q) * scaleByPow2Normal(1.0, n >> 6);
}

FXL_HD inline double scalePow2(double v, int e)
{
    if (e > 1000) return v * 0x1p1000 * scaleByPow2Normal(1.0, e - 1000);
    if (e < -1000) return v * 0x1p-1000 * scaleByPow2Normal(1.0, e + 1000);
    return v * scaleByPow2Normal(1.0, e);
}

}  // namespace detail_pow

namespace detail_pow {

// |x|^y for |x| = 2^k * (1 + z) / r_i: the fast path and its rounding test, else the accurate path
FXL_HD inline float powfPositive(int k, int i, double z, double yd)
{
    const double res = powfFast(k, i, z, yd);
    const uint64_t u = bitsOf(res);
    if ((u >> 52) - 897u < 254u) {
        // a normal float result: decided unless res is within 2^13 ulps of double (more than
        // 2^-40 res) of a midpoint between two floats, where the 29 bits below the float's
        // mantissa read 0x10000000
        if (((u & 0x1fffffffu) - (0x10000000u - 0x2000u)) >= 0x4000u) return static_cast<float>(res);
    } else {
        const float f1 = static_cast<float>(res * (1.0 - 0x1p-40));
        const float f2 = static_cast<float>(res * (1.0 + 0x1p-40));
        if (f1 == f2) return f1;
    }
    return powfAccurate(k, i, z, yd);
}

// every input pair: the special values, negative and subnormal x
FXL_HD inline float powfGeneral(float x, float y)
{
    const uint32_t ix = bitsOf(x), iy = bitsOf(y);
    const uint32_t ax = ix & 0x7fffffffu;
    const uint32_t ay = iy & 0x7fffffffu;
    if (ay == 0 || ix == 0x3f800000u) return 1.0f;  // x^0 = 1, 1^y = 1, NaN included
    if (ax > 0x7f800000u || ay > 0x7f800000u) return canonicalNanF();
    const float inf = floatFromBits(0x7f800000u);
    bool negate = false;
    if (ix >> 31) {
        const int kind = integerKind(ay);
        if (kind == 0 && ax != 0 && ax != 0x7f800000u) return canonicalNanF();  // (-x)^non-integer
        negate = kind == 1;
    }
    const bool yNeg = (iy >> 31) != 0;
    if (ay == 0x7f800000u) {  // y = +-inf
        if (ax == 0x3f800000u) return 1.0f;
        return ((ax > 0x3f800000u) != yNeg) ? inf : 0.0f;
    }
    if (ax == 0 || ax == 0x7f800000u) {
        // 0^y: inf for y < 0, 0 for y > 0; inf^y the other way round; the sign of an odd y's power
        const float r = ((ax == 0) == yNeg) ? inf : 0.0f;
        return negate ? -r : r;
    }
    int k, i;
    const double z = reduceF(ax, &k, &i);
    const float out = powfPositive(k, i, z, static_cast<double>(y));
    return negate ? -out : out;
}

}  // namespace detail_pow

FXL_HD inline float pow(float x, float y)
{
    using namespace detail_pow;
    const uint32_t ix = bitsOf(x), ay = bitsOf(y) & 0x7fffffffu;
    if (ix - 0x00800000u < 0x7f000000u && ay - 1u < 0x7f7fffffu) {
        // x positive normal, y finite nonzero: the common case
        const uint32_t tmp = ix - 0x3f330000u;
        const int i = static_cast<int>((tmp >> 16) & 127u);
        const int k = static_cast<int32_t>(tmp) >> 23;
        const double m = static_cast<double>(floatFromBits(ix - (tmp & 0xff800000u)));
        const double z = m * invTable(i) - 1.0;  // exact
        return powfPositive(k, i, z, static_cast<double>(y));
    }
    return powfGeneral(x, y);
}

FXL_HD inline double pow(double x, double y)
{
    using namespace detail_pow;
    const uint64_t ix = bitsOf(x), iy = bitsOf(y);
    uint64_t ax = ix & 0x7fffffffffffffffull;
    const uint64_t ay = iy & 0x7fffffffffffffffull;
    const uint64_t infBits = 0x7ff0000000000000ull, oneBits = 0x3ff0000000000000ull;
    if (ay == 0 || ix == oneBits) return 1.0;
    if (ax > infBits || ay > infBits) return canonicalNanD();
    const double inf = doubleFromBits(infBits);
    bool negate = false;
    if (ix >> 63) {
        const int kind = integerKind(ay);
        if (kind == 0 && ax != 0 && ax != infBits) return canonicalNanD();
        negate = kind == 1;
    }
    const bool yNeg = (iy >> 63) != 0;
    if (ay == infBits) {
        if (ax == oneBits) return 1.0;
        return ((ax > oneBits) != yNeg) ? inf : 0.0;
    }
    if (ax == 0 || ax == infBits) {
        const double r = ((ax == 0) == yNeg) ? inf : 0.0;
        return negate ? -r : r;
    }
    int k = 0;
    if (ax < 0x0010000000000000ull) {  // subnormal x
        ax = bitsOf(doubleFromBits(ax) * 0x1p54);
        k = -54;
    }
    const uint64_t tmp = ax - 0x3fe6600000000000ull;
    const int i = static_cast<int>((tmp >> 45) & 127u);
    k += static_cast<int>(static_cast<int64_t>(tmp) >> 52);
    const double m = doubleFromBits(ax - (tmp & 0xfff0000000000000ull));
    const double ri = invTable(i);
    const double p = m * ri;
    const double pe = math::fma(m, ri, -p);
    const DD z = fastTwoSum(p - 1.0, pe);  // p - 1 exact
    const DD l = log2Accurate<10, 3>(k, i, z);
    const double th0 = y * l.hi;
    if (th0 > 1030.0) return negate ? -inf : inf;
    if (th0 < -1080.0) return negate ? -0.0 : 0.0;
    const DD t = fastTwoSum(th0, math::fma(y, l.hi, -th0) + y * l.lo);
    int e;
    const DD res = exp2Accurate<6, 2>(t, &e);
    double out;
    const double big = e <= -1022 ? scaleByPow2Normal(1.0, -1022 - e) : 0.0;  // 2^0 .. 2^59
    if (res.hi < big) {
        // a subnormal result: round res.hi + res.lo once, on the grid of 2^-1074 scaled by 2^-e
        const double s = res.hi + big;
        const double err = (res.hi - (s - big)) + res.lo;
        out = scalePow2((s + err) - big, e);  // exact
    } else {
        out = scalePow2(res.hi + res.lo, e);
    }
    return negate ? -out : out;
}

}  // namespace fxl::math
