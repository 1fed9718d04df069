#include "core/analysis/verify.hpp"

#include <algorithm>
#include <functional>
#include <set>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace fxl {

namespace {

constexpr int kMaxDepth = 64;

std::string quoteName(const std::string& s) { return "'" + s + "'"; }

std::string metaKindName(const ValueMeta& m)
{
    switch (m.kind) {
    case ValueMeta::Kind::Unknown: return "unknown";
    case ValueMeta::Kind::None: return "None";
    case ValueMeta::Kind::Tensor: return "a tensor";
    case ValueMeta::Kind::Tuple: return "a tuple of " + std::to_string(m.elems.size());
    case ValueMeta::Kind::SymInt: return "a symbolic int";
    case ValueMeta::Kind::SymFloat: return "a symbolic float";
    case ValueMeta::Kind::SymBool: return "a symbolic bool";
    case ValueMeta::Kind::Opaque: return "opaque";
    }
    return "?";
}

bool isPlainTensorType(const std::string& t) { return t == "Tensor"; }

class Verifier
{
public:
    Verifier(const OpRegistry& reg, std::vector<Problem>& out)
        : reg_(reg)
        , out_(out)
    { }

    void run(const Graph& g, const std::string& path, int depth)
    {
        if (depth > kMaxDepth) {
            add(Severity::Error, path, "", "nested graphs deeper than " + std::to_string(kMaxDepth) + " levels");
            return;
        }
        if (!onStack_.insert(&g).second) {
            add(Severity::Error, path, "", "nested graph contains itself");
            return;
        }
        Scope s{g, path, {}, {}};
        structure(s);
        for (NodeId id : g.order()) {
            if (!g.alive(id)) continue;
            node(s, g.node(id));
        }
        for (const auto& [name, sub] : g.subgraphs) {
            std::string subPath = path.empty() ? name : path + "/" + name;
            if (!sub) {
                add(Severity::Error, path, "", "nested graph " + quoteName(name) + " is empty (null)");
                continue;
            }
            run(*sub, subPath, depth + 1);
        }
        onStack_.erase(&g);
    }

private:
    struct Scope
    {
        const Graph& g;
        const std::string& path;
        // id -> 1 + position in order (0: not in the order); a vector, not a hash map:
        // ids are dense and the verifier runs after every pass on 100k-node graphs
        std::vector<size_t> pos;
        std::unordered_map<std::string_view, size_t> firstByName;  // views of the graph's names
        size_t posOf(NodeId id) const
        {
            return id >= 0 && static_cast<size_t>(id) < pos.size() ? pos[static_cast<size_t>(id)] : 0;
        }
    };

    void add(Severity sev, const std::string& path, const std::string& node, std::string msg)
    {
        out_.push_back(Problem{sev, path, node, std::move(msg)});
    }

    // Names, order, output and placeholders.
    void structure(Scope& s)
    {
        const Graph& g = s.g;
        const auto& order = g.order();
        size_t outputs = 0;
        NodeId maxId = -1;
        for (NodeId id : order) maxId = std::max(maxId, id);
        s.pos.assign(static_cast<size_t>(maxId + 1), 0);
        s.firstByName.reserve(order.size());
        bool seenNonPlaceholder = false;
        std::string firstNonPlaceholder;
        for (size_t k = 0; k < order.size(); ++k) {
            NodeId id = order[k];
            if (!g.alive(id)) {
                add(Severity::Error, s.path, "", "the node order lists removed node id " + std::to_string(id));
                continue;
            }
            const Node& n = g.node(id);
            s.pos[static_cast<size_t>(id)] = k + 1;
            if (n.name.empty()) {
                add(Severity::Error, s.path, "", "node #" + std::to_string(k) + " has no name");
            } else {
                auto [it, fresh] = s.firstByName.emplace(n.name, k);
                if (!fresh)
                    add(Severity::Error, s.path, n.name,
                        "duplicate node name (node #" + std::to_string(it->second) + " and #" + std::to_string(k)
                            + ")");
            }
            if (n.op == NodeOp::Output) {
                ++outputs;
                if (outputs > 1)
                    add(Severity::Error, s.path, n.name, "more than one output node");
                else if (k + 1 != order.size())
                    add(Severity::Error, s.path, n.name,
                        "the output node is not the last node (" + std::to_string(order.size() - k - 1)
                            + " node(s) follow)");
            } else if (n.op == NodeOp::Placeholder) {
                if (seenNonPlaceholder)
                    add(Severity::Warning, s.path, n.name,
                        "placeholder after non-placeholder node " + quoteName(firstNonPlaceholder));
            } else if (!seenNonPlaceholder) {
                seenNonPlaceholder = true;
                firstNonPlaceholder = n.name;
            }
        }
        if (outputs == 0) add(Severity::Error, s.path, "", "the graph has no output node");
    }

