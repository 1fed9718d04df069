#pragma once
// Storage types and their conversions, one written rule for every device: bf16 and f16 widen to
// f32 exactly; f32 narrows to them rounding to nearest even, overflowing to infinity, and every
// NaN becomes the canonical NaN of the narrow type (kCanonicalNanBf16, kCanonicalNanF16: the
// canonical float32 NaN narrowed), so that the bits written do not depend on a NaN's payload.
#include <cstdint>

#include "bits.hpp"
#include "hostdev.hpp"

namespace fxl::math {

FXL_HD inline float bf16ToF32(uint16_t h) { return floatFromBits(static_cast<uint32_t>(h) << 16); }

FXL_HD inline uint16_t f32ToBf16(float f)
{
    uint32_t u = bitsOf(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return kCanonicalNanBf16;
    const uint32_t lsb = (u >> 16) & 1u;
    u += 0x7fffu + lsb;
    return static_cast<uint16_t>(u >> 16);
}

FXL_HD inline float f16ToF32(uint16_t h)
{
    const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t man = h & 0x3ffu;
    uint32_t u;
    if (exp == 0) {
        if (man == 0) {
            u = sign;
        } else {  // subnormal: normalise
            int e = -1;
            do {
                ++e;
                man <<= 1;
            } while ((man & 0x400u) == 0);
            man &= 0x3ffu;
            u = sign | static_cast<uint32_t>(127 - 15 - e) << 23 | man << 13;
        }
    } else if (exp == 0x1f) {
        u = sign | 0x7f800000u | man << 13 | (man ? 0x400000u : 0u);
    } else {
        u = sign | (exp + 127 - 15) << 23 | man << 13;
    }
    return floatFromBits(u);
}

FXL_HD inline uint16_t f32ToF16(float f)
{
    const uint32_t u = bitsOf(f);
    const uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
    const uint32_t abs = u & 0x7fffffffu;
    if (abs > 0x7f800000u) return kCanonicalNanF16;
    if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds to >= 65520: inf
    if (abs < 0x38800000u) {  // below the smallest normal half: subnormal or zero, RNE
        if (abs < 0x33000000u) return sign;  // < 2^-25: rounds to 0 (ties at 2^-25 go to even = 0)
        const uint32_t e = abs >> 23;
        const uint32_t m = (abs & 0x7fffffu) | 0x800000u;
        const uint32_t shift = 126 - e;  // 14 + (113 - e) ... bits to drop to land on 2^-24 units
        const uint32_t q = m >> shift;
        const uint32_t rem = m & ((1u << shift) - 1);
        const uint32_t half = 1u << (shift - 1);
        uint32_t r = q + ((rem > half || (rem == half && (q & 1u))) ? 1u : 0u);
        return static_cast<uint16_t>(sign | r);
    }
    uint32_t v = abs - (112u << 23);  // rebias 127 -> 15
    const uint32_t lsb = (v >> 13) & 1u;
    v += 0xfffu + lsb;
    return static_cast<uint16_t>(sign | (v >> 13));
}

// Float -> integer as PyTorch's x86-64 CPU build converts (c10::convert): toward zero; out of
// range or NaN gives the "integer indefinite" value of a 64- or 32-bit conversion (INT_MIN),
// and 8/16-bit targets take the low bits of the 32-bit result. Written out, because a GPU's
// conversion saturates instead.
FXL_HD inline int64_t truncToI64(double v)
{
    if (!(v >= -9223372036854775808.0 && v < 9223372036854775808.0)) return -9223372036854775807LL - 1;
    return static_cast<int64_t>(v);
}
FXL_HD inline int32_t truncToI32(double v)
{
    if (!(v > -2147483649.0 && v < 2147483648.0)) return -2147483647 - 1;
    return static_cast<int32_t>(v);
}

// The 16-bit float formats a float result is rounded to before it is used again (PyTorch
// computes some values "in the storage type": random transforms, dropout's masked value).
enum class Narrow : uint8_t
{
    None,
    Bf16,
    F16
};
FXL_HD inline float roundToStorage(float v, Narrow n)
{
    if (n == Narrow::Bf16) return bf16ToF32(f32ToBf16(v));
    if (n == Narrow::F16) return f16ToF32(f32ToF16(v));
    return v;
}

}  // namespace fxl::math
