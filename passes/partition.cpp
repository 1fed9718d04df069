#include "passes/partition.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <queue>
#include <set>
#include <sstream>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "passes/max_flow.hpp"

namespace fxl {

namespace {

// ------------------------------------------------------------------ op sets (passes.md 6.6)

// "aten.mm.default" -> ("aten", "mm"); "operator.getitem" -> ("operator", "getitem").
std::pair<std::string_view, std::string_view> splitTarget(std::string_view t)
{
    if (t.substr(0, 10) == "torch.ops.") t.remove_prefix(10);
    const size_t d1 = t.find('.');
    if (d1 == std::string_view::npos) return {"", t};
    const std::string_view ns = t.substr(0, d1);
    std::string_view rest = t.substr(d1 + 1);
    if (ns == "operator" || ns == "_operator" || ns == "builtins" || ns == "math") return {"operator", rest};
    const size_t d2 = rest.find('.');
    return {ns, d2 == std::string_view::npos ? rest : rest.substr(0, d2)};
}

// Older traces (torch 1.13, the corpus) spell some of these differently where newer AOT graphs
// decompose to the listed ops: _reshape_alias (a view with explicit strides, now view /
// as_strided), transpose (now permute) and detach (now alias). They count as what they became.
const std::set<std::string_view>& viewOps()
{
    static const std::set<std::string_view> s = {"squeeze", "unsqueeze",        "alias",     "view",       "slice",
                                                 "t",       "broadcast_in_dim", "expand",    "as_strided", "permute",
                                                 "select",  "_reshape_alias",   "transpose", "detach"};
    return s;
}

const std::set<std::string_view>& recomputableNames()
{
    static const std::set<std::string_view> s = {
        // pointwise arithmetic / comparison / logic / activations / math
        "add", "sub", "div", "atan2", "mul", "max", "min", "pow", "remainder", "fmod", "__and__", "__or__", "__xor__",
        "__lshift__", "__rshift__", "eq", "ne", "ge", "gt", "le", "lt", "abs", "bitwise_not", "ceil", "floor", "frac",
        "neg", "relu", "round", "silu", "trunc", "log", "log10", "log1p", "log2", "lgamma", "exp", "expm1", "erf",
        "erfc", "cos", "acos", "cosh", "sin", "asin", "sinh", "tan", "atan", "tanh", "atanh", "sqrt", "rsqrt",
        "reciprocal", "sigmoid", "softplus", "threshold", "threshold_backward", "clamp", "where", "lerp", "addcmul",
        "gelu", "gelu_backward", "rsub", "maximum", "isinf", "any",
        // reductions
        "sum", "mean", "_grad_sum_to_size", "sum_to_size", "amax", "var", "var_mean", "std", "argmax",
        // casts
        "to", "type_as", "_to_copy", "convert_element_type",
        // views and shape ops
        "view", "reshape", "_unsafe_view", "expand", "slice", "select", "squeeze", "unsqueeze", "t", "permute",
        "as_strided", "alias", "broadcast_in_dim", "broadcast_tensors", "_reshape_alias", "transpose", "detach",
        // factories
        "full", "full_like", "zeros", "ones", "new_zeros", "empty", "empty_like", "zeros_like", "ones_like",
        "scalar_tensor", "arange", "iota", "triu", "lift_fresh_copy",
        // misc
        "clone", "index", "gather", "getitem"};
    return s;
}

const std::set<std::string_view>& randomNames()
{
    static const std::set<std::string_view> s = {"native_dropout", "rand_like", "randn_like"};
    return s;
}

const std::set<std::string_view>& computeIntensiveNames()
{
    static const std::set<std::string_view> s = {"mm",
                                                 "convolution",
                                                 "convolution_backward",
                                                 "bmm",
                                                 "addmm",
                                                 "_scaled_dot_product_flash_attention",
                                                 "_scaled_dot_product_efficient_attention",
                                                 "_flash_attention_forward",
                                                 "_efficient_attention_forward",
                                                 "upsample_bilinear2d",
                                                 "_scaled_mm"};
    return s;
}

class OpSets
{
public:
    explicit OpSets(const OpRegistry& r)
        : reg_(r)
    { }

    const OpInfo* info(const Node& n) const
    {
        if (n.op != NodeOp::CallFunction) return nullptr;
        auto it = cache_.find(n.target);
        if (it != cache_.end()) return it->second;
        const OpInfo* oi = reg_.find(OpRegistry::normalizeTarget(n.target));
        cache_.emplace(n.target, oi);
        return oi;
    }
    bool has(const Node& n, OpTrait t) const
    {
        const OpInfo* oi = info(n);
        return oi && oi->has(t);
    }
    static std::string_view base(const Node& n) { return splitTarget(n.target).second; }
    static std::string_view ns(const Node& n) { return splitTarget(n.target).first; }

