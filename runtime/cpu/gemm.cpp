#include "runtime/cpu/gemm.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "runtime/cpu/cpu_common.hpp"
#include "runtime/cpu/thread_pool.hpp"
#include "runtime/math/gemm_chain.hpp"

#if defined(__x86_64__) && defined(__GNUC__)
#define FXL_GEMM_X86 1
#include <immintrin.h>
// The AVX2 and AVX-512 kernels are compiled for those targets whatever the build's -march (the
// CPU is checked at run time), in g++'s and in clang's spelling.
#if defined(__clang__)
#define FXL_TARGET_BEGIN_AVX2                                                                                          \
    _Pragma("clang attribute push(__attribute__((target(\"avx2,fma\"))), apply_to = function)")
#define FXL_TARGET_BEGIN_AVX512                                                                                        \
    _Pragma("clang attribute push(__attribute__((target(\"avx2,fma,avx512f\"))), apply_to = function)")
#define FXL_TARGET_END _Pragma("clang attribute pop")
#define FXL_UNROLL16 _Pragma("unroll 16")
#else
#define FXL_TARGET_BEGIN_AVX2 _Pragma("GCC push_options") _Pragma("GCC target(\"avx2,fma\")")
#define FXL_TARGET_BEGIN_AVX512 _Pragma("GCC push_options") _Pragma("GCC target(\"avx2,fma,avx512f\")")
#define FXL_TARGET_END _Pragma("GCC pop_options")
#define FXL_UNROLL16 _Pragma("GCC unroll 16")
#endif
#endif

namespace fxl::cpu {

// ------------------------------------------------------------------------------------------
// ISA selection
// ------------------------------------------------------------------------------------------

const char* gemmIsaName(GemmIsa isa)
{
    switch (isa) {
    case GemmIsa::Scalar: return "scalar";
    case GemmIsa::Avx2: return "avx2";
    case GemmIsa::Avx512: return "avx512";
    }
    return "?";
}

bool gemmIsaSupported(GemmIsa isa)
{
    switch (isa) {
    case GemmIsa::Scalar: return true;
#if FXL_GEMM_X86
    case GemmIsa::Avx2: return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case GemmIsa::Avx512:
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
    default: return false;
#endif
    }
    return false;
}

namespace {

GemmIsa bestIsa(GemmIsa cap)
{
    for (GemmIsa i : {GemmIsa::Avx512, GemmIsa::Avx2})
        if (static_cast<int>(i) <= static_cast<int>(cap) && gemmIsaSupported(i)) return i;
    return GemmIsa::Scalar;
}

GemmIsa defaultIsa()
{
    static const GemmIsa isa = [] {
        GemmIsa cap = GemmIsa::Avx512;
        if (const char* e = std::getenv("FXLENS_CPU_ISA")) {
            const std::string s(e);
            if (s == "scalar")
                cap = GemmIsa::Scalar;
            else if (s == "avx2")
                cap = GemmIsa::Avx2;
        }
        return bestIsa(cap);
    }();
    return isa;
}

std::atomic<int> g_override{-1};

}  // namespace

GemmIsa gemmIsa()
{
    const int o = g_override.load(std::memory_order_relaxed);
    return o >= 0 ? static_cast<GemmIsa>(o) : defaultIsa();
}

void setGemmIsaOverride(std::optional<GemmIsa> isa)
{
    if (isa && !gemmIsaSupported(*isa))
        throw std::invalid_argument(std::string("this CPU cannot run the ") + gemmIsaName(*isa) + " GEMM path");
    g_override.store(isa ? static_cast<int>(*isa) : -1, std::memory_order_relaxed);
}

namespace {

// ------------------------------------------------------------------------------------------
// Micro-kernels. rows[m] computes an m x NR tile (m <= MR) from a packed A micro-panel
// (kc x MR, k-major) and a B micro-panel (kc rows of NR values, ldb apart: packed or not):
//     c[i][j] = (acc ? c[i][j] : 0); for k: c[i][j] = fma(a[k][i], b[k][j], c[i][j])
// (math::gemm::chainStep, runtime/math/gemm_chain.hpp). Every path runs exactly this per
// element; only the number of lanes differs (the SIMD paths run the same fma per lane).
// With `special` set (the last K block of an f32 product), the kernel also sets *special when
// a finished value is inf or NaN, from the registers before they are stored: their sum is inf
// or NaN then, and sum * 0 is NaN. A sum that overflows, or a padded or stale lane, may set it
// too; the caller then only scans C for the elements to redo (redoNonFinite).
// ------------------------------------------------------------------------------------------

template<class T>
using KernFn = void (*)(int64_t kc, const T* a, const T* b, int64_t ldb, T* c, int64_t ldc, bool acc, int* special);

constexpr int kMaxMr = 16;
constexpr int kMaxNr = 32;

template<class T>
struct KernelSet
{
    int mr = 0, nr = 0;
    KernFn<T> rows[kMaxMr + 1] = {};
};

template<class T, int MR, int NR, int M>
void kernScalar(int64_t kc, const T* a, const T* b, int64_t ldb, T* c, int64_t ldc, bool acc, int* special)
{
    T r[M][NR];
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < NR; ++j) r[i][j] = acc ? c[i * ldc + j] : T(0);
    for (int64_t k = 0; k < kc; ++k) {
        for (int i = 0; i < M; ++i) {
            const T av = a[i];
            for (int j = 0; j < NR; ++j) r[i][j] = math::gemm::chainStep(av, b[j], r[i][j]);
        }
        a += MR;
        b += ldb;
    }
    if (special) {
        T z = 0;
        for (int i = 0; i < M; ++i)
            for (int j = 0; j < NR; ++j) z += r[i][j];
        if (std::isnan(z * T(0))) *special = 1;
    }
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < NR; ++j) c[i * ldc + j] = r[i][j];
}

