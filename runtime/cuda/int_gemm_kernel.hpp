// The integer matrix product: C[b][i][j] = alpha * sum_k A[b][i][k] B[b][k][j] + beta * bias,
// wrapping in 64 bits (math/gemm_chain.hpp intStep / intEpilogue) and narrowed to the
// operands' type; exact whatever the order, so one thread per output and no tiling (integer
// products are rare in training graphs). One kernel body for the GPU and the emulator.
#pragma once

#include <cstdint>

#include "runtime/cuda/launch.hpp"
#include "runtime/math/gemm_chain.hpp"

namespace fxl::cuda {

// Integer element types: 0 i64, 1 i32, 2 i16, 3 i8, 4 u8.
enum IntElem : int
{
    kIntI64 = 0,
    kIntI32 = 1,
    kIntI16 = 2,
    kIntI8 = 3,
    kIntU8 = 4
};

struct IntOperandView
{
    const void* data = nullptr;
    int64_t rowStride = 0, colStride = 0, batchStride = 0;  // in elements
};

struct IntGemmParams
{
    int elem = kIntI64;  // every operand's and the output's
    IntOperandView a, b, bias;  // bias.data null: none
    void* c = nullptr;  // contiguous [batch][m][n]
    int64_t batch = 1, m = 0, n = 0, k = 0;
    int64_t alpha = 1, beta = 1;
};

FXL_HD inline int64_t intLoad(int elem, const void* base, int64_t off)
{
    switch (elem) {
    case kIntI32: return static_cast<const int32_t*>(base)[off];
    case kIntI16: return static_cast<const int16_t*>(base)[off];
    case kIntI8: return static_cast<const int8_t*>(base)[off];
    case kIntU8: return static_cast<const uint8_t*>(base)[off];
    default: return static_cast<const int64_t*>(base)[off];
    }
}

FXL_HD inline void intStore(int elem, void* base, int64_t off, uint64_t v)
{
    switch (elem) {
    case kIntI32: static_cast<int32_t*>(base)[off] = static_cast<int32_t>(v); break;
    case kIntI16: static_cast<int16_t*>(base)[off] = static_cast<int16_t>(v); break;
    case kIntI8: static_cast<int8_t*>(base)[off] = static_cast<int8_t>(v); break;
    case kIntU8: static_cast<uint8_t*>(base)[off] = static_cast<uint8_t>(v); break;
    default: static_cast<int64_t*>(base)[off] = static_cast<int64_t>(v); break;
    }
}

FXL_HD inline void intGemmBody(const Coord& c, const IntGemmParams& p)
{
    const int64_t total = p.batch * p.m * p.n;
    for (int64_t e = c.globalX(); e < total; e += c.strideX()) {
        const int64_t bi = e / (p.m * p.n), i = e / p.n % p.m, j = e % p.n;
        uint64_t dot = 0;
        if (p.alpha != 0)
            for (int64_t k = 0; k < p.k; ++k)
                dot = math::gemm::intStep(
                    dot, intLoad(p.elem, p.a.data, bi * p.a.batchStride + i * p.a.rowStride + k * p.a.colStride),
                    intLoad(p.elem, p.b.data, bi * p.b.batchStride + k * p.b.rowStride + j * p.b.colStride));
        const bool useBias = p.bias.data != nullptr && p.beta != 0;
        const int64_t bias = useBias
            ? intLoad(p.elem, p.bias.data, bi * p.bias.batchStride + i * p.bias.rowStride + j * p.bias.colStride)
            : 0;
        intStore(p.elem, p.c, e, math::gemm::intEpilogue(dot, p.alpha, useBias, bias, p.beta));
    }
}

}  // namespace fxl::cuda
