// Symbolic integer expressions as PyTorch prints them (sympy str): symbols s0 / u0,
// integer arithmetic, floor and ceil division, Mod, Max/Min, comparisons.
//
// SymInt is the value used in sizes and strides: a plain int64 when concrete (the common
// case, no allocation), or a shared immutable expression tree with an optional hint.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fxl {

struct SymNode;
using SymNodePtr = std::shared_ptr<const SymNode>;

enum class SymOp : uint8_t
{
    Const,  // integer constant (value)
    FloatConst,  // float constant (fvalue), e.g. "s1 - 1.0" in Sym(...) annotations
    Symbol,  // name: s0, s77, u0, ...
    Add,  // n-ary sum of operands
    Mul,  // n-ary product of operands
    FloorDiv,  // a // b  (sympy prints "((a)//b)" / "floor(a/b)")
    CeilDiv,  // ceiling(a/b)
    Mod,  // Mod(a, b)
    Pow,  // a**b
    Max,  // Max(a, b, ...)
    Min,  // Min(a, b, ...)
    Neg,  // -a (kept only where needed, normally Mul by -1)
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,  // comparisons: Sym(u0 >= 0)
    And,
    Or,
    Not,  // boolean combinations
    Call,  // any other function application printed as name(args...) (kept verbatim)
};

struct SymNode
{
    SymOp op = SymOp::Const;
    int64_t value = 0;
    double fvalue = 0.0;
    std::string name;  // Symbol name or Call function name
    std::vector<SymNodePtr> operands;
};

// A symbolic expression. Immutable, cheap to copy.
class SymExpr
{
public:
    SymExpr() = default;  // the constant 0
    static SymExpr constant(int64_t v);
    static SymExpr symbol(std::string name);
    static SymExpr fromNode(SymNodePtr n);

    // Parses sympy-printed text: "s0", "2*s0 + 1", "(((-u1)//3)) + 5", "Max(1, s0)",
    // "floor(s0/2)", "ceiling(s0/2)", "Mod(s0, 4)", "u0 >= 0", "s1 - 1.0", "-s0", "s0**2".
    // Throws InputError (file "<expr>", column = 1-based offset in text) when malformed.
    static SymExpr parse(std::string_view text);

    bool isConstant() const;  // folds to an integer constant
    std::optional<int64_t> constantValue() const;
    bool isSymbol() const;
    const SymNodePtr& node() const { return node_; }

    // sympy-style text ("2*s0 + 1", "Max(1, s0)", "((s0//2))" as PyTorch prints FloorDiv).
    std::string str() const;

    // Value with every symbol replaced from `values`; nullopt if a symbol is missing
    // or the result is not an integer (division by zero, float).
    std::optional<int64_t> evaluate(const std::map<std::string, int64_t>& values) const;

    // The free symbols, sorted.
    std::vector<std::string> symbols() const;

    // Structural equality after canonicalisation (sorted operands, folded constants).
    bool operator==(const SymExpr& o) const;
    bool operator!=(const SymExpr& o) const { return !(*this == o); }

    // Arithmetic building blocks used by meta functions; they fold constants and
    // flatten sums/products so "s0*1 + 0" prints "s0".
    friend SymExpr operator+(const SymExpr& a, const SymExpr& b);
    friend SymExpr operator-(const SymExpr& a, const SymExpr& b);
    friend SymExpr operator*(const SymExpr& a, const SymExpr& b);
    SymExpr operator-() const;
    static SymExpr floorDiv(const SymExpr& a, const SymExpr& b);
    static SymExpr ceilDiv(const SymExpr& a, const SymExpr& b);
    static SymExpr mod(const SymExpr& a, const SymExpr& b);
    static SymExpr max(const SymExpr& a, const SymExpr& b);
    static SymExpr min(const SymExpr& a, const SymExpr& b);

private:
    SymNodePtr node_;  // null = constant 0
};

// A size / stride / offset value. Concrete unless expr() is set.
class SymInt
{
public:
    SymInt() = default;
    SymInt(int64_t v)
        : value_(v)
    { }  // NOLINT: implicit by design
    explicit SymInt(SymExpr e, std::optional<int64_t> hint = std::nullopt);

    bool isConcrete() const { return !expr_; }
    // concrete value, or the hint of a symbolic one (nullopt when there is none)
    std::optional<int64_t> maybeValue() const;
    // concrete value or hint; throws std::logic_error when neither exists
    int64_t valueOrHint() const;
    std::optional<int64_t> hint() const { return hint_; }
    void setHint(std::optional<int64_t> h) { hint_ = h; }

    // the expression (a constant expression for concrete values)
    SymExpr expr() const;
    std::string str() const;  // "8" or "s0 + 1"

    bool operator==(const SymInt& o) const;  // structural; hints are ignored
    bool operator!=(const SymInt& o) const { return !(*this == o); }

    friend SymInt operator+(const SymInt& a, const SymInt& b);
    friend SymInt operator-(const SymInt& a, const SymInt& b);
    friend SymInt operator*(const SymInt& a, const SymInt& b);
    static SymInt floorDiv(const SymInt& a, const SymInt& b);
    static SymInt ceilDiv(const SymInt& a, const SymInt& b);

private:
    int64_t value_ = 0;
    std::shared_ptr<const SymExpr> expr_;  // null = concrete value_
    std::optional<int64_t> hint_;
};

// Parses a size element as printed in annotations ("8", "s0", "2*s0").
SymInt parseSymInt(std::string_view text);

}  // namespace fxl
