// cse: merges call nodes that compute the same value (same target, same arguments after
// merging, same kwargs), keeping the first. Only pure ops take part: random ops, mutations,
// ops with side effects and uninitialised factories never merge. A backward node is never
// merged into a forward value unless across_phases=true (that would undo a checkpoint's
// recomputation); collectives merge only with collectives=true, and only as a whole chain
// "collective -> wait_tensor" (an FSDP all-gather recomputed in the backward and its forward
// copy, docs/passes.md section 4). What was refused is noted.
#include <algorithm>
#include <cstring>
#include <numeric>
#include <unordered_map>
#include <unordered_set>

#include "core/analysis/phases.hpp"
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
               "Nodes with different recompute tags, ac_graph_id, phase or autograd_backward are kept apart unless "
               "ignore_tags=true.\n"
               "Memory and communication decisions stay: in a joint graph a backward node is never merged into a "
               "forward value (the backward's recomputation after a checkpoint, a backward re-all-gather: merging "
               "keeps the forward value alive until the backward) unless across_phases=true (phases by "
               "phases.hpp); collectives merge only with collectives=true, and then only as a whole chain "
               "\"collective -> wait_tensor\". The merges refused are noted (count and first names) and listed in "
               "the stats \"refused_merges\".";
    }
    std::vector<PassOption> options() const override
    {
        return {{"ignore_tags",
                 OptionType::Bool,
                 "false",
                 {},
                 "merge nodes even when their recompute tag, ac_graph_id, phase or autograd_backward differ"},
                {"collectives",
                 OptionType::Bool,
                 "false",
                 {},
                 "merge equal collective -> wait_tensor chains (an FSDP all-gather recomputed in the backward and "
                 "its forward copy); off, they stay: each is a communication of its own"},
                {"across_phases",
                 OptionType::Bool,
                 "false",
                 {},
                 "merge a backward node into an equal forward value (undoes a checkpoint's recomputation: the "
                 "forward value then lives until the backward)"}};
    }

    void run(Graph& g, const PassOptions& opts, PassContext& ctx) const override
    {
        const bool ignoreTags = opts.getBool("ignore_tags");
        const bool collectives = opts.getBool("collectives");
        const bool acrossPhases = opts.getBool("across_phases");
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

        // Phases: a backward node is never merged into a forward value (nor the other way) unless
        // across_phases: the backward's own recomputation (a checkpoint, a re-all-gather) is a memory
        // decision, and merging it back keeps the forward value alive until the backward. Only in a
        // graph that has both (a joint); a forward or backward graph is one phase.
        const PhaseInfo ph = classifyPhases(g);
        const bool usePhases = !acrossPhases && (ctx.graphRole.empty() || ctx.graphRole == "joint")
            && ph.firstBackward != kNoNode && backwardOnlyGraph(g, ph, "cse").empty();
        std::vector<NodeId> rep(maxId);
        std::iota(rep.begin(), rep.end(), NodeId{0});
        // srep: the representatives had every merge been allowed (collectives, across phases), to
        // find the merges refused, those that follow a refused one included.
        std::vector<NodeId> srep = rep;
        // key -> the first node with that key in each phase (slot 1: backward, when usePhases)
        struct Firsts
        {
            NodeId inPhase[2] = {kNoNode, kNoNode};
        };
        auto slot = [&](NodeId id) { return usePhases && ph.of(id) == NodePhase::Backward ? 1 : 0; };
        std::unordered_map<std::string, Firsts> seen;  // pure ops
        std::unordered_map<std::string, Firsts> seenColl;  // collectives (with their wait)
        std::vector<NodeId> waitOf(maxId, kNoNode);  // collective -> its only user, a wait
        std::vector<NodeId> dups;  // in graph order
        size_t chains = 0;
        struct Refused
        {
            NodeId node, into;
            const char* why;
        };
        std::vector<Refused> refused;
        auto refuse = [&](NodeId id, NodeId into, const char* why) {
            refused.push_back({id, into, why});
            srep[static_cast<size_t>(id)] = srep[static_cast<size_t>(into)];
        };
        // The node's key under srep, when an input's merge was refused ("" otherwise).
        auto shadowKey = [&](const Node& n) {
            bool differs = false;
            auto visit = [&](NodeId p) {
                if (p >= 0 && static_cast<size_t>(p) < maxId
                    && rep[static_cast<size_t>(p)] != srep[static_cast<size_t>(p)])
                    differs = true;
            };
            for (const auto& a : n.args) a.forEachNode(visit);
            for (const auto& kv : n.kwargs) kv.second.forEachNode(visit);
            return differs ? nodeKey(n, srep, ignoreTags) : std::string();
        };
        // The node a refused merge would have kept: same phase first, else the other one.
        auto wouldMergeInto = [&](const std::unordered_map<std::string, Firsts>& map, const std::string& key, NodeId id,
                                  auto&& accept) {
            auto it = map.find(key);
            if (it == map.end()) return kNoNode;
            const int sl = slot(id);
            for (NodeId c : {it->second.inPhase[sl], it->second.inPhase[1 - sl]})
                if (c != kNoNode && c != id && accept(c)) return c;
            return kNoNode;
        };
        auto whyNot = [&](NodeId id, NodeId into) {
            if (slot(id) == slot(into)) return "after a refused merge";
            return slot(id) == 1 ? "backward into forward" : "forward into backward";
        };
        auto isWaitOp = [&](NodeId id) {
            const OpInfo* op = info[static_cast<size_t>(id)];
            return op && op->has(kTraitWait);
        };

        for (NodeId id : order) {
            const size_t ix = static_cast<size_t>(id);
            if (rep[ix] != id || srep[ix] != id) continue;  // already merged or refused (a wait of a chain)
            const Node& n = g.node(id);
            const OpInfo* op = info[ix];
            if (!op || readsTainted(n)) continue;
            const int sl = slot(id);
            if (op->has(kTraitCollective)) {
                if (impureReason(n, reg, DceOptions{true, false, false}) != ImpureReason::None) continue;
                if (n.users.size() != 1 || !isWaitOp(n.users[0])) continue;
                const NodeId w = n.users[0];
                // The kept wait must come first so the duplicate wait's users stay after it.
                auto chainMerges = [&](NodeId first) {
                    const NodeId w0 = waitOf[static_cast<size_t>(first)];
                    return w0 != kNoNode && g.positionOf(w0) < g.positionOf(w)
                        && (ignoreTags || tagKey(g.node(w0)) == tagKey(g.node(w)));  // the waits' tags agree
                };
                const std::string key = nodeKey(n, rep, ignoreTags);
                Firsts& f = seenColl[key];
                const NodeId first = f.inPhase[sl];
                if (collectives && first != kNoNode && chainMerges(first)) {
                    const NodeId w0 = waitOf[static_cast<size_t>(first)];
                    rep[ix] = first;
                    srep[ix] = srep[static_cast<size_t>(first)];
                    rep[static_cast<size_t>(w)] = w0;
                    srep[static_cast<size_t>(w)] = srep[static_cast<size_t>(w0)];
                    dups.push_back(id);
                    dups.push_back(w);
                    ++chains;
                    continue;
                }
                if (first == kNoNode) f.inPhase[sl] = id;
                waitOf[ix] = w;
                const std::string skey = shadowKey(n);
                const NodeId into = wouldMergeInto(seenColl, skey.empty() ? key : skey, id, chainMerges);
                if (into != kNoNode) {
                    const char* why = !collectives ? "collective" : whyNot(id, into);
                    refuse(id, into, why);
                    refuse(w, waitOf[static_cast<size_t>(into)], why);
                }
                continue;
            }
            if (impureReason(n, reg, DceOptions{}) != ImpureReason::None) continue;
            if (op->has(kTraitWait) || op->has(kTraitCommunication) || op->has(kTraitHigherOrder)
                || op->has(kTraitDynamicShape) || isUninitFactory(*op))
                continue;
            const std::string key = nodeKey(n, rep, ignoreTags);
            Firsts& f = seen[key];
            if (const NodeId first = f.inPhase[sl]; first != kNoNode) {
                rep[ix] = first;
                srep[ix] = srep[static_cast<size_t>(first)];
                dups.push_back(id);
                continue;
            }
            f.inPhase[sl] = id;
            const std::string skey = shadowKey(n);
            const NodeId into = wouldMergeInto(seen, skey.empty() ? key : skey, id, [](NodeId) { return true; });
            if (into != kNoNode) refuse(id, into, whyNot(id, into));
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
        noteRefused(g, refused, prefix, ctx);
    }

private:
    template<class R>
    static void noteRefused(const Graph& g, const std::vector<R>& refused, const std::string& prefix, PassContext& ctx)
    {
        size_t phases = 0, colls = 0, follow = 0;
        std::vector<std::string> lines;
        nlohmann::json list = ctx.log.stats.value("refused_merges", nlohmann::json::array());
        for (const R& r : refused) {
            const std::string why = r.why;
            (why == "collective" ? colls : why == "after a refused merge" ? follow : phases) += 1;
            lines.push_back(prefix + g.node(r.node).name + " -> " + g.node(r.into).name + " (" + why + ")");
            list.push_back({{"node", g.node(r.node).name}, {"into", g.node(r.into).name}, {"why", why}});
        }
        ctx.log.stats["refused"] = ctx.log.stats.value("refused", size_t{0}) + refused.size();
        ctx.log.stats["refused_merges"] = list;
        if (refused.empty()) return;
        std::string parts;
        auto part = [&](size_t k, const std::string& text) {
            if (k) parts += (parts.empty() ? "" : ", ") + std::to_string(k) + " " + text;
        };
        part(phases, "across the forward/backward boundary (across_phases=true merges them)");
        part(colls, "collective (collectives=true merges whole collective -> wait_tensor chains)");
        part(follow, "reading a value whose merge was refused");
        ctx.note(prefix + "refused " + std::to_string(refused.size()) + " merge" + (refused.size() == 1 ? "" : "s")
                 + " (memory and communication decisions kept): " + parts);
        ctx.noteList(lines, "refused merges", "all in the step's stats \"refused_merges\", with --json");
    }
};

}  // namespace

std::unique_ptr<Pass> makeCsePass() { return std::make_unique<CsePass>(); }

}  // namespace fxl
