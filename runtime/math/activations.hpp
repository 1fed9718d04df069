#pragma once
// The per-element formulas of the activation kernels and their backward, one source for every
// device: C is the compute type (float for f32 / bf16 / f16, double for f64); a kernel loads
// each element into C, calls one of these and stores the result rounded once. The formulas are
// PyTorch CPU's scalar ones (Activation.cpp, UnaryOpsKernel.cpp, BinaryOpsKernel.cpp) with the
// transcendental functions of functions.hpp (correctly rounded in float). Parameters that come
// from Python numbers (slopes, bounds, coefficients) are members, already converted by the
// kernel the way PyTorch converts them.
#include "runtime/math/bits.hpp"
#include "runtime/math/functions.hpp"
#include "runtime/math/hostdev.hpp"

namespace fxl::math::act {

inline constexpr double kSqrt1_2 = 0.70710678118654752440;  // M_SQRT1_2
inline constexpr double kSqrt2 = 1.41421356237309504880;  // M_SQRT2
inline constexpr double k2SqrtPi = 1.12837916709551257390;  // M_2_SQRTPI

// gelu(x) = x/2 (1 + erf(x / sqrt 2))
template<class C>
struct Gelu
{
    FXL_HD C operator()(C x) const
    {
        const C kAlpha = static_cast<C>(kSqrt1_2);
        return x * C(0.5) * (C(1) + math::erf(x * kAlpha));
    }
};

// gelu(x, approximate='tanh') = x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
template<class C>
struct GeluTanh
{
    FXL_HD C operator()(C x) const
    {
        const C kBeta = static_cast<C>(kSqrt2 * k2SqrtPi * 0.5);
        const C kKappa = static_cast<C>(0.044715);
        const C xCube = x * x * x;
        const C inner = kBeta * (x + kKappa * xCube);
        return C(0.5) * x * (C(1) + math::tanh(inner));
    }
};

// (grad_output, self)
template<class C>
struct GeluBackward
{
    FXL_HD C operator()(C dy, C x) const
    {
        const C kAlpha = static_cast<C>(kSqrt1_2);
        const C kBeta = static_cast<C>(k2SqrtPi * kSqrt1_2 * 0.5);
        const C cdf = C(0.5) * (C(1) + math::erf(x * kAlpha));
        const C pdf = kBeta * math::exp(x * x * C(-0.5));
        return dy * (cdf + x * pdf);
    }
};

// (grad_output, self)
template<class C>
struct GeluTanhBackward
{
    FXL_HD C operator()(C dy, C x) const
    {
        const C kBeta = static_cast<C>(kSqrt2 * k2SqrtPi * 0.5);
        const C kKappa = static_cast<C>(0.044715);
        const C xSq = x * x;
        const C xCube = xSq * x;
        const C inner = kBeta * (x + kKappa * xCube);
        const C tanhInner = math::tanh(inner);
        const C left = C(0.5) * x;
        const C right = C(1) + tanhInner;
        const C leftDerivative = C(0.5) * right;
        const C tanhDerivative = C(1) - tanhInner * tanhInner;
        const C innerDerivative = kBeta * (C(1) + C(3) * kKappa * xSq);
        const C rightDerivative = left * tanhDerivative * innerDerivative;
        return dy * (leftDerivative + rightDerivative);
    }
};

template<class C>
struct Sigmoid
{
    FXL_HD C operator()(C x) const { return C(1) / (C(1) + math::exp(-x)); }
};
template<class C>
struct Silu
{
    FXL_HD C operator()(C x) const { return x / (C(1) + math::exp(-x)); }
};
template<class C>
struct Rsqrt
{
    FXL_HD C operator()(C x) const { return C(1) / math::sqrt(x); }
};
template<class C>
struct Sqrt
{
    FXL_HD C operator()(C x) const { return math::sqrt(x); }
};
template<class C>
struct Reciprocal
{
    FXL_HD C operator()(C x) const { return C(1) / x; }
};

// one function of functions.hpp per element
#define FXL_ACT_FUNCTION(Name, fn)                                                                                     \
    template<class C>                                                                                                  \
    struct Name                                                                                                        \
    {                                                                                                                  \
        FXL_HD C operator()(C x) const { return math::fn(x); }                                                         \
    };
FXL_ACT_FUNCTION(Exp, exp)
FXL_ACT_FUNCTION(Expm1, expm1)
FXL_ACT_FUNCTION(Log, log)
FXL_ACT_FUNCTION(Log1p, log1p)
FXL_ACT_FUNCTION(Log2, log2)
FXL_ACT_FUNCTION(Log10, log10)
FXL_ACT_FUNCTION(Tanh, tanh)
FXL_ACT_FUNCTION(Erf, erf)
FXL_ACT_FUNCTION(Sin, sin)
FXL_ACT_FUNCTION(Cos, cos)
FXL_ACT_FUNCTION(Tan, tan)
FXL_ACT_FUNCTION(Asin, asin)
FXL_ACT_FUNCTION(Acos, acos)
FXL_ACT_FUNCTION(Atan, atan)
FXL_ACT_FUNCTION(Sinh, sinh)
FXL_ACT_FUNCTION(Cosh, cosh)
FXL_ACT_FUNCTION(Asinh, asinh)
FXL_ACT_FUNCTION(Acosh, acosh)
FXL_ACT_FUNCTION(Atanh, atanh)
#undef FXL_ACT_FUNCTION

template<class C>
struct Atan2
{
    FXL_HD C operator()(C y, C x) const { return math::atan2(y, x); }
};

// (grad_output, output)
template<class C>
struct SigmoidBackward
{
    FXL_HD C operator()(C dy, C y) const { return dy * (C(1) - y) * y; }
};
// (grad_output, output)
template<class C>
struct TanhBackward
{
    FXL_HD C operator()(C dy, C y) const { return dy * (C(1) - y * y); }
};
// (grad_output, self)
template<class C>
struct SiluBackward
{
    FXL_HD C operator()(C dy, C x) const
    {
        const C sigmoid = C(1) / (C(1) + math::exp(-x));
        return dy * sigmoid * (C(1) + x * (C(1) - sigmoid));
    }
};

// elu(x) = x <= 0 ? (exp(x * input_scale) - 1) * alpha * scale : x * scale, with
// negcoef = alpha * scale, poscoef = scale, negiptcoef = input_scale.
template<class C>
struct Elu
{
    C negcoef, poscoef, negiptcoef;
    FXL_HD C operator()(C x) const { return x <= C(0) ? (math::exp(x * negiptcoef) - C(1)) * negcoef : x * poscoef; }
};

// softplus(x) = x * beta > threshold ? x : log1p(exp(x * beta)) / beta
template<class C>
struct Softplus
{
    C beta, threshold;
    FXL_HD C operator()(C x) const { return (x * beta) > threshold ? x : math::log1p(math::exp(x * beta)) / beta; }
};

// relu = clamp_min(x, 0) as std::max(x, 0): NaN and -0 pass through (every numeric type)
template<class C>
struct Relu
{
    FXL_HD C operator()(C x) const { return x < C(0) ? C(0) : x; }
};

// threshold_backward(grad_output, self, threshold), called as (self, grad_output)
template<class C>
struct ThresholdBackward
{
    C threshold;
    FXL_HD C operator()(C x, C dy) const { return x <= threshold ? C(0) : dy; }
};

// hardtanh = clamp(x, lo, hi); NaN passes through
template<class C>
struct Hardtanh
{
    C lo, hi;
    FXL_HD C operator()(C x) const
    {
        x = x < lo ? lo : x;
        return hi < x ? hi : x;
    }
};

// (grad_output, self)
template<class C>
struct HardtanhBackward
{
    C lo, hi;
    FXL_HD C operator()(C dy, C x) const { return (x <= lo || x >= hi) ? C(0) : dy; }
};

template<class C>
struct LeakyRelu
{
    C slope;
    FXL_HD C operator()(C x) const { return x > C(0) ? x : x * slope; }
};

// (grad_output, self)
template<class C>
struct LeakyReluBackward
{
    C slope;
    FXL_HD C operator()(C dy, C x) const { return x > C(0) ? dy : dy * slope; }
};

}  // namespace fxl::math::act
