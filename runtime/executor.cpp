#include "runtime/executor.hpp"

#include <algorithm>
#include <chrono>
#include <limits>
#include <memory>
#include <string_view>
#include <unordered_map>

#include "core/ir/diagnostics.hpp"
#include "core/ops/op_registry.hpp"
#include "runtime/cpu/cpu_common.hpp"
#include "runtime/kernel.hpp"
#include "runtime/philox.hpp"
#include "runtime/torch_level.hpp"

namespace fxl {

namespace {

constexpr size_t kNever = std::numeric_limits<size_t>::max();

Tensor uploadSafeTensor(const SafeTensor& st, Backend& b, const std::string& what)
{
    if (!runtimeSupportsDType(st.dtype))
        throw KernelError(what + ": dtype " + std::string(dtypeAbbr(st.dtype)) + " is not supported by the runtime");
    Tensor t = b.empty(st.shape, st.dtype);
    if (static_cast<int64_t>(st.data.size()) != t.nbytes())
        throw KernelError(what + ": " + std::to_string(st.data.size()) + " bytes for shape of "
                          + std::to_string(t.nbytes()));
    b.upload(t, st.data.data(), t.nbytes());
    return t;
}

int64_t hintOf(const SymInt& s, const std::string& what)
{
    auto h = s.maybeValue();
    if (!h) throw KernelError(what + ": a size has no hint (" + s.str() + ")");
    return *h;
}

// A bad inputs file must fail at its placeholder, not somewhere downstream in a kernel:
// the file's dtype and concrete sizes must be the ones the graph recorded (symbolic sizes
// are free: a dynamic graph may run on other sizes than its hints).
void checkInputAgainstMeta(const Node& n, const SafeTensor& st)
{
    const ValueMeta& m = n.val;
    if (!m.isTensor()) return;
    const TensorMeta& tm = m.tensor;
    auto shapeText = [](const std::vector<int64_t>& s) {
        std::string t = "[";
        for (size_t k = 0; k < s.size(); ++k) t += (k ? ", " : "") + std::to_string(s[k]);
        return t + "]";
    };
    if (tm.dtype != DType::Undefined && st.dtype != tm.dtype)
        throw KernelError("input '" + n.name + "': the inputs file has dtype " + std::string(dtypeAbbr(st.dtype))
                          + ", the graph expects " + std::string(dtypeAbbr(tm.dtype)));
    bool bad = st.shape.size() != tm.sizes.size();
    std::string expected = "[";
    for (size_t k = 0; k < tm.sizes.size(); ++k) {
        expected += (k ? ", " : "") + tm.sizes[k].str();
        if (!bad && tm.sizes[k].isConcrete()) {
            auto v = tm.sizes[k].maybeValue();
            if (v && *v != st.shape[k]) bad = true;
        }
    }
    expected += "]";
    if (bad)
        throw KernelError("input '" + n.name + "': the inputs file has shape " + shapeText(st.shape)
                          + ", the graph expects " + expected);
}

// Tensors of an inputs/constants file by name: SafeTensorsFile::find is a linear scan, which
// made feeding a graph with thousands of placeholders quadratic.
class TensorIndex
{
public:
    explicit TensorIndex(const SafeTensorsFile* f)
    {
        if (!f) return;
        map_.reserve(f->tensors.size());
        for (const auto& t : f->tensors) map_.emplace(t.name, &t);  // first of duplicate names, as find()
    }
    const SafeTensor* find(const std::string& name) const
    {
        auto it = map_.find(name);
        return it == map_.end() ? nullptr : it->second;
    }

private:
    std::unordered_map<std::string_view, const SafeTensor*> map_;
};

const SafeTensor* findInput(const Node& n, const TensorIndex& inputs)
{
    const SafeTensor* st = inputs.find(n.name);
    if (!st && n.target != n.name) st = inputs.find(n.target);
    return st;
}

// A placeholder with no value given: generated from its meta (Philox, seeded per input).
Value generateInput(const Node& n, uint64_t seed, uint64_t index, Backend& b)
{
    const ValueMeta& m = n.val;
    if (m.kind == ValueMeta::Kind::SymInt) {
        if (!m.symHint) throw KernelError("input '" + n.name + "': symbolic int without a hint");
        return Value::ofInt(*m.symHint);
    }
    if (!m.isTensor())
        throw KernelError("input '" + n.name + "' has no tensor meta to generate it from; give it in the inputs file");
    std::vector<int64_t> sizes;
    for (const auto& s : m.tensor.sizes) sizes.push_back(hintOf(s, "input '" + n.name + "'"));
    Tensor t = b.empty(sizes, m.tensor.dtype);
    const int64_t count = t.numel();
    std::vector<uint8_t> host(static_cast<size_t>(t.nbytes()));
    const DType dt = m.tensor.dtype;
    for (int64_t k = 0; k < count; ++k) {
        void* p = host.data() + k * t.itemSize();
        if (isFloatingPoint(dt))
            cpu::storeFromFloat(p, dt, philoxNormal(seed, index, static_cast<uint64_t>(k)));
        else if (dt == DType::Bool)
            cpu::storeFromDouble(p, dt, philoxDraw(seed, index, static_cast<uint64_t>(k)) & 1u);
        else
            cpu::storeFromDouble(p, dt, philoxDraw(seed, index, static_cast<uint64_t>(k)) % 16u);
    }
    b.upload(t, host.data(), t.nbytes());
    return Value::ofTensor(t);
}

// Higher-order operators the executor runs by entering their nested graphs.
enum class Hop : uint8_t
{
    None,
    InvokeSubgraph,  // invoke_subgraph(body, identifier, *operands)
    Checkpoint,  // tag_activation_checkpoint(body, *operands, **checkpoint_kwargs)
    SetGradEnabled,  // wrap_with_set_grad_enabled(enable_grad, body, *operands)
    Autocast,  // wrap_with_autocast(device_type, dtype, enabled, cache_enabled, body, *operands)
    Cond,  // cond(pred, true_fn, false_fn, operands)
    WhileLoop,  // while_loop(cond_fn, body_fn, carried_inputs, additional_inputs)
    Map,  // map_impl(f, xs, pos_args)
    RunAndSaveRng,  // run_and_save_rng_state(op, *args, **kwargs) -> (rng_state, op(...))
    RunWithRng,  // run_with_rng_state(rng_state, op, *args, **kwargs) -> op(...)
    Unsupported,  // another higher_order.* target
};

Hop hopOf(std::string_view t)
{
    if (t.rfind("higher_order.", 0) != 0) return Hop::None;
    t.remove_prefix(13);
    if (t == "invoke_subgraph") return Hop::InvokeSubgraph;
    if (t == "tag_activation_checkpoint") return Hop::Checkpoint;
    if (t == "wrap_with_set_grad_enabled") return Hop::SetGradEnabled;
    if (t == "wrap_with_autocast") return Hop::Autocast;
    if (t == "cond") return Hop::Cond;
    if (t == "while_loop") return Hop::WhileLoop;
    if (t == "map_impl") return Hop::Map;
    if (t == "run_and_save_rng_state") return Hop::RunAndSaveRng;
    if (t == "run_with_rng_state") return Hop::RunWithRng;
    return Hop::Unsupported;
}

// How the arguments of a node map onto its op's schema: per schema argument, one of the
// node's positional arguments, one of its keyword arguments, or the default. Shared by every
// node with the same op and argument shape (most nodes of a training graph), so the defaults
// are parsed and converted once rather than by OpRegistry::bind for every node.
struct BindRecipe
{
    enum class From : uint8_t
    {
        Positional,
        Keyword,
        Default
    };
    struct Source
    {
        From from = From::Default;
        uint32_t index = 0;  // into n.args / n.kwargs
    };
    std::vector<Source> sources;  // by schema argument
    std::vector<Arg> defaults;  // by schema argument (None where not a default)
    std::vector<Value> defaultValues;
    std::vector<uint8_t> defaultOk;  // converted without error (else converted, and thrown, when run)
};

// What running one node needs, worked out once per graph (not once per execution of a node:
// a body may run many times, and the binding of a node's arguments to the schema costs more
// than many of the kernels of a training graph with tiny tensors).
struct NodePlan
{
    enum class Kind : uint8_t
    {
        Placeholder,
        GetAttr,
        Builtin,
        Op,
        Hop,
        Torch,
        Output,
        Unsupported
    };
    Kind kind = Kind::Unsupported;
    Hop hop = Hop::None;
    const OpInfo* op = nullptr;
    const BindRecipe* bind = nullptr;  // Op, and the op wrapped by an RNG-state HOP
    std::string error;  // Op / RNG-state HOP: why the node cannot run (thrown when it is reached)
    // run_and_save_rng_state / run_with_rng_state: the wrapped op as a node of its own (the
    // HOP's arguments after the op, its kwargs, the op's part of the meta), so it binds and
    // runs exactly as the same op written as a node
    const Node* inner = nullptr;
    // Torch: the Dynamo-level node translated to aten kernels (runtime/torch_level.hpp); also
    // set on operator.getitem builtins, for getitem on a tensor
    std::unique_ptr<TorchLowering> torch;
};

struct GraphPlan
{
    const Graph* g = nullptr;
    std::vector<NodePlan> nodes;  // by position in g->order()
    size_t maxId = 0;
    size_t placeholders = 0;
    // the nodes dying after each step, as one flat array with per-step offsets (a vector per
    // step costs an allocation per node on 100k-node graphs)
    std::vector<size_t> dyingStart;
    std::vector<NodeId> dying;
    std::vector<std::unique_ptr<Node>> innerNodes;  // NodePlan::inner
};

Value argToValue(const Arg& a);

// Recipes by (op, positional count, keyword names); the key's text is only built for nodes
// with keyword arguments.
class RecipeCache
{
public:
    // nullptr with `error` set when the node's arguments do not fit the schema.
    const BindRecipe* get(const OpRegistry& reg, const OpInfo& op, const Node& n, std::string& error)
    {
        std::string key;
        for (const auto& kv : n.kwargs) key += kv.first + ",";
        auto& slot = cache_[Key{&op, n.args.size(), std::move(key)}];
        if (slot.first) return slot.first.get();
        if (!slot.second.empty()) {
            error = slot.second;
            return nullptr;
        }
        auto r = build(op, n);
        if (!r) {
            std::vector<Arg> bound;  // the registry's own message
            auto err = reg.bind(op, n, bound);
            slot.second = err ? *err : op.qualifiedName + "(): arguments do not fit the schema";
            error = slot.second;
            return nullptr;
        }
        slot.first = std::move(r);
        return slot.first.get();
    }

private:
    struct Key
    {
        const OpInfo* op;
        size_t nargs;
        std::string kwargs;
        bool operator==(const Key& o) const { return op == o.op && nargs == o.nargs && kwargs == o.kwargs; }
    };
    struct KeyHash
    {
        size_t operator()(const Key& k) const
        {
            return std::hash<const void*>()(k.op) ^ (k.nargs * 0x9E3779B97F4A7C15ull)
                ^ std::hash<std::string>()(k.kwargs);
        }
    };
    std::unordered_map<Key, std::pair<std::unique_ptr<BindRecipe>, std::string>, KeyHash> cache_;

