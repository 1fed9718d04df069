#include "core/analysis/memory_timeline_builder.hpp"

#include "core/ops/custom_ops.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "core/analysis/phases.hpp"
#include "core/ops/custom_ops.hpp"
#include "core/ops/op_registry.hpp"
#include "core/ops/shape_prop.hpp"

namespace fxl {

namespace {

using StorageList = std::vector<int32_t>;

void appendUnique(StorageList& dst, const StorageList& src)
{
    for (int32_t s : src)
        if (std::find(dst.begin(), dst.end(), s) == dst.end()) dst.push_back(s);
}

// The argument a schema argument index refers to in a node (positional or keyword), or null.
const Arg* argAt(const Node& n, const Schema& s, size_t idx)
{
    if (idx >= s.args.size()) return nullptr;
    if (!s.args[idx].kwargOnly) {
        size_t pos = 0;
        for (size_t k = 0; k < idx; ++k)
            if (!s.args[k].kwargOnly) ++pos;
        if (pos < n.args.size()) return &n.args[pos];
    }
    return n.kwarg(s.args[idx].name);
}

const Arg* firstNodeArg(const Node& n)
{
    for (const auto& a : n.args)
        if (a.isNode()) return &a;
    return nullptr;
}

bool isContiguous(const TensorMeta& t)
{
    if (!t.hasStrides()) return true;  // unknown strides: annotation without strides is contiguous by FX's default
    auto expect = contiguousStrides(t.sizes);
    if (expect.size() != t.strides.size()) return false;
    for (size_t k = 0; k < expect.size(); ++k) {
        auto sz = t.sizes[k].maybeValue();
        if (sz && *sz == 1) continue;  // stride of a size-1 dim does not matter
        if (!(expect[k] == t.strides[k])) return false;
    }
    return true;
}

class Builder
{
public:
    Builder(const Graph& g, const MemoryOptions& o, MemoryTimeline& t)
        : g_(g)
        , o_(o)
        , t_(t)
        , reg_(o.registry ? *o.registry : OpRegistry::instance())
    {
        NodeId mx = -1;
        for (NodeId id : g.order()) mx = std::max(mx, id);
        span_ = static_cast<size_t>(mx + 1);
        values_.resize(span_);
        elems_.resize(span_);
        step_.assign(span_, -1);
        phase_.assign(span_, StepPhase::Forward);
        seed_.assign(span_, 0);
    }

    void run()
    {
        const auto& order = g_.order();
        t_.steps.resize(order.size());
        t_.names.resize(order.size());
        for (size_t k = 0; k < order.size(); ++k) step_[static_cast<size_t>(order[k])] = static_cast<int>(k);
        classifyPhases();
        collectExtracted();
        for (size_t k = 0; k < order.size(); ++k) define(order[k], static_cast<int>(k));
        computeFrees();
        accumulate();
        savedValues();
    }

private:
    const Graph& g_;
    const MemoryOptions& o_;
    MemoryTimeline& t_;
    const OpRegistry& reg_;
    size_t span_ = 0;
    std::vector<StorageList> values_;  // storages a node's value refers to
    std::vector<std::vector<StorageList>> elems_;  // per tuple element, when known
    std::vector<int> step_;  // node id -> step
    std::vector<StepPhase> phase_;
    PhaseInfo phases_;
    std::vector<uint8_t> seed_;  // tangent placeholders and loss seeds
    std::unordered_set<std::string> unknownOps_;
    std::unordered_map<NodeId, std::map<int64_t, const ValueMeta*>> extracted_;  // getitem index -> its val
    std::unordered_map<const Graph*, int64_t> bodyPeaks_;  // R10

    void collectExtracted()
    {
        for (NodeId id : g_.order()) {
            const Node& n = g_.node(id);
            if (!n.isGetitem()) continue;
            if (n.args.size() < 2 || !n.args[0].isNode() || n.args[1].kind != Arg::Kind::Int || n.args[1].i < 0
                || n.args[1].i > 4096 || !valid(n.args[0].node) || n.val.kind == ValueMeta::Kind::Unknown)
                continue;
            if (g_.node(n.args[0].node).val.kind != ValueMeta::Kind::Unknown) continue;
            extracted_[n.args[0].node].emplace(n.args[1].i, &n.val);
        }
    }