    void node(Scope& s, const Node& n)
    {
        const Graph& g = s.g;
        const size_t here = s.posOf(n.id);
        // definition before use (each referenced node reported once; nodes have few inputs)
        std::vector<NodeId> reported;
        auto checkRef = [&](NodeId r) {
            if (std::find(reported.begin(), reported.end(), r) != reported.end()) return;
            reported.push_back(r);
            if (!g.alive(r)) {
                add(Severity::Error, s.path, n.name, "uses a removed or unknown node (id " + std::to_string(r) + ")");
                return;
            }
            const Node& def = g.node(r);
            const size_t at = s.posOf(r);
            if (r == n.id) {
                add(Severity::Error, s.path, n.name, "uses itself");
            } else if (at == 0 || at > here) {
                add(Severity::Error, s.path, n.name, "uses " + quoteName(def.name) + " before it is defined");
            }
            if (def.op == NodeOp::Output)
                add(Severity::Error, s.path, n.name, "uses the output node " + quoteName(def.name));
        };
        for (const auto& a : n.args) a.forEachNode(checkRef);
        for (const auto& kv : n.kwargs) kv.second.forEachNode(checkRef);

        checkTensorMeta(s, n.name, n.val);

        switch (n.op) {
        case NodeOp::Placeholder:
        case NodeOp::Output: return;
        case NodeOp::GetAttr:
        case NodeOp::CallMethod:
        case NodeOp::CallModule:
            if (n.target.empty())
                add(Severity::Error, s.path, n.name, std::string(nodeOpName(n.op)) + " without a target");
            return;
        case NodeOp::CallFunction: break;
        }
        if (n.target.empty()) {
            add(Severity::Error, s.path, n.name, "call_function without a target");
            return;
        }
        const OpInfo* op = reg_.find(n.target);
        if (!op) {
            add(Severity::Note, s.path, n.name, "unknown operator " + quoteName(n.target) + ": arguments not checked");
            return;
        }
        std::vector<Arg> bound;
        auto err = reg_.bind(*op, n, bound);
        if (err) {
            add(Severity::Error, s.path, n.name, *err);
        } else {
            graphModuleArgs(s, n, *op, bound);
            viewDtype(s, n, *op, bound);
        }
        returnsMeta(s, n, *op);
        if (op->qualifiedName == "operator.getitem") getitem(s, n);
    }

    void checkTensorMeta(Scope& s, const std::string& name, const ValueMeta& m, int depth = 0)
    {
        if (depth > kMaxDepth) return;
        if (m.kind == ValueMeta::Kind::Tensor) {
            const TensorMeta& t = m.tensor;
            if (!t.strides.empty() && t.strides.size() != t.sizes.size())
                add(Severity::Error, s.path, name,
                    "tensor meta has " + std::to_string(t.sizes.size()) + " size(s) but "
                        + std::to_string(t.strides.size()) + " stride(s)");
        }
        for (size_t i = 0; i < m.elems.size(); ++i) checkTensorMeta(s, name, m.elems[i], depth + 1);
    }

