#include "core/ops/op_meta_args.hpp"

#include <cctype>

#include "core/ops/op_meta.hpp"

namespace fxl::meta {

const TensorMeta& tensorOfArg(const MetaCall& c, const Arg& a, std::string_view what)
{
    if (!a.isNode()) throw MetaError("argument '" + std::string(what) + "' is not a tensor");
    const ValueMeta& v = c.metaOf(a.node);
    if (!v.isTensor()) throw MetaError("argument '" + std::string(what) + "' has no tensor meta");
    return v.tensor;
}

const TensorMeta& tensorOf(const MetaCall& c, std::string_view name) { return tensorOfArg(c, c.arg(name), name); }

const TensorMeta* optTensorOf(const MetaCall& c, std::string_view name)
{
    const Arg& a = c.arg(name);
    if (a.isNone()) return nullptr;
    return &tensorOfArg(c, a, name);
}

std::vector<const TensorMeta*> tensorListOf(const MetaCall& c, std::string_view name, bool allowNone)
{
    const Arg& a = c.arg(name);
    std::vector<const TensorMeta*> out;
    if (a.isNode()) {  // a single tensor where a list is expected
        out.push_back(&tensorOfArg(c, a, name));
        return out;
    }
    if (!a.isSequence()) throw MetaError("argument '" + std::string(name) + "' is not a list of tensors");
    out.reserve(a.items.size());
    for (const auto& it : a.items) {
        if (it.isNone() && allowNone)
            out.push_back(nullptr);
        else
            out.push_back(&tensorOfArg(c, it, name));
    }
    return out;
}

std::optional<int64_t> toOptInt(const MetaCall& c, const Arg& a, std::string_view what)
{
    if (a.isNone()) return std::nullopt;
    return toInt(c, a, what);
}

int64_t toInt(const MetaCall& c, const Arg& a, std::string_view what)
{
    switch (a.kind) {
    case Arg::Kind::Int: return a.i;
    case Arg::Kind::Bool: return a.b ? 1 : 0;
    case Arg::Kind::Float:
        if (a.f == static_cast<double>(static_cast<int64_t>(a.f))) return static_cast<int64_t>(a.f);
        break;
    case Arg::Kind::Node: {
        SymInt s = toSymInt(c, a, what);
        return hintOf(s, "int argument");
    }
    default: break;
    }
    throw MetaError("argument '" + std::string(what) + "' is not an int");
}

SymInt toSymInt(const MetaCall& c, const Arg& a, std::string_view what)
{
    switch (a.kind) {
    case Arg::Kind::Int: return a.i;
    case Arg::Kind::Bool: return a.b ? 1 : 0;
    case Arg::Kind::Node: {
        const ValueMeta& v = c.metaOf(a.node);
        if (v.kind == ValueMeta::Kind::SymInt) return normalize(SymInt(v.sym, v.symHint));
        // a 0-dim integer tensor used as a size (rare): unknown value
        throw MetaError("argument '" + std::string(what) + "' is not a symbolic int");
    }
    case Arg::Kind::Raw:
    case Arg::Kind::Str: try { return normalize(parseSymInt(a.s));
        } catch (const std::exception&) {
            break;
        }
    default: break;
    }
    throw MetaError("argument '" + std::string(what) + "' is not an int");
}

Sizes toSymInts(const MetaCall& c, const Arg& a, std::string_view what)
{
    Sizes out;
    if (a.isSequence()) {
        out.reserve(a.items.size());
        for (const auto& it : a.items) out.push_back(toSymInt(c, it, what));
        return out;
    }
    if (a.isNone()) return out;
    out.push_back(toSymInt(c, a, what));  // int[1] given as a single int
    return out;
}

std::vector<int64_t> toInts(const MetaCall& c, const Arg& a, std::string_view what)
{
    std::vector<int64_t> out;
    if (a.isSequence()) {
        out.reserve(a.items.size());
        for (const auto& it : a.items) out.push_back(toInt(c, it, what));
        return out;
    }
    if (a.isNone()) return out;
    out.push_back(toInt(c, a, what));
    return out;
}

double toDouble(const Arg& a, std::string_view what)
{
    switch (a.kind) {
    case Arg::Kind::Int: return static_cast<double>(a.i);
    case Arg::Kind::Float: return a.f;
    case Arg::Kind::Bool: return a.b ? 1.0 : 0.0;
    default: break;
    }
    throw MetaError("argument '" + std::string(what) + "' is not a number");
}

bool toBool(const Arg& a, std::string_view what)
{
    if (a.kind == Arg::Kind::Bool) return a.b;
    if (a.kind == Arg::Kind::Int) return a.i != 0;
    throw MetaError("argument '" + std::string(what) + "' is not a bool");
}

std::optional<DType> toOptDType(const Arg& a)
{
    if (a.kind == Arg::Kind::DType) return a.dtype;
    if (a.kind == Arg::Kind::Str || a.kind == Arg::Kind::Raw) {
        std::string_view s = a.s;
        if (s.rfind("torch.", 0) == 0) s.remove_prefix(6);
        if (auto t = dtypeFromTorchName(s)) return t;
    }
    return std::nullopt;
}

std::string deviceOf(const Arg& a, const std::string& fallback)
{
    if (a.kind == Arg::Kind::Device || a.kind == Arg::Kind::Str) return a.s;
    return fallback;
}

std::string memoryFormatOf(const Arg& a)
{
    if (a.kind == Arg::Kind::MemoryFormat || a.kind == Arg::Kind::Str) {
        std::string s = a.s;
        if (s.rfind("torch.", 0) == 0) s.erase(0, 6);
        return s;
    }
    return {};
}

bool hasArg(const MetaCall& c, std::string_view name)
{
    if (!c.op) return false;
    int i = c.op->schema.argIndex(name);
    return i >= 0 && static_cast<size_t>(i) < c.bound.size() && !c.bound[static_cast<size_t>(i)].isNone();
}

int64_t intArg(const MetaCall& c, std::string_view name) { return toInt(c, c.arg(name), name); }
SymInt symArg(const MetaCall& c, std::string_view name) { return toSymInt(c, c.arg(name), name); }
Sizes symListArg(const MetaCall& c, std::string_view name) { return toSymInts(c, c.arg(name), name); }
std::vector<int64_t> intListArg(const MetaCall& c, std::string_view name) { return toInts(c, c.arg(name), name); }

}  // namespace fxl::meta
