// The matrix product on CUDA cores with the CPU's per-element chain (math/gemm_chain.hpp):
// C[b][i][j] = fma chain over k ascending from +0, in float for f32 / bf16 / f16 operands
// (widened exactly) and in double for f64; a float chain that ends not finite is the same
// chain in double, rounded once. Tiled through shared memory: a block computes a kTile x kTile
// tile of C, one output per thread; for each slice of kSlice values of k the block loads the
// A and B tiles (phase 2s), then every thread continues its chain over the slice (phase 2s+1);
// the last phase stores. Slicing k changes no bit: the chain continues in the same register.
// The emulator (emulate.hpp, emulatePhasedLaunch) runs phase by phase for every thread of a
// block, the GPU wrapper with a barrier between phases.
#pragma once

#include <cstdint>

#include "runtime/cuda/launch.hpp"
#include "runtime/math/gemm_chain.hpp"
#include "runtime/math/storage.hpp"

namespace fxl::cuda {

// Operand element types: 0 f32, 1 bf16, 2 f16, 3 f64.
enum GemmElem : int
{
    kGemmF32 = 0,
    kGemmBf16 = 1,
    kGemmF16 = 2,
    kGemmF64 = 3
};

struct GemmOperandView
{
    const void* data = nullptr;
    int elem = kGemmF32;
    int64_t rowStride = 0, colStride = 0, batchStride = 0;  // in elements
};

struct GemmParams
{
    GemmOperandView a, b;
    void* c = nullptr;  // float (f32 / bf16 / f16 operands) or double (f64)
    int64_t batch = 1, m = 0, n = 0, k = 0;
    int64_t ldc = 0, cBatchStride = 0;
};

inline constexpr int kTile = 16;  // outputs per block side (kTile x kTile threads)
inline constexpr int kSlice = 16;  // k values per shared-memory slice

// One operand element widened exactly to T (float or double).
template<class T>
FXL_HD inline T gemmLoad(const GemmOperandView& o, int64_t off)
{
    switch (o.elem) {
    case kGemmBf16: return static_cast<T>(math::bf16ToF32(static_cast<const uint16_t*>(o.data)[off]));
    case kGemmF16: return static_cast<T>(math::f16ToF32(static_cast<const uint16_t*>(o.data)[off]));
    case kGemmF64: return static_cast<T>(static_cast<const double*>(o.data)[off]);
    default: return static_cast<T>(static_cast<const float*>(o.data)[off]);
    }
}

template<class T>
struct GemmShared
{
    T a[kTile][kSlice];  // A[i0 + r][k0 + s]
    T b[kSlice][kTile];  // B[k0 + s][j0 + c]
};

template<class T>
struct GemmThread
{
    T acc;
};

// The launch: grid (ceil(n / kTile), ceil(m / kTile), batch), blocks of kTile x kTile threads.
inline Dim3 gemmGrid(const GemmParams& p)
{
    return {static_cast<uint32_t>((p.n + kTile - 1) / kTile), static_cast<uint32_t>((p.m + kTile - 1) / kTile),
            static_cast<uint32_t>(p.batch)};
}
inline Dim3 gemmBlock() { return {kTile, kTile, 1}; }
FXL_HD inline int gemmPhases(const GemmParams& p) { return 2 * static_cast<int>((p.k + kSlice - 1) / kSlice) + 1; }

template<class T>
FXL_HD inline void gemmBody(const Coord& c, int phase, GemmShared<T>& sh, GemmThread<T>& th, const GemmParams& p)
{
    const int64_t bi = c.block.z;
    const int64_t i0 = static_cast<int64_t>(c.block.y) * kTile, j0 = static_cast<int64_t>(c.block.x) * kTile;
    const int tr = static_cast<int>(c.thread.y), tc = static_cast<int>(c.thread.x);
    const int64_t i = i0 + tr, j = j0 + tc;
    const int last = gemmPhases(p) - 1;
    if (phase == 0) th.acc = T(0);
    if (phase == last) {  // store, with the wide redo of a float chain that ended not finite
        if (i >= p.m || j >= p.n) return;
        T v = th.acc;
        if constexpr (sizeof(T) == 4) {
            if (math::gemm::needsWideChain(v)) {
                const int64_t ab = bi * p.a.batchStride + i * p.a.rowStride;
                const int64_t bb = bi * p.b.batchStride + j * p.b.colStride;
                v = math::gemm::wideChain(
                    p.k, [&](int64_t k) { return gemmLoad<double>(p.a, ab + k * p.a.colStride); },
                    [&](int64_t k) { return gemmLoad<double>(p.b, bb + k * p.b.rowStride); });
            }
        }
        static_cast<T*>(p.c)[bi * p.cBatchStride + i * p.ldc + j] = v;
        return;
    }
    const int64_t k0 = static_cast<int64_t>(phase / 2) * kSlice;
    if (phase % 2 == 0) {  // load: thread (tr, tc) loads A[i0 + tr][k0 + tc] and B[k0 + tr][j0 + tc]
        const int64_t ka = k0 + tc, kb = k0 + tr;
        sh.a[tr][tc] = (i < p.m && ka < p.k)
            ? gemmLoad<T>(p.a, bi * p.a.batchStride + i * p.a.rowStride + ka * p.a.colStride)
            : T(0);
        sh.b[tr][tc] = (kb < p.k && j < p.n)
            ? gemmLoad<T>(p.b, bi * p.b.batchStride + kb * p.b.rowStride + j * p.b.colStride)
            : T(0);
        return;
    }
    // accumulate over the slice's k values that exist (padding never enters a chain)
    const int64_t left = p.k - k0;
    const int count = left < kSlice ? static_cast<int>(left) : kSlice;
    T acc = th.acc;
    for (int s = 0; s < count; ++s) acc = math::gemm::chainStep(sh.a[tr][s], sh.b[s][tc], acc);
    th.acc = acc;
}

}  // namespace fxl::cuda
