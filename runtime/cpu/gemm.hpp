// Fixed-order GEMM engine of the CPU backend (docs/numerics.md section 4).
//
// Every output element C[b][i][j] is one chain over k ascending, starting at +0:
//     acc = 0; for k = 0..K-1: acc = fma(A[b][i][k], B[b][k][j], acc)
// in float for f32/bf16/f16 inputs (bf16/f16 widened exactly while packing) and in double for
// f64. Nothing else changes the order: the code vectorises across N (one lane = one output),
// K blocking stores the partial chain to f32/f64 memory and reloads it (exact), threads take
// whole M x N tiles (never a part of K), and the scalar, AVX2 and AVX-512 paths compute the
// same chain. So the bits of a row never depend on M, row offset, strides, alignment, thread
// count or ISA.
#pragma once

#include <cstdint>
#include <optional>

#include "core/ir/dtype.hpp"
#include "runtime/base/gemm_loop.hpp"

namespace fxl {
class ThreadPool;
}

namespace fxl::cpu {

enum class GemmIsa : uint8_t
{
    Scalar,
    Avx2,
    Avx512
};

const char* gemmIsaName(GemmIsa isa);  // "scalar", "avx2", "avx512"
// True when this CPU (and build) can run the path. Scalar is always supported.
bool gemmIsaSupported(GemmIsa isa);
// The path a call uses now: the test override when set, else the environment variable
// FXLENS_CPU_ISA (scalar|avx2|avx512, read once; a path the CPU lacks falls back to the best
// one it has), else the best supported path.
GemmIsa gemmIsa();
// Test hook: force a path for the whole process (nullopt = back to the default). Throws
// std::invalid_argument when the CPU cannot run it.
void setGemmIsaOverride(std::optional<GemmIsa> isa);

// A strided (batched) matrix operand. Element [b][r][c] is at
// data + b*batchStride + r*rowStride + c*colStride (in elements of dtype; any strides, 0 too).
// F32, BF16, F16 operands for gemmF32; F64 for gemmF64 (runtime/base/gemm_loop.hpp)
using GemmOperand = fxl::GemmOperand;

// C[b][i][j] (at C + b*cBatchStride + i*ldc + j) = the chain above, for b < batch, i < M,
// j < N. K == 0 gives +0. gemmF32: an element whose float chain is not finite is the same chain
// in double, rounded once (overflow inside the chain does not decide the result). pool may be nullptr (runs on the caller). Throws std::invalid_argument
// on an unsupported dtype.
void gemmF32(int64_t batch, int64_t M, int64_t N, int64_t K, const GemmOperand& A, const GemmOperand& B, float* C,
             int64_t ldc, int64_t cBatchStride, ThreadPool* pool);
void gemmF64(int64_t batch, int64_t M, int64_t N, int64_t K, const GemmOperand& A, const GemmOperand& B, double* C,
             int64_t ldc, int64_t cBatchStride, ThreadPool* pool);

}  // namespace fxl::cpu
