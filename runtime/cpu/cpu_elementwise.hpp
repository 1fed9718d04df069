// Internals of the CPU elementwise family (cpu_elementwise*.cpp): storage types per dtype,
// PyTorch's (x86 CPU) value conversions, type promotion with wrapped Python numbers, the
// output layout rules of TensorIterator / empty_like, and the one strided loop every kernel
// of the family runs through.
//
// Numerics: every element goes through the same functor whatever the path (contiguous inner
// loop or strided), the split between threads or the position; no fast-math, no implicit
// contraction; each value comes from the functor's runtime/math/ formula (the transcendental
// functions are fxlens' own, correctly rounded in float).
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "runtime/base/backend.hpp"
#include "runtime/cpu/cpu_common.hpp"
#include "runtime/cpu/thread_pool.hpp"

namespace fxl::cpu::ew {

// ---- storage types. bool is a byte (any nonzero byte reads as true; writes are 0/1).
struct B8
{
    uint8_t v;
};
struct BF16
{
    uint16_t bits;
};
struct F16
{
    uint16_t bits;
};

template<class T>
struct Tag
{
    using type = T;
};

// Num<S>: the type arithmetic on a storage type S is done in, and exact load / rounding store.
template<class S>
struct Num
{
    using C = S;
    static C load(S v) { return v; }
    static S store(C v) { return v; }
};
// every floating result is stored with the canonical NaN (math::canonical)
template<>
struct Num<float>
{
    using C = float;
    static float load(float v) { return v; }
    static float store(float v) { return math::canonical(v); }
};
template<>
struct Num<double>
{
    using C = double;
    static double load(double v) { return v; }
    static double store(double v) { return math::canonical(v); }
};
template<>
struct Num<B8>
{
    using C = bool;
    static bool load(B8 v) { return v.v != 0; }
    static B8 store(bool v) { return B8{static_cast<uint8_t>(v ? 1 : 0)}; }
};
template<>
struct Num<BF16>
{
    using C = float;
    static float load(BF16 v) { return bf16ToF32(v.bits); }
    static BF16 store(float v) { return BF16{f32ToBf16(v)}; }
};
template<>
struct Num<F16>
{
    using C = float;
    static float load(F16 v) { return f16ToF32(v.bits); }
    static F16 store(float v) { return F16{f32ToF16(v)}; }
};

template<class S>
inline constexpr bool kIsReduced = std::is_same_v<S, BF16> || std::is_same_v<S, F16>;
template<class S>
inline constexpr bool kIsFloat = kIsReduced<S> || std::is_floating_point_v<S>;
template<class S>
inline constexpr bool kIsBool = std::is_same_v<S, B8>;
template<class S>
inline constexpr bool kIsInt = std::is_integral_v<S>;  // not bool (B8)

// ---- conversions as PyTorch's CPU build does them (c10::convert on x86-64): float -> int
// truncates toward zero; out of range or NaN gives the "integer indefinite" value of a 32- or
// 64-bit conversion (INT_MIN), and 8/16-bit targets take the low bits of the 32-bit result;
// int64 -> float rounds once (no detour through double); anything -> bf16/f16 goes through
// float (double rounding from double, as c10 does); -> bool is (v != 0), NaN is true. The
// float -> integer rule and the 16-bit roundings are runtime/math/storage.hpp's.
template<class D, class S>
D convert(S v)
{
    if constexpr (std::is_same_v<D, S>) {
        if constexpr (std::is_floating_point_v<D>)
            return math::canonical(v);  // a Python float NaN (fill, masked_fill) is stored canonical
        else
            return v;
    } else if constexpr (kIsReduced<S> || kIsBool<S>) {
        return convert<D>(Num<S>::load(v));  // widen exactly first (float / bool)
    } else if constexpr (kIsReduced<D>) {
        return Num<D>::store(convert<float>(v));
    } else if constexpr (kIsBool<D>) {
        return B8{static_cast<uint8_t>(v != 0 ? 1 : 0)};
    } else if constexpr (std::is_floating_point_v<D>) {
        return math::canonical(static_cast<D>(v));
    } else if constexpr (std::is_floating_point_v<S>) {  // float -> integer
        if constexpr (std::is_same_v<D, int64_t>)
            return math::truncToI64(static_cast<double>(v));
        else
            return static_cast<D>(math::truncToI32(static_cast<double>(v)));
    } else {
        return static_cast<D>(v);  // integer -> integer: modular (well defined since C++20)
    }
}

// ---- dtype dispatch: f(Tag<S>{}) with S the storage type of t.
enum class Set : uint8_t
{
    Float,
    Numeric,
    All
};

template<class S>
constexpr DType dtypeOf()
{
    if constexpr (std::is_same_v<S, float>)
        return DType::F32;
    else if constexpr (std::is_same_v<S, double>)
        return DType::F64;
    else if constexpr (std::is_same_v<S, BF16>)
        return DType::BF16;
    else if constexpr (std::is_same_v<S, F16>)
        return DType::F16;
    else if constexpr (std::is_same_v<S, int64_t>)
        return DType::I64;
    else if constexpr (std::is_same_v<S, int32_t>)
        return DType::I32;
    else if constexpr (std::is_same_v<S, int16_t>)
        return DType::I16;
    else if constexpr (std::is_same_v<S, int8_t>)
        return DType::I8;
    else if constexpr (std::is_same_v<S, uint8_t>)
        return DType::U8;
    else
        return DType::Bool;
}

[[noreturn]] void unsupportedDType(const char* what, DType t);

template<Set set, class F>
decltype(auto) dispatch(DType t, const char* what, F&& f)
{
    switch (t) {
    case DType::F32: return f(Tag<float>{});
    case DType::F64: return f(Tag<double>{});
    case DType::BF16: return f(Tag<BF16>{});
    case DType::F16: return f(Tag<F16>{});
    default: break;
    }
    if constexpr (set != Set::Float) {
        switch (t) {
        case DType::I64: return f(Tag<int64_t>{});
        case DType::I32: return f(Tag<int32_t>{});
        case DType::I16: return f(Tag<int16_t>{});
        case DType::I8: return f(Tag<int8_t>{});
        case DType::U8: return f(Tag<uint8_t>{});
        default: break;
        }
    }
    if constexpr (set == Set::All) {
        if (t == DType::Bool) return f(Tag<B8>{});
    }
    unsupportedDType(what, t);
}

template<size_t N>
struct BitsOf;
template<>
struct BitsOf<1>
{
    using type = uint8_t;
};
template<>
struct BitsOf<2>
{
    using type = uint16_t;
};
template<>
struct BitsOf<4>
{
    using type = uint32_t;
};
template<>
struct BitsOf<8>
{
    using type = uint64_t;
};

// Raw bits of an element (for copies that must keep every bit, NaN payloads included).
template<class F>
decltype(auto) dispatchBits(DType t, F&& f)
{
    switch (dtypeItemSize(t)) {
    case 1: return f(Tag<uint8_t>{});
    case 2: return f(Tag<uint16_t>{});
    case 4: return f(Tag<uint32_t>{});
    case 8: return f(Tag<uint64_t>{});
    default: unsupportedDType("copy", t);
    }
}

// A Python number (Value Int/Float/Bool) converted to storage type S the way c10's
// convert does (unchecked: how TensorIterator casts a wrapped number to the common dtype).
template<class S>
S scalarTo(const Value& v)
{
    switch (v.kind) {
    case Value::Kind::Int: return convert<S>(v.i);
    case Value::Kind::Float: return convert<S>(v.f);
    case Value::Kind::Bool: return convert<S>(B8{static_cast<uint8_t>(v.b ? 1 : 0)});
    default: throw KernelError("expected a number");
    }
}

// Scalar::to<S>() (fill values, alpha, exponents): like scalarTo, but a value outside S's
// range is an error (c10::checked_convert; infinities and NaN pass into floating types).
template<class S>
S checkedScalarTo(const Value& v, const char* what)
{
    double lo = 0, hi = 0;
    if constexpr (std::is_same_v<S, float>) {
        lo = -3.4028234663852886e38;
        hi = 3.4028234663852886e38;
    } else if constexpr (std::is_same_v<S, double>) {
        lo = -1.79769313486231570e308;
        hi = 1.79769313486231570e308;
    } else if constexpr (std::is_same_v<S, BF16>) {
        lo = -3.3895313892515355e38;
        hi = 3.3895313892515355e38;
    } else if constexpr (std::is_same_v<S, F16>) {
        lo = -65504.0;
        hi = 65504.0;
    } else if constexpr (kIsBool<S>) {
        return scalarTo<S>(v);  // every number converts to bool (nonzero is true), as in PyTorch
    } else if constexpr (std::is_unsigned_v<S>) {
        lo = -static_cast<double>(std::numeric_limits<S>::max());
        hi = std::numeric_limits<S>::max();
    } else {
        lo = static_cast<double>(std::numeric_limits<S>::min());
        hi = static_cast<double>(std::numeric_limits<S>::max());
    }
    bool bad = false;
    if (v.kind == Value::Kind::Float) {
        if (std::isnan(v.f))
            bad = !kIsFloat<S> && !kIsBool<S>;
        else if (std::isinf(v.f))
            bad = !kIsFloat<S>;
        else
            bad = v.f < lo || v.f > hi;
    } else if (v.kind == Value::Kind::Int) {
        if constexpr (!std::is_same_v<S, int64_t> && !std::is_same_v<S, double>)  // int64 never overflows these two
            bad = static_cast<double>(v.i) < lo || static_cast<double>(v.i) > hi;
    }
    if (bad)
        throw KernelError(std::string(what) + ": value cannot be converted to type "
                          + std::string(dtypeAbbr(dtypeOf<S>())) + " without overflow");
    return scalarTo<S>(v);
}

// ---- type promotion (torch.result_type): dimensioned tensors > zero-dim tensors > wrapped
// Python numbers; a lower priority class only matters when its category (bool < integer <
// float) is higher. A Python float counts as the default dtype (f32), an int as i64.
bool isScalarValue(const Value& v);  // Int, Float or Bool
DType resultType(const std::vector<const Value*>& operands);
bool canCast(DType from, DType to);  // torch.can_cast: no float -> integral, no non-bool -> bool

// ---- layouts
bool isContiguousLayout(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides);
bool isNonOverlappingAndDense(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides);
bool isChannelsLastLayout(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides);
// channels_last strides of a 4-d (N, C, H, W) or 5-d (N, C, D, H, W) shape, C fastest.
std::vector<int64_t> channelsLastStrides(const std::vector<int64_t>& sizes);
// The strides a named memory format gives `sizes` ("contiguous_format", "channels_last" at
// rank 4, "channels_last_3d" at rank 5; a "torch." prefix is accepted); other names and ranks
// are errors, with PyTorch's wording.
std::vector<int64_t> namedFormatStrides(std::string_view name, const std::vector<int64_t>& sizes);
// empty_like(self, preserve_format): self's strides when it is dense, else dense strides in
// the order of self's strides (infer_dense_strides).
std::vector<int64_t> preserveStrides(const Tensor& self);
// Strides for a memory_format argument (None or "preserve_format": `self` decides; else
// namedFormatStrides).
std::vector<int64_t> memoryFormatStrides(const Value& memoryFormat, const Tensor& self);
// The output strides TensorIterator gives a freshly allocated output of `shape`, computed
// from its inputs (0-dim tensors included); `wrappedScalars` counts Python numbers (they are
// 0-dim operands in PyTorch and turn off the same-shape fast setup).
std::vector<int64_t> iteratorStrides(const std::vector<int64_t>& shape, const std::vector<const Tensor*>& inputs,
                                     int wrappedScalars);
// Allocates from the backend with the given strides (a dense permutation of `sizes`).
Tensor allocStrided(const KernelCall& call, const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides,
                    DType t);

// PyTorch's resize_ of `t` to `sizes`: t itself when the sizes are its own; else a view of
// the new sizes with contiguous strides (or memoryFormat's, namedFormatStrides) at t's
// offset, on t's storage when it is big enough, otherwise on a new storage that starts with
// the old one's bytes (the elements past them are zero, where PyTorch leaves them unset).
Tensor resizedTensor(const KernelCall& call, const Tensor& t, const std::vector<int64_t>& sizes,
                     const Value& memoryFormat);

// ---- the loop
inline constexpr int64_t kGrainCheap = 1 << 15;  // elements per thread at least (add, copy)
inline constexpr int64_t kGrainMath = 1 << 12;  // transcendental functors

namespace detail {
// One run of `n` elements along the walk's fastest dim: ptr[0] the output's first element,
// ptr[1..] the inputs', step[k] operand k's stride in elements; `f` points at the functor.
using RunFn = void (*)(char* const* ptr, const int64_t* step, int64_t n, const void* f);
inline constexpr size_t kMaxOperands = 4;  // the output and up to three inputs

// The walk shared by every pointwise kernel (cpu_elementwise.cpp): the operands' dims in the
// output's memory order, size-1 dims dropped and adjacent dims merged where every operand
// allows it, cut into contiguous ranges for the threads; `run` is called once per stretch of
// the fastest dim. Only `run` depends on the functor and the dtypes, so each kernel compiles
// its element loop and nothing else.
void walkPointwise(ThreadPool* pool, const Tensor* const* ops, const int64_t* itemBytes, size_t nOps, int64_t grain,
                   RunFn run, const void* f);

template<class F, class OutS, class... InS>
struct Runner
{
    template<size_t... K>
    static void loop(char* const* ptr, const int64_t* step, int64_t n, const F& f, std::index_sequence<K...>)
    {
        OutS* out = reinterpret_cast<OutS*>(ptr[0]);
        bool unit = step[0] == 1;
        ((unit = unit && step[K + 1] == 1), ...);
        if (unit) {
            // contiguous: plain indexing so the compiler may vectorise; the same functor per element
            for (int64_t i = 0; i < n; ++i) out[i] = f(reinterpret_cast<const InS*>(ptr[K + 1])[i]...);
        } else {
            for (int64_t i = 0; i < n; ++i)
                out[i * step[0]] = f(reinterpret_cast<const InS*>(ptr[K + 1])[i * step[K + 1]]...);
        }
    }
    static void run(char* const* ptr, const int64_t* step, int64_t n, const void* f)
    {
        loop(ptr, step, n, *static_cast<const F*>(f), std::index_sequence_for<InS...>{});
    }
};
}  // namespace detail

// out[i] = f(in0[i], in1[i], ...) over every element of `out`. The inputs have out's sizes
// (expand them first); f maps storage values to a storage value. Threads get contiguous
// ranges of the iteration order; no element's arithmetic depends on the split.
template<class OutS, class... InS, class F>
void pointwise(ThreadPool* pool, const Tensor& out, const std::array<Tensor, sizeof...(InS)>& ins, const F& f,
               int64_t grain = kGrainCheap)
{
    constexpr size_t N = sizeof...(InS) + 1;
    static_assert(N <= detail::kMaxOperands);
    std::array<const Tensor*, N> ops{};
    ops[0] = &out;
    for (size_t k = 0; k + 1 < N; ++k) ops[k + 1] = &ins[k];
    static constexpr std::array<int64_t, N> kItem = {static_cast<int64_t>(sizeof(OutS)),
                                                     static_cast<int64_t>(sizeof(InS))...};
    detail::walkPointwise(pool, ops.data(), kItem.data(), N, grain, &detail::Runner<F, OutS, InS...>::run, &f);
}

// ThreadPool::parallelFor when the call has a pool, else one range on the caller.
template<class F>
void parallelFor(const KernelCall& call, int64_t n, int64_t grain, const F& fn)
{
    if (n <= 0) return;
    if (call.pool)
        call.pool->parallelForInline(n, grain, fn);
    else
        fn(0, n);
}

// Wraps a functor on compute values (Num<S>::C) into one on storage values.
template<class OutS, class... InS, class F>
auto lifted(F f)
{
    return [f](InS... x) -> OutS { return Num<OutS>::store(f(Num<InS>::load(x)...)); };
}

// ---- helpers shared by the kernel files
std::optional<DType> optDType(const KernelCall& call, const char* name);  // "dtype" arg (None -> nullopt)
// A tensor of dtype `to` with t's values (t itself when the dtype matches). Keeps t's sizes;
// the copy is contiguous.
Tensor castTo(const KernelCall& call, const Tensor& t, DType to);
// dst (any strides) = src converted to dst's dtype; src has dst's sizes (or broadcasts to them).
void castInto(const KernelCall& call, const Tensor& dst, const Tensor& src);
// dst (any strides) = value converted to dst's dtype.
void fillWith(const KernelCall& call, const Tensor& dst, const Value& value);

void registerCopies(KernelRegistry& reg);  // cpu_elementwise.cpp (clone, casts)

}  // namespace fxl::cpu::ew

namespace fxl::cpu {

// The whole family, registered by registerCpuKernels.
void registerElementwiseKernels(KernelRegistry& reg);

}  // namespace fxl::cpu
