// Classification of a joint graph's nodes for the partitioner (classify_nodes, docs/passes.md sections 2.2 and 9.3):
// which nodes the forward outputs need, which depend on the backward seeds, which neither;
// the loss seeds of a fwd+loss+bwd graph; the recompute-tag clean-up (6.3); and the node
// predicates the save choosers share.
#pragma once

#include <string>
#include <vector>

#include "core/ir/graph.hpp"
#include "passes/pass.hpp"

namespace fxl {

// classify_nodes (6.2), indexed by NodeId of the classified graph.
struct NodeClassification
{
    std::vector<NodeId> primals;  // non-tangent placeholders, in order
    std::vector<NodeId> tangents;  // tangent placeholders and ones_like loss seeds, in order
    std::vector<NodeId> fwdOutputs;  // output items [0, numFwdOutputs) (kNoNode for a non-node item)
    std::vector<NodeId> bwdOutputs;  // the rest (gradients; kNoNode for None)
    std::vector<char> requiredFw, requiredBw, unclaimed;
    std::vector<int> fwOrder;  // index among required_fw nodes, -1 elsewhere
    std::vector<std::string> notes;  // how the seed / the forward outputs were found
    bool isRequiredFw(NodeId n) const
    {
        return n >= 0 && static_cast<size_t>(n) < requiredFw.size() && requiredFw[static_cast<size_t>(n)];
    }
    bool isRequiredBw(NodeId n) const
    {
        return n >= 0 && static_cast<size_t>(n) < requiredBw.size() && requiredBw[static_cast<size_t>(n)];
    }
    bool isUnclaimed(NodeId n) const
    {
        return n >= 0 && static_cast<size_t>(n) < unclaimed.size() && unclaimed[static_cast<size_t>(n)];
    }
};

// Needs users (Graph::rebuildUsers()). numFwdOutputs -1: automatic.
NodeClassification classifyNodes(const Graph& g, int numFwdOutputs = -1);

// True for `aten.ones_like` of a loss: its input is a graph output item, or the ones_like is
// marked backward (meta.phase) and its input is a 0-dim / unknown-shape tensor. classifyNodes
// looks for such seeds only when no placeholder is a tangent (an AOT joint has its seeds).
bool isLossSeed(const Graph& g, const Node& n);

// cleanup_recompute_tags (6.3) rules (a), (b) and, in default-partition mode, (c). Records each
// MUST_SAVE it sets on ctx (when given). Returns the names it tagged.
std::vector<std::string> cleanupRecomputeTags(Graph& g, bool defaultPartitionMode, PassContext* ctx = nullptr);

}  // namespace fxl

namespace fxl::partitioning {

// Tagged MUST_RECOMPUTE or PREFER_RECOMPUTE.
bool mustRecompute(const Node& n);
// meta.custom[key] is the boolean true.
bool hasCustomFlag(const Node& n, const char* key);
// A SymInt, SymFloat or SymBool value.
bool isSymbolic(const ValueMeta& v);
bool isTangentName(const std::string& name);
// A call whose value is a tuple, or of unknown kind and read only through getitems.
bool isMultiOutput(const Graph& g, const Node& n);
// The output items of a graph (the returned tuple/list flattened one level).
std::vector<Arg> outputItems(const Graph& g);

inline size_t slotOf(NodeId id) { return static_cast<size_t>(id); }

// A joint graph with what every save chooser reads: its classification, which nodes are
// tangents and the users of each node that are not seeds (a seed reads only its input's
// shape). The per-node vectors are indexed by NodeId (slotOf) and have slotCount entries.
struct ClassifiedJoint
{
    const Graph* graph = nullptr;
    NodeClassification classes;
    size_t slotCount = 0;  // one past the largest NodeId
    std::vector<char> isTangent;  // tangent placeholders and seeds
    std::vector<std::vector<NodeId>> usersWithoutSeeds;

    const Node& node(NodeId id) const { return graph->node(id); }
    bool hasSlot(NodeId id) const { return id >= 0 && slotOf(id) < slotCount; }
    bool isPrimal(NodeId id) const { return node(id).op == NodeOp::Placeholder && !isTangent[slotOf(id)]; }
};

// Needs users (Graph::rebuildUsers()); `g` must outlive the result.
ClassifiedJoint classifyJoint(const Graph& g, int numFwdOutputs);

}  // namespace fxl::partitioning