template<class T, int MR, int NR, size_t... Ms>
KernelSet<T> scalarSet(std::index_sequence<Ms...>)
{
    KernelSet<T> s;
    s.mr = MR;
    s.nr = NR;
    ((s.rows[Ms + 1] = &kernScalar<T, MR, NR, static_cast<int>(Ms) + 1>), ...);
    return s;
}

#if FXL_GEMM_X86

// One kernel body for every vector ISA and both float types; VT wraps the intrinsics.
#define FXL_GEMM_VEC_KERNEL                                                                                            \
    template<class VT, int MR, int NV, int M>                                                                          \
    void kernVec(int64_t kc, const typename VT::T* a, const typename VT::T* b, int64_t ldb, typename VT::T* c,         \
                 int64_t ldc, bool acc, int* special)                                                                  \
    {                                                                                                                  \
        using V = typename VT::V;                                                                                      \
        constexpr int W = VT::W;                                                                                       \
        V r[M][NV];                                                                                                    \
        _Pragma("GCC unroll 16") for (int i = 0; i < M; ++i) _Pragma("GCC unroll 4") for (int v = 0; v < NV; ++v)      \
            r[i][v] = acc ? VT::load(c + i * ldc + v * W) : VT::zero();                                                \
        for (int64_t k = 0; k < kc; ++k) {                                                                             \
            V bv[NV];                                                                                                  \
            _Pragma("GCC unroll 4") for (int v = 0; v < NV; ++v) bv[v] = VT::load(b + v * W);                          \
            _Pragma("GCC unroll 16") for (int i = 0; i < M; ++i)                                                       \
            {                                                                                                          \
                const V av = VT::broadcast(a + i);                                                                     \
                _Pragma("GCC unroll 4") for (int v = 0; v < NV; ++v) r[i][v] = VT::fma(av, bv[v], r[i][v]);            \
            }                                                                                                          \
            a += MR;                                                                                                   \
            b += ldb;                                                                                                  \
        }                                                                                                              \
        if (special) { /* a sum tree of the registers: inf or NaN in, inf or NaN out (or an overflow) */               \
            V t[M];                                                                                                    \
            _Pragma("GCC unroll 16") for (int i = 0; i < M; ++i)                                                       \
            {                                                                                                          \
                t[i] = r[i][0];                                                                                        \
                _Pragma("GCC unroll 4") for (int v = 1; v < NV; ++v) t[i] = VT::add(t[i], r[i][v]);                    \
            }                                                                                                          \
            _Pragma("GCC unroll 4") for (int h = 1; h < M; h *= 2)                                                     \
                _Pragma("GCC unroll 16") for (int i = 0; i + h < M; i += 2 * h) t[i] = VT::add(t[i], t[i + h]);        \
            if (VT::anyNan(VT::fma(t[0], VT::zero(), VT::zero()))) *special = 1;                                       \
        }                                                                                                              \
        _Pragma("GCC unroll 16") for (int i = 0; i < M; ++i) _Pragma("GCC unroll 4") for (int v = 0; v < NV; ++v)      \
            VT::store(c + i * ldc + v * W, r[i][v]);                                                                   \
    }                                                                                                                  \
    template<class VT, int MR, int NV, size_t... Ms>                                                                   \
    KernelSet<typename VT::T> vecSet(std::index_sequence<Ms...>)                                                       \
    {                                                                                                                  \
        KernelSet<typename VT::T> s;                                                                                   \
        s.mr = MR;                                                                                                     \
        s.nr = NV * VT::W;                                                                                             \
        ((s.rows[Ms + 1] = &kernVec<VT, MR, NV, static_cast<int>(Ms) + 1>), ...);                                      \
        return s;                                                                                                      \
    }