    // GraphModule-typed arguments of higher-order ops must be get_attr nodes naming a nested graph.
    void graphModuleArgs(Scope& s, const Node& n, const OpInfo& op, const std::vector<Arg>& bound)
    {
        const Schema& sc = op.schema;
        for (size_t i = 0; i < sc.args.size() && i < bound.size(); ++i) {
            const std::string& t = sc.args[i].type;
            if (t != "GraphModule" && t != "GraphModule?") continue;
            const Arg& a = bound[i];
            if (a.isNone() && t.back() == '?') continue;
            std::string what = "argument " + quoteName(sc.args[i].name) + " of " + op.qualifiedName;
            if (!a.isNode()) {
                add(Severity::Error, s.path, n.name, what + " is not a node (expected a get_attr of a nested graph)");
                continue;
            }
            if (!s.g.alive(a.node)) continue;  // reported as a bad reference already
            const Node& ga = s.g.node(a.node);
            if (ga.op != NodeOp::GetAttr) {
                add(Severity::Error, s.path, n.name,
                    what + " is " + quoteName(ga.name) + ", not a get_attr of a nested graph");
                continue;
            }
            if (!s.g.subgraph(ga.target))
                add(Severity::Error, s.path, n.name,
                    what + ": get_attr " + quoteName(ga.name) + " names no nested graph (target " + quoteName(ga.target)
                        + ")");
        }
    }

    // A view aliases its input: same element type (except the ops that reinterpret it).
    void viewDtype(Scope& s, const Node& n, const OpInfo& op, const std::vector<Arg>& bound)
    {
        if (!op.has(kTraitView) || n.val.kind != ValueMeta::Kind::Tensor) return;
        const Schema& sc = op.schema;
        if (sc.name == "view_as_real" || sc.name == "view_as_complex") return;
        for (const auto& a : sc.args)
            if (a.type.rfind("ScalarType", 0) == 0) return;  // view.dtype, to.dtype: the dtype changes by design
        std::string set;
        for (const auto& r : sc.returns)
            if (r.alias && !r.alias->isWrite) set = r.alias->set;
        if (set.empty()) return;
        for (size_t i = 0; i < sc.args.size() && i < bound.size(); ++i) {
            if (!sc.args[i].alias || sc.args[i].alias->set != set) continue;
            const Arg& a = bound[i];
            if (!a.isNode() || !s.g.alive(a.node)) return;
            const Node& in = s.g.node(a.node);
            if (in.val.kind != ValueMeta::Kind::Tensor) return;
            if (in.val.tensor.dtype != n.val.tensor.dtype)
                add(Severity::Error, s.path, n.name,
                    "view op " + op.qualifiedName + " changes the dtype from "
                        + std::string(dtypeAbbr(in.val.tensor.dtype)) + " (" + quoteName(in.name) + ") to "
                        + std::string(dtypeAbbr(n.val.tensor.dtype)));
            return;
        }
    }

    // The node's val against the schema's returns.
    void returnsMeta(Scope& s, const Node& n, const OpInfo& op)
    {
        const Schema& sc = op.schema;
        if (sc.informal || n.val.kind == ValueMeta::Kind::Unknown || n.val.kind == ValueMeta::Kind::Opaque) return;
        if (sc.returns.size() == 1 && isPlainTensorType(sc.returns[0].type)) {
            if (n.val.kind != ValueMeta::Kind::Tensor)
                add(Severity::Error, s.path, n.name,
                    op.qualifiedName + " returns one Tensor but the node's value is " + metaKindName(n.val));
        } else if (sc.returns.size() > 1) {
            if (n.val.kind == ValueMeta::Kind::Tuple && n.val.elems.size() != sc.returns.size())
                add(Severity::Warning, s.path, n.name,
                    op.qualifiedName + " returns " + std::to_string(sc.returns.size())
                        + " values but the node's value is " + metaKindName(n.val));
            else if (n.val.kind != ValueMeta::Kind::Tuple)
                add(Severity::Error, s.path, n.name,
                    op.qualifiedName + " returns " + std::to_string(sc.returns.size())
                        + " values but the node's value is " + metaKindName(n.val));
        } else if (sc.returns.empty()) {
            if (n.val.kind != ValueMeta::Kind::None)
                add(Severity::Warning, s.path, n.name,
                    op.qualifiedName + " returns nothing but the node's value is " + metaKindName(n.val));
        }
    }

