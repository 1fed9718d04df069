// Runtime values: what a node evaluates to and what kernels receive as arguments. Mirrors
// the IR's argument tree (core/ir/argument.hpp) with node references replaced by their values.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/ir/argument.hpp"
#include "core/ir/dtype.hpp"
#include "runtime/base/tensor.hpp"

namespace fxl {

struct Value
{
    enum class Kind : uint8_t
    {
        None,
        Tensor,
        Int,
        Float,
        Bool,
        Str,
        List,
        DType,
        Device,
        Layout,
        MemoryFormat,
        Op
    };
    Kind kind = Kind::None;
    fxl::Tensor tensor;  // Tensor
    int64_t i = 0;  // Int (SymInt values too)
    double f = 0.0;  // Float
    bool b = false;  // Bool
    std::string s;  // Str, Device, Layout, MemoryFormat, Op
    fxl::DType dtype = fxl::DType::Undefined;
    std::vector<Value> items;  // List / tuple (multi-output results)

    static Value none() { return {}; }
    static Value ofTensor(fxl::Tensor t);
    static Value ofInt(int64_t v);
    static Value ofFloat(double v);
    static Value ofBool(bool v);
    static Value ofList(std::vector<Value> v);

    // Makes `dst` a value of `kind` with its scalar fields at their defaults and no tensor; its
    // items are left as they are (a list's capacity is reused when it is refilled).
    static void resetTo(Value& dst, Kind kind);
    // dst = src, keeping the capacity of dst's items when src is not a list.
    static void assignScalar(Value& dst, Value&& src);
    // dst = src, keeping the capacity of dst's items; cheaper than operator= for a tensor.
    static void assignCopy(Value& dst, const Value& src);

    bool isNone() const { return kind == Kind::None; }
    bool isTensor() const { return kind == Kind::Tensor; }
    // Int, Float or Bool as a double / int (throws std::invalid_argument otherwise).
    double toDouble() const;
    int64_t toInt() const;
    std::vector<int64_t> toIntList() const;  // List of Int (or a single Int)

    // The value of a constant argument of the IR (numbers, strings, dtypes, devices, op
    // overloads, lists of those). Throws std::invalid_argument for what has no constant value:
    // a node reference (message "node reference"), a slice, an ellipsis, a dict, raw text.
    static Value ofConstant(const Arg& a);
};

// A list value's items; any other value as a list of one.
inline std::vector<Value> itemsOf(Value v)
{
    if (v.kind == Value::Kind::List) return std::move(v.items);
    std::vector<Value> one;
    one.push_back(std::move(v));
    return one;
}

}  // namespace fxl
