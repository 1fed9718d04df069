// Where the chunk axis lives in every value of a graph (chunk_region's axis inference).
//
// The chunk axis is dimension 0 (batch) or 1 (seq) of the data inputs, of length N. For every
// value the analysis says, per output item:
//   Free     the value does not depend on the axis (parameters, their casts and transposes,
//            constants, factories): both chunks use the same node.
//   Axis     the value carries the axis in dimension `dim`, whose extent is outer * N * inner
//            (a [B*T, C] view of [B, T, C] carries batch with outer 1, inner T, and seq with
//            outer B, inner 1: a dim with outer > 1 is not a contiguous slice of the chunk).
//   Partial  no axis, but a sum over the axis of per-chunk contributions (a parameter gradient,
//            a bias gradient, a histogram): the chunks' values add up to it.
//   Mixed    depends on the axis in any other way (a loss, a softmax over the axis): cannot be
//            rebuilt from per-chunk values. `why` says which node made it so.
//
// The rules are per operator (views by the flat index, matmuls by their operand dims, reductions
// by their reduced dims, broadcasting pointwise ops by right alignment...), forward from the data
// inputs; a tensor created from nothing (zeros, full, empty) whose consumer needs it to carry the
// axis (scatter into zeros with an index that carries it) is given the axis backward, so its
// literal sizes are rewritten per chunk. Positions are tracked, never sizes: a literal equal to
// N is not evidence by itself (gpt2_tiny has batch 4 and 4 heads).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/analysis/chunk_spec.hpp"
#include "core/ir/graph.hpp"
#include "core/ops/op_registry.hpp"

namespace fxl {

enum class AxisKind : uint8_t
{
    Free,
    Axis,
    Partial,
    Mixed
};

struct AxisInfo
{
    AxisKind kind = AxisKind::Free;
    int dim = -1;
    int64_t outer = 1, inner = 1;
    // A second dim that carries the axis too (attention scores [.., Tq, Tk] under seq), -1 when
    // none. Such a value is never split nor concatenated; it only keeps track of positions.
    int dim2 = -1;
    int64_t outer2 = 1, inner2 = 1;
    std::string why;  // Mixed: the node and the reason

    bool isAxis() const { return kind == AxisKind::Axis; }
    bool isFree() const { return kind == AxisKind::Free; }
    static AxisInfo axis(int d, int64_t outer = 1, int64_t inner = 1)
    {
        AxisInfo a;
        a.kind = AxisKind::Axis;
        a.dim = d;
        a.outer = outer;
        a.inner = inner;
        return a;
    }
    static AxisInfo partial()
    {
        AxisInfo a;
        a.kind = AxisKind::Partial;
        return a;
    }
    static AxisInfo mixed(std::string why)
    {
        AxisInfo a;
        a.kind = AxisKind::Mixed;
        a.why = std::move(why);
        return a;
    }
    bool operator==(const AxisInfo& o) const
    {
        return kind == o.kind && dim == o.dim && outer == o.outer && inner == o.inner && dim2 == o.dim2
            && outer2 == o.outer2 && inner2 == o.inner2;
    }
};

// A Free operand that a pointwise op lines up with the axis without broadcasting it (a position
// table [T, C] added to a [B, T, C] activation under seq chunking): inside a chunk body it must
// be split too.
struct CoSplit
{
    NodeId operand = kNoNode;
    AxisInfo want;  // the axis the operand must carry
};

struct AxisAnalysis
{
    ChunkAxis axis = ChunkAxis::Batch;
    int64_t n = 0;  // the axis length (the data inputs' extent, a hint when symbolic)
    std::string symbol;  // the chunk symbol when the data inputs carry one ("" when static)
    std::vector<NodeId> inputs;  // the data inputs
    std::vector<std::vector<AxisInfo>> byNode;  // by NodeId: one per output item
    std::vector<std::vector<CoSplit>> coSplit;  // by NodeId

    const AxisInfo& of(NodeId id, size_t item = 0) const;
    // Whether any item of the node is not Free.
    bool influenced(NodeId id) const;
    bool anyAxis(NodeId id) const;
};

// Sizes of an output item of a node's val (hints for symbolic sizes); empty when not a tensor.
std::vector<int64_t> valSizes(const ValueMeta& v, size_t item = 0);

// Throws PassError when the data inputs disagree on the axis length or lack the dimension.
// `hints` gives the values of symbols without a hint ("u0" -> 4).
AxisAnalysis inferChunkAxes(const Graph& g, const std::vector<NodeId>& dataInputs, ChunkAxis axis,
                            const std::map<std::string, int64_t>& hints = {},
                            const OpRegistry& reg = OpRegistry::instance());

// "dim 0 (axis extent 4)" / "free" / "partial sum" / "mixed (why)".
std::string axisText(const AxisInfo& a);

}  // namespace fxl
