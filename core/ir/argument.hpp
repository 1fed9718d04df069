// The argument value tree of a node: node refs, scalars, strings, containers, and the
// torch objects FX prints inline (dtype, device, layout, memory format, op overloads).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/ir/dtype.hpp"

namespace fxl {

using NodeId = int32_t;
constexpr NodeId kNoNode = -1;

struct ArgPair;  // a dict entry; complete below (std::pair<Arg, Arg> would need a complete Arg)

struct Arg
{
    enum class Kind : uint8_t
    {
        None,
        Node,  // ref to another node of the same graph (node)
        Int,  // i (9223372036854775807 kept exactly)
        Float,  // f; inf / -inf / nan allowed
        Bool,  // b
        Str,  // s (unescaped)
        List,  // items, printed [...]
        Tuple,  // items, printed (...)
        Dict,  // dict: keys are Args (strings normally)
        DType,  // dtype
        Device,  // s = "cpu", "cuda:0", "cuda"
        Layout,  // s = "strided", "sparse_coo", ...
        MemoryFormat,  // s = "contiguous_format", "preserve_format", "channels_last", ...
        Op,  // s = qualified target "aten.mm.default", used as a value (auto_functionalized)
        Slice,  // items = {start, stop, step}
        Ellipsis,  // ...
        Raw,  // s = expression text we keep verbatim (e.g. "torch.Tensor(size=[2], dtype=float32)")
    };

    Kind kind = Kind::None;
    bool b = false;
    DType dtype = DType::Undefined;
    NodeId node = kNoNode;
    int64_t i = 0;
    double f = 0.0;
    std::string s;
    std::vector<Arg> items;
    std::vector<ArgPair> dict;

    static Arg none();
    static Arg ofNode(NodeId n);
    static Arg ofInt(int64_t v);
    static Arg ofFloat(double v);
    static Arg ofBool(bool v);
    static Arg ofStr(std::string v);
    static Arg ofList(std::vector<Arg> v);
    static Arg ofTuple(std::vector<Arg> v);
    static Arg ofDType(DType t);
    static Arg ofDevice(std::string d);
    static Arg ofLayout(std::string l);
    static Arg ofMemoryFormat(std::string m);
    static Arg ofOp(std::string qualifiedTarget);
    static Arg ofRaw(std::string text);

    bool isNode() const { return kind == Kind::Node; }
    bool isNone() const { return kind == Kind::None; }
    bool isSequence() const { return kind == Kind::List || kind == Kind::Tuple; }

    // Calls fn(NodeId) for every node reference inside, depth first, left to right.
    template<class F>
    void forEachNode(F&& fn) const;
    // Same, with mutable access (for rewiring).
    template<class F>
    void forEachNodeMut(F&& fn);

    // Exact equality; floats compare bitwise (so nan == nan, 0.0 != -0.0).
    bool operator==(const Arg& o) const;
    bool operator!=(const Arg& o) const { return !(*this == o); }
};

struct ArgPair
{
    Arg first;
    Arg second;
    ArgPair() = default;
    ArgPair(Arg k, Arg v)
        : first(std::move(k))
        , second(std::move(v))
    { }
    bool operator==(const ArgPair& o) const { return first == o.first && second == o.second; }
};

inline Arg Arg::none() { return Arg(); }

template<class F>
void Arg::forEachNode(F&& fn) const
{
    if (kind == Kind::Node) {
        fn(node);
        return;
    }
    for (const auto& a : items) a.forEachNode(fn);
    for (const auto& kv : dict) {
        kv.first.forEachNode(fn);
        kv.second.forEachNode(fn);
    }
}

template<class F>
void Arg::forEachNodeMut(F&& fn)
{
    if (kind == Kind::Node) {
        fn(node);
        return;
    }
    for (auto& a : items) a.forEachNodeMut(fn);
    for (auto& kv : dict) {
        kv.first.forEachNodeMut(fn);
        kv.second.forEachNodeMut(fn);
    }
}

// Python repr of a float as FX prints it: "1e-05", "0.7071067811865476", "3.0", "inf", "nan".
std::string pythonFloatRepr(double v);
// Python repr of a string: single quotes unless it contains ' and no ".
std::string pythonStrRepr(const std::string& s);

// The names of torch.layout ("strided", "sparse_coo", ...) and torch.memory_format
// ("contiguous_format", "channels_last", ...) values as FX prints them after "torch.".
bool isLayoutName(std::string_view s);
bool isMemoryFormatName(std::string_view s);

}  // namespace fxl
