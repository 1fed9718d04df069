#include "core/ir/symexpr_node.hpp"

namespace fxl::symbolic {

const SymNodePtr& zeroNode()
{
    static const SymNodePtr z = std::make_shared<const SymNode>();
    return z;
}

SymNodePtr mkConst(int64_t v)
{
    auto n = std::make_shared<SymNode>();
    n->op = SymOp::Const;
    n->value = v;
    return n;
}

SymNodePtr mkFloat(double f, std::string spelling)
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

SymNodePtr mkNode(SymOp op, std::vector<SymNodePtr> operands, std::string name)
{
    auto n = std::make_shared<SymNode>();
    n->op = op;
    n->operands = std::move(operands);
    n->name = std::move(name);
    return n;
}

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
{
    uint64_t r = 1, b = uint64_t(base);
    auto e = uint64_t(exp);
    while (e) {
        if (e & 1) r *= b;
        b *= b;
        e >>= 1;
    }
    return int64_t(r);
}

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

namespace {

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

}  // namespace

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

}  // namespace fxl::symbolic
