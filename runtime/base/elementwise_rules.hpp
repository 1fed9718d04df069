// The device-independent rules of the elementwise operators (PyTorch's TensorIterator and
// c10 conventions), shared by every backend's kernels: dtype dispatch over the storage types
// (runtime/math/storage_types.hpp), Python numbers converted as c10 does (checked or not),
// type promotion (torch.result_type), and the output layouts (TensorIterator's strides,
// empty_like's preserve_format, memory formats, resize_).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "runtime/base/kernel.hpp"
#include "runtime/base/pointwise_fn.hpp"
#include "runtime/math/storage_types.hpp"

namespace fxl::ew {

using math::B8;
using math::BF16;
using math::BitsOf;
using math::convert;
using math::F16;
using math::kIsBool;
using math::kIsFloat;
using math::kIsInt;
using math::kIsReduced;
using math::Num;

template<class T>
struct Tag
{
    using type = T;
};

// ---- dtype dispatch: f(Tag<S>{}) with S the storage type of t.
enum class Set : uint8_t
{
    Float,
    Numeric,
    All
};

// The dtype of storage type S (one table for the host and the device: pointwise_fn.hpp).
template<class S>
constexpr DType dtypeOf()
{
    return pw::dtypeOfStorage<S>();
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

std::optional<DType> optDType(const KernelCall& call, const char* name);  // "dtype" arg (None -> nullopt)

}  // namespace fxl::ew