    // The rules of OpRegistry::bind; nullptr where bind reports an error.
    static std::unique_ptr<BindRecipe> build(const OpInfo& op, const Node& n)
    {
        const Schema& s = op.schema;
        auto r = std::make_unique<BindRecipe>();
        r->sources.resize(s.args.size());
        r->defaults.assign(s.args.size(), Arg::none());
        r->defaultValues.resize(s.args.size());
        r->defaultOk.assign(s.args.size(), 0);
        std::vector<uint8_t> given(s.args.size(), 0);
        std::vector<size_t> positional;
        for (size_t i = 0; i < s.args.size(); ++i)
            if (!s.args[i].kwargOnly) positional.push_back(i);
        if (n.args.size() > positional.size() && !s.varargs) return nullptr;
        for (size_t k = 0; k < n.args.size() && k < positional.size(); ++k) {
            r->sources[positional[k]] = {BindRecipe::From::Positional, static_cast<uint32_t>(k)};
            given[positional[k]] = 1;
        }
        for (size_t j = 0; j < n.kwargs.size(); ++j) {
            const int idx = s.argIndex(n.kwargs[j].first);
            if (idx < 0) {
                if (s.varargs) continue;
                return nullptr;
            }
            if (given[static_cast<size_t>(idx)]) return nullptr;
            r->sources[static_cast<size_t>(idx)] = {BindRecipe::From::Keyword, static_cast<uint32_t>(j)};
            given[static_cast<size_t>(idx)] = 1;
        }
        for (size_t i = 0; i < s.args.size(); ++i) {
            if (given[i]) continue;
            if (s.args[i].defaultText)
                r->defaults[i] = parseDefaultValue(s.args[i]);
            else if (!(s.informal && s.varargs))
                return nullptr;
            try {
                r->defaultValues[i] = argToValue(r->defaults[i]);
                r->defaultOk[i] = 1;
            } catch (const KernelError&) { }
        }
        return r;
    }
};

// run_and_save_rng_state(op, *args, **kwargs) / run_with_rng_state(rng_state, op, *args,
// **kwargs) (torch/_prims/rng_prims.py; AOT's functionalize_rng_ops wraps a recomputed random
// node's target and arguments so): the op is an op overload printed inline
// (torch.ops.aten.rand.default). PyTorch never passes a nested graph there.
void planRngHop(GraphPlan& p, NodePlan& np, const Node& n, const OpRegistry& reg, RecipeCache& recipes)
{
    const bool save = np.hop == Hop::RunAndSaveRng;
    const size_t k = save ? 0 : 1;
    const std::string hop = save ? "run_and_save_rng_state" : "run_with_rng_state";
    if (n.args.size() <= k) {
        np.error = hop + " expects " + (save ? "(op, *args, **kwargs)" : "(rng_state, op, *args, **kwargs)");
        return;
    }
    const Arg& a = n.args[k];
    if (a.isNode()) {
        const Node& an = p.g->node(a.node);
        if (an.op == NodeOp::GetAttr && p.g->subgraph(an.target)) {
            np.error = hop + " with a nested graph ('" + an.target
                + "') as its op is not supported (PyTorch passes an op overload, torch.ops.aten.*)";
            return;
        }
    }
    if (a.kind != Arg::Kind::Op) {
        np.error =
            hop + ": argument " + std::to_string(k) + " must be an op overload (torch.ops.aten.rand.default, ...)";
        return;
    }
    const OpInfo* op = reg.find(a.s);
    if (!op) {
        np.error = hop + ": unknown operator " + a.s;
        return;
    }
    if (op->has(kTraitHigherOrder)) {
        np.error = hop + ": the wrapped op " + a.s + " is a higher-order operator (not supported)";
        return;
    }
    auto inner = std::make_unique<Node>();
    inner->id = n.id;
    inner->name = n.name;
    inner->op = NodeOp::CallFunction;
    inner->target = op->qualifiedName;
    inner->args.assign(n.args.begin() + static_cast<std::ptrdiff_t>(k + 1), n.args.end());
    inner->kwargs = n.kwargs;
    if (!save)
        inner->val = n.val;
    else if (n.val.kind == ValueMeta::Kind::Tuple && n.val.elems.size() == 2)
        inner->val = n.val.elems[1];
    inner->meta = n.meta;
    np.op = op;
    np.bind = recipes.get(reg, *op, *inner, np.error);
    if (!np.bind) np.error = hop + ": " + np.error;
    np.inner = inner.get();
    p.innerNodes.push_back(std::move(inner));
}

std::unique_ptr<GraphPlan> makePlan(const Graph& g, const OpRegistry& reg, RecipeCache& recipes, DeviceKind device)
{
    auto p = std::make_unique<GraphPlan>();
    p->g = &g;
    const auto& order = g.order();
    for (NodeId id : order) p->maxId = std::max(p->maxId, static_cast<size_t>(id) + 1);
    p->nodes.resize(order.size());
    std::unordered_map<std::string_view, const OpInfo*> opByTarget;
    for (size_t k = 0; k < order.size(); ++k) {
        const Node& n = g.node(order[k]);
        NodePlan& np = p->nodes[k];
        switch (n.op) {
        case NodeOp::Placeholder:
            np.kind = NodePlan::Kind::Placeholder;
            ++p->placeholders;
            break;
        case NodeOp::GetAttr: np.kind = NodePlan::Kind::GetAttr; break;
        case NodeOp::Output: np.kind = NodePlan::Kind::Output; break;
        case NodeOp::CallFunction: {
            const bool isOperator = n.target.rfind("operator.", 0) == 0 || n.target.rfind("_operator.", 0) == 0;
            if (n.isGetitem()) {
                // tuples by int stay a builtin (by reference); tensors take the lowering
                np.kind = NodePlan::Kind::Builtin;
                std::string ignored;
                np.torch = planTorchLevel(n, ignored);
                break;
            }
            if (isOperator && hasTorchLevelLowering(n)) {
                np.kind = NodePlan::Kind::Torch;
                np.torch = planTorchLevel(n, np.error);
                break;
            }
            if (isOperator || n.target.rfind("builtins.", 0) == 0) {
                np.kind = NodePlan::Kind::Builtin;
                break;
            }
            // one registry lookup per distinct target (it normalises, allocating, each time)
            auto [it, fresh] = opByTarget.try_emplace(n.target, nullptr);
            if (fresh) it->second = reg.find(n.target);
            const OpInfo* op = it->second;
            // torch-level targets (torch.mul, torch.nn.functional.gelu, ...) run through their
            // lowering to aten ops unless a kernel is registered for the target itself
            if (hasTorchLevelLowering(n) && !(op && KernelRegistry::instance().find(op->qualifiedName, device))) {
                np.kind = NodePlan::Kind::Torch;
                np.torch = planTorchLevel(n, np.error);
                break;
            }
            np.hop = hopOf(op ? std::string_view(op->qualifiedName) : std::string_view(n.target));
            if (np.hop != Hop::None) {
                np.kind = NodePlan::Kind::Hop;
                if (np.hop == Hop::RunAndSaveRng || np.hop == Hop::RunWithRng) planRngHop(*p, np, n, reg, recipes);
                break;
            }
            np.kind = NodePlan::Kind::Op;
            np.op = op;
            if (!np.op)
                np.error = "unknown operator " + n.target;
            else if (np.op->has(kTraitHigherOrder))
                np.error = "higher-order operator " + n.target + " is not supported by the executor";
            else
                np.bind = recipes.get(reg, *np.op, n, np.error);
            break;
        }
        case NodeOp::CallMethod:
            np.kind = NodePlan::Kind::Torch;
            np.torch = planTorchLevel(n, np.error);
            break;
        case NodeOp::CallModule:
            np.kind = NodePlan::Kind::Unsupported;
            np.error = "call_module nodes cannot run: the module '" + n.target
                + "' (its code and parameters) is not part of the graph; run a graph with the module inlined "
                  "(Dynamo's output graph, AOT graphs)";
            break;
        default: np.kind = NodePlan::Kind::Unsupported; break;
        }
    }

    // last step that reads each node; outputs and inputs never die (R4, R6)
    std::vector<size_t> lastUse(p->maxId, kNever);
    std::vector<uint8_t> pinned(p->maxId, 0);
    for (size_t k = 0; k < order.size(); ++k) {
        const Node& n = g.node(order[k]);
        lastUse[static_cast<size_t>(n.id)] = k;  // a value nothing reads dies after its own step (R5)
        if (n.op == NodeOp::Placeholder || n.op == NodeOp::GetAttr) pinned[static_cast<size_t>(n.id)] = 1;
        auto use = [&](NodeId id) {
            if (n.op == NodeOp::Output)
                pinned[static_cast<size_t>(id)] = 1;
            else
                lastUse[static_cast<size_t>(id)] = k;
        };
        for (const auto& a : n.args) a.forEachNode(use);
        for (const auto& kv : n.kwargs) kv.second.forEachNode(use);
    }
    p->dyingStart.assign(order.size() + 1, 0);
    for (NodeId id : order) {
        const size_t i = static_cast<size_t>(id);
        if (!pinned[i] && lastUse[i] != kNever) ++p->dyingStart[lastUse[i] + 1];
    }
    for (size_t k = 0; k < order.size(); ++k) p->dyingStart[k + 1] += p->dyingStart[k];
    p->dying.resize(p->dyingStart.back());
    std::vector<size_t> fill(p->dyingStart.begin(), p->dyingStart.end() - 1);
    for (NodeId id : order) {
        const size_t i = static_cast<size_t>(id);
        if (!pinned[i] && lastUse[i] != kNever) p->dying[fill[lastUse[i]]++] = id;
    }
    return p;
}

// A constant argument (no node references) as a value.
// Constant arguments as runtime values; what has none is an error of the node.
Value argToValue(const Arg& a)
{
    try {
        return Value::ofConstant(a);
    } catch (const std::invalid_argument& e) {
        if (a.kind == Arg::Kind::Node) throw KernelError("a node reference where a constant was expected");
        throw KernelError(std::string(e.what()) + ": not supported by the runtime");
    }
}

// Thrown from inside a nested graph when the run is cancelled (the top level catches it).
struct Cancelled
{ };

// Values of one run of one graph, by node id.
struct Frame
{
    const GraphPlan& plan;
    std::vector<Value> env;
    std::vector<uint8_t> have;
    explicit Frame(const GraphPlan& p)
        : plan(p)
        , env(p.maxId)
        , have(p.maxId, 0)
    { }
};

struct Runner
{
    const ExecOptions& opts;
    Backend& backend;
    const OpRegistry& reg = OpRegistry::instance();
    RngState rng;
    std::unordered_map<const Graph*, std::unique_ptr<GraphPlan>> plans;
    RecipeCache recipes;
    KernelCall call;  // reused by every kernel call (its argument vector keeps its capacity)
    int depth = 0;  // nesting of bodies being run
    const TensorIndex* inputs = nullptr;  // top-level placeholders
    const TensorIndex* constants = nullptr;  // get_attr tensors (top level and bodies)

