#include "runtime/check/eager_chunking.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <numeric>
#include <queue>
#include <set>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

#include "core/ops/shape_prop.hpp"
#include "runtime/backends.hpp"
#include "runtime/base/kernel.hpp"
#include "runtime/check/eager_chunking_function.hpp"
#include "runtime/exec/executor_inputs.hpp"

namespace fxl {

std::string_view chunkCombineName(ChunkCombine c)
{
    switch (c) {
    case ChunkCombine::Outside: return "outside";
    case ChunkCombine::Cat: return "cat";
    case ChunkCombine::Sum: return "sum";
    case ChunkCombine::WeightedSum: return "weighted_sum";
    case ChunkCombine::PerChunk: return "per_chunk";
    case ChunkCombine::Same: return "same";
    }
    return "?";
}

std::string EagerOutputInfo::how() const
{
    switch (combine) {
    case ChunkCombine::Outside: return "outside every region";
    case ChunkCombine::Cat: return "cat along dim " + std::to_string(dim) + " of " + std::to_string(pieces) + " pieces";
    case ChunkCombine::Sum:
        return "sum of " + std::to_string(pieces) + " chunk values in chunk order"
            + (seedWeighted ? " (backward seeded with w_k)" : "");
    case ChunkCombine::WeightedSum: return "weighted sum (gradient accumulation, w_k = n_k/N)";
    case ChunkCombine::PerChunk: return "per chunk";
    case ChunkCombine::Same: return "the same in every chunk (no data dependence): chunk 0's";
    }
    return "?";
}

namespace {

constexpr const char* kWholeGraph = "<whole graph>";

bool isCall(const Node& n)
{
    return n.op == NodeOp::CallFunction || n.op == NodeOp::CallMethod || n.op == NodeOp::CallModule;
}

bool isBackwardNode(const Node& n)
{
    if (n.meta.phase == Phase::Backward) return true;
    if (n.meta.phase == Phase::Forward || n.meta.phase == Phase::Loss) return false;
    return n.meta.autogradBackward.value_or(false);
}

std::vector<int64_t> concreteSizes(const TensorMeta& t)
{
    std::vector<int64_t> s;
    for (const auto& x : t.sizes) s.push_back(x.valueOrHint());
    return s;
}

int64_t product(const std::vector<int64_t>& v, size_t from, size_t to)
{
    int64_t p = 1;
    for (size_t i = from; i < to && i < v.size(); ++i) p *= v[i];
    return p;
}

TensorMeta metaOf(const Tensor& t)
{
    TensorMeta m;
    m.dtype = t.dtype();
    for (int64_t s : t.sizes()) m.sizes.emplace_back(s);
    for (int64_t s : Tensor::contiguousStrides(t.sizes())) m.strides.emplace_back(s);
    m.device = "cpu";
    return m;
}

Tensor contiguousCopy(Backend& b, const Tensor& t)
{
    Tensor out = b.empty(t.sizes(), t.dtype());
    b.copy(out, t);
    return out;
}

// Piece [off, off + len) of dim d, made contiguous.
Tensor slicePiece(Backend& b, const Tensor& t, int d, int64_t off, int64_t len)
{
    std::vector<int64_t> sizes = t.sizes();
    sizes[static_cast<size_t>(d)] = len;
    Tensor v = t.asStrided(sizes, t.strides(), t.offset() + off * t.stride(d));
    return contiguousCopy(b, v);
}

// The loss op's reduction argument: its position in the aten schema (default: mean).
std::optional<int64_t> reductionOf(const Node& n)
{
    static const std::map<std::string, size_t> kPos{
        {"aten.mse_loss.default", 2},
        {"aten.l1_loss.default", 2},
        {"aten.smooth_l1_loss.default", 2},
        {"aten.huber_loss.default", 2},
        {"aten.soft_margin_loss.default", 2},
        {"aten.kl_div.default", 2},
        {"aten.binary_cross_entropy.default", 3},
        {"aten.binary_cross_entropy_with_logits.default", 4},
        {"aten.nll_loss_forward.default", 3},
        {"aten.nll_loss2d_forward.default", 3},
        {"aten.nll_loss.default", 3},
        {"aten.nll_loss_nd.default", 3},
        {"aten.cross_entropy_loss.default", 3},
    };
    auto it = kPos.find(n.target);
    if (n.op != NodeOp::CallFunction || it == kPos.end()) return std::nullopt;
    if (const Arg* a = n.kwarg("reduction"); a && a->kind == Arg::Kind::Int) return a->i;
    if (it->second < n.args.size() && n.args[it->second].kind == Arg::Kind::Int) return n.args[it->second].i;
    return 1;  // at.Reduction.Mean, the default of every one of these
}

// ---------------------------------------------------------------- sub-graph extraction

struct SubGraph
{
    Graph g;
    std::vector<NodeId> liveIns;  // original ids, placeholder order
    std::vector<NodeId> liveOuts;  // original ids, output order
    std::unordered_map<std::string, NodeId> origByName;
};

// The nodes `members` (original ids, in order) as a graph whose placeholders are the values
// they read from elsewhere (`substituted` members count as read from elsewhere too) and whose
// output is `liveOuts`. get_attr nodes they read are copied (constants, nested graphs).
SubGraph extract(const Graph& og, const std::vector<NodeId>& members, const std::unordered_set<NodeId>& substituted,
                 const std::vector<NodeId>& liveOuts)
{
    SubGraph sg;
    sg.g.subgraphs = og.subgraphs;
    sg.g.embeddedConstants = og.embeddedConstants;
    std::unordered_set<NodeId> inside;
    for (NodeId id : members)
        if (!substituted.count(id)) inside.insert(id);
    std::unordered_map<NodeId, NodeId> map;
    std::vector<NodeId> getAttrs;
    std::set<NodeId> seenIn;
    auto need = [&](NodeId r) {
        if (inside.count(r) || map.count(r) || seenIn.count(r)) return;
        if (og.node(r).op == NodeOp::GetAttr)
            getAttrs.push_back(r);
        else
            sg.liveIns.push_back(r);
        seenIn.insert(r);
    };
    for (NodeId id : members) {
        if (!inside.count(id)) continue;
        const Node& n = og.node(id);
        for (const auto& a : n.args) a.forEachNode(need);
        for (const auto& kv : n.kwargs) kv.second.forEachNode(need);
    }
    for (NodeId r : liveOuts)
        if (!inside.count(r)) need(r);
    std::sort(sg.liveIns.begin(), sg.liveIns.end(),
              [&](NodeId a, NodeId b) { return og.positionOf(a) < og.positionOf(b); });
    for (NodeId r : sg.liveIns) {
        const Node& o = og.node(r);
        Node p;
        p.name = o.name;
        p.target = o.name;
        p.op = NodeOp::Placeholder;
        p.val = o.val;
        map[r] = sg.g.addNode(std::move(p));
    }
    for (NodeId r : getAttrs) {
        Node c = og.node(r);
        c.users.clear();
        map[r] = sg.g.addNode(std::move(c));
    }
    auto remap = [&](Arg& a) { a.forEachNodeMut([&](NodeId& x) { x = map.at(x); }); };
    for (NodeId id : members) {
        if (!inside.count(id)) continue;
        Node c = og.node(id);
        c.users.clear();
        for (auto& a : c.args) remap(a);
        for (auto& kv : c.kwargs) remap(kv.second);
        map[id] = sg.g.addNode(std::move(c));
    }
    Node out;
    out.name = sg.g.uniqueName("output");
    out.op = NodeOp::Output;
    out.target = "output";
    std::vector<Arg> items;
    for (NodeId r : liveOuts) items.push_back(Arg::ofNode(map.at(r)));
    out.args.push_back(Arg::ofTuple(std::move(items)));
    sg.g.addNode(std::move(out));
    sg.g.rebuildUsers();
    sg.liveOuts = liveOuts;
    for (const auto& [o, n] : map) sg.origByName[sg.g.node(n).name] = o;
    return sg;
}

// ---------------------------------------------------------------- size arguments of a chunk run

const std::set<std::string>& reshapeOps()
{
    static const std::set<std::string> k{"aten.view.default", "aten.reshape.default", "aten._reshape_alias.default",
                                         "aten._unsafe_view.default"};
    return k;
}
const std::set<std::string>& factoryOps()
{
    // size is argument 0
    static const std::set<std::string> k{"aten.zeros.default", "aten.ones.default", "aten.empty.memory_format",
                                         "aten.full.default", "aten.empty_strided.default"};
    return k;
}
const std::set<std::string>& newFactoryOps()
{
    // size is argument 1
    static const std::set<std::string> k{"aten.new_zeros.default", "aten.new_ones.default", "aten.new_empty.default",
                                         "aten.new_full.default"};
    return k;
}

std::optional<std::vector<int64_t>> intList(const Arg& a)
{
    if (!a.isSequence()) return std::nullopt;
    std::vector<int64_t> v;
    for (const auto& x : a.items) {
        if (x.kind != Arg::Kind::Int) return std::nullopt;
        v.push_back(x.i);
    }
    return v;
}
Arg intListArg(const std::vector<int64_t>& v)
{
    std::vector<Arg> items;
    for (int64_t x : v) items.push_back(Arg::ofInt(x));
    return Arg::ofList(std::move(items));
}

// Operators that take the batch size as a literal: (argument index, a size list whose dim 0 it is).
std::optional<std::pair<int, bool>> batchSizeArgument(const std::string& target)
{
    static const std::map<std::string, std::pair<int, bool>> k{
        {"aten.native_group_norm.default", {3, false}},
        {"aten.native_group_norm_backward.default", {5, false}},
        {"aten.upsample_nearest1d_backward.vec", {2, true}},
        {"aten.upsample_nearest2d_backward.vec", {2, true}},
        {"aten.upsample_nearest3d_backward.vec", {2, true}},
        {"aten.upsample_linear1d_backward.vec", {2, true}},
        {"aten.upsample_bilinear2d_backward.vec", {2, true}},
        {"aten.upsample_bicubic2d_backward.vec", {2, true}},
        {"aten.upsample_trilinear3d_backward.vec", {2, true}},
        {"aten.upsample_nearest2d_backward.default", {2, true}},
        {"aten.upsample_bilinear2d_backward.default", {2, true}},
    };
    auto it = k.find(target);
    if (it == k.end()) return std::nullopt;
    return it->second;
}

struct ChunkRunPlan
{
    std::unordered_map<std::string, ChunkInfo> info;  // by node name (tensor values of the run)
    std::vector<std::string> rewritten;
    std::vector<std::string> problems;
};

// Rewrites the size arguments of `sg` for a chunk of length nk of an axis of length N (see the
// header) and computes the chunk run's metas and where the chunk axis lies in each value.
// `given`: the chunk info of the placeholders; `factoryDims`: factories (by name) whose literal
// N at that dim, not at the chunk dim, follows the chunk.
ChunkRunPlan planChunkRun(Graph& g, const Graph& original, const std::unordered_map<std::string, ChunkInfo>& given,
                          int64_t N, int64_t nk, int axisDim, const std::map<std::string, int>& factoryDims)
{
    ChunkRunPlan plan;
    std::unordered_map<std::string, ChunkInfo> forced;  // reshape outputs: (outer, inner) from the rewrite
    std::set<std::string> done;
    auto origMeta = [&](const std::string& name) -> const ValueMeta* {
        const NodeId id = original.findByName(name);
        return id == kNoNode ? nullptr : &original.node(id).val;
    };
    for (int round = 0; round < 10000; ++round) {
        g.forEachNodeMut([](Node& n) {
            if (isCall(n)) n.val = ValueMeta::unknown();
        });
        ShapePropOptions so;
        so.recorded = &original;
        so.overwrite = true;
        const ShapePropResult pr = propagateShapes(g, so);
        plan.problems = pr.problems;
        // chunk info of every tensor value with a meta, in order
        plan.info.clear();
        for (NodeId id : g.order()) {
            const Node& n = g.node(id);
            if (n.op == NodeOp::Placeholder) {
                auto it = given.find(n.name);
                if (it != given.end()) plan.info[n.name] = it->second;
                continue;
            }
            if (!isCall(n) || !n.val.isTensor()) continue;
            const ValueMeta* om = origMeta(n.name);
            if (!om || !om->isTensor()) continue;
            const auto cs = concreteSizes(n.val.tensor), os = concreteSizes(om->tensor);
            ChunkInfo ci;
            if (cs.size() == os.size()) {
                int differing = 0;
                for (size_t d = 0; d < cs.size(); ++d)
                    if (cs[d] != os[d]) {
                        ++differing;
                        ci.dim = static_cast<int>(d);
                    }
                if (differing > 1) ci.dim = -2;
            }
            if (ci.dim >= 0) {
                const int64_t S = os[static_cast<size_t>(ci.dim)];
                if (auto f = forced.find(n.name); f != forced.end()) {
                    ci.outer = f->second.outer;
                    ci.inner = f->second.inner;
                } else {
                    bool found = false;
                    for (const auto& a : n.args)
                        a.forEachNode([&](NodeId r) {
                            if (found) return;
                            const Node& in = g.node(r);
                            auto ii = plan.info.find(in.name);
                            const ValueMeta* im = in.op == NodeOp::Placeholder ? &in.val : origMeta(in.name);
                            if (ii == plan.info.end() || ii->second.dim < 0 || !im || !im->isTensor()) return;
                            const auto isz = concreteSizes(im->tensor);
                            if (in.op == NodeOp::Placeholder) {
                                // a placeholder's val is the chunk's: the original size is outer*N*inner
                                if (ii->second.outer * N * ii->second.inner != S) return;
                            } else if (isz[static_cast<size_t>(ii->second.dim)] != S) {
                                return;
                            }
                            ci.outer = ii->second.outer;
                            ci.inner = ii->second.inner;
                            found = true;
                        });
                    if (!found && S % N == 0) ci.outer = S / N;
                }
            }
            plan.info[n.name] = ci;
        }
        // the size arguments: a node whose inputs' metas are final and whose arguments are wrong
        std::set<std::string> tainted;
        bool changed = false;
        for (NodeId id : g.order()) {
            Node& n = g.node(id);
            if (!isCall(n)) continue;
            bool inputTainted = false;
            for (const auto& a : n.args)
                a.forEachNode([&](NodeId r) { inputTainted = inputTainted || tainted.count(g.node(r).name); });
            if (inputTainted) {
                tainted.insert(n.name);
                continue;
            }
            if (done.count(n.name)) continue;
            const ValueMeta* om = origMeta(n.name);
            std::vector<int64_t> before, after;
            size_t argIndex = 0;
            bool handled = false;
            if (reshapeOps().count(n.target) && n.args.size() >= 2 && n.args[0].isNode()) {
                const Node& in = g.node(n.args[0].node);
                if (!in.val.isTensor()) continue;  // not computed yet
                done.insert(n.name);
                handled = true;
                auto l = intList(n.args[1]);
                auto ii = plan.info.find(in.name);
                if (ii != plan.info.end() && ii->second.dim == -2)
                    throw std::invalid_argument(
                        "eager chunking: '" + in.name + "' has the chunk axis in more than one dim ("
                        + sizesText(concreteSizes(in.val.tensor))
                        + " in a chunk run), as attention scores have under sequence chunking: '" + n.name + "' ("
                        + n.target + ") cannot be given its chunk sizes; chunk this region along another axis");
                const ValueMeta* im = in.op == NodeOp::Placeholder ? nullptr : origMeta(in.name);
                if (!l || ii == plan.info.end() || ii->second.dim < 0) continue;  // unchunked: as traced
                std::vector<int64_t> isz;
                if (im && im->isTensor())
                    isz = concreteSizes(im->tensor);
                else {  // placeholder: its original sizes from its chunk sizes
                    isz = concreteSizes(in.val.tensor);
                    isz[static_cast<size_t>(ii->second.dim)] = ii->second.outer * N * ii->second.inner;
                }
                const int64_t numel = product(isz, 0, isz.size());
                before = *l;
                std::vector<int64_t> L = *l;
                for (auto& x : L)
                    if (x == -1) {
                        int64_t rest = 1;
                        for (int64_t y : *l)
                            if (y != -1) rest *= y;
                        x = rest ? numel / rest : 0;
                    }
                const int64_t sigma =
                    ii->second.inner * product(isz, static_cast<size_t>(ii->second.dim) + 1, isz.size());
                bool ok = false;
                for (size_t j = L.size(); j-- > 0;) {
                    const int64_t afterP = product(L, j + 1, L.size());
                    if (afterP == 0 || afterP > sigma || sigma % afterP != 0) continue;
                    const int64_t ip = sigma / afterP;
                    if (L[j] % (N * ip) != 0) continue;
                    const int64_t op = L[j] / (N * ip);
                    L[j] = op * nk * ip;
                    forced[n.name] = ChunkInfo{static_cast<int>(j), op, ip};
                    ok = true;
                    break;
                }
                if (!ok)
                    throw std::invalid_argument("eager chunking: cannot find the chunk axis in the sizes "
                                                + sizesText(before) + " of '" + n.name + "' (" + n.target
                                                + "): its input holds the axis in dim " + std::to_string(ii->second.dim)
                                                + " of " + sizesText(isz));
                after = L;
                argIndex = 1;
                if (n.target == "aten._reshape_alias.default") {
                    // the strides were PyTorch's for the full input: reshape finds the view (or copies)
                    n.target = "aten.reshape.default";
                    n.args.resize(2);
                }
            } else if (n.target == "aten.expand.default" && n.args.size() >= 2 && n.args[0].isNode()) {
                const Node& in = g.node(n.args[0].node);
                if (!in.val.isTensor()) continue;
                done.insert(n.name);
                handled = true;
                auto l = intList(n.args[1]);
                if (!l) continue;
                before = *l;
                after = *l;
                auto ii = plan.info.find(in.name);
                const auto isz = concreteSizes(in.val.tensor);
                const size_t shift = l->size() - isz.size();
                if (ii != plan.info.end() && ii->second.dim >= 0) {
                    const size_t j = static_cast<size_t>(ii->second.dim) + shift;
                    if (after[j] != -1) after[j] = isz[static_cast<size_t>(ii->second.dim)];
                } else if (static_cast<size_t>(axisDim) < after.size() && after[static_cast<size_t>(axisDim)] == N
                           && (static_cast<size_t>(axisDim) < shift || isz[axisDim - shift] == 1)) {
                    after[static_cast<size_t>(axisDim)] = nk;
                }
                argIndex = 1;
            } else if ((factoryOps().count(n.target) && !n.args.empty())
                       || (newFactoryOps().count(n.target) && n.args.size() >= 2)) {
                done.insert(n.name);
                handled = true;
                argIndex = factoryOps().count(n.target) ? 0 : 1;
                auto l = intList(n.args[argIndex]);
                if (!l) continue;
                before = *l;
                after = *l;
                const auto fd = factoryDims.find(n.name);
                const size_t dim = static_cast<size_t>(fd != factoryDims.end() ? fd->second : axisDim);
                if (dim < after.size() && after[dim] == N) after[dim] = nk;
                if (n.target == "aten.empty_strided.default" && after != before && n.args.size() >= 2)
                    n.args[1] = intListArg(Tensor::contiguousStrides(after));
            } else if (const auto sz = batchSizeArgument(n.target);
                       sz && static_cast<size_t>(sz->first) < n.args.size() && axisDim == 0) {
                // the batch size as a literal argument (group norm's N, an upsampling backward's
                // input_size): the chunk's
                done.insert(n.name);
                Arg& a = n.args[static_cast<size_t>(sz->first)];
                if (sz->second && a.isSequence() && !a.items.empty() && a.items[0].kind == Arg::Kind::Int
                    && a.items[0].i == N) {
                    before = *intList(a);
                    after = before;
                    after[0] = nk;
                    argIndex = static_cast<size_t>(sz->first);
                    handled = true;
                } else if (!sz->second && a.kind == Arg::Kind::Int && a.i == N && nk != N) {
                    plan.rewritten.push_back(n.name + ": N " + std::to_string(N) + " -> " + std::to_string(nk));
                    a = Arg::ofInt(nk);
                    tainted.insert(n.name);
                    changed = true;
                    continue;
                }
            } else if (n.target == "aten.div.Scalar" && n.args.size() >= 2 && n.args[0].isNode()
                       && (n.args[1].kind == Arg::Kind::Int || n.args[1].kind == Arg::Kind::Float)) {
                // a mean's backward as make_fx traces it: div(expand(grad, sizes), numel) with the
                // traced count; a chunk's mean divides by the chunk's count
                const Node& in = g.node(n.args[0].node);
                if (!in.val.isTensor()) continue;
                done.insert(n.name);
                auto ii = plan.info.find(in.name);
                const ValueMeta* im = origMeta(in.name);
                if (ii == plan.info.end() || ii->second.dim < 0 || !im || !im->isTensor()) continue;
                const auto osz = concreteSizes(im->tensor), csz = concreteSizes(in.val.tensor);
                const double divisor =
                    n.args[1].kind == Arg::Kind::Int ? static_cast<double>(n.args[1].i) : n.args[1].f;
                const int64_t fullCount = product(osz, 0, osz.size()), chunkCount = product(csz, 0, csz.size());
                if (divisor != static_cast<double>(fullCount) || fullCount == chunkCount) continue;
                plan.rewritten.push_back(n.name + ": divisor " + std::to_string(fullCount) + " -> "
                                         + std::to_string(chunkCount));
                if (n.args[1].kind == Arg::Kind::Int)
                    n.args[1] = Arg::ofInt(chunkCount);
                else
                    n.args[1] = Arg::ofFloat(static_cast<double>(chunkCount));
                tainted.insert(n.name);
                changed = true;
                continue;
            } else if ((n.target == "aten.slice_backward.default" || n.target == "aten.select_backward.default")
                       && n.args.size() >= 3 && n.args[0].isNode() && n.args[2].kind == Arg::Kind::Int) {
                // the sizes of the sliced (selected) input: its chunk dim takes the gradient's size
                const Node& in = g.node(n.args[0].node);
                if (!in.val.isTensor()) continue;
                done.insert(n.name);
                handled = true;
                auto l = intList(n.args[1]);
                auto ii = plan.info.find(in.name);
                if (!l || ii == plan.info.end() || ii->second.dim < 0) continue;
                before = *l;
                after = *l;
                int64_t sd = n.args[2].i;
                if (sd < 0) sd += static_cast<int64_t>(after.size());
                int64_t j = ii->second.dim;
                if (n.target == "aten.select_backward.default" && j >= sd) ++j;
                // slice_backward(grad, sizes, dim, 0, end >= size, 1) along the chunk dim is the
                // identity (x[:, t] traces a full slice of the batch first)
                const bool identity = n.target == "aten.slice_backward.default" && j == sd && n.args.size() >= 6
                    && n.args[3].kind == Arg::Kind::Int && n.args[3].i == 0 && n.args[4].kind == Arg::Kind::Int
                    && n.args[4].i >= (*l)[static_cast<size_t>(sd)] && n.args[5].kind == Arg::Kind::Int
                    && n.args[5].i == 1;
                if ((j == sd && !identity) || j >= static_cast<int64_t>(after.size()))
                    throw std::invalid_argument("eager chunking: '" + n.name + "' (" + n.target
                                                + ") slices along the chunk dim " + std::to_string(j));
                after[static_cast<size_t>(j)] = concreteSizes(in.val.tensor)[static_cast<size_t>(ii->second.dim)];
                argIndex = 1;
            } else if (n.target == "aten.slice.Tensor" && n.args.size() >= 4 && n.args[0].isNode()
                       && n.args[3].kind == Arg::Kind::Int) {
                const Node& in = g.node(n.args[0].node);
                if (!in.val.isTensor()) continue;
                done.insert(n.name);
                auto ii = plan.info.find(in.name);
                int64_t d = n.args[1].kind == Arg::Kind::Int ? n.args[1].i : 0;
                const auto isz = concreteSizes(in.val.tensor);
                if (d < 0) d += static_cast<int64_t>(isz.size());
                if (ii != plan.info.end() && ii->second.dim == d && om && om->isTensor()) {
                    const ValueMeta* im = origMeta(in.name);
                    const int64_t full = im && im->isTensor() ? concreteSizes(im->tensor)[static_cast<size_t>(d)]
                                                              : ii->second.outer * N * ii->second.inner;
                    if (n.args[3].i == full && n.args[2].kind == Arg::Kind::Int && n.args[2].i == 0) {
                        plan.rewritten.push_back(n.name + ": end " + std::to_string(full) + " -> "
                                                 + std::to_string(isz[static_cast<size_t>(d)]));
                        n.args[3] = Arg::ofInt(isz[static_cast<size_t>(d)]);
                        tainted.insert(n.name);
                        changed = true;
                    }
                }
                continue;
            }
            if (handled && after != before) {
                n.args[argIndex] = intListArg(after);
                plan.rewritten.push_back(n.name + ": " + sizesText(before) + " -> " + sizesText(after));
                tainted.insert(n.name);
                changed = true;
            }
        }
        if (!changed) break;
    }
    return plan;
}

// ---------------------------------------------------------------- the run

struct Segment
{
    std::string root;
    bool backward = false;
    std::vector<NodeId> nodes;  // in order
    size_t region = 0, index = 0;  // into result.regions[region].segments[index]
    int forwardSegment = -1;  // for a backward segment: its root's forward segment
};

class Reference
{
public:
    Reference(const Graph& g, const ChunkSpec& spec, const ExecOptions& opts, bool keepLiveOuts)
        : g_(g)
        , spec_(spec)
        , opts_(opts)
        , keepLiveOuts_(keepLiveOuts)
    { }