FXL_TARGET_BEGIN_AVX2
namespace avx2 {
struct F32
{
    using T = float;
    using V = __m256;
    static constexpr int W = 8;
    static V load(const float* p) { return _mm256_loadu_ps(p); }
    static void store(float* p, V v) { _mm256_storeu_ps(p, v); }
    static V zero() { return _mm256_setzero_ps(); }
    static V broadcast(const float* p) { return _mm256_broadcast_ss(p); }
    static V fma(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
    static V add(V a, V b) { return _mm256_add_ps(a, b); }
    static bool anyNan(V v) { return _mm256_movemask_ps(_mm256_cmp_ps(v, v, _CMP_UNORD_Q)) != 0; }
};
struct F64
{
    using T = double;
    using V = __m256d;
    static constexpr int W = 4;
    static V load(const double* p) { return _mm256_loadu_pd(p); }
    static void store(double* p, V v) { _mm256_storeu_pd(p, v); }
    static V zero() { return _mm256_setzero_pd(); }
    static V broadcast(const double* p) { return _mm256_broadcast_sd(p); }
    static V fma(V a, V b, V c) { return _mm256_fmadd_pd(a, b, c); }
    static V add(V a, V b) { return _mm256_add_pd(a, b); }
    static bool anyNan(V v) { return _mm256_movemask_pd(_mm256_cmp_pd(v, v, _CMP_UNORD_Q)) != 0; }
};
FXL_GEMM_VEC_KERNEL
}  // namespace avx2
FXL_TARGET_END

FXL_TARGET_BEGIN_AVX512
// GCC 12's _mm512_undefined_ps() (inside the shuffle intrinsics) reads itself on purpose.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
namespace avx512 {
struct F32
{
    using T = float;
    using V = __m512;
    static constexpr int W = 16;
    static V load(const float* p) { return _mm512_loadu_ps(p); }
    static void store(float* p, V v) { _mm512_storeu_ps(p, v); }
    static V zero() { return _mm512_setzero_ps(); }
    static V broadcast(const float* p) { return _mm512_set1_ps(*p); }
    static V fma(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
    static V add(V a, V b) { return _mm512_add_ps(a, b); }
    static bool anyNan(V v) { return _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q) != 0; }
};
struct F64
{
    using T = double;
    using V = __m512d;
    static constexpr int W = 8;
    static V load(const double* p) { return _mm512_loadu_pd(p); }
    static void store(double* p, V v) { _mm512_storeu_pd(p, v); }
    static V zero() { return _mm512_setzero_pd(); }
    static V broadcast(const double* p) { return _mm512_set1_pd(*p); }
    static V fma(V a, V b, V c) { return _mm512_fmadd_pd(a, b, c); }
    static V add(V a, V b) { return _mm512_add_pd(a, b); }
    static bool anyNan(V v) { return _mm512_cmp_pd_mask(v, v, _CMP_UNORD_Q) != 0; }
};
FXL_GEMM_VEC_KERNEL

// 16 x 16 transpose of r[i][j] -> r[j][i].
__attribute__((always_inline)) inline void transpose16(__m512* r)
{
    __m512 t[16], u[16];
    for (int i = 0; i < 8; ++i) {
        t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
    }
    for (int i = 0; i < 4; ++i) {
        u[4 * i + 0] = _mm512_shuffle_ps(t[4 * i + 0], t[4 * i + 2], 0x44);
        u[4 * i + 1] = _mm512_shuffle_ps(t[4 * i + 0], t[4 * i + 2], 0xEE);
        u[4 * i + 2] = _mm512_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0x44);
        u[4 * i + 3] = _mm512_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0xEE);
    }
    for (int h = 0; h < 2; ++h)
        for (int i = 0; i < 4; ++i) {
            t[8 * h + i] = _mm512_shuffle_f32x4(u[8 * h + i], u[8 * h + 4 + i], 0x88);
            t[8 * h + 4 + i] = _mm512_shuffle_f32x4(u[8 * h + i], u[8 * h + 4 + i], 0xDD);
        }
    for (int i = 0; i < 8; ++i) {
        r[i] = _mm512_shuffle_f32x4(t[i], t[8 + i], 0x88);
        r[8 + i] = _mm512_shuffle_f32x4(t[i], t[8 + i], 0xDD);
    }
}

// Packs a B block stored column-contiguous (a transposed view: element [k][j] at j*cs + k)
// into k-major panel rows, dst[k*nr + j], through 16 x 16 register transposes (the linear
// layer's x @ W.t()). Pure data movement (bf16 widened exactly), so the bits are those of
// the generic packer.
inline float get(float v) { return v; }
inline float get(uint16_t v) { return bf16ToF32(v); }
inline __m512 load16(const float* p) { return _mm512_loadu_ps(p); }
inline __m512 load16(const uint16_t* p)
{  // bf16 -> f32: the bits shifted up (exact)
    return _mm512_castsi512_ps(
        _mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p))), 16));
}

template<class S>
void packColumns(const S* s, int64_t cs, int64_t kc, int64_t n, int nr, float* dst)
{
    const int64_t n16 = n / 16 * 16, k16 = kc / 16 * 16;
    for (int64_t j0 = 0; j0 < n16; j0 += 16) {
        for (int64_t k0 = 0; k0 < k16; k0 += 16) {
            __m512 r[16];
            FXL_UNROLL16
            for (int i = 0; i < 16; ++i) r[i] = load16(s + (j0 + i) * cs + k0);
            transpose16(r);
            FXL_UNROLL16
            for (int k = 0; k < 16; ++k) _mm512_storeu_ps(dst + (k0 + k) * nr + j0, r[k]);
        }
        for (int64_t k = k16; k < kc; ++k)
            for (int64_t i = 0; i < 16; ++i) dst[k * nr + j0 + i] = get(s[(j0 + i) * cs + k]);
    }
    for (int64_t j = n16; j < n; ++j)
        for (int64_t k = 0; k < kc; ++k) dst[k * nr + j] = get(s[j * cs + k]);
    for (int64_t k = 0; k < kc; ++k)
        for (int64_t j = n; j < nr; ++j) dst[k * nr + j] = 0.0f;
}

