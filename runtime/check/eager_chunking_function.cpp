#include "runtime/check/eager_chunking_function.hpp"

#include <optional>
#include <stdexcept>
#include <vector>

namespace fxl {

std::string_view chunkKindName(ChunkKind k)
{
    switch (k) {
    case ChunkKind::Free: return "free";
    case ChunkKind::Axis: return "axis";
    case ChunkKind::Partial: return "partial";
    case ChunkKind::Local: return "local";
    }
    return "?";
}

namespace {

// "aten.add_.Tensor" -> "add_"; "operator.getitem" -> "getitem"
std::string opName(const std::string& target)
{
    std::string t = target;
    if (t.rfind("aten.", 0) == 0) t = t.substr(5);
    const size_t dot = t.find('.');
    if (target.rfind("aten.", 0) == 0) return dot == std::string::npos ? t : t.substr(0, dot);
    const size_t last = t.rfind('.');
    return last == std::string::npos ? t : t.substr(last + 1);
}

// "add_" -> "add" (an in-place variant computes what its functional op does)
std::string functionalName(const std::string& b)
{
    if (b.size() > 1 && b.back() == '_' && b[b.size() - 2] != '_') return b.substr(0, b.size() - 1);
    return b;
}

std::optional<int64_t> intArg(const Node& n, size_t i, std::string_view kw)
{
    const Arg* a = i < n.args.size() ? &n.args[i] : n.kwarg(kw);
    if (!a) return std::nullopt;
    if (a->kind == Arg::Kind::Int) return a->i;
    if (a->kind == Arg::Kind::Bool) return a->b ? 1 : 0;
    return std::nullopt;
}

bool boolArg(const Node& n, size_t i, std::string_view kw, bool dflt)
{
    const auto v = intArg(n, i, kw);
    return v ? *v != 0 : dflt;
}

std::vector<int64_t> intListArg(const Node& n, size_t i, std::string_view kw)
{
    const Arg* a = i < n.args.size() ? &n.args[i] : n.kwarg(kw);
    std::vector<int64_t> v;
    if (!a) return v;
    if (a->kind == Arg::Kind::Int) return {a->i};
    if (a->isSequence())
        for (const auto& x : a->items)
            if (x.kind == Arg::Kind::Int) v.push_back(x.i);
    return v;
}

int normDim(int64_t d, size_t rank) { return static_cast<int>(d < 0 ? d + static_cast<int64_t>(rank) : d); }

std::vector<int> range(int from, size_t rank)
{
    std::vector<int> v;
    for (int d = from; d < static_cast<int>(rank); ++d) v.push_back(d);
    return v;
}

// An operator whose every output element reads a whole dim of an input: which input, which dims,
// and what it computes there. nullopt when the op has no such dims.
struct Coupling
{
    size_t arg = 0;
    std::vector<int> dims;
    std::string what;
};

std::optional<Coupling> couplingOf(const Node& n, const std::string& b, const Graph& g)
{
    auto rankOf = [&](size_t i) -> size_t {
        if (i >= n.args.size() || !n.args[i].isNode()) return 0;
        const ValueMeta& v = g.node(n.args[i].node).val;
        return v.isTensor() ? v.tensor.sizes.size() : 0;
    };
    auto dimAt = [&](size_t argIndex, size_t dimIndex, std::string_view kw, int64_t dflt,
                     std::string what) -> std::optional<Coupling> {
        const size_t r = rankOf(argIndex);
        return Coupling{argIndex, {normDim(intArg(n, dimIndex, kw).value_or(dflt), r)}, std::move(what)};
    };
    if (b == "native_batch_norm" || b == "_native_batch_norm_legit" || b == "_native_batch_norm_legit_functional"
        || b == "batch_norm" || b == "cudnn_batch_norm" || b == "miopen_batch_norm") {
        if (!boolArg(n, 5, "training", false)) return std::nullopt;
        std::vector<int> d{0};
        for (int x : range(2, rankOf(0))) d.push_back(x);
        return Coupling{
            0, d,
            "normalizes with batch statistics (training mode): mean and variance over every dim but the channels"};
    }
    if (b == "native_batch_norm_backward") {
        if (!boolArg(n, 7, "train", false)) return std::nullopt;
        std::vector<int> d{0};
        for (int x : range(2, rankOf(1))) d.push_back(x);
        return Coupling{1, d, "is the backward of batch statistics (training mode)"};
    }
    if (b == "native_layer_norm") {
        const size_t k = intListArg(n, 1, "normalized_shape").size(), r = rankOf(0);
        return Coupling{0, range(static_cast<int>(r - std::min(k, r)), r), "normalizes over its last dims"};
    }
    if (b == "native_layer_norm_backward") {
        const size_t k = intListArg(n, 2, "normalized_shape").size(), r = rankOf(1);
        return Coupling{1, range(static_cast<int>(r - std::min(k, r)), r),
                        "is the backward of a norm over its last dims"};
    }
    if (b == "native_group_norm") return Coupling{0, range(1, rankOf(0)), "normalizes each sample over its groups"};
    if (b == "native_group_norm_backward")
        return Coupling{1, range(1, rankOf(1)), "is the backward of a norm over each sample's groups"};
    if (b == "_softmax" || b == "_log_softmax" || b == "softmax" || b == "log_softmax")
        return dimAt(0, 1, "dim", -1, "normalizes along dim");
    if (b == "_softmax_backward_data" || b == "_log_softmax_backward_data")
        return dimAt(0, 2, "dim", -1, "is the backward of a softmax along dim");
    if (b == "cumsum" || b == "cumprod" || b == "logcumsumexp" || b == "cummax" || b == "cummin")
        return dimAt(0, 1, "dim", 0, "accumulates along dim");
    if (b == "sort" || b == "argsort") return dimAt(0, 1, "dim", -1, "sorts along dim");
    if (b == "topk") return dimAt(0, 2, "dim", -1, "selects the top k along dim");
    if (b == "kthvalue" || b == "median" || b == "mode" || b == "nanmedian")
        return dimAt(0, b == "kthvalue" ? 2 : 1, "dim", -1, "selects along dim");
    if (b == "gather" || b == "index_select" || b == "scatter" || b == "scatter_add" || b == "scatter_reduce"
        || b == "index_add" || b == "index_copy" || b == "index_fill")
        return dimAt(0, 1, "dim", 0, "indexes along dim");
    if (b == "flip" || b == "roll") {  // flip(self, dims), roll(self, shifts, dims)
        std::vector<int> dims;
        for (int64_t x : intListArg(n, b == "flip" ? 1 : 2, "dims")) dims.push_back(normDim(x, rankOf(0)));
        return Coupling{0, dims, b == "flip" ? "reverses the order along dim" : "rolls along dim"};
    }
    if (b == "convolution" || b == "_convolution" || b == "conv2d" || b == "conv1d" || b == "conv3d")
        return Coupling{0, range(1, rankOf(0)), "convolves over the channels and the spatial dims"};
    if (b == "convolution_backward")
        return Coupling{1, range(1, rankOf(1)), "is the backward of a convolution over channels and spatial dims"};
    if (b.find("pool") != std::string::npos) {
        const bool backward = b.find("backward") != std::string::npos;
        const size_t r = rankOf(0);
        // [N, C, spatial...] or [C, spatial...]: the windows cover the last 1-3 dims
        const int spatial = b.find("1d") != std::string::npos ? 1 : b.find("3d") != std::string::npos ? 3 : 2;
        return Coupling{0, range(static_cast<int>(r) - spatial, r),
                        backward ? "is the backward of pooling windows" : "pools windows"};
    }
    if (b.rfind("upsample_", 0) == 0 || b.rfind("_upsample_", 0) == 0 || b == "grid_sampler_2d"
        || b == "grid_sampler_2d_backward" || b.find("pad") != std::string::npos) {
        const size_t r = rankOf(0);
        const int spatial = b.find("1d") != std::string::npos ? 1 : b.find("3d") != std::string::npos ? 3 : 2;
        return Coupling{0, range(static_cast<int>(r) - spatial, r), "resamples or pads the spatial dims"};
    }
    return std::nullopt;
}

// A sum over the axis of the chunk's rows (the op's output `item` with the axis reduced).
bool sumsOverAxis(const Node& n, const std::string& b, int item, const Graph& g)
{
    static const std::set<std::string> kLinear{"sum",
                                               "mm",
                                               "bmm",
                                               "mv",
                                               "dot",
                                               "matmul",
                                               "einsum",
                                               "bincount",
                                               "histc",
                                               "embedding_dense_backward",
                                               "_embedding_bag_backward",
                                               "_embedding_bag_dense_backward",
                                               "embedding_backward"};
    if (kLinear.count(b)) return true;
    if (b == "convolution_backward" || b == "native_layer_norm_backward" || b == "native_group_norm_backward"
        || b == "native_batch_norm_backward")
        return item >= 1;  // the weight and bias gradients
    if (b == "index_add" || b == "scatter_add" || b == "index_put") {
        // into zeros: each destination sums the rows sent to it
        if (b == "index_put" && !boolArg(n, 3, "accumulate", false)) return false;
        if (n.args.empty() || !n.args[0].isNode()) return false;
        const std::string s = opName(g.node(n.args[0].node).target);
        return s == "zeros" || s == "new_zeros" || s == "zeros_like";
    }
    return false;
}

// Ops that read only their input's metadata (sizes, dtype): the output is the same in every chunk.
bool readsOnlyMeta(const std::string& b)
{
    static const std::set<std::string> k{"new_zeros", "new_ones",  "new_empty",  "new_full", "new_empty_strided",
                                         "sym_size",  "sym_numel", "sym_stride", "size",     "numel",
                                         "dim"};
    return k.count(b) != 0;
}

// Ops through which a partial sum stays a partial sum (linear in that operand, the others the same
// in every chunk).
bool keepsPartial(const std::string& b)
{
    static const std::set<std::string> k{
        "view", "_unsafe_view", "reshape", "_reshape_alias", "t", "transpose", "permute", "clone", "alias", "detach",
        "contiguous", "unsqueeze", "squeeze", "expand", "_to_copy", "to", "neg", "lift_fresh_copy", "slice", "select",
        "split", "split_with_sizes", "unbind", "chunk", "unsafe_split", "unsafe_split_with_sizes", "unsafe_chunk",
        "as_strided", "view_as", "flatten", "sum", "copy", "convert_element_type", "_conj", "resolve_conj",
        "resolve_neg", "squeeze_copy", "view_copy", "permute_copy", "t_copy", "transpose_copy", "unsqueeze_copy",
        "expand_copy", "alias_copy", "wait_tensor",
        // linear in their first operand when the others (indices) are the same in every chunk
        "embedding_dense_backward", "_embedding_bag_dense_backward", "_embedding_bag_backward", "slice_backward",
        "select_backward", "index_select", "gather", "index", "repeat", "flip", "roll", "diagonal", "tril", "triu",
        "narrow", "unfold", "constant_pad_nd", "as_strided_scatter", "new_zeros"};
    return k.count(b) != 0;
}

class Checker
{
public:
    explicit Checker(const ChunkRunCheck& c)
        : c_(c)
        , g_(*c.run)
    { }

