// The graph IR: nodes in topological order with stable ids and unique names, an argument
// value tree per node, value meta, the node meta passes read and write, and nested graphs
// for higher-order ops.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/ir/argument.hpp"
#include "core/ir/tensor_meta.hpp"

namespace fxl {

enum class NodeOp : uint8_t
{
    Placeholder,
    CallFunction,
    CallMethod,
    CallModule,
    GetAttr,
    Output
};
std::string_view nodeOpName(NodeOp op);  // "placeholder", "call_function", ...
std::optional<NodeOp> nodeOpFromName(std::string_view s);

// torch.utils.checkpoint.CheckpointPolicy
enum class Recompute : uint8_t
{
    None,
    MustSave,
    PreferSave,
    MustRecompute,
    PreferRecompute
};
std::string_view recomputeName(Recompute r);  // "MUST_SAVE", ... ("" for None)
std::optional<Recompute> recomputeFromName(std::string_view s);

enum class Phase : uint8_t
{
    Unknown,
    Forward,
    Backward,
    Loss
};
std::string_view phaseName(Phase p);  // "", "forward", "backward", "loss"
std::optional<Phase> phaseFromName(std::string_view s);

struct SourceLocation
{
    std::string file;
    int line = 0;
    std::string function;
    std::string code;
    bool empty() const { return file.empty(); }
    bool operator==(const SourceLocation& o) const
    {
        return file == o.file && line == o.line && function == o.function && code == o.code;
    }
};

// Meta a pass reads and writes, beyond the value meta.
struct NodeMeta
{
    std::string modulePath;  // "blocks.0.attn" ("" = root / unknown)
    SourceLocation source;  // from "# File:" comments or stack_trace
    Recompute recompute = Recompute::None;
    std::optional<int> acGraphId;
    nlohmann::json custom;  // "# Annotation: {...}" / node.meta["custom"], null when absent
    Phase phase = Phase::Unknown;
    std::optional<bool> autogradBackward;  // "# autograd_backward: True"
    std::string desc;  // AOT descriptor comment: "PlainAOTInput(idx=0)"
    std::string provenance;  // name of the node (in the previous step) this one was copied from
    nlohmann::json chunk;  // chunking meta (passes), null when absent
    bool operator==(const NodeMeta& o) const;
};

struct Node
{
    NodeId id = kNoNode;
    std::string name;
    NodeOp op = NodeOp::CallFunction;
    // call_function: qualified target without the "torch.ops." prefix for op overloads
    //   ("aten.mm.default", "higher_order.invoke_subgraph", "test.baz" when printed without
    //   overload), and the Python path otherwise ("operator.getitem", "operator.add",
    //   "torch._C._nn.linear", "torch.sym_float", "builtins.getattr").
    // call_method: method name; call_module / get_attr: dotted attribute path;
    // placeholder: the target (== name except Dynamo's "L_x_" aliases); output: "output".
    std::string target;
    std::vector<Arg> args;
    std::vector<std::pair<std::string, Arg>> kwargs;
    ValueMeta val;  // meta["val"]
    NodeMeta meta;
    std::optional<Arg> placeholderDefault;  // "x: f32[2] = 1.0" / default=...
    std::string typeExpr;  // unquoted old-style annotation ("torch.Tensor") kept verbatim

    std::vector<NodeId> users;  // filled by Graph::rebuildUsers(), in order of first use

    const Arg* kwarg(std::string_view key) const;
    bool isOp(std::string_view qualifiedTarget) const
    {
        return op == NodeOp::CallFunction && target == qualifiedTarget;
    }
    // A call of operator.getitem, in either spelling FX prints ("operator.getitem" or
    // "_operator.getitem").
    bool isGetitem() const;
};

// Calls fn(NodeId) for each node reference in a node's args, then its kwargs, in order (a node
// read twice is seen twice).
template<class F>
void forEachInput(const Node& n, F&& fn)
{
    for (const auto& a : n.args) a.forEachNode(fn);
    for (const auto& kv : n.kwargs) kv.second.forEachNode(fn);
}

// Whether a call_function target is a Python path ("torch.sym_float", "operator.add",
// "_operator.getitem", "math.sqrt", "builtins.getattr") rather than an operator overload
// ("aten.mm.default"): its first component is one of the Python root modules FX prints.
bool isPythonPathTarget(std::string_view target);

enum class SignatureStyle : uint8_t
{
    Flat,  // def forward(self, a: "...", b: "..."):
    Expanded,  // one input per line with "# desc" comments
    Pytree,  // forward(self, primals, tangents) + fx_pytree.tree_flatten_spec
    Boxed,  // forward(self, args_list) + next(args_iter)
    Plain,  // gm.code, no annotations
};

class Graph
{
public:
    Graph() = default;

