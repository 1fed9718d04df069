// What a node's value looks like: a tensor (dtype, sizes, strides, device), a tuple of
// values, a symbolic scalar, or nothing known.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/ir/dtype.hpp"
#include "core/ir/symexpr.hpp"

namespace fxl {

struct TensorMeta
{
    DType dtype = DType::F32;
    std::vector<SymInt> sizes;
    std::vector<SymInt> strides;  // empty when unknown (annotation printed without strides)
    SymInt storageOffset = 0;
    std::string device;  // "cpu", "cuda:0", "" when unknown

    bool hasStrides() const { return !strides.empty() || sizes.empty(); }
    int64_t numelHint() const;  // product of sizes (hints for symbolic ones)
    int64_t bytesHint() const;  // numel * item size
    bool operator==(const TensorMeta& o) const;
    bool operator!=(const TensorMeta& o) const { return !(*this == o); }
};

std::vector<SymInt> contiguousStrides(const std::vector<SymInt>& sizes);

struct ValueMeta
{
    enum class Kind : uint8_t
    {
        Unknown,  // no annotation / not computed
        None,  // the value is None (e.g. an op returning nothing)
        Tensor,
        Tuple,  // multi-output op: elems
        SymInt,  // "Sym(s0)"
        SymFloat,  // "Sym(s1 - 1.0)"
        SymBool,  // "Sym(u0 >= 0)"
        Opaque,  // an annotation we keep verbatim (e.g. "TwoTensor(f32[3, 4])" wrapper text)
    };
    Kind kind = Kind::Unknown;
    TensorMeta tensor;  // Kind::Tensor
    std::vector<ValueMeta> elems;  // Kind::Tuple
    SymExpr sym;  // SymInt/SymFloat/SymBool
    std::optional<int64_t> symHint;
    // Kind::Opaque: the full annotation text. For a tensor subclass annotation like
    // "TwoTensor(f32[3, 4])" kind is Tensor, tensor is the inner meta and wrapper is
    // "TwoTensor(" ... ")" so that printing gives the same text back.
    std::string wrapperPrefix, wrapperSuffix;
    std::string opaqueText;

    static ValueMeta unknown() { return {}; }
    static ValueMeta none()
    {
        ValueMeta v;
        v.kind = Kind::None;
        return v;
    }
    static ValueMeta ofTensor(TensorMeta t);
    static ValueMeta ofTuple(std::vector<ValueMeta> e);
    bool isTensor() const { return kind == Kind::Tensor; }
    bool operator==(const ValueMeta& o) const;
    bool operator!=(const ValueMeta& o) const { return !(*this == o); }
};

// The bytes a value's tensors take, numel * item size, the one rule for every byte count
// taken from meta (graph stats, the partitioner's cut weights and saved bytes):
//  - Tensor: concrete sizes as they are, symbolic sizes (s0, u0, ...) by their hint; nullopt
//    when a size has no hint or a negative one, or the product overflows int64. A view counts
//    its own extent, like any tensor (whether it shares storage is the caller's concern).
//  - Tuple: the sum of its elements; nullopt when any element is nullopt.
//  - None, SymInt, SymFloat, SymBool: 0 (no tensor storage).
//  - Unknown, Opaque: nullopt. Callers decide what unknown means (graph stats count the value
//    as "without meta", the partitioner as 0 bytes).
std::optional<int64_t> valueBytes(const ValueMeta& m);

// Parses an FX annotation (quotes already removed): "f32[8, 4]", "f32[8, 4][4, 1]cuda:0",
// "f32[]", "b8[s0, 3]", "Sym(s0)", "Sym(u0 >= 0)", "TwoTensor(f32[3, 4])".
// Throws InputError with column relative to the text on malformed input.
ValueMeta parseAnnotation(std::string_view text);
// Prints in the 2.5+ tlparse form: sizes, then strides when known, then device when known.
std::string formatAnnotation(const ValueMeta& m);

}  // namespace fxl
