// remat: realise recompute tags inside one fwd+loss+bwd graph (docs/passes.md section 8, torchtitan's
// in-place variant): every forward value tagged MUST/PREFER_RECOMPUTE that the backward needs is
// re-executed right before its earliest backward consumer, and the forward original is erased
// when nothing uses it any more.
#include <algorithm>
#include <map>
#include <set>

#include "core/analysis/phases.hpp"
#include "core/ops/op_writes.hpp"
#include "passes/node_kinds.hpp"
#include "passes/pass.hpp"
#include "passes/remat.hpp"
#include "passes/sac.hpp"

namespace fxl {

namespace {

bool isCall(const Node& n)
{
    return n.op == NodeOp::CallFunction || n.op == NodeOp::CallMethod || n.op == NodeOp::CallModule;
}

// Replaces references to `from` inside `a` by `to`, reporting each place ("arg 1", "arg 0[2]").
void rewireArg(Arg& a, NodeId from, NodeId to, const std::string& where, std::vector<std::string>& places)
{
    if (a.kind == Arg::Kind::Node) {
        if (a.node == from) {
            a.node = to;
            places.push_back(where);
        }
        return;
    }
    for (size_t k = 0; k < a.items.size(); ++k)
        rewireArg(a.items[k], from, to, where + "[" + std::to_string(k) + "]", places);
    for (size_t k = 0; k < a.dict.size(); ++k) {
        rewireArg(a.dict[k].first, from, to, where + "{key " + std::to_string(k) + "}", places);
        rewireArg(a.dict[k].second, from, to, where + "[" + std::to_string(k) + "]", places);
    }
}

std::vector<std::string> rewireNode(Node& n, NodeId from, NodeId to)
{
    std::vector<std::string> places;
    for (size_t k = 0; k < n.args.size(); ++k) rewireArg(n.args[k], from, to, "arg " + std::to_string(k), places);
    for (auto& kv : n.kwargs) rewireArg(kv.second, from, to, "kwarg " + kv.first, places);
    return places;
}

// A graph with the same header and the nodes of `order` (ids of g), in that order. The nodes are
// moved out of g (one O(n) rebuild instead of an O(n) order edit per inserted or erased node).
Graph rebuild(Graph& g, const std::vector<NodeId>& order)
{
    Graph out;
    out.className = g.className;
    out.signature = g.signature;
    out.pytreeArgNames = g.pytreeArgNames;
    out.outputPytree = g.outputPytree;
    out.outputIsList = g.outputIsList;
    out.outputDescs = g.outputDescs;
    out.subgraphs = g.subgraphs;
    out.reserveNodes(order.size());
    size_t cap = 0;
    for (NodeId id : order) cap = std::max(cap, static_cast<size_t>(id) + 1);
    std::vector<NodeId> newId(cap, kNoNode);
    for (size_t k = 0; k < order.size(); ++k) newId[static_cast<size_t>(order[k])] = static_cast<NodeId>(k);
    auto remap = [&](NodeId& r) {
        r = (r >= 0 && static_cast<size_t>(r) < cap) ? newId[static_cast<size_t>(r)] : kNoNode;
    };
    for (NodeId id : order) {
        Node n = std::move(g.node(id));
        for (auto& a : n.args) a.forEachNodeMut(remap);
        for (auto& kv : n.kwargs) kv.second.forEachNodeMut(remap);
        out.addNode(std::move(n));
    }
    out.rebuildUsers();
    return out;
}

std::string joinNames(const Graph& g, const std::vector<NodeId>& ids, size_t max = 8)
{
    std::string s;
    for (size_t k = 0; k < ids.size() && k < max; ++k) s += (k ? ", " : "") + g.node(ids[k]).name;
    if (ids.size() > max) s += ", ... (" + std::to_string(ids.size()) + " in all)";
    return s;
}

class RematPass : public Pass
{
public:
    std::string name() const override { return "remat"; }
    std::string summary() const override
    {
        return "recompute tagged forward values right before their first backward use (fwd+loss+bwd graph)";
    }
    std::string description() const override
    {
        return "torchtitan's in-place remat_using_tags_for_fwd_loss_bwd_graph (docs/passes.md section 8). Tags are "
               "first "
               "normalised (docs/passes.md section 2.5, default-partition mode): a recomputable node with a "
               "recomputable user in "
               "a later AC region (larger ac_graph_id) is saved; a node without ac_graph_id feeding a recomputable "
               "user is saved (region input); recomputable in-place ops and the forward source of a buffer "
               "mutated in both forward and backward are saved (replaying a mutation would apply it twice). "
               "Then, for the single contiguous backward region that reads recomputable forward values, each "
               "backward node claims its recomputable forward ancestors (the walk stops at saved values); the "
               "duplicates \"<name>_recomputed\" go right before their earliest backward consumer, marked backward "
               "(phase backward, autograd_backward, provenance = the original), and only the direct backward "
               "consumers are rewired. Originals left without users are erased newest-first; no global DCE.\n"
               "Side effects and mutations (in-place, out=, auto_functionalized, with_effects, logging), collectives "
               "and ops the registry does not know are never recomputed on a PREFER_RECOMPUTE tag (by hand or by an "
               "old sac): they are saved, with a note; MUST_RECOMPUTE (sac's recompute=... list, an FSDP all-gather) "
               "recomputes them on purpose.\n"
               "Errors: RNG ops tagged for recompute (the graph cannot replay RNG state), more than one disjoint "
               "backward region needing recomputation, a graph with no backward (forward-only, inference, "
               "post-grad, Dynamo) or an AOT backward graph.";
    }
    std::vector<PassOption> options() const override
    {
        return {
            {"backward",
             OptionType::Enum,
             "auto",
             {"auto", "dataflow", "remat_pass_tag"},
             "how backward nodes are found: auto (custom.phase / phase / autograd_backward meta, else dataflow: "
             "phases.hpp), dataflow only, or from the first custom.remat_pass_tag == \"is_backward\" to the end"},
            {"skip_loss_regions",
             OptionType::Bool,
             "true",
             {},
             "ignore backward nodes up to the last node whose module path starts with loss / lm_head (chunked-loss "
             "backward runs are not remat regions)"},
            {"cleanup", OptionType::Bool, "true", {}, "normalise tags first (docs/passes.md section 2.5)"},
        };
    }