    // --- identity of the module that printed it
    std::string className = "GraphModule";  // "GraphModule", "inner_f", "<lambda>", ...
    SignatureStyle signature = SignatureStyle::Flat;
    std::vector<std::string> pytreeArgNames;  // "primals", "tangents" for Pytree style
    bool outputPytree = false;  // return pytree.tree_unflatten(..., self._out_spec)
    bool outputIsList = false;  // "return [a, b]" rather than "(a, b)"
    std::vector<std::string> outputDescs;  // "# PlainAOTOutput(idx=0)" per output item (expanded return), else empty

    // --- nodes
    // Appends a node (its id is assigned, its name must be unique). Returns the id.
    NodeId addNode(Node n);
    // Inserts before the node `before` in the order (kNoNode = append).
    NodeId insertNode(Node n, NodeId before);
    // Removes a node from the order (it must have no users). Ids are never reused.
    // O(number of nodes): to remove many nodes use removeNodes.
    void removeNode(NodeId id);
    // Removes several nodes in one O(number of nodes) sweep (ids not alive are ignored).
    void removeNodes(const std::vector<NodeId>& ids);
    // Replaces the order by `order`, which must hold every live node exactly once (throws
    // std::invalid_argument otherwise). Whether it is topological is the caller's concern.
    void setOrder(std::vector<NodeId> order);

    size_t size() const { return order_.size(); }
    // Capacity hint for loaders that know the node count in advance.
    void reserveNodes(size_t n)
    {
        nodes_.reserve(n);
        alive_.reserve(n);
        order_.reserve(n);
        byName_.reserve(n);
    }
    const std::vector<NodeId>& order() const { return order_; }
    Node& node(NodeId id) { return nodes_.at(static_cast<size_t>(id)); }
    const Node& node(NodeId id) const { return nodes_.at(static_cast<size_t>(id)); }
    bool alive(NodeId id) const;
    NodeId findByName(std::string_view name) const;  // kNoNode when absent
    // Position of a node in order() (O(1) after rebuildIndex()).
    size_t positionOf(NodeId id) const;

    // Iterate in topological order.
    template<class F>
    void forEachNode(F&& fn) const
    {
        for (NodeId id : order_) fn(nodes_[static_cast<size_t>(id)]);
    }
    template<class F>
    void forEachNodeMut(F&& fn)
    {
        for (NodeId id : order_) fn(nodes_[static_cast<size_t>(id)]);
    }

    std::vector<NodeId> placeholders() const;
    NodeId outputNode() const;  // kNoNode when the graph has no output yet

    // Renames a node (keeps the name index right).
    void rename(NodeId id, std::string newName);
    // Makes a name unique in this graph the way FX does (name, name_1, name_2, ...).
    std::string uniqueName(std::string_view candidate) const;

    // Recomputes users of every node and the position index. Call after editing args.
    void rebuildUsers();
    // Replaces every use of `from` by `to` (args and kwargs); updates users.
    void replaceAllUses(NodeId from, NodeId to);

    // --- nested graphs of higher-order ops, by attribute name ("repeated_subgraph0")
    std::map<std::string, std::shared_ptr<Graph>> subgraphs;
    const Graph* subgraph(std::string_view attr) const;

    // --- the values of its get_attr tensors, when the file it came from carried them (fxlens
    // JSON embeds them): the bytes of a safetensors file keyed by attribute name. Null when
    // they live in a file of their own (core/formats/graph_constants.hpp).
    std::shared_ptr<const std::vector<uint8_t>> embeddedConstants;

    // Structural equality: same nodes in the same order (names, ops, targets, args, kwargs,
    // val, meta), same nested graphs, same embedded constants. Ids may differ. `why` gets the
    // first difference.
    bool structurallyEqual(const Graph& o, std::string* why = nullptr) const;

    // Deep copy (nested graphs copied too).
    Graph clone() const;

private:
    std::vector<Node> nodes_;  // indexed by id; removed nodes keep their slot
    std::vector<uint8_t> alive_;
    std::vector<NodeId> order_;
    std::unordered_map<std::string, NodeId> byName_;
    mutable std::vector<int32_t> position_;  // id -> index in order_, -1 when removed
    mutable bool positionValid_ = false;
    void rebuildPositions() const;
};

}  // namespace fxl