    bool valid(NodeId id) const
    {
        return id >= 0 && static_cast<size_t>(id) < span_ && step_[static_cast<size_t>(id)] >= 0;
    }
    const StorageList& valueOf(NodeId id) const
    {
        static const StorageList kNone;
        return valid(id) ? values_[static_cast<size_t>(id)] : kNone;
    }

    // --- R8
    // The phases of core/analysis/phases.hpp, the one definition every verb and pass uses.
    void classifyPhases()
    {
        PhaseOptions po;
        po.useMeta = o_.usePhaseMeta;
        phases_ = fxl::classifyPhases(g_, po);
        for (NodeId id : g_.order()) {
            StepPhase p = StepPhase::Forward;
            switch (phases_.of(id)) {
            case NodePhase::Input: p = StepPhase::Input; break;
            case NodePhase::Forward: p = StepPhase::Forward; break;
            case NodePhase::Backward: p = StepPhase::Backward; break;
            case NodePhase::Output: p = StepPhase::Output; break;
            }
            phase_[static_cast<size_t>(id)] = p;
        }
        for (NodeId s : phases_.seeds)
            if (valid(s)) seed_[static_cast<size_t>(s)] = 1;
    }

    bool isBackward(NodeId id) const
    {
        if (!valid(id)) return false;
        const Node& n = g_.node(id);
        return phase_[static_cast<size_t>(id)] == StepPhase::Backward && n.op != NodeOp::Placeholder
            && n.op != NodeOp::GetAttr;
    }

    // --- R2
    int32_t newStorage(NodeId id, int element, const TensorMeta& tm, bool input, int step)
    {
        StorageInfo s;
        s.node = id;
        s.element = element;
        s.allocStep = step;
        s.input = input;
        int64_t b = tm.bytesHint();
        if (b < 0) {
            const std::string& nm = g_.node(id).name;
            t_.unknownSizes.push_back(element >= 0 ? nm + "[" + std::to_string(element) + "]" : nm);
            b = 0;
        }
        s.bytes = (input && !o_.countInputs) ? 0 : b;
        t_.storages.push_back(s);
        return static_cast<int32_t>(t_.storages.size() - 1);
    }

    // Allocates every tensor of `v` (nested tuples flattened, all numbered `element`).
    StorageList allocate(NodeId id, const ValueMeta& v, bool input, int step, int element)
    {
        StorageList out;
        if (v.kind == ValueMeta::Kind::Tensor) {
            out.push_back(newStorage(id, element, v.tensor, input, step));
        } else if (v.kind == ValueMeta::Kind::Tuple) {
            for (const auto& e : v.elems) appendUnique(out, allocate(id, e, input, step, element));
        } else if (v.kind == ValueMeta::Kind::Unknown) {
            const std::string& nm = g_.node(id).name;
            t_.unknownSizes.push_back(element >= 0 ? nm + "[" + std::to_string(element) + "]" : nm);
        }
        return out;
    }

    // The body of a single-body higher-order op (invoke_subgraph, tag_activation_checkpoint,
    // wrap_with_set_grad_enabled, wrap_with_autocast) and the index of its first operand; null
    // for any other node.
    const Graph* singleBody(const Node& n, size_t& firstOperand) const
    {
        if (n.op != NodeOp::CallFunction || n.target.rfind("higher_order.", 0) != 0) return nullptr;
        const std::string_view hop = std::string_view(n.target).substr(13);
        size_t bodyArg;
        if (hop == "invoke_subgraph")
            bodyArg = 0, firstOperand = 2;
        else if (hop == "tag_activation_checkpoint")
            bodyArg = 0, firstOperand = 1;
        else if (hop == "wrap_with_set_grad_enabled")
            bodyArg = 1, firstOperand = 2;
        else if (hop == "wrap_with_autocast")
            bodyArg = 4, firstOperand = 5;
        else
            return nullptr;
        if (n.args.size() <= bodyArg || !n.args[bodyArg].isNode() || !valid(n.args[bodyArg].node)) return nullptr;
        const Node& attr = g_.node(n.args[bodyArg].node);
        const Graph* body = attr.op == NodeOp::GetAttr ? g_.subgraph(attr.target) : nullptr;
        return body && body->outputNode() != kNoNode ? body : nullptr;
    }