// The first `count` (0..16) elements, zeros above; never touches memory past them.
inline __m512 load16(const float* p, int64_t count)
{
    if (count >= 16) return _mm512_loadu_ps(p);
    return _mm512_maskz_loadu_ps(static_cast<__mmask16>(count <= 0 ? 0u : (1u << count) - 1), p);
}
inline __m512 load16(const uint16_t* p, int64_t count)
{
    if (count >= 16) return load16(p);
    alignas(32) uint16_t tmp[16] = {};
    for (int64_t i = 0; i < count; ++i) tmp[i] = p[i];
    return load16(tmp);
}

// B rows contiguous (element [k][j] at k*rs + j): dst[k*nr + j], zero-padded to nr lanes.
template<class S>
void packRowsB(const S* s, int64_t rs, int64_t kc, int64_t n, int nr, float* dst)
{
    for (int64_t k = 0; k < kc; ++k) {
        const S* row = s + k * rs;
        float* d = dst + k * nr;
        for (int j = 0; j < nr; j += 16) _mm512_storeu_ps(d + j, load16(row + j, n - j));
    }
}

// A rows contiguous (element [i][k] at i*rs + k), m <= mr <= 16 rows: dst[k*mr + i] through
// 16 x 16 transposes (rows m..15 read as zeros; lanes mr..15 are not stored).
template<class S>
void packRowsA(const S* s, int64_t rs, int64_t m, int64_t kc, int mr, float* dst)
{
    const __mmask16 lanes = static_cast<__mmask16>((1u << mr) - 1);
    const int64_t k16 = kc / 16 * 16;
    for (int64_t k0 = 0; k0 < k16; k0 += 16) {
        __m512 r[16];
        FXL_UNROLL16
        for (int i = 0; i < 16; ++i) r[i] = i < m ? load16(s + i * rs + k0) : _mm512_setzero_ps();
        transpose16(r);
        FXL_UNROLL16
        for (int k = 0; k < 16; ++k) _mm512_mask_storeu_ps(dst + (k0 + k) * mr, lanes, r[k]);
    }
    for (int64_t k = k16; k < kc; ++k)
        for (int64_t i = 0; i < m; ++i) dst[k * mr + i] = get(s[i * rs + k]);
}

// A columns contiguous (a transposed view: element [i][k] at i + k*cs), m <= 16: one masked
// load and store per k.
template<class S>
void packColsA(const S* s, int64_t cs, int64_t m, int64_t kc, int mr, float* dst)
{
    const __mmask16 lanes = static_cast<__mmask16>((1u << m) - 1);
    for (int64_t k = 0; k < kc; ++k) _mm512_mask_storeu_ps(dst + k * mr, lanes, load16(s + k * cs, m));
}
}  // namespace avx512
#pragma GCC diagnostic pop
FXL_TARGET_END

#endif  // FXL_GEMM_X86

template<class T>
const KernelSet<T>& kernelsFor(GemmIsa isa);

template<>
const KernelSet<float>& kernelsFor<float>(GemmIsa isa)
{
    // Each set is built only when its ISA is asked for: vecSet is compiled for that ISA and
    // may use its instructions even to fill the table (SIGILL on a CPU without them).
#if FXL_GEMM_X86
    if (isa == GemmIsa::Avx512) {
        static const KernelSet<float> a512 = avx512::vecSet<avx512::F32, 12, 2>(std::make_index_sequence<12>());
        return a512;
    }
    if (isa == GemmIsa::Avx2) {
        static const KernelSet<float> a2 = avx2::vecSet<avx2::F32, 6, 2>(std::make_index_sequence<6>());
        return a2;
    }
#endif
    (void)isa;
    static const KernelSet<float> scalar = scalarSet<float, 4, 16>(std::make_index_sequence<4>());
    return scalar;
}

template<>
const KernelSet<double>& kernelsFor<double>(GemmIsa isa)
{
    // Each set is built only when its ISA is asked for: vecSet is compiled for that ISA and
    // may use its instructions even to fill the table (SIGILL on a CPU without them).
#if FXL_GEMM_X86
    if (isa == GemmIsa::Avx512) {
        static const KernelSet<double> a512 = avx512::vecSet<avx512::F64, 12, 2>(std::make_index_sequence<12>());
        return a512;
    }
    if (isa == GemmIsa::Avx2) {
        static const KernelSet<double> a2 = avx2::vecSet<avx2::F64, 6, 2>(std::make_index_sequence<6>());
        return a2;
    }
#endif
    (void)isa;
    static const KernelSet<double> scalar = scalarSet<double, 4, 8>(std::make_index_sequence<4>());
    return scalar;
}

