// auto_chunk: the AutoChunker over our IR (docs/passes.md, auto_chunk). The analysis (metadata,
// rules, propagation) is in passes/auto_chunk_rules.cpp; this file finds the tangents and the
// amplifier, rewrites nll_loss mean, and applies the chunking.
#include "passes/auto_chunk.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "core/analysis/chunk_spec.hpp"
#include "core/ops/shape_prop.hpp"
#include "passes/auto_chunk_rules.hpp"
#include "passes/graph_edit.hpp"

namespace fxl {

namespace {

using autochunk::ChunkInfo;
using autochunk::numelOf;
using autochunk::opBase;

// "f32[64, 512]" (sizes only, no strides or device)
std::string shapeText(const Graph& g, NodeId id)
{
    const ValueMeta& v = g.node(id).val;
    if (!v.isTensor()) return formatAnnotation(v);
    std::string t = std::string(dtypeAbbr(v.tensor.dtype)) + "[";
    for (size_t k = 0; k < v.tensor.sizes.size(); ++k) t += (k ? ", " : "") + v.tensor.sizes[k].str();
    return t + "]";
}

std::vector<int64_t> sizesOf(const ValueMeta& v)
{
    std::vector<int64_t> out;
    for (const SymInt& s : v.tensor.sizes) out.push_back(s.valueOrHint());
    return out;
}

Arg intListArg(const std::vector<int64_t>& v)
{
    std::vector<Arg> items;
    for (int64_t x : v) items.push_back(Arg::ofInt(x));
    return Arg::ofList(std::move(items));
}

ValueMeta tensorVal(DType dt, const std::vector<int64_t>& sizes, const std::string& device)
{
    TensorMeta t;
    t.dtype = dt;
    for (int64_t s : sizes) t.sizes.emplace_back(s);
    t.strides = contiguousStrides(t.sizes);
    t.device = device;
    return ValueMeta::ofTensor(t);
}

// The output node's items (one level flattened).
std::vector<NodeId> outputItems(const Graph& g)
{
    std::vector<NodeId> out;
    const NodeId o = g.outputNode();
    if (o == kNoNode) return out;
    g.node(o).args.front().forEachNode([&](NodeId id) { out.push_back(id); });
    return out;
}

// Tangents of an AOT joint graph (placeholders named "*tangent*"), else the backward seeds of a
// make_fx fwd+loss+bwd graph: ones_like(X) with X a graph output (the loss), or a one-element
// ones / full(..., 1) marked backward.
std::set<NodeId> findTangents(const Graph& g, bool& seeds)
{
    std::set<NodeId> t;
    for (NodeId id : g.placeholders())
        if (g.node(id).name.find("tangent") != std::string::npos) t.insert(id);
    seeds = false;
    if (!t.empty()) return t;
    const auto outs = outputItems(g);
    const std::set<NodeId> outSet(outs.begin(), outs.end());
    for (NodeId id : g.order()) {
        const Node& n = g.node(id);
        if (n.isOp("aten.ones_like.default") && !n.args.empty() && n.args[0].isNode() && outSet.count(n.args[0].node))
            t.insert(id);
        const bool marked = n.meta.phase == Phase::Backward || n.meta.autogradBackward.value_or(false);
        if (marked && numelOf(g, id) == 1
            && (n.isOp("aten.ones.default")
                || (n.isOp("aten.full.default") && n.args.size() >= 2
                    && ((n.args[1].kind == Arg::Kind::Float && n.args[1].f == 1.0)
                        || (n.args[1].kind == Arg::Kind::Int && n.args[1].i == 1)))))
            t.insert(id);
    }
    seeds = !t.empty();
    return t;
}

std::string bytesText(int64_t b)
{
    char buf[64];
    if (b >= (int64_t(1) << 30))
        std::snprintf(buf, sizeof buf, "%.2f GiB", static_cast<double>(b) / double(int64_t(1) << 30));
    else if (b >= (int64_t(1) << 20))
        std::snprintf(buf, sizeof buf, "%.2f MiB", static_cast<double>(b) / double(int64_t(1) << 20));
    else if (b >= 1024)
        std::snprintf(buf, sizeof buf, "%.1f KiB", static_cast<double>(b) / 1024.0);
    else
        std::snprintf(buf, sizeof buf, "%lld B", static_cast<long long>(b));
    return buf;
}

std::string ratioText(double r)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, r >= 10 ? "%.0f" : "%.1f", r);
    return buf;
}

struct Amplifier
{
    NodeId node = kNoNode;
    double ratio = 0;
    int64_t outBytes = 0, inBytes = 0;
};

