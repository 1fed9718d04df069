// The expression trees behind SymExpr (internal to core/ir/symexpr*.cpp): node construction,
// integer arithmetic with Python semantics, the orders sympy sorts operands by, and numeric
// coefficients. Every SymExpr goes through the canonicalising builders (symexpr_canon.hpp), so
// structural equality of trees is the canonical equality of expressions.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/ir/symexpr.hpp"

namespace fxl::symbolic {

const SymNodePtr& zeroNode();
inline const SymNode& nd(const SymNodePtr& p) { return p ? *p : *zeroNode(); }
inline const SymNodePtr& orZero(const SymNodePtr& p) { return p ? p : zeroNode(); }

SymNodePtr mkConst(int64_t v);
// `spelling` keeps the literal as written ("1.0", "1.00000000000000") so printing gives
// the same text back; computed floats print in Python's shortest repr.
SymNodePtr mkFloat(double f, std::string spelling = {});
SymNodePtr mkSymbol(std::string name);
SymNodePtr mkNode(SymOp op, std::vector<SymNodePtr> operands, std::string name = {});

inline bool isInt(const SymNodePtr& p) { return nd(p).op == SymOp::Const; }
inline bool isFloatNode(const SymNodePtr& p) { return nd(p).op == SymOp::FloatConst; }
inline bool isNum(const SymNodePtr& p) { return isInt(p) || isFloatNode(p); }
inline bool isIntVal(const SymNodePtr& p, int64_t v) { return isInt(p) && nd(p).value == v; }
inline bool isRelational(SymOp op) { return op >= SymOp::Eq && op <= SymOp::Ge; }

// Wrapping integer arithmetic: folding never has undefined behaviour; evaluate() uses the
// checked variants instead.
inline int64_t wrapAdd(int64_t a, int64_t b) { return int64_t(uint64_t(a) + uint64_t(b)); }
inline int64_t wrapMul(int64_t a, int64_t b) { return int64_t(uint64_t(a) * uint64_t(b)); }
inline int64_t wrapNeg(int64_t a) { return int64_t(0 - uint64_t(a)); }
int64_t wrapPow(int64_t base, int64_t exp);  // exp >= 0

// Python semantics: floor division rounds to -inf, the remainder takes the divisor's sign.
// nullopt on division by zero and overflow.
std::optional<int64_t> pyFloorDiv(int64_t a, int64_t b);
std::optional<int64_t> pyMod(int64_t a, int64_t b);
std::optional<int64_t> checkedPow(int64_t base, int64_t exp);

// A total structural order; equal (0) exactly when the trees are identical.
int structCmp(const SymNodePtr& pa, const SymNodePtr& pb);
inline bool structEq(const SymNodePtr& a, const SymNodePtr& b) { return structCmp(a, b) == 0; }
// "FloorDiv", "Max", a Call's name; "" for other nodes.
std::string_view funcName(const SymNode& n);
// The order sympy uses for Mul factors, Max/Min arguments and Add generators.
int sortCmp(const SymNodePtr& pa, const SymNodePtr& pb);

// A numeric coefficient (int or float).
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

}  // namespace fxl::symbolic
