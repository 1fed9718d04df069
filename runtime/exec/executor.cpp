#include "runtime/exec/executor.hpp"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <unordered_map>

#include "core/analysis/index_bounds.hpp"
#include "core/ir/diagnostics.hpp"
#include "core/ops/custom_ops.hpp"
#include "core/ops/op_registry.hpp"
#include "core/ops/shape_prop.hpp"
#include "runtime/backends.hpp"
#include "runtime/base/dtype_codec.hpp"
#include "runtime/base/kernel.hpp"
#include "runtime/composite/flex_attention.hpp"
#include "runtime/exec/executor_hop_values.hpp"
#include "runtime/exec/executor_inputs.hpp"
#include "runtime/exec/executor_plan.hpp"
#include "runtime/exec/scalar_ops.hpp"
#include "runtime/exec/storage_table.hpp"
#include "runtime/math/philox.hpp"

namespace fxl {

using exec::allocateStackedOutputs;
using exec::argToValue;
using exec::bindFunctionalizedArgs;
using exec::BindRecipe;
using exec::checkInputAgainstMeta;
using exec::copyIntoStackedOutputs;
using exec::findInput;
using exec::generateInput;
using exec::GraphPlan;
using exec::Hop;
using exec::NodePlan;
using exec::predicateTruth;
using exec::RecipeCache;
using exec::rngStateOf;
using exec::rngStateTensor;
using exec::sliceOfDim0;
using exec::TensorIndex;
using exec::uploadSafeTensor;

namespace {

// Thrown from inside a nested graph when the run is cancelled (the top level catches it).
struct Cancelled
{ };

}  // namespace

namespace exec {

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
    // Drops every value still held (a top-level frame is kept for the next run).
    void clear()
    {
        for (size_t i = 0; i < have.size(); ++i)
            if (have[i]) {
                env[i] = Value();
                have[i] = 0;
            }
    }
};

// What a graph prepared for runs keeps between them (GraphRunner): the plans of the graph
// and of its nested graphs (with the views they learnt), the argument recipes, the kernel-call
// record, the top-level frame and the accounting's table, so that a run after the first
// plans nothing and, in its steady state, allocates little besides the tensors it computes.
struct Prepared
{
    std::unordered_map<const Graph*, std::unique_ptr<GraphPlan>> plans;
    RecipeCache recipes;
    KernelCall call;  // reused by every kernel call (its argument values keep their capacity)
    std::unique_ptr<Frame> top;
    bool learnViews = true;  // false for executeGraph's one run (nothing would use them)
    StorageTable<StorageRef> refs;
    StorageTable<NodeId> inputStorages;  // the first top-level input bound to each storage
    // the file the last run read its inputs from, and each placeholder's tensor's index in it
    const SafeTensorsFile* inputsFile = nullptr;
    std::vector<int64_t> inputSlots;
    // one layout record per distinct (sizes, strides) among the views' results (ViewMemo), so
    // that the many views of a deep graph share a few records that stay in the cache
    struct ShapeHash
    {
        size_t operator()(const std::pair<std::vector<int64_t>, std::vector<int64_t>>& k) const
        {
            uint64_t h = 0x9E3779B97F4A7C15ull;
            for (int64_t x : k.first) h = (h ^ static_cast<uint64_t>(x)) * 0x100000001B3ull;
            for (int64_t x : k.second) h = (h ^ static_cast<uint64_t>(x + 0x51)) * 0x100000001B3ull;
            return static_cast<size_t>(h ^ (h >> 29));
        }
    };
    std::unordered_map<std::pair<std::vector<int64_t>, std::vector<int64_t>>, Tensor, ShapeHash> shapes;
    Tensor shared(const Tensor& t)
    {
        auto [it, fresh] = shapes.try_emplace({t.sizes(), t.strides()}, t);
        return fresh ? t : t.sharingShapeOf(it->second);
    }
};

}  // namespace exec

namespace {

using exec::Frame;
using exec::Prepared;
using exec::StorageRef;
using exec::StorageTable;
using exec::ViewMemo;

struct Runner
{
    const ExecOptions& opts;
    Backend& backend;
    Prepared& prep;
    const OpRegistry& reg = OpRegistry::instance();
    RngState rng;
    std::unordered_map<const Graph*, std::unique_ptr<GraphPlan>>& plans = prep.plans;
    RecipeCache& recipes = prep.recipes;
    KernelCall& call = prep.call;
    int depth = 0;  // nesting of bodies being run
    // top-level placeholders' and get_attr tensors' files by name, made when first needed
    std::optional<TensorIndex> inputIndex, constantIndex;

    // live-byte accounting of the top-level graph by the memory timeline's rules (distinct
    // storages of live values), bodies of single-body HOPs included (timeline rule R10)
    StorageTable<StorageRef>& refs = prep.refs;
    int64_t live = 0;
    int64_t stepPeak = 0;  // the most live bytes seen inside the bodies run by the current top-level step
    bool accounting = true;  // whether the graph being run is accounted (false inside cond/while/map bodies)
    const Node* currentNode = nullptr;  // the node being run (ExecOptions::onStorage)
    const Graph* currentGraph = nullptr;

    // in-place writes that reach a top-level input's storage (ExecResult::writtenInputs)
    StorageTable<NodeId>& inputStorages = prep.inputStorages;
    std::vector<WrittenInput> written;
    std::vector<NodeId> writtenNodes;  // the input node of each entry of `written`
    std::unordered_map<NodeId, size_t> writtenIndex;