    std::unordered_map<std::string, ChunkKind> run()
    {
        for (NodeId id : g_.order()) {
            const Node& n = g_.node(id);
            if (n.op == NodeOp::Placeholder) {
                auto it = c_.liveIns.find(n.name);
                ChunkKind k = it != c_.liveIns.end() ? it->second : ChunkKind::Free;
                if (hasAxis(n.name)) k = ChunkKind::Axis;
                kinds_[n.name] = k;
                continue;
            }
            if (n.op != NodeOp::CallFunction) continue;
            kinds_[n.name] = kindOf(n);
        }
        return kinds_;
    }

private:
    const ChunkRunCheck& c_;
    const Graph& g_;
    std::unordered_map<std::string, ChunkKind> kinds_;

    bool hasAxis(const std::string& name) const
    {
        auto it = c_.info->find(name);
        return it != c_.info->end() && it->second.dim != -1;
    }
    int axisDim(const std::string& name) const
    {
        auto it = c_.info->find(name);
        return it == c_.info->end() ? -1 : it->second.dim;
    }
    ChunkKind kindOfArg(NodeId r) const
    {
        const Node& x = g_.node(r);
        if (hasAxis(x.name)) return ChunkKind::Axis;
        auto it = kinds_.find(x.name);
        return it == kinds_.end() ? ChunkKind::Free : it->second;
    }
    [[noreturn]] void refuse(const Node& n, const std::string& why) const
    {
        throw std::invalid_argument("eager chunking: " + c_.where + ": '" + n.name + "' (" + n.target + ") " + why
                                    + "; the reference refuses this region");
    }

