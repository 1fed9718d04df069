#include "core/ir/symexpr.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <set>
#include <stdexcept>

#include "core/ir/diagnostics.hpp"

namespace fxl {

namespace {

// ---------------------------------------------------------------------------------------
// Node construction helpers. Every SymExpr goes through the canonicalising builders below,
// so structural equality of trees is the canonical equality of expressions.

const SymNodePtr& zeroNode()
{
    static const SymNodePtr z = std::make_shared<const SymNode>();
    return z;
}

const SymNode& nd(const SymNodePtr& p) { return p ? *p : *zeroNode(); }
const SymNodePtr& orZero(const SymNodePtr& p) { return p ? p : zeroNode(); }

SymNodePtr mkConst(int64_t v)
{
    auto n = std::make_shared<SymNode>();
    n->op = SymOp::Const;
    n->value = v;
    return n;
}

// `spelling` keeps the literal as written ("1.0", "1.00000000000000") so printing gives
// the same text back; computed floats print in Python's shortest repr.
SymNodePtr mkFloat(double f, std::string spelling = {})
{
    auto n = std::make_shared<SymNode>();
    n->op = SymOp::FloatConst;
    n->fvalue = f;
    n->name = std::move(spelling);
    return n;
}

SymNodePtr mkSymbol(std::string name)
{
    auto n = std::make_shared<SymNode>();
    n->op = SymOp::Symbol;
    n->name = std::move(name);
    return n;
}

SymNodePtr mkNode(SymOp op, std::vector<SymNodePtr> operands, std::string name = {})
{
    auto n = std::make_shared<SymNode>();
    n->op = op;
    n->operands = std::move(operands);
    n->name = std::move(name);
    return n;
}

bool isInt(const SymNodePtr& p) { return nd(p).op == SymOp::Const; }
bool isFloatNode(const SymNodePtr& p) { return nd(p).op == SymOp::FloatConst; }
bool isNum(const SymNodePtr& p) { return isInt(p) || isFloatNode(p); }
bool isIntVal(const SymNodePtr& p, int64_t v) { return isInt(p) && nd(p).value == v; }
bool isRelational(SymOp op) { return op >= SymOp::Eq && op <= SymOp::Ge; }

// Wrapping integer arithmetic: folding never has undefined behaviour; evaluate() uses the
// checked variants instead.
int64_t wrapAdd(int64_t a, int64_t b) { return int64_t(uint64_t(a) + uint64_t(b)); }
int64_t wrapMul(int64_t a, int64_t b) { return int64_t(uint64_t(a) * uint64_t(b)); }
int64_t wrapNeg(int64_t a) { return int64_t(0 - uint64_t(a)); }

// Python semantics: floor division rounds to -inf, the remainder takes the divisor's sign.
std::optional<int64_t> pyFloorDiv(int64_t a, int64_t b)
{
    if (b == 0) return std::nullopt;
    if (a == INT64_MIN && b == -1) return std::nullopt;
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
    return q;
}
std::optional<int64_t> pyMod(int64_t a, int64_t b)
{
    if (b == 0) return std::nullopt;
    if (b == -1) return 0;
    int64_t r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
}
std::optional<int64_t> checkedPow(int64_t base, int64_t exp)
{
    if (exp < 0) {
        if (base == 1) return 1;
        if (base == -1) return (exp % 2 == 0) ? 1 : -1;
        return std::nullopt;
    }
    int64_t result = 1;
    while (exp > 0) {
        if (exp & 1) {
            if (__builtin_mul_overflow(result, base, &result)) return std::nullopt;
        }
        exp >>= 1;
        if (exp > 0 && __builtin_mul_overflow(base, base, &base)) return std::nullopt;
    }
    return result;
}
int64_t wrapPow(int64_t base, int64_t exp)
{  // exp >= 0
    uint64_t r = 1, b = uint64_t(base);
    auto e = uint64_t(exp);
    while (e) {
        if (e & 1) r *= b;
        b *= b;
        e >>= 1;
    }
    return int64_t(r);
}

// ---------------------------------------------------------------------------------------
// Orders.

// A total structural order; equal (0) exactly when the trees are identical.
int structCmp(const SymNodePtr& pa, const SymNodePtr& pb)
{
    const SymNode& a = nd(pa);
    const SymNode& b = nd(pb);
    if (&a == &b) return 0;
    if (a.op != b.op) return a.op < b.op ? -1 : 1;
    switch (a.op) {
    case SymOp::Const: return a.value < b.value ? -1 : (a.value > b.value ? 1 : 0);
    case SymOp::FloatConst:
        // NaN never comes out of the parser; compare bit-patterns-free
        if (a.fvalue < b.fvalue) return -1;
        if (a.fvalue > b.fvalue) return 1;
        return 0;
    case SymOp::Symbol: return a.name.compare(b.name) < 0 ? -1 : (a.name == b.name ? 0 : 1);
    default: break;
    }
    if (int c = a.name.compare(b.name); c != 0) return c < 0 ? -1 : 1;
    if (a.operands.size() != b.operands.size()) return a.operands.size() < b.operands.size() ? -1 : 1;
    for (size_t i = 0; i < a.operands.size(); ++i)
        if (int c = structCmp(a.operands[i], b.operands[i]); c != 0) return c;
    return 0;
}

bool structEq(const SymNodePtr& a, const SymNodePtr& b) { return structCmp(a, b) == 0; }

std::string_view funcName(const SymNode& n)
{
    switch (n.op) {
    case SymOp::FloorDiv: return "FloorDiv";
    case SymOp::CeilDiv: return "CeilDiv";
    case SymOp::Mod: return "Mod";
    case SymOp::Max: return "Max";
    case SymOp::Min: return "Min";
    case SymOp::Call: return n.name;
    default: return "";
    }
}

// Approximates sympy's default_sort_key class ranks: numbers, symbols, Add/Mul/Pow,
// functions, then booleans.
int classRank(const SymNode& n)
{
    switch (n.op) {
    case SymOp::Const:
    case SymOp::FloatConst: return 1;
    case SymOp::Symbol: return 2;
    case SymOp::Add:
    case SymOp::Mul:
    case SymOp::Pow:
    case SymOp::Neg: return 3;
    case SymOp::FloorDiv:
    case SymOp::CeilDiv:
    case SymOp::Mod:
    case SymOp::Max:
    case SymOp::Min:
    case SymOp::Call: return 4;
    default: return 5;
    }
}

// The order sympy uses for Mul factors, Max/Min arguments and Add generators.
int sortCmp(const SymNodePtr& pa, const SymNodePtr& pb)
{
    // Pow sorts by its base, then its exponent (Expr.sort_key)
    SymNodePtr ba = pa, bb = pb, ea, eb;
    if (nd(pa).op == SymOp::Pow) ba = nd(pa).operands[0], ea = nd(pa).operands[1];
    if (nd(pb).op == SymOp::Pow) bb = nd(pb).operands[0], eb = nd(pb).operands[1];
    const SymNode& a = nd(ba);
    const SymNode& b = nd(bb);
    int ra = classRank(a), rb = classRank(b);
    if (ra != rb) return ra < rb ? -1 : 1;
    if (ra == 1) {
        double va = a.op == SymOp::Const ? double(a.value) : a.fvalue;
        double vb = b.op == SymOp::Const ? double(b.value) : b.fvalue;
        if (va != vb) return va < vb ? -1 : 1;
    } else if (ra == 2) {
        if (int c = a.name.compare(b.name); c != 0) return c < 0 ? -1 : 1;
    } else if (ra == 4) {
        if (int c = funcName(a).compare(funcName(b)); c != 0) return c < 0 ? -1 : 1;
    }
    if (ra >= 3 && &a != &b) {
        if (a.op != b.op) return a.op < b.op ? -1 : 1;
        if (a.operands.size() != b.operands.size()) return a.operands.size() < b.operands.size() ? -1 : 1;
        for (size_t i = 0; i < a.operands.size(); ++i)
            if (int c = sortCmp(a.operands[i], b.operands[i]); c != 0) return c;
    }
    if (ea || eb) {
        SymNodePtr one = mkConst(1);
        if (int c = sortCmp(ea ? ea : one, eb ? eb : one); c != 0) return c;
    }
    return structCmp(pa, pb);
}

// ---------------------------------------------------------------------------------------
// Numeric coefficients (int or float).

struct Coef
{
    bool isFloat = false;
    int64_t i = 1;
    double f = 1.0;
    std::string spelling;  // kept only when a single literal passes through untouched

