// Type promotion of the meta functions: torch.result_type over tensors and wrapped Python
// scalars, and the per-op promotion kinds of torch/_prims_common.
#pragma once

#include <string_view>
#include <vector>

#include "core/ops/op_registry.hpp"

namespace fxl::meta {

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

}  // namespace fxl::meta
