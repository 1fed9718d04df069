// The functors of the pointwise loop in the one form every device compiles. An elementwise
// kernel hands the loop a functor; on the CPU it runs as it is (the Runner of
// runtime/cpu/cpu_elementwise.hpp), on a device the loop carries its device form (`Fn`): the
// functor's number in the list below (`Functors`), its parameters' bytes, and per operand the
// slot that says how storage and the functor's values relate (bf16 / f16 widen and round,
// floats store the canonical NaN). The CUDA build instantiates one kernel per listed functor
// (runtime/cuda/pointwise_device.cu), the emulator one host function per functor; both run
// `apply`, so the GPU computes each element with the same runtime/math/ call as the CPU.
//
// A functor is listed here or the kernel does not compile (pointwise's static_assert): no
// elementwise kernel can be CPU-only by accident. Header-only, for nvcc too: no exceptions,
// no std containers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "core/ir/dtype.hpp"
#include "runtime/math/activations.hpp"
#include "runtime/math/arith.hpp"
#include "runtime/math/compare.hpp"
#include "runtime/math/gemm_chain.hpp"
#include "runtime/math/storage.hpp"
#include "runtime/math/storage_types.hpp"

namespace fxl::pw {

using math::B8;
using math::BF16;
using math::F16;

// How an operand's storage holds the functor's value: Raw (the bytes are the value), or
// through Num<S> (runtime/math/storage_types.hpp): F32 / F64 store the canonical NaN, Bf16 /
// F16 widen exactly and round once, B8 is a bool as 0 / 1.
enum class Slot : uint8_t
{
    Raw,
    F32,
    F64,
    Bf16,
    F16,
    B8
};

inline constexpr size_t kStateBytes = 64;  // a functor's parameters, at most

// The device form of one pointwise loop's functor.
struct Fn
{
    int kind = -1;  // the functor's index in Functors; -1: none
    Slot slot[4] = {};  // the output's, then each input's
    alignas(16) unsigned char state[kStateBytes] = {};  // the functor's bytes
};

// ---- element access
template<class T>
FXL_HD inline T readAs(const char* p)
{
    T v;
    std::memcpy(&v, p, sizeof(T));
    return v;
}
template<class T>
FXL_HD inline void writeAs(char* p, T v)
{
    std::memcpy(p, &v, sizeof(T));
}

template<class T>
FXL_HD inline T loadAs(const char* p, Slot s)
{
    if constexpr (std::is_same_v<T, float>) {
        if (s == Slot::Bf16) return math::bf16ToF32(readAs<uint16_t>(p));
        if (s == Slot::F16) return math::f16ToF32(readAs<uint16_t>(p));
        return readAs<float>(p);
    } else if constexpr (std::is_same_v<T, bool>) {
        return readAs<uint8_t>(p) != 0;
    } else {
        return readAs<T>(p);
    }
}

template<class T>
FXL_HD inline void storeAs(char* p, Slot s, T v)
{
    if constexpr (std::is_same_v<T, float>) {
        if (s == Slot::Bf16)
            writeAs<uint16_t>(p, math::f32ToBf16(v));
        else if (s == Slot::F16)
            writeAs<uint16_t>(p, math::f32ToF16(v));
        else
            writeAs<float>(p, s == Slot::F32 ? math::canonical(v) : v);
    } else if constexpr (std::is_same_v<T, double>) {
        writeAs<double>(p, s == Slot::F64 ? math::canonical(v) : v);
    } else if constexpr (std::is_same_v<T, bool>) {
        writeAs<uint8_t>(p, static_cast<uint8_t>(v ? 1 : 0));
    } else {
        writeAs<T>(p, v);
    }
}

// The slot of storage type S read through Num<S>.
template<class S>
constexpr Slot numSlot()
{
    if constexpr (std::is_same_v<S, float>)
        return Slot::F32;
    else if constexpr (std::is_same_v<S, double>)
        return Slot::F64;
    else if constexpr (std::is_same_v<S, BF16>)
        return Slot::Bf16;
    else if constexpr (std::is_same_v<S, F16>)
        return Slot::F16;
    else if constexpr (std::is_same_v<S, B8>)
        return Slot::B8;
    else
        return Slot::Raw;
}

// ---- storage types by dtype
template<class S>
constexpr DType dtypeOfStorage()
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

// f(S{}) for the storage type of t (the ten dtypes of the elementwise family); false when t
// has none.
template<class F>
FXL_HD inline bool withStorage(DType t, F&& f)
{
    switch (t) {
    case DType::Bool: f(B8{}); return true;
    case DType::U8: f(uint8_t{}); return true;
    case DType::I8: f(int8_t{}); return true;
    case DType::I16: f(int16_t{}); return true;
    case DType::I32: f(int32_t{}); return true;
    case DType::I64: f(int64_t{}); return true;
    case DType::F16: f(F16{}); return true;
    case DType::BF16: f(BF16{}); return true;
    case DType::F32: f(float{}); return true;
    case DType::F64: f(double{}); return true;
    default: return false;
    }
}

// ---- through double (runtime/base/dtype_codec.hpp's loadAsDouble / storeFromDouble): floats
// widen exactly, integers convert, bool is 0 / 1; the store rounds floats once (canonical NaN),
// truncates integers toward zero saturating (NaN is 0), and bool is v != 0 (NaN is true).
template<class I>
FXL_HD inline I saturatingTrunc(double v)
{
    using U = std::make_unsigned_t<I>;
    constexpr I hi =
        static_cast<I>(std::is_signed_v<I> ? static_cast<U>(static_cast<U>(~U(0)) >> 1) : static_cast<U>(~U(0)));
    constexpr I lo = std::is_signed_v<I> ? static_cast<I>(-hi - 1) : I(0);
    if (v != v) return 0;
    if (v <= static_cast<double>(lo)) return lo;
    if (v >= static_cast<double>(hi)) return hi;
    return static_cast<I>(v);
}

FXL_HD inline double loadDouble(const char* p, DType t)
{
    double r = 0;
    withStorage(t, [&](auto s) {
        using S = decltype(s);
        if constexpr (std::is_same_v<S, B8>)
            r = readAs<uint8_t>(p) ? 1.0 : 0.0;
        else if constexpr (std::is_same_v<S, BF16> || std::is_same_v<S, F16>)
            r = math::Num<S>::load(readAs<S>(p));
        else
            r = static_cast<double>(readAs<S>(p));
    });
    return r;
}

FXL_HD inline void storeDouble(char* p, DType t, double v)
{
    withStorage(t, [&](auto s) {
        using S = decltype(s);
        if constexpr (std::is_same_v<S, B8>)
            writeAs<uint8_t>(p, static_cast<uint8_t>((v != 0.0 || v != v) ? 1 : 0));
        else if constexpr (std::is_same_v<S, BF16> || std::is_same_v<S, F16>)
            writeAs<S>(p, math::Num<S>::store(static_cast<float>(v)));
        else if constexpr (std::is_same_v<S, float>)
            writeAs<float>(p, math::canonical(static_cast<float>(v)));
        else if constexpr (std::is_same_v<S, double>)
            writeAs<double>(p, math::canonical(v));
        else
            writeAs<S>(p, saturatingTrunc<S>(v));
    });
}

// ---- functors on storage (raw bytes in, raw bytes out)
template<class U>
struct Copy
{
    FXL_HD U operator()(U x) const { return x; }
};

template<class U>
struct Fill
{
    U bits;
    FXL_HD U operator()() const { return bits; }
};

// where(condition, x, y) on the bits of x and y
template<class U>
struct Where
{
    FXL_HD U operator()(uint8_t c, U x, U y) const { return c ? x : y; }
};

// masked_fill: the value's bits where the mask is nonzero
template<class U>
struct MaskedFill
{
    U value;
    FXL_HD U operator()(U x, uint8_t m) const { return m ? value : x; }
};

template<class S>
struct BitwiseNot
{
    FXL_HD S operator()(S x) const
    {
        if constexpr (std::is_same_v<S, B8>)
            return B8{static_cast<uint8_t>(x.v ? 0 : 1)};
        else
            return static_cast<S>(~x);
    }
};

// The typed conversion the CPU runs (math::convert, c10's rules); on a device its form is Cast.
template<class D, class S>
struct Convert
{
    FXL_HD D operator()(S x) const { return math::convert<D>(x); }
};

// Functors on raw element pointers (`kRaw`): one instance for every pair of dtypes.
struct Cast
{
    static constexpr bool kRaw = true;
    DType from, to;
    FXL_HD void operator()(char* out, const char* in) const
    {
        withStorage(from, [&](auto s) {
            using S = decltype(s);
            const S x = readAs<S>(in);
            withStorage(to, [&](auto d) {
                using D = decltype(d);
                writeAs<D>(out, math::convert<D>(x));
            });
        });
    }
};

struct ThroughDouble
{
    static constexpr bool kRaw = true;
    DType from, to;
    FXL_HD void operator()(char* out, const char* in) const { storeDouble(out, to, loadDouble(in, from)); }
};

// The typed form of ThroughDouble the CPU runs (Out and In: the dtypes' bit containers).
template<class Out, class In>
struct ThroughDoubleBits
{
    DType from, to;
    FXL_HD Out operator()(In v) const
    {
        Out r;
        storeDouble(reinterpret_cast<char*>(&r), to, loadDouble(reinterpret_cast<const char*>(&v), from));
        return r;
    }
};

// ---- functors on compute values (Num<S>::C), the kernels' per-element glue
template<class C>
struct Neg
{
    FXL_HD C operator()(C x) const { return math::arith::neg(x); }
};
template<class C>
struct Abs
{
    FXL_HD C operator()(C x) const { return math::arith::abs(x); }
};
template<class C>
struct Sign
{
    FXL_HD C operator()(C x) const { return math::arith::sign(x); }
};
template<class C>
struct PowInt
{
    C ex;
    FXL_HD C operator()(C x) const { return math::arith::powi<C>(x, ex); }
};
template<class C>
struct PowBinary
{
    FXL_HD C operator()(C x, C y) const { return math::arith::powBinary(x, y); }
};
// a float quotient rounded to the storage type first (bf16 / f16)
struct NarrowTo
{
    math::Narrow narrow;
    template<class C>
    FXL_HD C operator()(C q) const
    {
        if constexpr (std::is_same_v<C, float>)
            return math::roundToStorage(q, narrow);
        else
            return q;
    }
};
// div with a rounding mode (the kernel has checked integer divisors for zero)
template<class C>
struct DivRounding
{
    bool floorMode;
    math::Narrow narrow;
    FXL_HD C operator()(C x, C y) const { return math::arith::divRounding(x, y, floorMode, NarrowTo{narrow}); }
};
template<class C>
struct RoundMode
{
    math::arith::Round mode;
    FXL_HD C operator()(C x) const { return math::arith::round(x, mode); }
};
// fmod / remainder (the kernel has checked integer divisors for zero)
template<class C>
struct Mod
{
    bool remainder;
    FXL_HD C operator()(C x, C y) const { return math::arith::mod(x, y, remainder); }
};
template<class C>
struct Addc
{
    C value;
    bool div;
    FXL_HD C operator()(C a, C b, C c) const { return math::arith::addc(a, b, c, value, div); }
};
template<class C>
struct Lerp
{
    FXL_HD C operator()(C a, C b, C w) const { return math::arith::lerp(a, b, w); }
};
template<class C>
struct LerpScalar
{
    C weight;
    FXL_HD C operator()(C a, C b) const { return math::arith::lerp(a, b, weight); }
};
template<class C>
struct Compare
{
    math::cmp::Cmp op;
    FXL_HD bool operator()(C x, C y) const { return math::cmp::compare(x, y, op); }
};
// maximum / minimum (NaN wins)
template<class C>
struct MinMax
{
    bool isMax;
    FXL_HD C operator()(C x, C y) const { return isMax ? math::cmp::maximum(x, y) : math::cmp::minimum(x, y); }
};
// clamp with tensor bounds: minimum(maximum(x, lo), hi)
template<class C>
struct ClampBoth
{
    FXL_HD C operator()(C x, C lo, C hi) const { return math::cmp::minimum(math::cmp::maximum(x, lo), hi); }
};
template<class C>
struct LogicalNot
{
    FXL_HD bool operator()(C x) const { return math::cmp::logicalNot(x); }
};
template<class C>
struct Logical
{
    math::cmp::Logic op;
    FXL_HD bool operator()(C x, C y) const { return math::cmp::logical(x, y, op); }
};
template<class C>
struct Bitwise
{
    math::cmp::Logic op;
    FXL_HD C operator()(C x, C y) const { return math::cmp::bitwise(x, y, op); }
};
// isnan / isinf
template<class C>
struct IsNanInf
{
    bool nan;
    FXL_HD bool operator()(C x) const { return nan ? math::cmp::isNanValue(x) : math::cmp::isInfValue(x); }
};
// the matrix products' epilogue (alpha * dot + beta * bias), with and without a bias
template<class T>
struct EpilogueBias
{
    math::gemm::Epilogue<T> ep;
    FXL_HD T operator()(T dot, T bias) const { return ep(dot, bias); }
};
template<class T>
struct EpilogueDot
{
    math::gemm::Epilogue<T> ep;
    FXL_HD T operator()(T dot) const { return ep(dot, T(0)); }
};

// ---- wrappers the CPU runs: storage in, compute values through the functor, storage out
// Num<S> both ways (every elementwise kernel's rule).
template<class OutS, class G, class... InS>
struct Lifted
{
    G g;
    FXL_HD OutS operator()(InS... x) const { return math::Num<OutS>::store(g(math::Num<InS>::load(x)...)); }
};
// Num<S>::load in, and a store that rounds bf16 / f16 once and leaves f32 / f64 as computed
// (the matrix products' epilogue).
template<class OutS, class G, class... InS>
struct Stored
{
    G g;
    FXL_HD OutS operator()(InS... x) const
    {
        const auto v = g(math::Num<InS>::load(x)...);
        if constexpr (math::kIsReduced<OutS>)
            return math::Num<OutS>::store(v);
        else
            return v;
    }
};

// ---- the list
template<class... T>
struct List
{ };

template<class... L>
struct Cat;
template<class... A>
struct Cat<List<A...>>
{
    using type = List<A...>;
};
template<class... A, class... B, class... R>
struct Cat<List<A...>, List<B...>, R...>
{
    using type = typename Cat<List<A..., B...>, R...>::type;
};

template<template<class> class T>
using OnFloat = List<T<float>, T<double>>;
template<template<class> class T>
using OnNumeric = List<T<float>, T<double>, T<int64_t>, T<int32_t>, T<int16_t>, T<int8_t>, T<uint8_t>>;
template<template<class> class T>
using OnAll = List<T<float>, T<double>, T<int64_t>, T<int32_t>, T<int16_t>, T<int8_t>, T<uint8_t>, T<bool>>;
template<template<class> class T>
using OnInt = List<T<int64_t>, T<int32_t>, T<int16_t>, T<int8_t>, T<uint8_t>>;
template<template<class> class T>
using OnBits = List<T<uint8_t>, T<uint16_t>, T<uint32_t>, T<uint64_t>>;

// Every functor a pointwise loop runs on a device, numbered by position.
using Functors = typename Cat<
    // storage
    OnBits<Copy>, List<Copy<float>, Copy<double>>, OnBits<Fill>, OnBits<Where>, OnBits<MaskedFill>,
    List<BitwiseNot<B8>, BitwiseNot<uint8_t>, BitwiseNot<int8_t>, BitwiseNot<int16_t>, BitwiseNot<int32_t>,
         BitwiseNot<int64_t>, Cast, ThroughDouble>,
    // arithmetic
    OnAll<math::arith::Add>, OnNumeric<math::arith::Sub>, OnAll<math::arith::Mul>, OnFloat<math::arith::Div>,
    OnNumeric<Neg>, OnNumeric<Abs>, OnAll<Sign>, OnInt<PowInt>, OnFloat<math::arith::PowScalar>, OnNumeric<PowBinary>,
    OnNumeric<DivRounding>, OnNumeric<RoundMode>, OnNumeric<Mod>, OnNumeric<Addc>, OnFloat<Lerp>, OnFloat<LerpScalar>,
    // comparisons and logic
    OnAll<Compare>, OnAll<MinMax>, OnNumeric<ClampBoth>, OnNumeric<math::cmp::ClampScalar>, OnAll<LogicalNot>,
    OnAll<Logical>, OnAll<IsNanInf>,
    List<Bitwise<bool>, Bitwise<uint8_t>, Bitwise<int8_t>, Bitwise<int16_t>, Bitwise<int32_t>, Bitwise<int64_t>>,
    // activations and functions
    OnNumeric<math::act::Relu>, OnNumeric<math::act::ThresholdBackward>, OnFloat<math::act::Hardtanh>,
    OnFloat<math::act::HardtanhBackward>, OnFloat<math::act::LeakyRelu>, OnFloat<math::act::LeakyReluBackward>,
    OnFloat<math::act::Elu>, OnFloat<math::act::Softplus>, OnFloat<math::act::Gelu>, OnFloat<math::act::GeluTanh>,
    OnFloat<math::act::GeluBackward>, OnFloat<math::act::GeluTanhBackward>, OnFloat<math::act::Sigmoid>,
    OnFloat<math::act::SigmoidBackward>, OnFloat<math::act::Silu>, OnFloat<math::act::SiluBackward>,
    OnFloat<math::act::TanhBackward>, OnFloat<math::act::Rsqrt>, OnFloat<math::act::Sqrt>,
    OnFloat<math::act::Reciprocal>, OnFloat<math::act::Atan2>, OnFloat<math::act::Exp>, OnFloat<math::act::Expm1>,
    OnFloat<math::act::Log>, OnFloat<math::act::Log1p>, OnFloat<math::act::Log2>, OnFloat<math::act::Log10>,
    OnFloat<math::act::Tanh>, OnFloat<math::act::Erf>, OnFloat<math::act::Sin>, OnFloat<math::act::Cos>,
    OnFloat<math::act::Tan>, OnFloat<math::act::Asin>, OnFloat<math::act::Acos>, OnFloat<math::act::Atan>,
    OnFloat<math::act::Sinh>, OnFloat<math::act::Cosh>, OnFloat<math::act::Asinh>, OnFloat<math::act::Acosh>,
    OnFloat<math::act::Atanh>,
    // the matrix products' epilogue
    OnFloat<EpilogueBias>, OnFloat<EpilogueDot>>::type;

// (a loop over an array, not a fold expression: clang limits a fold's nesting to 256 terms)
template<class T, class... F>
constexpr int indexIn(List<F...>)
{
    constexpr bool same[] = {std::is_same_v<T, F>...};
    for (size_t i = 0; i < sizeof...(F); ++i)
        if (same[i]) return static_cast<int>(i);
    return -1;
}
template<class L>
struct Len;
template<class... F>
struct Len<List<F...>>
{
    static constexpr size_t value = sizeof...(F);
};
inline constexpr int kFunctorCount = static_cast<int>(Len<Functors>::value);

template<class F>
inline constexpr int kKindOf = indexIn<F>(Functors{});

// ---- applying a functor to one element
template<class M>
struct SigOf;
template<class F, class R, class... A>
struct SigOf<R (F::*)(A...) const>
{
    using Ret = R;
    using Args = List<std::remove_cv_t<std::remove_reference_t<A>>...>;
};

template<class F, class = void>
struct IsRaw : std::false_type
{ };
template<class F>
struct IsRaw<F, std::void_t<decltype(F::kRaw)>> : std::true_type
{ };

template<class F, class... A, size_t... K>
FXL_HD inline void applyTyped(const F& f, const Slot* slot, char* const* ptr, List<A...>, std::index_sequence<K...>)
{
    using R = typename SigOf<decltype(&F::operator())>::Ret;
    storeAs<R>(ptr[0], slot[0], f(loadAs<A>(ptr[K + 1], slot[K + 1])...));
}

// ptr[0] the output element, ptr[1..] the inputs'.
template<class F>
FXL_HD inline void apply(const F& f, const Slot* slot, char* const* ptr)
{
    if constexpr (IsRaw<F>::value) {
        f(ptr[0], ptr[1]);
    } else {
        using Args = typename SigOf<decltype(&F::operator())>::Args;
        applyTyped(f, slot, ptr, Args{}, std::make_index_sequence<Len<Args>::value>{});
    }
}

// The functor kept in a loop's state (copied out: the state's bytes are its object
// representation, written by deviceForm).
template<class F>
FXL_HD inline F functorOf(const Fn& fn)
{
    F f;
    std::memcpy(static_cast<void*>(&f), fn.state, sizeof(F));
    return f;
}

// ---- the device form of what the CPU runs
// Dev<F>::type: the listed functor F runs as; make(f) builds it; fillSlots(s) fills the slots.
template<class F>
struct Dev
{
    using type = F;
    static F make(const F& f) { return f; }
    template<class OutS, class... InS>
    static void fillSlots(Slot* s)
    {
        for (int k = 0; k < 4; ++k) s[k] = Slot::Raw;
    }
};
template<class OutS, class G, class... InS>
struct Dev<Lifted<OutS, G, InS...>>
{
    using type = G;
    static G make(const Lifted<OutS, G, InS...>& f) { return f.g; }
    template<class, class...>
    static void fillSlots(Slot* s)
    {
        const Slot all[] = {numSlot<OutS>(), numSlot<InS>()...};
        for (size_t k = 0; k < sizeof...(InS) + 1; ++k) s[k] = all[k];
    }
};
template<class OutS, class G, class... InS>
struct Dev<Stored<OutS, G, InS...>>
{
    using type = G;
    static G make(const Stored<OutS, G, InS...>& f) { return f.g; }
    template<class, class...>
    static void fillSlots(Slot* s)
    {
        // f32 / f64 stored as computed: the Raw slot; bf16 / f16 through Num
        const Slot out = math::kIsReduced<OutS> ? numSlot<OutS>() : Slot::Raw;
        const Slot all[] = {out, numSlot<InS>()...};
        for (size_t k = 0; k < sizeof...(InS) + 1; ++k) s[k] = all[k];
    }
};
template<class D, class S>
struct Dev<Convert<D, S>>
{
    using type = Cast;
    static Cast make(const Convert<D, S>&) { return Cast{dtypeOfStorage<S>(), dtypeOfStorage<D>()}; }
    template<class, class...>
    static void fillSlots(Slot* s)
    {
        for (int k = 0; k < 4; ++k) s[k] = Slot::Raw;
    }
};
template<class Out, class In>
struct Dev<ThroughDoubleBits<Out, In>>
{
    using type = ThroughDouble;
    static ThroughDouble make(const ThroughDoubleBits<Out, In>& f) { return ThroughDouble{f.from, f.to}; }
    template<class, class...>
    static void fillSlots(Slot* s)
    {
        for (int k = 0; k < 4; ++k) s[k] = Slot::Raw;
    }
};

template<class OutS, class... InS, class F>
Fn deviceForm(const F& f)
{
    using D = typename Dev<F>::type;
    constexpr int kind = kKindOf<D>;
    static_assert(kind >= 0, "a pointwise functor without a device form: list it in pw::Functors");
    static_assert(std::is_trivially_copyable_v<D> && sizeof(D) <= kStateBytes && alignof(D) <= 16);
    Fn fn;
    fn.kind = kind;
    const D d = Dev<F>::make(f);
    std::memcpy(fn.state, static_cast<const void*>(&d), sizeof(D));
    Dev<F>::template fillSlots<OutS, InS...>(fn.slot);
    return fn;
}

}  // namespace fxl::pw