    // live-byte accounting of the top-level graph by the memory timeline's rules (distinct
    // storages of live values)
    std::unordered_map<const Storage*, int> refs;
    std::unordered_map<const Storage*, uint8_t> resident;  // input storages (countInputs=false: 0 bytes)
    int64_t live = 0;

    Runner(const ExecOptions& o, Backend& b)
        : opts(o)
        , backend(b)
    {
        rng.seed = o.rngSeed;
    }

    const GraphPlan& planOf(const Graph& g)
    {
        auto& p = plans[&g];
        if (!p) p = makePlan(g, reg, recipes, backend.device());
        return *p;
    }

    template<class F>
    static void forEachTensor(const Value& v, F&& fn)
    {
        if (v.isTensor()) fn(v.tensor);
        for (const auto& it : v.items) forEachTensor(it, fn);
    }
    void acquire(const Value& v, bool isInput)
    {
        forEachTensor(v, [&](const Tensor& t) {
            const Storage* s = t.storage().get();
            if (!s) return;
            if (refs[s]++ == 0) {
                if (isInput && !opts.countInputs)
                    resident[s] = 1;
                else
                    live += s->nbytes();
            }
        });
    }
    void releaseValue(const Value& v)
    {
        forEachTensor(v, [&](const Tensor& t) {
            const Storage* s = t.storage().get();
            if (!s) return;
            auto it = refs.find(s);
            if (it == refs.end()) return;
            if (--it->second == 0) {
                if (!resident.erase(s)) live -= s->nbytes();
                refs.erase(it);
            }
        });
    }