    // R10: the peak of a single-body HOP's body, its operands not counted (they are the
    // parent's live values), computed once per body.
    int64_t bodyPeak(const Node& n)
    {
        size_t firstOperand = 0;
        const Graph* body = singleBody(n, firstOperand);
        if (!body) return decompositionPeak(n);
        auto it = bodyPeaks_.find(body);
        if (it != bodyPeaks_.end()) return it->second;
        MemoryOptions bo;
        bo.countInputs = false;
        bo.usePhaseMeta = o_.usePhaseMeta;
        bo.registry = &reg_;
        const int64_t peak = computeMemoryTimeline(*body, bo).peakBytes;
        bodyPeaks_[body] = peak;
        return peak;
    }

    // R10 for a custom operator of an ops file that runs as a decomposition: the peak of the
    // decomposition instantiated with this call's metas (its temporaries and outputs), its
    // inputs not counted. 0 for any other node, or one whose decomposition does not propagate.
    int64_t decompositionPeak(const Node& n) const
    {
        if (n.op != NodeOp::CallFunction) return 0;
        const OpInfo* op = reg_.find(OpRegistry::normalizeTarget(n.target));
        // (a built-in operator given a body runs its kernel where there is one: not counted)
        if (!op || !op->custom || !op->custom->decomposition || op->tsvLine > 0) return 0;
        static thread_local int depth = 0;  // decompositions calling declared ops nest
        if (depth >= 32) return 0;
        struct Enter
        {
            Enter() { ++depth; }
            ~Enter() { --depth; }
        } enter;
        MetaCall call;
        call.node = &n;
        call.graph = &g_;
        call.op = op;
        call.metaOf = [this](NodeId id) -> const ValueMeta& { return g_.node(id).val; };
        if (reg_.bind(*op, n, call.bound)) return 0;
        try {
            const Graph body = instantiateDecomposition(*op, *op->custom, call);
            MemoryOptions bo;
            bo.countInputs = false;
            bo.usePhaseMeta = o_.usePhaseMeta;
            bo.registry = &reg_;
            return computeMemoryTimeline(body, bo).peakBytes;
        } catch (const MetaError&) {
            return 0;
        }
    }

    // Output elements of a single-body higher-order op that are operands passed through (R3):
    // element index -> the operand's storages. Empty for any other node.
    std::map<int64_t, StorageList> hopPassThrough(const Node& n) const
    {
        std::map<int64_t, StorageList> out;
        size_t firstOperand = 0;
        const Graph* body = singleBody(n, firstOperand);
        if (!body) return out;
        std::vector<NodeId> params = body->placeholders();
        const Node& bout = body->node(body->outputNode());
        const std::vector<Arg>* items = &bout.args;
        if (bout.args.size() == 1 && bout.args[0].isSequence()) items = &bout.args[0].items;
        for (size_t k = 0; k < items->size(); ++k) {
            const Arg& it = (*items)[k];
            if (!it.isNode()) continue;
            auto pos = std::find(params.begin(), params.end(), it.node);
            if (pos == params.end()) continue;
            const size_t operand = firstOperand + static_cast<size_t>(pos - params.begin());
            if (operand < n.args.size() && n.args[operand].isNode())
                out[static_cast<int64_t>(k)] = valueOf(n.args[operand].node);
        }
        return out;
    }

