// Compile-only check that runtime/math/ is device code: every function instantiated in a
// __global__ kernel, compiled by nvcc with the flags that keep bits (--fmad=false -ftz=false
// -prec-div=true -prec-sqrt=true) and with a call from device code to a host function made an
// error (--diag-error=20011,20014: without it nvcc only warns and emits an empty kernel). Built
// whenever the CUDA toolkit is found (runtime/CMakeLists.txt); nothing links it.
#include <cstdint>

#include "runtime/math/accumulate.hpp"
#include "runtime/math/activations.hpp"
#include "runtime/math/arith.hpp"
#include "runtime/math/bits.hpp"
#include "runtime/math/compare.hpp"
#include "runtime/math/functions.hpp"
#include "runtime/math/gemm_chain.hpp"
#include "runtime/math/loss.hpp"
#include "runtime/math/philox.hpp"
#include "runtime/math/rows.hpp"
#include "runtime/math/storage.hpp"
#include "runtime/math/storage_types.hpp"
#include "runtime/math/sum_order.hpp"
#include "runtime/math/windows.hpp"

namespace m = fxl::math;

__global__ void bitsAndStorage(const float* x, const double* d, const uint16_t* h, float* out, double* outD,
                               uint16_t* outH, uint32_t* outU)
{
    const int i = static_cast<int>(threadIdx.x);
    out[i] = m::fma(x[i], x[i + 1], x[i + 2]) + m::sqrt(x[i]) + m::fabs(x[i]) + m::copysign(x[i], x[i + 1])
        + m::floatFromBits(m::bitsOf(x[i])) + m::canonicalNanF() + m::bf16ToF32(h[i]) + m::f16ToF32(h[i + 1]);
    outD[i] = m::fma(d[i], d[i + 1], d[i + 2]) + m::sqrt(d[i]) + m::fabs(d[i]) + m::copysign(d[i], d[i + 1])
        + m::doubleFromBits(m::bitsOf(d[i])) + m::canonicalNanD() + m::scaleByPow2Normal(d[i], 3);
    outH[i] = static_cast<uint16_t>(m::f32ToBf16(x[i]) ^ m::f32ToF16(x[i + 1]));
    outU[i] = static_cast<uint32_t>(m::isNan(x[i])) + static_cast<uint32_t>(m::isInf(d[i]));
}

// every function of functions.hpp in float and double
__global__ void functions(const float* x, const double* d, float* out, double* outD)
{
    const int i = static_cast<int>(threadIdx.x);
    float f = 0;
    double g = 0;
    f += m::exp(x[i]);
    g += m::exp(d[i]);
    f += m::exp2(x[i]);
    g += m::exp2(d[i]);
    f += m::expm1(x[i]);
    g += m::expm1(d[i]);
    f += m::sinh(x[i]);
    g += m::sinh(d[i]);
    f += m::cosh(x[i]);
    g += m::cosh(d[i]);
    f += m::tanh(x[i]);
    g += m::tanh(d[i]);
    f += m::log(x[i]);
    g += m::log(d[i]);
    f += m::log2(x[i]);
    g += m::log2(d[i]);
    f += m::log10(x[i]);
    g += m::log10(d[i]);
    f += m::log1p(x[i]);
    g += m::log1p(d[i]);
    f += m::asinh(x[i]);
    g += m::asinh(d[i]);
    f += m::acosh(x[i]);
    g += m::acosh(d[i]);
    f += m::atanh(x[i]);
    g += m::atanh(d[i]);
    f += m::sin(x[i]);
    g += m::sin(d[i]);
    f += m::cos(x[i]);
    g += m::cos(d[i]);
    f += m::tan(x[i]);
    g += m::tan(d[i]);
    f += m::asin(x[i]);
    g += m::asin(d[i]);
    f += m::acos(x[i]);
    g += m::acos(d[i]);
    f += m::atan(x[i]);
    g += m::atan(d[i]);
    f += m::erf(x[i]);
    g += m::erf(d[i]);
    f += m::erfc(x[i]);
    g += m::erfc(d[i]);
    f += m::atan2(x[i], x[i + 1]);
    g += m::atan2(d[i], d[i + 1]);
    f += m::pow(x[i], x[i + 1]);
    g += m::pow(d[i], d[i + 1]);
    out[i] = f;
    outD[i] = g;
}

