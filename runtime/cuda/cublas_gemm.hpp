// cuBLAS, loaded at run time (cuda_probe.hpp's search), for the products that are not the CPU's
// bits: the labelled fast mode's (--fast: TF32 tensor cores for f32 operands, tensor cores for
// bf16 / f16, DGEMM for f64) and the GPU check's speed reference (FP32 on CUDA cores, TF32 off,
// as cublasSgemm computes by default). Built with the CUDA Toolkit only (cublas_gemm.cpp).
#pragma once

#include <string>
#include <vector>

#include "runtime/cuda/gemm_kernel.hpp"

namespace fxl::cuda {

enum class CublasMath
{
    Fp32,  // FP32 (f64: FP64) on CUDA cores, TF32 off: the speed reference
    TensorCores,  // TF32 for f32 operands, bf16 / f16 tensor cores: --fast
};

enum class CublasResult
{
    Done,
    Layout,  // an operand has no unit stride (cuBLAS takes row- or column-major only): not queued
};

// C = A B as p describes (C row-major), queued on `stream` (a cudaStream_t) of the current
// device. Throws std::runtime_error when cuBLAS is not there or fails.
CublasResult cublasGemm(void* stream, const GemmParams& p, CublasMath math);

// The GPU check's speed table: C = A B for row-major contiguous f32 operands (batch x m x k
// times batch x k x n) on device `index`, timed as the best of `reps` runs (after one untimed)
// by the CUDA-core kernel (the CPU's bits) and by cuBLAS, FP32 (TF32 off, as cublasSgemm) and
// TF32. c: the kernel's C, for the caller to compare with the CPU. Throws std::runtime_error.
struct GemmTiming
{
    double kernelSeconds = 0, cublasFp32Seconds = 0, cublasTf32Seconds = 0;
    std::vector<float> c;
};
GemmTiming timeGemm(int index, int64_t batch, int64_t m, int64_t n, int64_t k, const float* a, const float* b,
                    int reps);

}  // namespace fxl::cuda