    void allocateValue(NodeId id, const Node& n, bool input, int step)
    {
        const std::map<int64_t, StorageList> passed = input ? std::map<int64_t, StorageList>{} : hopPassThrough(n);
        if (!passed.empty()) {
            allocateHopValue(id, n, step, passed);
            return;
        }
        auto& vs = values_[static_cast<size_t>(id)];
        if (n.val.kind == ValueMeta::Kind::Unknown) {
            // flex_attention recorded without its tuple meta: its value follows from its
            // operands' (its logsumexp is allocated even when no getitem reads it)
            if (const std::optional<ValueMeta> flex = flexAttentionMeta(g_, n)) {
                auto& es = elems_[static_cast<size_t>(id)];
                for (size_t k = 0; k < flex->elems.size(); ++k) {
                    StorageList sl = allocate(id, flex->elems[k], input, step, static_cast<int>(k));
                    appendUnique(vs, sl);
                    es.push_back(std::move(sl));
                }
                return;
            }
            // a multi-output node recorded without its tuple meta: the getitems tell (R2)
            auto it = extracted_.find(id);
            if (it != extracted_.end()) {
                auto& es = elems_[static_cast<size_t>(id)];
                es.resize(static_cast<size_t>(it->second.rbegin()->first) + 1);
                for (const auto& [index, meta] : it->second) {
                    StorageList sl = allocate(id, *meta, input, step, static_cast<int>(index));
                    appendUnique(vs, sl);
                    es[static_cast<size_t>(index)] = std::move(sl);
                }
                return;
            }
        }
        if (n.val.kind != ValueMeta::Kind::Tuple) {
            vs = allocate(id, n.val, input, step, -1);
            return;
        }
        auto& es = elems_[static_cast<size_t>(id)];
        for (size_t k = 0; k < n.val.elems.size(); ++k) {
            StorageList sl = allocate(id, n.val.elems[k], input, step, static_cast<int>(k));
            appendUnique(vs, sl);
            es.push_back(std::move(sl));
        }
    }

    // allocateValue for a higher-order op that passes some operands through: those elements
    // share the operands' storages, the others allocate.
    void allocateHopValue(NodeId id, const Node& n, int step, const std::map<int64_t, StorageList>& passed)
    {
        auto& vs = values_[static_cast<size_t>(id)];
        auto& es = elems_[static_cast<size_t>(id)];
        std::vector<const ValueMeta*> metas;  // by element (nullptr: not known)
        if (n.val.kind == ValueMeta::Kind::Tuple) {
            for (const auto& e : n.val.elems) metas.push_back(&e);
        } else if (auto it = extracted_.find(id); it != extracted_.end()) {
            metas.assign(static_cast<size_t>(it->second.rbegin()->first) + 1, nullptr);
            for (const auto& [index, meta] : it->second) metas[static_cast<size_t>(index)] = meta;
        }
        const size_t count =
            std::max(metas.size(), passed.empty() ? size_t(0) : static_cast<size_t>(passed.rbegin()->first) + 1);
        es.assign(count, StorageList{});
        for (size_t k = 0; k < count; ++k) {
            auto p = passed.find(static_cast<int64_t>(k));
            if (p != passed.end())
                es[k] = p->second;
            else if (k < metas.size() && metas[k])
                es[k] = allocate(id, *metas[k], false, step, static_cast<int>(k));
            appendUnique(vs, es[k]);
        }
    }

    static size_t tensorCount(const ValueMeta& v)
    {
        if (v.kind == ValueMeta::Kind::Tensor) return 1;
        size_t c = 0;
        if (v.kind == ValueMeta::Kind::Tuple)
            for (const auto& e : v.elems) c += tensorCount(e);
        return c;
    }

    // A getitem whose value is itself a tuple (an element of a nested tuple): its own
    // elements are consecutive runs of its storages, in the order allocate() flattened them,
    // so that a further getitem shares only its element's storages (R3).
    void splitNestedTuple(NodeId id, const Node& n)
    {
        const StorageList& vs = values_[static_cast<size_t>(id)];
        if (n.val.kind != ValueMeta::Kind::Tuple || vs.size() != tensorCount(n.val)) return;
        auto& es = elems_[static_cast<size_t>(id)];
        es.clear();
        size_t at = 0;
        for (const auto& e : n.val.elems) {
            const size_t c = tensorCount(e);
            es.emplace_back(vs.begin() + static_cast<std::ptrdiff_t>(at),
                            vs.begin() + static_cast<std::ptrdiff_t>(at + c));
            at += c;
        }
    }

