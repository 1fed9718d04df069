// Helpers shared by the CPU kernels: the dtype conversions (runtime/math/storage.hpp,
// runtime/base/dtype_codec.hpp), element access through strides, and an n-d index walker. Kernel families
// live in one file each (cpu_<family>.cpp) and register through registerCpuKernels (cpu_kernels.hpp).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "runtime/base/dtype_codec.hpp"
#include "runtime/base/kernel.hpp"
#include "runtime/base/tensor.hpp"
#include "runtime/math/storage.hpp"

namespace fxl::cpu {

// the storage conversions (runtime/math/storage.hpp) and element access (runtime/base/dtype_codec.hpp)
using fxl::loadAsDouble;
using fxl::loadAsFloat;
using fxl::storeFromDouble;
using fxl::storeFromFloat;
using fxl::math::bf16ToF32;
using fxl::math::f16ToF32;
using fxl::math::f32ToBf16;
using fxl::math::f32ToF16;

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
