// Building blocks shared by the meta (shape) functions in op_meta*.cpp: symbolic size
// arithmetic that keeps hints, argument readers, broadcasting, type promotion and
// PyTorch's output-stride rules (TensorIterator, empty_like with preserve_format).
// Internal to core: include only from op_meta*.cpp and shape_prop.cpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/ops/op_registry.hpp"

namespace fxl::meta {

using Sizes = std::vector<SymInt>;

// ---- symbolic arithmetic (concrete fast paths; symbolic results carry a hint) ----
SymInt add(const SymInt& a, const SymInt& b);
SymInt sub(const SymInt& a, const SymInt& b);
SymInt mul(const SymInt& a, const SymInt& b);
SymInt floorDiv(const SymInt& a, const SymInt& b);
SymInt ceilDiv(const SymInt& a, const SymInt& b);
// a / b where b is known to divide a: cancels common factors ("16*u0*64 / 64" -> "16*u0").
SymInt exactDiv(const SymInt& a, const SymInt& b);
SymInt minS(const SymInt& a, const SymInt& b);
SymInt maxS(const SymInt& a, const SymInt& b);
// Turns an expression that folds to a constant into a concrete SymInt.
SymInt normalize(SymInt s);
// Value or hint; throws MetaError naming `what` when a symbolic value has no hint.
int64_t hintOf(const SymInt& s, const char* what = "size");
bool hasUnbacked(const SymInt& s);  // mentions an unbacked symbol (u0, u1, ...)
// Equality the way PyTorch guards it: structural, else by hints (backed symbols guard on
// their hint). Unbacked expressions compare equal only structurally or when both hints
// agree (the tracer asserts equality there).
bool guardEq(const SymInt& a, const SymInt& b);
bool guardEq(const SymInt& a, int64_t b);
// size == 1, size-oblivious for unbacked sizes (an unbacked size is never 1).
bool isOne(const SymInt& s);
// Comparison by hint (a < b).
bool hintLt(const SymInt& a, const SymInt& b);
SymInt product(const Sizes& s, size_t from = 0, size_t to = SIZE_MAX);

// ---- layout helpers ----
Sizes contiguous(const Sizes& sizes);
bool isContiguous(const TensorMeta& t);
bool isChannelsLastContiguous(const TensorMeta& t);  // 4-d and 5-d only
bool isNonOverlappingAndDense(const TensorMeta& t);
bool isChannelsLastStrides(const TensorMeta& t);  // suggest_memory_format() == channels_last
Sizes channelsLastStrides(const Sizes& sizes);  // 4-d / 5-d
// Strides of empty_like(t) for a memory_format ("preserve_format" when empty).
Sizes stridesLike(const TensorMeta& t, std::string_view memoryFormat);
// Strides of a new tensor of `sizes` in memory format (contiguous / channels_last ...).
Sizes stridesFor(const Sizes& sizes, std::string_view memoryFormat);

int64_t wrapDim(int64_t dim, int64_t ndim, bool allowScalar = true);

// ---- argument readers ----
const TensorMeta& tensorOf(const MetaCall& c, std::string_view name);
const TensorMeta* optTensorOf(const MetaCall& c, std::string_view name);  // nullptr for None
const TensorMeta& tensorOfArg(const MetaCall& c, const Arg& a, std::string_view what);
std::vector<const TensorMeta*> tensorListOf(const MetaCall& c, std::string_view name, bool allowNone = false);
int64_t toInt(const MetaCall& c, const Arg& a, std::string_view what);
std::optional<int64_t> toOptInt(const MetaCall& c, const Arg& a, std::string_view what);
SymInt toSymInt(const MetaCall& c, const Arg& a, std::string_view what);
Sizes toSymInts(const MetaCall& c, const Arg& a, std::string_view what);
std::vector<int64_t> toInts(const MetaCall& c, const Arg& a, std::string_view what);
double toDouble(const Arg& a, std::string_view what);
bool toBool(const Arg& a, std::string_view what);
std::optional<DType> toOptDType(const Arg& a);
std::string deviceOf(const Arg& a, const std::string& fallback);
std::string memoryFormatOf(const Arg& a);  // "" for None
int64_t intArg(const MetaCall& c, std::string_view name);
SymInt symArg(const MetaCall& c, std::string_view name);
Sizes symListArg(const MetaCall& c, std::string_view name);
std::vector<int64_t> intListArg(const MetaCall& c, std::string_view name);
bool hasArg(const MetaCall& c, std::string_view name);  // present in schema and not None

// ---- type promotion ----
// One operand of a pointwise op: a tensor, or a Python scalar (wrapped number).
struct Operand
{
    const TensorMeta* tensor = nullptr;
    DType scalarType = DType::Undefined;  // Bool / I64 / F64 / C128 for scalars
};
Operand operandOf(const MetaCall& c, const Arg& a, std::string_view what);
// torch.result_type over tensors and wrapped scalars (dim>0 > zero-dim > scalar priority).
DType resultType(const std::vector<Operand>& ops);
enum class Promotion
{
    Default,
    IntToFloat,
    AlwaysBool,
    ComplexToFloat,
    NoOpMath,
    BoolToLong
};
DType applyPromotion(DType computed, Promotion p);
DType defaultFloat();  // torch.get_default_dtype() == float32

// ---- shapes ----
Sizes broadcastShapes(const std::vector<const Sizes*>& shapes);
// Strides of TensorIterator's output for inputs broadcast to `shape`.
// `scalarOperand`: a wrapped Python scalar is one of TensorIterator's operands (it
// defeats the same-shape fast setup).
Sizes iteratorStrides(const Sizes& shape, const std::vector<const TensorMeta*>& inputs, bool scalarOperand = false);
// compute_elementwise_output_strides from torch/_prims_common.
Sizes primsElementwiseStrides(const Sizes& shape, const std::vector<const TensorMeta*>& inputs);
std::string deviceOfInputs(const std::vector<const TensorMeta*>& inputs);

// One table of meta functions per operator group (op_meta_<group>.cpp registers into it).
using MetaTable = std::unordered_map<std::string, MetaFn>;

// Convenience
TensorMeta makeTensor(DType dt, Sizes sizes, Sizes strides, std::string device);
TensorMeta makeContiguous(DType dt, Sizes sizes, std::string device);
inline ValueMeta tensorValue(TensorMeta t) { return ValueMeta::ofTensor(std::move(t)); }

}  // namespace fxl::meta