    // Storages of the node an alias reads, by schema (R3).
    StorageList aliasSources(const Node& n, const OpInfo& op) const
    {
        StorageList out;
        const Schema& s = op.schema;
        if (op.has(kTraitInplace)) {
            for (size_t k = 0; k < s.args.size(); ++k)
                if (s.args[k].alias && s.args[k].alias->isWrite)
                    if (const Arg* a = argAt(n, s, k)) a->forEachNode([&](NodeId r) { appendUnique(out, valueOf(r)); });
            return out;
        }
        std::string set;
        for (const auto& r : s.returns)
            if (r.alias && !r.alias->isWrite) {
                set = r.alias->set;
                break;
            }
        const Arg* src = nullptr;
        if (!set.empty())
            for (size_t k = 0; k < s.args.size() && !src; ++k)
                if (s.args[k].alias && s.args[k].alias->set == set) src = argAt(n, s, k);
        if (!src) src = firstNodeArg(n);
        if (src) src->forEachNode([&](NodeId r) { appendUnique(out, valueOf(r)); });
        return out;
    }

    // view-or-copy ops alias only when nothing has to be copied (R3).
    bool viewOrCopyAliases(const Node& n, const OpInfo& op) const
    {
        const Arg* src = firstNodeArg(n);
        if (!src || !valid(src->node)) return false;
        const ValueMeta& in = g_.node(src->node).val;
        if (!in.isTensor() || !n.val.isTensor()) return false;
        if (in.tensor.dtype != n.val.tensor.dtype) return false;
        if (op.schema.name == "to") {
            const Arg* copy = n.kwarg("copy");
            int ci = op.schema.argIndex("copy");
            if (!copy && ci >= 0) copy = argAt(n, op.schema, static_cast<size_t>(ci));
            return !(copy && copy->kind == Arg::Kind::Bool && copy->b);
        }
        return isContiguous(in.tensor);
    }

    // Tensor methods of Dynamo-level graphs (x.view(...), x.add_(y)) alias as the aten op they
    // stand for (R3): views share self's storages, view-or-copy methods share them when they
    // would not copy, in-place methods (name ending in '_') share self's. False: allocate.
    // Also for torch.X functions of the same names (torch.transpose(x, 0, 1)).
    bool methodAliases(NodeId id, const Node& n, std::string_view m)
    {
        if (n.args.empty() || !n.args[0].isNode()) return false;
        auto& vs = values_[static_cast<size_t>(id)];
        if (m.size() > 1 && m.back() == '_' && m.front() != '_') {  // add_, copy_, mul_, ...
            vs = valueOf(n.args[0].node);
            return true;
        }
        static const std::unordered_map<std::string_view, std::string_view> kAsOp = {
            {"view", "aten.view.default"},
            {"view_as", "aten.view_as.default"},
            {"transpose", "aten.transpose.int"},
            {"permute", "aten.permute.default"},
            {"t", "aten.t.default"},
            {"unsqueeze", "aten.unsqueeze.default"},
            {"squeeze", "aten.squeeze.default"},
            {"expand", "aten.expand.default"},
            {"expand_as", "aten.expand_as.default"},
            {"detach", "aten.detach.default"},
            {"narrow", "aten.narrow.default"},
            {"select", "aten.select.int"},
            {"reshape", "aten.reshape.default"},
            {"reshape_as", "aten.reshape.default"},
            {"flatten", "aten.reshape.default"},
            {"contiguous", "aten.contiguous.default"},
            {"to", "aten.to.dtype"},
            {"type_as", "aten.to.dtype"},
            {"float", "aten.to.dtype"},
            {"half", "aten.to.dtype"},
            {"double", "aten.to.dtype"},
            {"bfloat16", "aten.to.dtype"},
            {"int", "aten.to.dtype"},
            {"long", "aten.to.dtype"},
            {"bool", "aten.to.dtype"},
        };
        auto it = kAsOp.find(m);
        if (it == kAsOp.end()) return false;
        const OpInfo* op = reg_.find(it->second);
        if (!op) return false;
        const bool viewOrCopy = op->kind.find("view-or-copy") != std::string::npos;
        if (viewOrCopy && !viewOrCopyAliases(n, *op)) return false;
        vs = valueOf(n.args[0].node);
        return true;
    }

