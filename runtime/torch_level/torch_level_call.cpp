#include "runtime/torch_level/torch_level_call.hpp"

#include <algorithm>
#include <map>
#include <mutex>

namespace fxl::torch_level {

namespace {

// A schema default as a value (None for a form without one).
Value defaultValue(const Arg& a)
{
    try {
        return Value::ofConstant(a);
    } catch (const std::invalid_argument&) {
        return Value::none();
    }
}

// A default in a signature ("None", "1", "1e-05", "'none'", ...) as a value.
Value literal(const std::string& t)
{
    if (t == "None") return Value::none();
    if (t == "True") return Value::ofBool(true);
    if (t == "False") return Value::ofBool(false);
    if (t == "[]") return Value::ofList({});
    if (t.size() >= 2 && t.front() == '\'') {
        Value v;
        v.kind = Value::Kind::Str;
        v.s = t.substr(1, t.size() - 2);
        return v;
    }
    if (t == "contiguous_format") {
        Value v;
        v.kind = Value::Kind::MemoryFormat;
        v.s = t;
        return v;
    }
    if (t.find_first_of(".e") != std::string::npos) return Value::ofFloat(std::stod(t));
    return Value::ofInt(std::stoll(t));
}

}  // namespace

// The cache is a std::map: its entries keep their addresses.
const Aten* findAten(const std::string& name)
{
    static std::mutex mu;
    static std::map<std::string, Aten> cache;
    std::lock_guard<std::mutex> lock(mu);
    auto it = cache.find(name);
    if (it != cache.end()) return it->second.op ? &it->second : nullptr;
    Aten& a = cache[name];
    a.op = OpRegistry::instance().find(name);
    if (!a.op) return nullptr;
    for (const auto& sa : a.op->schema.args)
        a.defaults.push_back(sa.defaultText ? defaultValue(parseDefaultValue(sa)) : Value::none());
    return &a;
}

const Aten& aten(const std::string& name)
{
    const Aten* a = findAten(name);
    if (!a) throw KernelError("the op registry has no " + name);
    return *a;
}

std::vector<Param> parseSignature(const std::string& sig)
{
    std::vector<Param> out;
    bool kwOnly = false;
    size_t at = 0;
    while (at < sig.size()) {
        size_t end = sig.find(',', at);
        if (end == std::string::npos) end = sig.size();
        std::string p = sig.substr(at, end - at);
        at = end + 1;
        p.erase(0, p.find_first_not_of(' '));
        p.erase(p.find_last_not_of(' ') + 1);
        if (p.empty()) continue;
        if (p == "*") {
            kwOnly = true;
            continue;
        }
        Param q;
        q.kwOnly = kwOnly;
        if (p[0] == '*') {
            q.varargs = true;
            p.erase(0, 1);
            kwOnly = true;
        }
        if (p[0] == '~') {
            q.raw = true;
            p.erase(0, 1);
        }
        const size_t eq = p.find('=');
        if (eq != std::string::npos) {
            q.hasDefault = true;
            q.def = literal(p.substr(eq + 1));
            p = p.substr(0, eq);
        }
        q.name = p;
        out.push_back(std::move(q));
    }
    return out;
}

Value intList(const std::vector<int64_t>& v)
{
    std::vector<Value> items;
    for (int64_t x : v) items.push_back(intValue(x));
    return Value::ofList(std::move(items));
}
bool isNumber(const Value& v)
{
    return v.kind == Value::Kind::Int || v.kind == Value::Kind::Float || v.kind == Value::Kind::Bool;
}
Value dtypeValue(DType d)
{
    Value v;
    v.kind = Value::Kind::DType;
    v.dtype = d;
    return v;
}

Value sizeList(const Value& varargs)
{
    if (varargs.items.size() == 1 && varargs.items[0].kind == Value::Kind::List) return varargs.items[0];
    return varargs;
}

int64_t wrapDim(int64_t d, int64_t rank)
{
    const int64_t r = std::max<int64_t>(rank, 1);
    if (d < -r || d >= r)
        throw KernelError("dimension " + std::to_string(d) + " out of range for a " + std::to_string(rank)
                          + "-d tensor");
    return d < 0 ? d + r : d;
}

}  // namespace fxl::torch_level
