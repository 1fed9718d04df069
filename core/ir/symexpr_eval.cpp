#include "core/ir/symexpr_eval.hpp"

#include <algorithm>

#include "core/ir/symexpr_node.hpp"

namespace fxl::symbolic {

namespace {

using Value = std::optional<int64_t>;

// The value of operand `i` of `n` (nullopt when missing or not computable).
Value operand(const SymNode& n, size_t i, const Env& env)
{
    if (i >= n.operands.size()) return std::nullopt;
    return eval(n.operands[i], env);
}

Value evalSymbol(const SymNode& n, const Env& env)
{
    auto it = env.find(n.name);
    if (it == env.end()) return std::nullopt;
    return it->second;
}

// Add and Mul, n-ary; nullopt on overflow.
Value evalSumOrProduct(const SymNode& n, const Env& env)
{
    int64_t acc = n.op == SymOp::Add ? 0 : 1;
    for (const auto& o : n.operands) {
        auto v = eval(o, env);
        if (!v) return std::nullopt;
        bool ovf = n.op == SymOp::Add ? __builtin_add_overflow(acc, *v, &acc) : __builtin_mul_overflow(acc, *v, &acc);
        if (ovf) return std::nullopt;
    }
    return acc;
}

// Neg, Pow, FloorDiv, CeilDiv, Mod and true division (a Call named "/", exact only).
Value evalArithmetic(const SymNode& n, const Env& env)
{
    auto a = operand(n, 0, env);
    if (!a) return std::nullopt;
    if (n.op == SymOp::Neg) {
        if (*a == INT64_MIN) return std::nullopt;
        return -*a;
    }
    auto b = operand(n, 1, env);
    if (!b) return std::nullopt;
    switch (n.op) {
    case SymOp::Pow: return checkedPow(*a, *b);
    case SymOp::FloorDiv: return pyFloorDiv(*a, *b);
    case SymOp::CeilDiv: {
        if (*a == INT64_MIN) return std::nullopt;
        auto q = pyFloorDiv(-*a, *b);
        if (!q || *q == INT64_MIN) return std::nullopt;
        return -*q;
    }
    case SymOp::Mod: return pyMod(*a, *b);
    default:  // "/"
        if (*b == 0 || (*a == INT64_MIN && *b == -1) || *a % *b != 0) return std::nullopt;
        return *a / *b;
    }
}

Value evalMinMax(const SymNode& n, const Env& env)
{
    if (n.operands.empty()) return std::nullopt;
    Value acc;
    for (const auto& o : n.operands) {
        auto v = eval(o, env);
        if (!v) return std::nullopt;
        acc = !acc ? *v : (n.op == SymOp::Max ? std::max(*acc, *v) : std::min(*acc, *v));
    }
    return acc;
}

// Comparisons give 1 or 0.
Value evalComparison(const SymNode& n, const Env& env)
{
    auto a = operand(n, 0, env), b = operand(n, 1, env);
    if (!a || !b) return std::nullopt;
    switch (n.op) {
    case SymOp::Eq: return *a == *b;
    case SymOp::Ne: return *a != *b;
    case SymOp::Lt: return *a < *b;
    case SymOp::Le: return *a <= *b;
    case SymOp::Gt: return *a > *b;
    default: return *a >= *b;
    }
}

// And, Or, Not over truth values (non-zero is true).
Value evalLogic(const SymNode& n, const Env& env)
{
    if (n.op == SymOp::Not) {
        auto a = operand(n, 0, env);
        if (!a) return std::nullopt;
        return *a == 0;
    }
    const bool isAnd = n.op == SymOp::And;
    bool acc = isAnd;
    for (const auto& o : n.operands) {
        auto v = eval(o, env);
        if (!v) return std::nullopt;
        acc = isAnd ? (acc && *v != 0) : (acc || *v != 0);
    }
    return acc;
}

}  // namespace

std::optional<int64_t> eval(const SymNodePtr& p, const Env& env)
{
    const SymNode& n = nd(p);
    switch (n.op) {
    case SymOp::Const: return n.value;
    case SymOp::FloatConst: return std::nullopt;
    case SymOp::Symbol: return evalSymbol(n, env);
    case SymOp::Add:
    case SymOp::Mul: return evalSumOrProduct(n, env);
    case SymOp::Neg:
    case SymOp::Pow:
    case SymOp::FloorDiv:
    case SymOp::CeilDiv:
    case SymOp::Mod: return evalArithmetic(n, env);
    case SymOp::Max:
    case SymOp::Min: return evalMinMax(n, env);
    case SymOp::Eq:
    case SymOp::Ne:
    case SymOp::Lt:
    case SymOp::Le:
    case SymOp::Gt:
    case SymOp::Ge: return evalComparison(n, env);
    case SymOp::And:
    case SymOp::Or:
    case SymOp::Not: return evalLogic(n, env);
    case SymOp::Call:
        if (n.name == "/" && n.operands.size() == 2) return evalArithmetic(n, env);
        return std::nullopt;
    }
    return std::nullopt;
}

void collectSymbols(const SymNodePtr& p, std::set<std::string>& out)
{
    const SymNode& n = nd(p);
    if (n.op == SymOp::Symbol) out.insert(n.name);
    for (const auto& o : n.operands) collectSymbols(o, out);
}

}  // namespace fxl::symbolic