    bool isView(const Node& n) const
    {
        return n.op == NodeOp::CallFunction && (ns(n) == "aten" || ns(n) == "prims") && viewOps().count(base(n));
    }
    bool isRandom(const Node& n) const
    {
        if (n.op != NodeOp::CallFunction) return false;
        return has(n, kTraitRandom) || (ns(n) == "aten" && randomNames().count(base(n)));
    }
    bool isComputeIntensive(const Node& n) const
    {
        if (n.op != NodeOp::CallFunction) return false;
        return (ns(n) == "aten" && computeIntensiveNames().count(base(n))) || has(n, kTraitMatmul);
    }
    bool isCollective(const Node& n) const
    {
        if (n.op != NodeOp::CallFunction) return false;
        const std::string_view s = ns(n);
        return s == "_c10d_functional" || s == "_c10d_functional_autograd" || s == "c10d_functional"
            || has(n, kTraitCollective) || has(n, kTraitWait);
    }
    bool isRecomputable(const Node& n) const
    {
        if (n.op != NodeOp::CallFunction || isRandom(n)) return false;
        const std::string_view s = ns(n), b = base(n);
        if (s == "operator") return true;  // getitem and the symbolic-int magic methods
        if ((s == "aten" || s == "prims") && recomputableNames().count(b)) return true;
        return has(n, kTraitPointwise) || has(n, kTraitSym);
    }
    bool isFusibleOp(const Node& n) const { return isRecomputable(n) || isRandom(n); }
    bool isCat(const Node& n) const { return n.op == NodeOp::CallFunction && ns(n) == "aten" && base(n) == "cat"; }
    bool isSideEffect(const Node& n) const { return has(n, kTraitSideEffect); }

private:
    const OpRegistry& reg_;
    mutable std::unordered_map<std::string, const OpInfo*> cache_;
};

// ------------------------------------------------------------------ small helpers

bool mustRecompute(const Node& n)
{
    return n.meta.recompute == Recompute::MustRecompute || n.meta.recompute == Recompute::PreferRecompute;
}

bool customFlag(const Node& n, const char* key)
{
    if (!n.meta.custom.is_object()) return false;
    auto it = n.meta.custom.find(key);
    return it != n.meta.custom.end() && it->is_boolean() && it->get<bool>();
}

bool isSym(const ValueMeta& v)
{
    return v.kind == ValueMeta::Kind::SymInt || v.kind == ValueMeta::Kind::SymFloat
        || v.kind == ValueMeta::Kind::SymBool;
}

bool isTangentName(const std::string& name) { return name.find("tangent") != std::string::npos; }

// Bytes of a value for the cut and the saved-bytes count; values of unknown size count 0.
int64_t knownBytesOrZero(const ValueMeta& v) { return valueBytes(v).value_or(0); }

// _size_of: symbolic scalars count 1.
int64_t sizeOf(const Node& n) { return isSym(n.val) ? 1 : knownBytesOrZero(n.val); }

// Node references inside a node's args and kwargs, first occurrence order.
template<class F>
void forEachInput(const Node& n, F&& fn)
{
    for (const auto& a : n.args) a.forEachNode(fn);
    for (const auto& kv : n.kwargs) kv.second.forEachNode(fn);
}

std::string joinNames(const std::vector<std::string>& v, size_t max = 8)
{
    std::string s;
    for (size_t i = 0; i < v.size() && i < max; ++i) s += (i ? ", " : "") + v[i];
    if (v.size() > max) s += ", ... (" + std::to_string(v.size()) + ")";
    return s;
}

const char* modeName(PartitionMode m)
{
    switch (m) {
    case PartitionMode::SaveAll: return "save_all";
    case PartitionMode::Tagged: return "tagged";
    case PartitionMode::MinCut: return "mincut";
    }
    return "?";
}

// The output items of a graph (the returned tuple/list flattened one level).
std::vector<Arg> outputItems(const Graph& g)
{
    const NodeId out = g.outputNode();
    if (out == kNoNode) return {};
    const Node& o = g.node(out);
    if (o.args.empty()) return {};
    const Arg& a = o.args[0];
    if (a.isSequence()) return a.items;
    if (a.isNone()) return {};
    return {a};
}

}  // namespace

// ------------------------------------------------------------------ seeds and classification

bool isLossSeed(const Graph& g, const Node& n)
{
    if (!n.isOp("aten.ones_like.default") || n.args.empty() || !n.args[0].isNode()) return false;
    const NodeId in = n.args[0].node;
    for (const Arg& it : outputItems(g))
        if (it.isNode() && it.node == in) return true;
    if (n.meta.phase != Phase::Backward) return false;
    const ValueMeta& v = g.node(in).val;
    return v.kind == ValueMeta::Kind::Unknown || (v.isTensor() && v.tensor.sizes.empty());
}

NodeClassification classifyNodes(const Graph& g, int numFwdOutputs)
{
    NodeClassification c;
    size_t cap = 0;
    for (NodeId id : g.order()) cap = std::max(cap, static_cast<size_t>(id) + 1);
    c.requiredFw.assign(cap, 0);
    c.requiredBw.assign(cap, 0);
    c.unclaimed.assign(cap, 0);
    c.fwOrder.assign(cap, -1);

    std::vector<char> seedOrTangent(cap, 0);
    // an AOT joint graph has its seeds as placeholders: no ones_like is a seed there
    bool aot = false;
    for (NodeId id : g.placeholders())
        if (isTangentName(g.node(id).name)) aot = true;
    for (NodeId id : g.order()) {
        const Node& n = g.node(id);
        if (n.op == NodeOp::Placeholder) {
            if (isTangentName(n.name)) {
                c.tangents.push_back(id);
                seedOrTangent[static_cast<size_t>(id)] = 1;
            } else {
                c.primals.push_back(id);
            }
        } else if (!aot && isLossSeed(g, n)) {
            c.tangents.push_back(id);
            seedOrTangent[static_cast<size_t>(id)] = 1;
            c.notes.push_back("loss seed '" + n.name + "' (ones_like of '" + g.node(n.args[0].node).name
                              + "') becomes a backward placeholder");
        }
    }
    // required_bw: seeds and their transitive users, in graph order.
    for (NodeId id : g.order()) {
        const Node& n = g.node(id);
        if (n.op == NodeOp::Output) continue;
        bool bw = seedOrTangent[static_cast<size_t>(id)] != 0;
        if (!bw && n.op != NodeOp::Placeholder)
            forEachInput(n, [&](NodeId in) {
                if (in >= 0 && static_cast<size_t>(in) < cap && c.requiredBw[static_cast<size_t>(in)]) bw = true;
            });
        c.requiredBw[static_cast<size_t>(id)] = bw ? 1 : 0;
    }
    // forward outputs: the output items before the first gradient.
    const std::vector<Arg> items = outputItems(g);
    size_t nf = items.size();
    if (numFwdOutputs >= 0) {
        nf = std::min(items.size(), static_cast<size_t>(numFwdOutputs));
    } else {
        for (size_t i = 0; i < items.size(); ++i) {
            const Arg& a = items[i];
            const bool grad =
                a.isNone() || (a.isNode() && (c.isRequiredBw(a.node) || g.node(a.node).meta.phase == Phase::Backward));
            if (grad) {
                nf = i;
                break;
            }
        }
    }
    for (size_t i = 0; i < items.size(); ++i) {
        const NodeId id = items[i].isNode() ? items[i].node : kNoNode;
        (i < nf ? c.fwdOutputs : c.bwdOutputs).push_back(id);
    }
    // non-null gradient outputs are backward
    for (NodeId id : c.bwdOutputs)
        if (id != kNoNode) c.requiredBw[static_cast<size_t>(id)] = 1;
    // required_fw: what the forward outputs need from the primals (all primals count).
    std::vector<NodeId> stack;
    for (NodeId id : c.primals) c.requiredFw[static_cast<size_t>(id)] = 1;
    for (NodeId id : c.fwdOutputs)
        if (id != kNoNode && !c.requiredFw[static_cast<size_t>(id)]) {
            c.requiredFw[static_cast<size_t>(id)] = 1;
            stack.push_back(id);
        }
    while (!stack.empty()) {
        const NodeId id = stack.back();
        stack.pop_back();
        forEachInput(g.node(id), [&](NodeId in) {
            if (in < 0 || static_cast<size_t>(in) >= cap || c.requiredFw[static_cast<size_t>(in)]) return;
            c.requiredFw[static_cast<size_t>(in)] = 1;
            stack.push_back(in);
        });
    }
    int k = 0;
    for (NodeId id : g.order()) {
        const Node& n = g.node(id);
        const size_t i = static_cast<size_t>(id);
        if (c.requiredFw[i])
            c.fwOrder[i] = k++;
        else if (!c.requiredBw[i] && n.op != NodeOp::Output)
            c.unclaimed[i] = 1;
    }
    return c;
}

// ------------------------------------------------------------------ tag normalisation (6.3)

std::vector<std::string> cleanupRecomputeTags(Graph& g, bool defaultPartitionMode, PassContext* ctx)
{
    g.rebuildUsers();
    std::vector<std::string> tagged;
    auto setSave = [&](Node& n) {
        if (n.meta.recompute == Recompute::MustSave) return;
        if (ctx) ctx->tagSet(n.name, "recompute", std::string(recomputeName(n.meta.recompute)), "MUST_SAVE");
        n.meta.recompute = Recompute::MustSave;
        tagged.push_back(n.name);
    };
    for (NodeId id : g.order()) {
        Node& n = g.node(id);
        if (mustRecompute(n)) {
            bool boundary = false, anyRecomputableUser = false;
            for (NodeId u : n.users) {
                const Node& un = g.node(u);
                if (!mustRecompute(un)) continue;
                anyRecomputableUser = true;
                if (un.meta.acGraphId && n.meta.acGraphId && *un.meta.acGraphId > *n.meta.acGraphId) boundary = true;
            }
            if (boundary)
                setSave(n);  // (a) the boundary between two AC regions
            else if (customFlag(n, "has_backward_hook") && !anyRecomputableUser)
                setSave(n);  // (b) FSDP2 + AC
        } else if (defaultPartitionMode && !n.meta.acGraphId && n.op != NodeOp::Output) {
            bool feeds = false;
            for (NodeId u : n.users)
                if (mustRecompute(g.node(u))) feeds = true;
            if (!feeds) continue;
            // a getitem whose parent belongs to a region is part of that region
            bool exempt = false;
            if (n.isGetitem() && !n.args.empty() && n.args[0].isNode() && g.node(n.args[0].node).meta.acGraphId)
                exempt = true;
            if (!exempt) setSave(n);  // (c) a region input
        }
    }
    return tagged;
}

// ------------------------------------------------------------------ the partitioner

nlohmann::json PartitionResult::stats() const
{
    nlohmann::json j = nlohmann::json::object();
    j["saved"] = saved;
    j["saved_bytes"] = savedBytes;
    j["saved_symbols"] = savedSymbols;
    j["forward_nodes"] = forward.size();
    j["backward_nodes"] = backward.size();
    j["recomputed"] = recomputed;
    j["num_fwd_outputs"] = numFwdOutputs;
    j["banned"] = banned.size();
    return j;
}

namespace {

class Partitioner
{
public:
    // Takes its own copy of the joint (moved in when the caller has one to spare).
    Partitioner(Graph joint, const PartitionOptions& o, PassContext* ctx)
        : g_(std::move(joint))
        , o_(o)
        , reg_(o.registry ? *o.registry : OpRegistry::instance())
        , ops_(reg_)
        , ctx_(ctx)
    { }

