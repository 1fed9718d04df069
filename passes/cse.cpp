// cse: merges call nodes that compute the same value (same target, same arguments after
// merging, same kwargs), keeping the first. Only pure ops take part: random ops, mutations,
// ops with side effects and uninitialised factories never merge; collectives merge only as a
// whole chain "collective -> wait_tensor" (the FSDP all-gather recomputed in the backward and
// the copy baked into it must become one, docs/passes.md section 4).
#include <algorithm>
#include <cstring>
#include <numeric>
#include <unordered_map>
#include <unordered_set>

#include "passes/cse.hpp"
#include "passes/graph_edit.hpp"

namespace fxl {
namespace {

// A canonical text of an argument with node refs replaced by their representative.
void argKey(const Arg& a, const std::vector<NodeId>& rep, std::string& out)
{
    auto node = [&](NodeId id) {
        const size_t i = static_cast<size_t>(id);
        return (id >= 0 && i < rep.size()) ? rep[i] : id;
    };
    switch (a.kind) {
    case Arg::Kind::None: out += 'N'; return;
    case Arg::Kind::Node: out += '#' + std::to_string(node(a.node)); return;
    case Arg::Kind::Int: out += 'i' + std::to_string(a.i); return;
    case Arg::Kind::Float: {
        uint64_t bits = 0;
        std::memcpy(&bits, &a.f, sizeof bits);  // bitwise: 0.0 and -0.0 differ, nan == nan
        out += 'f' + std::to_string(bits);
        return;
    }
    case Arg::Kind::Bool: out += a.b ? "T" : "F"; return;
    case Arg::Kind::DType: out += 'd' + std::to_string(static_cast<int>(a.dtype)); return;
    case Arg::Kind::Ellipsis: out += "..."; return;
    case Arg::Kind::Str:
    case Arg::Kind::Device:
    case Arg::Kind::Layout:
    case Arg::Kind::MemoryFormat:
    case Arg::Kind::Op:
    case Arg::Kind::Raw:
        out += 'k' + std::to_string(static_cast<int>(a.kind)) + ':' + std::to_string(a.s.size()) + ':' + a.s;
        return;
    case Arg::Kind::List:
    case Arg::Kind::Tuple:
    case Arg::Kind::Slice:
        out += 'k' + std::to_string(static_cast<int>(a.kind)) + '[';
        for (const auto& x : a.items) {
            argKey(x, rep, out);
            out += ',';
        }
        out += ']';
        return;
    case Arg::Kind::Dict:
        out += '{';
        for (const auto& kv : a.dict) {
            argKey(kv.first, rep, out);
            out += ':';
            argKey(kv.second, rep, out);
            out += ',';
        }
        out += '}';
        return;
    }
}

// The tags that keep otherwise equal nodes apart: recompute policy, AC region, phase, autograd_backward.
std::string tagKey(const Node& n)
{
    std::string k = "|r" + std::to_string(static_cast<int>(n.meta.recompute));
    k += "|g" + (n.meta.acGraphId ? std::to_string(*n.meta.acGraphId) : std::string("-"));
    k += "|p" + std::to_string(static_cast<int>(n.meta.phase));
    k += "|b" + std::string(!n.meta.autogradBackward ? "-" : (*n.meta.autogradBackward ? "1" : "0"));
    return k;
}

std::string nodeKey(const Node& n, const std::vector<NodeId>& rep, bool ignoreTags)
{
    std::string k = n.target;
    k += '(';
    for (const auto& a : n.args) {
        argKey(a, rep, k);
        k += ',';
    }
    // kwargs by name: their order does not change the call.
    std::vector<const std::pair<std::string, Arg>*> kws;
    for (const auto& kv : n.kwargs) kws.push_back(&kv);
    std::sort(kws.begin(), kws.end(), [](auto* a, auto* b) { return a->first < b->first; });
    for (auto* kv : kws) {
        k += kv->first + '=';
        argKey(kv->second, rep, k);
        k += ',';
    }
    k += ')';
    if (!ignoreTags) k += tagKey(n);
    return k;
}

bool isUninitFactory(const OpInfo& op)
{
    const std::string& s = op.schema.name;
    return s == "empty" || s == "empty_like" || s == "empty_strided" || s == "new_empty" || s == "new_empty_strided"
        || s == "empty_permuted";
}

bool isAliasing(const OpInfo& op)
{
    return op.has(kTraitView) || op.has(kTraitViewList) || op.has(kTraitAliasNoAnnot) || op.has(kTraitBuiltin)
        || op.has(kTraitWait);
}

struct UnionFind
{
    std::vector<size_t> parent;
    explicit UnionFind(size_t n)
        : parent(n)
    {
        std::iota(parent.begin(), parent.end(), size_t{0});
    }
    size_t find(size_t x)
    {
        while (parent[x] != x) x = parent[x] = parent[parent[x]];
        return x;
    }
    void unite(size_t a, size_t b) { parent[find(a)] = find(b); }
};

class CsePass : public Pass
{
public:
    std::string name() const override { return "cse"; }
    std::string summary() const override { return "merge nodes that compute the same value"; }
    std::string description() const override
    {
        return "Common-subexpression elimination: call nodes with the same target, the same arguments (after "
               "earlier merges) and the same kwargs are merged into the first occurrence; its users are "
               "rewired and the duplicates removed. Only pure operators take part (not random, in-place, "
               "side-effecting, uninitialised factories, unknown ops, or anything touching a mutated tensor). "
               "A collective merges only together with its wait_tensor, as a chain. Nodes with different "
               "recompute tags, ac_graph_id, phase or autograd_backward are kept apart unless ignore_tags=true.";
    }
    std::vector<PassOption> options() const override
    {
        return {{"ignore_tags",
                 OptionType::Bool,
                 "false",
                 {},
                 "merge nodes even when their recompute tag, ac_graph_id, phase or autograd_backward differ"}};
    }