    // The tensor operands with their kinds, in argument order.
    std::vector<std::pair<NodeId, ChunkKind>> operands(const Node& n) const
    {
        std::vector<std::pair<NodeId, ChunkKind>> v;
        auto visit = [&](const Arg& a) {
            a.forEachNode([&](NodeId r) {
                const Node& x = g_.node(r);
                if (x.val.kind == ValueMeta::Kind::Tensor || x.val.kind == ValueMeta::Kind::Tuple
                    || x.val.kind == ValueMeta::Kind::Unknown)
                    v.push_back({r, kindOfArg(r)});
            });
        };
        for (const auto& a : n.args) visit(a);
        for (const auto& kv : n.kwargs) visit(kv.second);
        return v;
    }

    bool outputHasAxis(const Node& n) const { return hasAxis(n.name); }
    bool emptyOutput(const Node& n) const
    {
        if (!n.val.isTensor()) return false;
        for (const auto& s : n.val.tensor.sizes)
            if (s.valueOrHint() == 0) return true;
        return false;
    }

    void checkCoupling(const Node& n, const std::string& b) const
    {
        const auto cp = couplingOf(n, b, g_);
        if (!cp || cp->arg >= n.args.size() || !n.args[cp->arg].isNode()) return;
        const std::string& in = g_.node(n.args[cp->arg].node).name;
        const int d = axisDim(in);
        if (d == -1) return;
        for (int x : cp->dims)
            if (x == d || d == -2) {
                std::string what = cp->what;
                if (const size_t p = what.find("along dim"); p != std::string::npos)
                    what = what.substr(0, p) + "along dim " + std::to_string(x);
                refuse(n,
                       what + ", and '" + in + "' holds the chunk axis in dim "
                           + (d == -2 ? std::string("more than one dim") : std::to_string(d))
                           + ": it needs the whole axis, a chunk sees only its own rows");
            }
    }