    void run(Graph& g, const PassOptions& opts, PassContext& ctx) const override
    {
        PhaseInfo ph = phases(g, opts.getString("backward"));
        if (const std::string why = noBackwardGraph(g, ph, "remat"); !why.empty()) throw PassError(why);
        if (const std::string why = backwardOnlyGraph(g, ph, "remat"); !why.empty()) throw PassError(why);
        g.rebuildUsers();
        ctx.log.stats["phases"] = ph.method();
        keepUnreplayableSaved(g, ph, ctx);

        auto fwdRecompute = [&](NodeId id) {
            const Node& n = g.node(id);
            return isCall(n) && ph.isForward(id) && isRecomputeTag(n.meta.recompute);
        };
        bool any = false;
        for (NodeId id : g.order()) any = any || fwdRecompute(id);
        if (!any) {
            ctx.note("remat: no forward node is tagged for recompute; nothing to do");
            ctx.log.stats["recomputed"] = 0;
            return;
        }
        if (opts.getBool("cleanup")) cleanupTags(g, ph, ctx);

        // --- backward regions and the one that needs remat
        std::vector<BackwardRegion> regions = backwardRegions(g, ph);
        ctx.log.stats["backward_regions"] = regions.size();
        if (opts.getBool("skip_loss_regions")) skipLossRegions(g, regions);
        std::vector<size_t> needing;
        std::vector<std::vector<NodeId>> needs(regions.size());
        for (size_t r = 0; r < regions.size(); ++r) {
            std::set<NodeId> seen;
            for (NodeId b : regions[r].nodes)
                forEachInput(g.node(b), [&](NodeId in) {
                    if (fwdRecompute(in) && seen.insert(in).second) needs[r].push_back(in);
                });
            if (!needs[r].empty()) needing.push_back(r);
        }
        if (needing.size() > 1) {
            std::string msg = "Detected " + std::to_string(needing.size())
                + " disjoint backward regions that require recomputation: ";
            for (size_t k = 0; k < needing.size(); ++k) {
                const auto& reg = regions[needing[k]];
                msg += (k ? "; " : "") + std::string("[") + g.node(reg.nodes.front()).name + " .. "
                    + g.node(reg.nodes.back()).name + "] reads " + joinNames(g, needs[needing[k]], 4);
            }
            msg += ". Only one contiguous backward region can be rematerialized in a forward-loss-backward graph";
            throw PassError(msg);
        }
        if (needing.empty()) {
            ctx.note("remat: no backward node reads a value tagged for recompute; nothing to do");
            ctx.log.stats["recomputed"] = 0;
            return;
        }
        std::vector<NodeId> rng;
        for (NodeId id : g.order())
            if (fwdRecompute(id) && isRngNode(g.node(id), ctx.registry)) rng.push_back(id);
        if (!rng.empty())
            throw PassError(
                "rematerialization in a forward-loss-backward graph does not support RNG ops in "
                "recompute regions: "
                + joinNames(g, rng)
                + ". Save them (MUST_SAVE) or use the joint-graph partitioner (partition), which saves random values "
                  "instead of recomputing them");

        const BackwardRegion& region = regions[needing.front()];
        realise(g, ph, region, ctx);
    }

private:
    static PhaseInfo phases(const Graph& g, const std::string& mode)
    {
        if (mode == "dataflow") {
            PhaseOptions o;
            o.useMeta = false;
            return classifyPhases(g, o);
        }
        PhaseInfo ph = classifyPhases(g);
        if (mode != "remat_pass_tag") return ph;
        // oldest generation: from the first custom.remat_pass_tag == "is_backward" to the end
        bool bw = false;
        ph.firstBackward = kNoNode;
        for (NodeId id : g.order()) {
            const Node& n = g.node(id);
            if (!isCall(n)) continue;
            if (!bw && n.meta.custom.is_object()) {
                auto it = n.meta.custom.find("remat_pass_tag");
                bw = it != n.meta.custom.end() && it->is_string() && it->get<std::string>() == "is_backward";
                if (bw) ph.firstBackward = id;
            }
            ph.phase[static_cast<size_t>(id)] = bw ? NodePhase::Backward : NodePhase::Forward;
            if (bw) ph.epilogue[static_cast<size_t>(id)] = 0;
        }
        if (ph.firstBackward == kNoNode)
            throw PassError("remat(backward=remat_pass_tag): no node carries custom.remat_pass_tag == \"is_backward\", "
                            "so no backward can be found this way; backward=auto finds it from phase meta or data "
                            "flow");
        return ph;
    }