    PartitionResult run();

private:
    Graph g_;
    PartitionOptions o_;
    const OpRegistry& reg_;
    OpSets ops_;
    PassContext* ctx_;
    NodeClassification c_;
    size_t cap_ = 0;
    std::vector<char> isTangent_;  // tangent placeholders and seeds
    std::vector<std::vector<NodeId>> users_;  // users without seeds (a seed reads only its input's shape)
    std::vector<NodeId> saved_, savedSym_;
    std::vector<std::string> banned_;
    std::vector<std::string> notes_;

    const Node& N(NodeId id) const { return g_.node(id); }
    size_t ix(NodeId id) const { return static_cast<size_t>(id); }
    bool isMultiOutput(const Node& n) const;
    bool isPrimal(NodeId id) const { return N(id).op == NodeOp::Placeholder && !isTangent_[ix(id)]; }

    void prepareTags();
    void chooseSaveAll();
    void chooseTagged();
    void chooseMinCut();

    // Backward nodes needed for the gradients given the current saves; fills `missing` with
    // forward placeholders / RNG ops the backward would need but that are not saved.
    std::vector<char> backwardNeeds(std::vector<NodeId>* missing) const;
    std::vector<char> forwardNeeds(const std::vector<char>& bwNeed) const;
    std::vector<NodeId> reorderBackward(const std::vector<NodeId>& seq) const;
    Node copyOf(const Node& src, const std::vector<NodeId>& env) const;
};

bool Partitioner::isMultiOutput(const Node& n) const
{
    if (n.op != NodeOp::CallFunction) return false;
    if (n.val.kind == ValueMeta::Kind::Tuple) return true;
    if (n.val.kind != ValueMeta::Kind::Unknown || n.users.empty()) return false;
    for (NodeId u : n.users)
        if (!N(u).isGetitem()) return false;
    return true;
}

void Partitioner::prepareTags()
{
    bool anyTags = false;
    g_.forEachNode([&](const Node& n) {
        if (n.meta.recompute != Recompute::None) anyTags = true;
    });
    if (anyTags && o_.cleanupTags) {
        const auto t = cleanupRecomputeTags(g_, false, ctx_);
        if (!t.empty()) notes_.push_back("cleanup_recompute_tags: MUST_SAVE on " + joinNames(t));
    }
    if (o_.forceSaveCollectives) {
        std::vector<std::string> forced;
        for (NodeId id : g_.order()) {
            Node& n = g_.node(id);
            if (!ops_.isCollective(n) || mustRecompute(n) || n.meta.recompute == Recompute::MustSave) continue;
            if (ctx_) ctx_->tagSet(n.name, "recompute", std::string(recomputeName(n.meta.recompute)), "MUST_SAVE");
            n.meta.recompute = Recompute::MustSave;
            forced.push_back(n.name);
        }
        if (!forced.empty()) notes_.push_back("force_save_collectives: MUST_SAVE on " + joinNames(forced));
    }
    g_.rebuildUsers();
}

// default_partition: every required_fw value (the getitems of a multi-output node); the ones
// the backward does not read are dropped after extraction.
void Partitioner::chooseSaveAll()
{
    for (NodeId id : g_.order()) {
        if (!c_.isRequiredFw(id)) continue;
        const Node& n = N(id);
        if (isSym(n.val))
            savedSym_.push_back(id);
        else if (isMultiOutput(n)) {
            for (NodeId u : n.users)
                if (N(u).isGetitem()) saved_.push_back(u);
        } else
            saved_.push_back(id);
    }
}

// _ReplaySavesPartitioner (5.4, landed semantics).
void Partitioner::chooseTagged()
{
    auto maybeSave = [&](NodeId id) {
        const Node& n = N(id);
        if (n.meta.recompute == Recompute::MustRecompute) return;
        if (isSym(n.val)) {
            bool assertOnly = n.val.kind == ValueMeta::Kind::SymBool && !n.users.empty();
            for (NodeId u : n.users)
                if (OpSets::base(N(u)).find("assert") == std::string_view::npos) assertOnly = false;
            if (!assertOnly) savedSym_.push_back(id);
            return;
        }
        if (isMultiOutput(n)) {
            const bool mustSave = n.meta.recompute == Recompute::MustSave;
            if (!mustSave && !customFlag(n, "ap_must_save")) return;
            std::set<int64_t> indices;
            bool all = mustSave;
            if (!all) {
                auto it = n.meta.custom.find("ap_must_save_getitem_indices");
                if (it == n.meta.custom.end() || !it->is_array())
                    all = true;
                else
                    for (const auto& v : *it)
                        if (v.is_number_integer()) indices.insert(v.get<int64_t>());
            }
            for (NodeId u : n.users) {
                const Node& gi = N(u);
                if (!gi.isGetitem()) continue;
                if (!all && !(gi.args.size() > 1 && gi.args[1].kind == Arg::Kind::Int && indices.count(gi.args[1].i)))
                    continue;
                saved_.push_back(u);
            }
            return;
        }
        if (n.val.kind == ValueMeta::Kind::Opaque) {
            saved_.push_back(id);
            return;
        }
        if (n.op == NodeOp::Placeholder)
            saved_.push_back(id);
        else if (customFlag(n, "ap_must_save") || n.meta.recompute == Recompute::MustSave)
            saved_.push_back(id);
    };
    for (NodeId id : g_.order())
        if (c_.isRequiredFw(id)) maybeSave(id);
    for (NodeId id : g_.order())
        if (c_.isUnclaimed(id)) maybeSave(id);
}

// min_cut_rematerialization_partition's choose_saved_values_set with budget 1.0 (6.4).
void Partitioner::chooseMinCut()
{
    using Flow = MaxFlow<int64_t>;
    constexpr int64_t INF = Flow::kInfinite;
    const bool aggressive = o_.aggressive;
    const bool banFar = o_.banUsedFarApart && !aggressive;
    const bool banChains = o_.banLongFusibleChains && !aggressive;
    const bool banMaterialized = o_.banMaterializedBackward && !aggressive;
    const bool allowlist = o_.banNotInAllowlist && !aggressive;
    const bool banReduction = o_.banReduction;

    // distance to the backward (reverse graph order)
    constexpr int64_t kFar = 1000000000;
    std::vector<int64_t> dist(cap_, 0);
    const auto& order = g_.order();
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
        const NodeId id = *it;
        const Node& n = N(id);
        if (n.op == NodeOp::Output)
            dist[ix(id)] = kFar;
        else if (!c_.isRequiredFw(id))
            dist[ix(id)] = 0;
        else {
            int64_t d = kFar;
            for (NodeId u : users_[ix(id)]) d = std::min(d, dist[ix(u)] + 1);
            dist[ix(id)] = d;
        }
    }
    auto isFusible = [&](const Node& a, const Node& b) {
        return ops_.isCat(b) || (ops_.isFusibleOp(a) && ops_.isFusibleOp(b));
    };
    auto isMaterializedBackwards = [&](NodeId id) {
        if (ops_.isView(N(id))) return false;
        std::vector<NodeId> cur{id};
        std::unordered_set<NodeId> seen{id};
        while (!cur.empty()) {
            const NodeId x = cur.back();
            cur.pop_back();
            for (NodeId u : users_[ix(x)]) {
                if (!c_.isRequiredFw(u) && !isFusible(N(x), N(u))) return true;
                if (ops_.isView(N(u)) && seen.insert(u).second) cur.push_back(u);
            }
        }
        return false;
    };
    auto isMaterialized = [&](NodeId id) {
        if (N(id).op == NodeOp::Placeholder) return true;
        for (NodeId u : users_[ix(id)])
            if (!isFusible(N(id), N(u))) return true;
        return false;
    };
    auto shouldBan = [&](NodeId id) {
        const Node& n = N(id);
        if (n.op != NodeOp::CallFunction) return false;
        if (n.isGetitem()) return false;
        if (n.meta.recompute == Recompute::MustSave) return true;
        if (o_.recomputeViews && ops_.isView(n)) return false;
        const std::string_view b = OpSets::base(n);
        if (b == "lift_fresh_copy" || b == "lift_fresh") return false;
        if (allowlist) {
            if (!ops_.isRecomputable(n)) return true;
        } else if (ops_.isRandom(n) || ops_.isComputeIntensive(n)) {
            return true;
        }
        if (banMaterialized && isMaterializedBackwards(id)) return true;
        if (banReduction) {
            int64_t in = 0;
            for (const Arg& a : n.args)
                if (a.isNode()) in += sizeOf(N(a.node));
            if (sizeOf(n) * 4 < in) return true;
        }
        return false;
    };