    void checkSliceOrSelect(const Node& n, const std::string& b) const
    {
        if (n.args.empty() || !n.args[0].isNode()) return;
        const Node& in = g_.node(n.args[0].node);
        const int d = axisDim(in.name);
        if (d == -1 || !in.val.isTensor()) return;
        const size_t rank = in.val.tensor.sizes.size();
        const int sd = normDim(intArg(n, 1, "dim").value_or(0), rank);
        if (sd != d && d != -2) return;
        if (b == "select") refuse(n, "selects one index of the chunk axis (dim " + std::to_string(sd) + ")");
        const int64_t extent = in.val.tensor.sizes[static_cast<size_t>(sd)].valueOrHint();
        const int64_t start = intArg(n, 2, "start").value_or(0), end = intArg(n, 3, "end").value_or(INT64_MAX);
        const int64_t step = intArg(n, 4, "step").value_or(1);
        if (start == 0 && end >= extent && step == 1) return;
        refuse(n,
               "slices the chunk axis (dim " + std::to_string(sd) + ", " + std::to_string(start) + ":"
                   + (end == INT64_MAX ? std::string() : std::to_string(end)) + ":" + std::to_string(step)
                   + "): a chunk's slice is not the slice's chunk");
    }

    ChunkKind kindOf(const Node& n)
    {
        if (!n.val.isTensor() && n.val.kind != ValueMeta::Kind::Tuple && !n.isGetitem()) return ChunkKind::Free;
        const std::string b = functionalName(opName(n.target));
        if (n.isGetitem()) return itemKind(n);
        if (readsOnlyMeta(b)) return outputHasAxis(n) ? ChunkKind::Axis : ChunkKind::Free;
        checkCoupling(n, b);
        if (b == "slice" || b == "select") checkSliceOrSelect(n, b);
        if (b == "index") checkIndex(n);
        const auto ops = operands(n);
        bool anyAxis = false, anyPartial = false, anyLocal = false;
        for (const auto& [r, k] : ops) {
            anyAxis = anyAxis || k == ChunkKind::Axis;
            anyPartial = anyPartial || k == ChunkKind::Partial;
            anyLocal = anyLocal || k == ChunkKind::Local;
        }
        if (c_.local.count(n.name)) return ChunkKind::Local;
        if (anyPartial) return partialUse(n, b, ops);
        if (n.val.kind == ValueMeta::Kind::Tuple)
            return anyAxis ? ChunkKind::Axis : anyLocal ? ChunkKind::Local : ChunkKind::Free;
        if (outputHasAxis(n)) return ChunkKind::Axis;
        if (anyAxis) {
            if (emptyOutput(n)) return ChunkKind::Free;
            if (sumsOverAxis(n, b, 0, g_)) return ChunkKind::Partial;
            for (const auto& [r, k] : ops)
                if (k != ChunkKind::Axis && wholeAlongAxis(r, ops)) {
                    int dim = -1;
                    const Node* f = factoryOf(r, dim);
                    const std::string what = "eager chunking: " + c_.where + ": '" + n.name + "' (" + n.target
                        + ") combines the chunk's rows with '" + g_.node(r).name + "', which has the whole axis"
                        + madeFrom(f) + ": a chunk run cannot size it; the reference refuses this region";
                    if (f && dim >= 0) throw WholeAxisFactory(what, f->name, dim);
                    throw std::invalid_argument(what);
                }
            refuse(n,
                   "reduces over the chunk axis in a way that is not a plain sum (its output has no chunk "
                   "dim): a chunk's value is not its part of the whole");
        }
        return anyLocal ? ChunkKind::Local : ChunkKind::Free;
    }