    // A side effect, collective or unknown op tagged PREFER_RECOMPUTE (by hand, or by a tagger that
    // does not know better) is saved instead: running it again in the backward would log, mutate
    // or communicate twice. MUST_RECOMPUTE is a decision (sac's recompute list, an FSDP all-gather
    // policy) and stays.
    // A node that reads a value a later node writes in place (core/ops/op_writes.hpp
    // readsBeforeLaterWrite) is saved too, whatever its tag: recomputed in the backward it would
    // read the written values.
    static void keepUnreplayableSaved(Graph& g, const PhaseInfo& ph, PassContext& ctx)
    {
        UnreplayableCounts kept, onPurpose;
        // writes the forward makes: a recomputed node runs after all of them
        const std::vector<char> early =
            readsBeforeLaterWrite(g, ctx.registry, [&](NodeId w) { return ph.isForward(w); });
        std::vector<std::string> readsFirst;
        for (NodeId id : g.order()) {
            const Node& n = g.node(id);
            if (!isCall(n) || !ph.isForward(id) || !isRecomputeTag(n.meta.recompute)) continue;
            if (static_cast<size_t>(id) < early.size() && early[static_cast<size_t>(id)]
                && unreplayableKind(n, ctx.registry) == Unreplayable::None) {
                readsFirst.push_back(n.name);
                setTag(g, id, Recompute::MustSave, ctx);
                continue;
            }
            const Unreplayable k = unreplayableKind(n, ctx.registry);
            if (k == Unreplayable::None) continue;
            if (n.meta.recompute == Recompute::MustRecompute) {
                // a collective may be recomputed on purpose (FSDP's all-gather); a write may not
                if (const auto written = writtenArguments(n, ctx.registry); !written.empty()) {
                    std::string what;
                    for (const auto& w : written) what += (what.empty() ? "" : ", ") + w.name;
                    throw PassError("remat: " + n.name + " (" + n.target + ") is tagged MUST_RECOMPUTE but writes "
                                    + what + " in place: recomputing it in the backward would write "
                                    + (written.size() > 1 ? "them" : "it")
                                    + " twice; save it (sac saves every such node)");
                }
                onPurpose.add(k, n.name);
                continue;
            }
            kept.add(k, n.name);
            setTag(g, id, Recompute::MustSave, ctx);
        }
        ctx.log.stats["kept_saved"] = {{"side_effect", kept.sideEffect.size()},
                                       {"collective", kept.collective.size()},
                                       {"unknown_op", kept.unknown.size()}};
        if (kept.total())
            ctx.note("remat: not recomputing " + std::to_string(kept.total())
                     + " node(s) tagged PREFER_RECOMPUTE that must not run twice, saved instead: " + kept.text()
                     + "; tag them MUST_RECOMPUTE (sac(recompute=...)) to recompute them on purpose");
        if (onPurpose.total())
            ctx.note("remat: tagged MUST_RECOMPUTE on purpose, recomputed where the backward reads them: "
                     + onPurpose.text());
        ctx.log.stats["kept_saved"]["reads_before_write"] = readsFirst.size();
        if (!readsFirst.empty()) {
            std::string names;
            for (size_t k = 0; k < readsFirst.size() && k < 3; ++k) names += (k ? ", " : "") + readsFirst[k];
            if (readsFirst.size() > 3) names += ", ...";
            ctx.note("remat: not recomputing " + std::to_string(readsFirst.size())
                     + " node(s) that read a value a later node writes in place (recomputed in the backward they "
                       "would read the written values), saved instead: "
                     + names);
        }
    }