    static bool isInplaceOperator(std::string_view t)
    {
        if (t.rfind("operator.", 0) == 0)
            t.remove_prefix(9);
        else if (t.rfind("_operator.", 0) == 0)
            t.remove_prefix(10);
        else
            return false;
        static const std::unordered_set<std::string_view> kInplace = {
            "iadd",    "isub", "imul", "itruediv", "ifloordiv", "imod",   "ipow",
            "imatmul", "iand", "ior",  "ixor",     "ilshift",   "irshift"};
        return kInplace.count(t) > 0;
    }

    void define(NodeId id, int step)
    {
        const Node& n = g_.node(id);
        TimelineStep& st = t_.steps[static_cast<size_t>(step)];
        st.node = id;
        st.phase = phase_[static_cast<size_t>(id)];
        t_.names[static_cast<size_t>(step)] = n.name;
        auto& vs = values_[static_cast<size_t>(id)];
        switch (n.op) {
        case NodeOp::Placeholder:
        case NodeOp::GetAttr:
            // a nested graph (the body a higher-order op names) is no tensor
            if (n.val.kind == ValueMeta::Kind::Unknown && g_.subgraph(n.target)) return;
            allocateValue(id, n, true, step);
            return;
        case NodeOp::Output: return;
        case NodeOp::CallFunction: break;
        case NodeOp::CallMethod:
            if (!methodAliases(id, n, n.target)) allocateValue(id, n, false, step);
            return;
        default:  // call_module: opaque, allocate
            allocateValue(id, n, false, step);
            return;
        }
        if (n.isGetitem()) {
            if (n.args.size() >= 2 && n.args[0].isNode() && valid(n.args[0].node)) {
                const auto& es = elems_[static_cast<size_t>(n.args[0].node)];
                if (n.args[1].kind == Arg::Kind::Int && n.args[1].i >= 0
                    && static_cast<size_t>(n.args[1].i) < es.size())
                    vs = es[static_cast<size_t>(n.args[1].i)];
                else
                    vs = valueOf(n.args[0].node);
            }
            splitNestedTuple(id, n);
            return;
        }
        if (isInplaceOperator(n.target) && !n.args.empty() && n.args[0].isNode()) {  // x += y on tensors
            vs = valueOf(n.args[0].node);
            return;
        }
        const OpInfo* op = reg_.find(n.target);
        if (!op && n.target.rfind("torch.", 0) == 0 && methodAliases(id, n, std::string_view(n.target).substr(6)))
            return;
        if (!op) {
            if (unknownOps_.insert(n.target).second)
                t_.notes.push_back("unknown operator " + n.target + ": its outputs count as new allocations");
            allocateValue(id, n, false, step);
            return;
        }
        const bool viewOrCopy = op->kind.find("view-or-copy") != std::string::npos;
        bool alias = op->has(kTraitInplace) || op->has(kTraitWait)
            || (!viewOrCopy && (op->has(kTraitView) || op->has(kTraitViewList) || op->has(kTraitAliasNoAnnot)))
            || (viewOrCopy && viewOrCopyAliases(n, *op));
        if (!alias) {
            allocateValue(id, n, false, step);
            return;
        }
        vs = aliasSources(n, *op);
        if (op->has(kTraitViewList) && n.val.kind == ValueMeta::Kind::Tuple)
            elems_[static_cast<size_t>(id)].assign(n.val.elems.size(), vs);
    }