// ------------------------------------------------------------------------------------------
// Packing: converts (bf16/f16 -> f32 exactly) and gathers any strides into k-major panels.
// ------------------------------------------------------------------------------------------

struct SrcF32
{
    using S = float;
    static float get(float v) { return v; }
};
struct SrcF64
{
    using S = double;
    static double get(double v) { return v; }
};
struct SrcBF16
{
    using S = uint16_t;
    static float get(uint16_t v) { return bf16ToF32(v); }
};
struct SrcF16
{
    using S = uint16_t;
    static float get(uint16_t v) { return f16ToF32(v); }
};

// dst[k*nr + j] = src[k*rs + j*cs] for k < kc, j < n; zero for n <= j < nr.
template<class Src, class T>
void packB(const void* data, int64_t off, int64_t rs, int64_t cs, int64_t kc, int64_t n, int nr, T* dst)
{
    const typename Src::S* s = static_cast<const typename Src::S*>(data) + off;
    if (cs == 1 || rs != 1) {
        for (int64_t k = 0; k < kc; ++k) {
            const typename Src::S* row = s + k * rs;
            T* d = dst + k * nr;
            if (cs == 1)
                for (int64_t j = 0; j < n; ++j) d[j] = Src::get(row[j]);
            else
                for (int64_t j = 0; j < n; ++j) d[j] = Src::get(row[j * cs]);
            for (int64_t j = n; j < nr; ++j) d[j] = T(0);
        }
    } else {  // column-contiguous (a transposed view): read along k
        for (int64_t j = 0; j < n; ++j) {
            const typename Src::S* col = s + j * cs;
            for (int64_t k = 0; k < kc; ++k) dst[k * nr + j] = Src::get(col[k]);
        }
        for (int64_t k = 0; k < kc; ++k)
            for (int64_t j = n; j < nr; ++j) dst[k * nr + j] = T(0);
    }
}

// dst[k*mr + i] = src[i*rs + k*cs] for i < m, k < kc (rows m..mr-1 are never read).
template<class Src, class T>
void packA(const void* data, int64_t off, int64_t rs, int64_t cs, int64_t m, int64_t kc, int mr, T* dst)
{
    const typename Src::S* s = static_cast<const typename Src::S*>(data) + off;
    if (cs == 1) {
        for (int64_t i = 0; i < m; ++i) {
            const typename Src::S* row = s + i * rs;
            for (int64_t k = 0; k < kc; ++k) dst[k * mr + i] = Src::get(row[k]);
        }
    } else {
        for (int64_t k = 0; k < kc; ++k) {
            const typename Src::S* col = s + k * cs;
            T* d = dst + k * mr;
            for (int64_t i = 0; i < m; ++i) d[i] = Src::get(col[i * rs]);
        }
    }
}

template<class T>
using PackBFn = void (*)(const void*, int64_t, int64_t, int64_t, int64_t, int64_t, int, T*);
template<class T>
using PackAFn = void (*)(const void*, int64_t, int64_t, int64_t, int64_t, int64_t, int, T*);

#if FXL_GEMM_X86
template<class Src>
void packBAvx512(const void* data, int64_t off, int64_t rs, int64_t cs, int64_t kc, int64_t n, int nr, float* dst)
{
    const typename Src::S* s = static_cast<const typename Src::S*>(data) + off;
    if (cs == 1)
        avx512::packRowsB(s, rs, kc, n, nr, dst);
    else if (rs == 1)
        avx512::packColumns(s, cs, kc, n, nr, dst);
    else
        packB<Src, float>(data, off, rs, cs, kc, n, nr, dst);
}

template<class Src>
void packAAvx512(const void* data, int64_t off, int64_t rs, int64_t cs, int64_t m, int64_t kc, int mr, float* dst)
{
    const typename Src::S* s = static_cast<const typename Src::S*>(data) + off;
    if (cs == 1)
        avx512::packRowsA(s, rs, m, kc, mr, dst);
    else if (rs == 1)
        avx512::packColsA(s, cs, m, kc, mr, dst);
    else
        packA<Src, float>(data, off, rs, cs, m, kc, mr, dst);
}
#endif

template<class T>
std::pair<PackAFn<T>, PackBFn<T>> packersFor(DType t, GemmIsa isa)
{
    (void)isa;
    if constexpr (std::is_same_v<T, double>) {
        if (t == DType::F64) return {&packA<SrcF64, double>, &packB<SrcF64, double>};
    } else {
#if FXL_GEMM_X86
        if (isa == GemmIsa::Avx512) {
            if (t == DType::F32) return {&packAAvx512<SrcF32>, &packBAvx512<SrcF32>};
            if (t == DType::BF16) return {&packAAvx512<SrcBF16>, &packBAvx512<SrcBF16>};
        }
#endif
        if (t == DType::F32) return {&packA<SrcF32, float>, &packB<SrcF32, float>};
        if (t == DType::BF16) return {&packA<SrcBF16, float>, &packB<SrcBF16, float>};
        if (t == DType::F16) return {&packA<SrcF16, float>, &packB<SrcF16, float>};
    }
    throw std::invalid_argument(std::string("gemm: unsupported dtype ") + std::string(dtypeAbbr(t)));
}