    static const Value& ref(const Frame& f, NodeId node)
    {
        const size_t id = static_cast<size_t>(node);
        if (id >= f.have.size() || !f.have[id])
            throw KernelError("the value of '" + f.plan.g->node(node).name
                              + "' is not available (not computed yet or already freed)");
        return f.env[id];
    }

    static Value toValue(const Frame& f, const Arg& a)
    {
        switch (a.kind) {
        case Arg::Kind::Node: return ref(f, a.node);
        case Arg::Kind::List:
        case Arg::Kind::Tuple: {
            std::vector<Value> items;
            items.reserve(a.items.size());
            for (const auto& x : a.items) items.push_back(toValue(f, x));
            return Value::ofList(std::move(items));
        }
        default: return argToValue(a);
        }
    }

    // A Dynamo-level node through its lowering: the aten kernels it picks run as callOp runs
    // a node's kernel (the node's name in messages; intermediate values are temporaries).
    struct TorchCtx final : TorchLevelContext
    {
        Runner& r;
        const Frame& f;
        const Node& n;
        TorchCtx(Runner& run, const Frame& fr, const Node& node)
            : r(run)
            , f(fr)
            , n(node)
        { }
        Value resolve(const Arg& a) override { return toValue(f, a); }
        Value callAten(const OpInfo& op, std::vector<Value> args) override
        {
            static const ValueMeta kUnknown;
            KernelCall kc;
            kc.node = &n;
            kc.op = &op;
            kc.args = std::move(args);
            kc.outMeta = &kUnknown;
            kc.backend = &r.backend;
            kc.rng = &r.rng;
            r.backend.run(kc);
            return std::move(kc.result);
        }
        Backend& backend() override { return r.backend; }
    };
    Value callTorch(const Frame& f, const Node& n, const NodePlan& np)
    {
        if (!np.torch) throw KernelError(np.error);
        TorchCtx ctx(*this, f, n);
        return np.torch->run(ctx, n);
    }