// Philox and the random transforms
__global__ void philox(const uint64_t* seeds, float* out, double* outD, uint32_t* outU, int64_t* outI)
{
    const int i = static_cast<int>(threadIdx.x);
    const uint64_t s = seeds[i];
    outU[i] = fxl::philoxDraw(s, 0, static_cast<uint64_t>(i)) ^ fxl::philox4x32({{1, 2, 3, 4}}, {{5, 6}})[1]
        ^ static_cast<uint32_t>(fxl::philoxRoundUp4(static_cast<uint64_t>(i)));
    out[i] = fxl::philoxUniform(s, 0, 1) + fxl::philoxNormal(s, 0, 2) + fxl::philoxUniformAtF32(s, 3, 4)
        + fxl::philoxNormalAtF32(s, 5, 6) + fxl::tritonRand(s, 7) + fxl::tritonRandn(s, 8);
    outD[i] = fxl::philoxUniformAtF64(s, 1, 2) + fxl::philoxNormalAtF64(s, 3, 4);
    outI[i] = fxl::tritonRandint64(s, 9, -5, 5);
}

// every activation formula (activations.hpp) in float and double
template<class C>
__device__ C activations(const C* x, int i)
{
    namespace a = fxl::math::act;
    const C u = x[i], v = x[i + 1];
    C r = a::Gelu<C>{}(u) + a::GeluTanh<C>{}(u) + a::GeluBackward<C>{}(u, v) + a::GeluTanhBackward<C>{}(u, v);
    r += a::Sigmoid<C>{}(u) + a::Silu<C>{}(u) + a::Rsqrt<C>{}(u) + a::Sqrt<C>{}(u) + a::Reciprocal<C>{}(u);
    r += a::Exp<C>{}(u) + a::Expm1<C>{}(u) + a::Log<C>{}(u) + a::Log1p<C>{}(u) + a::Log2<C>{}(u) + a::Log10<C>{}(u);
    r += a::Tanh<C>{}(u) + a::Erf<C>{}(u) + a::Sin<C>{}(u) + a::Cos<C>{}(u) + a::Tan<C>{}(u) + a::Asin<C>{}(u);
    r += a::Acos<C>{}(u) + a::Atan<C>{}(u) + a::Sinh<C>{}(u) + a::Cosh<C>{}(u) + a::Asinh<C>{}(u) + a::Acosh<C>{}(u);
    r += a::Atanh<C>{}(u) + a::Atan2<C>{}(u, v) + a::SigmoidBackward<C>{}(u, v) + a::TanhBackward<C>{}(u, v);
    r += a::SiluBackward<C>{}(u, v) + a::Elu<C>{v, u, v}(u) + a::Softplus<C>{v, u}(u) + a::Relu<C>{}(u);
    r += a::ThresholdBackward<C>{v}(u, v) + a::Hardtanh<C>{u, v}(u) + a::HardtanhBackward<C>{u, v}(u, v);
    r += a::LeakyRelu<C>{v}(u) + a::LeakyReluBackward<C>{v}(u, v) + fxl::math::canonical(u);
    return r;
}
__global__ void activationKernels(const float* x, const double* d, const int64_t* n, float* out, double* outD,
                                  int64_t* outI)
{
    const int i = static_cast<int>(threadIdx.x);
    out[i] = activations(x, i);
    outD[i] = activations(d, i);
    outI[i] = fxl::math::act::Relu<int64_t>{}(n[i]);
}

