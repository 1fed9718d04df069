#include "core/ir/symexpr.hpp"

#include <set>
#include <stdexcept>

#include "core/ir/symexpr_canon.hpp"
#include "core/ir/symexpr_eval.hpp"
#include "core/ir/symexpr_node.hpp"
#include "core/ir/symexpr_parse.hpp"
#include "core/ir/symexpr_print.hpp"

namespace fxl {

using namespace symbolic;

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
    e.node_ = symbolic::parseExpression(text);
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
