// auto_chunk's analysis (docs/passes.md, auto_chunk): the chunking metadata of each node
// (chunk dim, partial sum, the tangent it is scaled by), its bidirectional propagation from
// the amplifier with one rule per op, and the strictly topological propagation of the tangent
// scale. Every failure throws PassError naming the node and its op and saying why.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "core/ir/graph.hpp"
#include "core/ops/op_registry.hpp"

namespace fxl::autochunk {

// Per node (absent when !present): `dim` >= 0 is the split dimension (the value is the cat of
// the chunk values along it); `needSum`: the value is the sum of the chunk values (never both);
// neither: "nop", the node takes part unsplit (a weight, a scalar). scaleBy: the true value is
// the computed one times this tangent; divideBy: divided by the global total weight of the
// nll_loss_forward with this id (mean reduction rewritten as a sum).
struct ChunkInfo
{
    bool present = false;
    int dim = -1;
    bool needSum = false;
    NodeId scaleBy = kNoNode;
    NodeId divideBy = kNoNode;
    bool visited = false;  // a rule ran on this node
    bool nop() const { return present && dim < 0 && !needSum; }
    bool chunked() const { return present && dim >= 0; }
};

// The base name of an op overload: "aten.sum.dim_IntList" -> "sum", "prims.convert_element_type.default"
// -> "convert_element_type".
std::string opBase(const std::string& target);

// The value's concrete sizes; throws PassError naming the node when it is not a tensor with
// static sizes.
std::vector<int64_t> staticSizes(const Graph& g, NodeId id, const char* why);
int64_t numelOf(const Graph& g, NodeId id);  // -1 when not a tensor with known sizes

class Analysis
{
public:
    Analysis(Graph& g, const OpRegistry& reg, std::set<NodeId> tangents);

    // Step 2: propagates from `amplifier` (seeded with chunk dim 0) in both directions.
    void propagate(NodeId amplifier);
    // Step 3: the tangent scale (and the nll mean divisor), strictly in graph order.
    void propagateScale();

    std::vector<ChunkInfo> info;  // by node id
    const std::set<NodeId>& tangents() const { return tangents_; }
    bool isTangent(NodeId id) const { return tangents_.count(id) != 0; }
    size_t rulesRun = 0;

private:
    Graph& g_;
    const OpRegistry& reg_;
    std::set<NodeId> tangents_;
    std::vector<uint8_t> fwdOk_, bwdOk_;

    // Returns whether anything changed; throws PassError on a failure.
    bool applyRule(NodeId n);
    bool set(NodeId a, int dim, bool needSum, NodeId by);
    bool setNop(NodeId a, NodeId by);
    bool copyMeta(NodeId a, const ChunkInfo& m, NodeId by);
    [[noreturn]] void fail(NodeId n, const std::string& why) const;
    std::string describe(NodeId n) const;

    bool rulePointwise(NodeId n, bool linearOnly);
    bool ruleMm(NodeId n);
    bool ruleBmm(NodeId n);
    bool ruleAddmm(NodeId n);
    bool rulePermuteLike(NodeId n, const std::vector<int64_t>& perm);
    bool ruleView(NodeId n);
    bool ruleReduce(NodeId n, bool isSum);
    bool ruleSoftmax(NodeId n);
    bool ruleSoftmaxBackward(NodeId n);
    bool ruleNllForward(NodeId n);
    bool ruleNllBackward(NodeId n);
    bool ruleGetitem(NodeId n);
    bool ruleExpand(NodeId n);
    bool ruleGatherScatter(NodeId n);
    bool ruleSqueezeUnsqueeze(NodeId n);
    bool ruleLike(NodeId n);
    bool ruleFactory(NodeId n);

    std::vector<Arg> bound(NodeId n) const;
    std::vector<NodeId> tensorArgs(NodeId n) const;  // direct node args and kwargs, in order
};

}  // namespace fxl::autochunk
