#include "core/ir/symexpr_canon.hpp"

#include <algorithm>
#include <stdexcept>

#include "core/ir/symexpr_node.hpp"

namespace fxl::symbolic {

namespace {

// term = coefficient * rest (rest null for a pure number)
void splitTerm(const SymNodePtr& t, Coef& c, SymNodePtr& rest)
{
    const SymNode& n = nd(t);
    if (isNum(t)) {
        c = Coef::of(t);
        rest = nullptr;
        return;
    }
    if (n.op == SymOp::Mul && !n.operands.empty() && isNum(n.operands[0])) {
        c = Coef::of(n.operands[0]);
        if (n.operands.size() == 2) {
            rest = n.operands[1];
        } else {
            rest = mkNode(SymOp::Mul, std::vector<SymNodePtr>(n.operands.begin() + 1, n.operands.end()));
        }
        return;
    }
    c = Coef{};
    rest = t;
}

SymNodePtr withCoef(const Coef& c, const SymNodePtr& rest)
{
    if (!rest) return c.node();
    if (c.isIntOne()) return rest;
    if (c.isZero()) return mkConst(0);
    std::vector<SymNodePtr> ops{c.node()};
    if (nd(rest).op == SymOp::Mul) {
        ops.insert(ops.end(), nd(rest).operands.begin(), nd(rest).operands.end());
    } else {
        ops.push_back(rest);
    }
    return mkNode(SymOp::Mul, std::move(ops));
}

// Factor lists of a term for the lex monomial order: (base, integer exponent), sorted by sortCmp.
void monomial(const SymNodePtr& rest, std::vector<std::pair<SymNodePtr, int64_t>>& out)
{
    out.clear();
    if (!rest) return;
    auto addFactor = [&](const SymNodePtr& f) {
        const SymNode& n = nd(f);
        if (n.op == SymOp::Pow && isInt(n.operands[1]))
            out.emplace_back(n.operands[0], nd(n.operands[1]).value);
        else
            out.emplace_back(f, 1);
    };
    if (nd(rest).op == SymOp::Mul) {
        for (const auto& f : nd(rest).operands) addFactor(f);
    } else {
        addFactor(rest);
    }
    std::sort(out.begin(), out.end(), [](const auto& x, const auto& y) { return sortCmp(x.first, y.first) < 0; });
}

// A term with its coefficient and monomial computed once for sorting.
struct TermKey
{
    SymNodePtr term;
    Coef coef;
    std::vector<std::pair<SymNodePtr, int64_t>> mono;
};

// sympy's Add.as_ordered_terms with order=None ('lex'): higher powers of the first generator
// first, numbers last.
bool termLess(const TermKey& a, const TermKey& b)
{
    const auto& ma = a.mono;
    const auto& mb = b.mono;
    size_t i = 0, j = 0;
    while (i < ma.size() || j < mb.size()) {
        int c;
        if (i == ma.size())
            c = 1;
        else if (j == mb.size())
            c = -1;
        else
            c = sortCmp(ma[i].first, mb[j].first);
        int64_t ea = 0, eb = 0;
        if (c <= 0) ea = ma[i].second;
        if (c >= 0) eb = mb[j].second;
        if (ea != eb) return ea > eb;
        if (c <= 0) ++i;
        if (c >= 0) ++j;
    }
    if (a.coef.asDouble() != b.coef.asDouble()) return a.coef.asDouble() < b.coef.asDouble();
    return structCmp(a.term, b.term) < 0;
}

// Sorts by structure and merges equal keys with `merge(into, from)`; O(n log n).
template<typename T, typename Key, typename Merge>
void sortAndMerge(std::vector<T>& items, Key key, Merge merge)
{
    std::stable_sort(items.begin(), items.end(), [&](const T& a, const T& b) { return structCmp(key(a), key(b)) < 0; });
    size_t out = 0;
    for (size_t i = 0; i < items.size(); ++i) {
        if (out > 0 && structEq(key(items[out - 1]), key(items[i]))) {
            merge(items[out - 1], items[i]);
        } else {
            if (out != i) items[out] = std::move(items[i]);
            ++out;
        }
    }
    items.resize(out);
}

// Integer-valued for every integer assignment of the symbols (so k*t can be pulled out of a
// floor division).
bool isIntegerValued(const SymNodePtr& p)
{
    const SymNode& n = nd(p);
    switch (n.op) {
    case SymOp::Const:
    case SymOp::Symbol:
    case SymOp::FloorDiv:
    case SymOp::CeilDiv: return true;
    case SymOp::Add:
    case SymOp::Mul:
    case SymOp::Max:
    case SymOp::Min:
    case SymOp::Mod: return std::all_of(n.operands.begin(), n.operands.end(), isIntegerValued);
    case SymOp::Pow: return isIntegerValued(n.operands[0]) && isInt(n.operands[1]) && nd(n.operands[1]).value >= 0;
    default: return false;
    }
}

// Splits `a` into (sum of terms divisible by k, each divided by k) and the remaining terms.
void splitDivisible(const SymNodePtr& a, int64_t k, std::vector<SymNodePtr>& quotient,
                    std::vector<SymNodePtr>& remainder)
{
    std::vector<SymNodePtr> terms;
    if (nd(a).op == SymOp::Add)
        terms = nd(a).operands;
    else
        terms.push_back(a);
    for (const auto& t : terms) {
        Coef c;
        SymNodePtr rest;
        splitTerm(t, c, rest);
        if (!c.isFloat && (!rest || isIntegerValued(rest)) && k != -1 && c.i % k == 0) {
            quotient.push_back(withCoef(Coef::of(mkConst(c.i / k)), rest));
        } else if (!c.isFloat && k == -1 && c.i != INT64_MIN && (!rest || isIntegerValued(rest))) {
            quotient.push_back(withCoef(Coef::of(mkConst(-c.i)), rest));
        } else {
            remainder.push_back(t);
        }
    }
}

bool isTrueDiv(const SymNodePtr& p)
{
    return nd(p).op == SymOp::Call && nd(p).name == "/" && nd(p).operands.size() == 2;
}

}  // namespace

SymNodePtr buildAdd(std::vector<SymNodePtr> in)
{
    std::vector<SymNodePtr> terms;
    terms.reserve(in.size());
    for (auto& t : in) {
        if (nd(t).op == SymOp::Add) {
            terms.insert(terms.end(), nd(t).operands.begin(), nd(t).operands.end());
        } else {
            terms.push_back(std::move(t));
        }
    }
    Coef constant = Coef::zero();
    bool haveConstant = false;
    std::vector<std::pair<SymNodePtr, Coef>> collected;  // rest -> summed coefficient
    collected.reserve(terms.size());
    for (const auto& t : terms) {
        Coef c;
        SymNodePtr rest;
        splitTerm(t, c, rest);
        if (!rest) {
            if (!haveConstant)
                constant = c;
            else
                constant.add(c);
            haveConstant = true;
            continue;
        }
        collected.emplace_back(std::move(rest), std::move(c));
    }
    sortAndMerge(
        collected, [](const auto& p) -> const SymNodePtr& { return p.first; },
        [](auto& into, const auto& from) { into.second.add(from.second); });
    std::vector<TermKey> keyed;
    keyed.reserve(collected.size());
    for (const auto& [rest, c] : collected) {
        if (c.isZero()) continue;
        TermKey k{withCoef(c, rest), c, {}};
        monomial(rest, k.mono);
        keyed.push_back(std::move(k));
    }
    std::sort(keyed.begin(), keyed.end(), termLess);
    std::vector<SymNodePtr> out;
    out.reserve(keyed.size() + 1);
    for (auto& k : keyed) out.push_back(std::move(k.term));
    if (haveConstant && !constant.isZero()) out.push_back(constant.node());
    if (out.empty()) return (haveConstant && constant.isFloat) ? mkFloat(0.0) : mkConst(0);
    if (out.size() == 1) return out[0];
    return mkNode(SymOp::Add, std::move(out));
}

SymNodePtr buildPow(const SymNodePtr& base, const SymNodePtr& exp)
{
    if (isInt(exp)) {
        int64_t e = nd(exp).value;
        if (e == 0) return mkConst(1);
        if (e == 1) return base;
        if (isInt(base) && e > 0) return mkConst(wrapPow(nd(base).value, e));
        if (nd(base).op == SymOp::Pow && isInt(nd(base).operands[1]))
            return buildPow(nd(base).operands[0], mkConst(wrapMul(nd(nd(base).operands[1]).value, e)));
    }
    if (isIntVal(base, 1)) return mkConst(1);
    return mkNode(SymOp::Pow, {base, exp});
}

SymNodePtr buildMul(std::vector<SymNodePtr> in)
{
    std::vector<SymNodePtr> factors;
    factors.reserve(in.size());
    for (auto& f : in) {
        if (nd(f).op == SymOp::Mul) {
            factors.insert(factors.end(), nd(f).operands.begin(), nd(f).operands.end());
        } else {
            factors.push_back(std::move(f));
        }
    }
    Coef coef;
    int numbers = 0;
    std::vector<std::pair<SymNodePtr, int64_t>> powers;  // base -> integer exponent
    powers.reserve(factors.size());
    for (const auto& f : factors) {
        if (isNum(f)) {
            if (numbers++ == 0)
                coef = Coef::of(f);
            else
                coef.mul(Coef::of(f));
            continue;
        }
        if (nd(f).op == SymOp::Pow && isInt(nd(f).operands[1]))
            powers.emplace_back(nd(f).operands[0], nd(nd(f).operands[1]).value);
        else
            powers.emplace_back(f, 1);
    }
    sortAndMerge(
        powers, [](const auto& p) -> const SymNodePtr& { return p.first; },
        [](auto& into, const auto& from) { into.second = wrapAdd(into.second, from.second); });
    if (coef.isZero()) return mkConst(0);
    std::vector<SymNodePtr> rest;
    for (const auto& [b, e] : powers) {
        SymNodePtr p = buildPow(b, mkConst(e));
        if (isNum(p)) {
            coef.mul(Coef::of(p));
        } else if (nd(p).op == SymOp::Mul) {  // never produced by buildPow, kept for safety
            rest.insert(rest.end(), nd(p).operands.begin(), nd(p).operands.end());
        } else {
            rest.push_back(p);
        }
    }
    if (coef.isZero()) return mkConst(0);
    // sympy distributes a number over a single sum: 2*(s0 + 1) -> 2*s0 + 2
    if (rest.size() == 1 && nd(rest[0]).op == SymOp::Add && !coef.isIntOne()) {
        std::vector<SymNodePtr> terms;
        for (const auto& t : nd(rest[0]).operands) terms.push_back(buildMul({coef.node(), t}));
        return buildAdd(std::move(terms));
    }
    if (rest.empty()) return coef.node();
    std::sort(rest.begin(), rest.end(), [](const auto& a, const auto& b) { return sortCmp(a, b) < 0; });
    if (coef.isIntOne() && rest.size() == 1) return rest[0];
    std::vector<SymNodePtr> ops;
    ops.reserve(rest.size() + 1);
    if (!coef.isIntOne()) ops.push_back(coef.node());
    ops.insert(ops.end(), rest.begin(), rest.end());
    return mkNode(SymOp::Mul, std::move(ops));
}

SymNodePtr buildNeg(const SymNodePtr& a) { return buildMul({mkConst(-1), a}); }

SymNodePtr buildFloorDiv(const SymNodePtr& a, const SymNodePtr& b)
{
    if (isInt(a) && isInt(b)) {
        if (auto q = pyFloorDiv(nd(a).value, nd(b).value)) return mkConst(*q);
        if (nd(b).value != 0) return mkConst(wrapNeg(nd(a).value));  // INT64_MIN // -1 wraps
    }
    if (isIntVal(b, 1)) return a;
    if (isIntVal(a, 0) && !isIntVal(b, 0)) return a;
    if (isInt(b) && nd(b).value != 0 && isIntegerValued(a)) {
        int64_t k = nd(b).value;
        // ((x // c) // k) == x // (c * k) for positive divisors
        if (k > 0 && nd(a).op == SymOp::FloorDiv && isInt(nd(a).operands[1]) && nd(nd(a).operands[1]).value > 0) {
            int64_t ck;
            if (!__builtin_mul_overflow(nd(nd(a).operands[1]).value, k, &ck))
                return buildFloorDiv(nd(a).operands[0], mkConst(ck));
        }
        std::vector<SymNodePtr> q, r;
        splitDivisible(a, k, q, r);
        if (!q.empty()) {
            if (r.empty()) return buildAdd(std::move(q));
            q.push_back(buildFloorDiv(buildAdd(std::move(r)), b));
            return buildAdd(std::move(q));
        }
    }
    return mkNode(SymOp::FloorDiv, {a, b});
}

SymNodePtr buildCeilDiv(const SymNodePtr& a, const SymNodePtr& b)
{
    if (isInt(a) && isInt(b)) {
        if (auto q = pyFloorDiv(wrapNeg(nd(a).value), nd(b).value)) return mkConst(wrapNeg(*q));
    }
    if (isIntVal(b, 1)) return a;
    if (isIntVal(a, 0) && !isIntVal(b, 0)) return a;
    if (isInt(b) && nd(b).value != 0 && isIntegerValued(a)) {
        std::vector<SymNodePtr> q, r;
        splitDivisible(a, nd(b).value, q, r);
        if (!q.empty()) {
            if (r.empty()) return buildAdd(std::move(q));
            q.push_back(buildCeilDiv(buildAdd(std::move(r)), b));
            return buildAdd(std::move(q));
        }
    }
    return mkNode(SymOp::CeilDiv, {a, b});
}

SymNodePtr buildMod(const SymNodePtr& a, const SymNodePtr& b)
{
    if (isInt(a) && isInt(b)) {
        if (auto r = pyMod(nd(a).value, nd(b).value)) return mkConst(*r);
    }
    if ((isIntVal(b, 1) || isIntVal(b, -1)) && isIntegerValued(a)) return mkConst(0);
    if (isIntVal(a, 0) && !isIntVal(b, 0)) return a;
    if (isInt(b) && nd(b).value != 0 && isIntegerValued(a)) {
        std::vector<SymNodePtr> q, r;
        splitDivisible(a, nd(b).value, q, r);
        if (!q.empty()) {
            if (r.empty()) return mkConst(0);
            return buildMod(buildAdd(std::move(r)), b);
        }
    }
    return mkNode(SymOp::Mod, {a, b});
}

SymNodePtr buildMinMax(SymOp op, std::vector<SymNodePtr> in)
{
    std::vector<SymNodePtr> args;
    std::optional<int64_t> folded;
    for (auto& a : in) {
        const std::vector<SymNodePtr> single{a};
        const auto& flat = nd(a).op == op ? nd(a).operands : single;
        for (const auto& f : flat) {
            if (isInt(f)) {
                int64_t v = nd(f).value;
                folded = !folded ? v : (op == SymOp::Max ? std::max(*folded, v) : std::min(*folded, v));
                continue;
            }
            args.push_back(f);
        }
    }
    sortAndMerge(
        args, [](const SymNodePtr& p) -> const SymNodePtr& { return p; }, [](auto&, const auto&) {});
    if (folded) args.push_back(mkConst(*folded));
    if (args.empty()) return mkNode(op, {});
    if (args.size() == 1) return args[0];
    std::sort(args.begin(), args.end(), [](const auto& a, const auto& b) { return sortCmp(a, b) < 0; });
    return mkNode(op, std::move(args));
}

SymNodePtr buildBool(SymOp op, std::vector<SymNodePtr> in)
{
    std::vector<SymNodePtr> args;
    for (auto& a : in) {
        if (nd(a).op == op)
            args.insert(args.end(), nd(a).operands.begin(), nd(a).operands.end());
        else
            args.push_back(a);
    }
    sortAndMerge(
        args, [](const SymNodePtr& p) -> const SymNodePtr& { return p; }, [](auto&, const auto&) {});
    if (args.size() == 1) return args[0];
    std::sort(args.begin(), args.end(), [](const auto& a, const auto& b) { return sortCmp(a, b) < 0; });
    return mkNode(op, std::move(args));
}

// "a/b": true division only appears inside floor()/ceiling() in practice; kept as a call
// named "/" printed infix.
SymNodePtr buildTrueDiv(const SymNodePtr& a, const SymNodePtr& b)
{
    if (isIntVal(b, 1)) return a;
    if (isInt(a) && isInt(b) && nd(b).value != 0 && nd(b).value != -1 && nd(a).value % nd(b).value == 0)
        return mkConst(nd(a).value / nd(b).value);
    return mkNode(SymOp::Call, {a, b}, "/");
}

// Function application by name, as printed by sympy / PyTorch.
SymNodePtr buildCall(const std::string& name, std::vector<SymNodePtr> args)
{
    size_t n = args.size();
    if (n == 2 && (name == "FloorDiv" || name == "CleanDiv")) return buildFloorDiv(args[0], args[1]);
    if (n == 2 && name == "CeilDiv") return buildCeilDiv(args[0], args[1]);
    if (n == 1 && name == "floor" && isTrueDiv(args[0]))
        return buildFloorDiv(nd(args[0]).operands[0], nd(args[0]).operands[1]);
    if (n == 1 && name == "ceiling" && isTrueDiv(args[0]))
        return buildCeilDiv(nd(args[0]).operands[0], nd(args[0]).operands[1]);
    if (n == 2 && name == "Mod") return buildMod(args[0], args[1]);
    if (n >= 1 && name == "Max") return buildMinMax(SymOp::Max, std::move(args));
    if (n >= 1 && name == "Min") return buildMinMax(SymOp::Min, std::move(args));
    if (n == 2 && name == "Eq") return mkNode(SymOp::Eq, std::move(args));
    if (n == 2 && name == "Ne") return mkNode(SymOp::Ne, std::move(args));
    if (n == 2 && name == "Lt") return mkNode(SymOp::Lt, std::move(args));
    if (n == 2 && name == "Le") return mkNode(SymOp::Le, std::move(args));
    if (n == 2 && name == "Gt") return mkNode(SymOp::Gt, std::move(args));
    if (n == 2 && name == "Ge") return mkNode(SymOp::Ge, std::move(args));
    if (n >= 1 && name == "And") return buildBool(SymOp::And, std::move(args));
    if (n >= 1 && name == "Or") return buildBool(SymOp::Or, std::move(args));
    if (n == 1 && name == "Not") return mkNode(SymOp::Not, std::move(args));
    return mkNode(SymOp::Call, std::move(args), name);
}

// Rebuilds any tree (e.g. one assembled by hand) through the canonicalising builders.
SymNodePtr canon(const SymNodePtr& p, int depth)
{
    if (!p) return mkConst(0);
    if (depth > 10000) throw std::length_error("symbolic expression nested too deeply");
    const SymNode& n = nd(p);
    std::vector<SymNodePtr> ops;
    ops.reserve(n.operands.size());
    for (const auto& o : n.operands) ops.push_back(canon(o, depth + 1));
    auto arg = [&](size_t i) { return i < ops.size() ? ops[i] : mkConst(0); };
    switch (n.op) {
    case SymOp::Const: return mkConst(n.value);
    case SymOp::FloatConst: return mkFloat(n.fvalue, n.name);
    case SymOp::Symbol: return mkSymbol(n.name);
    case SymOp::Add: return buildAdd(std::move(ops));
    case SymOp::Mul: return buildMul(std::move(ops));
    case SymOp::FloorDiv: return buildFloorDiv(arg(0), arg(1));
    case SymOp::CeilDiv: return buildCeilDiv(arg(0), arg(1));
    case SymOp::Mod: return buildMod(arg(0), arg(1));
    case SymOp::Pow: return buildPow(arg(0), arg(1));
    case SymOp::Max:
    case SymOp::Min: return ops.empty() ? mkNode(n.op, {}) : buildMinMax(n.op, std::move(ops));
    case SymOp::Neg: return buildNeg(arg(0));
    case SymOp::And:
    case SymOp::Or: return ops.empty() ? mkNode(n.op, {}) : buildBool(n.op, std::move(ops));
    case SymOp::Call:
        if (n.name == "/" && ops.size() == 2) return buildTrueDiv(ops[0], ops[1]);
        return buildCall(n.name, std::move(ops));
    default: return mkNode(n.op, std::move(ops), n.name);
    }
}

}  // namespace fxl::symbolic
