// What the executor works out once per graph before running it: per node, how it runs (an op
// kernel with its arguments bound to the schema, a builtin, a Dynamo-level lowering, a
// higher-order operator) and, per step, the values that die after it.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/ir/graph.hpp"
#include "core/ops/op_registry.hpp"
#include "runtime/base/backend.hpp"
#include "runtime/base/kernel.hpp"
#include "runtime/base/value.hpp"
#include "runtime/torch_level/torch_level.hpp"

namespace fxl::exec {

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
    AutoFunctionalized,  // auto_functionalized(op, **kwargs) -> (op's outputs..., mutated clones...)
    AutoFunctionalizedV2,  // auto_functionalized_v2(op, **kwargs, _all_bases=[...]) -> (outputs..., bases...)
    FlexAttention,  // flex_attention(q, k, v, score_mod, block_mask, scale, kernel_options, ...)
    FlexAttentionBackward,  // flex_attention_backward(q, k, v, out, lse, grad_out, grad_lse, fw, joint, ...)
    Unsupported,  // another higher_order.* target
};

Hop hopOf(std::string_view target);

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

// Where one schema argument of an op node comes from (NodePlan::argStart): a node's value, a
// value worked out when the plan was made (a constant of the node, a default of the schema),
// or an argument to bind at run time (a list that holds nodes; a constant the runtime cannot
// convert, whose error is then thrown when the node runs). Binding reads these and the values
// of the graph, not the nodes' argument trees.
struct ArgSlot
{
    enum class From : uint8_t
    {
        Node,
        Value,
        Arg
    };
    From from = From::Arg;
    NodeId node = kNoNode;  // Node
    const Value* value = nullptr;  // Value
    const Arg* arg = nullptr;  // Arg
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
    NodeId id = kNoNode;  // the node's (so that a step whose node needs no other field reads no Node)
    bool getitem = false;  // Builtin: operator.getitem
    // getitem(node, constant int): the node and the index (kNoNode otherwise)
    NodeId itemOf = kNoNode;
    int64_t itemIndex = 0;
    const OpInfo* op = nullptr;  // Op; the op an RNG-state or auto_functionalized HOP wraps
    const BindRecipe* bind = nullptr;  // Op, and the op wrapped by an RNG-state HOP
    std::string error;  // Op / RNG-state / auto_functionalized HOP: why the node cannot run (thrown when reached)
    // run_and_save_rng_state / run_with_rng_state: the wrapped op as a node of its own (the
    // HOP's arguments after the op, its kwargs, the op's part of the meta), so it binds and
    // runs exactly as the same op written as a node
    const Node* inner = nullptr;
    // Op: the node whose value this op changes in place beyond its elements (resize_'s self,
    // an out= overload's out, which it may resize): later uses of that node read this node's
    // value, as they see the same Python tensor in PyTorch. kNoNode for every other op.
    NodeId rebinds = kNoNode;
    // The argument nodes this node writes in place (core/ops/op_writes.hpp writtenArguments):
    // the executor reports writes that reach a top-level placeholder or get_attr tensor.
    std::vector<NodeId> writes;
    // Torch: the Dynamo-level node translated to aten kernels (runtime/torch_level/torch_level.hpp); also
    // set on operator.getitem builtins, for getitem on a tensor
    std::unique_ptr<TorchLowering> torch;
    // Op: the device's kernel for the op (null for a custom op's declared body, or where the
    // device has none: the run then fails as the backend says)
    const KernelFn* kernel = nullptr;
    // Op (and the op an RNG-state HOP wraps): its schema arguments' sources,
    // GraphPlan::args[argStart, argStart + argCount)
    uint32_t argStart = 0, argCount = 0;
    // Op: a metadata-only view whose arguments besides self (its first, a node) are
    // constants: its index in GraphPlan::views; -1 for every other node
    int32_t view = -1;
};

// What a metadata-only view node gave (ops with kTraitView, kTraitViewList or
// kTraitAliasNoAnnot whose other arguments are constants): the layout of its input on the run
// that learnt it, and the layouts of its results, views of the input's storage. The result of a
// view depends only on its input's layout and its constant arguments, so a later run whose input
// has the same layout gives the same views without calling the kernel: no allocation, no
// argument binding (a step of a training graph is half such nodes).
struct ViewMemo
{
    enum class State : uint8_t
    {
        Unknown,  // not run yet
        Known,  // input and outputs hold the layouts
        Never  // the kernel gave something else than views of its input's storage (a copy)
    };
    State state = State::Unknown;
    NodeId self = kNoNode;  // the node's first argument (set by the plan)
    Tensor input;  // the layout only (no storage)
    int64_t storageBytes = 0;  // of the input's storage (as_strided may reach beyond the view)
    bool list = false;  // the kernel returned a list of views (split, unbind)
    std::vector<Tensor> outputs;  // the layouts only
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
    // by NodePlan::view; learnt while the plan runs (a plan is used by one run at a time)
    mutable std::vector<ViewMemo> views;
    std::vector<ArgSlot> args;  // NodePlan::argStart
    std::deque<Value> constants;  // ArgSlot::value of the nodes' constant arguments
};

// Recipes by (op, positional count, keyword names); the key's text is only built for nodes
// with keyword arguments.
class RecipeCache
{
public:
    // nullptr with `error` set when the node's arguments do not fit the schema.
    const BindRecipe* get(const OpRegistry& reg, const OpInfo& op, const Node& n, std::string& error);

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
    static std::unique_ptr<BindRecipe> build(const OpInfo& op, const Node& n);
};

std::unique_ptr<GraphPlan> makePlan(const Graph& g, const OpRegistry& reg, RecipeCache& recipes, DeviceKind device);

// Constant arguments as runtime values; what has none is an error of the node.
Value argToValue(const Arg& a);

}  // namespace fxl::exec