    Value callBuiltin(const Frame& f, const Node& n, const NodePlan& np)
    {
        const std::string& t = n.target;
        auto argv = [&](size_t k) { return toValue(f, n.args.at(k)); };
        if (n.isGetitem()) {
            if (np.torch && n.args.size() == 2 && n.args[0].isNode() && ref(f, n.args[0].node).isTensor())
                return callTorch(f, n, np);
            // by reference: copying the whole tuple of a multi-output op to take one item
            const Value* c = nullptr;
            Value tmp;
            if (n.args.size() != 2) throw KernelError("getitem: expects (container, index)");
            if (n.args[0].isNode())
                c = &ref(f, n.args[0].node);
            else
                c = &(tmp = toValue(f, n.args[0]));
            const Value i = argv(1);
            if (c->kind != Value::Kind::List || i.kind != Value::Kind::Int)
                throw KernelError("getitem: only tuple/list indexing by an int is supported");
            int64_t k = i.i < 0 ? i.i + static_cast<int64_t>(c->items.size()) : i.i;
            if (k < 0 || k >= static_cast<int64_t>(c->items.size())) throw KernelError("getitem: index out of range");
            return c->items[static_cast<size_t>(k)];
        }
        auto intOp = [&](auto fn) {
            Value a = argv(0), b = argv(1);
            if (a.kind == Value::Kind::Int && b.kind == Value::Kind::Int) return Value::ofInt(fn(a.i, b.i));
            throw KernelError(t + ": only integer operands are supported outside tensors");
        };
        if (t == "operator.add") return intOp([](int64_t a, int64_t b) { return a + b; });
        if (t == "operator.sub") return intOp([](int64_t a, int64_t b) { return a - b; });
        if (t == "operator.mul") return intOp([](int64_t a, int64_t b) { return a * b; });
        if (t == "operator.floordiv")
            return intOp([&](int64_t a, int64_t b) {
                if (b == 0) throw KernelError("floordiv by zero");
                int64_t q = a / b;
                if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
                return q;
            });
        throw KernelError("call target '" + t + "' is not supported by the runtime");
    }

    Value callOp(const Frame& f, const Node& n, const NodePlan& np)
    {
        if (!np.error.empty()) throw KernelError(np.error);
        const BindRecipe& b = *np.bind;
        call.args.clear();
        call.result = Value();
        call.node = &n;
        call.op = np.op;
        for (size_t i = 0; i < b.sources.size(); ++i) {
            const BindRecipe::Source& src = b.sources[i];
            switch (src.from) {
            case BindRecipe::From::Positional: call.args.push_back(toValue(f, n.args[src.index])); break;
            case BindRecipe::From::Keyword: call.args.push_back(toValue(f, n.kwargs[src.index].second)); break;
            case BindRecipe::From::Default:
                if (b.defaultOk[i])
                    call.args.push_back(b.defaultValues[i]);
                else
                    call.args.push_back(argToValue(b.defaults[i]));
                break;
            }
        }
        call.outMeta = &n.val;
        call.backend = &backend;
        call.rng = &rng;
        backend.run(call);
        call.args.clear();  // the arguments' storages are not held past the call
        return std::move(call.result);
    }

    // ---- higher-order operators

    // The nested graph an argument names (a get_attr node whose target is a subgraph).
    static const Graph& bodyArg(const Frame& f, const Node& n, size_t k, const char* role)
    {
        if (k >= n.args.size() || !n.args[k].isNode())
            throw KernelError("expects a nested graph as " + std::string(role) + " (argument " + std::to_string(k)
                              + ")");
        const Graph& g = *f.plan.g;
        const Node& a = g.node(n.args[k].node);
        const Graph* body = a.op == NodeOp::GetAttr ? g.subgraph(a.target) : nullptr;
        if (!body)
            throw KernelError("argument " + std::to_string(k) + " ('" + a.name
                              + "') is not a nested graph of this graph (" + role + ")");
        return *body;
    }
    // Positional operands args[from..] as values.
    static std::vector<Value> operandsFrom(const Frame& f, const Node& n, size_t from)
    {
        std::vector<Value> out;
        for (size_t k = from; k < n.args.size(); ++k) out.push_back(toValue(f, n.args[k]));
        return out;
    }
    // A tuple/list argument (cond's operands, while_loop's carried/additional inputs).
    static std::vector<Value> tupleArg(const Frame& f, const Node& n, size_t k, const char* role, bool optional = false)
    {
        if (k >= n.args.size()) {
            if (optional) return {};
            throw KernelError("missing " + std::string(role) + " (argument " + std::to_string(k) + ")");
        }
        Value v = toValue(f, n.args[k]);
        if (v.kind != Value::Kind::List)
            throw KernelError(std::string(role) + " (argument " + std::to_string(k) + ") must be a tuple or list");
        return std::move(v.items);
    }
    static std::string bodyName(const Frame& f, const Node& n, size_t k)
    {
        return f.plan.g->node(n.args[k].node).target;
    }

    // Truth value of a predicate: a bool/int, or a tensor with one element (cond's pred,
    // while_loop's cond_fn result).
    bool truth(const Value& v, const char* what)
    {
        if (v.kind == Value::Kind::Bool) return v.b;
        if (v.kind == Value::Kind::Int) return v.i != 0;
        const Value* t = &v;
        if (v.kind == Value::Kind::List && v.items.size() == 1) t = &v.items[0];
        if (t->isTensor()) {
            if (t->tensor.numel() != 1)
                throw KernelError(std::string(what) + " must have one element, got " + describe(t->tensor));
            alignas(8) unsigned char host[8] = {};
            Tensor one = t->tensor.asStrided({}, {}, t->tensor.offset());
            backend.download(host, one, one.itemSize());
            return cpu::loadAsDouble(host, one.dtype()) != 0.0;
        }
        throw KernelError(std::string(what) + " must be a bool or a one-element tensor");
    }

    // Runs a nested graph on `operands` (bound to its placeholders in order) and returns the
    // value its output node returns (a tuple: a List value).
    Value runBody(const Graph& body, const std::string& name, std::vector<Value> operands)
    {
        const GraphPlan& plan = planOf(body);
        if (plan.placeholders != operands.size())
            throw KernelError("nested graph '" + name + "' takes " + std::to_string(plan.placeholders)
                              + " input(s), got " + std::to_string(operands.size()));
        if (depth >= 64) throw KernelError("nested graphs deeper than 64 levels");
        struct Enter
        {
            int& d;
            explicit Enter(int& x)
                : d(x)
            {
                ++d;
            }
            ~Enter() { --d; }
        } enter(depth);
        try {
            return runGraph(plan, &operands, nullptr);
        } catch (const KernelError& e) {
            throw KernelError("in nested graph '" + name + "': " + e.what());
        }
    }
    static std::vector<Value> itemsOf(Value v)
    {
        if (v.kind == Value::Kind::List) return std::move(v.items);
        std::vector<Value> one;
        one.push_back(std::move(v));
        return one;
    }

