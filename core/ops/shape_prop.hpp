// Shape propagation: runs every call_function node's meta function in topological
// order and stores the result in node.val (dtype, sizes, strides, device; tuples for
// multi-output ops), the way FakeTensorProp does in PyTorch.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/ir/graph.hpp"
#include "core/ir/tensor_meta.hpp"

namespace fxl {

struct ShapePropOptions
{
    // Metas of the graph inputs by placeholder name (target accepted too). A placeholder
    // with no entry keeps the val it has (e.g. from its annotation).
    std::map<std::string, TensorMeta> inputs;
    // Metas of get_attr tensors by attribute name ("_tensor_constant0").
    std::map<std::string, TensorMeta> constants;
    // A graph with the recorded metas (same node names): the hints of data-dependent
    // sizes (bincount, nonzero, boolean-mask indexing, repeat_interleave) come from it.
    const Graph* recorded = nullptr;
    // false: nodes that already have a val keep it and are not recomputed.
    bool overwrite = true;
};

struct ShapePropResult
{
    int nodesComputed = 0;  // call_function nodes whose val was computed
    std::vector<std::string> problems;  // "node 'x' (aten.foo.default): why", one per root cause
    std::vector<std::string> unbacked;  // new unbacked symbols: "u0 (bincount, hint 4)"
};

// Never throws for bad graphs: unknown ops, missing metas and meta errors become problems;
// nodes depending on a failed node are skipped (counted in one summary problem).
ShapePropResult propagateShapes(Graph& g, const ShapePropOptions& opts);

// The value of a flex_attention node, (out [B, Hq, L, Ev] in the query's dtype, logsumexp
// [B, Hq, L]: f32, f64 for f64 queries[, max_scores like logsumexp]), or of a flex_attention_backward node, (dq, dk, dv
// shaped as q, k, v, (a gradient per score_mod buffer, shaped as it)), from the vals of its
// operands (contiguous strides); nullopt for another node or when an operand's val is not a
// tensor of the expected rank. Shape propagation uses it, and so does the memory timeline for
// such a node recorded without its tuple meta.
std::optional<ValueMeta> flexAttentionMeta(const Graph& g, const Node& n);

// Whether a flex_attention node returns (out, logsumexp, max_scores), as PyTorch's HOP does
// since max_scores was added (2.9), rather than (out, logsumexp): its recorded val has three
// items or a getitem reads item 2. (Nothing in the node's arguments tells the versions apart.)
bool flexAttentionHasMaxScores(const Graph& g, const Node& n);

}  // namespace fxl
