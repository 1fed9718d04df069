// Shared machinery of the CPU reduction-family kernels (cpu_reduction.cpp, cpu_norm.cpp,
// cpu_loss.cpp): the one summation order every reducing kernel uses, typed element access,
// and a "rows x columns" view of a strided tensor.
//
// NUMERICS CONTRACT (reduction family)
// ------------------------------------
// Every sum S(v_0 .. v_{n-1}) that a kernel of this family computes (sum, mean, var, softmax
// denominators, layer-norm moments and its backward dot products, loss reductions, bias /
// norm-weight gradients, embedding-backward per-row sums, weighted bincount) is evaluated in
// the accumulation type A (f32 for f32/bf16/f16 data, f64 for f64, wrapping 64-bit integers
// for integer data) in the order of runtime/math/sum_order.hpp (blocks of 128 in 8 lanes and a
// fixed lane tree, a binary-counter cascade over the blocks), which depends on n only.
// The "elements" are always visited in the logical row-major order of the reduced dims (or
// the documented per-op order: tokens in index order for embedding backward, rows in order for
// losses), never in storage order, so results do not depend on strides, offsets, the number of
// rows/outputs in the call, the thread count, or which code path (per-output loop or the
// column-tiled loop that vectorises over outputs) computes them: both run the same sequence of
// IEEE additions per output. Each output element is produced by exactly one thread; threads
// split independent outputs (rows for row-wise ops, output columns for reductions over rows).
// No FMA (the build has -ffp-contract=off and this family never calls std::fma). exp / log
// are runtime/math/'s correctly rounded functions and sqrt is IEEE's, so every machine and
// device gives the same bits. bf16/f16 inputs are
// widened exactly to f32, everything is computed in f32, and each output is rounded once (RNE).
// Max-like reductions (amax, max, argmax and their min counterparts) are order independent:
// NaN wins (first NaN), ties keep the first index; so is any (NaN counts). prod multiplies
// sequentially in the logical order from 1 in the accumulation type. Scans (cumsum) are
// sequential in index order.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "runtime/cpu/cpu_common.hpp"
#include "runtime/cpu/thread_pool.hpp"
#include "runtime/math/rows.hpp"
#include "runtime/math/sum_order.hpp"

