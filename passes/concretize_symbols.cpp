#include "passes/concretize_symbols.hpp"

#include <functional>

#include "passes/graph_edit.hpp"

namespace fxl {
namespace {

using Values = std::map<std::string, int64_t>;

bool concretize(SymInt& s, const Values& v)
{
    if (s.isConcrete()) return true;
    auto x = s.expr().evaluate(v);
    if (!x) return false;
    s = SymInt(*x);
    return true;
}

// Returns false when a symbol stays (no value for it).
bool concretizeVal(ValueMeta& m, const Values& v, std::string& left)
{
    bool ok = true;
    auto one = [&](SymInt& s) {
        if (!concretize(s, v)) {
            ok = false;
            if (left.empty()) left = s.str();
        }
    };
    switch (m.kind) {
    case ValueMeta::Kind::Tensor:
        for (auto& s : m.tensor.sizes) one(s);
        for (auto& s : m.tensor.strides) one(s);
        one(m.tensor.storageOffset);
        break;
    case ValueMeta::Kind::Tuple:
        for (auto& e : m.elems) ok = concretizeVal(e, v, left) && ok;
        break;
    case ValueMeta::Kind::SymInt:
    case ValueMeta::Kind::SymBool:
    case ValueMeta::Kind::SymFloat: {
        if (m.sym.isConstant()) break;
        auto x = m.sym.evaluate(v);
        if (!x) {
            ok = false;
            if (left.empty()) left = m.sym.str();
            break;
        }
        m.sym = SymExpr::constant(*x);
        m.symHint = *x;
        break;
    }
    default: break;
    }
    return ok;
}

bool isAssert(const Node& n)
{
    const std::string& t = n.target;
    return t.find("_assert_scalar") != std::string::npos || t.find("_assert_async") != std::string::npos
        || t.find("sym_constrain_range") != std::string::npos || t == "torch._check"
        || t.find("_check_is_size") != std::string::npos;
}

bool isScalarVal(const ValueMeta& m)
{
    return m.kind == ValueMeta::Kind::SymInt || m.kind == ValueMeta::Kind::SymBool
        || m.kind == ValueMeta::Kind::SymFloat;
}

struct Counts
{
    int nodes = 0, literals = 0, erased = 0, asserts = 0;
};

void concretizeGraph(Graph& g, const Values& v, const std::string& where, PassContext& ctx, Counts& c)
{
    g.rebuildUsers();
    // asserts first, while their conditions are still nodes
    for (NodeId id : g.order()) {
        Node& n = g.node(id);
        if (n.op != NodeOp::CallFunction || !isAssert(n) || n.args.empty()) continue;
        const Arg& cond = n.args[0];
        std::optional<int64_t> val;
        std::string text;
        if (cond.isNode()) {
            const ValueMeta& m = g.node(cond.node).val;
            if (isScalarVal(m)) {
                val = m.sym.evaluate(v);
                text = m.sym.str();
            }
        } else if (cond.kind == Arg::Kind::Bool) {
            val = cond.b ? 1 : 0;
            text = cond.b ? "True" : "False";
        }
        if (n.target.find("sym_constrain_range") != std::string::npos) continue;
        if (val && *val == 0)
            throw PassError("concretize_symbols: runtime assert '" + n.name + "'"
                            + (where.empty() ? "" : " in " + where) + " is false for the symbol values: " + text);
        ++c.asserts;
    }
    // values
    for (NodeId id : g.order()) {
        Node& n = g.node(id);
        std::string left;
        const ValueMeta before = n.val;
        if (!concretizeVal(n.val, v, left))
            throw PassError("concretize_symbols: node '" + n.name + "'" + (where.empty() ? "" : " in " + where)
                            + " keeps the symbol expression " + left
                            + ": no value for its symbols (give hints=NAME=N)");
        if (!(before == n.val)) ++c.nodes;
    }
    // scalar nodes become literals in their users' args
    for (NodeId id : g.order()) {
        Node& n = g.node(id);
        if (n.op != NodeOp::CallFunction || !isScalarVal(n.val) || isAssert(n)) continue;
        auto x = n.val.sym.constantValue();
        if (!x) continue;
        Arg lit = n.val.kind == ValueMeta::Kind::SymBool ? Arg::ofBool(*x != 0)
            : n.val.kind == ValueMeta::Kind::SymFloat    ? Arg::ofFloat(static_cast<double>(*x))
                                                         : Arg::ofInt(*x);
        for (NodeId u : std::vector<NodeId>(n.users)) {
            Node& un = g.node(u);
            if (un.op == NodeOp::Output) continue;
            auto sub = [&](Arg& a, auto&& self) -> void {
                if (a.isNode() && a.node == id) {
                    a = lit;
                    ++c.literals;
                    ctx.rewired(un.name, "literal", n.name, std::to_string(*x));
                    return;
                }
                for (auto& it : a.items) self(it, self);
                for (auto& kv : a.dict) self(kv.second, self);
            };
            for (auto& a : un.args) sub(a, sub);
            for (auto& kv : un.kwargs) sub(kv.second, sub);
        }
    }
    g.rebuildUsers();
    // dead scalar plumbing and the checked asserts
    for (bool again = true; again;) {
        again = false;
        std::vector<NodeId> dead;
        for (NodeId id : g.order()) {
            const Node& n = g.node(id);
            if (n.op != NodeOp::CallFunction || !n.users.empty()) continue;
            if (isAssert(n) || isScalarVal(n.val)) dead.push_back(id);
        }
        if (!dead.empty()) {
            c.erased += static_cast<int>(eraseNodes(g, dead, &ctx));
            again = true;
        }
    }
    for (auto& [name, sub] : g.subgraphs)
        if (sub) {
            // nested graphs are shared between steps: edit a copy
            auto copy = std::make_shared<Graph>(sub->clone());
            concretizeGraph(*copy, v, where.empty() ? name : where + "." + name, ctx, c);
            sub = copy;
        }
}

class ConcretizeSymbolsPass : public Pass
{
public:
    std::string name() const override { return "concretize_symbols"; }
    std::string summary() const override { return "replace symbolic sizes by their values (hints)"; }
    std::string description() const override
    {
        return "Replaces every symbol (s0, u0, ...) by its value: tensor sizes, strides and offsets in the value meta "
               "of every node, symbolic scalar nodes (sym_size, integer arithmetic) whose uses become literals, and "
               "nested graphs. Values come from the hints the graph carries and from `hints` (u0=4, which wins). A "
               "runtime assert false for those values is an error, as is a symbol without a value. The scalar "
               "plumbing left unused and the asserts are erased.";
    }
    std::vector<PassOption> options() const override
    {
        return {{"hints", OptionType::StringList, "", {}, "symbol values, SYMBOL=N;SYMBOL=N (override the graph's)"}};
    }
    void run(Graph& g, const PassOptions& opts, PassContext& ctx) const override
    {
        Values v = symbolHints(g);
        for (const auto& it : opts.getList("hints")) {
            auto eq = it.find('=');
            if (eq == std::string::npos || eq == 0)
                throw PassError("concretize_symbols: option 'hints': expected SYMBOL=N, got '" + it + "'");
            try {
                v[it.substr(0, eq)] = std::stoll(it.substr(eq + 1));
            } catch (const std::exception&) {
                throw PassError("concretize_symbols: option 'hints': expected SYMBOL=N with an integer N, got '" + it
                                + "'");
            }
        }
        Counts c;
        concretizeGraph(g, v, "", ctx, c);
        std::string vals;
        for (const auto& [k, x] : v) vals += (vals.empty() ? "" : ", ") + k + "=" + std::to_string(x);
        ctx.note("symbols: " + (vals.empty() ? std::string("none") : vals) + "; " + std::to_string(c.nodes)
                 + " values concretized, " + std::to_string(c.literals) + " scalar uses made literal, "
                 + std::to_string(c.asserts) + " asserts checked, " + std::to_string(c.erased) + " nodes erased");
        ctx.log.stats["concretized"] = c.nodes;
        ctx.log.stats["literals"] = c.literals;
        ctx.log.stats["asserts"] = c.asserts;
        ctx.log.stats["erased"] = c.erased;
        nlohmann::json s = nlohmann::json::object();
        for (const auto& [k, x] : v) s[k] = x;
        ctx.log.stats["symbols"] = s;
    }
};

}  // namespace

std::unique_ptr<Pass> makeConcretizeSymbolsPass() { return std::make_unique<ConcretizeSymbolsPass>(); }

}  // namespace fxl
