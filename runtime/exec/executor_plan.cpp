#include "runtime/exec/executor_plan.hpp"

#include <algorithm>
#include <limits>

#include "core/ops/custom_ops.hpp"
#include "core/ops/op_writes.hpp"
#include "runtime/base/kernel.hpp"

namespace fxl::exec {

namespace {

constexpr size_t kNever = std::numeric_limits<size_t>::max();

void planArgs(GraphPlan& p, NodePlan& np, const Node& n, const BindRecipe& bind);

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
    if (!np.bind)
        np.error = hop + ": " + np.error;
    else
        planArgs(p, np, *inner, *np.bind);
    np.inner = inner.get();
    p.innerNodes.push_back(std::move(inner));
}

// auto_functionalized(_v2)(op, **kwargs) (torch/_higher_order_ops/auto_functionalize.py): the
// op is an op overload printed inline, every other argument a keyword. The wrapped op must be
// one the backend runs: a kernel or a declared custom op (ops files).
void planAutoFunctionalized(NodePlan& np, const Node& n, const OpRegistry& reg, DeviceKind device)
{
    const std::string hop = np.hop == Hop::AutoFunctionalized ? "auto_functionalized" : "auto_functionalized_v2";
    if (n.args.size() != 1 || n.args[0].kind != Arg::Kind::Op) {
        np.error = hop + " expects (op, **kwargs): the op overload as its one positional argument";
        return;
    }
    const OpInfo* op = reg.find(n.args[0].s);
    if (!op) {
        np.error = hop + ": unknown operator " + n.args[0].s + ": " + undeclaredOperatorHint();
        return;
    }
    if (op->has(kTraitHigherOrder)) {
        np.error = hop + ": the wrapped op " + op->qualifiedName + " is a higher-order operator (not supported)";
        return;
    }
    if (!op->custom && !KernelRegistry::instance().find(op->qualifiedName, device)) {
        np.error = hop + ": no " + std::string(device == DeviceKind::Cpu ? "CPU" : "CUDA") + " kernel for "
            + op->qualifiedName;
        return;
    }
    np.op = op;
}

// The argument node an op may give new sizes in place (NodePlan::rebinds): resize_'s self
// and an out= overload's `out`, the argument the op writes and returns (Tensor(a!) -> Tensor(a!)).
NodeId rebindTarget(const OpInfo& op, const Node& n)
{
    const Schema& s = op.schema;
    if (!(s.name == "resize_" || s.overload == "out") || s.returns.size() != 1 || !s.returns[0].alias
        || !s.returns[0].alias->isWrite)
        return kNoNode;
    for (size_t i = 0; i < s.args.size(); ++i) {
        const SchemaArg& a = s.args[i];
        if (!a.alias || !a.alias->isWrite || a.alias->set != s.returns[0].alias->set) continue;
        const Arg* given = !a.kwargOnly && i < n.args.size() ? &n.args[i] : n.kwarg(a.name);
        return given && given->isNode() ? given->node : kNoNode;
    }
    return kNoNode;
}

// The sources of the schema arguments of op node n bound by `bind` (ArgSlot).
void planArgs(GraphPlan& p, NodePlan& np, const Node& n, const BindRecipe& bind)
{
    np.argStart = static_cast<uint32_t>(p.args.size());
    np.argCount = static_cast<uint32_t>(bind.sources.size());
    for (size_t i = 0; i < bind.sources.size(); ++i) {
        const BindRecipe::Source& src = bind.sources[i];
        ArgSlot slot;
        if (src.from == BindRecipe::From::Default) {
            if (bind.defaultOk[i]) {
                slot.from = ArgSlot::From::Value;
                slot.value = &bind.defaultValues[i];
            } else {
                slot.arg = &bind.defaults[i];  // converted, and its error thrown, when run
            }
            p.args.push_back(slot);
            continue;
        }
        const Arg& a = src.from == BindRecipe::From::Positional ? n.args[src.index] : n.kwargs[src.index].second;
        slot.arg = &a;
        if (a.isNode()) {
            slot.from = ArgSlot::From::Node;
            slot.node = a.node;
        } else {
            bool constant = true;
            a.forEachNode([&](NodeId) { constant = false; });
            if (constant) {
                try {
                    p.constants.push_back(argToValue(a));
                    slot.from = ArgSlot::From::Value;
                    slot.value = &p.constants.back();
                } catch (const KernelError&) {  // thrown when the node runs
                }
            }
        }
        p.args.push_back(slot);
    }
}

// A metadata-only view (ViewMemo) whose self is its first positional argument, a node, and
// whose other arguments hold no node.
bool isConstantArgView(const OpInfo& op, const Node& n, const BindRecipe& bind)
{
    if (!op.has(kTraitView) && !op.has(kTraitViewList) && !op.has(kTraitAliasNoAnnot)) return false;
    if (op.has(kTraitInplace) || op.has(kTraitRandom) || op.has(kTraitCollective) || op.has(kTraitSideEffect))
        return false;
    if (bind.sources.empty() || bind.sources[0].from != BindRecipe::From::Positional || bind.sources[0].index != 0
        || n.args.empty() || !n.args[0].isNode())
        return false;
    bool constant = true;
    auto noNode = [&](NodeId) { constant = false; };
    for (size_t k = 1; k < n.args.size(); ++k) n.args[k].forEachNode(noNode);
    for (const auto& kv : n.kwargs) kv.second.forEachNode(noNode);
    return constant;
}

// A call_function node: a builtin, a Dynamo-level lowering, a higher-order operator or an op
// kernel with its arguments bound. `opByTarget` caches registry lookups across the graph.
// The device's kernel of an op: one registry lookup per distinct op (it builds a string).
const KernelFn* kernelOf(const OpInfo& op, DeviceKind device, std::unordered_map<const OpInfo*, const KernelFn*>& cache)
{
    auto [it, fresh] = cache.try_emplace(&op, nullptr);
    if (fresh) it->second = KernelRegistry::instance().find(op.qualifiedName, device);
    return it->second;
}

void planCallFunction(GraphPlan& p, NodePlan& np, const Node& n, const OpRegistry& reg, RecipeCache& recipes,
                      DeviceKind device, std::unordered_map<std::string_view, const OpInfo*>& opByTarget,
                      std::unordered_map<const OpInfo*, const KernelFn*>& kernels)
{
    const bool isOperator = n.target.rfind("operator.", 0) == 0 || n.target.rfind("_operator.", 0) == 0;
    if (n.isGetitem()) {
        // tuples by int stay a builtin (by reference); tensors take the lowering
        np.kind = NodePlan::Kind::Builtin;
        np.getitem = true;
        if (n.args.size() == 2 && n.kwargs.empty() && n.args[0].isNode() && n.args[1].kind == Arg::Kind::Int) {
            np.itemOf = n.args[0].node;
            np.itemIndex = n.args[1].i;
        }
        std::string ignored;
        np.torch = planTorchLevel(n, ignored);
        return;
    }
    if (isOperator && hasTorchLevelLowering(n)) {
        np.kind = NodePlan::Kind::Torch;
        np.torch = planTorchLevel(n, np.error);
        return;
    }
    if (isOperator || n.target.rfind("builtins.", 0) == 0 || n.target.rfind("math.", 0) == 0
        || (n.target.rfind("torch.sym_", 0) == 0 && !hasTorchLevelLowering(n))) {
        np.kind = NodePlan::Kind::Builtin;
        return;
    }
    // one registry lookup per distinct target (it normalises, allocating, each time)
    auto [it, fresh] = opByTarget.try_emplace(n.target, nullptr);
    if (fresh) it->second = reg.find(n.target);
    const OpInfo* op = it->second;
    // torch-level targets (torch.mul, torch.nn.functional.gelu, ...) run through their
    // lowering to aten ops unless a kernel is registered for the target itself
    if (hasTorchLevelLowering(n) && !(op && (op->custom || kernelOf(*op, device, kernels)))) {
        np.kind = NodePlan::Kind::Torch;
        np.torch = planTorchLevel(n, np.error);
        return;
    }
    np.hop = hopOf(op ? std::string_view(op->qualifiedName) : std::string_view(n.target));
    if (np.hop != Hop::None) {
        np.kind = NodePlan::Kind::Hop;
        if (np.hop == Hop::RunAndSaveRng || np.hop == Hop::RunWithRng) planRngHop(p, np, n, reg, recipes);
        if (np.hop == Hop::AutoFunctionalized || np.hop == Hop::AutoFunctionalizedV2)
            planAutoFunctionalized(np, n, reg, device);
        return;
    }
    np.kind = NodePlan::Kind::Op;
    np.op = op;
    if (np.op) np.rebinds = rebindTarget(*np.op, n);
    if (!np.op)
        np.error = "unknown operator " + n.target + ": " + undeclaredOperatorHint();
    else if (np.op->has(kTraitHigherOrder))
        np.error = "higher-order operator " + n.target + " is not supported by the executor";
    else
        np.bind = recipes.get(reg, *np.op, n, np.error);
    if (!np.bind) return;
    planArgs(p, np, n, *np.bind);
    if (np.op->custom) return;
    np.kernel = kernelOf(*np.op, device, kernels);
    if (np.kernel && isConstantArgView(*np.op, n, *np.bind)) np.view = static_cast<int32_t>(p.views.size());
    if (np.view >= 0) p.views.emplace_back().self = n.args[0].node;
}

// The last step that reads each node; outputs and inputs never die (R4, R6). Fills the
// plan's per-step lists of dying nodes.
void planDyingValues(GraphPlan& p)
{
    const Graph& g = *p.g;
    const auto& order = g.order();
    std::vector<size_t> lastUse(p.maxId, kNever);
    std::vector<uint8_t> pinned(p.maxId, 0);
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
    p.dyingStart.assign(order.size() + 1, 0);
    for (NodeId id : order) {
        const size_t i = static_cast<size_t>(id);
        if (!pinned[i] && lastUse[i] != kNever) ++p.dyingStart[lastUse[i] + 1];
    }
    for (size_t k = 0; k < order.size(); ++k) p.dyingStart[k + 1] += p.dyingStart[k];
    p.dying.resize(p.dyingStart.back());
    std::vector<size_t> fill(p.dyingStart.begin(), p.dyingStart.end() - 1);
    for (NodeId id : order) {
        const size_t i = static_cast<size_t>(id);
        if (!pinned[i] && lastUse[i] != kNever) p.dying[fill[lastUse[i]]++] = id;
    }
}

}  // namespace

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
    if (t == "auto_functionalized") return Hop::AutoFunctionalized;
    if (t == "auto_functionalized_v2") return Hop::AutoFunctionalizedV2;
    if (t == "flex_attention") return Hop::FlexAttention;
    if (t == "flex_attention_backward") return Hop::FlexAttentionBackward;
    return Hop::Unsupported;
}