    // --- R5 / R6
    void computeFrees()
    {
        auto touch = [&](const StorageList& sl, int step) {
            for (int32_t s : sl) {
                auto& st = t_.storages[static_cast<size_t>(s)];
                st.freeStep = std::max(st.freeStep, step);
            }
        };
        NodeId out = kNoNode;
        for (NodeId id : g_.order()) {
            const Node& n = g_.node(id);
            int step = step_[static_cast<size_t>(id)];
            touch(values_[static_cast<size_t>(id)], step);
            forEachInput(n, [&](NodeId in) { touch(valueOf(in), step); });
            if (n.op == NodeOp::Output) out = id;
        }
        if (out != kNoNode)
            forEachInput(g_.node(out), [&](NodeId in) {
                for (int32_t s : valueOf(in)) t_.storages[static_cast<size_t>(s)].output = true;
            });
        for (auto& s : t_.storages)
            if (s.input || s.output) s.freeStep = -1;
    }

    // --- R7
    void accumulate()
    {
        for (const auto& s : t_.storages) {
            t_.steps[static_cast<size_t>(s.allocStep)].allocatedBytes += s.bytes;
            if (s.freeStep >= 0) t_.steps[static_cast<size_t>(s.freeStep)].freedBytes += s.bytes;
            if (s.input)
                t_.inputBytes += s.bytes;
            else if (s.output)
                t_.outputBytes += s.bytes;
        }
        int64_t live = 0;
        for (size_t k = 0; k < t_.steps.size(); ++k) {
            auto& st = t_.steps[k];
            st.bodyPeakBytes = bodyPeak(g_.node(g_.order()[k]));
            live += st.allocatedBytes;
            // R10: while its body runs, a HOP holds the body's peak instead of its outputs
            st.liveBytes = live + std::max<int64_t>(0, st.bodyPeakBytes - st.allocatedBytes);
            live -= st.freedBytes;
            st.liveAfterBytes = live;
            if (t_.peakStep < 0 || st.liveBytes > t_.peakBytes) {
                t_.peakBytes = st.liveBytes;
                t_.peakStep = static_cast<int>(k);
            }
        }
        t_.finalBytes = live;
        if (t_.peakStep >= 0) {
            for (size_t s = 0; s < t_.storages.size(); ++s) {
                const auto& si = t_.storages[s];
                if (si.allocStep <= t_.peakStep && (si.freeStep < 0 || si.freeStep >= t_.peakStep) && si.bytes > 0)
                    t_.liveAtPeak.push_back(static_cast<int>(s));
            }
            std::stable_sort(t_.liveAtPeak.begin(), t_.liveAtPeak.end(), [&](int x, int y) {
                return t_.storages[static_cast<size_t>(x)].bytes > t_.storages[static_cast<size_t>(y)].bytes;
            });
        }
    }

    // --- R9
    void addSaved(NodeId id, std::vector<uint8_t>& isSaved)
    {
        if (!valid(id) || isSaved[static_cast<size_t>(id)]) return;
        const Node& n = g_.node(id);
        // a parameter or input the backward reads is saved too (listed apart: resident, no bytes);
        // tangents and loss seeds are the backward's own inputs, constants are in both graphs
        if (n.op == NodeOp::GetAttr || n.op == NodeOp::Output || seed_[static_cast<size_t>(id)]) return;
        isSaved[static_cast<size_t>(id)] = 1;
    }

