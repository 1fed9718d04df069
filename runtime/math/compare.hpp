#pragma once
// The per-element formulas of comparisons, maximum / minimum, clamp and the logical and bitwise
// operators, one source for every device. C is the compute type as in arith.hpp (bool, an
// integer, float or double). NaN rules are PyTorch's: maximum / minimum and clamp with tensor
// bounds propagate a NaN operand; clamp with number bounds keeps x's NaN (std::max / std::min).
#include <cstdint>
#include <type_traits>

#include "runtime/math/bits.hpp"
#include "runtime/math/hostdev.hpp"

namespace fxl::math::cmp {

template<class C>
inline constexpr bool kFloat = std::is_floating_point_v<C>;

enum class Cmp : uint8_t
{
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge
};

template<class C>
FXL_HD inline bool compare(C x, C y, Cmp op)
{
    switch (op) {
    case Cmp::Eq: return x == y;
    case Cmp::Ne: return x != y;
    case Cmp::Lt: return x < y;
    case Cmp::Le: return x <= y;
    case Cmp::Gt: return x > y;
    case Cmp::Ge: return x >= y;
    }
    return false;
}

// maximum: a NaN operand wins (the first one), else the larger.
template<class C>
FXL_HD inline C maximum(C x, C y)
{
    if constexpr (kFloat<C>) {
        if (x != x) return x;
        if (y != y) return y;
    }
    if constexpr (std::is_same_v<C, bool>)
        return x || y;
    else
        return x < y ? y : x;
}

// minimum: a NaN operand wins (the first one), else the smaller.
template<class C>
FXL_HD inline C minimum(C x, C y)
{
    if constexpr (kFloat<C>) {
        if (x != x) return x;
        if (y != y) return y;
    }
    if constexpr (std::is_same_v<C, bool>)
        return x && y;
    else
        return y < x ? y : x;
}

// clamp with number bounds: std::min(std::max(x, lo), hi) (a NaN x stays NaN); `nanOut` (a NaN
// bound, PyTorch 1.13's rule decided by the caller) gives `nan` everywhere.
template<class C>
struct ClampScalar
{
    C lo, hi, nan;
    bool useLo, useHi, nanOut;
    FXL_HD C operator()(C x) const
    {
        if (nanOut) return nan;
        if (useLo) x = x < lo ? lo : x;
        if (useHi) x = hi < x ? hi : x;
        return x;
    }
};

enum class Logic : uint8_t
{
    And,
    Or,
    Xor
};

// logical_and / or / xor: operands are true when nonzero (a NaN is nonzero).
template<class C>
FXL_HD inline bool logical(C x, C y, Logic op)
{
    const bool p = x != C(0), q = y != C(0);
    return op == Logic::And ? (p && q) : op == Logic::Or ? (p || q) : (p != q);
}

template<class C>
FXL_HD inline bool logicalNot(C x)
{
    return !(x != C(0));
}

// bitwise_and / or / xor of integers and bools.
template<class C>
FXL_HD inline C bitwise(C x, C y, Logic op)
{
    if constexpr (std::is_same_v<C, bool>)
        return op == Logic::And ? (x && y) : op == Logic::Or ? (x || y) : (x != y);
    else
        return op == Logic::And ? static_cast<C>(x & y)
            : op == Logic::Or   ? static_cast<C>(x | y)
                                : static_cast<C>(x ^ y);
}

template<class C>
FXL_HD inline bool isNanValue(C x)
{
    if constexpr (kFloat<C>)
        return math::isNan(x);
    else
        return false;
}

template<class C>
FXL_HD inline bool isInfValue(C x)
{
    if constexpr (kFloat<C>)
        return math::isInf(x);
    else
        return false;
}

}  // namespace fxl::math::cmp