// every arithmetic and comparison formula (arith.hpp, compare.hpp) for each compute type
template<class C>
__device__ C arithmetic(const C* x, int i)
{
    namespace ar = fxl::math::arith;
    namespace cm = fxl::math::cmp;
    const C u = x[i], v = x[i + 1], w = x[i + 2];
    C r = ar::Add<C>{v, false}(u, w) + ar::Sub<C>{v, true}(u, w) + ar::Mul<C>{}(u, v) + ar::neg(u) + ar::abs(u);
    r += ar::sign(u) + ar::round(u, ar::Round::Nearest) + ar::addc(u, v, w, v, true) + ar::powBinary(u, v);
    if constexpr (ar::kInt<C>) {
        if (!ar::intDivByZero(v)) r += ar::divRounding(u, v, true, [](C q) { return q; }) + ar::mod(u, v, true);
    } else {
        r += ar::Div<C>{}(u, v) + ar::divRounding(u, v, false, [](C q) { return q; }) + ar::mod(u, v, true);
        r += ar::lerp(u, v, w) + ar::PowScalar<C>{ar::powKindOf(static_cast<double>(w)), 0.3, true}(u);
    }
    r += cm::maximum(u, v) + cm::minimum(u, v) + cm::ClampScalar<C>{v, w, u, true, true, false}(u);
    r += C(cm::compare(u, v, cm::Cmp::Le) + cm::logical(u, v, cm::Logic::Xor) + cm::logicalNot(u));
    r += C(cm::isNanValue(u) + cm::isInfValue(v));
    if constexpr (ar::kInt<C>) r += cm::bitwise(u, v, cm::Logic::And);
    return r;
}
__global__ void arithmeticKernels(const float* x, const double* d, const int64_t* n, const int32_t* m, float* out,
                                  double* outD, int64_t* outI, int32_t* outM, bool* outB)
{
    const int i = static_cast<int>(threadIdx.x);
    out[i] = arithmetic(x, i);
    outD[i] = arithmetic(d, i);
    outI[i] = arithmetic(n, i);
    outM[i] = arithmetic(m, i);
    namespace ar = fxl::math::arith;
    const bool p = outB[i], q = outB[i + 1];
    outB[i] = ar::Add<bool>{q, true}(p, q) || ar::Mul<bool>{}(p, q) || ar::sign(p)
        || fxl::math::cmp::bitwise(p, q, fxl::math::cmp::Logic::Or) || fxl::math::cmp::maximum(p, q);
}

// the summation order (sum_order.hpp) and the row formulas (rows.hpp) on one row per thread
template<class C>
__device__ C rowFormulas(const C* x, int i)
{
    namespace rw = fxl::math::rows;
    namespace sm = fxl::math::sum;
    C v[8], g[8], w[8];
    for (int j = 0; j < 8; ++j) v[j] = g[j] = w[j] = x[i + j];
    C r = sm::sumOrdered<C>(8, [&](int64_t j) { return v[j]; }) + sm::foldBlocks(v, 8);
    rw::softmaxRow(v, 8, false, false);
    rw::softmaxBackwardRow(g, v, 8, true);
    const rw::Moments<C> m = rw::moments<C>(8, [&](int64_t j) { return w[j]; });
    const C rstd = rw::rstdOf(m.m2 / C(8), C(1e-5));
    rw::layerNormRow(w, 8, m.mean, rstd, v, g);
    r += v[0] + g[1] + w[2] + C(rw::layerNormInputGradRow(g, w, 8, m.mean, rstd, v));
    r += rw::normInputGrad(r, C(8), v[1], v[2], v[3], v[4]) + rw::runningUpdate(v[5], v[6], C(0.1));
    r +=
        rw::unbiasedVariance(v[7], 8) + rw::affine(g[0], true, g[1], true, g[2]) + rw::fixedStatsGrad(w[0], w[1], w[2]);
    namespace ls = fxl::math::loss;
    r += ls::nllRowLoss(v[0], true, v[1]) + ls::nllReduced(v[2], v[3], ls::kMean)
        + ls::nllReducedGrad(v[4], v[5], ls::kSum);
    r += ls::nllGrad(ls::kNone, v[6], v[7], false, C(1)) + ls::mseTerm(g[0], g[1]) + ls::mseReduced(g[2], 8, ls::kMean);
    r += ls::mseGrad(static_cast<C>(ls::mseGradNorm(ls::kMean, 8)), g[3], g[4], g[5]) + ls::embeddingFreqScale<C>(3);
    return r;
}
__global__ void rowKernels(const float* x, const double* d, float* out, double* outD)
{
    const int i = static_cast<int>(threadIdx.x);
    out[i] = rowFormulas(x, i);
    outD[i] = rowFormulas(d, i);
    double dx[8];
    fxl::math::rows::layerNormInputGradWide(d + i, d + i + 8, 8, d[i], d[i + 1], dx);
    outD[i] += dx[3];
}