// Graph with the same header and nested graphs holding the nodes of `order` (ids of g), in
// that order; node references are remapped.
Graph reorder(Graph& g, const std::vector<NodeId>& order)
{
    Graph out;
    out.className = g.className;
    out.signature = g.signature;
    out.pytreeArgNames = g.pytreeArgNames;
    out.outputPytree = g.outputPytree;
    out.outputIsList = g.outputIsList;
    out.outputDescs = g.outputDescs;
    out.subgraphs = g.subgraphs;
    out.embeddedConstants = g.embeddedConstants;
    out.reserveNodes(order.size());
    size_t cap = 0;
    for (NodeId id : g.order()) cap = std::max(cap, static_cast<size_t>(id) + 1);
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

// Replaces entry `dim` of a size list argument that equals `full` by `piece` (a -1 stays).
bool resizeList(Arg& a, int dim, int64_t full, int64_t piece)
{
    if (!a.isSequence() || dim < 0 || static_cast<size_t>(dim) >= a.items.size()) return false;
    Arg& x = a.items[static_cast<size_t>(dim)];
    if (x.kind != Arg::Kind::Int) return false;
    if (x.i == -1) return true;
    if (x.i != full) return false;
    x.i = piece;
    return true;
}

class AutoChunkPass : public Pass
{
public:
    std::string name() const override { return "auto_chunk"; }
    std::string summary() const override
    {
        return "run the forward+backward region of an amplifying matmul in N chunks through invoke_subgraph";
    }
    std::string description() const override
    {
        return "The AutoChunker (pytorch PR #136702) over a joint graph: an AOT joint graph (tangent placeholders) "
               "or a make_fx fwd+loss+bwd graph (the backward seed ones_like(loss) plays the tangent). It finds the "
               "amplifier: the mm / addmm / bmm before the backward whose output is larger than min_output_bytes and "
               "amplify_ratio times its inputs (the largest ratio wins); propagates chunking metadata (chunk dim, "
               "partial sum, tangent scale) forward and backward with one rule per op; and rewrites every node "
               "touched into one sub-graph per chunk size (chunking_subgraph_0, ...) called in order through "
               "higher_order.invoke_subgraph, the region inputs split along the chunk dim (split semantics of "
               "option split), partial sums accumulated call to call (f32 for one-element low-precision values), "
               "chunked outputs concatenated, and the tangent multiplied in once at the end (the chunks run with "
               "ones in its place). nll_loss_forward with reduction=mean is rewritten: the total weight is computed "
               "once from the whole target (weight=None: the count of targets != ignore_index in f32; with class "
               "weights the f32 sum of weight[target] over those rows, in row order), each chunk sums its losses "
               "(reduction=sum, accumulated in f32) and the loss is that sum divided by the total weight; each "
               "chunk's nll_loss_backward keeps mean and is given the global total weight, so the per-row gradients "
               "are the unchunked graph's bits.\n"
               "Refused (the graph is kept, with the reason): a graph auto_chunk made; no tangent or seed; no "
               "amplifier; an amplifier with a dynamic shape; an op without a chunking rule on the way (the error "
               "names the node and op); a softmax or reduction along the chunk dim; a reshape that does not keep "
               "the chunk dim a dimension of its own; a non-linear op on a partial sum or on a tangent-scaled "
               "value; a backward that never reads an amplified-size value (no tangent reached: nothing to gain).";
    }
    std::vector<PassOption> options() const override
    {
        return {
            {"chunks", OptionType::Int, "4", {}, "number of chunks (pieces may be fewer with split=chunk)"},
            {"amplify_ratio",
             OptionType::Float,
             "8",
             {},
             "an amplifier's output must be more than this many times its inputs' bytes"},
            {"min_output_bytes",
             OptionType::Int,
             "1048576",
             {},
             "an amplifier's output must be larger than this many bytes"},
            {"split",
             OptionType::Enum,
             "chunk",
             {"chunk", "tensor_split"},
             "piece sizes: chunk (torch.chunk: ceil(n/k) each, the last smaller) or tensor_split (sizes differ by at "
             "most one)"},
        };
    }
    void checkOptions(const PassOptions& o) const override
    {
        if (o.getInt("chunks") < 1) throw std::invalid_argument("option 'chunks': expected an integer >= 1");
        if (o.getFloat("amplify_ratio") < 0) throw std::invalid_argument("option 'amplify_ratio': expected >= 0");
        if (o.getInt("min_output_bytes") < 0) throw std::invalid_argument("option 'min_output_bytes': expected >= 0");
    }

    void run(Graph& g, const PassOptions& opts, PassContext& ctx) const override;
};

// ------------------------------------------------------------------ the rewrite

struct NllRewrite
{
    NodeId forward = kNoNode;
    NodeId total32 = kNoNode;  // f32 total weight
    NodeId totalT = kNoNode;  // in the input's dtype (what the kernel's total_weight is)
    bool mean = false;
};

class Applier
{
public:
    Applier(Graph& g, const OpRegistry& reg, PassContext& ctx, autochunk::Analysis& an)
        : g_(g)
        , reg_(reg)
        , ctx_(ctx)
        , an_(an)
    { }

    // Adds a call node at the end of g (its place is decided later); returns its id.
    NodeId addCall(const std::string& nameHint, const std::string& target, std::vector<Arg> args,
                   std::vector<std::pair<std::string, Arg>> kwargs, ValueMeta val, nlohmann::json chunk)
    {
        Node n;
        n.op = NodeOp::CallFunction;
        n.name = g_.uniqueName(nameHint);
        n.target = target;
        n.args = std::move(args);
        n.kwargs = std::move(kwargs);
        n.val = std::move(val);
        n.meta.chunk = std::move(chunk);
        const std::string name = n.name;
        const NodeId id = g_.addNode(std::move(n));
        ctx_.added(name);
        addedNames_.push_back(name);
        an_.info.resize(std::max(an_.info.size(), static_cast<size_t>(id) + 1));
        return id;
    }

    static nlohmann::json chunkMeta(const std::string& role, bool backward, const std::string& original = "")
    {
        nlohmann::json j = {{"pass", "auto_chunk"}, {"role", role}, {"region", "auto_chunk"}, {"backward", backward}};
        if (!original.empty()) j["original"] = original;
        return j;
    }

    // nll_loss_forward (mean or sum) in the region: the global total weight before the chunks,
    // the chunks sum (reduction=sum), nll_loss_backward gets the global total weight.
    void rewriteNll(NodeId f)
    {
        g_.rebuildUsers();
        Node& fn = g_.node(f);
        const OpInfo* op = reg_.find("aten.nll_loss_forward.default");
        std::vector<Arg> b;
        if (auto err = reg_.bind(*op, fn, b)) throw PassError("auto_chunk: '" + fn.name + "': " + *err);
        const NodeId self = b[0].node, target = b[1].node;
        const int64_t reduction = b[3].i, ignoreIndex = b[4].i;
        const DType inDt = g_.node(self).val.tensor.dtype;
        const std::string dev = g_.node(self).val.tensor.device;
        const int64_t rows = numelOf(g_, target);
        const std::string nm = fn.name;
        NllRewrite r;
        r.forward = f;
        r.mean = reduction == 1;
        auto meta = [&]() {
            auto j = chunkMeta("materialization", false, nm);
            j["combine"] = "sum";
            return j;
        };
        const NodeId mask = addCall(nm + "_counted", "aten.ne.Scalar", {Arg::ofNode(target), Arg::ofInt(ignoreIndex)},
                                    {}, tensorVal(DType::Bool, {rows}, dev), meta());
        NodeId perRow = mask;
        if (b[2].isNode()) {
            const NodeId w = b[2].node;
            const DType wDt = g_.node(w).val.tensor.dtype;
            const NodeId safe =
                addCall(nm + "_safe_target", "aten.mul.Tensor", {Arg::ofNode(target), Arg::ofNode(mask)}, {},
                        tensorVal(g_.node(target).val.tensor.dtype, {rows}, dev), meta());
            const NodeId wt =
                addCall(nm + "_row_weight", "aten.index.Tensor", {Arg::ofNode(w), Arg::ofList({Arg::ofNode(safe)})}, {},
                        tensorVal(wDt, {rows}, dev), meta());
            perRow = addCall(nm + "_row_weight_counted", "aten.mul.Tensor", {Arg::ofNode(wt), Arg::ofNode(mask)}, {},
                             tensorVal(wDt, {rows}, dev), meta());
        }
        auto tj = meta();
        tj["formula"] = b[2].isNode()
            ? "global total weight: the f32 sum, in row order, of weight[target] over rows whose target != "
              "ignore_index"
            : "global total weight: the count of targets != ignore_index, in f32 (exact below 2^24 rows)";
        r.total32 = addCall(nm + "_total_weight", "aten.sum.default", {Arg::ofNode(perRow)},
                            {{"dtype", Arg::ofDType(DType::F32)}}, tensorVal(DType::F32, {}, dev), tj);
        r.totalT = r.total32;
        if (inDt != DType::F32)
            r.totalT = addCall(nm + "_total_weight_cast", "aten._to_copy.default", {Arg::ofNode(r.total32)},
                               {{"dtype", Arg::ofDType(inDt)}}, tensorVal(inDt, {}, dev), meta());
        // the chunks sum their losses
        Node& fx = g_.node(f);
        if (fx.args.size() > 3)
            fx.args[3] = Arg::ofInt(2);
        else {
            bool found = false;
            for (auto& kv : fx.kwargs)
                if (kv.first == "reduction") {
                    kv.second = Arg::ofInt(2);
                    found = true;
                }
            if (!found) fx.kwargs.emplace_back("reduction", Arg::ofInt(2));
        }
        // its total weight (getitem 1) is the global one; its loss (getitem 0) is divided by it
        for (NodeId u : std::vector<NodeId>(g_.node(f).users)) {
            const Node& un = g_.node(u);
            if (!un.isGetitem() || un.args.size() < 2) continue;
            if (un.args[1].i == 1) {
                replaceAllUsesLogged(g_, u, r.totalT, &ctx_);
            } else if (un.args[1].i == 0 && r.mean) {
                an_.info[static_cast<size_t>(u)].divideBy = f;
            }
        }
        g_.rebuildUsers();
        nll_.push_back(r);
    }

    void run(const PassOptions& opts, const std::string& ampNote);

private:
    Graph& g_;
    const OpRegistry& reg_;
    PassContext& ctx_;
    autochunk::Analysis& an_;
    std::vector<NllRewrite> nll_;
    std::vector<std::string> addedNames_;

    const ChunkInfo& info(NodeId id) const
    {
        static const ChunkInfo kAbsent;
        return static_cast<size_t>(id) < an_.info.size() ? an_.info[static_cast<size_t>(id)] : kAbsent;
    }
    bool isBackwardNode(NodeId id) const
    {
        const Node& n = g_.node(id);
        return n.meta.phase == Phase::Backward || n.meta.autogradBackward.value_or(false)
            || info(id).scaleBy != kNoNode;
    }
};

bool isFactory(const std::string& t)
{
    return t == "aten.full.default" || t == "aten.zeros.default" || t == "aten.ones.default"
        || t == "aten.empty.memory_format";
}

void Applier::run(const PassOptions& opts, const std::string& ampNote)
{
    const int chunks = static_cast<int>(opts.getInt("chunks"));
    const ChunkSplit split = opts.getString("split") == "tensor_split" ? ChunkSplit::TensorSplit : ChunkSplit::Chunk;
    g_.rebuildUsers();
    const std::vector<NodeId> order0 = g_.order();
    const size_t cap = an_.info.size();
    auto idx = [](NodeId id) { return static_cast<size_t>(id); };

    // ---- classify: region = nodes with meta (tangents apart); inputs are computed before the
    // chunks (split when chunked), the body runs per chunk
    std::vector<uint8_t> inR(cap, 0), isInput(cap, 0), inBody(cap, 0);
    std::vector<NodeId> body;
    for (NodeId id : order0) {
        const ChunkInfo& m = info(id);
        if (!m.present || an_.isTangent(id)) continue;
        inR[idx(id)] = 1;
        const Node& n = g_.node(id);
        bool input;
        if (n.op == NodeOp::Placeholder || n.op == NodeOp::GetAttr)
            input = true;
        else if (m.scaleBy != kNoNode || m.divideBy != kNoNode)
            input = false;
        else if (isFactory(n.target) && m.chunked())
            input = false;
        else {
            input = true;
            auto check = [&](NodeId a) {
                if (!inR[idx(a)]) return;
                if (!isInput[idx(a)] || info(a).chunked() || info(a).needSum) input = false;
            };
            for (const Arg& a : n.args) a.forEachNode(check);
            for (const auto& kv : n.kwargs) kv.second.forEachNode(check);
        }
        if (input) {
            if (m.needSum)
                throw PassError("auto_chunk: '" + n.name + "' would be a region input that is a partial sum");
            isInput[idx(id)] = 1;
        } else {
            inBody[idx(id)] = 1;
            body.push_back(id);
        }
    }
    if (body.empty()) throw PassError("auto_chunk: the region has no node to run per chunk");
    // outputs: body nodes read outside the body
    std::vector<NodeId> outputs;
    for (NodeId id : body) {
        bool out = false;
        for (NodeId u : g_.node(id).users)
            if (!inBody[idx(u)]) out = true;
        if (!out) continue;
        const ChunkInfo& m = info(id);
        if (!m.chunked() && !m.needSum)
            throw PassError("auto_chunk: '" + g_.node(id).name + "' (" + g_.node(id).target
                            + ") leaves the region but is neither chunked nor a partial sum of the chunks");
        outputs.push_back(id);
    }

    // ---- the prefix: nodes outside the body whose inputs are all in the prefix
    std::vector<uint8_t> inPrefix(g_.order().size() + cap + 64, 0);
    auto growTo = [&](NodeId id) {
        if (idx(id) >= inPrefix.size()) inPrefix.resize(idx(id) + 64, 0);
    };
    std::vector<NodeId> prefix, rest;
    for (NodeId id : g_.order()) {
        growTo(id);
        const Node& n = g_.node(id);
        if (n.op == NodeOp::Output) continue;
        if (static_cast<size_t>(id) < cap && inBody[idx(id)]) continue;
        bool ok = true;
        auto chk = [&](NodeId a) {
            growTo(a);
            if (!inPrefix[idx(a)]) ok = false;
        };
        for (const Arg& a : n.args) a.forEachNode(chk);
        for (const auto& kv : n.kwargs) kv.second.forEachNode(chk);
        if (ok) {
            inPrefix[idx(id)] = 1;
            prefix.push_back(id);
        } else {
            rest.push_back(id);
        }
    }
    // live-ins of the body, by kind
    std::vector<NodeId> liveChunked, liveWhole, liveTangents;
    std::set<NodeId> seenLive;
    for (NodeId id : body) {
        const Node& n = g_.node(id);
        auto take = [&](NodeId a) {
            if (inBody[idx(a)] || seenLive.count(a)) return;
            seenLive.insert(a);
            if (an_.isTangent(a)) {
                liveTangents.push_back(a);
                return;
            }
            if (!inPrefix[idx(a)])
                throw PassError("auto_chunk: '" + n.name + "' of the chunked region reads '" + g_.node(a).name
                                + "', which cannot be computed before the region");
            if (info(a).chunked())
                liveChunked.push_back(a);
            else
                liveWhole.push_back(a);
        };
        for (const Arg& a : n.args) a.forEachNode(take);
        for (const auto& kv : n.kwargs) kv.second.forEachNode(take);
    }
    if (liveChunked.empty()) throw PassError("auto_chunk: no region input is split along the chunk dim");
    for (NodeId t : liveTangents)
        if (numelOf(g_, t) != 1)
            throw PassError("auto_chunk: the tangent '" + g_.node(t).name + "' has " + std::to_string(numelOf(g_, t))
                            + " elements; only a one-element tangent can be factored out of the chunks");

    // ---- piece sizes
    const NodeId first = liveChunked.front();
    const int64_t rows = sizesOf(g_.node(first).val).at(idx(info(first).dim));
    for (NodeId a : liveChunked) {
        const int64_t s = sizesOf(g_.node(a).val).at(idx(info(a).dim));
        if (s != rows)
            throw PassError("auto_chunk: region inputs differ in the size of their chunk dims: '" + g_.node(first).name
                            + "' has " + std::to_string(rows) + ", '" + g_.node(a).name + "' has " + std::to_string(s));
    }
    const std::vector<int64_t> sizes = chunkSizes(rows, chunks, split);
    // The chunking as eager chunking would do it (the spec `fxlens check --against eager-chunking`
    // and the run panel take): the whole step once per chunk of the data placeholders the split
    // inputs come from, along dim 0, in the same pieces. Those placeholders: ancestors of a split
    // input whose dim 0 has the region's row count (not the tangents).
    ChunkSpec eager;
    eager.chunks = chunks;
    eager.split = split;
    {
        std::set<NodeId> seen;
        std::vector<NodeId> stack(liveChunked.begin(), liveChunked.end());
        while (!stack.empty()) {
            const NodeId a = stack.back();
            stack.pop_back();
            if (!seen.insert(a).second) continue;
            const Node& n = g_.node(a);
            if (n.op == NodeOp::Placeholder) {
                const std::vector<int64_t> sz = sizesOf(n.val);
                if (!an_.isTangent(a) && !sz.empty() && sz[0] == rows) eager.inputs.push_back(n.name);
                continue;
            }
            for (const Arg& x : n.args) x.forEachNode([&](NodeId p) { stack.push_back(p); });
            for (const auto& kv : n.kwargs) kv.second.forEachNode([&](NodeId p) { stack.push_back(p); });
        }
        std::sort(eager.inputs.begin(), eager.inputs.end(), [&](const std::string& x, const std::string& y) {
            return g_.positionOf(g_.findByName(x)) < g_.positionOf(g_.findByName(y));
        });
    }
    ctx_.log.stats["chunk_spec"] = eager.str();
    std::vector<int64_t> offsets(sizes.size(), 0);
    for (size_t k = 1; k < sizes.size(); ++k) offsets[k] = offsets[k - 1] + sizes[k - 1];
    std::vector<int64_t> distinct;
    for (int64_t s : sizes)
        if (std::find(distinct.begin(), distinct.end(), s) == distinct.end()) distinct.push_back(s);

    std::vector<NodeId> regionNew;  // new parent nodes between prefix and rest, in order

    // ---- ones for the tangents
    std::map<NodeId, NodeId> onesOf;
    for (NodeId t : liveTangents) {
        const TensorMeta& tm = g_.node(t).val.tensor;
        const NodeId o = addCall(
            g_.node(t).name + "_ones", "aten.full.default", {intListArg(sizesOf(g_.node(t).val)), Arg::ofFloat(1.0)},
            {{"dtype", Arg::ofDType(tm.dtype)},
             {"layout", Arg::ofLayout("strided")},
             {"device", Arg::ofDevice(tm.device.empty() ? "cpu" : tm.device)},
             {"pin_memory", Arg::ofBool(false)}},
            tensorVal(tm.dtype, sizesOf(g_.node(t).val), tm.device), chunkMeta("split", true, g_.node(t).name));
        onesOf[t] = o;
        regionNew.push_back(o);
    }
    // ---- split the chunked inputs
    std::map<NodeId, std::vector<NodeId>> piecesOf;
    int splits = 0;
    for (NodeId a : liveChunked) {
        const int d = info(a).dim;
        const TensorMeta& tm = g_.node(a).val.tensor;
        std::vector<ValueMeta> elems;
        for (int64_t s : sizes) {
            auto sz = sizesOf(g_.node(a).val);
            sz[idx(d)] = s;
            elems.push_back(tensorVal(tm.dtype, sz, tm.device));
        }
        auto sj = chunkMeta("split", isBackwardNode(a), g_.node(a).name);
        sj["dim"] = d;
        const int64_t each = (rows + chunks - 1) / chunks;
        const NodeId sp = split == ChunkSplit::Chunk
            ? addCall(g_.node(a).name + "_chunks", "aten.split.Tensor",
                      {Arg::ofNode(a), Arg::ofInt(each), Arg::ofInt(d)}, {}, ValueMeta::ofTuple(elems), sj)
            : addCall(g_.node(a).name + "_chunks", "aten.split_with_sizes.default",
                      {Arg::ofNode(a), intListArg(sizes), Arg::ofInt(d)}, {}, ValueMeta::ofTuple(elems), sj);
        ++splits;
        regionNew.push_back(sp);
        for (size_t k = 0; k < sizes.size(); ++k) {
            auto pj = sj;
            pj["chunk_id"] = k;
            const NodeId p = addCall(g_.node(a).name + "_chunk_" + std::to_string(k), "operator.getitem",
                                     {Arg::ofNode(sp), Arg::ofInt(static_cast<int64_t>(k))}, {}, elems[k], pj);
            piecesOf[a].push_back(p);
            regionNew.push_back(p);
        }
    }
    // ---- accumulators
    std::vector<NodeId> catOuts, sumOuts;
    for (NodeId o : outputs) (info(o).chunked() ? catOuts : sumOuts).push_back(o);
    std::map<NodeId, NodeId> accOf;
    std::map<NodeId, DType> accDtype;
    for (NodeId o : sumOuts) {
        const TensorMeta& tm = g_.node(o).val.tensor;
        DType dt = tm.dtype;
        if (numelOf(g_, o) == 1 && (dt == DType::BF16 || dt == DType::F16)) dt = DType::F32;
        accDtype[o] = dt;
        auto aj = chunkMeta("accumulator", isBackwardNode(o), g_.node(o).name);
        aj["combine"] = "sum";
        aj["proof"] = isBackwardNode(o) ? "backward_partial_sum" : "graph_output_partial_sum";
        const NodeId acc = addCall(g_.node(o).name + "_acc", "aten.full.default",
                                   {intListArg(sizesOf(g_.node(o).val)), Arg::ofFloat(0.0)},
                                   {{"dtype", Arg::ofDType(dt)},
                                    {"layout", Arg::ofLayout("strided")},
                                    {"device", Arg::ofDevice(tm.device.empty() ? "cpu" : tm.device)},
                                    {"pin_memory", Arg::ofBool(false)}},
                                   tensorVal(dt, sizesOf(g_.node(o).val), tm.device), aj);
        accOf[o] = acc;
        regionNew.push_back(acc);
    }

    // ---- one sub-graph per distinct piece size
    std::vector<std::string> subNames;
    std::vector<std::shared_ptr<Graph>> subs;
    size_t subNodes = 0;
    for (size_t si = 0; si < distinct.size(); ++si) {
        const int64_t s = distinct[si];
        auto sub = std::make_shared<Graph>();
        std::map<NodeId, NodeId> map;
        auto addPh = [&](const std::string& name, ValueMeta val, NodeId from) {
            Node p;
            p.op = NodeOp::Placeholder;
            p.name = p.target = sub->uniqueName(name);
            p.val = std::move(val);
            const NodeId id = sub->addNode(std::move(p));
            if (from != kNoNode) map[from] = id;
            return id;
        };
        for (NodeId a : liveChunked) {
            ValueMeta v = g_.node(a).val;
            auto sz = sizesOf(v);
            sz[idx(info(a).dim)] = s;
            addPh(g_.node(a).name, tensorVal(v.tensor.dtype, sz, v.tensor.device), a);
        }
        for (NodeId a : liveWhole) addPh(g_.node(a).name, g_.node(a).val, a);
        for (NodeId t : liveTangents) addPh(g_.node(t).name + "_ones", g_.node(onesOf[t]).val, t);
        std::map<NodeId, NodeId> accPh;
        for (NodeId o : sumOuts) accPh[o] = addPh(g_.node(o).name + "_acc", g_.node(accOf[o]).val, kNoNode);
        for (NodeId id : body) {
            const Node& src = g_.node(id);
            const NodeId c = copyNodeBefore(
                *sub, src,
                [&](NodeId r) {
                    auto it = map.find(r);
                    if (it == map.end())
                        throw PassError("auto_chunk: internal: '" + src.name + "' reads '" + g_.node(r).name
                                        + "', which is not in its sub-graph");
                    return it->second;
                },
                kNoNode, src.name, nullptr);
            map[id] = c;
            Node& cn = sub->node(c);
            cn.val = ValueMeta::unknown();
            // the node it copies (meta.chunk.original too); a copy under its own name needs none,
            // as the FX text form has it
            cn.meta.provenance = cn.name == src.name ? std::string() : src.name;
            auto bj = chunkMeta("body", isBackwardNode(id), src.name);
            cn.meta.chunk = bj;
            // chunk-sized shapes in size arguments
            const ChunkInfo& m = info(id);
            const std::string base = opBase(src.target);
            if (m.chunked() && src.val.isTensor()) {
                const int64_t full = sizesOf(src.val).at(idx(m.dim));
                const int64_t piece = full / rows * s;
                int listArg = -1;
                if (base == "full" || base == "zeros" || base == "ones" || base == "empty")
                    listArg = 0;
                else if (base == "view" || base == "_unsafe_view" || base == "reshape" || base == "_reshape_alias"
                         || base == "expand" || base == "new_zeros" || base == "new_ones" || base == "new_full"
                         || base == "new_empty")
                    listArg = 1;
                if (listArg >= 0 && static_cast<size_t>(listArg) < cn.args.size()) {
                    if (full != rows || !resizeList(cn.args[idx(listArg)], m.dim, full, piece))
                        throw PassError("auto_chunk: cannot resize the shape argument of '" + src.name + "' ("
                                        + src.target + ") to a chunk of " + std::to_string(s) + " along dim "
                                        + std::to_string(m.dim));
                    if (base == "_reshape_alias" && cn.args.size() > 2) {
                        // the strides of a contiguous alias, for the new sizes
                        std::vector<SymInt> ns;
                        for (const Arg& x : cn.args[1].items) ns.emplace_back(x.i);
                        std::vector<int64_t> st;
                        for (const SymInt& x : contiguousStrides(ns)) st.push_back(x.valueOrHint());
                        std::vector<int64_t> old;
                        for (const Arg& x : src.args[2].items) old.push_back(x.i);
                        std::vector<SymInt> os;
                        for (const Arg& x : src.args[1].items) os.emplace_back(x.i);
                        std::vector<int64_t> oldContig;
                        for (const SymInt& x : contiguousStrides(os)) oldContig.push_back(x.valueOrHint());
                        if (old != oldContig)
                            throw PassError("auto_chunk: '" + src.name
                                            + "' (_reshape_alias) has non-contiguous strides; cannot resize it");
                        cn.args[2] = intListArg(st);
                    }
                }
            }
        }
        // the tuple returned: chunked outputs, then accumulated sums (value + accumulator)
        std::vector<Arg> items;
        for (NodeId o : catOuts) items.push_back(Arg::ofNode(map.at(o)));
        for (NodeId o : sumOuts) {
            Node add;
            add.op = NodeOp::CallFunction;
            add.name = sub->uniqueName(g_.node(o).name + "_acc_next");
            add.target = "aten.add.Tensor";
            add.args = {Arg::ofNode(map.at(o)), Arg::ofNode(accPh[o])};
            auto aj = chunkMeta("accumulator", isBackwardNode(o), g_.node(o).name);
            aj["combine"] = "sum";
            add.meta.chunk = aj;
            items.push_back(Arg::ofNode(sub->addNode(std::move(add))));
        }
        Node out;
        out.op = NodeOp::Output;
        out.name = sub->uniqueName("output");
        out.target = "output";
        out.args = {Arg::ofTuple(items)};
        sub->addNode(std::move(out));
        sub->rebuildUsers();
        eliminateDeadCode(*sub, DceOptions{});
        ShapePropOptions so;
        const auto pr = propagateShapes(*sub, so);
        if (!pr.problems.empty())
            throw PassError("auto_chunk: the chunk sub-graph of " + std::to_string(s)
                            + " rows does not type-check: " + pr.problems.front());
        subNodes += sub->size();
        subNames.push_back(std::string(kAutoChunkSubgraphPrefix) + std::to_string(g_.subgraphs.size()));
        sub->className = subNames.back();  // FX text names the nested class after its attribute
        g_.subgraphs[subNames.back()] = sub;
        subs.push_back(sub);
    }

    // ---- the calls, accumulators threaded
    std::map<NodeId, NodeId> curAcc = accOf;
    std::map<NodeId, std::vector<NodeId>> outPieces;
    for (size_t k = 0; k < sizes.size(); ++k) {
        const size_t si = static_cast<size_t>(std::find(distinct.begin(), distinct.end(), sizes[k]) - distinct.begin());
        const std::string& attr = subNames[si];
        const Graph& sub = *subs[si];
        auto cj = chunkMeta("body", true);
        cj["chunk_id"] = k;
        Node ga;
        ga.op = NodeOp::GetAttr;
        ga.name = g_.uniqueName(attr);
        ga.target = attr;
        ga.meta.chunk = cj;
        const std::string gaName = ga.name;
        const NodeId gaId = g_.addNode(std::move(ga));
        ctx_.added(gaName);
        regionNew.push_back(gaId);
        std::vector<Arg> args = {Arg::ofNode(gaId), Arg::ofStr(attr)};
        for (NodeId a : liveChunked) args.push_back(Arg::ofNode(piecesOf[a][k]));
        for (NodeId a : liveWhole) args.push_back(Arg::ofNode(a));
        for (NodeId t : liveTangents) args.push_back(Arg::ofNode(onesOf[t]));
        for (NodeId o : sumOuts) args.push_back(Arg::ofNode(curAcc[o]));
        std::vector<ValueMeta> elems;
        const Node& so = sub.node(sub.outputNode());
        for (const Arg& it : so.args[0].items) elems.push_back(sub.node(it.node).val);
        const NodeId call =
            addCall("invoke_subgraph", "higher_order.invoke_subgraph", args, {}, ValueMeta::ofTuple(elems), cj);
        regionNew.push_back(call);
        size_t j = 0;
        for (NodeId o : catOuts) {
            const NodeId gi = addCall(g_.node(o).name + "_chunk_" + std::to_string(k), "operator.getitem",
                                      {Arg::ofNode(call), Arg::ofInt(static_cast<int64_t>(j))}, {}, elems[j], cj);
            outPieces[o].push_back(gi);
            regionNew.push_back(gi);
            ++j;
        }
        for (NodeId o : sumOuts) {
            const NodeId gi = addCall(g_.node(o).name + "_acc_" + std::to_string(k), "operator.getitem",
                                      {Arg::ofNode(call), Arg::ofInt(static_cast<int64_t>(j))}, {}, elems[j], cj);
            curAcc[o] = gi;
            regionNew.push_back(gi);
            ++j;
        }
    }

    // ---- rebuild each output: cat / final accumulator, divided by the nll total weight, times
    // the tangent, cast back
    std::vector<NodeId> rebuildUnscaled, rebuildScaled;
    std::map<NodeId, NodeId> rebuilt;
    int cats = 0;
    for (NodeId o : outputs) {
        const ChunkInfo m = info(o);
        const Node on = g_.node(o);  // a copy: the rebuild adds nodes (g_ may reallocate)
        const bool bw = isBackwardNode(o);
        auto& seq = m.scaleBy != kNoNode ? rebuildScaled : rebuildUnscaled;
        NodeId v;
        if (m.chunked()) {
            std::vector<Arg> ps;
            for (NodeId p : outPieces[o]) ps.push_back(Arg::ofNode(p));
            auto j = chunkMeta("materialization", bw, on.name);
            j["combine"] = "cat";
            j["dim"] = m.dim;
            v = addCall(on.name + "_cat", "aten.cat.default", {Arg::ofList(ps), Arg::ofInt(m.dim)}, {},
                        tensorVal(on.val.tensor.dtype, sizesOf(on.val), on.val.tensor.device), j);
            ++cats;
            seq.push_back(v);
        } else {
            v = curAcc[o];
        }
        const DType accDt = m.chunked() ? on.val.tensor.dtype : accDtype[o];
        const std::string dev = on.val.tensor.device;
        if (m.divideBy != kNoNode) {
            auto it =
                std::find_if(nll_.begin(), nll_.end(), [&](const NllRewrite& r) { return r.forward == m.divideBy; });
            auto j = chunkMeta("rebuild", bw, on.name);
            j["combine"] = "scale";
            v = addCall(on.name + "_mean", "aten.div.Tensor", {Arg::ofNode(v), Arg::ofNode(it->total32)}, {},
                        tensorVal(promoteTypes(accDt, DType::F32), sizesOf(on.val), dev), j);
            seq.push_back(v);
        }
        if (m.scaleBy != kNoNode) {
            auto j = chunkMeta("rebuild", bw, on.name);
            j["combine"] = "scale";
            v = addCall(on.name + "_scaled", "aten.mul.Tensor", {Arg::ofNode(v), Arg::ofNode(m.scaleBy)}, {},
                        tensorVal(g_.node(v).val.tensor.dtype, sizesOf(on.val), dev), j);
            seq.push_back(v);
        }
        if (g_.node(v).val.tensor.dtype != on.val.tensor.dtype) {
            auto j = chunkMeta("rebuild", bw, on.name);
            v = addCall(on.name + "_cast", "aten._to_copy.default", {Arg::ofNode(v)},
                        {{"dtype", Arg::ofDType(on.val.tensor.dtype)}}, on.val, j);
            seq.push_back(v);
        }
        if (m.needSum) {
            nlohmann::json& j = g_.node(v).meta.chunk;
            if (m.divideBy != kNoNode)
                j["formula"] =
                    "nll_loss mean rewritten as (sum over chunks of each chunk's summed losses, accumulated in f32 in "
                    "chunk order) / (global total weight); the unchunked graph sums all rows in one reduction and "
                    "eager "
                    "chunking averages each chunk and rescales it by n_k/N, so the bits differ by reduction order "
                    "(equal only when every partial sum and scaling is exact)";
            else
                j["formula"] = "sum of the per-chunk partial results in chunk order; the unchunked graph reduces all "
                               "rows in one reduction, so the bits may differ by reduction order";
        }
        rebuilt[o] = v;
    }
    // rewire the users of each output outside the body
    int rewires = 0;
    for (NodeId o : outputs) {
        for (NodeId u : std::vector<NodeId>(g_.node(o).users)) {
            if (inBody[idx(u)]) continue;
            Node& un = g_.node(u);
            auto re = [&](NodeId& r) {
                if (r == o) {
                    r = rebuilt[o];
                    ++rewires;
                }
            };
            for (auto& a : un.args) a.forEachNodeMut(re);
            for (auto& kv : un.kwargs) kv.second.forEachNodeMut(re);
            ctx_.rewired(un.name, "arg", g_.node(o).name, g_.node(rebuilt[o]).name);
        }
    }

    // ---- the new order: prefix, region, unscaled rebuilds, the rest (the seed tangents
    // among them, which may read a rebuilt loss), scaled rebuilds placed before their first user
    std::vector<NodeId> order;
    order.insert(order.end(), prefix.begin(), prefix.end());
    order.insert(order.end(), regionNew.begin(), regionNew.end());
    order.insert(order.end(), rebuildUnscaled.begin(), rebuildUnscaled.end());
    std::set<NodeId> scaledSet(rebuildScaled.begin(), rebuildScaled.end());
    std::set<NodeId> placed(order.begin(), order.end());
    std::vector<NodeId> restOut;
    size_t scaledDone = 0;
    auto placeScaled = [&]() {
        for (; scaledDone < rebuildScaled.size(); ++scaledDone) {
            const NodeId s = rebuildScaled[scaledDone];
            bool ready = true;
            auto chk = [&](NodeId a) {
                if (!placed.count(a)) ready = false;
            };
            for (const Arg& a : g_.node(s).args) a.forEachNode(chk);
            if (!ready) break;
            order.push_back(s);
            placed.insert(s);
        }
    };
    placeScaled();
    for (NodeId id : rest) {
        if (static_cast<size_t>(id) < cap && inBody[idx(id)]) continue;
        if (scaledSet.count(id)) continue;
        bool needsScaled = false;
        auto chk = [&](NodeId a) {
            if (scaledSet.count(a) && !placed.count(a)) needsScaled = true;
        };
        for (const Arg& a : g_.node(id).args) a.forEachNode(chk);
        for (const auto& kv : g_.node(id).kwargs) kv.second.forEachNode(chk);
        if (needsScaled) placeScaled();
        order.push_back(id);
        placed.insert(id);
        placeScaled();
    }
    placeScaled();
    order.push_back(g_.outputNode());
    // erase the body
    for (auto it = body.rbegin(); it != body.rend(); ++it) ctx_.removed(g_.node(*it).name);
    Graph out = reorder(g_, order);
    std::string why;
    if (!isTopologicallyOrdered(out, &why)) throw PassError("auto_chunk: cannot order the chunked graph: " + why);
    g_ = std::move(out);
    // the values of the new nodes as shape propagation gives them (views keep their strides)
    for (const std::string& nm : addedNames_)
        if (NodeId id = g_.findByName(nm); id != kNoNode) g_.node(id).val = ValueMeta::unknown();
    ShapePropOptions spo;
    spo.overwrite = false;
    if (const auto pr = propagateShapes(g_, spo); !pr.problems.empty())
        throw PassError("auto_chunk: the chunked graph does not type-check: " + pr.problems.front());

    // ---- notes and numbers
    std::string piecesText;
    {
        std::map<int64_t, int> cnt;
        for (int64_t s : sizes) ++cnt[s];
        bool firstP = true;
        for (auto it = cnt.rbegin(); it != cnt.rend(); ++it) {
            piecesText += (firstP ? "" : " + ") + std::to_string(it->second) + " of " + std::to_string(it->first);
            firstP = false;
        }
    }
    ctx_.note(ampNote + "; " + std::to_string(sizes.size()) + " chunks (" + piecesText + " rows); "
              + std::to_string(subs.size()) + " sub-graph" + (subs.size() == 1 ? "" : "s") + "; region "
              + std::to_string(body.size()) + " nodes");
    ctx_.note(std::to_string(liveChunked.size()) + " input(s) split, " + std::to_string(liveWhole.size())
              + " passed whole, " + std::to_string(liveTangents.size()) + " tangent(s) replaced by ones; "
              + std::to_string(catOuts.size()) + " output(s) concatenated, " + std::to_string(sumOuts.size())
              + " accumulated");
    for (const NllRewrite& r : nll_)
        ctx_.note("nll_loss_forward rewritten: chunks sum their losses (reduction=sum), the total weight is computed "
                  "once from the whole target, nll_loss_backward reads it"
                  + std::string(r.mean ? "; loss = accumulated sum / total weight" : ""));
    auto& st = ctx_.log.stats;
    st["chunkings"] = 1;
    st["chunks"] = sizes.size();
    st["subgraphs"] = subs.size();
    st["invoke_calls"] = sizes.size();
    st["region_nodes"] = body.size();
    st["subgraph_nodes"] = subNodes;
    st["accumulators"] = sumOuts.size();
    st["cats"] = cats;
    st["splits"] = splits;
    st["rewired"] = rewires;
    st["rules_run"] = an_.rulesRun;
    st["nll_rewrites"] = nll_.size();
    st["piece_sizes"] = sizes;
}

void AutoChunkPass::run(Graph& g, const PassOptions& opts, PassContext& ctx) const
{
    for (const auto& [attr, sub] : g.subgraphs)
        if (attr.rfind(kAutoChunkSubgraphPrefix, 0) == 0
            || (sub && sub->className.rfind(kAutoChunkSubgraphPrefix, 0) == 0))
            throw PassError("auto_chunk: this graph was produced by auto_chunk (it holds the sub-graph '" + attr
                            + "'); a chunked graph is not chunked again");
    g.rebuildUsers();
    bool seeds = false;
    const std::set<NodeId> tangents = findTangents(g, seeds);
    if (tangents.empty())
        throw PassError("auto_chunk: no tangent placeholder and no backward seed (ones_like of a graph output): "
                        "not a training graph (inference or optimizer graph), nothing to chunk");
    // ---- the amplifier: before the first node that reads a tangent
    const double ratioMin = opts.getFloat("amplify_ratio");
    const int64_t minBytes = opts.getInt("min_output_bytes");
    Amplifier best, largest;
    NodeId dynamicCandidate = kNoNode;
    for (NodeId id : g.order()) {
        const Node& n = g.node(id);
        bool usesTangent = false;
        for (const Arg& a : n.args) a.forEachNode([&](NodeId p) { usesTangent |= tangents.count(p) != 0; });
        for (const auto& kv : n.kwargs) kv.second.forEachNode([&](NodeId p) { usesTangent |= tangents.count(p) != 0; });
        if (usesTangent) break;
        if (!(n.isOp("aten.mm.default") || n.isOp("aten.addmm.default") || n.isOp("aten.bmm.default"))) continue;
        auto outB = valueBytes(n.val);
        bool dynamic = false;
        if (n.val.isTensor())
            for (const SymInt& s : n.val.tensor.sizes) dynamic |= !s.isConcrete();
        if (dynamic && dynamicCandidate == kNoNode) dynamicCandidate = id;
        if (!outB) continue;
        int64_t inB = 0;
        for (const Arg& a : n.args)
            if (a.isNode()) inB += valueBytes(g.node(a.node).val).value_or(0);
        if (inB == 0) continue;
        const double r = static_cast<double>(*outB) / static_cast<double>(inB);
        if (r > largest.ratio) largest = {id, r, *outB, inB};
        if (*outB > minBytes && r > ratioMin && r > best.ratio) best = {id, r, *outB, inB};
    }
    if (best.node == kNoNode && dynamicCandidate != kNoNode)
        throw PassError("auto_chunk: the candidate amplifier '" + g.node(dynamicCandidate).name
                        + "' has a dynamic shape " + shapeText(g, dynamicCandidate)
                        + "; auto_chunk needs static shapes");
    if (best.node == kNoNode) {
        std::string why = "auto_chunk: no amplifier: no mm / addmm / bmm before the backward has an output larger than "
            + bytesText(minBytes) + " and more than " + ratioText(ratioMin) + "x its inputs";
        if (largest.node != kNoNode)
            why += " (the largest ratio is '" + g.node(largest.node).name + "' " + shapeText(g, largest.node) + ": "
                + bytesText(largest.outBytes) + " from " + bytesText(largest.inBytes) + ", ratio "
                + ratioText(largest.ratio) + ")";
        throw PassError(why);
    }
    const Node& amp = g.node(best.node);
    for (const SymInt& s : amp.val.tensor.sizes)
        if (!s.isConcrete())
            throw PassError("auto_chunk: the amplifier '" + amp.name + "' has a dynamic shape "
                            + shapeText(g, best.node) + "; auto_chunk needs static shapes");
    std::string ampNote =
        "amplifier " + opBase(amp.target) + " '" + amp.name + "': " + shapeText(g, best.node) + " from ";
    {
        bool firstA = true;
        for (const Arg& a : amp.args)
            if (a.isNode()) {
                ampNote += (firstA ? "" : " + ") + shapeText(g, a.node);
                firstA = false;
            }
    }
    ampNote += ", ratio " + ratioText(best.ratio);

    autochunk::Analysis an(g, ctx.registry, tangents);
    an.propagate(best.node);
    bool tangentReached = false;
    for (NodeId t : tangents) tangentReached |= an.info[static_cast<size_t>(t)].present;
    if (!tangentReached)
        throw PassError("auto_chunk: no tangent received chunk metadata from amplifier '" + amp.name
                        + "': the backward never reads an amplified-size value of this region (nothing to gain)");
    for (NodeId t : tangents)
        if (an.info[static_cast<size_t>(t)].present && numelOf(g, t) != 1)
            throw PassError("auto_chunk: the tangent '" + g.node(t).name
                            + "' is not a one-element tensor; only a scalar gradient seed can be factored out");
    Applier ap(g, ctx.registry, ctx, an);
    std::vector<NodeId> nlls;
    for (NodeId id : g.order())
        if (g.node(id).isOp("aten.nll_loss_forward.default") && an.info[static_cast<size_t>(id)].present
            && an.info[static_cast<size_t>(id)].needSum)
            nlls.push_back(id);
    for (NodeId f : nlls) ap.rewriteNll(f);
    an.propagateScale();
    ctx.log.stats["amplifier"] = g.node(best.node).name;  // amp may dangle: the nll rewrite added nodes
    ctx.log.stats["amplify_ratio"] = best.ratio;
    ctx.log.stats["tangent_kind"] = seeds ? "seed" : "placeholder";
    ap.run(opts, ampNote);
    std::vector<Problem> problems = verifyGraph(g, ctx.registry);
    for (const Problem& p : problems)
        if (p.severity == Severity::Error)
            throw PassError("auto_chunk: the chunked graph does not verify: " + p.format());
}

}  // namespace

std::unique_ptr<Pass> makeAutoChunkPass() { return std::make_unique<AutoChunkPass>(); }

}  // namespace fxl