namespace fxl::cpu::red {

// ---- storage tags for the 16-bit float formats (same size and layout as the raw bits)
struct bf16_t
{
    uint16_t bits;
};
struct f16_t
{
    uint16_t bits;
};
static_assert(sizeof(bf16_t) == 2 && sizeof(f16_t) == 2);

// Accumulation type of a storage type: f64 -> double, other floats -> float, ints -> uint64.
template<class T>
using AccOf =
    std::conditional_t<std::is_same_v<T, double>, double, std::conditional_t<std::is_integral_v<T>, uint64_t, float>>;

template<class A, class T>
inline A widenTo(T v)
{
    if constexpr (std::is_same_v<T, bf16_t>)
        return static_cast<A>(bf16ToF32(v.bits));
    else if constexpr (std::is_same_v<T, f16_t>)
        return static_cast<A>(f16ToF32(v.bits));
    else if constexpr (std::is_same_v<A, uint64_t>)
        return static_cast<uint64_t>(static_cast<int64_t>(v));
    else
        return static_cast<A>(v);
}

template<class T, class A>
inline T narrowTo(A v)
{
    if constexpr (std::is_same_v<T, bf16_t>)
        return bf16_t{f32ToBf16(static_cast<float>(v))};
    else if constexpr (std::is_same_v<T, f16_t>)
        return f16_t{f32ToF16(static_cast<float>(v))};
    else if constexpr (std::is_same_v<A, uint64_t>)
        return static_cast<T>(static_cast<int64_t>(v));
    else if constexpr (std::is_floating_point_v<T>)
        return math::canonical(static_cast<T>(v));  // every NaN stored is the canonical one
    else
        return static_cast<T>(v);
}

// A tensor's elements widened to A, in row-major order (a contiguous copy first when needed).
template<class T, class A>
std::vector<A> widen(const Tensor& t, Backend& be)
{
    const Tensor c = contiguous(t, be);
    const T* p = c.template data<T>();
    std::vector<A> v(static_cast<size_t>(c.numel()));
    for (size_t i = 0; i < v.size(); ++i) v[i] = widenTo<A>(p[i]);
    return v;
}

// A new contiguous tensor of `sizes` holding v rounded once to T.
template<class T, class A>
Tensor narrowed(const KernelCall& call, const std::vector<int64_t>& sizes, DType dt, const std::vector<A>& v)
{
    Tensor out = call.newTensor(sizes, dt);
    T* o = out.template data<T>();
    for (size_t i = 0; i < v.size(); ++i) o[i] = narrowTo<T>(v[i]);
    return out;
}

// Calls fn(T{}) with T the storage type of a floating dtype (f32, f64, bf16, f16).
template<class Fn>
void dispatchFloating(DType t, const char* op, Fn&& fn)
{
    switch (t) {
    case DType::F32: fn(float{}); return;
    case DType::F64: fn(double{}); return;
    case DType::BF16: fn(bf16_t{}); return;
    case DType::F16: fn(f16_t{}); return;
    default:
        throw KernelError(std::string(op) + ": unsupported dtype " + std::string(dtypeAbbr(t))
                          + " (expected a floating dtype)");
    }
}

// Every runtime dtype: floats as above, ints as their C++ types, bool as uint8_t (0/1).
template<class Fn>
void dispatchAll(DType t, const char* op, Fn&& fn)
{
    switch (t) {
    case DType::I64: fn(int64_t{}); return;
    case DType::I32: fn(int32_t{}); return;
    case DType::I16: fn(int16_t{}); return;
    case DType::I8: fn(int8_t{}); return;
    case DType::U8:
    case DType::Bool: fn(uint8_t{}); return;
    default: dispatchFloating(t, op, std::forward<Fn>(fn));
    }
}

// Integer index tensors (targets, token ids).
template<class Fn>
void dispatchIndex(DType t, const char* op, Fn&& fn)
{
    switch (t) {
    case DType::I64: fn(int64_t{}); return;
    case DType::I32: fn(int32_t{}); return;
    case DType::I16: fn(int16_t{}); return;
    case DType::I8: fn(int8_t{}); return;
    case DType::U8: fn(uint8_t{}); return;
    default:
        throw KernelError(std::string(op) + ": indices must be an integer tensor, got " + std::string(dtypeAbbr(t)));
    }
}

// ---- the summation order (runtime/math/sum_order.hpp)
using math::sum::Cascade;
using math::sum::kBlock;
using math::sum::kLanes;
using math::sum::kMaxLevels;
using math::sum::laneTree;
using math::sum::sumOrdered;
inline constexpr int kTile = 64;  // outputs per column tile

// out[t] = S(load(t, 0) .. load(t, n-1)) for t < W, W a compile-time width: bitwise equal to
// calling sumOrdered for each t (the same additions per output, in the same order), but walks
// i in the outer loop so that neighbouring outputs share cache lines and the t loop vectorises.
template<class A, int W, class Load>
inline void sumOrderedTileW(int64_t n, Load&& load, A* out)
{
    A val[kMaxLevels][W];
    int lvl[kMaxLevels];
    int top = 0;
    A l[kLanes][W];
    A v[W];
    for (int64_t b0 = 0; b0 < n; b0 += kBlock) {
        const int64_t e = std::min(n, b0 + kBlock);
        for (int k = 0; k < kLanes; ++k)
            for (int t = 0; t < W; ++t) l[k][t] = A(0);
        int64_t i = b0;
        for (; i + kLanes <= e; i += kLanes)
            for (int k = 0; k < kLanes; ++k) {
                A* lk = l[k];
                for (int t = 0; t < W; ++t) lk[t] += load(t, i + k);
            }
        for (int k = 0; i < e; ++i, ++k) {
            A* lk = l[k];
            for (int t = 0; t < W; ++t) lk[t] += load(t, i);
        }
        for (int t = 0; t < W; ++t)
            v[t] = ((l[0][t] + l[1][t]) + (l[2][t] + l[3][t])) + ((l[4][t] + l[5][t]) + (l[6][t] + l[7][t]));
        int level = 0;
        while (top > 0 && lvl[top - 1] == level) {
            for (int t = 0; t < W; ++t) v[t] = val[top - 1][t] + v[t];
            --top;
            ++level;
        }
        for (int t = 0; t < W; ++t) val[top][t] = v[t];
        lvl[top] = level;
        ++top;
    }
    if (top == 0) {
        for (int t = 0; t < W; ++t) out[t] = A(0);
        return;
    }
    for (int t = 0; t < W; ++t) v[t] = val[top - 1][t];
    for (int k = top - 2; k >= 0; --k)
        for (int t = 0; t < W; ++t) v[t] = val[k][t] + v[t];
    for (int t = 0; t < W; ++t) out[t] = v[t];
}

// out[t] = S(load(t, 0) .. load(t, n-1)) for t < T (any T >= 0): fixed-width tiles of 64, 16,
// 4, then single outputs. Which outputs share a tile never changes any output's bits.
template<class A, class Load>
inline void sumOrderedTile(int64_t n, int T, Load&& load, A* out)
{
    int t0 = 0;
    for (; T - t0 >= kTile; t0 += kTile)
        sumOrderedTileW<A, kTile>(
            n, [&](int t, int64_t i) { return load(t0 + t, i); }, out + t0);
    for (; T - t0 >= 16; t0 += 16)
        sumOrderedTileW<A, 16>(
            n, [&](int t, int64_t i) { return load(t0 + t, i); }, out + t0);
    for (; T - t0 >= 4; t0 += 4)
        sumOrderedTileW<A, 4>(
            n, [&](int t, int64_t i) { return load(t0 + t, i); }, out + t0);
    for (; t0 < T; ++t0) out[t0] = sumOrdered<A>(n, [&](int64_t i) { return load(t0, i); });
}

// ---- a tensor as rows x columns: the dims in `colDims` (in the given order) form one row's
// elements ("columns"), the other dims (in order) enumerate the rows, both row-major.
struct RowView
{
    int64_t rows = 1, cols = 1;
    // coalesced row dims (outer to inner) and column dims
    std::vector<int64_t> rowSizes, rowStrides;
    std::vector<int64_t> colSizes, colStrides;
    bool colLinear = true;  // column j sits at j * colStride
    int64_t colStride = 0;
    std::vector<int64_t> colOff;  // element offsets when !colLinear