    Runner(const ExecOptions& o, Backend& b, Prepared& p)
        : opts(o)
        , backend(b)
        , prep(p)
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
            const bool resident = isInput && !opts.countInputs;
            StorageRef* ref = refs.insert(s, StorageRef{0, resident}).first;
            if (ref->count++ == 0 && !ref->resident) {
                live += s->nbytes();
                if (opts.onStorage && s->nbytes() > 0) storageEvent(true, *s);
            }
        });
    }
    void storageEvent(bool alloc, const Storage& s)
    {
        ExecOptions::StorageEvent e;
        e.alloc = alloc;
        e.address = reinterpret_cast<uintptr_t>(s.data());
        e.bytes = s.nbytes();
        e.node = currentNode;
        e.graph = currentGraph;
        opts.onStorage(e);
    }
    void releaseValue(const Value& v)
    {
        forEachTensor(v, [&](const Tensor& t) {
            const Storage* s = t.storage().get();
            if (!s) return;
            StorageRef* ref = refs.find(s);
            if (!ref || --ref->count > 0) return;
            if (!ref->resident) {
                live -= s->nbytes();
                if (opts.onStorage && s->nbytes() > 0) storageEvent(false, *s);
            }
            refs.erase(s);
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
        // as a node's op runs (a custom op of an ops file included)
        Value callAten(const OpInfo& op, std::vector<Value> args) override
        {
            return r.invokeOp(n, op, std::move(args));
        }
        Backend& backend() override { return r.backend; }
    };
    // A Python operator on numbers (SymInt arithmetic, item() results): Python's semantics.
    std::optional<Value> scalarOperator(const Frame& f, const Node& n)
    {
        if (!n.kwargs.empty() || n.args.empty() || n.args.size() > 2 || !isScalarOperatorTarget(n.target))
            return std::nullopt;
        std::vector<Value> args;
        for (const Arg& a : n.args) {
            if (a.isNode() && ref(f, a.node).isTensor()) return std::nullopt;
            args.push_back(toValue(f, a));
        }
        return applyScalarOperator(n.target, args);
    }

    Value callTorch(const Frame& f, const Node& n, const NodePlan& np)
    {
        if (auto v = scalarOperator(f, n)) return std::move(*v);
        if (!np.torch) throw KernelError(np.error);
        TorchCtx ctx(*this, f, n);
        return np.torch->run(ctx, n);
    }

    Value callBuiltin(const Frame& f, const Node& n, const NodePlan& np)
    {
        const std::string& t = n.target;
        auto argv = [&](size_t k) { return toValue(f, n.args.at(k)); };
        if (np.itemOf != kNoNode) {  // an item of a tuple by a constant index: no argument read
            const Value& c = ref(f, np.itemOf);
            if (c.kind == Value::Kind::List) {
                const int64_t size = static_cast<int64_t>(c.items.size());
                const int64_t k = np.itemIndex < 0 ? np.itemIndex + size : np.itemIndex;
                if (k >= 0 && k < size) return c.items[static_cast<size_t>(k)];
            }
        }
        if (np.getitem) {
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
        if (auto v = scalarOperator(f, n)) return std::move(*v);
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

    // Writes the value of argument `a` into `dst`, reusing what dst holds (a list keeps its
    // capacity): the kernel-call record's arguments cost no allocation once warm.
    static void assignArg(Value& dst, const Frame& f, const Arg& a)
    {
        switch (a.kind) {
        case Arg::Kind::Node: Value::assignCopy(dst, ref(f, a.node)); return;
        case Arg::Kind::List:
        case Arg::Kind::Tuple: {
            Value::resetTo(dst, Value::Kind::List);
            dst.items.resize(a.items.size());
            for (size_t j = 0; j < a.items.size(); ++j) assignArg(dst.items[j], f, a.items[j]);
            return;
        }
        // the constants most arguments are, without a temporary value
        case Arg::Kind::None: Value::resetTo(dst, Value::Kind::None); break;
        case Arg::Kind::Int:
            Value::resetTo(dst, Value::Kind::Int);
            dst.i = a.i;
            break;
        case Arg::Kind::Float:
            Value::resetTo(dst, Value::Kind::Float);
            dst.f = a.f;
            break;
        case Arg::Kind::Bool:
            Value::resetTo(dst, Value::Kind::Bool);
            dst.b = a.b;
            break;
        case Arg::Kind::DType:
            Value::resetTo(dst, Value::Kind::DType);
            dst.dtype = a.dtype;
            break;
        default: Value::assignScalar(dst, argToValue(a)); return;
        }
        dst.items.clear();
    }
    // Lets go of the tensors a value holds (its lists keep their capacity).
    static void dropTensors(Value& v)
    {
        if (v.tensor.defined()) v.tensor = Tensor();
        for (auto& it : v.items) dropTensors(it);
    }
    // The node's arguments bound to its op's schema by the plan (ArgSlot), into `out` (one
    // value per schema argument, each overwritten in place).
    static void bindArgsInto(const Frame& f, const NodePlan& np, std::vector<Value>& out)
    {
        out.resize(np.argCount);
        const exec::ArgSlot* slots = f.plan.args.data() + np.argStart;
        for (size_t i = 0; i < np.argCount; ++i) {
            const exec::ArgSlot& slot = slots[i];
            switch (slot.from) {
            case exec::ArgSlot::From::Node: Value::assignCopy(out[i], ref(f, slot.node)); break;
            case exec::ArgSlot::From::Value: Value::assignCopy(out[i], *slot.value); break;
            case exec::ArgSlot::From::Arg: assignArg(out[i], f, *slot.arg); break;
            }
        }
    }

    // The node's arguments as values, bound to the schema by the recipe.
    static void bindArgs(const Frame& f, const Node& n, const BindRecipe& b, std::vector<Value>& out)
    {
        for (size_t i = 0; i < b.sources.size(); ++i) {
            const BindRecipe::Source& src = b.sources[i];
            switch (src.from) {
            case BindRecipe::From::Positional: out.push_back(toValue(f, n.args[src.index])); break;
            case BindRecipe::From::Keyword: out.push_back(toValue(f, n.kwargs[src.index].second)); break;
            case BindRecipe::From::Default:
                if (b.defaultOk[i])
                    out.push_back(b.defaultValues[i]);
                else
                    out.push_back(argToValue(b.defaults[i]));
                break;
            }
        }
    }

    Value callOp(const Frame& f, const Node& n, const NodePlan& np)
    {
        if (!np.error.empty()) throw KernelError(np.error);
        if (np.op->custom && runsDeclaration(*np.op, backend.device())) {
            std::vector<Value> args;
            bindArgs(f, n, *np.bind, args);
            return callCustom(*np.op, std::move(args));
        }
        ViewMemo* memo = np.view >= 0 ? &f.plan.views[static_cast<size_t>(np.view)] : nullptr;
        if (memo && memo->state == ViewMemo::State::Known) {
            const Value& self = ref(f, memo->self);
            if (self.isTensor() && self.tensor.sameLayout(memo->input)
                && self.tensor.storage()->nbytes() == memo->storageBytes) {
                ++viewsFromPlan;
                return viewFromMemo(*memo, self.tensor);
            }
        }
        call.result = Value();
        call.node = &n;
        call.op = np.op;
        call.kernel = np.kernel;
        call.outMeta = &n.val;
        call.backend = &backend;
        call.rng = &rng;
        struct Scrub  // the arguments' storages are not held past the call
        {
            std::vector<Value>& args;
            ~Scrub()
            {
                for (auto& a : args) dropTensors(a);
            }
        } scrub{call.args};
        bindArgsInto(f, np, call.args);
        backend.run(call);
        call.kernel = nullptr;
        if (memo && memo->state == ViewMemo::State::Unknown && prep.learnViews)
            learnView(*memo, ref(f, memo->self), call.result);
        return std::move(call.result);
    }

    // A metadata-only view's result on a run after the one that learnt it (ViewMemo).
    static Value viewFromMemo(const ViewMemo& m, const Tensor& self)
    {
        if (!m.list) return Value::ofTensor(m.outputs[0].onStorage(self.storage()));
        std::vector<Value> items;
        items.reserve(m.outputs.size());
        for (const Tensor& t : m.outputs) items.push_back(Value::ofTensor(t.onStorage(self.storage())));
        return Value::ofList(std::move(items));
    }
    // Keeps the layouts of a view node's input and results when every result is a view of the
    // input's storage; otherwise (the kernel copied) the node always runs its kernel.
    void learnView(ViewMemo& m, const Value& self, const Value& result)
    {
        m.state = ViewMemo::State::Never;
        if (!self.isTensor() || !self.tensor.defined()) return;
        const Storage* s = self.tensor.storage().get();
        auto isView = [&](const Value& v) { return v.isTensor() && v.tensor.storage().get() == s; };
        std::vector<Tensor> outs;
        if (result.kind == Value::Kind::List) {
            for (const Value& v : result.items) {
                if (!isView(v)) return;
                outs.push_back(prep.shared(v.tensor.onStorage(nullptr)));
            }
            m.list = true;
        } else {
            if (!isView(result)) return;
            outs.push_back(prep.shared(result.tensor.onStorage(nullptr)));
        }
        m.input = self.tensor.onStorage(nullptr);
        m.storageBytes = s->nbytes();
        m.outputs = std::move(outs);
        m.state = ViewMemo::State::Known;
    }

    // A custom operator of an ops file (core/ops/custom_ops.hpp): identity gives a copy of the
    // argument's value; a decomposition runs as a single-body HOP's body runs, its placeholders bound to the
    // arguments in schema order.
    Value callCustom(const OpInfo& op, std::vector<Value> args)
    {
        const CustomOp& c = *op.custom;
        if (c.identityArg >= 0) {
            // a copy, as PyTorch's custom ops return (their outputs may not alias their inputs),
            // so the memory timeline's new tensor is what the run allocates
            Value& v = args.at(static_cast<size_t>(c.identityArg));
            return v.isTensor() ? Value::ofTensor(exec::cloneDense(backend, v.tensor)) : std::move(v);
        }
        if (!c.decomposition) throw KernelError("custom operator " + op.qualifiedName + " has no body");
        Value v = runBody(*c.decomposition, "decomposition of " + op.qualifiedName, std::move(args), true);
        const size_t rets = op.schema.returns.size();
        if (rets == 0) return Value::none();
        if (rets == 1 && v.kind == Value::Kind::List && v.items.size() == 1) return std::move(v.items[0]);
        return v;
    }

    // Runs `op` on arguments bound in schema order: a custom op, else its kernel.
    Value invokeOp(const Node& n, const OpInfo& op, std::vector<Value> args)
    {
        if (op.custom && runsDeclaration(op, backend.device())) return callCustom(op, std::move(args));
        static const ValueMeta kUnknown;
        KernelCall kc;
        kc.node = &n;
        kc.op = &op;
        kc.args = std::move(args);
        kc.outMeta = &kUnknown;
        kc.backend = &backend;
        kc.rng = &rng;
        backend.run(kc);
        return std::move(kc.result);
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

    // Runs a nested graph on `operands` (bound to its placeholders in order) and returns the
    // value its output node returns (a tuple: a List value). `account`: a single-body HOP
    // (timeline rule R10): the body's values are accounted while it runs when its parent's are.
    Value runBody(const Graph& body, const std::string& name, std::vector<Value> operands, bool account = false)
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
        const bool outer = accounting;
        accounting = outer && account;
        try {
            Value v = runGraph(plan, &operands, nullptr);
            accounting = outer;
            return v;
        } catch (const KernelError& e) {
            accounting = outer;
            throw KernelError("in nested graph '" + name + "': " + e.what());
        } catch (...) {
            accounting = outer;
            throw;
        }
    }
    Value callHop(const Frame& f, const Node& n, const NodePlan& np)
    {
        switch (np.hop) {
        case Hop::InvokeSubgraph:
            return runBody(bodyArg(f, n, 0, "subgraph"), bodyName(f, n, 0), operandsFrom(f, n, 2), true);
        case Hop::Checkpoint:
            // the checkpoint only decides what autograd saves: forward, it is the body
            return runBody(bodyArg(f, n, 0, "body"), bodyName(f, n, 0), operandsFrom(f, n, 1), true);
        case Hop::SetGradEnabled:
            // no autograd here: grad mode changes nothing the body computes
            return runBody(bodyArg(f, n, 1, "body"), bodyName(f, n, 1), operandsFrom(f, n, 2), true);
        case Hop::Autocast: return autocast(f, n);
        case Hop::Cond: return cond(f, n);
        case Hop::WhileLoop: return whileLoop(f, n);
        case Hop::Map: return mapImpl(f, n);
        case Hop::RunAndSaveRng: return runAndSaveRngState(f, np);
        case Hop::RunWithRng: return runWithRngState(f, n, np);
        case Hop::AutoFunctionalized:
        case Hop::AutoFunctionalizedV2: return autoFunctionalized(f, n, np);
        case Hop::FlexAttention: return flexAttention(f, n, false);
        case Hop::FlexAttentionBackward: return flexAttention(f, n, true);
        default: throw KernelError("higher-order operator " + n.target + " is not supported by the executor");
        }
    }

    // auto_functionalized(_v2): the op runs on copies of the tensors it mutates (v2: copies of
    // their bases, the arguments regenerated as views of the copies); the value is the op's
    // outputs (None when it returns nothing), then the mutated copies (v2: the copied bases).
    Value autoFunctionalized(const Frame& f, const Node& n, const NodePlan& np)
    {
        if (!np.error.empty()) throw KernelError(np.error);
        std::vector<std::pair<std::string, Value>> kwargs;
        for (const auto& [key, a] : n.kwargs) kwargs.emplace_back(key, toValue(f, a));
        std::vector<Value> mutated;
        std::vector<Value> args =
            bindFunctionalizedArgs(backend, *np.op, kwargs, np.hop == Hop::AutoFunctionalizedV2, mutated);
        Value out = invokeOp(n, *np.op, std::move(args));
        std::vector<Value> items;
        const size_t rets = np.op->schema.returns.size();
        if (rets > 1 && out.kind == Value::Kind::List)
            items = std::move(out.items);
        else
            items.push_back(rets == 0 ? Value::none() : std::move(out));
        for (auto& m : mutated) items.push_back(std::move(m));
        return Value::ofList(std::move(items));
    }

    // flex_attention (and its backward) by PyTorch's dense math definition
    // (runtime/composite/flex_attention.hpp); score_mod, mask_mod and the joint graph run as
    // bodies (not accounted, as cond's), their operands the broadcast index tensors.
    Value flexAttention(const Frame& f, const Node& n, bool backward)
    {
        const char* hop = backward ? "flex_attention_backward" : "flex_attention";
        // operand positions: forward (q, k, v, score_mod, block_mask, scale, kernel_options,
        // score_mod_other_buffers, mask_mod_other_buffers); the backward inserts (out,
        // logsumexp, grad_out, grad_logsumexp) after v and joint_graph after fw_graph
        const size_t fw = backward ? 7 : 3, mask = fw + (backward ? 2 : 1);
        if (n.args.size() < mask + 2 || n.args.size() > mask + 5 || !n.kwargs.empty())
            throw KernelError(
                std::string(hop) + " expects its arguments positionally: "
                + (backward ? "(q, k, v, out, logsumexp, grad_out, grad_logsumexp, fw_graph, joint_graph, "
                            : "(q, k, v, score_mod, ")
                + "block_mask, scale, kernel_options[, score_mod_other_buffers, mask_mod_other_buffers])");
        auto tensorAt = [&](size_t k, const char* role) {
            const Value v = toValue(f, n.args[k]);
            if (!v.isTensor())
                throw KernelError(std::string(hop) + ": " + role + " (argument " + std::to_string(k)
                                  + ") must be a tensor");
            return v.tensor;
        };
        auto body = [&](const Arg& a, const char* role) {
            const Graph& g = *f.plan.g;
            const Node* attr = a.isNode() ? &g.node(a.node) : nullptr;
            const Graph* sub = attr && attr->op == NodeOp::GetAttr ? g.subgraph(attr->target) : nullptr;
            if (!sub) throw KernelError(std::string(hop) + ": expects a nested graph as " + role);
            return exec::FlexBody{sub, attr->target};
        };
        exec::FlexBackwardOperands o;
        o.fw.query = tensorAt(0, "query");
        o.fw.key = tensorAt(1, "key");
        o.fw.value = tensorAt(2, "value");
        o.fw.scoreMod = body(n.args[fw], backward ? "fw_graph" : "score_mod");
        const Arg& blockMask = n.args[mask];
        if ((blockMask.kind != Arg::Kind::Tuple && blockMask.kind != Arg::Kind::List) || blockMask.items.empty())
            throw KernelError(std::string(hop) + ": block_mask (argument " + std::to_string(mask)
                              + ") must be a tuple ending with the mask_mod graph");
        o.fw.maskMod = body(blockMask.items.back(), "the last item of block_mask (mask_mod)");
        const Value scale = toValue(f, n.args[mask + 1]);
        if (scale.kind != Value::Kind::Float && scale.kind != Value::Kind::Int)
            throw KernelError(std::string(hop) + ": scale (argument " + std::to_string(mask + 1)
                              + ") must be a number");
        o.fw.scale = scale.toDouble();
        // args[mask + 2]: kernel_options (they tune the compiled kernels only)
        o.fw.scoreModBuffers = tupleArg(f, n, mask + 3, "score_mod_other_buffers", true);
        o.fw.maskModBuffers = tupleArg(f, n, mask + 4, "mask_mod_other_buffers", true);
        TorchCtx ctx(*this, f, n);
        const torch_level::Call tc{ctx, n, {}, {}};
        const exec::BodyRunner run = [this](const Graph& g, const std::string& name, std::vector<Value> ops) {
            return runBody(g, name, std::move(ops));
        };
        if (!backward) {
            o.fw.maxScores = flexAttentionHasMaxScores(*f.plan.g, n);
            return exec::flexAttention(tc, o.fw, run);
        }
        o.joint = body(n.args[fw + 1], "joint_graph");
        o.out = tensorAt(3, "out");
        o.logsumexp = tensorAt(4, "logsumexp");
        const Value go = toValue(f, n.args[5]);
        if (go.isTensor()) o.gradOut = go.tensor;
        o.gradLogsumexp = toValue(f, n.args[6]);
        return exec::flexAttentionBackward(tc, o, run);
    }

    Value autocast(const Frame& f, const Node& n)
    {
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
        return runBody(body, bodyName(f, n, 4), std::move(ops), true);
    }

    Value cond(const Frame& f, const Node& n)
    {
        const Graph& trueBody = bodyArg(f, n, 1, "true_fn");
        const Graph& falseBody = bodyArg(f, n, 2, "false_fn");
        std::vector<Value> ops = tupleArg(f, n, 3, "operands");
        if (n.args.size() > 4) throw KernelError("cond expects (pred, true_fn, false_fn, operands)");
        const bool predicate = predicateTruth(backend, toValue(f, n.args.at(0)), "cond's predicate");
        return predicate ? runBody(trueBody, bodyName(f, n, 1), std::move(ops))
                         : runBody(falseBody, bodyName(f, n, 2), std::move(ops));
    }

    // (state before the op, the op's value); the op advances the generator as usual.
    Value runAndSaveRngState(const Frame& f, const NodePlan& np)
    {
        if (!np.error.empty()) throw KernelError(np.error);
        const RngState before = rng;
        Value out = callOp(f, *np.inner, np);
        std::vector<Value> items;
        items.push_back(Value::ofTensor(rngStateTensor(backend, before)));
        items.push_back(std::move(out));
        return Value::ofList(std::move(items));
    }

    // As PyTorch: the op runs at the given state, then the generator goes back to the state
    // it had before (what the op drew does not advance the run's stream).
    Value runWithRngState(const Frame& f, const Node& n, const NodePlan& np)
    {
        if (!np.error.empty()) throw KernelError(np.error);
        const RngState given = rngStateOf(backend, toValue(f, n.args[0]));
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
            if (!predicateTruth(backend, runBody(condFn, condName, withExtra()), "while_loop's cond_fn result")) break;
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
        if (iterations == 0) replaceTensorsWithCopies(backend, carried);
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
            for (const auto& x : xs) in.push_back(Value::ofTensor(sliceOfDim0(x.tensor, i)));
            in.insert(in.end(), pos.begin(), pos.end());
            const std::vector<Value> out = itemsOf(runBody(body, name, std::move(in)));
            if (i == 0) stacked = allocateStackedOutputs(backend, out, count);
            copyIntoStackedOutputs(backend, stacked, out, i);
        }
        std::vector<Value> items;
        for (auto& t : stacked) items.push_back(Value::ofTensor(std::move(t)));
        return Value::ofList(std::move(items));
    }

    // ---- the node loop

    // A placeholder's value: the next operand in a body; at top level from the inputs file
    // (checked against the meta) or generated.
    // the top-level graph, and its index bounds once an input is generated
    const Graph* topGraph = nullptr;
    std::optional<std::unordered_map<NodeId, int64_t>> indexBounds;

    // The inputs file's tensor of top-level placeholder number `index`: where the run before
    // found it in the same file when it is still there under the placeholder's name (a
    // GraphRunner's steps bind their inputs without a lookup by name), else by findInput.
    const SafeTensor* inputOf(const Node& n, uint64_t index)
    {
        if (!opts.inputs) return nullptr;
        const auto& tensors = opts.inputs->tensors;
        int64_t& slot = prep.inputSlots.at(index);
        if (slot >= 0 && static_cast<size_t>(slot) < tensors.size()
            && tensors[static_cast<size_t>(slot)].name == n.name)
            return &tensors[static_cast<size_t>(slot)];
        if (!inputIndex) inputIndex.emplace(opts.inputs);
        const SafeTensor* st = findInput(n, *inputIndex);
        slot = st ? st - tensors.data() : -1;
        return st;
    }

    Value placeholderValue(const Node& n, uint64_t index, std::vector<Value>* operands)
    {
        if (operands) return std::move((*operands)[index]);
        if (opts.inputValues) {
            if (index >= opts.inputValues->size())
                throw KernelError("no value given for input '" + n.name + "' (ExecOptions::inputValues has "
                                  + std::to_string(opts.inputValues->size()) + ")");
            return (*opts.inputValues)[index];
        }
        if (const SafeTensor* st = inputOf(n, index)) {
            checkInputAgainstMeta(n, *st);
            return Value::ofTensor(uploadSafeTensor(*st, backend, "input", n.name));
        }
        if (opts.requireAllInputs) throw KernelError("input '" + n.name + "' is missing from the inputs file");
        if (!indexBounds) indexBounds = indexUpperBounds(*topGraph);
        return generateInput(n, opts.inputSeed, index, backend, exec::boundOf(*indexBounds, n));
    }

    // A get_attr tensor from the constants file; a nested graph has no value (the HOP that
    // names it reads it) and no storage.
    Value constantValue(const Graph& g, const Node& n)
    {
        if (g.subgraph(n.target)) return Value();
        if (!constantIndex) constantIndex.emplace(opts.constants);
        const SafeTensor* st = constantIndex->find(n.target);
        if (!st) throw KernelError("constant '" + n.target + "' is not in the constants file");
        return Value::ofTensor(uploadSafeTensor(*st, backend, "constant", n.target));
    }

    // The value of one node (the output node sets `result` instead).
    Value computeNode(const Frame& f, const Node& n, const NodePlan& np, std::vector<Value>* operands,
                      size_t& placeholderIndex, Value& result)
    {
        switch (np.kind) {
        case NodePlan::Kind::Placeholder: return placeholderValue(n, placeholderIndex++, operands);
        case NodePlan::Kind::GetAttr: return constantValue(*f.plan.g, n);
        case NodePlan::Kind::Builtin: return callBuiltin(f, n, np);
        case NodePlan::Kind::Torch: return callTorch(f, n, np);
        case NodePlan::Kind::Op: return callOp(f, n, np);
        case NodePlan::Kind::Hop: return callHop(f, n, np);
        case NodePlan::Kind::Output:
            if (!n.args.empty()) result = toValue(f, n.args[0]);
            return Value();
        default:
            if (!np.error.empty()) throw KernelError(np.error);
            throw KernelError(std::string(nodeOpName(n.op)) + " nodes are not supported by the runtime");
        }
    }

    // Top level: the live bytes of a step (its outputs allocated, or its bodies' peak while
    // they ran, whichever is more), and the peak.
    void recordLiveBytes(size_t k, ExecResult& res)
    {
        const int64_t step = std::max(live, stepPeak);
        stepPeak = 0;
        res.liveBytesPerStep.push_back(step);
        if (step > res.peakBytes) {
            res.peakBytes = step;
            peakStep = k;
        }
    }
    size_t peakStep = SIZE_MAX;  // the top-level step of ExecResult::peakNode
    int64_t viewsFromPlan = 0;  // ExecResult::viewsFromPlan

    // Records a top-level input's storages, so that writes to them are found at any depth.
    void noteInput(const Node& n, const Value& v)
    {
        forEachTensor(v, [&](const Tensor& t) {
            if (t.storage()) inputStorages.insert(t.storage().get(), n.id);
        });
    }

    // Node n (of frame f) has run: each input whose storage one of its written arguments
    // refers to counts one write by n (NodePlan::writes).
    void noteWrites(const Frame& f, const Node& n, const NodePlan& np)
    {
        std::vector<NodeId> hit;
        for (NodeId w : np.writes) {
            const size_t i = static_cast<size_t>(w);
            if (i >= f.have.size() || !f.have[i]) continue;
            forEachTensor(f.env[i], [&](const Tensor& t) {
                const NodeId* input = inputStorages.find(t.storage().get());
                if (input && std::find(hit.begin(), hit.end(), *input) == hit.end()) hit.push_back(*input);
            });
        }
        for (NodeId input : hit) {
            auto [it, fresh] = writtenIndex.try_emplace(input, written.size());
            if (fresh) {
                const Node& in = topGraph->node(input);
                written.push_back({in.op == NodeOp::GetAttr ? in.target : in.name, in.op == NodeOp::GetAttr, {}, {}});
                writtenNodes.push_back(input);
            }
            written[it->second].writers.push_back(n.name);
        }
    }

    // Later uses of node `target` read the value node n just gave it (NodePlan::rebinds).
    void rebind(Frame& f, size_t target, const Node& n, bool acc)
    {
        if (target >= f.have.size() || !f.have[target]) return;
        const Value& v = f.env[static_cast<size_t>(n.id)];
        if (acc) {
            acquire(v, false);
            releaseValue(f.env[target]);
        }
        f.env[target] = v;
    }

    // Frees the values whose last use was step k (released from the accounting at top level).
    void freeDyingValues(Frame& f, size_t k, bool top)
    {
        const GraphPlan& plan = f.plan;
        for (size_t j = plan.dyingStart[k]; j < plan.dyingStart[k + 1]; ++j) {
            const size_t i = static_cast<size_t>(plan.dying[j]);
            if (!f.have[i]) continue;
            if (top) releaseValue(f.env[i]);
            Value::resetTo(f.env[i], Value::Kind::None);
            f.env[i].items.clear();
            f.have[i] = 0;
        }
    }

    // Runs one graph. Top level (operands == nullptr): placeholders from the inputs file or
    // generated, live bytes accounted into `res`. Nested: placeholders bound to `operands` in
    // order; values are freed after their last use within the body (so its temporaries do not
    // outlive the HOP's step); a single-body HOP's body is accounted while it runs (its peak
    // goes into the top-level step's live bytes), other bodies are not (see executor.hpp).
    Value runGraph(const GraphPlan& plan, std::vector<Value>* operands, ExecResult* res,
                   std::vector<double>* stepSeconds = nullptr)
    {
        const Graph& g = *plan.g;
        const auto& order = g.order();
        const bool top = operands == nullptr;
        const bool acc = top || accounting;
        std::optional<Frame> nested;
        if (top && (!prep.top || &prep.top->plan != &plan)) prep.top = std::make_unique<Frame>(plan);
        Frame& f = top ? *prep.top : nested.emplace(plan);
        struct Clear  // a kept frame lets go of its values when the run ends, as a nested one does
        {
            Frame* f;
            ~Clear()
            {
                if (f) f->clear();
            }
        } clearTop{top ? &f : nullptr};
        Value result;
        size_t placeholderIndex = 0;
        // one clock read per step: a step's time runs from the end of the previous one
        auto last = top && opts.timeSteps ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
        for (size_t k = 0; k < order.size(); ++k) {
            const Node& n = g.node(order[k]);
            const NodePlan& np = plan.nodes[k];
            if (opts.cancel && opts.cancel->load()) throw Cancelled{};
            currentNode = &n;
            currentGraph = &g;
            Value v;
            try {
                v = computeNode(f, n, np, operands, placeholderIndex, result);
            } catch (const KernelError& e) {
                throw KernelError("node '" + n.name + "' (" + n.target + "): " + e.what());
            }
            currentNode = &n;  // again: a higher-order op's bodies ran nodes of their own
            currentGraph = &g;
            if (!np.writes.empty() && !inputStorages.empty()) noteWrites(f, n, np);
            if (np.kind != NodePlan::Kind::Output) {
                const bool isInput = np.kind == NodePlan::Kind::Placeholder || np.kind == NodePlan::Kind::GetAttr;
                if (top && isInput) noteInput(n, v);
                if (acc) acquire(v, top && isInput);
                if (acc && !top) stepPeak = std::max(stepPeak, live);
                f.env[static_cast<size_t>(np.id)] = std::move(v);
                f.have[static_cast<size_t>(np.id)] = 1;
                if (np.rebinds != kNoNode) rebind(f, static_cast<size_t>(np.rebinds), n, acc);
                if (top && opts.onValue) opts.onValue(n, f.env[static_cast<size_t>(np.id)]);
            }
            if (top) recordLiveBytes(k, *res);
            freeDyingValues(f, k, acc);
            if (top) {
                if (opts.timeSteps) {
                    const auto now = std::chrono::steady_clock::now();
                    stepSeconds->push_back(std::chrono::duration<double>(now - last).count());
                    last = now;
                }
                if (opts.progress) opts.progress(k + 1, order.size(), n);
            }
        }
        if (acc && !top)  // what the body still holds goes with it (its outputs: to the HOP's value)
            for (size_t i = 0; i < f.have.size(); ++i)
                if (f.have[i]) releaseValue(f.env[i]);
        if (top)  // inputs are never freed (R4): their values after the run
            for (size_t k = 0; k < written.size(); ++k) {
                const size_t i = static_cast<size_t>(writtenNodes[k]);
                if (i < f.have.size() && f.have[i]) written[k].value = f.env[i];
            }
        return result;
    }
};

// A top-level node that cannot run (unknown operator, unsupported HOP, no kernel on the
// device) fails the run before any node runs, with the message its step would give: a large
// graph must not compute for minutes to fail on its last node.
void failFastOnUnrunnableNode(const GraphPlan& plan, DeviceKind device)
{
    const auto& order = plan.g->order();
    std::unordered_map<const OpInfo*, bool> hasKernel;  // one registry lookup per distinct op
    for (size_t k = 0; k < order.size(); ++k) {
        const NodePlan& np = plan.nodes[k];
        if (np.kind == NodePlan::Kind::Op && np.error.empty() && np.op) {
            if (np.op->custom) continue;
            auto [it, fresh] = hasKernel.try_emplace(np.op, true);
            if (fresh) it->second = KernelRegistry::instance().find(np.op->qualifiedName, device) != nullptr;
            if (it->second) continue;
        }
        std::string why;
        if ((np.kind == NodePlan::Kind::Op || np.kind == NodePlan::Kind::Hop) && !np.error.empty())
            why = np.error;
        else if (np.kind == NodePlan::Kind::Torch && !np.torch)
            why = np.error;
        else if (np.kind == NodePlan::Kind::Op && np.op && device == DeviceKind::Cuda
                 && KernelRegistry::instance().find(np.op->qualifiedName, DeviceKind::Cpu))
            why = "no CUDA kernel for " + np.op->qualifiedName
                + " yet (docs/coverage.md, \"On CUDA\", lists the operators that run on the CPU only); run the "
                  "graph on the CPU";
        else if (np.kind == NodePlan::Kind::Op && np.op)  // (the lookup above found no kernel)
            why = "no " + std::string(device == DeviceKind::Cuda ? "CUDA" : "CPU") + " kernel for "
                + np.op->qualifiedName + "; an ops file can give it a body: its schema (" + formatSchema(np.op->schema)
                + ") and a decomposition over operators fxlens runs (docs/custom_ops.md, --ops FILE)";
        if (why.empty()) continue;
        const Node& n = plan.g->node(order[k]);
        throw KernelError("node '" + n.name + "' (" + n.target + "): " + why);
    }
}

}  // namespace

void requireRunnable(const Graph& g, DeviceKind device)
{
    RecipeCache recipes;
    const auto plan = exec::makePlan(g, OpRegistry::instance(), recipes, device);
    failFastOnUnrunnableNode(*plan, device);
}

struct GraphRunner::State
{
    const Graph& g;
    Backend& backend;
    exec::Prepared prep;
    const GraphPlan* plan = nullptr;
    State(const Graph& graph, Backend& b)
        : g(graph)
        , backend(b)
    { }
};

GraphRunner::GraphRunner(const Graph& g, Backend& backend)
    : state_(std::make_unique<State>(g, backend))
{
    auto& p = state_->prep.plans[&g];
    p = exec::makePlan(g, OpRegistry::instance(), state_->prep.recipes, backend.device());
    failFastOnUnrunnableNode(*p, backend.device());
    state_->plan = p.get();
}

GraphRunner::~GraphRunner() = default;

ExecResult GraphRunner::run(const ExecOptions& opts)
{
    State& st = *state_;
    if (opts.backend && opts.backend != &st.backend)
        throw std::invalid_argument("GraphRunner::run: ExecOptions::backend is not the backend it was prepared for");
    const Graph& g = st.g;
    Runner r(opts, st.backend, st.prep);
    r.topGraph = &g;
    if (st.prep.inputsFile != opts.inputs || st.prep.inputSlots.size() != st.plan->placeholders) {
        st.prep.inputsFile = opts.inputs;
        st.prep.inputSlots.assign(st.plan->placeholders, -1);
    }
    r.refs.clear();
    r.inputStorages.clear();

    ExecResult res;
    res.liveBytesPerStep.reserve(g.order().size());
    std::vector<double> stepSeconds;
    stepSeconds.reserve(g.order().size());
    const auto t0 = std::chrono::steady_clock::now();
    try {
        Value out = r.runGraph(*st.plan, nullptr, &res, &stepSeconds);
        res.writtenInputs = std::move(r.written);
        if (out.kind == Value::Kind::List)
            res.outputs = std::move(out.items);
        else if (g.outputNode() != kNoNode && !g.node(g.outputNode()).args.empty())
            res.outputs.push_back(std::move(out));
    } catch (const Cancelled&) {
        res.cancelled = true;
    }
    if (r.peakStep < g.order().size()) res.peakNode = g.node(g.order()[r.peakStep]).name;
    res.viewsFromPlan = r.viewsFromPlan;
    r.refs.clear();
    r.inputStorages.clear();
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

ExecResult executeGraph(const Graph& g, const ExecOptions& opts)
{
    std::shared_ptr<Backend> own;
    Backend* backend = opts.backend;
    if (!backend) {
        own = makeBackend("cpu", BackendOptions{opts.threads}, nullptr);
        backend = own.get();
    }
    GraphRunner prepared(g, *backend);
    prepared.state_->prep.learnViews = false;
    ExecResult res = prepared.run(opts);
    res.ownedBackend = own;
    return res;
}

SafeTensorsFile resolveInputs(const Graph& g, const ExecOptions& opts, std::vector<std::string>* generated)
{
    std::unique_ptr<Backend> own;
    Backend* backend = opts.backend;
    if (!backend) {
        own = makeBackend("cpu", BackendOptions{1}, nullptr);
        backend = own.get();
    }
    SafeTensorsFile f;
    const TensorIndex given(opts.inputs);
    std::optional<std::unordered_map<NodeId, int64_t>> bounds;  // once an input is generated
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
                if (!bounds) bounds = indexUpperBounds(g);
                const Value v = generateInput(n, opts.inputSeed, index, *backend, exec::boundOf(*bounds, n));
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

SafeTensor valueToSafeTensor(const std::string& name, const Value& v, Backend& backend)
{
    SafeTensor st;
    st.name = name;
    if (!v.isTensor()) return st;
    st.dtype = v.tensor.dtype();
    st.shape = v.tensor.sizes();
    st.data.resize(static_cast<size_t>(v.tensor.nbytes()));
    backend.download(st.data.data(), v.tensor, v.tensor.nbytes());
    return st;
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
        f.tensors.push_back(valueToSafeTensor(name, v, backend));
    }
    if (!skipped.empty()) f.metadata["skipped"] = skipped;
    return f;
}

}  // namespace fxl