    // vertices: node k -> 2k (in), 2k+1 (out); then SOURCE, SINK
    std::vector<int> vid(cap_, -1);
    int nv = 0;
    for (NodeId id : order) vid[ix(id)] = nv++;
    const int SOURCE = 2 * nv, SINK = 2 * nv + 1;
    Flow f(2 * nv + 2);
    auto vin = [&](NodeId id) { return 2 * vid[ix(id)]; };
    auto vout = [&](NodeId id) { return 2 * vid[ix(id)] + 1; };
    std::vector<char> banned(cap_, 0);
    std::vector<int> weightEdge(cap_, -1);
    auto ban = [&](NodeId id) {
        const Node& n = N(id);
        if (ops_.isView(n) || mustRecompute(n) || n.val.kind == ValueMeta::Kind::SymFloat) return false;
        if (banned[ix(id)]) return true;
        banned[ix(id)] = 1;
        f.addEdge(SOURCE, vin(id), INF);
        return true;
    };
    int unknownSizes = 0;
    for (NodeId id : order) {
        const Node& n = N(id);
        if (n.op == NodeOp::Output) continue;
        if (c_.isRequiredBw(id)) {
            if (!isPrimal(id)) {
                f.addEdge(vin(id), SINK, INF);
                continue;
            }
            // a primal returned as a gradient: it must be saved as is
            f.addEdge(SOURCE, vin(id), INF);
            f.addEdge(vout(id), SINK, INF);
        }
        if (mustRecompute(n)) {
            f.addEdge(vin(id), SINK, INF);
            continue;
        }
        if (isPrimal(id)) ban(id);
        if (c_.isRequiredFw(id) && shouldBan(id)) ban(id);
        int64_t w;
        if (isSym(n.val)) {
            w = n.val.kind == ValueMeta::Kind::SymFloat ? 4 : 1;
        } else if (isMultiOutput(n) || n.val.kind == ValueMeta::Kind::Opaque || n.val.kind == ValueMeta::Kind::None) {
            w = INF;  // tuples are saved through their getitems
        } else if (o_.recomputeViews && ops_.isView(n)) {
            w = INF;
        } else {
            if (n.val.kind == ValueMeta::Kind::Unknown) ++unknownSizes;
            const double mem = static_cast<double>(sizeOf(n));
            const int64_t d = std::clamp<int64_t>(dist[ix(id)], 1, 100);
            double wd = std::floor(mem * std::pow(1.1, static_cast<double>(d)));
            if (!isMaterialized(id)) wd *= 2;
            w = wd >= 9.0e18 ? INF - 1 : static_cast<int64_t>(wd);
        }
        weightEdge[ix(id)] = f.addEdge(vin(id), vout(id), w);
        for (NodeId u : users_[ix(id)]) f.addEdge(vout(id), vin(u), INF);
    }
    if (unknownSizes)
        notes_.push_back(std::to_string(unknownSizes) + " node(s) without tensor meta count 0 bytes in the cut");

