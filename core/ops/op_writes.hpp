// What a call writes in place: the one answer every pass (dce, cse, sac, remat, partition, the
// chunking passes) and the executor use for "must not be dropped, merged or run twice".
//
// A call writes the arguments its schema marks `(a!)`, the `self` of an in-place method
// (`x.add_(y)`, any name ending in '_'), and, for the operators below, arguments that PyTorch
// 1.13's schema does not mark although the operator writes them when its arguments say so:
//   native_batch_norm, batch_norm, _batch_norm_impl_index, cudnn_batch_norm, miopen_batch_norm
//     running_mean and running_var, when training is true and they are given;
//   instance_norm: running_mean and running_var, when use_input_stats is true and they are given;
//   rrelu_with_noise: noise, when training is true.
// An argument that decides it but is known only when the graph runs (a SymBool) counts as
// writing. Newer schemas mark some of these (`_native_batch_norm_legit`: `Tensor(a!)
// running_mean`); the schema's mark is then enough.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/ir/graph.hpp"
#include "core/ops/op_registry.hpp"

namespace fxl {

struct WrittenArgument
{
    std::string name;  // the schema's name ("running_mean"), "self" for a method
    NodeId node = kNoNode;  // the node whose value is written (kNoNode when it is not a node)
    bool bySchema = true;  // marked (a!) (or a method's self); false: by the table above
};

// The arguments `n` writes in place, in argument order (empty for a call that writes nothing,
// and for placeholders, get_attr and output).
std::vector<WrittenArgument> writtenArguments(const Node& n, const OpRegistry& reg = OpRegistry::instance());

// Whether some call of `target` (as a node of kind `op`) may write in place: false means
// writtenArguments is empty for every node with that target and kind, whatever its arguments
// (for callers that decide once per target on large graphs).
bool targetMayWrite(NodeOp op, const std::string& target, const OpRegistry& reg = OpRegistry::instance());

// writtenArguments(n) is not empty.
bool writesInPlace(const Node& n, const OpRegistry& reg = OpRegistry::instance());

// For each node (by id; kNoNode for ids not in g), the node whose storage its value is:
// following views (view, view_list, alias and view-or-copy ops, over-approximated as views),
// the self written by an in-place op and view methods of Dynamo-level graphs; a node that
// allocates (and the getitem of a multi-output op) is its own root.
std::vector<NodeId> storageRoots(const Graph& g, const OpRegistry& reg = OpRegistry::instance());

// For each node (by id): 1 when it reads (an alias of) a value that a later node writes in
// place. Such a node must run before that write: moved after it (recomputed in the backward,
// placed in a partition's backward) it would read the written values. An LSTM cell's
// `clone(h - n)` before `mul_(h - n, z)` is one. Writers count by writtenArguments, and only
// those `counts` accepts (a pass that moves nodes into the backward counts the forward's
// writers: a backward writer runs after the moved node there too, in graph order).
std::vector<char> readsBeforeLaterWrite(const Graph& g, const OpRegistry& reg = OpRegistry::instance(),
                                        const std::function<bool(NodeId writer)>& counts = {});

// The operators of the table above, as "aten.native_batch_norm.default" (for the tests: each has
// a row there).
std::vector<std::string_view> argumentDependentWriters();

}  // namespace fxl