const BindRecipe* RecipeCache::get(const OpRegistry& reg, const OpInfo& op, const Node& n, std::string& error)
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

std::unique_ptr<BindRecipe> RecipeCache::build(const OpInfo& op, const Node& n)
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

std::unique_ptr<GraphPlan> makePlan(const Graph& g, const OpRegistry& reg, RecipeCache& recipes, DeviceKind device)
{
    auto p = std::make_unique<GraphPlan>();
    p->g = &g;
    const auto& order = g.order();
    for (NodeId id : order) p->maxId = std::max(p->maxId, static_cast<size_t>(id) + 1);
    p->nodes.resize(order.size());
    std::unordered_map<std::string_view, const OpInfo*> opByTarget;
    std::unordered_map<const OpInfo*, const KernelFn*> kernels;
    p->args.reserve(order.size() * 2);
    std::unordered_map<std::string_view, bool> mayWrite[2];  // call_function, call_method targets
    for (size_t k = 0; k < order.size(); ++k) {
        const Node& n = g.node(order[k]);
        NodePlan& np = p->nodes[k];
        np.id = n.id;
        switch (n.op) {
        case NodeOp::Placeholder:
            np.kind = NodePlan::Kind::Placeholder;
            ++p->placeholders;
            break;
        case NodeOp::GetAttr: np.kind = NodePlan::Kind::GetAttr; break;
        case NodeOp::Output: np.kind = NodePlan::Kind::Output; break;
        case NodeOp::CallFunction: planCallFunction(*p, np, n, reg, recipes, device, opByTarget, kernels); break;
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
        if (n.op == NodeOp::CallFunction || n.op == NodeOp::CallMethod) {
            auto [it, fresh] = mayWrite[n.op == NodeOp::CallMethod].try_emplace(n.target, false);
            if (fresh) it->second = targetMayWrite(n.op, n.target, reg);
            if (it->second)
                for (const WrittenArgument& w : writtenArguments(n, reg))
                    if (w.node != kNoNode) np.writes.push_back(w.node);
        }
    }
    planDyingValues(*p);
    return p;
}

Value argToValue(const Arg& a)
{
    try {
        return Value::ofConstant(a);
    } catch (const std::invalid_argument& e) {
        if (a.kind == Arg::Kind::Node) throw KernelError("a node reference where a constant was expected");
        throw KernelError(std::string(e.what()) + ": not supported by the runtime");
    }
}

}  // namespace fxl::exec
