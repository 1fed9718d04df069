// The matrix product on CUDA cores with the CPU's per-element chain (math/gemm_chain.hpp):
// C[b][i][j] = fma chain over k ascending from +0, in float for f32 / bf16 / f16 operands
// (widened exactly) and in double for f64; a float chain that ends not finite is the same
// chain in double, rounded once. Tiled through shared memory and registers: a block of
// kThreadsSide x kThreadsSide threads computes a kTile x kTile tile of C, each thread a
// kRegs x kRegs grid of outputs (rows tr + kThreadsSide*r, columns tc + kThreadsSide*c), each
// output's chain in its own register. For each slice of kSlice values of k the block loads the
// A and B tiles (phase 2s), then every thread continues its chains over the slice (phase
// 2s+1); the last phase stores. Slicing k and sharing the loads change no bit: every chain
// continues in its register in k order. The emulator (emulate.hpp, emulatePhasedLaunch) runs
// phase by phase for every thread of a block, the GPU wrapper with a barrier between phases.
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

inline constexpr int kThreadsSide = 16;  // threads per block side
inline constexpr int kRegs = 4;  // outputs per thread side
inline constexpr int kTile = kThreadsSide * kRegs;  // outputs per block side
inline constexpr int kSlice = 16;  // k values per shared-memory slice
inline constexpr int kBlockThreads = kThreadsSide * kThreadsSide;

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
    T acc[kRegs][kRegs];
};

// The launch: grid (ceil(n / kTile), ceil(m / kTile), batch), blocks of kThreadsSide x
// kThreadsSide threads.
inline Dim3 gemmGrid(const GemmParams& p)
{
    return {static_cast<uint32_t>((p.n + kTile - 1) / kTile), static_cast<uint32_t>((p.m + kTile - 1) / kTile),
            static_cast<uint32_t>(p.batch)};
}
inline Dim3 gemmBlock() { return {kThreadsSide, kThreadsSide, 1}; }
FXL_HD inline int gemmPhases(const GemmParams& p) { return 2 * static_cast<int>((p.k + kSlice - 1) / kSlice) + 1; }

template<class T>
FXL_HD inline void gemmBody(const Coord& c, int phase, GemmShared<T>& sh, GemmThread<T>& th, const GemmParams& p)
{
    const int64_t bi = c.block.z;
    const int64_t i0 = static_cast<int64_t>(c.block.y) * kTile, j0 = static_cast<int64_t>(c.block.x) * kTile;
    const int tr = static_cast<int>(c.thread.y), tc = static_cast<int>(c.thread.x);
    const int last = gemmPhases(p) - 1;
    if (phase == 0)
        for (int r = 0; r < kRegs; ++r)
            for (int q = 0; q < kRegs; ++q) th.acc[r][q] = T(0);
    if (phase == last) {  // store, with the wide redo of a float chain that ended not finite
        for (int r = 0; r < kRegs; ++r) {
            const int64_t i = i0 + tr + kThreadsSide * r;
            if (i >= p.m) break;
            for (int q = 0; q < kRegs; ++q) {
                const int64_t j = j0 + tc + kThreadsSide * q;
                if (j >= p.n) break;
                T v = th.acc[r][q];
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
            }
        }
        return;
    }
    const int64_t k0 = static_cast<int64_t>(phase / 2) * kSlice;
    if (phase % 2 == 0) {
        // load: the block's threads in turn take the A tile's elements row by row (consecutive
        // threads, consecutive k) and the B tile's (consecutive threads, consecutive j)
        const int t = tr * kThreadsSide + tc;
        for (int e = t; e < kTile * kSlice; e += kBlockThreads) {
            const int ar = e / kSlice, as = e % kSlice;
            const int64_t i = i0 + ar, ka = k0 + as;
            sh.a[ar][as] = (i < p.m && ka < p.k)
                ? gemmLoad<T>(p.a, bi * p.a.batchStride + i * p.a.rowStride + ka * p.a.colStride)
                : T(0);
            const int bs = e / kTile, bc = e % kTile;
            const int64_t kb = k0 + bs, j = j0 + bc;
            sh.b[bs][bc] = (kb < p.k && j < p.n)
                ? gemmLoad<T>(p.b, bi * p.b.batchStride + kb * p.b.rowStride + j * p.b.colStride)
                : T(0);
        }
        return;
    }
    // accumulate over the slice's k values that exist (padding never enters a chain)
    const int64_t left = p.k - k0;
    const int count = left < kSlice ? static_cast<int>(left) : kSlice;
    T acc[kRegs][kRegs];
    for (int r = 0; r < kRegs; ++r)
        for (int q = 0; q < kRegs; ++q) acc[r][q] = th.acc[r][q];
    for (int s = 0; s < count; ++s) {
        T a[kRegs], b[kRegs];
        for (int r = 0; r < kRegs; ++r) a[r] = sh.a[tr + kThreadsSide * r][s];
        for (int q = 0; q < kRegs; ++q) b[q] = sh.b[s][tc + kThreadsSide * q];
        for (int r = 0; r < kRegs; ++r)
            for (int q = 0; q < kRegs; ++q) acc[r][q] = math::gemm::chainStep(a[r], b[q], acc[r][q]);
    }
    for (int r = 0; r < kRegs; ++r)
        for (int q = 0; q < kRegs; ++q) th.acc[r][q] = acc[r][q];
}

}  // namespace fxl::cuda