    // Number of outputs of a multi-output producer, when known.
    std::optional<size_t> outputCount(Scope& s, const Node& p)
    {
        if (p.val.kind == ValueMeta::Kind::Tuple) return p.val.elems.size();
        if (p.op != NodeOp::CallFunction) return std::nullopt;
        const OpInfo* op = reg_.find(p.target);
        if (!op) return std::nullopt;
        const Schema& sc = op->schema;
        if (!sc.informal && sc.returns.size() > 1) return sc.returns.size();
        if (op->qualifiedName == "higher_order.invoke_subgraph" && !p.args.empty() && p.args[0].isNode()
            && s.g.alive(p.args[0].node)) {
            const Node& ga = s.g.node(p.args[0].node);
            const Graph* sub = ga.op == NodeOp::GetAttr ? s.g.subgraph(ga.target) : nullptr;
            NodeId out = sub ? sub->outputNode() : kNoNode;
            if (out != kNoNode && sub->node(out).args.size() == 1 && sub->node(out).args[0].isSequence())
                return sub->node(out).args[0].items.size();
        }
        return std::nullopt;
    }

    void getitem(Scope& s, const Node& n)
    {
        if (n.args.size() < 2 || !n.args[0].isNode() || n.args[1].kind != Arg::Kind::Int) return;
        if (!s.g.alive(n.args[0].node)) return;
        const Node& p = s.g.node(n.args[0].node);
        auto count = outputCount(s, p);
        if (!count) return;
        int64_t idx = n.args[1].i;
        int64_t c = static_cast<int64_t>(*count);
        if (idx >= c || idx < -c)
            add(Severity::Error, s.path, n.name,
                "getitem index " + std::to_string(idx) + " is out of range for " + quoteName(p.name) + " with "
                    + std::to_string(c) + " output(s)");
    }

    const OpRegistry& reg_;
    std::vector<Problem>& out_;
    std::unordered_set<const Graph*> onStack_;
};

void collectUnknown(const Graph& g, const OpRegistry& reg, std::set<std::string>& out,
                    std::unordered_set<const Graph*>& seen, int depth)
{
    if (depth > kMaxDepth || !seen.insert(&g).second) return;
    // Operators passed as values (auto_functionalized's first argument) are called too.
    std::function<void(const Arg&)> opArgs = [&](const Arg& a) {
        if (a.kind == Arg::Kind::Op && !reg.find(a.s)) out.insert(a.s);
        for (const auto& i : a.items) opArgs(i);
        for (const auto& kv : a.dict) opArgs(kv.second);
    };
    g.forEachNode([&](const Node& n) {
        if (n.op != NodeOp::CallFunction) return;
        if (!reg.find(n.target)) out.insert(n.target);
        for (const auto& a : n.args) opArgs(a);
        for (const auto& kv : n.kwargs) opArgs(kv.second);
    });
    for (const auto& kv : g.subgraphs)
        if (kv.second) collectUnknown(*kv.second, reg, out, seen, depth + 1);
}

}  // namespace

std::string Problem::format() const
{
    std::string out;
    switch (severity) {
    case Severity::Note: out = "note: "; break;
    case Severity::Warning: out = "warning: "; break;
    case Severity::Error: out = "error: "; break;
    }
    if (!graph.empty()) out += graph + ": ";
    if (!node.empty()) out += "'" + node + "': ";
    return out + message;
}

std::vector<Problem> verifyGraph(const Graph& g, const OpRegistry& reg)
{
    std::vector<Problem> out;
    Verifier(reg, out).run(g, "", 0);
    return out;
}

bool hasErrors(const std::vector<Problem>& problems)
{
    return std::any_of(problems.begin(), problems.end(),
                       [](const Problem& p) { return p.severity == Severity::Error; });
}

std::vector<std::string> unknownOperators(const Graph& g, const OpRegistry& reg)
{
    std::set<std::string> names;
    std::unordered_set<const Graph*> seen;
    collectUnknown(g, reg, names, seen, 0);
    return {names.begin(), names.end()};
}

}  // namespace fxl