    void savedValues()
    {
        const auto& order = g_.order();
        std::vector<uint8_t> isSaved(span_, 0);
        for (size_t k = 0; k < order.size(); ++k)
            if (isBackward(order[k])) {
                t_.boundaryStep = static_cast<int>(k);
                t_.boundaryRule = "first backward node";
                break;
            }
        if (t_.boundaryStep >= 0) {
            // The values a partition of this graph saves: what the forward computes for its
            // outputs (or takes as inputs) and the backward reads. Forward work only the
            // backward uses (a detach kept for autograd) is the backward's, recomputed there;
            // a seed reads only its input's shape.
            // An element of a forward tuple is a forward value (the partition saves a multi-output
            // node through its getitems).
            // (A graph that returns no forward value has no required_fw: its forward phase is
            // the forward side.)
            bool anyNeeded = false;
            for (NodeId id : order)
                anyNeeded =
                    anyNeeded || (phase_[static_cast<size_t>(id)] == StepPhase::Forward && phases_.isForwardNeeded(id));
            std::function<bool(NodeId)> forwardSide = [&](NodeId id) {
                const StepPhase p = phase_[static_cast<size_t>(id)];
                if (p == StepPhase::Input || (p == StepPhase::Forward && (!anyNeeded || phases_.isForwardNeeded(id))))
                    return true;
                const Node& n = g_.node(id);
                return p == StepPhase::Forward && n.isGetitem() && !n.args.empty() && n.args[0].isNode()
                    && valid(n.args[0].node) && forwardSide(n.args[0].node);
            };
            // Only what the outputs need reads saved values (dead work is in neither graph).
            std::vector<uint8_t> needed(span_, 0);
            std::vector<NodeId> stack;
            if (g_.outputNode() != kNoNode) stack.push_back(g_.outputNode());
            while (!stack.empty()) {
                const NodeId id = stack.back();
                stack.pop_back();
                if (!valid(id) || needed[static_cast<size_t>(id)]) continue;
                needed[static_cast<size_t>(id)] = 1;
                forEachInput(g_.node(id), [&](NodeId in) { stack.push_back(in); });
            }
            for (NodeId id : order) {
                const Node& n = g_.node(id);
                if (n.op == NodeOp::Placeholder || n.op == NodeOp::GetAttr || n.op == NodeOp::Output
                    || seed_[static_cast<size_t>(id)] || !needed[static_cast<size_t>(id)] || forwardSide(id))
                    continue;
                forEachInput(n, [&](NodeId in) {
                    if (valid(in) && forwardSide(in)) addSaved(in, isSaved);
                });
            }
        } else if (std::optional<size_t> fo = o_.forwardOutputs ? o_.forwardOutputs : savedOutputsStart(g_)) {
            t_.boundaryRule = o_.forwardOutputs ? "forward outputs given" : "output descriptors";
            NodeId out = g_.outputNode();
            if (out != kNoNode && g_.alive(out)) {
                t_.boundaryStep = step_[static_cast<size_t>(out)];
                const Node& on = g_.node(out);
                // return (a, b, ...) / return [a, b, ...]: one output list
                const std::vector<Arg>* items = &on.args;
                if (on.args.size() == 1 && on.args[0].isSequence()) items = &on.args[0].items;
                for (size_t k = *fo; k < items->size(); ++k)
                    (*items)[k].forEachNode([&](NodeId in) { addSaved(in, isSaved); });
            }
        }
        if (t_.boundaryStep > 0)
            t_.liveAtBoundaryBytes = t_.steps[static_cast<size_t>(t_.boundaryStep - 1)].liveAfterBytes;
        std::vector<uint8_t> counted(t_.storages.size(), 0);
        for (NodeId id : order) {
            if (!isSaved[static_cast<size_t>(id)]) continue;
            SavedValue sv;
            sv.node = id;
            sv.step = step_[static_cast<size_t>(id)];
            sv.inputBacked = !values_[static_cast<size_t>(id)].empty();
            for (int32_t s : values_[static_cast<size_t>(id)]) {
                const auto& si = t_.storages[static_cast<size_t>(s)];
                if (si.input) continue;
                sv.inputBacked = false;
                sv.bytes += si.bytes;
                if (!counted[static_cast<size_t>(s)]) {
                    counted[static_cast<size_t>(s)] = 1;
                    t_.savedBytes += si.bytes;
                }
            }
            t_.saved.push_back(sv);
        }
    }
};

}  // namespace

void buildMemoryTimeline(const Graph& g, const MemoryOptions& opts, MemoryTimeline& t) { Builder(g, opts, t).run(); }

}  // namespace fxl