    Value callHop(const Frame& f, const Node& n, const NodePlan& np)
    {
        switch (np.hop) {
        case Hop::InvokeSubgraph:
            return runBody(bodyArg(f, n, 0, "subgraph"), bodyName(f, n, 0), operandsFrom(f, n, 2));
        case Hop::Checkpoint:
            // the checkpoint only decides what autograd saves: forward, it is the body
            return runBody(bodyArg(f, n, 0, "body"), bodyName(f, n, 0), operandsFrom(f, n, 1));
        case Hop::SetGradEnabled:
            // no autograd here: grad mode changes nothing the body computes
            return runBody(bodyArg(f, n, 1, "body"), bodyName(f, n, 1), operandsFrom(f, n, 2));
        case Hop::Autocast: {
            const Graph& body = bodyArg(f, n, 4, "body");
            const Value enabled = toValue(f, n.args.at(2));
            if (enabled.kind != Value::Kind::Bool) throw KernelError("autocast: 'enabled' (argument 2) must be a bool");
            std::vector<Value> ops = operandsFrom(f, n, 5);
            if (enabled.b) {
                // Autocast recasts the inputs of many ops to a lower precision; the body's
                // ops do not carry those casts, so running it would compute in the wrong
                // dtype. Only a no-op autocast (f32 with f32 operands) is run.
                const Value dt = toValue(f, n.args.at(1));
                bool noop = dt.kind == Value::Kind::DType && dt.dtype == DType::F32;
                for (const auto& v : ops)
                    forEachTensor(v, [&](const Tensor& t) {
                        if (isFloatingPoint(t.dtype()) && t.dtype() != DType::F32) noop = false;
                    });
                if (!noop)
                    throw KernelError("autocast enabled with dtype "
                                      + std::string(dt.kind == Value::Kind::DType ? dtypeAbbr(dt.dtype) : "default")
                                      + " is not supported (it would change the dtypes the body computes in)");
            }
            return runBody(body, bodyName(f, n, 4), std::move(ops));
        }
        case Hop::Cond: {
            const Graph& tb = bodyArg(f, n, 1, "true_fn");
            const Graph& fb = bodyArg(f, n, 2, "false_fn");
            std::vector<Value> ops = tupleArg(f, n, 3, "operands");
            if (n.args.size() > 4) throw KernelError("cond expects (pred, true_fn, false_fn, operands)");
            const bool p = truth(toValue(f, n.args.at(0)), "cond's predicate");
            return p ? runBody(tb, bodyName(f, n, 1), std::move(ops)) : runBody(fb, bodyName(f, n, 2), std::move(ops));
        }
        case Hop::WhileLoop: return whileLoop(f, n);
        case Hop::Map: return mapImpl(f, n);
        case Hop::RunAndSaveRng: {
            // (state before the op, the op's value); the op advances the generator as usual
            if (!np.error.empty()) throw KernelError(np.error);
            const RngState before = rng;
            Value out = callOp(f, *np.inner, np);
            std::vector<Value> items;
            items.push_back(Value::ofTensor(rngStateTensor(before)));
            items.push_back(std::move(out));
            return Value::ofList(std::move(items));
        }
        case Hop::RunWithRng: {
            // As PyTorch: the op runs at the given state, then the generator goes back to
            // the state it had before (what the op drew does not advance the run's stream).
            if (!np.error.empty()) throw KernelError(np.error);
            const RngState given = rngStateOf(toValue(f, n.args[0]));
            const RngState outer = rng;
            rng = given;
            try {
                Value out = callOp(f, *np.inner, np);
                rng = outer;
                return out;
            } catch (...) {
                rng = outer;
                throw;
            }
        }
        default: throw KernelError("higher-order operator " + n.target + " is not supported by the executor");
        }
    }

    // The runtime value of an RNG state (run_and_save_rng_state's first output): an int64
    // tensor [2] = {seed, offset} (bit patterns of the uint64s). Its 16 bytes are also the layout
    // of PyTorch's CUDA Philox state (torch.cuda.get_rng_state(): uint8[16], seed then offset,
    // little-endian), which run_with_rng_state accepts too; CPU PyTorch's mt19937 state
    // (uint8[5056]) has no Philox equivalent and is rejected.
    Tensor rngStateTensor(const RngState& s)
    {
        Tensor t = backend.empty({2}, DType::I64);
        const uint64_t host[2] = {s.seed, s.offset};
        backend.upload(t, host, sizeof host);
        return t;
    }
    RngState rngStateOf(const Value& v)
    {
        if (!v.isTensor())
            throw KernelError(
                "run_with_rng_state: rng_state (argument 0) must be a tensor (an int64 [2] {seed, offset})");
        const Tensor& t = v.tensor;
        const bool i64 = t.dtype() == DType::I64 && t.dim() == 1 && t.size(0) == 2;
        const bool u8 = t.dtype() == DType::U8 && t.dim() == 1 && t.size(0) == 16;
        if (!i64 && !u8)
            throw KernelError(
                "run_with_rng_state: rng_state must be an int64 tensor [2] {seed, offset} (as run_and_save_rng_state "
                "returns) or a uint8 tensor [16] (CUDA's Philox state), got "
                + describe(t));
        Tensor c = t;
        if (!t.isContiguous()) {
            c = backend.empty(t.sizes(), t.dtype());
            backend.copy(c, t);
        }
        uint64_t host[2] = {0, 0};
        backend.download(host, c, sizeof host);
        return RngState{host[0], host[1]};
    }

