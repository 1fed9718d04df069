#pragma once
// The per-element chain of every matrix product (mm, bmm, addmm, baddbmm, matmul, linear, and
// the convolutions lowered to them), one source for every device:
//   c = 0; for k = 0 .. K-1 ascending: c = fma(a_k, b_k, c)
// in the operands' compute type (float for f32 / bf16 / f16 operands widened exactly, double
// for f64). A float chain that ends not finite (a product or a partial sum overflowed float, or
// an operand holds inf / nan) is computed again as the same chain in double and rounded once:
// overflow in the middle of the chain then no longer decides the result, and inf / nan operands
// still give IEEE's inf / nan. Then the epilogue: alpha * dot + beta * bias, with BLAS's rules
// for zero scalars and no multiply for a scalar equal to 1. Integer products wrap (uint64).
// A device may tile the k loop through fast memory, but each element runs this chain: blocks of
// k continue the same accumulator (`chainStep` from the previous block's value).
#include <cstdint>

#include "runtime/math/bits.hpp"
#include "runtime/math/hostdev.hpp"

namespace fxl::math::gemm {

// One step of the chain.
template<class T>
FXL_HD inline T chainStep(T a, T b, T c)
{
    return math::fma(a, b, c);
}

// The chain over k in [0, K) from c (0 for a fresh element): load(k) gives (a_k, b_k).
template<class T, class LoadA, class LoadB>
FXL_HD inline T chain(int64_t K, LoadA&& a, LoadB&& b, T c = T(0))
{
    for (int64_t k = 0; k < K; ++k) c = chainStep(a(k), b(k), c);
    return c;
}

// Whether a float chain's result is redone in double.
FXL_HD inline bool needsWideChain(float c) { return isNan(c) || isInf(c); }

// The wide chain: a and b widened exactly to double, one rounding to float at the end.
template<class LoadA, class LoadB>
FXL_HD inline float wideChain(int64_t K, LoadA&& a, LoadB&& b)
{
    return static_cast<float>(chain<double>(K, a, b));
}

// The float element: the chain, redone in double when it ends not finite.
template<class LoadA, class LoadB>
FXL_HD inline float elementF32(int64_t K, LoadA&& a, LoadB&& b)
{
    const float c = chain<float>(K, a, b);
    if (!needsWideChain(c)) return c;
    return wideChain(
        K, [&](int64_t k) { return static_cast<double>(a(k)); }, [&](int64_t k) { return static_cast<double>(b(k)); });
}

// The epilogue of addmm / baddbmm: alpha * dot + beta * bias. useDot = (alpha != 0): a zero
// alpha ignores the product (inf / nan in it do not propagate); useBias = (beta != 0 and a bias
// given): a zero beta ignores the bias. scaleDot / scaleBias: alpha / beta differ from 1.
template<class T>
struct Epilogue
{
    T alpha, beta;
    bool useDot, scaleDot, useBias, scaleBias;
    FXL_HD T operator()(T dot, T bias) const
    {
        T v = T(0);
        if (useDot) v = scaleDot ? alpha * dot : dot;
        if (useBias) {
            const T bv = scaleBias ? beta * bias : bias;
            v = useDot ? v + bv : bv;
        }
        return v;
    }
};

// Integer products: sum of x * y in uint64 (wrapping), times alpha, plus bias * beta.
FXL_HD inline uint64_t intStep(uint64_t acc, int64_t x, int64_t y)
{
    return acc + static_cast<uint64_t>(x) * static_cast<uint64_t>(y);
}
FXL_HD inline uint64_t intEpilogue(uint64_t dot, int64_t alpha, bool useBias, int64_t bias, int64_t beta)
{
    uint64_t acc = dot * static_cast<uint64_t>(alpha);
    if (useBias) acc += static_cast<uint64_t>(bias) * static_cast<uint64_t>(beta);
    return acc;
}

}  // namespace fxl::math::gemm
