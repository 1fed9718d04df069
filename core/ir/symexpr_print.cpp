#include "core/ir/symexpr_print.hpp"

#include <charconv>
#include <cmath>

#include "core/ir/symexpr_node.hpp"

namespace fxl::symbolic {

namespace {

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

}  // namespace

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

}  // namespace fxl::symbolic