    Value whileLoop(const Frame& f, const Node& n)
    {
        const Graph& condFn = bodyArg(f, n, 0, "cond_fn");
        const Graph& bodyFn = bodyArg(f, n, 1, "body_fn");
        const std::string condName = bodyName(f, n, 0), bodyNameS = bodyName(f, n, 1);
        std::vector<Value> carried = tupleArg(f, n, 2, "carried_inputs");
        const std::vector<Value> extra = tupleArg(f, n, 3, "additional_inputs", true);
        if (n.args.size() > 4)
            throw KernelError("while_loop expects (cond_fn, body_fn, carried_inputs, additional_inputs)");
        auto withExtra = [&]() {
            std::vector<Value> in = carried;
            in.insert(in.end(), extra.begin(), extra.end());
            return in;
        };
        int64_t iterations = 0;
        for (;;) {
            if (!truth(runBody(condFn, condName, withExtra()), "while_loop's cond_fn result")) break;
            if (iterations >= opts.maxLoopIterations)
                throw KernelError("while_loop ran " + std::to_string(iterations)
                                  + " iterations without its condition turning false (ExecOptions::maxLoopIterations)");
            std::vector<Value> next = itemsOf(runBody(bodyFn, bodyNameS, withExtra()));
            if (next.size() != carried.size())
                throw KernelError("while_loop's body_fn '" + bodyNameS + "' returned " + std::to_string(next.size())
                                  + " value(s) for " + std::to_string(carried.size()) + " carried input(s)");
            carried = std::move(next);
            ++iterations;
        }
        // As PyTorch: with no iteration the outputs are copies of the carried inputs (a HOP's
        // outputs never alias its operands).
        if (iterations == 0)
            for (auto& v : carried)
                if (v.isTensor()) {
                    Tensor c = backend.empty(v.tensor.sizes(), v.tensor.dtype());
                    backend.copy(c, v.tensor);
                    v = Value::ofTensor(std::move(c));
                }
        return Value::ofList(std::move(carried));
    }

    // map_impl(f, xs, pos_args): f(*[x[i] for x in xs], *pos_args) for every i of dim 0,
    // the outputs stacked along a new dim 0.
    Value mapImpl(const Frame& f, const Node& n)
    {
        const Graph& body = bodyArg(f, n, 0, "f");
        const std::string name = bodyName(f, n, 0);
        const std::vector<Value> xs = tupleArg(f, n, 1, "xs");
        const std::vector<Value> pos = tupleArg(f, n, 2, "pos_args", true);
        if (n.args.size() > 3) throw KernelError("map_impl expects (f, xs, pos_args)");
        if (xs.empty()) throw KernelError("map_impl: xs is empty");
        int64_t count = -1;
        for (const auto& x : xs) {
            if (!x.isTensor() || x.tensor.dim() == 0)
                throw KernelError("map_impl: every xs item must be a tensor with a dim 0");
            if (count >= 0 && x.tensor.size(0) != count)
                throw KernelError("map_impl: xs items differ in size along dim 0");
            count = x.tensor.size(0);
        }
        if (count == 0) throw KernelError("map_impl over an empty dim 0 is not supported (output shapes unknown)");
        std::vector<Tensor> stacked;
        for (int64_t i = 0; i < count; ++i) {
            std::vector<Value> in;
            for (const auto& x : xs) {
                const Tensor& t = x.tensor;
                std::vector<int64_t> sz(t.sizes().begin() + 1, t.sizes().end()),
                    st(t.strides().begin() + 1, t.strides().end());
                in.push_back(Value::ofTensor(t.asStrided(std::move(sz), std::move(st), t.offset() + i * t.stride(0))));
            }
            in.insert(in.end(), pos.begin(), pos.end());
            std::vector<Value> out = itemsOf(runBody(body, name, std::move(in)));
            if (i == 0) {
                for (const auto& o : out) {
                    if (!o.isTensor()) throw KernelError("map_impl: the body must return tensors");
                    std::vector<int64_t> sz{count};
                    sz.insert(sz.end(), o.tensor.sizes().begin(), o.tensor.sizes().end());
                    stacked.push_back(backend.empty(sz, o.tensor.dtype()));
                }
            }
            if (out.size() != stacked.size())
                throw KernelError("map_impl: the body returned a different number of outputs");
            for (size_t j = 0; j < out.size(); ++j) {
                const Tensor& dst = stacked[j];
                if (!out[j].isTensor() || out[j].tensor.dtype() != dst.dtype()
                    || !std::equal(out[j].tensor.sizes().begin(), out[j].tensor.sizes().end(), dst.sizes().begin() + 1,
                                   dst.sizes().end())
                    || out[j].tensor.dim() + 1 != dst.dim())
                    throw KernelError("map_impl: the body's output " + std::to_string(j)
                                      + " changes shape or dtype across slices");
                std::vector<int64_t> sz(dst.sizes().begin() + 1, dst.sizes().end()),
                    st(dst.strides().begin() + 1, dst.strides().end());
                backend.copy(dst.asStrided(std::move(sz), std::move(st), dst.offset() + i * dst.stride(0)),
                             out[j].tensor);
            }
        }
        std::vector<Value> items;
        for (auto& t : stacked) items.push_back(Value::ofTensor(std::move(t)));
        return Value::ofList(std::move(items));
    }

    // ---- the node loop