    // heuristic bans
    if (banFar) {
        auto firstUnfusible = [&](const std::vector<NodeId>& start, int maxRange) {
            using Item = std::tuple<int, NodeId, bool>;
            std::priority_queue<Item, std::vector<Item>, std::greater<Item>> heap;
            std::set<Item> pushed;
            for (NodeId s : start) {
                Item it{c_.fwOrder[ix(s)], s, true};
                if (pushed.insert(it).second) heap.push(it);
            }
            while (!heap.empty()) {
                auto [ord, x, fusible] = heap.top();
                heap.pop();
                if (!fusible) return ord;
                for (NodeId u : users_[ix(x)]) {
                    if (!c_.isRequiredFw(u) || c_.fwOrder[ix(u)] > maxRange) continue;
                    Item it{c_.fwOrder[ix(u)], u, isFusible(N(x), N(u))};
                    if (pushed.insert(it).second) heap.push(it);
                }
            }
            return maxRange;
        };
        for (NodeId id : order) {
            if (!c_.isRequiredFw(id)) continue;
            std::vector<NodeId> fwUsers;
            int maxOrd = -1;
            for (NodeId u : users_[ix(id)])
                if (c_.isRequiredFw(u)) {
                    fwUsers.push_back(u);
                    maxOrd = std::max(maxOrd, c_.fwOrder[ix(u)]);
                }
            if (fwUsers.empty()) continue;
            const int first = firstUnfusible(fwUsers, maxOrd);
            for (NodeId u : fwUsers)
                if (c_.fwOrder[ix(u)] > first && isFusible(N(id), N(u)) && !banned[ix(u)]) ban(u);
        }
    }
    if (banChains) {
        std::vector<char> visited(cap_, 0);
        for (NodeId start : order) {
            if (!c_.isRequiredFw(start)) continue;
            using Item = std::pair<int, NodeId>;
            std::priority_queue<Item, std::vector<Item>, std::greater<Item>> heap;
            const int startOrd = c_.fwOrder[ix(start)];
            heap.push({startOrd, start});
            while (!heap.empty()) {
                const NodeId cur = heap.top().second;
                heap.pop();
                if (visited[ix(cur)]) continue;
                visited[ix(cur)] = 1;
                if (c_.fwOrder[ix(cur)] > startOrd + 100 && heap.empty()) {
                    ban(cur);
                    break;
                }
                for (NodeId u : users_[ix(cur)])
                    if (c_.isRequiredFw(u) && isFusible(N(cur), N(u)) && !banned[ix(u)])
                        heap.push({c_.fwOrder[ix(u)], u});
            }
        }
    }

