// Graph utilities shared by the passes.
#include "passes/graph_edit.hpp"

#include <algorithm>
#include <map>
#include <unordered_set>

#include "core/ops/op_writes.hpp"

namespace fxl {

std::string_view impureReasonName(ImpureReason r)
{
    switch (r) {
    case ImpureReason::None: return "pure";
    case ImpureReason::Placeholder: return "placeholder";
    case ImpureReason::Output: return "output";
    case ImpureReason::Inplace: return "in-place";
    case ImpureReason::SideEffect: return "side effect";
    case ImpureReason::Collective: return "collective";
    case ImpureReason::Random: return "random";
    case ImpureReason::Unknown: return "unknown op";
    }
    return "pure";
}

std::string recomputeText(Recompute r) { return std::string(recomputeName(r)); }

ImpureReason impureReason(const Node& n, const OpRegistry& reg, const DceOptions& opts)
{
    switch (n.op) {
    case NodeOp::Placeholder: return opts.removeUnusedInputs ? ImpureReason::None : ImpureReason::Placeholder;
    case NodeOp::Output: return ImpureReason::Output;
    case NodeOp::GetAttr: return ImpureReason::None;
    // A submodule may do anything.
    case NodeOp::CallModule: return ImpureReason::SideEffect;
    case NodeOp::CallMethod:
        // Tensor methods ending in '_' mutate self (add_, copy_, ...); others are pure.
        return writesInPlace(n, reg) ? ImpureReason::Inplace : ImpureReason::None;
    case NodeOp::CallFunction: break;
    }
    // Order matters for the per-reason counts: an in-place collective counts as in-place.
    // (core/ops/op_writes: the schema's (a!), and batch norm's running stats in training)
    if (writesInPlace(n, reg)) return ImpureReason::Inplace;
    const OpInfo* op = reg.find(OpRegistry::normalizeTarget(n.target));
    if (!op) return ImpureReason::Unknown;
    if (op->has(kTraitCollective) || op->has(kTraitWait) || op->has(kTraitCommunication))
        return opts.collectivesPure ? ImpureReason::None : ImpureReason::Collective;
    if (op->has(kTraitRandom) || dropsOut(n, *op)) return opts.randomPure ? ImpureReason::None : ImpureReason::Random;
    if (op->has(kTraitSideEffect)) return ImpureReason::SideEffect;
    if (op->has(kTraitHigherOrder)) {
        // Effect-token and mutation wrappers must stay; other HOPs are functional.
        const std::string& q = op->qualifiedName;
        if (q.find("with_effects") != std::string::npos || q.find("mutation") != std::string::npos)
            return ImpureReason::SideEffect;
    }
    return ImpureReason::None;
}

bool dropsOut(const Node& n, const OpInfo& op)
{
    const int i = op.schema.argIndex("dropout_p");
    if (i < 0) return false;
    const SchemaArg& a = op.schema.args[static_cast<size_t>(i)];
    const Arg* given =
        !a.kwargOnly && static_cast<size_t>(i) < n.args.size() ? &n.args[static_cast<size_t>(i)] : n.kwarg(a.name);
    if (!given || given->isNone()) return false;  // the default, 0
    if (given->kind == Arg::Kind::Float) return given->f != 0.0;
    if (given->kind == Arg::Kind::Int) return given->i != 0;
    return true;  // a value known only when it runs
}

size_t eraseNodes(Graph& g, std::vector<NodeId> ids, PassContext* ctx)
{
    ids.erase(std::remove_if(ids.begin(), ids.end(), [&](NodeId id) { return !g.alive(id); }), ids.end());
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    std::vector<std::pair<size_t, NodeId>> byPos;
    byPos.reserve(ids.size());
    for (NodeId id : ids) byPos.emplace_back(g.positionOf(id), id);
    std::sort(byPos.begin(), byPos.end());
    // Logged oldest first (reads like the graph), erased newest first.
    if (ctx)
        for (const auto& pi : byPos) ctx->removed(g.node(pi.second).name);
    g.removeNodes(ids);  // one sweep: removing nodes one at a time is O(n) each
    g.rebuildUsers();
    return byPos.size();
}

size_t eliminateDeadCode(Graph& g, const DceOptions& opts, PassContext* ctx)
{
    g.rebuildUsers();
    const OpRegistry& reg = ctx ? ctx->registry : OpRegistry::instance();
    const std::vector<NodeId> order = g.order();
    // Remaining use count per node (a node used twice by one consumer counts once, as users do).
    std::map<NodeId, size_t> uses;
    for (NodeId id : order) uses[id] = g.node(id).users.size();
    std::vector<NodeId> dead;
    std::map<ImpureReason, size_t> keptDead;  // unused nodes kept, per reason
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
        const Node& n = g.node(*it);
        if (uses[*it] != 0) continue;
        const ImpureReason why = impureReason(n, reg, opts);
        if (why != ImpureReason::None) {
            if (why != ImpureReason::Output && why != ImpureReason::Placeholder) ++keptDead[why];
            continue;
        }
        dead.push_back(*it);
        // Each distinct producer loses one user.
        std::unordered_set<NodeId> producers;
        auto visit = [&](NodeId p) { producers.insert(p); };
        for (const auto& a : n.args) a.forEachNode(visit);
        for (const auto& kv : n.kwargs) kv.second.forEachNode(visit);
        for (NodeId p : producers)
            if (auto u = uses.find(p); u != uses.end() && u->second > 0) --u->second;
    }
    // Log in graph order (oldest first) so the log reads like the graph; erase newest first.
    if (ctx) {
        std::vector<NodeId> inOrder(dead.rbegin(), dead.rend());
        for (NodeId id : inOrder) ctx->removed(g.node(id).name);
        for (const auto& [why, count] : keptDead) {
            ctx->note("kept " + std::to_string(count) + " unused node" + (count == 1 ? "" : "s") + ": "
                      + std::string(impureReasonName(why)));
            const std::string key = "kept_" + std::string(impureReasonName(why));
            ctx->log.stats[key] = ctx->log.stats.value(key, size_t{0}) + count;
        }
    }
    g.removeNodes(dead);
    g.rebuildUsers();
    return dead.size();
}

