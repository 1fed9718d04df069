// Helpers shared by the CPU kernels: exact dtype conversions (bf16/f16 round to nearest even,
// one NaN policy), element access through strides, and an n-d index walker. Kernel families
// live in one file each (cpu_<family>.cpp) and register through registerCpuKernels (cpu_kernels.hpp).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "runtime/kernel.hpp"
#include "runtime/tensor.hpp"

namespace fxl::cpu {

// ---- bf16 / f16 <-> f32 (exact widening; narrowing rounds to nearest even; NaN -> quiet NaN)
inline float bf16ToF32(uint16_t h)
{
    uint32_t u = static_cast<uint32_t>(h) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}
inline uint16_t f32ToBf16(float f)
{
    uint32_t u;
    std::memcpy(&u, &f, 4);
    if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x0040u);  // quiet NaN, sign kept
    const uint32_t lsb = (u >> 16) & 1u;
    u += 0x7fffu + lsb;
    return static_cast<uint16_t>(u >> 16);
}
float f16ToF32(uint16_t h);
uint16_t f32ToF16(float f);

// ---- element access as double (every supported dtype), for generic (slow but exact) paths.
double loadAsDouble(const void* p, DType t);
void storeFromDouble(void* p, DType t, double v);  // floats round once; ints truncate toward zero; bool = v != 0
// float widening: f32 value of an element of a float tensor (bf16/f16 widened exactly)
float loadAsFloat(const void* p, DType t);
void storeFromFloat(void* p, DType t, float v);

// Offset in elements of a logical multi-index.
inline int64_t offsetOf(const Tensor& t, const int64_t* idx)
{
    int64_t o = 0;
    for (size_t k = 0; k < t.sizes().size(); ++k) o += idx[k] * t.strides()[k];
    return o;
}

// Walks every multi-index of `sizes` in row-major order: fn(const int64_t* idx, int64_t flat).
template<class F>
void forEachIndex(const std::vector<int64_t>& sizes, F&& fn)
{
    int64_t n = 1;
    for (int64_t s : sizes) n *= s;
    if (n == 0) return;
    std::vector<int64_t> idx(sizes.size(), 0);
    for (int64_t flat = 0; flat < n; ++flat) {
        fn(idx.data(), flat);
        for (size_t j = sizes.size(); j-- > 0;) {
            if (++idx[j] < sizes[j]) break;
            idx[j] = 0;
        }
    }
}

// Sizes after broadcasting two shapes (numpy rules); throws KernelError when incompatible.
std::vector<int64_t> broadcastShapes(const std::vector<int64_t>& a, const std::vector<int64_t>& b);
// A view of t expanded to `sizes` (stride 0 on broadcast dims); throws KernelError.
Tensor expandTo(const Tensor& t, const std::vector<int64_t>& sizes);
// A contiguous copy when t is not contiguous (t itself otherwise).
Tensor contiguous(const Tensor& t, Backend& b);

// ---- kernel arguments
// The argument `name` of the call's schema, or None when the schema has no such argument.
const Value& optArg(const KernelCall& call, const char* name);
// A size list argument (SymInt[]): integers, none negative (KernelError otherwise).
std::vector<int64_t> sizeArg(const KernelCall& call, const char* name);

}  // namespace fxl::cpu
