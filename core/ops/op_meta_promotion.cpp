#include "core/ops/op_meta_promotion.hpp"

#include "core/ops/op_meta.hpp"

namespace fxl::meta {

Operand operandOf(const MetaCall& c, const Arg& a, std::string_view what)
{
    Operand o;
    switch (a.kind) {
    case Arg::Kind::Node: {
        const ValueMeta& v = c.metaOf(a.node);
        if (v.isTensor())
            o.tensor = &v.tensor;
        else if (v.kind == ValueMeta::Kind::SymInt)
            o.scalarType = DType::I64;
        else if (v.kind == ValueMeta::Kind::SymFloat)
            o.scalarType = DType::F64;
        else if (v.kind == ValueMeta::Kind::SymBool)
            o.scalarType = DType::Bool;
        else
            throw MetaError("argument '" + std::string(what) + "' has no meta");
        return o;
    }
    case Arg::Kind::Int: o.scalarType = DType::I64; return o;
    case Arg::Kind::Float: o.scalarType = DType::F64; return o;
    case Arg::Kind::Bool: o.scalarType = DType::Bool; return o;
    default: break;
    }
    throw MetaError("argument '" + std::string(what) + "' is neither a tensor nor a number");
}

DType defaultFloat() { return DType::F32; }

namespace {
DType toComplex(DType t)
{
    switch (t) {
    case DType::F16: return DType::C32;
    case DType::F64: return DType::C128;
    default: return DType::C64;
    }
}
DType combineCategories(DType higher, DType lower)
{
    if (isComplex(higher)) return higher;
    if (isComplex(lower)) {
        if (isFloatingPoint(higher)) return toComplex(higher);
        return lower;
    }
    if (isFloatingPoint(higher)) return higher;
    if (higher == DType::Bool || isFloatingPoint(lower)) return promoteTypes(higher, lower);
    if (higher != DType::Undefined) return higher;
    return lower;
}
}  // namespace

DType resultType(const std::vector<Operand>& ops)
{
    DType dimR = DType::Undefined, zeroR = DType::Undefined, wrappedR = DType::Undefined;
    for (const auto& o : ops) {
        if (o.tensor) {
            if (!o.tensor->sizes.empty())
                dimR = promoteTypes(dimR, o.tensor->dtype);
            else
                zeroR = promoteTypes(zeroR, o.tensor->dtype);
        } else {
            DType cur = o.scalarType;
            if (isComplex(cur))
                cur = DType::C64;
            else if (isFloatingPoint(cur))
                cur = defaultFloat();
            wrappedR = promoteTypes(wrappedR, cur);
        }
    }
    return combineCategories(dimR, combineCategories(zeroR, wrappedR));
}

DType applyPromotion(DType t, Promotion p)
{
    switch (p) {
    case Promotion::Default:
    case Promotion::NoOpMath: return t;
    case Promotion::IntToFloat: return isIntegral(t, true) ? defaultFloat() : t;
    case Promotion::AlwaysBool: return DType::Bool;
    case Promotion::ComplexToFloat:
        if (t == DType::C32) return DType::F16;
        if (t == DType::C64) return DType::F32;
        if (t == DType::C128) return DType::F64;
        return t;
    case Promotion::BoolToLong: return isIntegral(t, true) ? DType::I64 : t;
    }
    return t;
}

}  // namespace fxl::meta
