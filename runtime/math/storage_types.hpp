#pragma once
// The storage types of the runtime's dtypes and their element conversions, one source for
// every device: B8 (bool, a byte: any nonzero byte reads as true, writes are 0/1), BF16, F16
// (their bits), the integers and floats themselves; Num<S>, the type arithmetic on S is done in
// (bool, the integer, float for f32 / bf16 / f16, double) with an exact load and a store that
// rounds once and writes the canonical NaN; convert<D>(S), PyTorch's x86 CPU conversions.
#include <cstdint>
#include <type_traits>

#include "runtime/math/bits.hpp"
#include "runtime/math/hostdev.hpp"
#include "runtime/math/storage.hpp"

namespace fxl::math {

struct B8
{
    uint8_t v;
};
struct BF16
{
    uint16_t bits;
};
struct F16
{
    uint16_t bits;
};

// Num<S>: the type arithmetic on a storage type S is done in, and exact load / rounding store.
template<class S>
struct Num
{
    using C = S;
    FXL_HD static C load(S v) { return v; }
    FXL_HD static S store(C v) { return v; }
};
// every floating result is stored with the canonical NaN (math::canonical)
template<>
struct Num<float>
{
    using C = float;
    FXL_HD static float load(float v) { return v; }
    FXL_HD static float store(float v) { return math::canonical(v); }
};
template<>
struct Num<double>
{
    using C = double;
    FXL_HD static double load(double v) { return v; }
    FXL_HD static double store(double v) { return math::canonical(v); }
};
template<>
struct Num<B8>
{
    using C = bool;
    FXL_HD static bool load(B8 v) { return v.v != 0; }
    FXL_HD static B8 store(bool v) { return B8{static_cast<uint8_t>(v ? 1 : 0)}; }
};
template<>
struct Num<BF16>
{
    using C = float;
    FXL_HD static float load(BF16 v) { return bf16ToF32(v.bits); }
    FXL_HD static BF16 store(float v) { return BF16{f32ToBf16(v)}; }
};
template<>
struct Num<F16>
{
    using C = float;
    FXL_HD static float load(F16 v) { return f16ToF32(v.bits); }
    FXL_HD static F16 store(float v) { return F16{f32ToF16(v)}; }
};

template<class S>
inline constexpr bool kIsReduced = std::is_same_v<S, BF16> || std::is_same_v<S, F16>;
template<class S>
inline constexpr bool kIsFloat = kIsReduced<S> || std::is_floating_point_v<S>;
template<class S>
inline constexpr bool kIsBool = std::is_same_v<S, B8>;
template<class S>
inline constexpr bool kIsInt = std::is_integral_v<S>;  // not bool (B8)

// ---- conversions as PyTorch's CPU build does them (c10::convert on x86-64): float -> int
// truncates toward zero; out of range or NaN gives the "integer indefinite" value of a 32- or
// 64-bit conversion (INT_MIN), and 8/16-bit targets take the low bits of the 32-bit result;
// int64 -> float rounds once (no detour through double); anything -> bf16/f16 goes through
// float (double rounding from double, as c10 does); -> bool is (v != 0), NaN is true. The
// float -> integer rule and the 16-bit roundings are runtime/math/storage.hpp's.
template<class D, class S>
FXL_HD D convert(S v)
{
    if constexpr (std::is_same_v<D, S>) {
        if constexpr (std::is_floating_point_v<D>)
            return math::canonical(v);  // a Python float NaN (fill, masked_fill) is stored canonical
        else
            return v;
    } else if constexpr (kIsReduced<S> || kIsBool<S>) {
        return convert<D>(Num<S>::load(v));  // widen exactly first (float / bool)
    } else if constexpr (kIsReduced<D>) {
        return Num<D>::store(convert<float>(v));
    } else if constexpr (kIsBool<D>) {
        return B8{static_cast<uint8_t>(v != 0 ? 1 : 0)};
    } else if constexpr (std::is_floating_point_v<D>) {
        return math::canonical(static_cast<D>(v));
    } else if constexpr (std::is_floating_point_v<S>) {  // float -> integer
        if constexpr (std::is_same_v<D, int64_t>)
            return math::truncToI64(static_cast<double>(v));
        else
            return static_cast<D>(math::truncToI32(static_cast<double>(v)));
    } else {
        return static_cast<D>(v);  // integer -> integer: modular (well defined since C++20)
    }
}

template<size_t N>
struct BitsOf;
template<>
struct BitsOf<1>
{
    using type = uint8_t;
};
template<>
struct BitsOf<2>
{
    using type = uint16_t;
};
template<>
struct BitsOf<4>
{
    using type = uint32_t;
};
template<>
struct BitsOf<8>
{
    using type = uint64_t;
};

}  // namespace fxl::math
