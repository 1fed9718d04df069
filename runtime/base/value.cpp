#include "runtime/base/value.hpp"

#include <stdexcept>

namespace fxl {

Value Value::ofTensor(fxl::Tensor t)
{
    Value v;
    v.kind = Kind::Tensor;
    v.tensor = std::move(t);
    return v;
}
Value Value::ofInt(int64_t x)
{
    Value v;
    v.kind = Kind::Int;
    v.i = x;
    return v;
}
Value Value::ofFloat(double x)
{
    Value v;
    v.kind = Kind::Float;
    v.f = x;
    return v;
}
Value Value::ofBool(bool x)
{
    Value v;
    v.kind = Kind::Bool;
    v.b = x;
    return v;
}
Value Value::ofList(std::vector<Value> x)
{
    Value v;
    v.kind = Kind::List;
    v.items = std::move(x);
    return v;
}

double Value::toDouble() const
{
    switch (kind) {
    case Kind::Int: return static_cast<double>(i);
    case Kind::Float: return f;
    case Kind::Bool: return b ? 1.0 : 0.0;
    default: throw std::invalid_argument("expected a number");
    }
}

int64_t Value::toInt() const
{
    switch (kind) {
    case Kind::Int: return i;
    case Kind::Bool: return b ? 1 : 0;
    default: throw std::invalid_argument("expected an integer");
    }
}

std::vector<int64_t> Value::toIntList() const
{
    if (kind == Kind::Int) return {i};
    if (kind != Kind::List) throw std::invalid_argument("expected a list of integers");
    std::vector<int64_t> out;
    out.reserve(items.size());
    for (const auto& v : items) out.push_back(v.toInt());
    return out;
}

Value Value::ofConstant(const Arg& a)
{
    Value v;
    switch (a.kind) {
    case Arg::Kind::None: return v;
    case Arg::Kind::Int: return ofInt(a.i);
    case Arg::Kind::Float: return ofFloat(a.f);
    case Arg::Kind::Bool: return ofBool(a.b);
    case Arg::Kind::List:
    case Arg::Kind::Tuple: {
        std::vector<Value> items;
        items.reserve(a.items.size());
        for (const auto& x : a.items) items.push_back(ofConstant(x));
        return ofList(std::move(items));
    }
    case Arg::Kind::Str:
        v.kind = Kind::Str;
        v.s = a.s;
        return v;
    case Arg::Kind::DType:
        v.kind = Kind::DType;
        v.dtype = a.dtype;
        return v;
    case Arg::Kind::Device:
        v.kind = Kind::Device;
        v.s = a.s;
        return v;
    case Arg::Kind::Layout:
        v.kind = Kind::Layout;
        v.s = a.s;
        return v;
    case Arg::Kind::MemoryFormat:
        v.kind = Kind::MemoryFormat;
        v.s = a.s;
        return v;
    case Arg::Kind::Op:
        v.kind = Kind::Op;
        v.s = a.s;
        return v;
    case Arg::Kind::Node: throw std::invalid_argument("node reference");
    default: throw std::invalid_argument("argument form without a constant value (slice, ellipsis, dict or raw text)");
    }
}

void Value::resetTo(Value& dst, Kind kind)
{
    dst.kind = kind;
    dst.tensor = fxl::Tensor();
    dst.i = 0;
    dst.f = 0.0;
    dst.b = false;
    dst.s.clear();
    dst.dtype = fxl::DType::Undefined;
}

void Value::assignCopy(Value& dst, const Value& src)
{
    if (src.kind == Kind::List) {
        dst = src;
        return;
    }
    dst.kind = src.kind;
    dst.tensor = src.tensor;
    dst.i = src.i;
    dst.f = src.f;
    dst.b = src.b;
    if (!src.s.empty() || !dst.s.empty()) dst.s = src.s;
    dst.dtype = src.dtype;
    dst.items.clear();
}

void Value::assignScalar(Value& dst, Value&& src)
{
    if (src.kind == Kind::List) {
        dst = std::move(src);
        return;
    }
    dst.kind = src.kind;
    dst.tensor = std::move(src.tensor);
    dst.i = src.i;
    dst.f = src.f;
    dst.b = src.b;
    dst.s = std::move(src.s);
    dst.dtype = src.dtype;
    dst.items.clear();
}

}  // namespace fxl
