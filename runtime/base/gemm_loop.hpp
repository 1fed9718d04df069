// One matrix product as a backend receives it: C = A B with the per-element fma chain of
// runtime/math/gemm_chain.hpp, C a row-major float (f32 / bf16 / f16 operands) or double (f64)
// buffer; or, for integer operands, C = alpha A B + beta bias in C's (the operands') type,
// wrapping (intStep / intEpilogue). The matmul kernels' host logic (checks, alpha / beta, the epilogue by the pointwise
// loop) is the same on every device; the chain's loops are the backend's (Backend::gemm).
#pragma once

#include <cstdint>

#include "core/ir/dtype.hpp"

namespace fxl {

// A [batch,] rows x cols operand: element (b, i, j) at data + b*batchStride + i*rowStride +
// j*colStride (in elements).
struct GemmOperand
{
    const void* data = nullptr;
    DType dtype = DType::F32;  // F32, BF16, F16 (float chain), F64 (double chain), or an integer type
    int64_t rowStride = 0, colStride = 0, batchStride = 0;
};

struct GemmLoop
{
    int64_t batch = 1, m = 0, n = 0, k = 0;
    GemmOperand a, b;
    void* c = nullptr;  // C[b][i][j] at c + b*cBatchStride + i*ldc + j
    int64_t ldc = 0, cBatchStride = 0;
    // integer operands only (c contiguous): the epilogue's scalars and bias (data null: none)
    int64_t alpha = 1, beta = 1;
    GemmOperand bias;
};

}  // namespace fxl
