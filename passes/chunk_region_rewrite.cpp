// chunk_region: the rewrite of a planned region (split the live-ins, duplicate the body per
// chunk with literal shapes rewritten, chain mutations, materialize the live-outs) and the
// finishing touches (unused materializations, topological order, value meta).
#include <algorithm>
#include <functional>
#include <queue>

#include "core/ops/shape_prop.hpp"
#include "passes/chunk_region_impl.hpp"
#include "passes/graph_edit.hpp"

namespace fxl::chunkreg {
namespace {

std::string baseOf(const std::string& target)
{
    std::string t = target;
    if (t.rfind("aten.", 0) == 0) t = t.substr(5);
    auto dot = t.find('.');
    return dot == std::string::npos ? t : t.substr(0, dot);
}

// Index of the literal size list a node's output extents come from (-1: none).
int sizeArgIndex(const std::string& b)
{
    if (b == "view" || b == "_unsafe_view" || b == "reshape" || b == "_reshape_alias" || b == "expand") return 1;
    if (b == "zeros" || b == "ones" || b == "empty" || b == "full" || b == "empty_strided") return 0;
    if (b == "new_zeros" || b == "new_ones" || b == "new_empty" || b == "new_full") return 1;
    if (b == "slice_backward" || b == "select_backward") return 1;
    if (b.rfind("upsample_", 0) == 0 && b.find("_backward") != std::string::npos) return 2;  // input_size
    return -1;
}

// Index of an integer argument that is the batch size (group norm's N), -1: none.
int batchSizeArgIndex(const std::string& b)
{
    if (b == "native_group_norm") return 3;
    if (b == "native_group_norm_backward") return 5;
    return -1;
}

std::optional<std::vector<int64_t>> computeStride(const std::vector<int64_t>& oldshape,
                                                  const std::vector<int64_t>& oldstride,
                                                  const std::vector<int64_t>& newshape)
{
    if (oldshape.empty()) return std::vector<int64_t>(newshape.size(), 1);
    int64_t numel = 1;
    for (auto s : oldshape) numel *= s;
    if (numel == 0) return std::nullopt;
    std::vector<int64_t> newstride(newshape.size());
    int64_t viewD = static_cast<int64_t>(newshape.size()) - 1;
    int64_t chunkBase = oldstride.back();
    int64_t tensorNumel = 1, viewNumel = 1;
    for (int64_t td = static_cast<int64_t>(oldshape.size()) - 1; td >= 0; --td) {
        tensorNumel *= oldshape[static_cast<size_t>(td)];
        if (td == 0
            || (oldshape[static_cast<size_t>(td - 1)] != 1
                && oldstride[static_cast<size_t>(td - 1)] != tensorNumel * chunkBase)) {
            while (viewD >= 0 && (viewNumel < tensorNumel || newshape[static_cast<size_t>(viewD)] == 1)) {
                newstride[static_cast<size_t>(viewD)] = viewNumel * chunkBase;
                viewNumel *= newshape[static_cast<size_t>(viewD)];
                --viewD;
            }
            if (viewNumel != tensorNumel) return std::nullopt;
            if (td > 0) {
                chunkBase = oldstride[static_cast<size_t>(td - 1)];
                tensorNumel = 1;
                viewNumel = 1;
            }
        }
    }
    if (viewD != -1) return std::nullopt;
    return newstride;
}

std::vector<int64_t> ints(const std::vector<SymInt>& v)
{
    std::vector<int64_t> o;
    for (const auto& x : v) o.push_back(x.maybeValue().value_or(-1));
    return o;
}

std::vector<int64_t> intItems(const Arg& a)
{
    std::vector<int64_t> o;
    for (const auto& x : a.items) o.push_back(x.kind == Arg::Kind::Int ? x.i : -1);
    return o;
}

nlohmann::json chunkMeta(const std::string& role, const Plan& p)
{
    nlohmann::json j;
    j["pass"] = "chunk_region";
    j["role"] = role;
    j["region"] = p.root;
    j["backward"] = p.backward;
    return j;
}

// Stable topological order: the desired sequence, each node delayed until its inputs are placed.
void reorder(Graph& g, const std::vector<NodeId>& desired)
{
    std::unordered_map<NodeId, size_t> rank;
    for (size_t i = 0; i < desired.size(); ++i) rank[desired[i]] = i;
    std::unordered_map<NodeId, int> pendingIn;
    std::unordered_map<NodeId, std::vector<NodeId>> users;
    for (NodeId id : desired) {
        const Node& n = g.node(id);
        std::set<NodeId> ins;
        for (const auto& a : n.args) a.forEachNode([&](NodeId x) { ins.insert(x); });
        for (const auto& kv : n.kwargs) kv.second.forEachNode([&](NodeId x) { ins.insert(x); });
        pendingIn[id] = static_cast<int>(ins.size());
        for (NodeId x : ins) users[x].push_back(id);
    }
    using Item = std::pair<size_t, NodeId>;
    std::priority_queue<Item, std::vector<Item>, std::greater<Item>> ready;
    for (NodeId id : desired)
        if (pendingIn[id] == 0) ready.push({rank[id], id});
    std::vector<NodeId> out;
    out.reserve(desired.size());
    while (!ready.empty()) {
        NodeId id = ready.top().second;
        ready.pop();
        out.push_back(id);
        for (NodeId u : users[id])
            if (--pendingIn[u] == 0) ready.push({rank[u], u});
    }
    if (out.size() != desired.size()) throw PassError("chunk_region: internal error: the rewritten graph has a cycle");
    g.setOrder(std::move(out));
    g.rebuildUsers();
}

}  // namespace

void lowerRegion(State& st, const Plan& plan)
{
    Graph& g = st.g;
    PassContext& ctx = st.ctx;
    State::Pending& pd = st.pending;
    const int K = st.cfg.spec.chunks;
    const std::set<NodeId> body(plan.body.begin(), plan.body.end());
    const std::string parent = parentPath(plan.root);
    const std::string dirName = plan.backward ? "backward" : "forward";
    // (no references to nodes are kept across addNode: the node storage may move)
    const Phase firstPhase = g.node(plan.body.front()).meta.phase;
    const std::optional<bool> firstAutograd = g.node(plan.body.front()).meta.autogradBackward;
    auto newMeta = [&](Node& n, const std::string& role) {
        n.meta = NodeMeta();
        n.meta.modulePath = parent;
        n.meta.phase = plan.backward ? Phase::Backward : firstPhase;
        n.meta.autogradBackward = firstAutograd;
        n.meta.chunk = chunkMeta(role, plan);
    };
    std::vector<NodeId> added;  // new nodes in the order they should run

    // ---- live-ins
    std::map<NodeId, std::vector<NodeId>> pieces;
    bool anySplit = false, anyProv = false;
    for (NodeId L : plan.liveIns) {
        auto pc = st.perChunk.find({plan.root, L});
        if (pc != st.perChunk.end()) {
            pieces[L] = pc->second;
            anyProv = true;
            continue;
        }
        AxisInfo want = st.axisOf(L);
        if (!want.isAxis()) {
            if (!want.isFree()) continue;  // a reduced value from outside: every chunk reads it whole
            bool co = false;
            for (NodeId b : plan.body)
                for (const auto& c : st.ax.coSplit[static_cast<size_t>(b)])
                    if (c.operand == L) {
                        want = c.want;
                        co = true;
                    }
            if (!co) continue;  // parameter-derived: shared
        }
        const Node ln = g.node(L);
        if (!ln.val.isTensor())
            throw PassError("chunk_region: live-in '" + ln.name + "' of region " + plan.root
                            + " carries the axis but has no tensor meta");
        const auto sz = ints(ln.val.tensor.sizes);
        if (want.outer != 1)
            throw PassError("chunk_region: live-in '" + ln.name + "' of region " + plan.root + " (" + dirName
                            + ") carries the " + std::string(chunkAxisName(st.cfg.spec.axis))
                            + " axis inside a flattened dim " + std::to_string(want.dim) + " of extent "
                            + std::to_string(sz[static_cast<size_t>(want.dim)]) + " (" + std::to_string(want.outer)
                            + " x " + std::to_string(st.ax.n) + " x " + std::to_string(want.inner)
                            + "): a chunk is not a contiguous slice of it; choose a region whose activations keep the "
                              "axis in a dim of their own");
        Node s;
        s.op = NodeOp::CallFunction;
        s.target = "aten.split_with_sizes.default";
        std::vector<Arg> szs;
        for (auto v : st.sizes) szs.push_back(Arg::ofInt(v * want.inner));
        s.args = {Arg::ofNode(L), Arg::ofList(std::move(szs)), Arg::ofInt(want.dim)};
        s.name = g.uniqueName(ln.name + "_split");
        newMeta(s, "split");
        s.meta.chunk["original"] = ln.name;
        s.meta.chunk["dim"] = want.dim;
        const NodeId sid = g.addNode(std::move(s));
        st.setAxis(sid, std::vector<AxisInfo>(static_cast<size_t>(K), want));
        added.push_back(sid);
        ctx.added(g.node(sid).name);
        // a piece is contiguous when every dim before the axis has extent 1 and the value is
        bool contiguous = true;
        {
            const auto strides =
                ints(ln.val.tensor.strides.empty() ? contiguousStrides(ln.val.tensor.sizes) : ln.val.tensor.strides);
            int64_t expect = 1;
            for (int64_t i = static_cast<int64_t>(sz.size()) - 1; i >= 0; --i) {
                if (sz[static_cast<size_t>(i)] != 1 && strides[static_cast<size_t>(i)] != expect) contiguous = false;
                expect *= sz[static_cast<size_t>(i)];
            }
            for (int i = 0; i < want.dim; ++i)
                if (sz[static_cast<size_t>(i)] != 1) contiguous = false;
        }
        std::vector<NodeId> ps;
        for (int k = 0; k < K; ++k) {
            Node gi;
            gi.op = NodeOp::CallFunction;
            gi.target = "operator.getitem";
            gi.args = {Arg::ofNode(sid), Arg::ofInt(k)};
            gi.name = g.uniqueName(ln.name + "_chunk" + std::to_string(k));
            newMeta(gi, "split");
            gi.meta.chunk["original"] = ln.name;
            const NodeId gid = g.addNode(std::move(gi));
            st.setAxis(gid, {want});
            added.push_back(gid);
            ctx.added(g.node(gid).name);
            NodeId piece = gid;
            if (!contiguous) {
                Node c;
                c.op = NodeOp::CallFunction;
                c.target = "aten.clone.default";
                c.args = {Arg::ofNode(gid)};
                c.kwargs = {{"memory_format", Arg::ofMemoryFormat("contiguous_format")}};
                c.name = g.uniqueName(ln.name + "_chunk" + std::to_string(k) + "_contiguous");
                newMeta(c, "split");
                c.meta.chunk["original"] = ln.name;
                piece = g.addNode(std::move(c));
                st.setAxis(piece, {want});
                added.push_back(piece);
                ctx.added(g.node(piece).name);
            }
            ps.push_back(piece);
        }
        pieces[L] = ps;
        st.perChunk[{plan.root, L}] = ps;
        anySplit = true;
    }
    if (!anySplit && !anyProv) {
        // say why: the first live-in that depends on the axis in a way a chunk cannot take
        std::string why;
        for (NodeId L : plan.liveIns) {
            const AxisInfo& a = st.axisOf(L);
            if (a.kind == AxisKind::Mixed || a.kind == AxisKind::Partial) {
                why = "; its input '" + g.node(L).name + "' is " + axisText(a);
                break;
            }
        }
        throw PassError("chunk_region: region " + plan.root + " (" + dirName
                        + ") found no chunkable activation live-ins: none of its inputs carries the "
                        + std::string(chunkAxisName(st.cfg.spec.axis)) + " axis" + why);
    }

    // ---- body copies
    std::vector<std::map<NodeId, NodeId>> copy(static_cast<size_t>(K));
    for (int k = 0; k < K; ++k) {
        const int64_t sk = st.sizes[static_cast<size_t>(k)];
        for (NodeId b : plan.body) {
            const Node o = g.node(b);
            Node c = o;
            c.users.clear();
            c.name = g.uniqueName(o.name + "_chunk" + std::to_string(k));
            auto remap = [&](NodeId& id) {
                auto it = copy[static_cast<size_t>(k)].find(id);
                if (it != copy[static_cast<size_t>(k)].end()) {
                    id = it->second;
                    return;
                }
                auto pi = pieces.find(id);
                if (pi != pieces.end()) id = pi->second[static_cast<size_t>(k)];
            };
            for (auto& a : c.args) a.forEachNodeMut(remap);
            for (auto& kv : c.kwargs) kv.second.forEachNodeMut(remap);
            // a mutation of a live-in: chunk k mutates what chunk k-1 left
            if (const OpInfo* op = ctx.registry.find(OpRegistry::normalizeTarget(o.target))) {
                int writes = 0;
                for (size_t i = 0; i < op->schema.args.size() && i < o.args.size(); ++i) {
                    const auto& sa = op->schema.args[i];
                    // a live-in split into pieces is each chunk's own: not chained
                    if (!(sa.alias && sa.alias->isWrite) || !o.args[i].isNode() || body.count(o.args[i].node)
                        || pieces.count(o.args[i].node))
                        continue;
                    if (++writes > 1)
                        throw PassError("chunk_region: " + o.name + " (" + o.target
                                        + ") mutates more than one live-in of region " + plan.root);
                    if (k > 0) c.args[i] = Arg::ofNode(copy[static_cast<size_t>(k - 1)].at(b));
                }
            }
            // literal shapes: the chunk's extent where the axis is
            const AxisInfo& out = st.axisOf(b);
            const int si = sizeArgIndex(baseOf(o.target));
            if (si >= 0 && out.isAxis() && static_cast<size_t>(si) < c.args.size() && c.args[si].isSequence()) {
                auto& items = c.args[static_cast<size_t>(si)].items;
                if (static_cast<size_t>(out.dim) < items.size()) {
                    Arg& it = items[static_cast<size_t>(out.dim)];
                    if (it.kind == Arg::Kind::Int && it.i != -1) {
                        const int64_t full = out.outer * st.ax.n * out.inner;
                        if (it.i != full)
                            throw PassError("chunk_region: " + o.name + " (" + o.target + ") has "
                                            + std::to_string(it.i) + " at dim " + std::to_string(out.dim)
                                            + " where the chunk axis extent " + std::to_string(full) + " was expected");
                        it.i = out.outer * sk * out.inner;
                    }
                }
            }
            if (const int bi = batchSizeArgIndex(baseOf(o.target)); bi >= 0 && out.isAxis() && out.dim == 0
                && static_cast<size_t>(bi) < c.args.size() && c.args[static_cast<size_t>(bi)].kind == Arg::Kind::Int) {
                Arg& it = c.args[static_cast<size_t>(bi)];
                const int64_t full = out.outer * st.ax.n * out.inner;
                if (it.i != full)
                    throw PassError("chunk_region: " + o.name + " (" + o.target + ") has the batch size "
                                    + std::to_string(it.i) + " where " + std::to_string(full) + " was expected");
                it.i = out.outer * sk * out.inner;
            }
            c.val = ValueMeta::unknown();
            if (const OpInfo* op = ctx.registry.find(OpRegistry::normalizeTarget(o.target));
                op && op->has(kTraitDynamicShape) && !out.isAxis())
                c.val = o.val;
            c.meta.provenance = o.name;
            c.meta.chunk = chunkMeta("body", plan);
            c.meta.chunk["chunk_id"] = k;
            c.meta.chunk["original"] = o.name;
            const NodeId cid = g.addNode(std::move(c));
            if (g.node(cid).val.kind != ValueMeta::Kind::Unknown) pd.fixedVal[cid] = g.node(cid).val;
            if (o.target == "aten._reshape_alias.default") pd.stridesFromView.insert(cid);
            st.inherit(cid, b);
            copy[static_cast<size_t>(k)][b] = cid;
            added.push_back(cid);
            ctx.added(g.node(cid).name, o.name);
        }
    }

    // ---- live-outs
    g.rebuildUsers();
    auto copiesOf = [&](NodeId b) {
        std::vector<NodeId> v;
        for (int k = 0; k < K; ++k) v.push_back(copy[static_cast<size_t>(k)].at(b));
        return v;
    };
    const NodeId outNode = g.outputNode();
    for (NodeId L : plan.liveOuts) {
        const Node ln = g.node(L);
        std::vector<NodeId> outside;
        for (NodeId u : ln.users)
            if (!body.count(u)) outside.push_back(u);
        if (outside.empty()) continue;
        const std::vector<NodeId> cs = copiesOf(L);
        // a mutated live-in: the last chunk's result is the value after every chunk's update
        bool chained = false;
        if (const OpInfo* op = ctx.registry.find(OpRegistry::normalizeTarget(ln.target))) {
            for (size_t i = 0; i < op->schema.args.size() && i < ln.args.size(); ++i) {
                const auto& sa = op->schema.args[i];
                if (sa.alias && sa.alias->isWrite && ln.args[i].isNode() && !body.count(ln.args[i].node)
                    && !pieces.count(ln.args[i].node))
                    chained = true;
            }
        }
        if (chained) {
            replaceAllUsesLogged(g, L, cs.back(), &ctx);
            continue;
        }
        size_t sameRootBw = 0;
        bool allOutput = true, allSuffix = true;
        for (NodeId u : outside) {
            const Node& un = g.node(u);
            if (u != outNode) allOutput = false;
            if (u != outNode && !st.suffix.count(u)) allSuffix = false;
            if (!plan.backward && un.op == NodeOp::CallFunction && isBackwardNode(un)
                && (un.meta.modulePath.empty() || insideModule(un.meta.modulePath, plan.root)))
                ++sameRootBw;
        }
        const bool onlyBw = sameRootBw == outside.size();
        const AxisInfo& a = st.axisOf(L);
        std::string userName = g.node(outside.front()).name;
        if (a.isAxis() && a.outer == 1) {
            Node c;
            c.op = NodeOp::CallFunction;
            c.target = "aten.cat.default";
            std::vector<Arg> items;
            for (NodeId x : cs) items.push_back(Arg::ofNode(x));
            c.args = {Arg::ofList(std::move(items)), Arg::ofInt(a.dim)};
            c.name = g.uniqueName(ln.name + "_cat");
            newMeta(c, "materialization");
            c.meta.chunk["combine"] = "cat";
            c.meta.chunk["dim"] = a.dim;
            c.meta.chunk["original"] = ln.name;
            c.val = ln.val;  // what it rebuilds (recomputed in finish)
            const NodeId m = g.addNode(std::move(c));
            st.inherit(m, L);
            pd.originalVal[m] = g.node(L).val;
            added.push_back(m);
            ctx.added(g.node(m).name);
            if (!plan.backward) st.perChunk[{plan.root, m}] = cs;
            g.rebuildUsers();
            replaceAllUsesLogged(g, L, m, &ctx);
            continue;
        }
        if (onlyBw && !plan.backward) {
            // only this region's backward reads it: it gets the chunks' values, no full value exists
            pd.provisional.insert(cs.front());
            st.perChunk[{plan.root, cs.front()}] = cs;
            g.rebuildUsers();
            replaceAllUsesLogged(g, L, cs.front(), &ctx);
            continue;
        }
        if (sameRootBw > 0)
            throw PassError("chunk_region: hybrid live-out consumers: '" + ln.name + "' of region " + plan.root
                            + " has no chunk dimension and is read both by the region's backward and by '" + userName
                            + "'");
        if (a.isAxis())
            throw PassError("chunk_region: live-out '" + ln.name + "' of region " + plan.root + " (" + dirName
                            + ") carries the " + std::string(chunkAxisName(st.cfg.spec.axis))
                            + " axis inside a flattened dim " + std::to_string(a.dim) + " (" + std::to_string(a.outer)
                            + " x " + std::to_string(st.ax.n) + " x " + std::to_string(a.inner)
                            + "): the chunks cannot be concatenated back; read by '" + userName + "'");
        std::string proof;
        if (a.kind == AxisKind::Partial) {
            if (plan.backward && allSuffix)
                proof = "backward_partial_sum";
            else if (allOutput)
                proof = "graph_output_partial_sum";
        }
        if (proof.empty()) {
            if (!ln.val.isTensor())
                throw PassError("chunk_region: cannot materialize scalar live-out '" + ln.name + "' of region "
                                + plan.root + " (" + dirName + "), read by '" + userName + "'");
            const std::string axisName(chunkAxisName(st.cfg.spec.axis));
            if (a.kind == AxisKind::Mixed)
                throw PassError("chunk_region: region " + plan.root + " (" + dirName + ") cannot be chunked along the "
                                + axisName + ": " + a.why + "; its live-out '" + ln.name + "' (read by '" + userName
                                + "') cannot be rebuilt from the chunks");
            if (a.kind == AxisKind::Partial)
                throw PassError("chunk_region: region " + plan.root + " (" + dirName + "): its live-out '" + ln.name
                                + "' is a partial sum over the " + axisName + " (each chunk has its part), read by '"
                                + userName
                                + "', which needs the whole sum (a gradient added across regions, such as a shared "
                                  "bias's): the chunks' parts cannot be added there; chunk these regions together or "
                                  "leave them whole");
            throw PassError("chunk_region: cannot materialize live-out without chunk dimension: '" + ln.name
                            + "' of region " + plan.root + " (" + dirName + ") is " + axisText(a) + ", read by '"
                            + userName + "'");
        }
        NodeId acc = cs.front();
        for (int k = 1; k < K; ++k) {
            Node s;
            s.op = NodeOp::CallFunction;
            s.target = "aten.add.Tensor";
            s.args = {Arg::ofNode(acc), Arg::ofNode(cs[static_cast<size_t>(k)])};
            s.name = g.uniqueName(ln.name + (k + 1 == K ? "_sum" : "_acc" + std::to_string(k)));
            newMeta(s, k + 1 == K ? "materialization" : "accumulator");
            s.meta.chunk["combine"] = "sum";
            s.meta.chunk["proof"] = proof;
            s.meta.chunk["original"] = ln.name;
            s.val = ln.val;
            acc = g.addNode(std::move(s));
            st.inherit(acc, L);
            added.push_back(acc);
            ctx.added(g.node(acc).name);
        }
        if (K > 1) pd.originalVal[acc] = g.node(L).val;
        g.rebuildUsers();
        replaceAllUsesLogged(g, L, acc, &ctx);
    }

    // ---- drop the originals, place the new nodes where the region ended
    g.rebuildUsers();
    const NodeId last = plan.body.back();
    std::vector<NodeId> desired;
    const std::set<NodeId> addedSet(added.begin(), added.end());
    for (NodeId id : g.order()) {
        if (addedSet.count(id)) continue;
        if (!body.count(id)) desired.push_back(id);
        if (id == last) desired.insert(desired.end(), added.begin(), added.end());
    }
    // the output node stays last
    if (outNode != kNoNode) {
        desired.erase(std::remove(desired.begin(), desired.end(), outNode), desired.end());
        desired.push_back(outNode);
    }
    for (NodeId b : plan.body) desired.push_back(b);  // removed right after; kept valid meanwhile
    reorder(g, desired);
    eraseNodes(g, plan.body, &ctx);

    st.duplicated += static_cast<int>(plan.body.size());
    nlohmann::json r;
    r["region"] = plan.root;
    r["backward"] = plan.backward;
    r["body"] = plan.body.size();
    r["copies"] = plan.body.size() * static_cast<size_t>(K);
    r["live_ins"] = plan.liveIns.size();
    r["live_outs"] = plan.liveOuts.size();
    st.regionStats.push_back(r);
}

void finish(State& st)
{
    Graph& g = st.g;
    State::Pending& pd = st.pending;
    g.rebuildUsers();
    // a provisional stand-in read outside a chunk body: that reader needed the full value
    for (NodeId p : pd.provisional) {
        if (!g.alive(p)) continue;
        for (NodeId u : g.node(p).users) {
            const Node& un = g.node(u);
            if (un.meta.chunk.is_null())
                throw PassError("chunk_region: cannot materialize live-out without chunk dimension: '"
                                + g.node(p).meta.chunk.value("original", std::string()) + "' is read by '" + un.name
                                + "' outside the region's backward; rebuilding it requires a forward accumulation "
                                  "proof or a backward parameter-gradient consumer");
        }
    }
    // unused materializations (a cat only the region's backward needed) and unused splits
    for (bool again = true; again;) {
        again = false;
        std::vector<NodeId> dead;
        for (NodeId id : g.order()) {
            const Node& n = g.node(id);
            if (!n.meta.chunk.is_object() || !n.users.empty()) continue;
            const std::string role = n.meta.chunk.value("role", std::string());
            if (role == "materialization" || role == "accumulator" || role == "split") dead.push_back(id);
        }
        if (!dead.empty()) {
            eraseNodes(g, dead, &st.ctx);
            again = true;
        }
    }
    // a _reshape_alias outside the regions that reads a new node (a live-out rebuilt by cat or
    // sum: contiguous where the original was a strided view) recomputes its literal strides too
    std::set<NodeId> outsideViews;
    for (NodeId id : g.order()) {
        const Node& n = g.node(id);
        if (n.target != "aten._reshape_alias.default" || n.meta.chunk.is_object() || n.args.size() < 3
            || !n.args[0].isNode() || !g.node(n.args[0].node).meta.chunk.is_object())
            continue;
        outsideViews.insert(id);
        pd.stridesFromView.insert(id);
    }
    // value meta of every new node
    auto reset = [&]() {
        g.forEachNodeMut([&](Node& n) {
            if (outsideViews.count(n.id)) {
                n.val = ValueMeta::unknown();
                return;
            }
            if (!n.meta.chunk.is_object()) return;
            auto f = pd.fixedVal.find(n.id);
            n.val = f != pd.fixedVal.end() ? f->second : ValueMeta::unknown();
        });
    };
    for (int round = 0; round < 32; ++round) {
        reset();
        ShapePropOptions o;
        o.overwrite = false;
        ShapePropResult r = propagateShapes(g, o);
        if (!r.problems.empty()) {
            std::string msg = "chunk_region: the chunked graph's shapes do not check: " + r.problems.front();
            if (r.problems.size() > 1) msg += " (and " + std::to_string(r.problems.size() - 1) + " more)";
            throw PassError(msg);
        }
        bool changed = false;
        for (NodeId id : pd.stridesFromView) {
            if (!g.alive(id)) continue;
            Node& n = g.node(id);
            const ValueMeta& iv = g.node(n.args[0].node).val;
            if (!iv.isTensor()) continue;
            auto s = computeStride(ints(iv.tensor.sizes), ints(iv.tensor.strides), intItems(n.args[1]));
            if (!s) throw PassError("chunk_region: " + n.name + " (_reshape_alias) is not a view of its chunk input");
            if (*s != intItems(n.args[2])) {
                std::vector<Arg> a;
                for (auto v : *s) a.push_back(Arg::ofInt(v));
                n.args[2] = Arg::ofList(std::move(a));
                changed = true;
            }
        }
        if (!changed) break;
    }
    for (const auto& [m, want] : pd.originalVal) {
        if (!g.alive(m)) continue;
        const ValueMeta& got = g.node(m).val;
        if (!got.isTensor() || !want.isTensor() || ints(got.tensor.sizes) != ints(want.tensor.sizes))
            throw PassError("chunk_region: materialized '" + g.node(m).name + "' is " + formatAnnotation(got)
                            + " where the original value was " + formatAnnotation(want));
    }
    pd = State::Pending();

    // the counts, from what the graph holds now
    st.splits = st.cats = st.sums = st.clones = 0;
    for (auto& r : st.regionStats) {
        int splits = 0, cats = 0, sums = 0, clones = 0;
        const std::string root = r["region"].get<std::string>();
        const bool bw = r["backward"].get<bool>();
        g.forEachNode([&](const Node& n) {
            const auto& c = n.meta.chunk;
            if (!c.is_object() || c.value("region", std::string()) != root || c.value("backward", false) != bw) return;
            const std::string role = c.value("role", std::string());
            if (role == "split" && n.target == "aten.split_with_sizes.default") ++splits;
            if (role == "split" && n.target == "aten.clone.default") ++clones;
            if (role == "materialization" && c.value("combine", std::string()) == "cat") ++cats;
            if (role == "materialization" && c.value("combine", std::string()) == "sum") ++sums;
        });
        r["splits"] = splits;
        r["cats"] = cats;
        r["sums"] = sums;
        r["clones"] = clones;
        st.splits += splits;
        st.cats += cats;
        st.sums += sums;
        st.clones += clones;
        const int body = r["body"].get<int>();
        st.notes.push_back(root + (bw ? " backward: " : " forward: ") + std::to_string(body) + " nodes x "
                           + std::to_string(st.cfg.spec.chunks) + " chunks, " + std::to_string(splits) + " split"
                           + (splits == 1 ? "" : "s") + ", " + std::to_string(cats) + " cat" + (cats == 1 ? "" : "s")
                           + ", " + std::to_string(sums) + " sum" + (sums == 1 ? "" : "s")
                           + (clones ? ", " + std::to_string(clones) + " clones" : ""));
    }
}

}  // namespace fxl::chunkreg