// Per-thread packing buffers, reused across calls (the pool's threads are persistent).
struct Buffer
{
    void* p = nullptr;
    size_t cap = 0;
    ~Buffer() { std::free(p); }
    template<class T>
    T* get(size_t n)
    {
        const size_t bytes = std::max<size_t>(64, ((n * sizeof(T) + 63) / 64) * 64);
        if (bytes > cap) {
            std::free(p);
            p = std::aligned_alloc(64, bytes);
            if (!p) {
                cap = 0;
                throw std::bad_alloc();
            }
            cap = bytes;
        }
        return static_cast<T*>(p);
    }
};
thread_local Buffer tlsPackA;
thread_local Buffer tlsPackB;

// ------------------------------------------------------------------------------------------
// Driver (BLIS-style loops). None of the blocking constants, the packing choice or the thread
// split touches the per-element chain: they only choose which outputs are computed together
// and when the partial chain is parked in C.
// ------------------------------------------------------------------------------------------

thread_local Buffer tlsTail;

template<class T>
struct Blocking
{
    int64_t kc, mc, nc;
};

template<class T>
Blocking<T> blockingFor(const KernelSet<T>& ks)
{
    // Measured on the dev machine (Zen 5, 48 KiB L1d, 1 MiB L2): kc 384..512 beat 256 by
    // ~5-10 % (fewer C round trips; the B micro-panel streams fine from L2).
    constexpr int64_t kc = sizeof(T) == 4 ? 512 : 256;  // B micro-panel kc x nr
    const int64_t mc = ks.mr * ((144 + ks.mr - 1) / ks.mr);  // the A block (mc x kc) stays in L2
    const int64_t nc = ks.nr * (2048 / ks.nr);  // the packed B block (kc x nc) in L2/L3
    return {kc, mc, nc};
}

template<class T>
struct Job
{
    int64_t M, N, K;
    GemmOperand A, B;
    T* C;
    int64_t ldc, cBatchStride;
    const KernelSet<T>* ks;
    PackAFn<T> packA;
    PackBFn<T> packB;
    Blocking<T> blk;
    // B is read in place (no packing) when it already has the panel element type and unit
    // column stride and there are few rows: packing would cost more than it saves.
    bool directB;
    // f32: set when a finished tile holds inf or NaN (gemmF32 then redoes those elements)
    std::atomic<bool>* nonFinite = nullptr;
};

// Where the B micro-panels of one (jc, pc) block are.
template<class T>
struct BBlock
{
    const T* packed = nullptr;  // panel p at packed + p*nr*kc (row pitch nr)
    const T* direct = nullptr;  // B itself at (pc, jc): panel p at direct + p*nr (row pitch ldb)
    int64_t ldb = 0;
    const T* tail = nullptr;  // direct: the last, partial panel, packed (row pitch nr)
    int64_t tailPanel = -1;
};

template<class T>
void packPanel(const Job<T>& J, int64_t b, int64_t jc, int64_t nc, int64_t pc, int64_t kc, int64_t p, T* dst)
{
    const int nr = J.ks->nr;
    const int64_t j = jc + p * nr;
    const int64_t off = b * J.B.batchStride + pc * J.B.rowStride + j * J.B.colStride;
    J.packB(J.B.data, off, J.B.rowStride, J.B.colStride, kc, std::min<int64_t>(nr, jc + nc - j), nr, dst);
}

// Computes C rows [i0, i0+mc) x B panels [p0, p1) of the (jc, pc) block.
template<class T>
void computeTile(const Job<T>& J, int64_t b, int64_t i0, int64_t mc, int64_t jc, int64_t nc, int64_t pc, int64_t kc,
                 int64_t p0, int64_t p1, const BBlock<T>& Bb)
{
    const KernelSet<T>& ks = *J.ks;
    const int mr = ks.mr, nr = ks.nr;
    const int64_t mPanels = (mc + mr - 1) / mr;
    T* Ap = tlsPackA.get<T>(static_cast<size_t>(mPanels * mr * kc));
    for (int64_t ir = 0; ir < mPanels; ++ir) {
        const int64_t m = std::min<int64_t>(mr, mc - ir * mr);
        const int64_t off = b * J.A.batchStride + (i0 + ir * mr) * J.A.rowStride + pc * J.A.colStride;
        J.packA(J.A.data, off, J.A.rowStride, J.A.colStride, m, kc, mr, Ap + ir * mr * kc);
    }
    const bool acc = pc > 0;
    const bool lastK = pc + kc == J.K;
    T* Cb = J.C + b * J.cBatchStride;
    alignas(64) T tile[kMaxMr * kMaxNr];
    int specialFlag = 0;
    int* const special = lastK && J.nonFinite ? &specialFlag : nullptr;
    for (int64_t p = p0; p < p1; ++p) {
        const int64_t j = jc + p * nr;
        const int64_t n = std::min<int64_t>(nr, jc + nc - j);
        const T* bp;
        int64_t ldb = nr;
        if (!Bb.direct)
            bp = Bb.packed + p * nr * kc;
        else if (p == Bb.tailPanel)
            bp = Bb.tail;
        else
            bp = Bb.direct + p * nr, ldb = Bb.ldb;
        for (int64_t ir = 0; ir < mPanels; ++ir) {
            const int64_t i = i0 + ir * mr;
            const int64_t m = std::min<int64_t>(mr, mc - ir * mr);
            const T* ap = Ap + ir * mr * kc;
            T* cp = Cb + i * J.ldc + j;
            if (n == nr) {
                ks.rows[m](kc, ap, bp, ldb, cp, J.ldc, acc, special);
            } else {  // a partial panel: through a full-width tile (the padded lanes are zeros)
                if (acc)
                    for (int64_t r = 0; r < m; ++r) std::memcpy(tile + r * nr, cp + r * J.ldc, sizeof(T) * n);
                ks.rows[m](kc, ap, bp, ldb, tile, nr, acc, special);
                for (int64_t r = 0; r < m; ++r) std::memcpy(cp + r * J.ldc, tile + r * nr, sizeof(T) * n);
            }
        }
    }
    if (specialFlag) J.nonFinite->store(true, std::memory_order_relaxed);
}