    // Whether value r (not chunked) has the full length N where, right-aligned, a chunked operand
    // has its chunk dim.
    bool wholeAlongAxis(NodeId r, const std::vector<std::pair<NodeId, ChunkKind>>& ops) const
    {
        const ValueMeta& v = g_.node(r).val;
        if (!v.isTensor() || c_.n <= 0) return false;
        for (const auto& [a, k] : ops) {
            const int d = axisDim(g_.node(a).name);
            const ValueMeta& av = g_.node(a).val;
            if (k != ChunkKind::Axis || d < 0 || !av.isTensor()) continue;
            const int j = d + static_cast<int>(v.tensor.sizes.size()) - static_cast<int>(av.tensor.sizes.size());
            if (j >= 0 && j < static_cast<int>(v.tensor.sizes.size())
                && v.tensor.sizes[static_cast<size_t>(j)].valueOrHint() == c_.n)
                return true;
        }
        return false;
    }

    // The factory (zeros, ones, full, empty, rand, randn) the whole-length value r comes from,
    // through the run's nodes, or null; `dim`: the one dim of its literal sizes that is N (-1
    // when none or several are).
    const Node* factoryOf(NodeId r, int& dim) const
    {
        std::vector<NodeId> todo{r};
        std::set<NodeId> seen;
        while (!todo.empty()) {
            const NodeId id = todo.back();
            todo.pop_back();
            if (!seen.insert(id).second) continue;
            const Node& x = g_.node(id);
            const std::string b = opName(x.target);
            if (!x.args.empty() && x.args[0].isSequence()
                && (b == "zeros" || b == "ones" || b == "full" || b == "empty" || b == "rand" || b == "randn")) {
                dim = -1;
                for (size_t j = 0; j < x.args[0].items.size(); ++j) {
                    const Arg& a = x.args[0].items[j];
                    if (a.kind != Arg::Kind::Int || a.i != c_.n) continue;
                    dim = dim == -1 ? static_cast<int>(j) : -2;
                }
                if (dim < 0) dim = -1;
                return &x;
            }
            for (const auto& a : x.args) a.forEachNode([&](NodeId p) { todo.push_back(p); });
        }
        return nullptr;
    }

    // ", made by 'zeros' (aten.zeros.default) with the literal sizes [1, 4, 8]", or the length.
    std::string madeFrom(const Node* f) const
    {
        if (!f) return " (a value made with the literal length " + std::to_string(c_.n) + ")";
        std::string sizes;
        for (const auto& a : f->args[0].items)
            sizes += (sizes.empty() ? "" : ", ") + (a.kind == Arg::Kind::Int ? std::to_string(a.i) : "?");
        return ", made by '" + f->name + "' (" + f->target + ") with the literal sizes [" + sizes + "]";
    }