// the matrix product's per-element chain and epilogue (gemm_chain.hpp)
__global__ void gemmChain(const float* a, const float* b, const double* ad, const double* bd, const int64_t* n,
                          float* out, double* outD, uint64_t* outI)
{
    namespace gm = fxl::math::gemm;
    const int i = static_cast<int>(threadIdx.x);
    const float dot = gm::elementF32(
        64, [&](int64_t k) { return a[i * 64 + k]; }, [&](int64_t k) { return b[k]; });
    out[i] = gm::Epilogue<float>{0.5f, 2.0f, true, true, true, true}(dot, a[i]);
    const double dd = gm::chain<double>(
        64, [&](int64_t k) { return ad[i * 64 + k]; }, [&](int64_t k) { return bd[k]; });
    outD[i] = gm::Epilogue<double>{1.0, 1.0, true, false, true, false}(dd, ad[i]);
    outI[i] = gm::intEpilogue(gm::intStep(0, n[i], n[i + 1]), 3, true, n[i + 2], -1);
}

// pooling / upsampling / padding / grid sampling windows (windows.hpp), the random transforms
// (philox.hpp), the indexed accumulations, distances and the sort order (accumulate.hpp)
template<class C>
__device__ C windowsAndAccumulations(const C* x, const int64_t* n, int i)
{
    namespace wn = fxl::math::win;
    namespace ac = fxl::math::acc;
    const C u = x[i], v = x[i + 1];
    const int64_t k = n[i];
    const wn::AvgSpan sp = wn::avgSpan(k, 3, 2, 1, 17);
    int64_t idx = wn::poolTap(k, 2, 2, 1, 1) + sp.lo + sp.hi + sp.padded + wn::adaptiveStart(k, 5, 17);
    idx += wn::adaptiveEnd(k, 5, 17) + wn::nearestIndex(k, 7, 13, true, 1.7) + wn::padSource(k, 2, 9, true);
    const wn::LinearTap<C> h = wn::linearTap(k, 9, wn::linearScale<C>(9, 13, false, false, 0.0), false);
    C r = wn::bilinear(u, v, u, v, h, h) + wn::bilinearGrad(h.w0, h.w1, u) + C(wn::maxPoolTakes(u, v));
    r += wn::sourceCoordinate(u, 17, 2, false) + wn::cubicInterp(u, v, u, v, C(0.25));
    const wn::Corners<C> c = wn::corners(u, v);
    r += wn::blendCorners(u, v, u, v, c) + C(wn::nearestTap(u) + idx);
    r += ac::combine(u, v, ac::Reduce::Amax) + ac::meanOf(u, k) + ac::addScaled(u, v, C(0.5));
    r += ac::bagTerm(u, true, v) + C(ac::bagMaxTakes(u, v, false)) + ac::bagMean(u, 3);
    r += ac::bagGrad(u, true, v, true, 3, true, ac::freqScale<C>(4));
    r += ac::pDistance<C>(
        4, [&](int64_t j) { return x[i + j]; }, [&](int64_t j) { return x[i + j + 4]; }, 3.0);
    r += C(ac::sortsBefore(u, v, 0, 1, true));
    return r;
}
__global__ void windowKernels(const float* x, const double* d, const int64_t* n, const uint32_t* bits, float* out,
                              double* outD, int64_t* outI)
{
    const int i = static_cast<int>(threadIdx.x);
    out[i] = windowsAndAccumulations(x, n, i);
    outD[i] = windowsAndAccumulations(d, n, i);
    outI[i] = fxl::math::acc::combine(n[i], n[i + 1], fxl::math::acc::Reduce::Prod) + fxl::math::acc::meanOf(n[i], 3)
        + fxl::math::acc::addScaled<int64_t>(n[i], n[i + 1], 3) + fxl::rng::randpermSwap(bits[i], n[i])
        + fxl::math::acc::sortsBefore(n[i], n[i + 1], 0, 1, false);
    namespace rg = fxl::rng;
    const fxl::math::Narrow nb = fxl::math::Narrow::Bf16;
    out[i] += rg::uniformF32(x[i], 2.0f, -1.0f, 1.0f, nb) + rg::normalF32(x[i], 0.5f, 1.0f) + rg::randF32(x[i], nb);
    out[i] += rg::dropoutF32(x[i], rg::dropoutKeeps(d[i], 0.1, false), 1.25f, nb) + float(rg::bernoulli(d[i], 0.3));
    outD[i] += rg::uniformF64(d[i], 2.0, -1.0, 1.0) + rg::normalF64(d[i], 0.5, 1.0) + rg::randF64(d[i]);
    outD[i] += rg::dropoutF64(d[i], true, 1.25);
}