    // Runs one graph. Top level (operands == nullptr): placeholders from the inputs file or
    // generated, live bytes accounted into `res`. Nested: placeholders bound to `operands` in
    // order; values are freed after their last use within the body (so its temporaries do not
    // outlive the HOP's step) and are not accounted (see executor.hpp).
    Value runGraph(const GraphPlan& plan, std::vector<Value>* operands, ExecResult* res,
                   std::vector<double>* stepSeconds = nullptr)
    {
        const Graph& g = *plan.g;
        const auto& order = g.order();
        const bool top = operands == nullptr;
        Frame f(plan);
        Value result;
        size_t placeholderIndex = 0;
        // one clock read per step: a step's time runs from the end of the previous one
        auto last = top ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
        for (size_t k = 0; k < order.size(); ++k) {
            const Node& n = g.node(order[k]);
            const NodePlan& np = plan.nodes[k];
            if (opts.cancel && opts.cancel->load()) throw Cancelled{};
            Value v;
            bool isInput = false;
            try {
                switch (np.kind) {
                case NodePlan::Kind::Placeholder: {
                    isInput = true;
                    const uint64_t index = placeholderIndex++;
                    if (!top) {
                        v = std::move((*operands)[index]);
                        break;
                    }
                    const SafeTensor* st = findInput(n, *inputs);
                    if (st) {
                        checkInputAgainstMeta(n, *st);
                        v = Value::ofTensor(uploadSafeTensor(*st, backend, "input '" + n.name + "'"));
                    } else if (opts.requireAllInputs)
                        throw KernelError("input '" + n.name + "' is missing from the inputs file");
                    else
                        v = generateInput(n, opts.inputSeed, index, backend);
                    break;
                }
                case NodePlan::Kind::GetAttr: {
                    isInput = true;
                    if (g.subgraph(n.target)) break;  // a nested graph: read by the HOP that names it, no storage
                    const SafeTensor* st = constants->find(n.target);
                    if (!st) throw KernelError("constant '" + n.target + "' is not in the constants file");
                    v = Value::ofTensor(uploadSafeTensor(*st, backend, "constant '" + n.target + "'"));
                    break;
                }
                case NodePlan::Kind::Builtin: v = callBuiltin(f, n, np); break;
                case NodePlan::Kind::Torch: v = callTorch(f, n, np); break;
                case NodePlan::Kind::Op: v = callOp(f, n, np); break;
                case NodePlan::Kind::Hop: v = callHop(f, n, np); break;
                case NodePlan::Kind::Output:
                    if (!n.args.empty()) result = toValue(f, n.args[0]);
                    break;
                default:
                    if (!np.error.empty()) throw KernelError(np.error);
                    throw KernelError(std::string(nodeOpName(n.op)) + " nodes are not supported by the runtime");
                }
            } catch (const KernelError& e) {
                throw KernelError("node '" + n.name + "' (" + n.target + "): " + e.what());
            }
            if (np.kind != NodePlan::Kind::Output) {
                if (top) acquire(v, isInput);
                f.env[static_cast<size_t>(n.id)] = std::move(v);
                f.have[static_cast<size_t>(n.id)] = 1;
            }
            if (top) {
                res->liveBytesPerStep.push_back(live);
                if (live > res->peakBytes) {
                    res->peakBytes = live;
                    res->peakNode = n.name;
                }
            }
            for (size_t j = plan.dyingStart[k]; j < plan.dyingStart[k + 1]; ++j) {
                const size_t i = static_cast<size_t>(plan.dying[j]);
                if (!f.have[i]) continue;
                if (top) releaseValue(f.env[i]);
                f.env[i] = Value::none();
                f.have[i] = 0;
            }
            if (top) {
                const auto now = std::chrono::steady_clock::now();
                stepSeconds->push_back(std::chrono::duration<double>(now - last).count());
                last = now;
                if (opts.progress) opts.progress(k + 1, order.size(), n);
            }
        }
        return result;
    }
};

}  // namespace

ExecResult executeGraph(const Graph& g, const ExecOptions& opts)
{
    std::shared_ptr<Backend> own;
    Backend* backend = opts.backend;
    if (!backend) {
        own = makeCpuBackend(CpuBackendOptions{opts.threads});
        backend = own.get();
    }
    Runner r(opts, *backend);
    const GraphPlan& plan = r.planOf(g);
    const TensorIndex inputs(opts.inputs), constants(opts.constants);
    r.inputs = &inputs;
    r.constants = &constants;
    r.refs.reserve(g.order().size());

    ExecResult res;
    res.ownedBackend = own;
    res.liveBytesPerStep.reserve(g.order().size());
    std::vector<double> stepSeconds;
    stepSeconds.reserve(g.order().size());
    const auto t0 = std::chrono::steady_clock::now();
    try {
        Value out = r.runGraph(plan, nullptr, &res, &stepSeconds);
        if (out.kind == Value::Kind::List)
            res.outputs = std::move(out.items);
        else if (g.outputNode() != kNoNode && !g.node(g.outputNode()).args.empty())
            res.outputs.push_back(std::move(out));
    } catch (const Cancelled&) {
        res.cancelled = true;
    }
    res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const auto& order = g.order();
    std::vector<size_t> steps(stepSeconds.size());
    for (size_t k = 0; k < steps.size(); ++k) steps[k] = k;
    const size_t top = std::min<size_t>(20, steps.size());
    std::partial_sort(steps.begin(), steps.begin() + static_cast<std::ptrdiff_t>(top), steps.end(),
                      [&](size_t a, size_t b) {
                          return stepSeconds[a] > stepSeconds[b] || (stepSeconds[a] == stepSeconds[b] && a < b);
                      });
    for (size_t k = 0; k < top; ++k) res.slowest.push_back({g.node(order[steps[k]]).name, stepSeconds[steps[k]]});
    for (size_t k = 0; k < res.outputs.size(); ++k) res.outputNames.push_back("out_" + std::to_string(k));
    return res;
}

SafeTensorsFile resolveInputs(const Graph& g, const ExecOptions& opts, std::vector<std::string>* generated)
{
    std::unique_ptr<Backend> own;
    Backend* backend = opts.backend;
    if (!backend) {
        own = makeCpuBackend(CpuBackendOptions{1});
        backend = own.get();
    }
    SafeTensorsFile f;
    const TensorIndex given(opts.inputs);
    uint64_t inputIndex = 0;  // counted as executeGraph counts: every placeholder, in order
    for (NodeId id : g.order()) {
        const Node& n = g.node(id);
        if (n.op != NodeOp::Placeholder) continue;
        const uint64_t index = inputIndex++;
        try {
            SafeTensor st;
            st.name = n.name;
            if (const SafeTensor* file = findInput(n, given)) {
                checkInputAgainstMeta(n, *file);
                st.dtype = file->dtype;
                st.shape = file->shape;
                st.data = file->data;
            } else {
                if (opts.requireAllInputs) throw KernelError("input '" + n.name + "' is missing from the inputs file");
                if (n.val.kind == ValueMeta::Kind::SymInt) continue;  // a scalar: not a tensor file entry
                const Value v = generateInput(n, opts.inputSeed, index, *backend);
                st.dtype = v.tensor.dtype();
                st.shape = v.tensor.sizes();
                st.data.resize(static_cast<size_t>(v.tensor.nbytes()));
                backend->download(st.data.data(), v.tensor, v.tensor.nbytes());
                if (generated) generated->push_back(n.name);
            }
            f.tensors.push_back(std::move(st));
        } catch (const KernelError& e) {
            throw KernelError("node '" + n.name + "' (" + n.target + "): " + e.what());
        }
    }
    return f;
}

SafeTensorsFile outputsToSafetensors(const ExecResult& r, Backend& backend)
{
    SafeTensorsFile f;
    std::string skipped;
    for (size_t k = 0; k < r.outputs.size(); ++k) {
        const Value& v = r.outputs[k];
        const std::string name = k < r.outputNames.size() ? r.outputNames[k] : "out_" + std::to_string(k);
        if (!v.isTensor()) {
            skipped += (skipped.empty() ? "" : ",") + name;
            continue;
        }
        SafeTensor st;
        st.name = name;
        st.dtype = v.tensor.dtype();
        st.shape = v.tensor.sizes();
        st.data.resize(static_cast<size_t>(v.tensor.nbytes()));
        backend.download(st.data.data(), v.tensor, v.tensor.nbytes());
        f.tensors.push_back(std::move(st));
    }
    if (!skipped.empty()) f.metadata["skipped"] = skipped;
    return f;
}

}  // namespace fxl