    static Coef of(const SymNodePtr& p)
    {
        Coef c;
        if (isFloatNode(p)) {
            c.isFloat = true;
            c.f = nd(p).fvalue;
            c.spelling = nd(p).name;
        } else {
            c.i = nd(p).value;
        }
        return c;
    }
    static Coef zero()
    {
        Coef c;
        c.i = 0;
        return c;
    }
    double asDouble() const { return isFloat ? f : double(i); }
    bool isZero() const { return isFloat ? f == 0.0 : i == 0; }
    bool isIntOne() const { return !isFloat && i == 1; }
    bool isNegative() const { return isFloat ? f < 0 : i < 0; }
    void add(const Coef& o)
    {
        if (isFloat || o.isFloat) {
            f = asDouble() + o.asDouble();
            isFloat = true;
        } else {
            i = wrapAdd(i, o.i);
        }
        spelling.clear();
    }
    void mul(const Coef& o)
    {
        // "-1.0" parses as -1 * 1.0: keep the literal's spelling through a sign change
        if (isFloat && !o.isFloat && (o.i == 1 || o.i == -1)) {
            f *= double(o.i);
            if (o.i == -1) negateSpelling();
            return;
        }
        if (o.isFloat && !isFloat && (i == 1 || i == -1)) {
            bool neg = i == -1;
            *this = o;
            if (neg) {
                f = -f;
                negateSpelling();
            }
            return;
        }
        if (isFloat || o.isFloat) {
            f = asDouble() * o.asDouble();
            isFloat = true;
        } else {
            i = wrapMul(i, o.i);
        }
        spelling.clear();
    }
    void negateSpelling()
    {
        if (spelling.empty()) return;
        if (spelling[0] == '-')
            spelling.erase(0, 1);
        else
            spelling.insert(0, 1, '-');
    }
    SymNodePtr node() const { return isFloat ? mkFloat(f, spelling) : mkConst(i); }
};

// ---------------------------------------------------------------------------------------
// Canonicalising builders.

SymNodePtr buildMul(std::vector<SymNodePtr> factors);
SymNodePtr buildAdd(std::vector<SymNodePtr> terms);

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

bool isTrueDiv(const SymNodePtr& p)
{
    return nd(p).op == SymOp::Call && nd(p).name == "/" && nd(p).operands.size() == 2;
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
SymNodePtr canon(const SymNodePtr& p, int depth = 0)
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

// ---------------------------------------------------------------------------------------
// Printing (sympy StrPrinter rules with PyTorch's FloorDiv printer).

constexpr double kPrecOr = 20, kPrecAnd = 30, kPrecRel = 35, kPrecFloorDiv = 35, kPrecBitOr = 36, kPrecBitAnd = 38,
                 kPrecAdd = 40, kPrecMul = 50, kPrecPow = 60, kPrecFunc = 70, kPrecNot = 100, kPrecAtom = 1000;

double precedence(const SymNode& n)
{
    switch (n.op) {
    case SymOp::Const: return n.value < 0 ? kPrecAdd : kPrecAtom;
    case SymOp::FloatConst: return n.fvalue < 0 ? kPrecAdd : kPrecAtom;
    case SymOp::Symbol: return kPrecAtom;
    case SymOp::Add: return kPrecAdd;
    case SymOp::Mul: {
        if (!n.operands.empty() && isNum(n.operands[0]) && Coef::of(n.operands[0]).isNegative()) return kPrecAdd;
        return kPrecMul;
    }
    case SymOp::Neg: return kPrecAdd;
    case SymOp::Pow: return kPrecPow;
    case SymOp::FloorDiv: return kPrecFloorDiv;
    case SymOp::Call: return n.name == "/" ? kPrecMul : kPrecFunc;
    case SymOp::CeilDiv:
    case SymOp::Mod:
    case SymOp::Max:
    case SymOp::Min: return kPrecFunc;
    case SymOp::And: return kPrecAnd;
    case SymOp::Or: return kPrecOr;
    // "~" binds like unary minus in Python: tighter than "*", looser than "**"
    case SymOp::Not: return kPrecMul + 5;
    default: return kPrecRel;
    }
}

std::string formatFloat(double f)
{
    if (std::isnan(f)) return "nan";
    if (std::isinf(f)) return f < 0 ? "-oo" : "oo";
    char buf[64];
    auto res = std::to_chars(buf, buf + sizeof buf, f);
    std::string s(buf, res.ptr);
    if (s.find_first_of(".en") == std::string::npos) s += ".0";
    return s;
}

void print(const SymNodePtr& p, std::string& out);

void parenthesize(const SymNodePtr& p, double level, std::string& out, bool strict = false)
{
    double prec = precedence(nd(p));
    if (prec < level || (!strict && prec <= level)) {
        out += '(';
        print(p, out);
        out += ')';
    } else {
        print(p, out);
    }
}

void printArgs(const std::vector<SymNodePtr>& ops, std::string& out)
{
    for (size_t i = 0; i < ops.size(); ++i) {
        if (i) out += ", ";
        print(ops[i], out);
    }
}

void printAdd(const SymNode& n, std::string& out)
{
    std::vector<SymNodePtr> terms = n.operands;
    // sympy's special case: "1 - s0" rather than "-s0 + 1"
    if (terms.size() == 2 && isNum(terms[1]) && !Coef::of(terms[1]).isNegative() && !Coef::of(terms[1]).isZero()
        && nd(terms[0]).op == SymOp::Mul && nd(terms[0]).operands.size() == 2 && isNum(nd(terms[0]).operands[0])
        && Coef::of(nd(terms[0]).operands[0]).isNegative())
        std::swap(terms[0], terms[1]);
    bool first = true;
    for (const auto& t : terms) {
        std::string s;
        print(t, s);
        bool neg = false;
        // only a negative coefficient becomes " - " (sympy tests the printed text, which would
        // misread a term like "-x <= y")
        bool negCoef = (isNum(t) && Coef::of(t).isNegative())
            || (nd(t).op == SymOp::Mul && !nd(t).operands.empty() && isNum(nd(t).operands[0])
                && Coef::of(nd(t).operands[0]).isNegative());
        if (negCoef && !s.empty() && s[0] == '-') {
            neg = true;
            s.erase(0, 1);
        }
        if (first) {
            if (neg) out += '-';
        } else {
            out += neg ? " - " : " + ";
        }
        first = false;
        if (precedence(nd(t)) < kPrecAdd || nd(t).op == SymOp::Add) {
            out += '(';
            out += s;
            out += ')';
        } else {
            out += s;
        }
    }
}

void printMul(const SymNode& n, std::string& out)
{
    std::vector<SymNodePtr> factors;
    size_t start = 0;
    if (!n.operands.empty() && isNum(n.operands[0])) {
        Coef c = Coef::of(n.operands[0]);
        start = 1;
        if (c.isNegative()) {
            out += '-';
            if (c.isFloat) {
                c.f = -c.f;
                c.negateSpelling();
            } else {
                c.i = wrapNeg(c.i);
            }
        }
        if (!c.isIntOne()) factors.push_back(c.node());
    }
    factors.insert(factors.end(), n.operands.begin() + long(start), n.operands.end());
    if (factors.empty()) factors.push_back(mkConst(1));
    for (size_t i = 0; i < factors.size(); ++i) {
        if (i) out += '*';
        parenthesize(factors[i], kPrecMul, out);
    }
}

void print(const SymNodePtr& p, std::string& out)
{
    const SymNode& n = nd(p);
    auto bin = [&](size_t i) -> const SymNodePtr& {
        static const SymNodePtr missing = mkSymbol("?");
        return i < n.operands.size() ? n.operands[i] : missing;
    };
    switch (n.op) {
    case SymOp::Const: out += std::to_string(n.value); return;
    case SymOp::FloatConst: out += n.name.empty() ? formatFloat(n.fvalue) : n.name; return;
    case SymOp::Symbol: out += n.name; return;
    case SymOp::Add: printAdd(n, out); return;
    case SymOp::Mul: printMul(n, out); return;
    case SymOp::Neg:
        out += '-';
        parenthesize(bin(0), kPrecMul, out);
        return;
    case SymOp::Pow:
        parenthesize(bin(0), kPrecPow, out);
        out += "**";
        parenthesize(bin(1), kPrecPow, out);
        return;
    case SymOp::FloorDiv:
        // torch.utils._sympy.functions.FloorDiv._sympystr
        out += '(';
        parenthesize(bin(0), kPrecAtom - 0.5, out);
        out += "//";
        parenthesize(bin(1), kPrecAtom - 0.5, out);
        out += ')';
        return;
    case SymOp::CeilDiv:
        out += "ceiling(";
        parenthesize(bin(0), kPrecMul, out, true);
        out += '/';
        parenthesize(bin(1), kPrecMul, out);
        out += ')';
        return;
    case SymOp::Eq:
    case SymOp::Ne:
        out += n.op == SymOp::Eq ? "Eq(" : "Ne(";
        printArgs(n.operands, out);
        out += ')';
        return;
    case SymOp::Lt:
    case SymOp::Le:
    case SymOp::Gt:
    case SymOp::Ge: {
        static const char* const ops[] = {" < ", " <= ", " > ", " >= "};
        parenthesize(bin(0), kPrecRel, out);
        out += ops[int(n.op) - int(SymOp::Lt)];
        parenthesize(bin(1), kPrecRel, out);
        return;
    }
    case SymOp::And:
    case SymOp::Or: {
        if (n.operands.empty()) {
            out += n.op == SymOp::And ? "And()" : "Or()";
            return;
        }
        double level = n.op == SymOp::And ? kPrecBitAnd : kPrecBitOr;
        for (size_t i = 0; i < n.operands.size(); ++i) {
            if (i) out += n.op == SymOp::And ? " & " : " | ";
            parenthesize(n.operands[i], level, out);
        }
        return;
    }
    case SymOp::Not:
        out += '~';
        parenthesize(bin(0), kPrecNot, out);
        return;
    case SymOp::Call:
        if (n.name == "/" && n.operands.size() == 2) {
            parenthesize(n.operands[0], kPrecMul, out, true);
            out += '/';
            parenthesize(n.operands[1], kPrecMul, out);
            return;
        }
        [[fallthrough]];
    case SymOp::Mod:
    case SymOp::Max:
    case SymOp::Min:
        out += funcName(n);
        out += '(';
        printArgs(n.operands, out);
        out += ')';
        return;
    }
}

// ---------------------------------------------------------------------------------------
// Evaluation with Python integer semantics; nullopt on overflow / division by zero / floats.

using Env = std::map<std::string, int64_t>;

std::optional<int64_t> eval(const SymNodePtr& p, const Env& env)
{
    const SymNode& n = nd(p);
    auto arg = [&](size_t i) -> std::optional<int64_t> {
        if (i >= n.operands.size()) return std::nullopt;
        return eval(n.operands[i], env);
    };
    switch (n.op) {
    case SymOp::Const: return n.value;
    case SymOp::FloatConst: return std::nullopt;
    case SymOp::Symbol: {
        auto it = env.find(n.name);
        if (it == env.end()) return std::nullopt;
        return it->second;
    }
    case SymOp::Add:
    case SymOp::Mul: {
        int64_t acc = n.op == SymOp::Add ? 0 : 1;
        for (const auto& o : n.operands) {
            auto v = eval(o, env);
            if (!v) return std::nullopt;
            bool ovf =
                n.op == SymOp::Add ? __builtin_add_overflow(acc, *v, &acc) : __builtin_mul_overflow(acc, *v, &acc);
            if (ovf) return std::nullopt;
        }
        return acc;
    }
    case SymOp::Neg: {
        auto a = arg(0);
        if (!a || *a == INT64_MIN) return std::nullopt;
        return -*a;
    }
    case SymOp::Pow: {
        auto a = arg(0), b = arg(1);
        if (!a || !b) return std::nullopt;
        return checkedPow(*a, *b);
    }
    case SymOp::FloorDiv: {
        auto a = arg(0), b = arg(1);
        if (!a || !b) return std::nullopt;
        return pyFloorDiv(*a, *b);
    }
    case SymOp::CeilDiv: {
        auto a = arg(0), b = arg(1);
        if (!a || !b || *a == INT64_MIN) return std::nullopt;
        auto q = pyFloorDiv(-*a, *b);
        if (!q || *q == INT64_MIN) return std::nullopt;
        return -*q;
    }
    case SymOp::Mod: {
        auto a = arg(0), b = arg(1);
        if (!a || !b) return std::nullopt;
        return pyMod(*a, *b);
    }
    case SymOp::Max:
    case SymOp::Min: {
        if (n.operands.empty()) return std::nullopt;
        std::optional<int64_t> acc;
        for (const auto& o : n.operands) {
            auto v = eval(o, env);
            if (!v) return std::nullopt;
            acc = !acc ? *v : (n.op == SymOp::Max ? std::max(*acc, *v) : std::min(*acc, *v));
        }
        return acc;
    }
    case SymOp::Eq:
    case SymOp::Ne:
    case SymOp::Lt:
    case SymOp::Le:
    case SymOp::Gt:
    case SymOp::Ge: {
        auto a = arg(0), b = arg(1);
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
    case SymOp::And:
    case SymOp::Or: {
        bool isAnd = n.op == SymOp::And;
        bool acc = isAnd;
        for (const auto& o : n.operands) {
            auto v = eval(o, env);
            if (!v) return std::nullopt;
            acc = isAnd ? (acc && *v != 0) : (acc || *v != 0);
        }
        return acc;
    }
    case SymOp::Not: {
        auto a = arg(0);
        if (!a) return std::nullopt;
        return *a == 0;
    }
    case SymOp::Call: {
        if (n.name == "/" && n.operands.size() == 2) {
            auto a = arg(0), b = arg(1);
            if (!a || !b || *b == 0 || (*a == INT64_MIN && *b == -1) || *a % *b != 0) return std::nullopt;
            return *a / *b;
        }
        return std::nullopt;
    }
    }
    return std::nullopt;
}

void collectSymbols(const SymNodePtr& p, std::set<std::string>& out)
{
    const SymNode& n = nd(p);
    if (n.op == SymOp::Symbol) out.insert(n.name);
    for (const auto& o : n.operands) collectSymbols(o, out);
}

// ---------------------------------------------------------------------------------------
// Parser: Python expression precedence, since sympy prints valid Python.

class Parser
{
public:
    explicit Parser(std::string_view t)
        : text_(t)
    { }

    SymNodePtr parseAll()
    {
        skipSpace();
        if (pos_ >= text_.size()) fail("expected an expression");
        SymNodePtr e = parseComparison();
        skipSpace();
        if (pos_ < text_.size())
            fail(std::string("expected an operator or end of expression, got '") + text_[pos_] + "'");
        return e;
    }

private:
    std::string_view text_;
    size_t pos_ = 0;
    int depth_ = 0;

    [[noreturn]] void fail(const std::string& msg) const { failAt(pos_, msg); }
    [[noreturn]] void failAt(size_t pos, const std::string& msg) const
    {
        throw InputError("<expr>", 1, int(std::min(pos, text_.size())) + 1, msg);
    }

    void skipSpace()
    {
        while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t')) ++pos_;
    }
    bool peek(std::string_view s)
    {
        skipSpace();
        return text_.substr(pos_, s.size()) == s;
    }
    bool accept(std::string_view s)
    {
        if (!peek(s)) return false;
        pos_ += s.size();
        return true;
    }

    struct DepthGuard
    {
        Parser& p;
        explicit DepthGuard(Parser& parser)
            : p(parser)
        {
            if (++p.depth_ > 200) p.fail("expression nested too deeply");
        }
        ~DepthGuard() { --p.depth_; }
    };

    SymNodePtr parseComparison()
    {
        DepthGuard g(*this);
        SymNodePtr lhs = parseBitOr();
        const SymNodePtr first = lhs;
        static const std::pair<std::string_view, SymOp> ops[] = {{"==", SymOp::Eq}, {"!=", SymOp::Ne},
                                                                 {"<=", SymOp::Le}, {">=", SymOp::Ge},
                                                                 {"<", SymOp::Lt},  {">", SymOp::Gt}};
        for (;;) {
            bool matched = false;
            for (const auto& [s, op] : ops) {
                if (accept(s)) {
                    if (isRelational(nd(lhs).op) && lhs != first)
                        failAt(pos_ - s.size(), "chained comparisons are not supported");
                    SymNodePtr rhs = parseBitOr();
                    lhs = mkNode(op, {lhs, rhs});
                    matched = true;
                    break;
                }
            }
            if (!matched) return lhs;
        }
    }

    SymNodePtr parseBitOr()
    {
        std::vector<SymNodePtr> args{parseBitAnd()};
        while (peek("|")) {
            ++pos_;
            args.push_back(parseBitAnd());
        }
        return args.size() == 1 ? args[0] : buildBool(SymOp::Or, std::move(args));
    }

    SymNodePtr parseBitAnd()
    {
        std::vector<SymNodePtr> args{parseArith()};
        while (peek("&")) {
            ++pos_;
            args.push_back(parseArith());
        }
        return args.size() == 1 ? args[0] : buildBool(SymOp::And, std::move(args));
    }

    SymNodePtr parseArith()
    {
        std::vector<SymNodePtr> terms{parseTerm()};
        for (;;) {
            if (accept("+")) {
                terms.push_back(parseTerm());
            } else if (accept("-")) {
                terms.push_back(buildNeg(parseTerm()));
            } else {
                break;
            }
        }
        return terms.size() == 1 ? terms[0] : buildAdd(std::move(terms));
    }

    SymNodePtr parseTerm()
    {
        // a run of '*' is collected and built once; '//', '/' and '%' apply to what precedes
        std::vector<SymNodePtr> factors{parseUnary()};
        auto lhs = [&]() {
            if (factors.size() > 1) {
                SymNodePtr m = buildMul(std::move(factors));
                factors.assign(1, m);
            }
            return factors[0];
        };
        int nested = 0;
        for (;;) {
            // left-nested operators: bound the tree depth for printing / evaluation
            if (peek("/") || peek("%")) {
                if (++nested > 200) fail("expression nested too deeply");
            }
            if (accept("//")) {
                SymNodePtr a = lhs();
                factors.assign(1, buildFloorDiv(a, parseUnary()));
            } else if (accept("*")) {
                factors.push_back(parseUnary());
            } else if (accept("/")) {
                SymNodePtr a = lhs();
                factors.assign(1, buildTrueDiv(a, parseUnary()));
            } else if (accept("%")) {
                SymNodePtr a = lhs();
                factors.assign(1, buildMod(a, parseUnary()));
            } else {
                return lhs();
            }
        }
    }

    SymNodePtr parseUnary()
    {
        DepthGuard g(*this);
        if (accept("-")) return buildNeg(parseUnary());
        if (accept("+")) return parseUnary();
        if (accept("~")) return mkNode(SymOp::Not, {parseUnary()});
        return parsePower();
    }

    SymNodePtr parsePower()
    {
        SymNodePtr base = parseAtom();
        if (accept("**")) return buildPow(base, parseUnary());
        return base;
    }

    SymNodePtr parseAtom()
    {
        skipSpace();
        if (pos_ >= text_.size()) fail("expected a number, symbol or '('");
        char c = text_[pos_];
        if (c == '(') {
            size_t open = pos_++;
            SymNodePtr e = parseComparison();
            if (!accept(")")) {
                if (pos_ >= text_.size()) failAt(open, "unclosed '('");
                fail("expected ')'");
            }
            return e;
        }
        if ((c >= '0' && c <= '9') || c == '.') return parseNumber();
        if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
            size_t start = pos_;
            while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_'))
                ++pos_;
            std::string name(text_.substr(start, pos_ - start));
            if (pos_ < text_.size() && text_[pos_] == '(') {
                size_t open = pos_++;
                std::vector<SymNodePtr> args;
                skipSpace();
                if (!accept(")")) {
                    for (;;) {
                        args.push_back(parseComparison());
                        if (accept(",")) continue;
                        if (accept(")")) break;
                        if (pos_ >= text_.size()) failAt(open, "unclosed '(' of call to " + name);
                        fail("expected ',' or ')' in arguments of " + name);
                    }
                }
                return buildCall(name, std::move(args));
            }
            return mkSymbol(std::move(name));
        }
        fail(std::string("expected a number, symbol or '(', got '") + c + "'");
    }

    SymNodePtr parseNumber()
    {
        size_t start = pos_;
        bool isFloatLit = false;
        while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
        if (pos_ < text_.size() && text_[pos_] == '.') {
            isFloatLit = true;
            ++pos_;
            while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
        }
        if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
            size_t save = pos_++;
            if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
            if (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
                isFloatLit = true;
                while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
            } else {
                pos_ = save;
            }
        }
        std::string_view lit = text_.substr(start, pos_ - start);
        if (lit == ".") failAt(start, "expected a number");
        if (isFloatLit) {
            double v = 0;
            auto res = std::from_chars(lit.data(), lit.data() + lit.size(), v);
            if (res.ec != std::errc() || res.ptr != lit.data() + lit.size())
                failAt(start, "expected a floating-point number");
            return mkFloat(v, std::string(lit));
        }
        int64_t v = 0;
        auto res = std::from_chars(lit.data(), lit.data() + lit.size(), v);
        if (res.ec == std::errc::result_out_of_range) failAt(start, "integer literal out of range");
        if (res.ec != std::errc() || res.ptr != lit.data() + lit.size()) failAt(start, "expected an integer");
        return mkConst(v);
    }
};

std::optional<int64_t> parsePlainInt(std::string_view t)
{
    if (t.empty()) return std::nullopt;
    int64_t v = 0;
    auto res = std::from_chars(t.data(), t.data() + t.size(), v);
    if (res.ec != std::errc() || res.ptr != t.data() + t.size()) return std::nullopt;
    return v;
}

}  // namespace

// ---------------------------------------------------------------------------------------
// SymExpr

SymExpr SymExpr::constant(int64_t v) { return fromNode(mkConst(v)); }
SymExpr SymExpr::symbol(std::string name) { return fromNode(mkSymbol(std::move(name))); }

SymExpr SymExpr::fromNode(SymNodePtr n)
{
    SymExpr e;
    e.node_ = canon(n);
    return e;
}

SymExpr SymExpr::parse(std::string_view text)
{
    SymExpr e;
    if (auto v = parsePlainInt(text)) {
        e.node_ = mkConst(*v);
        return e;
    }
    e.node_ = Parser(text).parseAll();
    return e;
}

bool SymExpr::isConstant() const { return nd(node_).op == SymOp::Const; }

std::optional<int64_t> SymExpr::constantValue() const
{
    if (!isConstant()) return std::nullopt;
    return nd(node_).value;
}

bool SymExpr::isSymbol() const { return nd(node_).op == SymOp::Symbol; }

std::string SymExpr::str() const
{
    std::string out;
    print(node_, out);
    return out;
}

std::optional<int64_t> SymExpr::evaluate(const std::map<std::string, int64_t>& values) const
{
    return eval(node_, values);
}

std::vector<std::string> SymExpr::symbols() const
{
    std::set<std::string> s;
    collectSymbols(node_, s);
    return {s.begin(), s.end()};
}

bool SymExpr::operator==(const SymExpr& o) const { return structEq(node_, o.node_); }

// The builders return canonical trees, so these set node_ directly instead of fromNode().
SymExpr operator+(const SymExpr& a, const SymExpr& b)
{
    SymExpr r;
    r.node_ = buildAdd({orZero(a.node_), orZero(b.node_)});
    return r;
}

SymExpr operator-(const SymExpr& a, const SymExpr& b) { return a + (-b); }

SymExpr operator*(const SymExpr& a, const SymExpr& b)
{
    SymExpr r;
    r.node_ = buildMul({orZero(a.node_), orZero(b.node_)});
    return r;
}

SymExpr SymExpr::operator-() const
{
    SymExpr r;
    r.node_ = buildNeg(orZero(node_));
    return r;
}

SymExpr SymExpr::floorDiv(const SymExpr& a, const SymExpr& b)
{
    SymExpr r;
    r.node_ = buildFloorDiv(orZero(a.node_), orZero(b.node_));
    return r;
}
SymExpr SymExpr::ceilDiv(const SymExpr& a, const SymExpr& b)
{
    SymExpr r;
    r.node_ = buildCeilDiv(orZero(a.node_), orZero(b.node_));
    return r;
}
SymExpr SymExpr::mod(const SymExpr& a, const SymExpr& b)
{
    SymExpr r;
    r.node_ = buildMod(orZero(a.node_), orZero(b.node_));
    return r;
}
SymExpr SymExpr::max(const SymExpr& a, const SymExpr& b)
{
    SymExpr r;
    r.node_ = buildMinMax(SymOp::Max, {orZero(a.node_), orZero(b.node_)});
    return r;
}
SymExpr SymExpr::min(const SymExpr& a, const SymExpr& b)
{
    SymExpr r;
    r.node_ = buildMinMax(SymOp::Min, {orZero(a.node_), orZero(b.node_)});
    return r;
}

// ---------------------------------------------------------------------------------------
// SymInt

SymInt::SymInt(SymExpr e, std::optional<int64_t> hint)
{
    if (auto v = e.constantValue()) {
        value_ = *v;
    } else {
        expr_ = std::make_shared<const SymExpr>(std::move(e));
        hint_ = hint;
    }
}

std::optional<int64_t> SymInt::maybeValue() const
{
    if (!expr_) return value_;
    return hint_;
}

int64_t SymInt::valueOrHint() const
{
    if (auto v = maybeValue()) return *v;
    throw std::logic_error("SymInt " + str() + " has no value or hint");
}

SymExpr SymInt::expr() const { return expr_ ? *expr_ : SymExpr::constant(value_); }

std::string SymInt::str() const { return expr_ ? expr_->str() : std::to_string(value_); }

bool SymInt::operator==(const SymInt& o) const
{
    if (!expr_ && !o.expr_) return value_ == o.value_;
    if (!expr_ || !o.expr_) return false;  // a symbolic SymInt never folds to a constant
    return *expr_ == *o.expr_;
}

namespace {
template<typename ConcreteOp, typename SymOpFn>
SymInt combine(const SymInt& a, const SymInt& b, ConcreteOp concrete, SymOpFn symbolic)
{
    if (a.isConcrete() && b.isConcrete()) {
        if (auto v = concrete(*a.maybeValue(), *b.maybeValue())) return SymInt(*v);
    }
    std::optional<int64_t> hint;
    auto ha = a.maybeValue(), hb = b.maybeValue();
    if (ha && hb) hint = concrete(*ha, *hb);
    return SymInt(symbolic(a.expr(), b.expr()), hint);
}
}  // namespace

SymInt operator+(const SymInt& a, const SymInt& b)
{
    return combine(
        a, b, [](int64_t x, int64_t y) -> std::optional<int64_t> { return wrapAdd(x, y); },
        [](const SymExpr& x, const SymExpr& y) { return x + y; });
}

SymInt operator-(const SymInt& a, const SymInt& b)
{
    return combine(
        a, b, [](int64_t x, int64_t y) -> std::optional<int64_t> { return wrapAdd(x, wrapNeg(y)); },
        [](const SymExpr& x, const SymExpr& y) { return x - y; });
}

SymInt operator*(const SymInt& a, const SymInt& b)
{
    return combine(
        a, b, [](int64_t x, int64_t y) -> std::optional<int64_t> { return wrapMul(x, y); },
        [](const SymExpr& x, const SymExpr& y) { return x * y; });
}

// Division by zero gives an unevaluated FloorDiv(a, 0) instead of throwing.
SymInt SymInt::floorDiv(const SymInt& a, const SymInt& b) { return combine(a, b, pyFloorDiv, SymExpr::floorDiv); }

SymInt SymInt::ceilDiv(const SymInt& a, const SymInt& b)
{
    return combine(
        a, b,
        [](int64_t x, int64_t y) -> std::optional<int64_t> {
            auto q = pyFloorDiv(wrapNeg(x), y);
            if (!q) return std::nullopt;
            return wrapNeg(*q);
        },
        SymExpr::ceilDiv);
}

SymInt parseSymInt(std::string_view text)
{
    if (auto v = parsePlainInt(text)) return SymInt(*v);
    return SymInt(SymExpr::parse(text));
}

}  // namespace fxl