    static void setTag(Graph& g, NodeId id, Recompute r, PassContext& ctx)
    {
        Node& n = g.node(id);
        if (n.meta.recompute == r) return;
        ctx.tagSet(n.name, "recompute", std::string(recomputeName(n.meta.recompute)), std::string(recomputeName(r)));
        n.meta.recompute = r;
    }

    // docs/passes.md section 2.5, default-partition mode, over forward call nodes.
    static void cleanupTags(Graph& g, const PhaseInfo& ph, PassContext& ctx)
    {
        int64_t boundary = 0, regionInput = 0, inplace = 0, mutationSrc = 0;
        auto fwdCall = [&](NodeId id) { return isCall(g.node(id)) && ph.isForward(id); };
        for (NodeId id : g.order()) {
            if (!fwdCall(id)) continue;
            Node& n = g.node(id);
            if (isRecomputeTag(n.meta.recompute)) {
                if (writesInPlace(n, ctx.registry)) {
                    setTag(g, id, Recompute::MustSave, ctx);
                    ++inplace;
                    continue;
                }
                bool later = false;
                for (NodeId u : n.users) {
                    const Node& un = g.node(u);
                    if (fwdCall(u) && isRecomputeTag(un.meta.recompute) && un.meta.acGraphId && n.meta.acGraphId
                        && *un.meta.acGraphId > *n.meta.acGraphId)
                        later = true;
                }
                if (later) {
                    setTag(g, id, Recompute::MustSave, ctx);
                    ++boundary;
                }
            } else if (!n.meta.acGraphId && n.meta.recompute != Recompute::MustSave) {
                bool feeds = false;
                for (NodeId u : n.users) feeds = feeds || (fwdCall(u) && isRecomputeTag(g.node(u).meta.recompute));
                bool getitemOfRegion =
                    n.isGetitem() && !n.args.empty() && n.args[0].isNode() && g.node(n.args[0].node).meta.acGraphId;
                if (feeds && !getitemOfRegion) {
                    setTag(g, id, Recompute::MustSave, ctx);
                    ++regionInput;
                }
            }
        }
        // force_save_bw_mutation_src: copy_ into an input both in forward and in backward
        std::map<NodeId, std::vector<NodeId>> fwdCopies;
        std::set<NodeId> bwMutated;
        for (NodeId id : g.order()) {
            const Node& n = g.node(id);
            if (n.op != NodeOp::CallFunction || opPacket(n.target) != "aten.copy_" || n.args.size() < 2
                || !n.args[0].isNode() || g.node(n.args[0].node).op != NodeOp::Placeholder)
                continue;
            if (ph.isBackward(id))
                bwMutated.insert(n.args[0].node);
            else if (ph.isForward(id))
                fwdCopies[n.args[0].node].push_back(id);
        }
        for (const auto& [dst, copies] : fwdCopies) {
            if (!bwMutated.count(dst)) continue;
            for (NodeId c : copies) {
                const Arg& src = g.node(c).args[1];
                if (src.isNode() && fwdCall(src.node) && isRecomputeTag(g.node(src.node).meta.recompute)) {
                    setTag(g, src.node, Recompute::MustSave, ctx);
                    ++mutationSrc;
                }
            }
        }
        ctx.log.stats["cleanup"] = {{"region_boundary_saves", boundary},
                                    {"region_input_saves", regionInput},
                                    {"inplace_saves", inplace},
                                    {"bw_mutation_src_saves", mutationSrc}};
        if (boundary + regionInput + inplace + mutationSrc)
            ctx.note("remat: tag cleanup saved " + std::to_string(boundary) + " region-boundary, "
                     + std::to_string(regionInput) + " region-input, " + std::to_string(inplace) + " in-place and "
                     + std::to_string(mutationSrc) + " mutation-source value(s)");
    }