// Runs task(t) for t in [0, n): on the caller, or handed out dynamically to the pool's threads
// (any thread may take any task: the bits do not depend on who computes it).
template<class F>
void runTasks(ThreadPool* pool, int64_t n, F&& task)
{
    if (!pool || pool->threads() <= 1 || n <= 1) {
        for (int64_t t = 0; t < n; ++t) task(t);
        return;
    }
    std::atomic<int64_t> next{0};
    pool->parallelFor(pool->threads(), 1, [&](int64_t, int64_t) {
        for (int64_t t; (t = next.fetch_add(1)) < n;) task(t);
    });
}

// One batch entry. pool == nullptr: everything on the calling thread.
template<class T>
void runBatch(const Job<T>& J, int64_t b, ThreadPool* pool)
{
    const int nr = J.ks->nr;
    const int threads = pool ? pool->threads() : 1;
    const int64_t mBlocks = (J.M + J.blk.mc - 1) / J.blk.mc;
    for (int64_t jc = 0; jc < J.N; jc += J.blk.nc) {
        const int64_t nc = std::min(J.blk.nc, J.N - jc);
        const int64_t panels = (nc + nr - 1) / nr;
        // tiles: M blocks x groups of B panels, at least 2 per thread when the shape allows
        // (each group packs its own copy of the A block: no more groups than needed)
        const int64_t groups = threads <= 1 ? 1 : std::clamp<int64_t>((2 * threads + mBlocks - 1) / mBlocks, 1, panels);
        const int64_t perGroup = (panels + groups - 1) / groups;
        auto tileRange = [&](int64_t t, int64_t& i0, int64_t& mc, int64_t& p0, int64_t& p1) {
            const int64_t mb = t / groups, g = t % groups;
            i0 = mb * J.blk.mc;
            mc = std::min(J.blk.mc, J.M - i0);
            p0 = g * perGroup;
            p1 = std::min(panels, p0 + perGroup);
        };
        if (J.directB) {
            // each tile walks all of K itself; only a partial last panel is packed
            runTasks(pool, mBlocks * groups, [&](int64_t t) {
                int64_t i0, mc, p0, p1;
                tileRange(t, i0, mc, p0, p1);
                if (p0 >= p1) return;
                for (int64_t pc = 0; pc < J.K; pc += J.blk.kc) {
                    const int64_t kc = std::min(J.blk.kc, J.K - pc);
                    BBlock<T> bb;
                    bb.direct = static_cast<const T*>(J.B.data) + b * J.B.batchStride + pc * J.B.rowStride + jc;
                    bb.ldb = J.B.rowStride;
                    if (nc % nr != 0 && p1 == panels) {
                        T* tail = tlsTail.get<T>(static_cast<size_t>(nr * kc));
                        packPanel(J, b, jc, nc, pc, kc, panels - 1, tail);
                        bb.tail = tail;
                        bb.tailPanel = panels - 1;
                    }
                    computeTile(J, b, i0, mc, jc, nc, pc, kc, p0, p1, bb);
                }
            });
            continue;
        }
        for (int64_t pc = 0; pc < J.K; pc += J.blk.kc) {
            const int64_t kc = std::min(J.blk.kc, J.K - pc);
            T* Bp = tlsPackB.get<T>(static_cast<size_t>(panels * nr * kc));
            runTasks(pool, panels, [&](int64_t p) { packPanel(J, b, jc, nc, pc, kc, p, Bp + p * nr * kc); });
            BBlock<T> bb;
            bb.packed = Bp;
            runTasks(pool, mBlocks * groups, [&](int64_t t) {
                int64_t i0, mc, p0, p1;
                tileRange(t, i0, mc, p0, p1);
                if (p0 < p1) computeTile(J, b, i0, mc, jc, nc, pc, kc, p0, p1, bb);
            });
        }
    }
}