    EagerChunkResult run();

private:
    const Graph& g_;
    const ChunkSpec& spec_;
    const ExecOptions& opts_;
    bool keepLiveOuts_ = false;
    Backend* backend_ = nullptr;
    EagerChunkResult res_;
    std::vector<int> unit_;  // node id -> segment index, -1 outside
    std::vector<Segment> segs_;
    std::vector<uint8_t> act_;
    std::vector<uint8_t> made_;  // made in the graph from nothing (zeros(N, d), its views): no input, no constant
    std::vector<Value> full_;
    std::vector<uint8_t> have_;
    std::map<NodeId, std::vector<Value>> perChunk_;  // forward values of a root used by its backward
    std::map<NodeId, std::vector<ChunkInfo>> perChunkInfo_;
    std::map<NodeId, ChunkKind> perChunkKind_;  // what the forward's check found for them
    std::map<std::string, int> factoryDims_;  // factories whose dim (not the chunk dim) is the axis
    std::map<NodeId, EagerOutputInfo> combined_;  // live-outs of segments: how they were combined
    std::vector<NodeId> data_;
    int axisDim_ = 0;
    NodeId seed_ = kNoNode, loss_ = kNoNode;
    std::vector<uint8_t> usedByOutput_;
    std::vector<uint8_t> seedDep_;  // weighted: depends on the backward seed (a gradient)

