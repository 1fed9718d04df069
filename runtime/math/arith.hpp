#pragma once
// The per-element formulas of the arithmetic kernels (add / sub / mul / div and their rounding
// modes, neg, abs, sign, pow, floor / ceil / trunc / round, fmod / remainder, addcmul / addcdiv,
// lerp), one source for every device. C is the compute type: bool for bool tensors, the integer
// itself for integer tensors (arithmetic wraps, done on unsigned 64-bit to stay clear of
// signed-overflow UB, as PyTorch's does in practice), float for f32 / bf16 / f16, double for f64.
// Integer division by zero is the caller's check (`intDivByZero`): the formulas here assume a
// nonzero divisor and never trap.
#include <cstdint>
#include <type_traits>

#include "runtime/math/bits.hpp"
#include "runtime/math/functions.hpp"
#include "runtime/math/hostdev.hpp"

#if !defined(__CUDA_ARCH__)
#include <cmath>
#endif

namespace fxl::math {

// The exact IEEE operations (their results are representable, so every library and device
// gives the same bits): floor, ceil, trunc, round half to even, fmod.
FXL_HD inline float floor(float x)
{
#if defined(__CUDA_ARCH__)
    return ::floorf(x);
#else
    return std::floor(x);
#endif
}
FXL_HD inline double floor(double x)
{
#if defined(__CUDA_ARCH__)
    return ::floor(x);
#else
    return std::floor(x);
#endif
}
FXL_HD inline float ceil(float x)
{
#if defined(__CUDA_ARCH__)
    return ::ceilf(x);
#else
    return std::ceil(x);
#endif
}
FXL_HD inline double ceil(double x)
{
#if defined(__CUDA_ARCH__)
    return ::ceil(x);
#else
    return std::ceil(x);
#endif
}
FXL_HD inline float trunc(float x)
{
#if defined(__CUDA_ARCH__)
    return ::truncf(x);
#else
    return std::trunc(x);
#endif
}
FXL_HD inline double trunc(double x)
{
#if defined(__CUDA_ARCH__)
    return ::trunc(x);
#else
    return std::trunc(x);
#endif
}
// round half to even (the host's default rounding mode, which fxlens never changes)
FXL_HD inline float rint(float x)
{
#if defined(__CUDA_ARCH__)
    return ::rintf(x);
#else
    return std::nearbyint(x);
#endif
}
FXL_HD inline double rint(double x)
{
#if defined(__CUDA_ARCH__)
    return ::rint(x);
#else
    return std::nearbyint(x);
#endif
}
FXL_HD inline float fmod(float x, float y)
{
#if defined(__CUDA_ARCH__)
    return ::fmodf(x, y);
#else
    return std::fmod(x, y);
#endif
}
FXL_HD inline double fmod(double x, double y)
{
#if defined(__CUDA_ARCH__)
    return ::fmod(x, y);
#else
    return std::fmod(x, y);
#endif
}

namespace arith {

template<class C>
inline constexpr bool kBool = std::is_same_v<C, bool>;
template<class C>
inline constexpr bool kInt = std::is_integral_v<C> && !std::is_same_v<C, bool>;

template<class T>
FXL_HD inline T wrapAdd(T a, T b)
{
    return static_cast<T>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
template<class T>
FXL_HD inline T wrapMul(T a, T b)
{
    return static_cast<T>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}
template<class T>
FXL_HD inline T wrapNeg(T a)
{
    return static_cast<T>(0 - static_cast<uint64_t>(a));
}

// The data-dependent failure of integer division and remainder.
template<class C>
FXL_HD inline bool intDivByZero(C y)
{
    if constexpr (kInt<C>)
        return y == 0;
    else
        return false;
}

// self + alpha * other. alpha == 1 (`unit`) is exactly self + other; otherwise one fused
// multiply-add (PyTorch's vectorised body is vec::fmadd(other, alpha, self)).
template<class C>
struct Add
{
    C alpha;
    bool unit;
    FXL_HD C operator()(C a, C b) const
    {
        if constexpr (kBool<C>)
            return a || (alpha && b);
        else if constexpr (kInt<C>)
            return wrapAdd<C>(a, wrapMul<C>(alpha, b));
        else
            return unit ? a + b : math::fma(alpha, b, a);
    }
};

// self - alpha * other; alpha == 1 is exactly self - other.
template<class C>
struct Sub
{
    C alpha;
    bool unit;
    FXL_HD C operator()(C a, C b) const
    {
        if constexpr (kInt<C>)
            return wrapAdd<C>(a, wrapMul<C>(wrapNeg<C>(alpha), b));
        else
            return unit ? a - b : math::fma(-alpha, b, a);
    }
};

template<class C>
struct Mul
{
    FXL_HD C operator()(C a, C b) const
    {
        if constexpr (kBool<C>)
            return a && b;
        else if constexpr (kInt<C>)
            return wrapMul<C>(a, b);
        else
            return a * b;
    }
};

template<class C>
struct Div
{
    FXL_HD C operator()(C a, C b) const { return a / b; }
};

template<class C>
FXL_HD inline C neg(C x)
{
    if constexpr (kInt<C>)
        return wrapNeg<C>(x);
    else
        return -x;
}

template<class C>
FXL_HD inline C abs(C x)
{
    if constexpr (kInt<C>)
        return x < 0 ? wrapNeg<C>(x) : x;
    else
        return math::fabs(x);
}

template<class C>
FXL_HD inline C sign(C x)
{
    if constexpr (kBool<C>)
        return x;
    else
        return static_cast<C>((C(0) < x) - (x < C(0)));
}

// Integer power by squaring (native::powi), wrapping; a negative exponent gives 1 / a^-b
// truncated (1 and -1 only stay nonzero).
template<class T>
FXL_HD inline T powi(T a, T b)
{
    if (b < 0) {
        if (a == 1) return 1;
        if (a == -1) return (b % 2) ? T(-1) : T(1);
        return 0;
    }
    T result = 1;
    while (b) {
        if (b & 1) result = wrapMul<T>(result, a);
        b = static_cast<T>(b / 2);
        a = wrapMul<T>(a, a);
    }
    return result;
}

// pow(x, e) for one exponent of the whole tensor, PyTorch's special exponents first.
enum class PowKind : uint8_t
{
    Identity,
    Sqrt,
    Rsqrt,
    Recip,
    Square,
    Cube,
    InvSquare,
    General
};

FXL_HD inline PowKind powKindOf(double e)
{
    return e == 1.0 ? PowKind::Identity
        : e == 0.5  ? PowKind::Sqrt
        : e == -0.5 ? PowKind::Rsqrt
        : e == -1.0 ? PowKind::Recip
        : e == 2.0  ? PowKind::Square
        : e == 3.0  ? PowKind::Cube
        : e == -2.0 ? PowKind::InvSquare
                    : PowKind::General;
}

// A floating x to the exponent e (`inFloat`: e is a float and the power is taken correctly
// rounded in float, else in double and rounded once to C).
template<class C>
struct PowScalar
{
    PowKind kind;
    double e;
    bool inFloat;
    FXL_HD C operator()(C x) const
    {
        switch (kind) {
        case PowKind::Identity: return x;
        case PowKind::Sqrt: return math::sqrt(x);
        case PowKind::Rsqrt: return C(1) / math::sqrt(x);
        case PowKind::Recip: return C(1) / x;
        case PowKind::Square: return x * x;
        case PowKind::Cube: return x * x * x;
        case PowKind::InvSquare: return C(1) / (x * x);
        case PowKind::General: break;
        }
        if constexpr (std::is_same_v<C, float>) {
            if (inFloat) return math::pow(x, static_cast<float>(e));
        }
        return static_cast<C>(math::pow(static_cast<double>(x), e));
    }
};

// pow(Tensor, Tensor): integer power by squaring, else runtime/math's pow in C.
template<class C>
FXL_HD inline C powBinary(C x, C y)
{
    if constexpr (kInt<C>)
        return powi<C>(x, y);
    else
        return math::pow(x, y);
}

// Integer division rounding toward negative infinity; INT_MIN / -1 wraps.
template<class T>
FXL_HD inline T floorDivInt(T a, T b)
{
    if (b == -1) return wrapNeg<T>(a);
    const T q = static_cast<T>(a / b), r = static_cast<T>(a % b);
    return (r != 0 && ((a < 0) != (b < 0))) ? static_cast<T>(q - 1) : q;
}

// Integer division rounding toward zero; INT_MIN / -1 wraps.
template<class T>
FXL_HD inline T truncDivInt(T a, T b)
{
    if (b == -1) return wrapNeg<T>(a);
    return static_cast<T>(a / b);
}

// PyTorch's div_floor_floating: the quotient from fmod, so that it is the floor of the exact one.
template<class C>
FXL_HD inline C floorDivFloat(C x, C y)
{
    if (y == 0) return x / y;
    const C mod = math::fmod(x, y);
    C div = (x - mod) / y;
    if (mod != 0 && (y < 0) != (mod < 0)) div -= C(1);
    if (div == 0) return math::copysign(C(0), x / y);
    C fl = math::floor(div);
    if (div - fl > C(0.5)) fl += C(1);
    return fl;
}

// div(rounding_mode): `floorMode` floor, else trunc. `Narrow` rounds a float quotient to the
// storage type first (PyTorch divides in bf16 / f16: -22.97 rounds to -23, then stays -23).
template<class C, class Narrow>
FXL_HD inline C divRounding(C x, C y, bool floorMode, Narrow narrow)
{
    if constexpr (kInt<C>) {
        return floorMode ? floorDivInt<C>(x, y) : truncDivInt<C>(x, y);
    } else {
        if (floorMode) return floorDivFloat<C>(x, y);
        return math::trunc(narrow(x / y));
    }
}

enum class Round : uint8_t
{
    Floor,
    Ceil,
    Trunc,
    Nearest
};

// floor / ceil / trunc / round (half to even); integers are unchanged.
template<class C>
FXL_HD inline C round(C x, Round mode)
{
    if constexpr (kInt<C>) {
        return x;
    } else {
        switch (mode) {
        case Round::Floor: return math::floor(x);
        case Round::Ceil: return math::ceil(x);
        case Round::Trunc: return math::trunc(x);
        case Round::Nearest: return math::rint(x);
        }
        return x;
    }
}

// fmod (the sign of the dividend) or remainder (the sign of the divisor).
template<class C>
FXL_HD inline C mod(C x, C y, bool remainder)
{
    if constexpr (kInt<C>) {
        C r = y == -1 ? C(0) : static_cast<C>(x % y);
        if (remainder && r != 0 && ((r < 0) != (y < 0))) r = wrapAdd<C>(r, y);
        return r;
    } else {
        C m = math::fmod(x, y);
        if (remainder && m != 0 && ((y < 0) != (m < 0))) m += y;
        return m;
    }
}

// addcmul: a + v * b * c; addcdiv: a + v * b / c (left to right, no fusion).
template<class C>
FXL_HD inline C addc(C a, C b, C c, C v, bool div)
{
    if constexpr (kInt<C>)
        return wrapAdd<C>(a, wrapMul<C>(wrapMul<C>(v, b), c));
    else
        return div ? a + v * b / c : a + v * b * c;
}

// lerp: PyTorch's two-sided formula (exact at both ends).
template<class C>
FXL_HD inline C lerp(C a, C b, C w)
{
    return math::fabs(w) < C(0.5) ? a + w * (b - a) : b - (b - a) * (C(1) - w);
}

// arange's element i: start + step * i (integers wrap; bf16 / f16 in float, f32 / f64 in double,
// each rounded once by the caller).
template<class C>
FXL_HD inline C arangeValue(C start, C step, int64_t i)
{
    if constexpr (kInt<C>)
        return wrapAdd<C>(start, wrapMul<C>(step, static_cast<C>(i)));
    else
        return start + step * static_cast<C>(i);
}

}  // namespace arith
}  // namespace fxl::math
