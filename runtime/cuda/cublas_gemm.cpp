#include "runtime/cuda/cublas_gemm.hpp"

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <map>
#include <mutex>
#include <stdexcept>

#include "runtime/cuda/cuda_device.hpp"
#include "runtime/cuda/cuda_probe.hpp"

namespace fxl::cuda {
namespace {

// The C entry points, resolved by name (cublas_v2.h's macros map the names to their _v2
// symbols; cublas_api.h's C++ overloads of some are not what dlsym finds).
using CreateFn = cublasStatus_t (*)(cublasHandle_t*);
using SetStreamFn = cublasStatus_t (*)(cublasHandle_t, cudaStream_t);
using SetMathModeFn = cublasStatus_t (*)(cublasHandle_t, cublasMath_t);
using GemmFn = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void*,
                                  const void*, cudaDataType, int, long long, const void*, cudaDataType, int, long long,
                                  const void*, void*, cudaDataType, int, long long, int, cublasComputeType_t,
                                  cublasGemmAlgo_t);

struct Cublas
{
    CreateFn create = nullptr;
    SetStreamFn setStream = nullptr;
    SetMathModeFn setMathMode = nullptr;
    GemmFn gemm = nullptr;
    std::string why;  // when not loaded
    std::mutex mutex;
    std::map<int, cublasHandle_t> handles;  // per device, kept for the process
};

Cublas& cublas()
{
    static Cublas c;
    static std::once_flag once;
    std::call_once(once, [] {
        std::string why;
        void* h = loadCublas(&why);
        if (!h) {
            c.why = why;
            return;
        }
        c.create = reinterpret_cast<CreateFn>(librarySymbol(h, "cublasCreate_v2"));
        c.setStream = reinterpret_cast<SetStreamFn>(librarySymbol(h, "cublasSetStream_v2"));
        c.setMathMode = reinterpret_cast<SetMathModeFn>(librarySymbol(h, "cublasSetMathMode"));
        c.gemm = reinterpret_cast<GemmFn>(librarySymbol(h, "cublasGemmStridedBatchedEx"));
        if (!c.create || !c.setStream || !c.setMathMode || !c.gemm)
            c.why = "the cuBLAS library found lacks cublasCreate_v2, cublasSetStream_v2, cublasSetMathMode or "
                    "cublasGemmStridedBatchedEx";
    });
    return c;
}

void check(cublasStatus_t s, const char* what)
{
    if (s != CUBLAS_STATUS_SUCCESS)
        throw std::runtime_error(std::string("cuBLAS ") + what + ": status " + std::to_string(s));
}

// An operand of `rows` x `cols` as cuBLAS sees it in column-major order: the matrix stored
// (its transpose when the operand is row-major) and its leading dimension. A dim of size 1 has
// no stride that matters.
struct ColumnMajor
{
    bool rowMajor = true;  // stored as the operand's transpose
    int64_t ld = 0;
    bool ok = false;
};
ColumnMajor columnMajor(int64_t rows, int64_t cols, int64_t rowStride, int64_t colStride)
{
    ColumnMajor c;
    if (cols == 1 || colStride == 1) {
        c.rowMajor = true;
        c.ld = rows == 1 ? cols : rowStride;
        c.ok = c.ld >= std::max<int64_t>(1, cols);
    }
    if (!c.ok && (rows == 1 || rowStride == 1)) {
        c.rowMajor = false;
        c.ld = cols == 1 ? rows : colStride;
        c.ok = c.ld >= std::max<int64_t>(1, rows);
    }
    return c;
}

cudaDataType dataType(int elem)
{
    switch (elem) {
    case kGemmBf16: return CUDA_R_16BF;
    case kGemmF16: return CUDA_R_16F;
    case kGemmF64: return CUDA_R_64F;
    default: return CUDA_R_32F;
    }
}

bool fitsInt(int64_t v) { return v >= 0 && v <= INT_MAX; }

}  // namespace