    void setFull(NodeId id, Value v)
    {
        full_[static_cast<size_t>(id)] = std::move(v);
        have_[static_cast<size_t>(id)] = 1;
    }
    const Value& fullOf(NodeId id) const
    {
        if (!have_[static_cast<size_t>(id)])
            throw std::logic_error("eager chunking: the value of '" + g_.node(id).name + "' is not computed yet");
        return full_[static_cast<size_t>(id)];
    }

    ExecOptions subOptions(const std::vector<Value>* values) const
    {
        ExecOptions o;
        o.backend = backend_;
        o.threads = opts_.threads;
        o.constants = opts_.constants;
        o.rngSeed = opts_.rngSeed;
        o.cancel = opts_.cancel;
        o.maxLoopIterations = opts_.maxLoopIterations;
        o.inputValues = values;
        return o;
    }
    std::vector<Value> runSub(const Graph& sg, const std::vector<Value>& values)
    {
        ++res_.subgraphRuns;
        ExecResult r = executeGraph(sg, subOptions(&values));
        if (r.cancelled) throw KernelError("cancelled");
        return std::move(r.outputs);
    }

    // A small graph of aten calls on the pieces: cat, sum in order, or weighted sum.
    Value combine(const std::vector<Value>& pieces, ChunkCombine how, int dim, const std::vector<double>& w)
    {
        Graph cg;
        std::vector<NodeId> ph;
        for (size_t k = 0; k < pieces.size(); ++k) {
            Node p;
            p.name = "c" + std::to_string(k);
            p.target = p.name;
            p.op = NodeOp::Placeholder;
            ph.push_back(cg.addNode(std::move(p)));
        }
        auto call = [&](const std::string& name, const std::string& target, std::vector<Arg> args) {
            Node n;
            n.name = name;
            n.target = target;
            n.op = NodeOp::CallFunction;
            n.args = std::move(args);
            return cg.addNode(std::move(n));
        };
        NodeId result = kNoNode;
        if (how == ChunkCombine::Cat) {
            std::vector<Arg> items;
            for (NodeId p : ph) items.push_back(Arg::ofNode(p));
            result = call("cat", "aten.cat.default", {Arg::ofList(std::move(items)), Arg::ofInt(dim)});
        } else {
            for (size_t k = 0; k < ph.size(); ++k) {
                NodeId term = ph[k];
                if (how == ChunkCombine::WeightedSum)
                    term =
                        call("mul_" + std::to_string(k), "aten.mul.Tensor", {Arg::ofNode(ph[k]), Arg::ofFloat(w[k])});
                result = k == 0
                    ? term
                    : call("add_" + std::to_string(k), "aten.add.Tensor", {Arg::ofNode(result), Arg::ofNode(term)});
            }
        }
        Node out;
        out.name = "output";
        out.op = NodeOp::Output;
        out.target = "output";
        out.args.push_back(Arg::ofTuple({Arg::ofNode(result)}));
        cg.addNode(std::move(out));
        cg.rebuildUsers();
        return std::move(runSub(cg, pieces).at(0));
    }