// convolution taps, arange, the float -> integer rule and the reduction family's other rules
template<class C>
__device__ C convAndReductions(const C* x, const int64_t* n, int i)
{
    namespace ac = fxl::math::acc;
    namespace sm = fxl::math::sum;
    C r = ac::withBias(ac::tapSum<C>(
                           8, [&](int64_t j) { return x[i + j]; }, [&](int64_t j) { return x[i + j + 8]; }),
                       true, x[i]);
    r += C(fxl::math::win::tapSource(n[i], 1, 2, 1, 1, 9)) + fxl::math::arith::arangeValue(x[i], x[i + 1], n[i]);
    r +=
        sm::meanOf(x[i], 3) + sm::prodOrdered<C>(4, [&](int64_t j) { return x[i + j]; }) + sm::scanStep(x[i], x[i + 1]);
    r += C(sm::argExtreme<true>(4, [&](int64_t j) { return x[i + j]; }));
    return r;
}
__global__ void convKernels(const float* x, const double* d, const int64_t* n, float* out, double* outD, int64_t* outI)
{
    const int i = static_cast<int>(threadIdx.x);
    out[i] = convAndReductions(x, n, i);
    outD[i] = convAndReductions(d, n, i);
    outI[i] = fxl::math::truncToI64(d[i]) + fxl::math::truncToI32(d[i + 1])
        + fxl::math::arith::arangeValue<int64_t>(n[i], n[i + 1], 7);
}

// the storage types' loads, stores and conversions (storage_types.hpp)
__global__ void storageTypes(const float* x, const double* d, const int64_t* n, fxl::math::BF16* outB,
                             fxl::math::F16* outH, fxl::math::B8* outBool, int32_t* outI, int8_t* outC)
{
    namespace m = fxl::math;
    const int i = static_cast<int>(threadIdx.x);
    outB[i] = m::Num<m::BF16>::store(m::Num<m::BF16>::load(outB[i + 1]) + x[i]);
    outH[i] = m::convert<m::F16>(d[i]);
    outBool[i] = m::convert<m::B8>(x[i]);
    outI[i] = m::convert<int32_t>(m::Num<float>::store(x[i])) + m::convert<int32_t>(n[i]);
    outC[i] = m::convert<int8_t>(outH[i + 1]) + m::convert<int8_t>(outBool[i + 1]);
}