    void run(Graph& g, const PassOptions& opts, PassContext& ctx) const override
    {
        const bool ignoreTags = opts.getBool("ignore_tags");
        const OpRegistry& reg = ctx.registry;
        g.rebuildUsers();
        const std::vector<NodeId> order = g.order();
        size_t maxId = 0;
        for (NodeId id : order) maxId = std::max(maxId, static_cast<size_t>(id) + 1);

        std::vector<const OpInfo*> info(maxId, nullptr);
        for (NodeId id : order) {
            const Node& n = g.node(id);
            if (n.op == NodeOp::CallFunction)
                info[static_cast<size_t>(id)] = reg.find(OpRegistry::normalizeTarget(n.target));
        }

        // Tensors that may be mutated (directly or through an alias): nothing reading them
        // may merge, since two equal calls can see different contents.
        std::vector<uint8_t> tainted(maxId, 0);
        {
            UnionFind uf(maxId);
            bool anyMutation = false;
            std::vector<NodeId> mutatedArgs;
            for (NodeId id : order) {
                const Node& n = g.node(id);
                const OpInfo* op = info[static_cast<size_t>(id)];
                // Unknown ops and submodules may write their inputs: treat them as mutations.
                const bool mutates = impureReason(n, reg, DceOptions{}) == ImpureReason::Inplace
                    || n.op == NodeOp::CallModule || (n.op == NodeOp::CallFunction && !op);
                auto visit = [&](NodeId p) {
                    if (p < 0 || static_cast<size_t>(p) >= maxId) return;
                    if (mutates) mutatedArgs.push_back(p);
                    if (op && isAliasing(*op)) uf.unite(static_cast<size_t>(id), static_cast<size_t>(p));
                };
                for (const auto& a : n.args) a.forEachNode(visit);
                for (const auto& kv : n.kwargs) kv.second.forEachNode(visit);
                anyMutation = anyMutation || mutates;
            }
            if (anyMutation) {
                std::unordered_set<size_t> bad;
                for (NodeId p : mutatedArgs) bad.insert(uf.find(static_cast<size_t>(p)));
                for (NodeId id : order)
                    if (bad.count(uf.find(static_cast<size_t>(id)))) tainted[static_cast<size_t>(id)] = 1;
            }
        }
        auto readsTainted = [&](const Node& n) {
            bool t = tainted[static_cast<size_t>(n.id)] != 0;
            auto visit = [&](NodeId p) {
                if (p >= 0 && static_cast<size_t>(p) < maxId && tainted[static_cast<size_t>(p)]) t = true;
            };
            for (const auto& a : n.args) a.forEachNode(visit);
            for (const auto& kv : n.kwargs) kv.second.forEachNode(visit);
            return t;
        };

        std::vector<NodeId> rep(maxId);
        std::iota(rep.begin(), rep.end(), NodeId{0});
        std::unordered_map<std::string, NodeId> seen;  // pure ops
        std::unordered_map<std::string, NodeId> seenColl;  // collectives (with their wait)
        std::vector<NodeId> waitOf(maxId, kNoNode);  // collective -> its only user, a wait
        std::vector<NodeId> dups;  // in graph order
        size_t chains = 0;

        auto isWaitOp = [&](NodeId id) {
            const OpInfo* op = info[static_cast<size_t>(id)];
            return op && op->has(kTraitWait);
        };

        for (NodeId id : order) {
            const size_t ix = static_cast<size_t>(id);
            if (rep[ix] != id) continue;  // already merged (a wait of a merged chain)
            const Node& n = g.node(id);
            const OpInfo* op = info[ix];
            if (!op || readsTainted(n)) continue;
            if (op->has(kTraitCollective)) {
                if (impureReason(n, reg, DceOptions{true, false, false}) != ImpureReason::None) continue;
                if (n.users.size() != 1 || !isWaitOp(n.users[0])) continue;
                const NodeId w = n.users[0];
                const std::string key = nodeKey(n, rep, ignoreTags);
                auto it = seenColl.find(key);
                if (it == seenColl.end()) {
                    seenColl.emplace(key, id);
                    waitOf[ix] = w;
                    continue;
                }
                const NodeId w0 = waitOf[static_cast<size_t>(it->second)];
                // The kept wait must come first so the duplicate wait's users stay after it.
                if (w0 == kNoNode || g.positionOf(w0) > g.positionOf(w)) continue;
                if (!ignoreTags && tagKey(g.node(w0)) != tagKey(g.node(w))) continue;  // the waits' tags differ
                rep[ix] = it->second;
                rep[static_cast<size_t>(w)] = w0;
                dups.push_back(id);
                dups.push_back(w);
                ++chains;
                continue;
            }
            if (impureReason(n, reg, DceOptions{}) != ImpureReason::None) continue;
            if (op->has(kTraitWait) || op->has(kTraitCommunication) || op->has(kTraitHigherOrder)
                || op->has(kTraitDynamicShape) || isUninitFactory(*op))
                continue;
            const std::string key = nodeKey(n, rep, ignoreTags);
            auto [it, inserted] = seen.emplace(key, id);
            if (inserted) continue;
            rep[ix] = it->second;
            dups.push_back(id);
        }

        // Rewire in graph order, then drop the duplicates (now unused).
        std::sort(dups.begin(), dups.end(), [&](NodeId a, NodeId b) { return g.positionOf(a) < g.positionOf(b); });
        // Entries for consumers that are duplicates themselves (and go) would only be noise.
        const std::unordered_set<NodeId> dupSet(dups.begin(), dups.end());
        for (NodeId d : dups) {
            PassContext tmp(ctx.registry);
            tmp.graphRole = ctx.graphRole;
            replaceAllUsesLogged(g, d, rep[static_cast<size_t>(d)], &tmp);
            for (auto& e : tmp.log.rewired)
                if (!dupSet.count(g.findByName(e.consumer))) ctx.log.rewired.push_back(std::move(e));
        }
        eraseNodes(g, dups, &ctx);

        const std::string prefix = ctx.graphRole.empty() ? "" : ctx.graphRole + ": ";
        ctx.note(
            prefix + "merged " + std::to_string(dups.size()) + " duplicate node" + (dups.size() == 1 ? "" : "s")
            + (chains ? " (" + std::to_string(chains) + " collective chain" + (chains == 1 ? "" : "s") + ")" : ""));
        ctx.log.stats["merged"] = ctx.log.stats.value("merged", size_t{0}) + dups.size();
        ctx.log.stats["collective_chains"] = ctx.log.stats.value("collective_chains", size_t{0}) + chains;
    }
};

}  // namespace

std::unique_ptr<Pass> makeCsePass() { return std::make_unique<CsePass>(); }

}  // namespace fxl
