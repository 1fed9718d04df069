// chunk_region: the driver (guardrails, forward regions then backward regions) and the region
// plan: candidates by module path and direction, backward glue growth, the influenced body,
// the grad-output suffix that stays outside, live-ins and live-outs.
#include <algorithm>
#include <functional>
#include <sstream>

#include "core/ops/op_writes.hpp"
#include "core/ops/shape_prop.hpp"
#include "passes/chunk_region_impl.hpp"
#include "passes/node_kinds.hpp"

namespace fxl::chunkreg {

bool isBackwardNode(const Node& n)
{
    if (n.meta.autogradBackward) return *n.meta.autogradBackward;
    return n.meta.phase == Phase::Backward;
}

std::string parentPath(const std::string& root)
{
    auto dot = root.rfind('.');
    return dot == std::string::npos ? std::string() : root.substr(0, dot);
}

void State::inherit(NodeId newId, NodeId from)
{
    if (static_cast<size_t>(newId) >= ax.byNode.size()) {
        ax.byNode.resize(static_cast<size_t>(newId) + 1);
        ax.coSplit.resize(static_cast<size_t>(newId) + 1);
    }
    ax.byNode[static_cast<size_t>(newId)] = ax.byNode[static_cast<size_t>(from)];
}

void State::setAxis(NodeId newId, std::vector<AxisInfo> a)
{
    if (static_cast<size_t>(newId) >= ax.byNode.size()) {
        ax.byNode.resize(static_cast<size_t>(newId) + 1);
        ax.coSplit.resize(static_cast<size_t>(newId) + 1);
    }
    ax.byNode[static_cast<size_t>(newId)] = std::move(a);
}

namespace {

std::vector<NodeId> argNodes(const Node& n)
{
    std::vector<NodeId> out;
    auto add = [&](NodeId id) {
        if (std::find(out.begin(), out.end(), id) == out.end()) out.push_back(id);
    };
    for (const auto& a : n.args) a.forEachNode(add);
    for (const auto& kv : n.kwargs) kv.second.forEachNode(add);
    return out;
}

std::string where(const Node& n)
{
    std::string s = "node '" + n.name + "' (" + n.target + ")";
    if (!n.meta.modulePath.empty()) s += " in " + n.meta.modulePath;
    return s;
}

std::string sourceText(const SourceLocation& s)
{
    if (s.empty()) return "";
    std::string t = "File \"" + s.file + "\", line " + std::to_string(s.line);
    if (!s.function.empty()) t += ", in " + s.function;
    if (!s.code.empty()) t += ": " + s.code;
    return t;
}

bool hasAttentionComponent(const std::string& path)
{
    std::string comp;
    std::istringstream in(path);
    while (std::getline(in, comp, '.')) {
        std::string low = comp;
        std::transform(low.begin(), low.end(), low.begin(), [](unsigned char c) { return std::tolower(c); });
        if (low.find("attn") != std::string::npos || low.find("attention") != std::string::npos) return true;
    }
    return false;
}

bool isEpCollective(const Node& n)
{
    if (!n.meta.custom.is_object()) return false;
    return n.meta.custom.contains("EP") || n.meta.custom.contains("EP_token_exchange");
}

bool symbolInSize(const SymInt& s, const std::string& sym)
{
    if (s.isConcrete()) return false;
    for (const auto& x : s.expr().symbols())
        if (x == sym) return true;
    return false;
}

const char* kViewLike[] = {"aten.view.default", "aten.reshape.default", "aten._unsafe_view.default",
                           "aten._reshape_alias.default", "aten.expand.default"};

// The symbolic-graph guardrails on a planned body.
void checkSymbolic(const State& st, const Plan& p)
{
    const std::string& sym = st.ax.symbol;
    if (sym.empty()) return;
    for (NodeId id : p.body) {
        const Node& n = st.g.node(id);
        if (n.val.isTensor()) {
            std::vector<size_t> dims;
            for (size_t i = 0; i < n.val.tensor.sizes.size(); ++i)
                if (symbolInSize(n.val.tensor.sizes[i], sym)) dims.push_back(i);
            if (dims.size() > 1)
                throw PassError("chunk_region: found selected chunk symbols in multiple dims: " + where(n) + " has "
                                + sym + " in dims " + std::to_string(dims[0]) + " and " + std::to_string(dims[1]) + " ("
                                + formatAnnotation(n.val) + ")");
        }
        bool viewLike = false;
        for (const char* t : kViewLike) viewLike = viewLike || n.target == t;
        const AxisInfo& a = st.axisOf(id);
        if (!viewLike || !a.isAxis() || n.args.size() < 2 || !n.args[1].isSequence()) continue;
        const auto& items = n.args[1].items;
        if (static_cast<size_t>(a.dim) >= items.size()) continue;
        const Arg& lit = items[static_cast<size_t>(a.dim)];
        if (lit.kind != Arg::Kind::Int || lit.i == -1) continue;
        std::string shape = "[";
        for (size_t i = 0; i < items.size(); ++i) {
            if (i) shape += ", ";
            shape += items[i].kind == Arg::Kind::Int ? std::to_string(items[i].i) : std::string("?");
        }
        shape += "]";
        std::string src = sourceText(n.meta.source);
        throw PassError("chunk_region: " + where(n) + " baked a Python constant into its shape " + shape + ": "
                        + std::to_string(lit.i) + " at dim " + std::to_string(a.dim) + " is the chunk dimension " + sym
                        + (src.empty() ? "" : " (" + src + ")") + "; use x.shape[" + std::to_string(a.dim)
                        + "] or -1 there");
    }
}

// Gives every symbolic size without a hint the value its symbols have (option hints, else the
// hints single-symbol sizes carry), so sizes can be compared and shapes propagated.
void hintSizes(Graph& g, std::map<std::string, int64_t> values)
{
    auto learn = [&](const SymInt& s) {
        if (!s.isConcrete() && s.hint() && s.expr().isSymbol()) values.emplace(s.expr().symbols().front(), *s.hint());
    };
    g.forEachNode([&](const Node& n) {
        if (n.val.isTensor())
            for (const auto& s : n.val.tensor.sizes) learn(s);
    });
    if (values.empty()) return;
    auto fill = [&](SymInt& s) {
        if (s.isConcrete() || s.hint()) return;
        if (auto v = s.expr().evaluate(values)) s.setHint(*v);
    };
    std::function<void(ValueMeta&)> visit = [&](ValueMeta& m) {
        if (m.isTensor()) {
            for (auto& s : m.tensor.sizes) fill(s);
            for (auto& s : m.tensor.strides) fill(s);
        }
        for (auto& e : m.elems) visit(e);
        if ((m.kind == ValueMeta::Kind::SymInt) && !m.symHint)
            if (auto v = m.sym.evaluate(values)) m.symHint = *v;
    };
    g.forEachNodeMut([&](Node& n) { visit(n.val); });
}

}  // namespace

void findGradSuffix(State& st)
{
    const Graph& g = st.g;
    NodeId out = g.outputNode();
    if (out == kNoNode) return;
    const Node& o = g.node(out);
    std::vector<NodeId> items;
    if (o.args.size() == 1 && o.args[0].isSequence()) {
        for (const auto& a : o.args[0].items)
            if (a.isNode())
                items.push_back(a.node);
            else
                items.push_back(kNoNode);
    } else {
        for (const auto& a : o.args)
            if (a.isNode()) items.push_back(a.node);
    }
    for (size_t k = 1; k < items.size(); ++k) {
        NodeId cur = items[k];
        while (cur != kNoNode) {
            const Node& n = g.node(cur);
            if (n.op != NodeOp::CallFunction || !isBackwardNode(n)) break;
            if (!st.ax.influenced(cur)) break;
            std::vector<NodeId> tin;
            for (NodeId a : argNodes(n)) {
                const auto k2 = g.node(a).val.kind;
                if (k2 == ValueMeta::Kind::Tensor || k2 == ValueMeta::Kind::Tuple) tin.push_back(a);
            }
            if (tin.size() != 1 || st.ax.anyAxis(tin[0])) {
                st.boundary.insert(cur);
                break;
            }
            const Node& in = g.node(tin[0]);
            if (n.val.isTensor() && in.val.isTensor()
                && (n.val.tensor.dtype != in.val.tensor.dtype || n.val.tensor.device != in.val.tensor.device)) {
                st.boundary.insert(cur);
                break;
            }
            st.suffix.insert(cur);
            cur = tin[0];
        }
    }
}

Plan planRegion(State& st, const std::string& root, bool backward)
{
    Graph& g = st.g;
    g.rebuildUsers();
    Plan p;
    p.root = root;
    p.backward = backward;
    std::set<NodeId> cand;
    auto eligible = [&](const Node& n) {
        return n.op == NodeOp::CallFunction && n.meta.chunk.is_null() && isBackwardNode(n) == backward;
    };
    for (NodeId id : g.order()) {
        const Node& n = g.node(id);
        if (eligible(n) && !n.meta.modulePath.empty() && insideModule(n.meta.modulePath, root)) cand.insert(id);
    }
    if (backward) {
        // autograd glue without module paths, next to the region and touching nothing outside it
        bool changed = true;
        while (changed) {
            changed = false;
            for (NodeId id : g.order()) {
                const Node& n = g.node(id);
                if (!eligible(n) || !n.meta.modulePath.empty() || cand.count(id) || st.suffix.count(id)) continue;
                if (isCollectiveNode(n)) continue;
                bool adjacent = false, inside = true;
                auto look = [&](NodeId nb) {
                    const Node& m = g.node(nb);
                    if (cand.count(nb)) adjacent = true;
                    if (!m.meta.modulePath.empty() && !insideModule(m.meta.modulePath, root)) inside = false;
                };
                // and reading nothing per-sample from outside the region (a loss backward reading
                // the targets is not the region's glue)
                bool reads = true;
                for (NodeId a : argNodes(n)) {
                    look(a);
                    if (!cand.count(a) && !st.perChunk.count({root, a}) && !st.axisOf(a).isFree()) reads = false;
                }
                for (NodeId u : n.users) look(u);
                if (adjacent && inside && reads) {
                    cand.insert(id);
                    changed = true;
                }
            }
        }
    }
    std::set<NodeId> body;
    for (NodeId id : g.order()) {
        if (!cand.count(id)) continue;
        if (backward && st.suffix.count(id)) continue;
        const Node& n = g.node(id);
        bool infl = st.ax.influenced(id);
        bool fromBody = false;
        for (NodeId a : argNodes(n)) {
            if (body.count(a)) fromBody = true;
            if (writesInPlace(n, st.ctx.registry) && st.ax.influenced(a)) infl = true;
        }
        // a node reading a per-chunk value of this region's forward is per chunk too
        for (NodeId a : argNodes(n))
            if (st.perChunk.count({root, a})) fromBody = true;
        if (!infl && !fromBody) continue;
        body.insert(id);
        p.body.push_back(id);
    }
    if (p.body.empty()) return p;
    std::set<NodeId> seen;
    for (NodeId id : p.body) {
        const Node& n = g.node(id);
        for (NodeId a : argNodes(n)) {
            if (body.count(a) || seen.count(a)) continue;
            seen.insert(a);
            p.liveIns.push_back(a);
            const Node& m = g.node(a);
            if (!backward && m.op == NodeOp::CallFunction && isBackwardNode(m))
                throw PassError("chunk_region: forward region " + root + " crossed into the opposite graph direction: "
                                + where(n) + " reads the backward value '" + m.name + "'");
        }
    }
    for (NodeId id : p.body) {
        for (NodeId u : g.node(id).users)
            if (!body.count(u)) {
                p.liveOuts.push_back(id);
                break;
            }
    }
    for (NodeId id : p.body) {
        const Node& n = g.node(id);
        if (isCollectiveNode(n) && !isEpCollective(n))
            throw PassError("chunk_region: region " + root + (backward ? " (backward)" : " (forward)")
                            + " requires chunk bodies to contain only EP collectives: " + where(n)
                            + " is not an EP token exchange; keep it outside the region");
    }
    checkSymbolic(st, p);
    return p;
}

void chunkRegions(Graph& g, const Config& cfg, PassContext& ctx)
{
    hintSizes(g, cfg.hints);
    // value meta for every node (files without annotations)
    bool missing = false;
    g.forEachNode([&](const Node& n) {
        if (n.op == NodeOp::CallFunction && n.val.kind == ValueMeta::Kind::Unknown) missing = true;
    });
    if (missing) {
        ShapePropOptions o;
        o.overwrite = false;
        propagateShapes(g, o);
    }
    g.rebuildUsers();
    std::vector<NodeId> data;
    try {
        data = dataInputs(g, cfg.spec.inputs);
    } catch (const std::invalid_argument& e) {
        if (!cfg.spec.inputs.empty()) throw PassError(std::string("chunk_region: ") + e.what());
        // graphs with a symbolic chunk dim: the placeholders that carry a symbol there
        const size_t d = static_cast<size_t>(chunkAxisDim(cfg.spec.axis));
        for (NodeId id : g.placeholders()) {
            const Node& p = g.node(id);
            if (p.val.isTensor() && p.val.tensor.sizes.size() > d && !p.val.tensor.sizes[d].isConcrete())
                data.push_back(id);
        }
        if (data.empty()) throw PassError(std::string("chunk_region: ") + e.what());
    }
    State st(g, ctx, cfg, inferChunkAxes(g, data, cfg.spec.axis, cfg.hints, ctx.registry));
    if (st.ax.n < cfg.spec.chunks)
        throw PassError("chunk_region: Cannot split selected chunk dimension: the "
                        + std::string(chunkAxisName(cfg.spec.axis)) + " axis of the data inputs has length "
                        + std::to_string(st.ax.n) + ", fewer than chunks=" + std::to_string(cfg.spec.chunks));
    st.sizes = chunkSizes(st.ax.n, cfg.spec.chunks, cfg.spec.split);

    std::vector<std::string> roots;
    for (const auto& pat : cfg.spec.regions)
        for (const auto& r : regionRoots(g, pat))
            if (std::find(roots.begin(), roots.end(), r) == roots.end()) roots.push_back(r);
    if (roots.empty()) {
        std::string pats;
        for (const auto& p : cfg.spec.regions) pats += (pats.empty() ? "" : ";") + p;
        throw PassError("chunk_region: found no regions for " + pats + " (no node's module path matches)");
    }
    for (size_t i = 0; i < roots.size(); ++i)
        for (size_t j = 0; j < roots.size(); ++j)
            if (i != j && insideModule(roots[i], roots[j]))
                throw PassError("chunk_region: region " + roots[i] + " is inside region " + roots[j]
                                + "; select one of them");
    if (cfg.spec.axis == ChunkAxis::Seq) {
        for (const auto& r : roots) {
            if (hasAttentionComponent(r))
                throw PassError("chunk_region: seq chunking through attention needs full-K/V handling: region " + r
                                + " is attention (queries can be split by sequence, keys and values need the whole "
                                  "sequence); not implemented");
            g.forEachNode([&](const Node& n) {
                if (n.op == NodeOp::CallFunction && insideModule(n.meta.modulePath, r)
                    && hasAttentionComponent(n.meta.modulePath))
                    throw PassError("chunk_region: seq chunking through attention needs full-K/V handling: region " + r
                                    + " contains " + n.meta.modulePath
                                    + " (queries can be split by sequence, keys and values need the whole sequence); "
                                      "not implemented");
            });
        }
    }
    findGradSuffix(st);

    // regions in the order they run: forward by their first forward node, backward by their
    // first backward node (the last block's backward runs first)
    auto firstPos = [&](const std::string& r, bool backward) {
        size_t best = g.size();
        for (NodeId id : g.order()) {
            const Node& n = g.node(id);
            if (n.op == NodeOp::CallFunction && isBackwardNode(n) == backward && insideModule(n.meta.modulePath, r)) {
                best = g.positionOf(id);
                break;
            }
        }
        return best;
    };
    int lowered = 0;
    for (bool backward : {false, true}) {
        std::vector<std::string> ordered = roots;
        std::stable_sort(ordered.begin(), ordered.end(), [&](const std::string& a, const std::string& b) {
            return firstPos(a, backward) < firstPos(b, backward);
        });
        for (const auto& r : ordered) {
            Plan p = planRegion(st, r, backward);
            if (p.body.empty()) continue;
            lowerRegion(st, p);
            ++lowered;
        }
    }
    if (lowered == 0)
        throw PassError("chunk_region: found no chunkable activation live-ins: no node of the selected regions depends "
                        "on the data inputs' "
                        + std::string(chunkAxisName(cfg.spec.axis)) + " axis");
    finish(st);

    ctx.log.stats["regions"] = st.regionStats;
    ctx.log.stats["splits"] = st.splits;
    ctx.log.stats["cats"] = st.cats;
    ctx.log.stats["sums"] = st.sums;
    ctx.log.stats["clones"] = st.clones;
    ctx.log.stats["duplicated"] = st.duplicated;
    ctx.log.stats["chunks"] = cfg.spec.chunks;
    ctx.log.stats["chunk_spec"] = cfg.spec.str();  // the same chunking as a ChunkSpec (the eager reference's input)
    ctx.log.stats["axis_length"] = st.ax.n;
    std::string sz;
    for (auto s : st.sizes) sz += (sz.empty() ? "" : ",") + std::to_string(s);
    ctx.note(std::string(chunkAxisName(cfg.spec.axis)) + " axis of length " + std::to_string(st.ax.n) + " in "
             + std::to_string(cfg.spec.chunks) + " chunks (" + sz + ")");
    ctx.noteList(st.notes, "regions", "stats.regions");
}

}  // namespace fxl::chunkreg