NodeId copyNodeBefore(Graph& g, const Node& src, const std::function<NodeId(NodeId)>& remap, NodeId before,
                      std::string_view nameHint, PassContext* ctx)
{
    // `src` may live in `g`: inserting can move it, so take what we need first.
    Node n = src;
    const std::string srcName = src.name;
    n.id = kNoNode;
    n.users.clear();
    auto re = [&](NodeId& id) { id = remap(id); };
    for (auto& a : n.args) a.forEachNodeMut(re);
    for (auto& kv : n.kwargs) kv.second.forEachNodeMut(re);
    n.name = g.uniqueName(nameHint.empty() ? std::string_view(srcName) : nameHint);
    n.meta.provenance = srcName;
    const std::string name = n.name;
    NodeId id = g.insertNode(std::move(n), before);
    if (ctx) ctx->added(name, srcName);
    return id;
}

namespace {

// Rewrites refs to `from` inside `a`, recording one position string per rewrite.
void rewire(Arg& a, NodeId from, NodeId to, const std::string& where, std::vector<std::string>& hits)
{
    if (a.kind == Arg::Kind::Node) {
        if (a.node == from) {
            a.node = to;
            hits.push_back(where);
        }
        return;
    }
    for (size_t i = 0; i < a.items.size(); ++i)
        rewire(a.items[i], from, to, where + "[" + std::to_string(i) + "]", hits);
    for (size_t i = 0; i < a.dict.size(); ++i) {
        const Arg& k = a.dict[i].first;
        const std::string key = k.kind == Arg::Kind::Str ? k.s : std::to_string(i);
        rewire(a.dict[i].second, from, to, where + "[" + key + "]", hits);
    }
}

}  // namespace

size_t replaceAllUsesLogged(Graph& g, NodeId from, NodeId to, PassContext* ctx)
{
    if (from == to) return 0;
    const std::string fromName = g.node(from).name;
    const std::string toName = g.node(to).name;
    // Only the users are visited (a whole-graph scan per call made chains of removals quadratic).
    std::vector<NodeId> consumers = g.node(from).users;
    // `to` reading `from` (a node inserted after it) keeps reading it: no self-reference.
    consumers.erase(std::remove(consumers.begin(), consumers.end(), to), consumers.end());
    std::sort(consumers.begin(), consumers.end(),
              [&](NodeId a, NodeId b) { return g.positionOf(a) < g.positionOf(b); });
    size_t count = 0;
    for (NodeId id : consumers) {
        Node& n = g.node(id);
        std::vector<std::string> hits;
        for (size_t i = 0; i < n.args.size(); ++i) rewire(n.args[i], from, to, "arg " + std::to_string(i), hits);
        for (auto& kv : n.kwargs) rewire(kv.second, from, to, "kwarg " + kv.first, hits);
        count += hits.size();
        if (ctx)
            for (const auto& w : hits) ctx->rewired(n.name, w, fromName, toName);
    }
    // Keep the user lists right for the next call (order: rebuildUsers() restores it).
    std::vector<NodeId>& toUsers = g.node(to).users;
    std::unordered_set<NodeId> have(toUsers.begin(), toUsers.end());
    for (NodeId c : consumers)
        if (have.insert(c).second) toUsers.push_back(c);
    std::vector<NodeId>& fromUsers = g.node(from).users;
    fromUsers.erase(std::remove_if(fromUsers.begin(), fromUsers.end(), [&](NodeId u) { return u != to; }),
                    fromUsers.end());
    return count;
}

bool isTopologicallyOrdered(const Graph& g, std::string* why)
{
    std::unordered_set<NodeId> defined;
    std::unordered_set<std::string> names;
    const auto& order = g.order();
    for (size_t i = 0; i < order.size(); ++i) {
        const Node& n = g.node(order[i]);
        if (!names.insert(n.name).second) {
            if (why) *why = "duplicate name '" + n.name + "'";
            return false;
        }
        if (n.op == NodeOp::Output && i + 1 != order.size()) {
            if (why) *why = "output node '" + n.name + "' is not last";
            return false;
        }
        std::string bad;
        auto check = [&](NodeId p) {
            if (!bad.empty()) return;
            if (!g.alive(p))
                bad = "'" + n.name + "' uses a removed node";
            else if (!defined.count(p))
                bad = "'" + n.name + "' uses '" + g.node(p).name + "' before it is defined";
        };
        for (const auto& a : n.args) a.forEachNode(check);
        for (const auto& kv : n.kwargs) kv.second.forEachNode(check);
        if (!bad.empty()) {
            if (why) *why = bad;
            return false;
        }
        defined.insert(order[i]);
    }
    return true;
}

}  // namespace fxl