    const int64_t value = f.solve(SOURCE, SINK);
    if (value == INF) {
        std::string who;
        for (NodeId id : order)
            if (banned[ix(id)] && (c_.isRequiredBw(id) || mustRecompute(N(id))) && f.onSourceSide(vout(id))) {
                who = N(id).name;
                break;
            }
        throw PassError("partition(mincut): no finite cut: a value that can be neither saved nor recomputed is needed "
                        "by the backward"
                        + (who.empty() ? std::string() : " (e.g. '" + who + "')"));
    }
    for (NodeId id : order) {
        if (banned[ix(id)]) banned_.push_back(N(id).name);
        const int e = weightEdge[ix(id)];
        if (e < 0) continue;
        if (f.onSourceSide(f.edgeFrom(e)) && !f.onSourceSide(f.edgeTo(e))) {
            if (isSym(N(id).val))
                savedSym_.push_back(id);
            else
                saved_.push_back(id);
        }
    }
    std::ostringstream os;
    os << "min cut: " << saved_.size() + savedSym_.size() << " value(s) cross, cut value " << value << ", "
       << banned_.size() << " banned";
    notes_.push_back(os.str());
}

std::vector<char> Partitioner::backwardNeeds(std::vector<NodeId>* missing) const
{
    std::vector<char> stop(cap_, 0), need(cap_, 0);
    for (NodeId id : saved_) stop[ix(id)] = 1;
    for (NodeId id : savedSym_) stop[ix(id)] = 1;
    for (NodeId id : c_.tangents) stop[ix(id)] = 1;
    std::vector<NodeId> stack;
    auto visit = [&](NodeId id) {
        if (id < 0 || ix(id) >= cap_ || stop[ix(id)] || need[ix(id)]) return;
        if (N(id).op == NodeOp::Placeholder) {  // a primal the saves do not provide
            if (missing) missing->push_back(id);
            return;
        }
        if (missing && ops_.isRandom(N(id)) && !c_.isRequiredBw(id)) {  // RNG is not replayed: save it
            missing->push_back(id);
            return;
        }
        need[ix(id)] = 1;
        stack.push_back(id);
    };
    for (NodeId id : c_.bwdOutputs) visit(id);
    for (NodeId id : g_.order())
        if (c_.isRequiredBw(id) && ops_.isSideEffect(N(id))) visit(id);
    while (!stack.empty()) {
        const NodeId id = stack.back();
        stack.pop_back();
        forEachInput(N(id), visit);
    }
    return need;
}

std::vector<char> Partitioner::forwardNeeds(const std::vector<char>& bwNeed) const
{
    std::vector<char> need(cap_, 0);
    std::vector<NodeId> stack;
    auto visit = [&](NodeId id) {
        if (id < 0 || ix(id) >= cap_ || need[ix(id)]) return;
        if (isTangent_[ix(id)] || c_.isRequiredBw(id))
            throw PassError("partition: the forward needs '" + N(id).name + "', which depends on the backward seed");
        need[ix(id)] = 1;
        stack.push_back(id);
    };
    for (NodeId id : c_.fwdOutputs) visit(id);
    for (NodeId id : saved_) visit(id);
    for (NodeId id : savedSym_) visit(id);
    // a side effect nobody reads stays in the forward (one the backward reads runs there)
    for (NodeId id : g_.order())
        if (!c_.isRequiredBw(id) && !bwNeed[ix(id)] && N(id).op != NodeOp::Output && ops_.isSideEffect(N(id)))
            visit(id);
    while (!stack.empty()) {
        const NodeId id = stack.back();
        stack.pop_back();
        forEachInput(N(id), visit);
    }
    return need;
}

// reordering_to_mimic_autograd_engine: from the first user of a tangent on, each node is
// preceded by just the not yet emitted (recomputed) nodes it needs.
std::vector<NodeId> Partitioner::reorderBackward(const std::vector<NodeId>& seq) const
{
    std::unordered_map<NodeId, size_t> pos;
    for (size_t i = 0; i < seq.size(); ++i) pos[seq[i]] = i;
    size_t first = seq.size();
    for (size_t i = 0; i < seq.size() && first == seq.size(); ++i)
        forEachInput(N(seq[i]), [&](NodeId in) {
            if (in >= 0 && ix(in) < cap_ && isTangent_[ix(in)]) first = std::min(first, i);
        });
    if (first == seq.size()) return seq;
    std::vector<char> emitted(seq.size(), 0);
    std::vector<NodeId> out;
    out.reserve(seq.size());
    auto insert = [&](size_t i0) {
        if (emitted[i0]) return;
        std::vector<size_t> todo{i0}, take;
        std::unordered_set<size_t> seen{i0};
        while (!todo.empty()) {
            const size_t i = todo.back();
            todo.pop_back();
            take.push_back(i);
            forEachInput(N(seq[i]), [&](NodeId in) {
                auto it = pos.find(in);
                if (it == pos.end() || emitted[it->second] || !seen.insert(it->second).second) return;
                todo.push_back(it->second);
            });
        }
        std::sort(take.begin(), take.end());
        for (size_t i : take) {
            emitted[i] = 1;
            out.push_back(seq[i]);
        }
    };
    for (size_t i = 0; i < first; ++i)
        if (ops_.isSideEffect(N(seq[i]))) insert(i);
    for (size_t i = first; i < seq.size(); ++i) insert(i);
    for (size_t i = 0; i < first; ++i) insert(i);  // anything left (not reached from later nodes)
    return out;
}

Node Partitioner::copyOf(const Node& src, const std::vector<NodeId>& env) const
{
    Node n = src;
    n.users.clear();
    auto remap = [&](NodeId& r) {
        const NodeId to = r >= 0 && ix(r) < env.size() ? env[ix(r)] : kNoNode;
        if (to == kNoNode)
            throw PassError("partition: internal error: '" + src.name + "' reads '" + N(r).name
                            + "', which is not in its graph");
        r = to;
    };
    for (auto& a : n.args) a.forEachNodeMut(remap);
    for (auto& kv : n.kwargs) kv.second.forEachNodeMut(remap);
    n.meta.provenance = src.name;
    return n;
}

PartitionResult Partitioner::run()
{
    g_.rebuildUsers();
    for (NodeId id : g_.order()) cap_ = std::max(cap_, ix(id) + 1);
    const PartitionMode requested = o_.mode;
    if (o_.mode != PartitionMode::SaveAll) prepareTags();

    c_ = classifyNodes(g_, o_.numFwdOutputs);
    for (auto& s : c_.notes) notes_.push_back(s);
    isTangent_.assign(cap_, 0);
    for (NodeId t : c_.tangents) isTangent_[ix(t)] = 1;
    users_.assign(cap_, {});
    for (NodeId id : g_.order())
        for (NodeId u : N(id).users)
            if (!isTangent_[ix(u)]) users_[ix(id)].push_back(u);

    PartitionResult r;
    r.numFwdOutputs = c_.fwdOutputs.size();
    if (c_.tangents.empty()) {
        notes_.push_back(
            "no backward: the graph has no tangent placeholder and no ones_like(loss) seed; default partition "
            "(everything in the forward, empty backward)");
        o_.mode = PartitionMode::SaveAll;
    }
    switch (o_.mode) {
    case PartitionMode::SaveAll: chooseSaveAll(); break;
    case PartitionMode::Tagged: chooseTagged(); break;
    case PartitionMode::MinCut: chooseMinCut(); break;
    }
    // dedupe, keep graph order
    auto normalise = [&](std::vector<NodeId>& v) {
        std::vector<char> in(cap_, 0);
        for (NodeId id : v) in[ix(id)] = 1;
        v.clear();
        for (NodeId id : g_.order())
            if (in[ix(id)]) v.push_back(id);
    };
    normalise(saved_);
    normalise(savedSym_);

    // the backward may need placeholders (primals are always available) or RNG values
    // nobody saved: save them and look again
    std::vector<char> bwNeed;
    std::vector<std::string> added;
    for (int round = 0;; ++round) {
        std::vector<NodeId> missing;
        bwNeed = backwardNeeds(&missing);
        if (missing.empty()) break;
        std::sort(missing.begin(), missing.end());
        missing.erase(std::unique(missing.begin(), missing.end()), missing.end());
        for (NodeId id : missing) {
            (isSym(N(id).val) ? savedSym_ : saved_).push_back(id);
            if (N(id).op != NodeOp::Placeholder) added.push_back(N(id).name);
        }
        normalise(saved_);
        normalise(savedSym_);
        if (round > static_cast<int>(cap_)) throw PassError("partition: internal error: saves do not converge");
    }
    if (!added.empty()) notes_.push_back("saved because RNG ops are not replayed in the backward: " + joinNames(added));
    // drop saves the backward does not read
    {
        std::vector<char> used(cap_, 0);
        for (NodeId id : g_.order())
            if (bwNeed[ix(id)])
                forEachInput(N(id), [&](NodeId in) {
                    if (in >= 0 && ix(in) < cap_) used[ix(in)] = 1;
                });
        for (NodeId id : c_.bwdOutputs)
            if (id != kNoNode) used[ix(id)] = 1;
        auto keepUsed = [&](std::vector<NodeId>& v) {
            v.erase(std::remove_if(v.begin(), v.end(), [&](NodeId id) { return !used[ix(id)]; }), v.end());
        };
        keepUsed(saved_);
        keepUsed(savedSym_);
    }
    const std::vector<char> fwNeed = forwardNeeds(bwNeed);

    // ---------------- forward graph
    Graph& fw = r.forward;
    Graph& bw = r.backward;
    for (Graph* out : {&fw, &bw}) {
        out->reserveNodes(g_.size() + 16);  // each holds at most the joint's nodes (+ seeds): no regrowth
        out->className = "GraphModule";
        out->signature = SignatureStyle::Flat;
        out->outputIsList = g_.outputIsList;
    }
    const std::vector<Arg> items = outputItems(g_);
    std::vector<NodeId> fenv(cap_, kNoNode);
    for (NodeId id : g_.order()) {
        const Node& n = N(id);
        if (n.op == NodeOp::Output) continue;
        if (n.op == NodeOp::Placeholder ? !isTangent_[ix(id)] : fwNeed[ix(id)] != 0)
            fenv[ix(id)] = fw.addNode(copyOf(n, fenv));
    }
    {
        std::vector<Arg> outs;
        for (size_t i = 0; i < c_.fwdOutputs.size(); ++i) {
            Arg a = items[i];
            a.forEachNodeMut([&](NodeId& x) { x = fenv.at(ix(x)); });
            outs.push_back(std::move(a));
        }
        for (NodeId id : saved_) outs.push_back(Arg::ofNode(fenv.at(ix(id))));
        for (NodeId id : savedSym_) outs.push_back(Arg::ofNode(fenv.at(ix(id))));
        Node o;
        o.op = NodeOp::Output;
        o.name = fw.uniqueName("output");
        o.target = "output";
        o.args.push_back(Arg::ofTuple(std::move(outs)));
        fw.addNode(std::move(o));
    }

    // ---------------- backward graph
    std::vector<NodeId> benv(cap_, kNoNode);
    auto placeholderFor = [&](const Node& src, const std::string& name) {
        Node p;
        p.op = NodeOp::Placeholder;
        p.name = name;
        p.target = name;
        p.val = src.val;
        p.meta = src.meta;
        p.meta.provenance = src.name;
        return bw.addNode(std::move(p));
    };
    for (NodeId id : savedSym_) benv[ix(id)] = placeholderFor(N(id), N(id).name);
    for (NodeId id : saved_) benv[ix(id)] = placeholderFor(N(id), N(id).name);
    int tangentNo = 0;
    std::vector<std::pair<std::string, std::string>> seedRenames;
    for (NodeId id : c_.tangents) {
        const Node& t = N(id);
        if (t.op == NodeOp::Placeholder) {
            benv[ix(id)] = bw.addNode(copyOf(t, benv));
            continue;
        }
        std::string name;
        do name = "tangents_" + std::to_string(++tangentNo);
        while (g_.findByName(name) != kNoNode || bw.findByName(name) != kNoNode);
        benv[ix(id)] = placeholderFor(t, name);
        seedRenames.emplace_back(t.name, name);
    }
    std::vector<NodeId> seq;
    for (NodeId id : g_.order())
        if (bwNeed[ix(id)]) seq.push_back(id);
    if (o_.reorderBackward) seq = reorderBackward(seq);
    for (NodeId id : seq) benv[ix(id)] = bw.addNode(copyOf(N(id), benv));
    {
        std::vector<Arg> outs;
        for (size_t i = c_.fwdOutputs.size(); i < items.size(); ++i) {
            Arg a = items[i];
            a.forEachNodeMut([&](NodeId& x) { x = benv.at(ix(x)); });
            outs.push_back(std::move(a));
        }
        Node o;
        o.op = NodeOp::Output;
        o.name = bw.uniqueName("output");
        o.target = "output";
        o.args.push_back(Arg::ofTuple(std::move(outs)));
        bw.addNode(std::move(o));
    }
    // nested graphs referenced by get_attr nodes
    for (Graph* out : {&fw, &bw}) {
        out->forEachNode([&](const Node& n) {
            if (n.op != NodeOp::GetAttr) return;
            auto it = g_.subgraphs.find(n.target);
            if (it != g_.subgraphs.end()) out->subgraphs[n.target] = std::make_shared<Graph>(it->second->clone());
        });
        out->rebuildUsers();
    }

    // ---------------- result, log
    for (NodeId id : saved_) {
        r.saved.push_back(N(id).name);
        r.savedBytes += knownBytesOrZero(N(id).val);
    }
    for (NodeId id : savedSym_) r.savedSymbols.push_back(N(id).name);
    for (NodeId id : g_.order())
        if (fwNeed[ix(id)] && bwNeed[ix(id)]) r.recomputed.push_back(N(id).name);
    r.banned = banned_;
    if (requested != o_.mode) r.notes.push_back(std::string("mode ") + modeName(requested) + " -> save_all");
    for (auto& s : notes_) r.notes.push_back(s);
    {
        std::ostringstream os;
        os << modeName(o_.mode) << ": " << r.saved.size() << " saved (" << r.savedBytes << " bytes)";
        if (!r.savedSymbols.empty()) os << " + " << r.savedSymbols.size() << " symbol(s)";
        os << ", " << r.recomputed.size() << " recomputed; forward " << fw.size() << " nodes, backward " << bw.size()
           << " nodes";
        r.notes.insert(r.notes.begin(), os.str());
    }
    if (ctx_) {
        const std::string role = ctx_->graphRole;
        ctx_->graphRole = "backward";
        for (NodeId id : savedSym_) ctx_->added(N(id).name, N(id).name);
        for (NodeId id : saved_) ctx_->added(N(id).name, N(id).name);
        for (auto& [from, to] : seedRenames) ctx_->added(to, from);
        for (const auto& name : r.recomputed) ctx_->added(name, name);
        ctx_->graphRole = role;
        for (NodeId id : g_.order()) {
            const Node& n = N(id);
            if (n.op == NodeOp::Output || n.op == NodeOp::Placeholder) continue;
            if (!fwNeed[ix(id)] && !bwNeed[ix(id)]) ctx_->removed(n.name);
        }
        for (const auto& s : r.notes) ctx_->note(s);
        ctx_->log.stats = r.stats();
        ctx_->log.stats["mode"] = modeName(o_.mode);
    }
    return r;
}

// ------------------------------------------------------------------ the pass

class PartitionPass : public Pass
{
public:
    std::string name() const override { return "partition"; }
    std::string summary() const override
    {
        return "split a joint graph into forward and backward graphs (save_all, tagged or mincut saves)";
    }
    std::string description() const override
    {
        return "Splits one joint training graph (AOT primals/tangents, or fwd+loss+bwd seeded by ones_like(loss)) into "
               "a 'forward' graph (inputs -> forward outputs + saved values) and a 'backward' graph (saved values + "
               "tangents -> gradients). The ones_like(loss) seed becomes the backward placeholder tangents_1. "
               "mode=save_all saves every forward value the backward reads (PyTorch's default_partition); "
               "mode=tagged saves only MUST_SAVE / custom.ap_must_save nodes, placeholders and symbols and recomputes "
               "the rest (AutoParallel's replay partitioner); mode=mincut chooses the saves by a minimum cut over "
               "memory sizes with PyTorch's bans (min_cut_rematerialization_partition, budget 1.0). A graph without "
               "a backward gets the default partition (empty backward) and a note.";
    }
    std::vector<PassOption> options() const override
    {
        return {
            {"mode", OptionType::Enum, "save_all", {"save_all", "tagged", "mincut"}, "how the saved values are chosen"},
            {"num_fwd_outputs",
             OptionType::Int,
             "-1",
             {},
             "forward outputs among the joint outputs (-1: the items before the first gradient)"},
            {"aggressive",
             OptionType::Bool,
             "false",
             {},
             "mincut: turn off the used-far-apart, long-chain, materialized-backward and allowlist bans"},
            {"ban_used_far_apart",
             OptionType::Bool,
             "true",
             {},
             "mincut: ban fusible users far after an unfusible one"},
            {"ban_long_fusible_chains",
             OptionType::Bool,
             "true",
             {},
             "mincut: ban the end of fusible chains longer than 100 nodes"},
            {"ban_materialized_backward",
             OptionType::Bool,
             "true",
             {},
             "mincut: ban values the backward materializes anyway"},
            {"ban_not_in_allowlist",
             OptionType::Bool,
             "true",
             {},
             "mincut: ban ops outside the recomputable list (false: ban only random and compute-intensive ops)"},
            {"ban_reduction",
             OptionType::Bool,
             "true",
             {},
             "mincut: ban reductions (output 4x smaller than the inputs)"},
            {"recompute_views", OptionType::Bool, "false", {}, "mincut: never save views (always recompute them)"},
            {"cleanup_tags",
             OptionType::Bool,
             "true",
             {},
             "tagged/mincut: cleanup_recompute_tags first (AC region boundaries -> MUST_SAVE)"},
            {"force_save_collectives",
             OptionType::Bool,
             "true",
             {},
             "tagged/mincut: untagged collectives -> MUST_SAVE"},
            {"reorder_backward",
             OptionType::Bool,
             "true",
             {},
             "place recomputation right before its first use in the backward"},
        };
    }

