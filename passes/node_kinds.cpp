// Nodes that must not run twice (see node_kinds.hpp).
#include "passes/node_kinds.hpp"

#include <array>

#include "core/ops/op_writes.hpp"

namespace fxl {

namespace {

// "torch.ops._c10d_functional.all_reduce.default" -> "_c10d_functional"; "aten.mm" -> "aten".
std::string_view targetNamespace(std::string_view t)
{
    if (t.substr(0, 10) == "torch.ops.") t.remove_prefix(10);
    return t.substr(0, t.find('.'));
}

// The op's name without namespace and overload: "tg.log_tensor.default" -> "log_tensor".
std::string_view targetBaseName(std::string_view t)
{
    if (t.substr(0, 10) == "torch.ops.") t.remove_prefix(10);
    const size_t d1 = t.find('.');
    if (d1 == std::string_view::npos) return t;
    std::string_view rest = t.substr(d1 + 1);
    return rest.substr(0, rest.find('.'));
}

bool isCollectiveTarget(std::string_view t, const OpInfo* op)
{
    if (op && (op->has(kTraitCollective) || op->has(kTraitWait) || op->has(kTraitCommunication))) return true;
    const std::string_view ns = targetNamespace(t);
    if (ns == "_c10d_functional" || ns == "c10d_functional" || ns == "_c10d_functional_autograd" || ns == "c10d"
        || ns == "_c10d" || ns == "_dtensor")
        return true;
    if (t.find("torch.distributed.") != std::string_view::npos || t.rfind("distributed.", 0) == 0) return true;
    return targetBaseName(t) == "wait_tensor";
}

// Ops that log, print or profile: their effect is the call itself.
bool isLoggingName(std::string_view base)
{
    static constexpr std::array<std::string_view, 6> kNames = {
        "print", "_print", "record_function", "_record_function_enter", "_record_function_exit", "record_stream"};
    for (std::string_view n : kNames)
        if (base == n) return true;
    return base.find("log_tensor") != std::string_view::npos;
}

bool hasOutKwarg(const Node& n)
{
    for (const auto& kv : n.kwargs)
        if (kv.first == "out") return true;
    return false;
}

}  // namespace

std::string_view unreplayableName(Unreplayable k)
{
    switch (k) {
    case Unreplayable::None: return "";
    case Unreplayable::SideEffect: return "side effect";
    case Unreplayable::Collective: return "collective";
    case Unreplayable::Unknown: return "unknown op";
    }
    return "";
}

Unreplayable unreplayableKind(const Node& n, const OpRegistry& reg)
{
    switch (n.op) {
    case NodeOp::Placeholder:
    case NodeOp::GetAttr:
    case NodeOp::Output: return Unreplayable::None;
    case NodeOp::CallModule: return Unreplayable::SideEffect;  // a submodule may do anything
    case NodeOp::CallMethod:
        // Tensor methods ending in '_' mutate self (add_, copy_, ...)
        return writesInPlace(n, reg) ? Unreplayable::SideEffect : Unreplayable::None;
    case NodeOp::CallFunction: break;
    }
    if (n.isGetitem()) return Unreplayable::None;
    const OpInfo* op = reg.find(n.target);
    if (isCollectiveTarget(n.target, op)) return Unreplayable::Collective;
    const std::string_view base = targetBaseName(n.target);
    if (base == "auto_functionalized" || base == "auto_functionalized_v2" || base == "with_effects"
        || isLoggingName(base) || hasOutKwarg(n))
        return Unreplayable::SideEffect;
    const std::string normalized = OpRegistry::normalizeTarget(n.target);
    if (normalized.size() > 4 && normalized.ends_with(".out")) return Unreplayable::SideEffect;  // aten.add.out
    // what it writes in place (core/ops/op_writes: the schema's (a!), batch norm's running stats
    // in training, ...), known even for an op the registry lacks
    if (writesInPlace(n, reg)) return Unreplayable::SideEffect;
    if (!op) return Unreplayable::Unknown;
    if (op->has(kTraitSideEffect)) return Unreplayable::SideEffect;
    return Unreplayable::None;
}

void UnreplayableCounts::add(Unreplayable k, const std::string& name)
{
    switch (k) {
    case Unreplayable::None: return;
    case Unreplayable::SideEffect: sideEffect.push_back(name); return;
    case Unreplayable::Collective: collective.push_back(name); return;
    case Unreplayable::Unknown: unknown.push_back(name); return;
    }
}

std::string UnreplayableCounts::text(size_t maxNames) const
{
    std::string out;
    auto part = [&](const std::vector<std::string>& names, std::string_view what) {
        if (names.empty()) return;
        if (!out.empty()) out += ", ";
        out += std::to_string(names.size()) + " " + std::string(what) + " (";
        for (size_t i = 0; i < names.size() && i < maxNames; ++i) out += (i ? ", " : "") + names[i];
        if (names.size() > maxNames) out += ", ...";
        out += ")";
    };
    part(sideEffect, unreplayableName(Unreplayable::SideEffect));
    part(collective, unreplayableName(Unreplayable::Collective));
    part(unknown, unreplayableName(Unreplayable::Unknown));
    return out;
}

}  // namespace fxl