    // torchtitan's local port: backward runs up to the last loss / lm_head node are not remat
    // regions (chunked-loss backward).
    static void skipLossRegions(const Graph& g, std::vector<BackwardRegion>& regions)
    {
        const auto& order = g.order();
        std::optional<size_t> last;
        for (size_t p = 0; p < order.size(); ++p) {
            std::string mp = nodeModulePath(g.node(order[p]));
            std::string first = mp.substr(0, mp.find('.'));
            if (first.rfind("loss", 0) == 0 || first.rfind("lm_head", 0) == 0) last = p;
        }
        if (!last) return;
        std::vector<BackwardRegion> kept;
        for (auto& r : regions) {
            if (r.last <= *last) continue;
            if (r.first <= *last) {
                std::vector<NodeId> nodes;
                for (NodeId id : r.nodes)
                    if (g.positionOf(id) > *last) nodes.push_back(id);
                r.nodes = std::move(nodes);
                r.first = g.positionOf(r.nodes.front());
            }
            kept.push_back(std::move(r));
        }
        regions = std::move(kept);
    }

    static void realise(Graph& g, const PhaseInfo& ph, const BackwardRegion& region, PassContext& ctx)
    {
        auto fwdRecompute = [&](NodeId id) {
            const Node& n = g.node(id);
            return isCall(n) && ph.isForward(id) && isRecomputeTag(n.meta.recompute);
        };
        // 1. claims: the earliest backward consumer wins
        std::map<NodeId, NodeId> target;  // original -> backward node it goes before
        std::vector<NodeId> stack;
        for (NodeId b : region.nodes) {
            forEachInput(g.node(b), [&](NodeId in) {
                if (fwdRecompute(in)) stack.push_back(in);
            });
            while (!stack.empty()) {
                NodeId d = stack.back();
                stack.pop_back();
                if (target.count(d)) continue;
                target[d] = b;
                forEachInput(g.node(d), [&](NodeId in) {
                    if (fwdRecompute(in) && !target.count(in)) stack.push_back(in);
                });
            }
        }
        std::vector<NodeId> claimed;
        for (const auto& kv : target) claimed.push_back(kv.first);
        std::sort(claimed.begin(), claimed.end(),
                  [&](NodeId a, NodeId b) { return g.positionOf(a) < g.positionOf(b); });

        // 2. duplicates, in original order, args through the duplicates made so far (room made
        // first: ~30k appends to a 100k-node graph otherwise regrow its node vector repeatedly)
        size_t span = 0;
        for (NodeId id : g.order()) span = std::max(span, static_cast<size_t>(id) + 1);
        g.reserveNodes(span + claimed.size());
        std::map<NodeId, NodeId> dup;
        for (NodeId d : claimed) {
            Node c = g.node(d);
            c.id = kNoNode;
            c.users.clear();
            c.name = g.uniqueName(g.node(d).name + "_recomputed");
            auto remap = [&](NodeId& r) {
                auto it = dup.find(r);
                if (it != dup.end()) r = it->second;
            };
            for (auto& a : c.args) a.forEachNodeMut(remap);
            for (auto& kv : c.kwargs) kv.second.forEachNodeMut(remap);
            c.meta.phase = Phase::Backward;
            c.meta.autogradBackward = true;
            c.meta.provenance = g.node(d).name;
            if (ph.userAnnotated) {
                if (!c.meta.custom.is_object()) c.meta.custom = nlohmann::json::object();
                c.meta.custom["phase"] = "backward";
            }
            NodeId nid = g.addNode(std::move(c));  // appended now, placed by the rebuild below
            dup[d] = nid;
            ctx.added(g.node(nid).name, g.node(d).name);
        }

        // 3. rewire the direct backward consumers inside the region
        std::set<NodeId> inRegion(region.nodes.begin(), region.nodes.end());
        int64_t rewired = 0;
        for (NodeId d : claimed) {
            std::vector<NodeId> users = g.node(d).users;
            for (NodeId u : users) {
                if (!inRegion.count(u)) continue;
                for (const std::string& where : rewireNode(g.node(u), d, dup[d])) {
                    ctx.rewired(g.node(u).name, where, g.node(d).name, g.node(dup[d]).name);
                    ++rewired;
                }
            }
        }
        g.rebuildUsers();

        // 4. erase originals left without users, newest first, so chains collapse in one sweep
        std::set<NodeId> erased;
        for (auto it = claimed.rbegin(); it != claimed.rend(); ++it) {
            NodeId d = *it;
            if (!g.node(d).users.empty()) continue;
            erased.insert(d);
            ctx.removed(g.node(d).name);
            forEachInput(g.node(d), [&](NodeId in) {
                auto& us = g.node(in).users;
                us.erase(std::remove(us.begin(), us.end(), d), us.end());
            });
        }

        // 5. the new order: each duplicate right before its target, in original order
        std::map<NodeId, std::vector<NodeId>> before;  // target -> duplicates
        for (NodeId d : claimed) before[target[d]].push_back(dup[d]);
        std::set<NodeId> dupIds;
        for (const auto& kv : dup) dupIds.insert(kv.second);
        std::vector<NodeId> order;
        order.reserve(g.order().size());
        for (NodeId id : g.order()) {
            if (dupIds.count(id) || erased.count(id)) continue;
            auto it = before.find(id);
            if (it != before.end()) order.insert(order.end(), it->second.begin(), it->second.end());
            order.push_back(id);
        }

        // notes: one line per backward consumer that gets duplicates in front of it
        size_t shown = 0;
        for (const auto& [b, dups] : before) {
            if (++shown > 50) {
                ctx.note("... and " + std::to_string(before.size() - 50) + " more consumers");
                break;
            }
            ctx.note("before " + g.node(b).name + ": " + joinNames(g, dups, 12));
        }
        ctx.note("remat: " + std::to_string(claimed.size()) + " node(s) recomputed before "
                 + std::to_string(before.size()) + " backward consumer(s), " + std::to_string(rewired)
                 + " input(s) rewired, " + std::to_string(erased.size()) + " original(s) erased; region "
                 + g.node(region.nodes.front()).name + " .. " + g.node(region.nodes.back()).name);
        ctx.log.stats["recomputed"] = claimed.size();
        ctx.log.stats["consumers"] = before.size();
        ctx.log.stats["rewired"] = rewired;
        ctx.log.stats["erased"] = erased.size();
        ctx.log.stats["region"] = {{"first", g.node(region.nodes.front()).name},
                                   {"last", g.node(region.nodes.back()).name},
                                   {"nodes", region.nodes.size()}};
        g = rebuild(g, order);
    }
};

}  // namespace

std::unique_ptr<Pass> makeRematPass() { return std::make_unique<RematPass>(); }

}  // namespace fxl