    void checkIndex(const Node& n) const
    {
        if (n.args.size() < 2 || !n.args[0].isNode() || !n.args[1].isSequence()) return;
        const int d = axisDim(g_.node(n.args[0].node).name);
        if (d == -1) return;
        const auto& idx = n.args[1].items;
        for (size_t i = 0; i < idx.size(); ++i)
            if (!idx[i].isNone() && (static_cast<int>(i) == d || d == -2))
                refuse(n, "indexes the chunk axis (dim " + std::to_string(i) + ") with a tensor of positions");
    }

    ChunkKind itemKind(const Node& n)
    {
        if (n.args.empty() || !n.args[0].isNode()) return ChunkKind::Free;
        const Node& p = g_.node(n.args[0].node);
        const int item = static_cast<int>(intArg(n, 1, "").value_or(0));
        const ChunkKind pk = kindOfArg(p.id);
        if (c_.local.count(p.name)) return ChunkKind::Local;
        if (pk == ChunkKind::Partial) return ChunkKind::Partial;
        if (outputHasAxis(n)) return ChunkKind::Axis;
        if (pk != ChunkKind::Axis) return pk;
        // the tuple op read the axis and this item has none
        if (emptyOutput(n) || !n.val.isTensor()) return ChunkKind::Free;
        const std::string b = functionalName(opName(p.target));
        if (sumsOverAxis(p, b, item, g_)) return ChunkKind::Partial;
        refuse(p,
               "reduces over the chunk axis in its output " + std::to_string(item) + " ('" + n.name
                   + "'), not as a plain sum: a chunk's value is not its part of the whole");
    }

    ChunkKind partialUse(const Node& n, const std::string& b, const std::vector<std::pair<NodeId, ChunkKind>>& ops)
    {
        NodeId partial = kNoNode, other = kNoNode;
        ChunkKind otherKind = ChunkKind::Free;
        int partials = 0;
        for (const auto& [r, k] : ops) {
            if (k == ChunkKind::Partial) {
                ++partials;
                if (partial == kNoNode) partial = r;
            } else if (other == kNoNode) {
                other = r;
                otherKind = k;
            }
        }
        const std::string pn = "'" + g_.node(partial).name + "'";
        if (b == "add" || b == "sub") {
            if (other == kNoNode) return ChunkKind::Partial;
            const std::string on = "'" + g_.node(other).name + "'";
            if (otherKind == ChunkKind::Axis)
                refuse(n,
                       "adds " + pn
                           + ", a sum over the chunk axis that has only this chunk's part, to the chunk's rows " + on);
            refuse(
                n,
                "adds " + on
                    + (otherKind == ChunkKind::Local ? ", the chunk's own value," : ", a value every chunk has whole,")
                    + " to " + pn
                    + ", this chunk's part of a sum over the chunk axis: adding up the chunks "
                      "would count "
                    + on + " once per chunk (eager chunking adds it once)");
        }
        if (b == "mul" || b == "div" || b == "mm" || b == "bmm" || b == "mv" || b == "matmul") {
            if (partials == 1 && otherKind != ChunkKind::Axis && (b != "div" || ops.front().first == partial))
                return ChunkKind::Partial;
        } else if (b == "cat" || b == "stack") {
            if (other == kNoNode) return ChunkKind::Partial;
        } else if (keepsPartial(b) && partials == 1 && ops.front().first == partial) {
            bool othersFree = true;
            for (const auto& [r, k] : ops) othersFree = othersFree && (r == partial || k == ChunkKind::Free);
            if (othersFree) return ChunkKind::Partial;
        }
        refuse(n,
               "uses " + pn
                   + ", this chunk's part of a sum over the chunk axis, other than by adding it up or scaling it: "
                     "the result needs the whole sum");
    }
};

}  // namespace

std::unordered_map<std::string, ChunkKind> checkChunkRun(const ChunkRunCheck& c)
{
    Checker k(c);
    return k.run();
}

}  // namespace fxl