    void classify();
    void schedule(std::vector<std::pair<bool, std::vector<NodeId>>>& steps);
    void runOutside(const std::vector<NodeId>& nodes);
    void runSegment(size_t s);
    std::unordered_map<std::string, ChunkKind> checkFunction(const Segment& seg, const Graph& run,
                                                             const std::unordered_map<std::string, ChunkInfo>& info,
                                                             const std::vector<EagerLiveIn>& how) const;
    void decideWeighting();
    bool usedOutside(NodeId id, const std::unordered_set<NodeId>& group) const;
    bool madeWithBatch(NodeId r) const;
};

bool Reference::usedOutside(NodeId id, const std::unordered_set<NodeId>& group) const
{
    if (usedByOutput_[static_cast<size_t>(id)]) return true;
    for (NodeId u : g_.node(id).users)
        if (!group.count(u) && g_.node(u).op != NodeOp::Output) return true;
    return false;
}

// A value made in the graph from nothing with the axis length at the chunk dim (an RNN's
// initial state zeros(N, d)): a module call on a chunk gets its piece, as for an activation.
bool Reference::madeWithBatch(NodeId r) const
{
    if (!made_[static_cast<size_t>(r)]) return false;
    const ValueMeta& v = g_.node(r).val;
    return v.isTensor() && v.tensor.sizes.size() > static_cast<size_t>(axisDim_)
        && v.tensor.sizes[static_cast<size_t>(axisDim_)].valueOrHint() == res_.axisLength && res_.axisLength > 1;
}

void Reference::classify()
{
    const size_t maxId = [&] {
        size_t m = 0;
        for (NodeId id : g_.order()) m = std::max(m, static_cast<size_t>(id) + 1);
        return m;
    }();
    unit_.assign(maxId, -1);
    act_.assign(maxId, 0);
    full_.assign(maxId, Value());
    have_.assign(maxId, 0);
    usedByOutput_.assign(maxId, 0);
    if (g_.outputNode() != kNoNode)
        for (const auto& a : g_.node(g_.outputNode()).args)
            a.forEachNode([&](NodeId r) { usedByOutput_[static_cast<size_t>(r)] = 1; });

    for (NodeId d : data_) act_[static_cast<size_t>(d)] = 1;
    made_.assign(maxId, 0);
    for (NodeId id : g_.order()) {
        const Node& n = g_.node(id);
        if (!isCall(n)) continue;
        bool m = true;
        for (const auto& x : n.args) x.forEachNode([&](NodeId r) { m = m && made_[static_cast<size_t>(r)]; });
        for (const auto& kv : n.kwargs)
            kv.second.forEachNode([&](NodeId r) { m = m && made_[static_cast<size_t>(r)]; });
        made_[static_cast<size_t>(id)] = m;
    }
    for (NodeId id : g_.order()) {
        const Node& n = g_.node(id);
        if (!isCall(n)) continue;
        bool a = false;
        for (const auto& x : n.args) x.forEachNode([&](NodeId r) { a = a || act_[static_cast<size_t>(r)]; });
        for (const auto& kv : n.kwargs) kv.second.forEachNode([&](NodeId r) { a = a || act_[static_cast<size_t>(r)]; });
        act_[static_cast<size_t>(id)] = a;
    }

    if (spec_.wholeGraph()) {
        Segment s;
        s.root = kWholeGraph;
        for (NodeId id : g_.order())
            if (isCall(g_.node(id))) s.nodes.push_back(id);
        res_.regions.push_back({kWholeGraph, {EagerSegment{}}});
        s.region = 0;
        s.index = 0;
        for (NodeId id : s.nodes) unit_[static_cast<size_t>(id)] = 0;
        segs_.push_back(std::move(s));
        return;
    }
    // roots in order of first appearance over all patterns
    std::vector<std::string> roots;
    for (const std::string& p : spec_.regions) {
        const auto r = regionRoots(g_, p);
        if (r.empty())
            throw std::invalid_argument("chunks: the pattern '" + p
                                        + "' selects no module of the graph (no node's module path matches it)");
        for (const auto& x : r)
            if (std::find(roots.begin(), roots.end(), x) == roots.end()) roots.push_back(x);
    }
    for (const std::string& root : roots) {
        Segment f, b;
        f.root = b.root = root;
        b.backward = true;
        for (NodeId id : g_.order()) {
            const Node& n = g_.node(id);
            if (!isCall(n) || !insideModule(n.meta.modulePath, root)) continue;
            if (unit_[static_cast<size_t>(id)] != -1)
                throw std::invalid_argument("chunks: the regions overlap: node '" + n.name + "' (module "
                                            + n.meta.modulePath + ") is inside '" + root + "' and '"
                                            + segs_[static_cast<size_t>(unit_[static_cast<size_t>(id)])].root + "'");
            (isBackwardNode(n) ? b : f).nodes.push_back(id);
            unit_[static_cast<size_t>(id)] = -2;  // claimed (set below)
        }
        EagerRegionInfo ri;
        ri.root = root;
        const size_t region = res_.regions.size();
        int fwdIndex = -1;
        for (Segment* s : {&f, &b}) {
            if (s->nodes.empty()) continue;
            s->region = region;
            s->index = ri.segments.size();
            EagerSegment es;
            es.backward = s->backward;
            ri.segments.push_back(es);
            const int idx = static_cast<int>(segs_.size());
            for (NodeId id : s->nodes) unit_[static_cast<size_t>(id)] = idx;
            if (!s->backward)
                fwdIndex = idx;
            else
                s->forwardSegment = fwdIndex;
            segs_.push_back(*s);
        }
        res_.regions.push_back(std::move(ri));
    }
}

// The contracted graph in topological order (by first position among ready units): each step
// is a segment (true, its nodes) or a run of consecutive outside call nodes (false).
void Reference::schedule(std::vector<std::pair<bool, std::vector<NodeId>>>& steps)
{
    // units: segments 0..S-1, outside call nodes S + position
    const size_t S = segs_.size();
    std::vector<NodeId> outsideNodes;
    std::unordered_map<NodeId, size_t> unitOf;
    for (size_t s = 0; s < S; ++s)
        for (NodeId id : segs_[s].nodes) unitOf[id] = s;
    for (NodeId id : g_.order())
        if (isCall(g_.node(id)) && unit_[static_cast<size_t>(id)] < 0) {
            unitOf[id] = S + outsideNodes.size();
            outsideNodes.push_back(id);
        }
    res_.outsideNodes = static_cast<int>(outsideNodes.size());
    const size_t U = S + outsideNodes.size();
    std::vector<std::set<size_t>> succ(U);
    std::vector<int> indeg(U, 0);
    std::vector<size_t> firstPos(U, SIZE_MAX);
    for (const auto& entry : unitOf) {
        const NodeId id = entry.first;
        const size_t u = entry.second;  // a plain variable: lambdas cannot capture structured bindings in C++20
        firstPos[u] = std::min(firstPos[u], g_.positionOf(id));
        const Node& n = g_.node(id);
        auto dep = [&](NodeId r) {
            auto it = unitOf.find(r);
            if (it == unitOf.end() || it->second == u) return;
            if (succ[it->second].insert(u).second) ++indeg[u];
        };
        for (const auto& a : n.args) a.forEachNode(dep);
        for (const auto& kv : n.kwargs) kv.second.forEachNode(dep);
    }
    using Item = std::pair<size_t, size_t>;  // (first position, unit)
    std::priority_queue<Item, std::vector<Item>, std::greater<>> ready;
    for (size_t u = 0; u < U; ++u)
        if (indeg[u] == 0) ready.push({firstPos[u], u});
    std::vector<size_t> order;
    while (!ready.empty()) {
        const size_t u = ready.top().second;
        ready.pop();
        order.push_back(u);
        for (size_t v : succ[u])
            if (--indeg[v] == 0) ready.push({firstPos[v], v});
    }
    if (order.size() != U) {
        // name a segment with an outside path from it back into it
        for (size_t s = 0; s < S; ++s) {
            std::unordered_set<NodeId> inSeg(segs_[s].nodes.begin(), segs_[s].nodes.end());
            std::unordered_map<NodeId, NodeId> from;  // reached outside node -> segment node it came from
            std::vector<NodeId> stack;
            for (NodeId id : segs_[s].nodes)
                for (NodeId u : g_.node(id).users)
                    if (!inSeg.count(u) && isCall(g_.node(u)) && !from.count(u)) {
                        from[u] = id;
                        stack.push_back(u);
                    }
            while (!stack.empty()) {
                const NodeId x = stack.back();
                stack.pop_back();
                for (NodeId u : g_.node(x).users) {
                    if (inSeg.count(u)) {
                        const std::string where = segs_[s].root + (segs_[s].backward ? " (backward)" : " (forward)");
                        throw std::invalid_argument("eager chunking: the segment " + where
                                                    + " cannot be run as one unit: node '" + g_.node(x).name
                                                    + "' outside it is fed by it (from '" + g_.node(from[x]).name
                                                    + "') and feeds it ('" + g_.node(u).name + "')");
                    }
                    if (isCall(g_.node(u)) && !from.count(u)) {
                        from[u] = from[x];
                        stack.push_back(u);
                    }
                }
            }
        }
        throw std::invalid_argument("eager chunking: the segments depend on one another in a cycle");
    }
    for (size_t u : order) {
        if (u < S) {
            steps.push_back({true, {static_cast<NodeId>(u)}});
            continue;
        }
        if (steps.empty() || steps.back().first) steps.push_back({false, {}});
        steps.back().second.push_back(outsideNodes[u - S]);
    }
}

void Reference::runOutside(const std::vector<NodeId>& nodes)
{
    std::unordered_set<NodeId> group(nodes.begin(), nodes.end());
    std::vector<NodeId> outs;
    for (NodeId id : nodes)
        if (usedOutside(id, group)) outs.push_back(id);
    if (outs.empty()) return;
    SubGraph sg = extract(g_, nodes, {}, outs);
    std::vector<Value> in;
    for (NodeId r : sg.liveIns) in.push_back(fullOf(r));
    std::vector<Value> out = runSub(sg.g, in);
    for (size_t i = 0; i < outs.size(); ++i) setFull(outs[i], std::move(out.at(i)));
}

void Reference::runSegment(size_t s)
{
    const Segment& seg = segs_[s];
    EagerSegment& info = res_.regions[seg.region].segments[seg.index];
    info.nodes = static_cast<int>(seg.nodes.size());
    std::unordered_set<NodeId> group(seg.nodes.begin(), seg.nodes.end());
    const Segment* bwd = nullptr;  // this forward segment's backward
    if (!seg.backward)
        for (const auto& o : segs_)
            if (o.backward && o.forwardSegment == static_cast<int>(s)) bwd = &o;
    std::unordered_set<NodeId> bwdNodes;
    if (bwd) bwdNodes.insert(bwd->nodes.begin(), bwd->nodes.end());

    // live-outs: used outside the segment; those used only by the root's backward stay per chunk
    std::vector<NodeId> outs;
    std::vector<uint8_t> needFull, needPerChunk;
    for (NodeId id : seg.nodes) {
        if (id == seed_) continue;
        bool full = usedByOutput_[static_cast<size_t>(id)] != 0, per = false;
        for (NodeId u : g_.node(id).users) {
            if (group.count(u) || g_.node(u).op == NodeOp::Output) continue;
            if (bwdNodes.count(u))
                per = true;
            else
                full = true;
        }
        if (!full && !per) continue;
        outs.push_back(id);
        needFull.push_back(full);
        needPerChunk.push_back(per);
    }
    std::unordered_set<NodeId> substituted;
    if (seed_ != kNoNode && group.count(seed_)) substituted.insert(seed_);
    const SubGraph base = extract(g_, seg.nodes, substituted, outs);

    // how each live-in is passed
    const int64_t N = res_.axisLength;
    const auto& sizes = res_.chunkSizes;
    std::vector<EagerLiveIn> how;
    for (NodeId r : base.liveIns) {
        const Node& n = g_.node(r);
        EagerLiveIn li{n.name, "whole", -1};
        if (r == seed_)
            li.how = "seed";
        else if (seg.backward && seg.forwardSegment >= 0 && unit_[static_cast<size_t>(r)] == seg.forwardSegment)
            li.how = "per_chunk";
        else if (act_[static_cast<size_t>(r)] || madeWithBatch(r)) {
            const Value& v = fullOf(r);
            if (!v.isTensor()) {
                li.how = "whole";
            } else {
                const Tensor& t = v.tensor;
                if (t.dim() <= axisDim_ || (t.size(axisDim_) != N && t.size(axisDim_) != 1))
                    throw std::invalid_argument("eager chunking: the live-in '" + n.name + "' of " + seg.root
                                                + (seg.backward ? " (backward)" : " (forward)")
                                                + " depends on the data inputs but has shape " + sizesText(t.sizes())
                                                + ": its dim " + std::to_string(axisDim_) + " ("
                                                + std::string(chunkAxisName(spec_.axis)) + ") should have size "
                                                + std::to_string(N) + " (or 1, broadcast)");
                if (t.size(axisDim_) == 1 && N != 1)
                    li.how = "broadcast";
                else {
                    li.how = "sliced";
                    li.dim = axisDim_;
                }
            }
        }
        how.push_back(li);
    }
    info.liveIns = how;

    // one run per chunk
    std::vector<std::vector<Value>> chunkOuts;
    std::vector<std::unordered_map<std::string, ChunkInfo>> chunkInfos;
    std::unordered_map<std::string, ChunkKind> kinds;
    int64_t off = 0;
    for (size_t k = 0; k < sizes.size(); ++k) {
        const int64_t nk = sizes[k];
        SubGraph sg = extract(g_, seg.nodes, substituted, outs);
        std::vector<Value> in;
        std::unordered_map<std::string, ChunkInfo> given;
        for (size_t i = 0; i < sg.liveIns.size(); ++i) {
            const NodeId r = sg.liveIns[i];
            const std::string& name = g_.node(r).name;
            Value v;
            if (how[i].how == "seed") {
                const ValueMeta& m = g_.node(r).val;
                if (g_.node(r).op == NodeOp::Placeholder) {
                    v = combine({fullOf(r)}, ChunkCombine::WeightedSum, -1, {res_.weights[k]});
                } else {
                    const DType dt = m.isTensor() ? m.tensor.dtype : DType::F32;
                    std::vector<int64_t> shape = m.isTensor() ? concreteSizes(m.tensor) : std::vector<int64_t>{};
                    Tensor t = backend_->empty(shape, dt);
                    const int64_t n = t.numel();
                    if (dt == DType::F32) {
                        std::vector<float> host(static_cast<size_t>(n), static_cast<float>(res_.weights[k]));
                        backend_->upload(t, host.data(), t.nbytes());
                    } else if (dt == DType::F64) {
                        std::vector<double> host(static_cast<size_t>(n), res_.weights[k]);
                        backend_->upload(t, host.data(), t.nbytes());
                    } else {
                        throw std::invalid_argument("eager chunking: the backward seed '" + name + "' is "
                                                    + std::string(dtypeAbbr(dt))
                                                    + ": only f32 and f64 seeds can be weighted");
                    }
                    v = Value::ofTensor(t);
                }
            } else if (how[i].how == "per_chunk") {
                v = perChunk_.at(r).at(k);
                given[name] = perChunkInfo_.at(r).at(k);
            } else if (how[i].how == "sliced") {
                v = Value::ofTensor(slicePiece(*backend_, fullOf(r).tensor, axisDim_, off, nk));
                given[name] = ChunkInfo{axisDim_, 1, 1};
            } else {
                v = fullOf(r);
            }
            // the placeholder's meta is the value's (the chunk's sizes)
            if (v.isTensor()) {
                Node& p = sg.g.node(sg.g.findByName(name));
                p.val = ValueMeta::ofTensor(metaOf(v.tensor));
            }
            in.push_back(std::move(v));
        }
        // planned, then (first chunk) checked; a factory that makes the whole axis at a dim the
        // chunk's rows meet (nn.LSTM's zeros(1, N, d)) is re-planned to follow the chunk there
        const Graph pristine = sg.g.clone();
        ChunkRunPlan plan;
        for (int attempt = 0;; ++attempt) {
            plan = planChunkRun(sg.g, g_, given, N, nk, axisDim_, factoryDims_);
            if (k != 0 || sizes.size() <= 1) break;
            try {
                kinds = checkFunction(seg, sg.g, plan.info, how);
                break;
            } catch (const WholeAxisFactory& e) {
                if (factoryDims_.count(e.factory) || attempt >= 16) throw std::invalid_argument(e.what());
                factoryDims_[e.factory] = e.dim;
                sg.g = pristine.clone();
            }
        }
        for (const auto& r : plan.rewritten) info.rewrittenSizes.push_back(r + " (chunk " + std::to_string(k) + ")");
        try {
            chunkOuts.push_back(runSub(sg.g, in));
        } catch (const KernelError& e) {
            std::string more;
            for (const auto& p : plan.problems) more += "; shape propagation: " + p;
            throw KernelError("eager chunking: " + seg.root + (seg.backward ? " (backward)" : " (forward)") + ", chunk "
                              + std::to_string(k) + " of " + std::to_string(sizes.size()) + ": " + e.what() + more);
        }
        chunkInfos.push_back(plan.info);
        off += nk;
    }

    // combine the live-outs
    for (size_t i = 0; i < outs.size(); ++i) {
        const NodeId id = outs[i];
        const Node& n = g_.node(id);
        const auto kind = kinds.find(n.name);
        if (needPerChunk[i]) {
            if (kind != kinds.end()) perChunkKind_[id] = kind->second;
            auto& pc = perChunk_[id];
            auto& pi = perChunkInfo_[id];
            for (size_t k = 0; k < chunkOuts.size(); ++k) {
                pc.push_back(chunkOuts[k][i]);
                auto it = chunkInfos[k].find(n.name);
                pi.push_back(it == chunkInfos[k].end() ? ChunkInfo{} : it->second);
            }
        }
        if (!needFull[i]) {
            info.liveOuts.push_back({n.name, ChunkCombine::PerChunk, -1});
            continue;
        }
        std::vector<Value> pieces;
        for (auto& c : chunkOuts) pieces.push_back(c[i]);
        EagerOutputInfo oi;
        oi.node = n.name;
        oi.region = seg.root;
        oi.pieces = static_cast<int>(pieces.size());
        // the same in every chunk: computed from values every chunk has whole (a gradient another
        // region summed already is one); adding the chunks' copies up would count it per chunk
        if (!act_[static_cast<size_t>(id)] || (kind != kinds.end() && kind->second == ChunkKind::Free)) {
            oi.combine = ChunkCombine::Same;
            setFull(id, pieces[0]);
            info.liveOuts.push_back({n.name, oi.combine, -1});
            combined_[id] = oi;
            if (keepLiveOuts_)
                res_.liveOutValues.push_back(
                    {n.name, seg.root, oi.combine, valueToSafeTensor(n.name, pieces[0], *backend_)});
            continue;
        }
        if (!pieces[0].isTensor())
            throw std::invalid_argument("eager chunking: the live-out '" + n.name + "' of " + seg.root
                                        + " is not a tensor: it cannot be combined across chunks");
        const Tensor& t0 = pieces[0].tensor;
        std::vector<int64_t> fullShape;
        if (n.val.isTensor())
            fullShape = concreteSizes(n.val.tensor);
        else
            throw std::invalid_argument("eager chunking: the live-out '" + n.name
                                        + "' has no recorded shape: cannot tell a sum from a cat");
        if (t0.sizes() == fullShape) {
            if (t0.dtype() == DType::Bool)
                throw std::invalid_argument("eager chunking: the live-out '" + n.name
                                            + "' is a bool tensor of the full shape: chunk values cannot be summed");
            oi.combine = (res_.weighted && id == loss_) ? ChunkCombine::WeightedSum : ChunkCombine::Sum;
            oi.seedWeighted = res_.weighted && id != loss_ && !seedDep_.empty() && seedDep_[static_cast<size_t>(id)];
        } else {
            int differing = -1, count = 0;
            if (t0.dim() == static_cast<int64_t>(fullShape.size()))
                for (size_t d = 0; d < fullShape.size(); ++d)
                    if (t0.sizes()[d] != fullShape[d]) {
                        differing = static_cast<int>(d);
                        ++count;
                    }
            int64_t total = 0;
            bool sameOther = count == 1;
            for (const auto& p : pieces) {
                if (!p.isTensor() || p.tensor.dim() != t0.dim()) {
                    sameOther = false;
                    break;
                }
                total += p.tensor.size(differing < 0 ? 0 : differing);
            }
            if (!sameOther || total != fullShape[static_cast<size_t>(differing)])
                throw std::invalid_argument("eager chunking: the live-out '" + n.name + "' of " + seg.root
                                            + " has chunk shape " + sizesText(t0.sizes()) + " for full shape "
                                            + sizesText(fullShape) + ": neither a sum nor a cat along one dim");
            auto it = chunkInfos[0].find(n.name);
            if (it != chunkInfos[0].end() && it->second.dim == differing && it->second.outer != 1)
                throw std::invalid_argument("eager chunking: the live-out '" + n.name + "' of " + seg.root
                                            + " holds the chunk axis merged with outer dims in dim "
                                            + std::to_string(differing) + " " + sizesText(fullShape)
                                            + ": the pieces cannot be concatenated");
            oi.combine = ChunkCombine::Cat;
            oi.dim = differing;
        }
        setFull(id, combine(pieces, oi.combine, oi.dim, res_.weights));
        info.liveOuts.push_back({n.name, oi.combine, oi.dim});
        combined_[id] = oi;
        if (keepLiveOuts_)
            res_.liveOutValues.push_back(
                {n.name, seg.root, oi.combine, valueToSafeTensor(n.name, fullOf(id), *backend_)});
    }
}

// The chunk run computes the segment's function on its chunk (eager_chunking_function.hpp).
std::unordered_map<std::string, ChunkKind>
Reference::checkFunction(const Segment& seg, const Graph& run, const std::unordered_map<std::string, ChunkInfo>& info,
                         const std::vector<EagerLiveIn>& how) const
{
    ChunkRunCheck c;
    c.n = res_.axisLength;
    c.run = &run;
    c.info = &info;
    c.where = (seg.root == kWholeGraph ? std::string("the whole graph") : "region " + seg.root)
        + (seg.backward ? " (backward)" : (spec_.wholeGraph() ? "" : " (forward)"));
    for (const auto& li : how) {
        const NodeId r = g_.findByName(li.node);
        if (li.how == "seed")
            c.liveIns[li.node] = ChunkKind::Local;
        else if (li.how == "per_chunk" && perChunkKind_.count(r))
            c.liveIns[li.node] = perChunkKind_.at(r);
        else if (li.how == "sliced")
            c.liveIns[li.node] = ChunkKind::Axis;
        else
            c.liveIns[li.node] = ChunkKind::Free;
    }
    if (res_.weighted && loss_ != kNoNode) {
        const Node& L = g_.node(loss_);
        c.local.insert(L.name);
        if (L.isGetitem() && !L.args.empty() && L.args[0].isNode()) c.local.insert(g_.node(L.args[0].node).name);
    }
    return checkChunkRun(c);
}

void Reference::decideWeighting()
{
    res_.weighting = "no weighting: regions are chunked, not the whole train step";
    if (!spec_.wholeGraph()) return;
    const NodeId out = g_.outputNode();
    if (out == kNoNode || g_.node(out).args.empty()) {
        res_.weighting = "no weighting: the graph has no outputs";
        return;
    }
    const Arg& a = g_.node(out).args[0];
    const Arg* first = a.isSequence() ? (a.items.empty() ? nullptr : &a.items[0]) : &a;
    if (!first || !first->isNode()) {
        res_.weighting = "no weighting: the first output is not a node";
        return;
    }
    loss_ = first->node;
    const Node& L = g_.node(loss_);
    std::string why;
    if (L.op == NodeOp::CallFunction && L.target.rfind("aten.mean.", 0) == 0)
        why = "'" + L.name + "' is " + L.target;
    else if (auto r = reductionOf(L)) {
        if (*r == 1) why = "'" + L.name + "' is " + L.target + " with reduction mean";
    } else if (L.isGetitem() && L.args.size() == 2 && L.args[0].isNode() && L.args[1].kind == Arg::Kind::Int
               && L.args[1].i == 0) {
        const Node& P = g_.node(L.args[0].node);
        if (auto r2 = reductionOf(P); r2 && *r2 == 1)
            why = "'" + L.name + "' is item 0 of " + P.target + " with reduction mean";
    }
    if (why.empty()) {
        res_.weighting = "no weighting: the loss '" + L.name + "' (" + L.target + ") is not a mean over the batch";
        return;
    }
    for (NodeId id : g_.order()) {
        const Node& n = g_.node(id);
        if (n.isOp("aten.ones_like.default") && !n.args.empty() && n.args[0].isNode() && n.args[0].node == loss_) {
            seed_ = id;
            break;
        }
    }
    if (seed_ == kNoNode)
        for (NodeId id : g_.placeholders())
            if (g_.node(id).name.rfind("tangents", 0) == 0) {
                seed_ = id;
                break;
            }
    res_.weighted = true;
    if (seed_ != kNoNode) {
        seedDep_.assign(act_.size(), 0);
        seedDep_[static_cast<size_t>(seed_)] = 1;
        for (NodeId id : g_.order()) {
            const Node& n = g_.node(id);
            if (!isCall(n)) continue;
            bool d = seedDep_[static_cast<size_t>(id)] != 0;
            for (const auto& a : n.args) a.forEachNode([&](NodeId r) { d = d || seedDep_[static_cast<size_t>(r)]; });
            for (const auto& kv : n.kwargs)
                kv.second.forEachNode([&](NodeId r) { d = d || seedDep_[static_cast<size_t>(r)]; });
            seedDep_[static_cast<size_t>(id)] = d;
        }
    }
    for (int64_t n : res_.chunkSizes)
        res_.weights.push_back(static_cast<double>(n) / static_cast<double>(res_.axisLength));
    res_.weighting = "loss " + why + "; backward seed "
        + (seed_ == kNoNode ? std::string("not found (gradients not weighted)")
                            : "'" + g_.node(seed_).name + "' = w_k");
}

EagerChunkResult Reference::run()
{
    std::shared_ptr<Backend> own;
    backend_ = opts_.backend;
    if (!backend_) {
        own = makeBackend("cpu", BackendOptions{opts_.threads}, nullptr);
        backend_ = own.get();
    }
    res_.ownedBackend = own;
    res_.spec = spec_;
    axisDim_ = chunkAxisDim(spec_.axis);
    data_ = dataInputs(g_, spec_.inputs);
    if (data_.empty()) throw std::invalid_argument("chunks: the graph has no data inputs to chunk");

    // inputs: resolved once (file, else generated), uploaded once
    ExecOptions ro = opts_;
    ro.backend = backend_;
    const SafeTensorsFile resolved = resolveInputs(g_, ro);
    classify();
    const exec::TensorIndex index(&resolved);
    uint64_t phIndex = 0;
    for (NodeId id : g_.placeholders()) {
        const Node& n = g_.node(id);
        const uint64_t i = phIndex++;
        if (const SafeTensor* st = exec::findInput(n, index))
            setFull(id, Value::ofTensor(exec::uploadSafeTensor(*st, *backend_, "input", n.name)));
        else
            setFull(id, exec::generateInput(n, opts_.inputSeed, i, *backend_));
    }
    // N
    for (NodeId d : data_) {
        const Node& n = g_.node(d);
        const Value& v = fullOf(d);
        res_.dataInputs.push_back(n.name);
        if (!v.isTensor() || v.tensor.dim() <= axisDim_)
            throw std::invalid_argument("chunks: the data input '" + n.name + "' has no dim " + std::to_string(axisDim_)
                                        + " (" + std::string(chunkAxisName(spec_.axis)) + ")");
        const int64_t len = v.tensor.size(axisDim_);
        if (res_.axisLength == 0)
            res_.axisLength = len;
        else if (len != res_.axisLength)
            throw std::invalid_argument("chunks: the data inputs disagree on the length of dim "
                                        + std::to_string(axisDim_) + " (" + std::string(chunkAxisName(spec_.axis))
                                        + "): '" + res_.dataInputs[0] + "' has " + std::to_string(res_.axisLength)
                                        + ", '" + n.name + "' has " + std::to_string(len));
    }
    res_.chunkSizes = chunkSizes(res_.axisLength, spec_.chunks, spec_.split);
    decideWeighting();

    std::vector<std::pair<bool, std::vector<NodeId>>> steps;
    schedule(steps);
    for (const auto& [isSeg, nodes] : steps) {
        if (isSeg)
            runSegment(static_cast<size_t>(nodes[0]));
        else
            runOutside(nodes);
    }

    // outputs
    const NodeId out = g_.outputNode();
    if (out != kNoNode && !g_.node(out).args.empty()) {
        const Arg& a = g_.node(out).args[0];
        std::vector<const Arg*> items;
        if (a.isSequence())
            for (const auto& x : a.items) items.push_back(&x);
        else
            items.push_back(&a);
        for (size_t k = 0; k < items.size(); ++k) {
            EagerOutputInfo oi;
            if (items[k]->isNode()) {
                const NodeId id = items[k]->node;
                if (auto it = combined_.find(id); it != combined_.end()) oi = it->second;
                oi.node = g_.node(id).name;
                res_.outputs.push_back(fullOf(id));
            } else {
                res_.outputs.push_back(Value::ofConstant(*items[k]));
            }
            oi.name = "out_" + std::to_string(k);
            res_.outputNames.push_back(oi.name);
            res_.outputInfo.push_back(oi);
        }
    }
    full_.clear();
    perChunk_.clear();
    return std::move(res_);
}

}  // namespace

EagerChunkResult runEagerChunking(const Graph& original, const ChunkSpec& spec, const ExecOptions& opts,
                                  bool keepLiveOuts)
{
    Reference r(original, spec, opts, keepLiveOuts);
    return r.run();
}

SafeTensorsFile eagerOutputsToSafetensors(const EagerChunkResult& r, Backend& b)
{
    ExecResult e;
    e.outputs = r.outputs;
    e.outputNames = r.outputNames;
    return outputsToSafetensors(e, b);
}

std::string eagerChunkingToText(const EagerChunkResult& r, bool withOutputs)
{
    std::string s = "eager chunking: " + r.spec.str() + "\n";
    s += "  axis length N = " + std::to_string(r.axisLength) + " (dim " + std::to_string(chunkAxisDim(r.spec.axis))
        + " of";
    for (const auto& d : r.dataInputs) s += " " + d;
    s += "), chunks " + sizesText(r.chunkSizes) + "\n";
    s += "  " + r.weighting + "\n";
    s += "  " + std::to_string(r.outsideNodes) + " call node(s) outside every region\n";
    for (const auto& reg : r.regions) {
        s += "  region " + reg.root + "\n";
        for (const auto& seg : reg.segments) {
            s += std::string("    ") + (seg.backward ? "backward" : "forward") + ": " + std::to_string(seg.nodes)
                + " node(s); live-ins";
            for (const auto& li : seg.liveIns)
                s += " " + li.node + "(" + li.how + (li.dim >= 0 ? " dim " + std::to_string(li.dim) : "") + ")";
            s += "; live-outs";
            for (const auto& lo : seg.liveOuts)
                s += " " + lo.node + "(" + std::string(chunkCombineName(lo.combine))
                    + (lo.dim >= 0 ? " dim " + std::to_string(lo.dim) : "") + ")";
            s += "\n";
        }
    }
    if (withOutputs)
        for (const auto& o : r.outputInfo) s += "  " + o.name + " (" + o.node + "): " + o.how() + "\n";
    return s;
}

nlohmann::json eagerChunkingToJson(const EagerChunkResult& r)
{
    using nlohmann::json;
    json regions = json::array();
    for (const auto& reg : r.regions) {
        json segs = json::array();
        for (const auto& seg : reg.segments) {
            json ins = json::array(), outs = json::array();
            for (const auto& li : seg.liveIns) {
                json j = {{"node", li.node}, {"how", li.how}};
                if (li.dim >= 0) j["dim"] = li.dim;
                ins.push_back(j);
            }
            for (const auto& lo : seg.liveOuts) {
                json j = {{"node", lo.node}, {"combine", chunkCombineName(lo.combine)}};
                if (lo.dim >= 0) j["dim"] = lo.dim;
                outs.push_back(j);
            }
            segs.push_back({{"backward", seg.backward},
                            {"nodes", seg.nodes},
                            {"live_ins", ins},
                            {"live_outs", outs},
                            {"rewritten_sizes", seg.rewrittenSizes.size()}});
        }
        regions.push_back({{"root", reg.root}, {"segments", segs}});
    }
    json outputs = json::array();
    for (const auto& o : r.outputInfo) {
        json j = {{"name", o.name}, {"node", o.node}, {"combine", chunkCombineName(o.combine)}, {"how", o.how()}};
        if (o.dim >= 0) j["dim"] = o.dim;
        if (o.pieces) j["pieces"] = o.pieces;
        if (!o.region.empty()) j["region"] = o.region;
        if (o.seedWeighted) j["seed_weighted"] = true;
        outputs.push_back(j);
    }
    return {{"spec", r.spec.str()},
            {"axis_length", r.axisLength},
            {"chunk_sizes", r.chunkSizes},
            {"data_inputs", r.dataInputs},
            {"weighted", r.weighted},
            {"weighting", r.weighting},
            {"weights", r.weights},
            {"outside_nodes", r.outsideNodes},
            {"subgraph_runs", r.subgraphRuns},
            {"regions", regions},
            {"outputs", outputs}};
}

}  // namespace fxl