    void run(Graph&, const PassOptions&, PassContext&) const override
    {
        throw PassError(
            "partition turns one joint graph into a forward and a backward graph: it runs on a whole step (runAll)");
    }

    std::vector<RoleGraph> runAll(std::vector<RoleGraph> graphs, const PassOptions& opts,
                                  PassContext& ctx) const override
    {
        if (graphs.size() != 1 || (graphs[0].role != "" && graphs[0].role != "joint")) {
            std::string roles;
            for (const auto& g : graphs) roles += (roles.empty() ? "'" : ", '") + g.role + "'";
            throw PassError("partition needs exactly one joint graph (role '' or 'joint'); this step has "
                            + std::to_string(graphs.size()) + " graph(s)" + (roles.empty() ? "" : ": " + roles));
        }
        PartitionOptions o;
        const std::string& mode = opts.getString("mode");
        o.mode = mode == "tagged" ? PartitionMode::Tagged
            : mode == "mincut"    ? PartitionMode::MinCut
                                  : PartitionMode::SaveAll;
        o.numFwdOutputs = static_cast<int>(opts.getInt("num_fwd_outputs"));
        o.aggressive = opts.getBool("aggressive");
        o.banUsedFarApart = opts.getBool("ban_used_far_apart");
        o.banLongFusibleChains = opts.getBool("ban_long_fusible_chains");
        o.banMaterializedBackward = opts.getBool("ban_materialized_backward");
        o.banNotInAllowlist = opts.getBool("ban_not_in_allowlist");
        o.banReduction = opts.getBool("ban_reduction");
        o.recomputeViews = opts.getBool("recompute_views");
        o.cleanupTags = opts.getBool("cleanup_tags");
        o.forceSaveCollectives = opts.getBool("force_save_collectives");
        o.reorderBackward = opts.getBool("reorder_backward");
        o.registry = &ctx.registry;
        // runAll owns its input: the partitioner works on it directly, no copy
        Partitioner p(std::move(graphs[0].graph), o, &ctx);
        PartitionResult r = p.run();
        std::vector<RoleGraph> out(2);
        out[0].role = "forward";
        out[0].graph = std::move(r.forward);
        out[1].role = "backward";
        out[1].graph = std::move(r.backward);
        return out;
    }
};

}  // namespace

PartitionResult partitionJointGraph(const Graph& joint, const PartitionOptions& opts, PassContext* ctx)
{
    Partitioner p(joint.clone(), opts, ctx);
    return p.run();
}

std::unique_ptr<Pass> makePartitionPass() { return std::make_unique<PartitionPass>(); }

}  // namespace fxl
