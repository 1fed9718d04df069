#pragma once
// Bit views of floats and the IEEE operations runtime/math/ builds on. Each is one correctly
// rounded IEEE operation on every device (with nvcc's -prec-sqrt=true for sqrt), so code written
// with them gives the same bits on the host and on a GPU.
#include <cstdint>
#include <cstring>

#include <cmath>

#include "hostdev.hpp"

namespace fxl::math {

FXL_HD inline uint32_t bitsOf(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}
FXL_HD inline uint64_t bitsOf(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}
FXL_HD inline float floatFromBits(uint32_t u)
{
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}
FXL_HD inline double doubleFromBits(uint64_t u)
{
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
}

// a*b+c with one rounding
FXL_HD inline double fma(double a, double b, double c)
{
#if defined(__CUDA_ARCH__)
    return __fma_rn(a, b, c);
#else
    return std::fma(a, b, c);
#endif
}
FXL_HD inline float fma(float a, float b, float c)
{
#if defined(__CUDA_ARCH__)
    return __fmaf_rn(a, b, c);
#else
    return std::fma(a, b, c);
#endif
}
FXL_HD inline double sqrt(double x)
{
#if defined(__CUDA_ARCH__)
    return __dsqrt_rn(x);
#else
    return std::sqrt(x);
#endif
}
FXL_HD inline float sqrt(float x)
{
#if defined(__CUDA_ARCH__)
    return __fsqrt_rn(x);
#else
    return std::sqrt(x);
#endif
}

// The canonical NaN every kernel writes: x86's default NaN (sign set, quiet bit, no payload).
inline constexpr uint32_t kCanonicalNanBits = 0xffc00000u;
inline constexpr uint64_t kCanonicalNanBits64 = 0xfff8000000000000ull;
FXL_HD inline float canonicalNanF() { return floatFromBits(kCanonicalNanBits); }
FXL_HD inline double canonicalNanD() { return doubleFromBits(kCanonicalNanBits64); }

FXL_HD inline bool isNan(float x) { return (bitsOf(x) & 0x7fffffffu) > 0x7f800000u; }
FXL_HD inline bool isNan(double x) { return (bitsOf(x) & 0x7fffffffffffffffull) > 0x7ff0000000000000ull; }
// x, or the canonical NaN when x is a NaN (whatever its sign and payload): what every computing
// kernel stores, so that results compare bitwise across devices (an x86 invalid operation
// gives this NaN already; an operand's NaN propagates with its payload, a sign flip (neg,
// abs) changes its sign, and a GPU's NaN bits are unspecified).
FXL_HD inline float canonical(float x) { return isNan(x) ? canonicalNanF() : x; }
FXL_HD inline double canonical(double x) { return isNan(x) ? canonicalNanD() : x; }
// The canonical NaNs of bf16 and f16 (the float32 one narrowed: sign, quiet bit, no payload).
inline constexpr uint16_t kCanonicalNanBf16 = 0xffc0u;
inline constexpr uint16_t kCanonicalNanF16 = 0xfe00u;
FXL_HD inline bool isInf(float x) { return (bitsOf(x) & 0x7fffffffu) == 0x7f800000u; }
FXL_HD inline bool isInf(double x) { return (bitsOf(x) & 0x7fffffffffffffffull) == 0x7ff0000000000000ull; }
FXL_HD inline float fabs(float x) { return floatFromBits(bitsOf(x) & 0x7fffffffu); }
FXL_HD inline double fabs(double x) { return doubleFromBits(bitsOf(x) & 0x7fffffffffffffffull); }
FXL_HD inline double copysign(double mag, double sgn)
{
    return doubleFromBits((bitsOf(mag) & 0x7fffffffffffffffull) | (bitsOf(sgn) & 0x8000000000000000ull));
}
FXL_HD inline float copysign(float mag, float sgn)
{
    return floatFromBits((bitsOf(mag) & 0x7fffffffu) | (bitsOf(sgn) & 0x80000000u));
}
// x * 2^n for a normal or zero x and a result that stays normal (exponent arithmetic only);
// callers keep within range or scale in two steps.
FXL_HD inline double scaleByPow2Normal(double x, int n)
{
    return x * doubleFromBits(static_cast<uint64_t>(1023 + n) << 52);
}

}  // namespace fxl::math