    RowView() = default;
    RowView(const Tensor& t, const std::vector<int64_t>& colDims);

    int64_t rowOffset(int64_t r) const
    {
        int64_t o = 0;
        for (size_t k = rowSizes.size(); k-- > 0;) {
            const int64_t s = rowSizes[k];
            o += (r % s) * rowStrides[k];
            r /= s;
        }
        return o;
    }
    int64_t colOffset(int64_t j) const { return colLinear ? j * colStride : colOff[static_cast<size_t>(j)]; }
    // Consecutive rows inside the innermost row dim are `innerRowStride` apart.
    int64_t innerRowSize() const { return rowSizes.empty() ? 1 : rowSizes.back(); }
    int64_t innerRowStride() const { return rowStrides.empty() ? 0 : rowStrides.back(); }
};

// Row q of a RowView widened into buf[0 .. cols) / buf narrowed into row w (rounding once).
template<class A, class T>
inline void gatherRow(const T* q, const RowView& rv, A* buf)
{
    const int64_t n = rv.cols;
    if (rv.colLinear && rv.colStride == 1) {
        for (int64_t j = 0; j < n; ++j) buf[j] = widenTo<A>(q[j]);
    } else if (rv.colLinear) {
        const int64_t cs = rv.colStride;
        for (int64_t j = 0; j < n; ++j) buf[j] = widenTo<A>(q[j * cs]);
    } else {
        const int64_t* off = rv.colOff.data();
        for (int64_t j = 0; j < n; ++j) buf[j] = widenTo<A>(q[off[j]]);
    }
}
template<class T, class A>
inline void scatterRow(T* w, const RowView& rv, const A* buf)
{
    const int64_t n = rv.cols;
    if (rv.colLinear && rv.colStride == 1) {
        for (int64_t j = 0; j < n; ++j) w[j] = narrowTo<T>(buf[j]);
    } else if (rv.colLinear) {
        const int64_t cs = rv.colStride;
        for (int64_t j = 0; j < n; ++j) w[j * cs] = narrowTo<T>(buf[j]);
    } else {
        const int64_t* off = rv.colOff.data();
        for (int64_t j = 0; j < n; ++j) w[off[j]] = narrowTo<T>(buf[j]);
    }
}

// The moments of one row in double: m0 = S(x)/n, mean = m0 + S(x - m0)/n, m2 = S((x - mean)^2),
// the float path's algorithm and order with double sums. For f32/bf16/f16 rows whose float
// moments are not finite (docs/numerics.md section 5): a sum that overflowed float where the
// exact moments are finite ([3e38, 3e38, 0] has mean 2e38) then gets them right, and rows with
// an inf or nan keep IEEE's inf / nan. n == 0 gives mean 0 and m2 0 (PyTorch's mean of nothing).
struct RowMoments
{
    double mean = 0, m2 = 0;
};
template<class T>
RowMoments rowMomentsF64(const T* q, const RowView& rv)
{
    RowMoments r;
    const int64_t n = rv.cols;
    if (n == 0) return r;
    std::vector<double> v(static_cast<size_t>(n));
    gatherRow(q, rv, v.data());
    const math::rows::Moments<double> m =
        math::rows::moments<double>(n, [&](int64_t i) { return v[static_cast<size_t>(i)]; });
    r.mean = m.mean;
    r.m2 = m.m2;
    return r;
}

// S(x) of one row in double, in the contract's order: the sum of a float row whose float sum
// overflowed although its elements are finite (docs/numerics.md section 5), rounded once by
// the caller. A row with an inf or nan keeps IEEE's inf / nan.
template<class T>
double rowSumF64(const T* q, const RowView& rv)
{
    const int64_t n = rv.cols;
    if (n == 0) return 0.0;
    std::vector<double> v(static_cast<size_t>(n));
    gatherRow(q, rv, v.data());
    return sumOrdered<double>(n, [&](int64_t i) { return v[static_cast<size_t>(i)]; });
}

// Writes v (one value per element, row-major) into t, whatever its strides (parameter
// gradients of the norms).
template<class A>
void storeVector(const Tensor& t, const std::vector<A>& v)
{
    char* base = static_cast<char*>(t.rawData());
    forEachIndex(t.sizes(), [&](const int64_t* idx, int64_t flat) {
        storeFromDouble(base + offsetOf(t, idx) * t.itemSize(), t.dtype(),
                        static_cast<double>(v[static_cast<size_t>(flat)]));
    });
}

// An optional output (a backward's gradient not asked for by output_mask): the tensor or None.
inline Value tensorOrNone(const Tensor& t) { return t.defined() ? Value::ofTensor(t) : Value::none(); }

// Runs fn(begin, end) over [0, n) on the pool (inline when there is no pool).
template<class F>
void parallelRows(ThreadPool* pool, int64_t n, int64_t grain, const F& fn)
{
    if (n <= 0) return;
    if (!pool || n <= grain) {
        fn(int64_t{0}, n);
        return;
    }
    pool->parallelForInline(n, std::max<int64_t>(1, grain), fn);
}

// Rows per task so that one task does at least ~16k element visits.
inline int64_t grainFor(int64_t perRow) { return std::max<int64_t>(1, 16384 / std::max<int64_t>(1, perRow)); }

// Normalises a possibly negative dim against `ndim` (0-dim tensors accept -1 and 0).
int64_t wrapDim(int64_t d, int64_t ndim, const char* op);
// Dims of a dim-list argument (None or [] = every dim), wrapped, checked for duplicates.
std::vector<bool> reducedDims(const Value& dimArg, int64_t ndim, const char* op);
// Optional ScalarType argument.
std::optional<DType> optDType(const Value& v);
// A float tensor's elements as a contiguous f32/f64 copy is not needed here; weight-like
// 1-d parameters are read through this (contiguous copy when strided).
Tensor contiguousOf(const KernelCall& call, const Tensor& t);
// x converted to dtype `to`, each element through double (loadAsDouble, storeFromDouble), by
// the pointwise loop (so on any device); contiguous.
Tensor castThroughDouble(const KernelCall& call, const Tensor& x, DType to);

// The kernels whose loops run on a device (Backend::conv, Backend::batchNorm): their operands
// widened exactly to the accumulation type (double for f64, float otherwise), contiguous, on
// the call's backend; and a result in the accumulation type rounded once to dt as narrowed()
// rounds (f32 / f64 with the canonical NaN, bf16 / f16 to nearest even).
DType accDtypeOf(DType t);
Tensor widenedOnDevice(const KernelCall& call, const Tensor& t);
Tensor narrowedOnDevice(const KernelCall& call, const Tensor& y, DType dt);

}  // namespace fxl::cpu::red

namespace fxl::cpu {

// The whole family, registered by registerCpuKernels.
void registerReductionKernels(KernelRegistry& reg);
// sum and mean (both overloads) on device `d`: the host logic is device-independent, the
// reduction is Backend::rowSum on a device.
void registerSumKernels(KernelRegistry& reg, DeviceKind d);

}  // namespace fxl::cpu