template<class T>
void gemmImpl(int64_t batch, int64_t M, int64_t N, int64_t K, const GemmOperand& A, const GemmOperand& B, T* C,
              int64_t ldc, int64_t cBatchStride, ThreadPool* pool, std::atomic<bool>* nonFinite = nullptr)
{
    if (batch < 0 || M < 0 || N < 0 || K < 0) throw std::invalid_argument("gemm: negative size");
    if (batch == 0 || M == 0 || N == 0) return;
    if (A.dtype != B.dtype) throw std::invalid_argument("gemm: operand dtypes differ");
    Job<T> J;
    const GemmIsa isa = gemmIsa();
    std::tie(J.packA, J.packB) = packersFor<T>(A.dtype, isa);
    if (K == 0) {  // the empty chain
        for (int64_t b = 0; b < batch; ++b)
            for (int64_t i = 0; i < M; ++i) std::fill_n(C + b * cBatchStride + i * ldc, N, T(0));
        return;
    }
    J.M = M;
    J.N = N;
    J.K = K;
    J.A = A;
    J.B = B;
    J.C = C;
    J.ldc = ldc;
    J.cBatchStride = cBatchStride;
    J.ks = &kernelsFor<T>(isa);
    J.blk = blockingFor<T>(*J.ks);
    const DType native = sizeof(T) == 4 ? DType::F32 : DType::F64;
    J.directB = B.dtype == native && B.colStride == 1 && M <= J.blk.mc;
    J.nonFinite = nonFinite;

    const int threads = pool ? pool->threads() : 1;
    const double work = static_cast<double>(M) * static_cast<double>(N) * static_cast<double>(K);
    constexpr double kSerialWork = 1 << 20;  // below ~2 MFLOP a thread hand-off costs more than it saves
    if (threads <= 1 || work * static_cast<double>(batch) < kSerialWork) {
        for (int64_t b = 0; b < batch; ++b) runBatch(J, b, nullptr);
        return;
    }
    if (batch > 1 && work < 4 * kSerialWork) {  // many small products: one batch entry per task
        runTasks(pool, batch, [&](int64_t b) { runBatch(J, b, nullptr); });
        return;
    }
    for (int64_t b = 0; b < batch; ++b) runBatch(J, b, pool);
}

// An operand element widened to double (exact for f32, bf16 and f16).
double elementF64(const GemmOperand& X, int64_t off)
{
    switch (X.dtype) {
    case DType::BF16: return bf16ToF32(static_cast<const uint16_t*>(X.data)[off]);
    case DType::F16: return f16ToF32(static_cast<const uint16_t*>(X.data)[off]);
    default: return static_cast<const float*>(X.data)[off];
    }
}

// Elements whose float chain ended not finite (a product or partial sum overflowed float, or an
// operand holds inf / nan) are computed again as the same chain in double and rounded once:
// overflow in the middle of the chain then no longer decides the result (1e30*1e30 and
// 1e30*-1e30 cancel to 0; a partial sum past +3.4e38 does not turn an exact -3.1e58 into +inf),
// and inf / nan operands still give IEEE's inf / nan. The check and the double chain depend on
// the element alone: batch invariance and the same bits on every path are kept.
void redoNonFinite(int64_t batch, int64_t M, int64_t N, int64_t K, const GemmOperand& A, const GemmOperand& B, float* C,
                   int64_t ldc, int64_t cBatchStride)
{
    for (int64_t b = 0; b < batch; ++b)
        for (int64_t i = 0; i < M; ++i) {
            float* row = C + b * cBatchStride + i * ldc;
            for (int64_t j = 0; j < N; ++j) {
                if (!math::gemm::needsWideChain(row[j])) continue;
                row[j] = math::gemm::wideChain(
                    K, [&](int64_t k) { return elementF64(A, b * A.batchStride + i * A.rowStride + k * A.colStride); },
                    [&](int64_t k) { return elementF64(B, b * B.batchStride + k * B.rowStride + j * B.colStride); });
            }
        }
}

}  // namespace

void gemmF32(int64_t batch, int64_t M, int64_t N, int64_t K, const GemmOperand& A, const GemmOperand& B, float* C,
             int64_t ldc, int64_t cBatchStride, ThreadPool* pool)
{
    std::atomic<bool> nonFinite{false};
    gemmImpl<float>(batch, M, N, K, A, B, C, ldc, cBatchStride, pool, &nonFinite);
    if (nonFinite.load()) redoNonFinite(batch, M, N, K, A, B, C, ldc, cBatchStride);
}

void gemmF64(int64_t batch, int64_t M, int64_t N, int64_t K, const GemmOperand& A, const GemmOperand& B, double* C,
             int64_t ldc, int64_t cBatchStride, ThreadPool* pool)
{
    gemmImpl<double>(batch, M, N, K, A, B, C, ldc, cBatchStride, pool);
}

}  // namespace fxl::cpu