CublasResult cublasGemm(void* stream, const GemmParams& p, CublasMath math)
{
    Cublas& c = cublas();
    if (!c.gemm) throw std::runtime_error("cuBLAS not found: " + c.why);
    // Row-major C (m x n) is column-major C^T (n x m): C^T = B^T A^T, so cuBLAS's first operand
    // is B (k x n) and its second A (m x k).
    const ColumnMajor b = columnMajor(p.k, p.n, p.b.rowStride, p.b.colStride);
    const ColumnMajor a = columnMajor(p.m, p.k, p.a.rowStride, p.a.colStride);
    if (!a.ok || !b.ok || !fitsInt(p.m) || !fitsInt(p.n) || !fitsInt(p.k) || !fitsInt(p.batch) || !fitsInt(a.ld)
        || !fitsInt(b.ld) || !fitsInt(p.ldc) || p.ldc < std::max<int64_t>(1, p.n))
        return CublasResult::Layout;
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess) throw std::runtime_error("cuBLAS: no current device");
    cublasHandle_t h = nullptr;
    {
        std::lock_guard lock(c.mutex);
        auto it = c.handles.find(device);
        if (it == c.handles.end()) {
            check(c.create(&h), "create");
            it = c.handles.emplace(device, h).first;
        }
        h = it->second;
    }
    check(c.setStream(h, static_cast<cudaStream_t>(stream)), "set stream");
    const bool wide = p.a.elem == kGemmF64;
    const bool halves = p.a.elem == kGemmBf16 || p.a.elem == kGemmF16;
    cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
    cublasMath_t mode = CUBLAS_DEFAULT_MATH;
    if (wide) {
        compute = CUBLAS_COMPUTE_64F;
    } else if (math == CublasMath::TensorCores) {
        compute = halves ? CUBLAS_COMPUTE_32F : CUBLAS_COMPUTE_32F_FAST_TF32;
        mode = CUBLAS_TF32_TENSOR_OP_MATH;
    } else {
        // f32: cublasSgemm's computation with the default math mode (TF32 off); bf16 / f16
        // operands have no CUDA-core path in cuBLAS's Ex call
        compute = CUBLAS_COMPUTE_32F;
    }
    check(c.setMathMode(h, mode), "set math mode");
    const float one = 1.0f, zero = 0.0f;
    const double oneD = 1.0, zeroD = 0.0;
    const void* alpha = wide ? static_cast<const void*>(&oneD) : static_cast<const void*>(&one);
    const void* beta = wide ? static_cast<const void*>(&zeroD) : static_cast<const void*>(&zero);
    check(c.gemm(h, b.rowMajor ? CUBLAS_OP_N : CUBLAS_OP_T, a.rowMajor ? CUBLAS_OP_N : CUBLAS_OP_T,
                 static_cast<int>(p.n), static_cast<int>(p.m), static_cast<int>(p.k), alpha, p.b.data,
                 dataType(p.b.elem), static_cast<int>(b.ld), p.b.batchStride, p.a.data, dataType(p.a.elem),
                 static_cast<int>(a.ld), p.a.batchStride, beta, p.c, wide ? CUDA_R_64F : CUDA_R_32F,
                 static_cast<int>(p.ldc), p.cBatchStride, static_cast<int>(p.batch), compute, CUBLAS_GEMM_DEFAULT),
          "gemm");
    return CublasResult::Done;
}

GemmTiming timeGemm(int index, int64_t batch, int64_t m, int64_t n, int64_t k, const float* a, const float* b, int reps)
{
    std::string why;
    auto dev = makeRuntimeDevice(index, &why);
    if (!dev) throw std::runtime_error(why);
    const int64_t aBytes = batch * m * k * 4, bBytes = batch * k * n * 4, cBytes = batch * m * n * 4;
    void* da = dev->allocate(aBytes);
    void* db = dev->allocate(bBytes);
    void* dc = dev->allocate(cBytes);
    dev->toDevice(da, a, aBytes);
    dev->toDevice(db, b, bBytes);
    GemmParams p;
    p.a = {da, kGemmF32, k, 1, m * k};
    p.b = {db, kGemmF32, n, 1, k * n};
    p.c = dc;
    p.batch = batch;
    p.m = m;
    p.n = n;
    p.k = k;
    p.ldc = n;
    p.cBatchStride = m * n;
    auto best = [&](auto&& once) {
        once();  // untimed: module loading, cuBLAS's heuristics
        double t = 1e30;
        for (int r = 0; r < reps; ++r) {
            const auto t0 = std::chrono::steady_clock::now();
            once();
            t = std::min(t, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        }
        return t;
    };
    GemmTiming out;
    out.kernelSeconds = best([&] {
        dev->gemm(p);
        dev->synchronize();
    });
    out.c.resize(static_cast<size_t>(batch * m * n));
    dev->toHost(out.c.data(), dc, cBytes);
    // cuBLAS on the default stream, the device idle before and after each run
    dev->synchronize();
    for (CublasMath math : {CublasMath::Fp32, CublasMath::TensorCores}) {
        const double t = best([&] {
            if (cublasGemm(nullptr, p, math) != CublasResult::Done) throw std::runtime_error("cuBLAS: layout refused");
            if (cudaDeviceSynchronize() != cudaSuccess) throw std::runtime_error("cuBLAS run failed");
        });
        (math == CublasMath::Fp32 ? out.cublasFp32Seconds : out.cublasTf32Seconds) = t;
    }
    dev->deallocate(da, aBytes);
    dev->deallocate(db, bBytes);
    dev->deallocate(dc, cBytes);
    dev->synchronize();
    return out;
}

}  // namespace fxl::cuda
