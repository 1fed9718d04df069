#include "core/ops/op_meta_symint.hpp"

#include <algorithm>

#include "core/ops/op_meta.hpp"

namespace fxl::meta {

namespace {

inline bool concrete2(const SymInt& a, const SymInt& b, int64_t& x, int64_t& y)
{
    if (!a.isConcrete() || !b.isConcrete()) return false;
    x = *a.maybeValue();
    y = *b.maybeValue();
    return true;
}

inline std::optional<int64_t> hint2(const std::optional<int64_t>& a, const std::optional<int64_t>& b,
                                    int64_t (*f)(int64_t, int64_t))
{
    if (!a || !b) return std::nullopt;
    return f(*a, *b);
}

SymInt make(const SymExpr& e, std::optional<int64_t> hint)
{
    if (auto v = e.constantValue()) return SymInt(*v);
    return SymInt(e, hint);
}

int64_t pyFloorDiv(int64_t a, int64_t b)
{
    if (b == 0) throw MetaError("division by zero in a size expression");
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
    return q;
}
int64_t pyCeilDiv(int64_t a, int64_t b) { return -pyFloorDiv(-a, b); }

// A product split into an integer coefficient and its other factors.
struct Factors
{
    int64_t coeff = 1;
    std::vector<SymNodePtr> rest;
};
Factors factorsOf(const SymExpr& e)
{
    Factors f;
    if (auto v = e.constantValue()) {
        f.coeff = *v;
        return f;
    }
    const SymNodePtr& n = e.node();
    if (n && n->op == SymOp::Mul) {
        for (const auto& o : n->operands) {
            if (o->op == SymOp::Const)
                f.coeff *= o->value;
            else
                f.rest.push_back(o);
        }
    } else {
        f.rest.push_back(n);
    }
    return f;
}

}  // namespace

SymInt normalize(SymInt s)
{
    if (s.isConcrete()) return s;
    if (auto v = s.expr().constantValue()) return SymInt(*v);
    return s;
}

SymInt add(const SymInt& a, const SymInt& b)
{
    int64_t x, y;
    if (concrete2(a, b, x, y)) return x + y;
    if (b.isConcrete() && *b.maybeValue() == 0) return a;
    if (a.isConcrete() && *a.maybeValue() == 0) return b;
    return make(a.expr() + b.expr(), hint2(a.maybeValue(), b.maybeValue(), [](int64_t p, int64_t q) { return p + q; }));
}

SymInt sub(const SymInt& a, const SymInt& b)
{
    int64_t x, y;
    if (concrete2(a, b, x, y)) return x - y;
    if (b.isConcrete() && *b.maybeValue() == 0) return a;
    return make(a.expr() - b.expr(), hint2(a.maybeValue(), b.maybeValue(), [](int64_t p, int64_t q) { return p - q; }));
}

SymInt mul(const SymInt& a, const SymInt& b)
{
    int64_t x, y;
    if (concrete2(a, b, x, y)) return x * y;
    if (b.isConcrete() && *b.maybeValue() == 1) return a;
    if (a.isConcrete() && *a.maybeValue() == 1) return b;
    return make(a.expr() * b.expr(), hint2(a.maybeValue(), b.maybeValue(), [](int64_t p, int64_t q) { return p * q; }));
}

SymInt floorDiv(const SymInt& a, const SymInt& b)
{
    int64_t x, y;
    if (concrete2(a, b, x, y)) return pyFloorDiv(x, y);
    if (b.isConcrete() && *b.maybeValue() == 1) return a;
    auto h = (a.maybeValue() && b.maybeValue() && *b.maybeValue() != 0)
        ? std::optional<int64_t>(pyFloorDiv(*a.maybeValue(), *b.maybeValue()))
        : std::nullopt;
    return make(SymExpr::floorDiv(a.expr(), b.expr()), h);
}

SymInt ceilDiv(const SymInt& a, const SymInt& b)
{
    int64_t x, y;
    if (concrete2(a, b, x, y)) return pyCeilDiv(x, y);
    if (b.isConcrete() && *b.maybeValue() == 1) return a;
    auto h = (a.maybeValue() && b.maybeValue() && *b.maybeValue() != 0)
        ? std::optional<int64_t>(pyCeilDiv(*a.maybeValue(), *b.maybeValue()))
        : std::nullopt;
    return make(SymExpr::ceilDiv(a.expr(), b.expr()), h);
}

SymInt exactDiv(const SymInt& a, const SymInt& b)
{
    int64_t x, y;
    if (concrete2(a, b, x, y)) {
        if (y == 0) throw MetaError("division by zero in a size expression");
        return x / y;
    }
    if (b.isConcrete() && *b.maybeValue() == 1) return a;
    if (a == b) return 1;
    // Cancel b's factors out of a's product; fall back to floor division when they
    // do not cancel (the caller checked divisibility by hint).
    Factors fa = factorsOf(a.expr()), fb = factorsOf(b.expr());
    bool ok = fb.coeff != 0 && fa.coeff % fb.coeff == 0;
    for (const auto& f : fb.rest) {
        if (!ok) break;
        SymExpr fe = SymExpr::fromNode(f);
        auto it = std::find_if(fa.rest.begin(), fa.rest.end(),
                               [&](const SymNodePtr& g) { return SymExpr::fromNode(g) == fe; });
        if (it == fa.rest.end())
            ok = false;
        else
            fa.rest.erase(it);
    }
    std::optional<int64_t> h;
    if (a.maybeValue() && b.maybeValue() && *b.maybeValue() != 0) h = *a.maybeValue() / *b.maybeValue();
    if (!ok) return floorDiv(a, b);
    SymExpr e = SymExpr::constant(fa.coeff / fb.coeff);
    for (const auto& f : fa.rest) e = e * SymExpr::fromNode(f);
    return make(e, h);
}

SymInt minS(const SymInt& a, const SymInt& b)
{
    int64_t x, y;
    if (concrete2(a, b, x, y)) return std::min(x, y);
    if (a == b) return a;
    return make(SymExpr::min(a.expr(), b.expr()),
                hint2(a.maybeValue(), b.maybeValue(), [](int64_t p, int64_t q) { return std::min(p, q); }));
}

SymInt maxS(const SymInt& a, const SymInt& b)
{
    int64_t x, y;
    if (concrete2(a, b, x, y)) return std::max(x, y);
    if (a == b) return a;
    return make(SymExpr::max(a.expr(), b.expr()),
                hint2(a.maybeValue(), b.maybeValue(), [](int64_t p, int64_t q) { return std::max(p, q); }));
}

int64_t hintOf(const SymInt& s, const char* what)
{
    if (auto v = s.maybeValue()) return *v;
    // No hint (symbols read from annotations): order decisions as if every symbol were a
    // large size, so symbolic dims are never taken for 0 or 1 (size-oblivious).
    std::map<std::string, int64_t> values;
    for (const auto& n : s.expr().symbols()) values[n] = 97;
    if (auto v = s.expr().evaluate(values)) return *v;
    throw MetaError(std::string("symbolic ") + what + " " + s.str() + " has no hint");
}

bool hasUnbacked(const SymInt& s)
{
    if (s.isConcrete()) return false;
    for (const auto& n : s.expr().symbols())
        if (n.size() > 1 && n[0] == 'u' && std::isdigit(static_cast<unsigned char>(n[1]))) return true;
    return false;
}

bool guardEq(const SymInt& a, const SymInt& b)
{
    int64_t x, y;
    if (concrete2(a, b, x, y)) return x == y;
    if (a == b) return true;
    auto ha = a.maybeValue(), hb = b.maybeValue();
    return ha && hb && *ha == *hb;
}

bool guardEq(const SymInt& a, int64_t b)
{
    if (a.isConcrete()) return *a.maybeValue() == b;
    auto h = a.maybeValue();
    return h && *h == b;
}

bool isOne(const SymInt& s)
{
    if (s.isConcrete()) return *s.maybeValue() == 1;
    if (hasUnbacked(s)) return false;
    auto h = s.maybeValue();
    return h && *h == 1;
}

bool hintLt(const SymInt& a, const SymInt& b)
{
    int64_t x, y;
    if (concrete2(a, b, x, y)) return x < y;
    return hintOf(a) < hintOf(b);
}

SymInt product(const Sizes& s, size_t from, size_t to)
{
    SymInt p = 1;
    to = std::min(to, s.size());
    for (size_t i = from; i < to; ++i) p = mul(p, s[i]);
    return p;
}

}  // namespace fxl::meta
