// Forward / backward classification of the nodes of a training graph (fwd+loss+bwd graphs
// traced from `loss + autograd.grad`, and AOT joint graphs with tangent inputs), the loss /
// epilogue set, and the contiguous backward regions. The one definition of a node's phase: the
// memory timeline (its boundary and saved values), the AC passes (annotate_regions, sac, remat)
// and cse use it.
//
// Rules (docs/passes.md section 2.2):
//  1. User annotation: when any node carries custom.phase == "backward", exactly those call
//     nodes are backward (upstream remat's rule) and the rest is forward.
//  2. Otherwise per node, from meta when present: meta.phase Backward -> backward, Forward /
//     Loss -> forward; else meta.autogradBackward true -> backward, false -> forward.
//  3. Nodes without such meta: dataflow (classify_nodes). required_bw = the seeds (tangent
//     placeholders, or with none the `ones_like` seeding the loss: aten.ones_like of a 0-dim or
//     unknown-shaped tensor, those reading the first output preferred) plus meta-backward
//     nodes, and everything that transitively uses them. required_fw = what the forward outputs
//     (output items not in required_bw) need. A node in neither ("unclaimed": forward-computable
//     work that only the backward uses, e.g. `t(w)` feeding a gradient mm) is backward when it
//     is placed after the first backward node, forward otherwise; so the backward of a plain
//     traced graph is one contiguous run.
//  Placeholders and get_attr are Input, the output node is Output.
//
// Loss / epilogue set (forward nodes only; empty for graphs with tangent inputs):
//  - the loss: the first output item, with the getitem / view chain above it (tagging its
//    producer for recompute would make ones_like(loss) drag the forward back in);
//  - forward nodes with meta.phase Loss;
//  - forward nodes whose module path (or custom.module_fqn) has a first component starting
//    with one of `epiloguePrefixes` (default "loss", "lm_head");
//  - when the graph has module paths: forward nodes with an empty module path placed after
//    the last forward node that has a (non-epilogue) module path (a loss computed at the root
//    after the model, e.g. gpt2_tiny's tied lm_head + cross entropy).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "core/ir/graph.hpp"

namespace fxl {

enum class NodePhase : uint8_t
{
    Input,
    Forward,
    Backward,
    Output
};
std::string_view nodePhaseName(NodePhase p);  // "input", "forward", "backward", "output"

struct PhaseOptions
{
    bool useMeta = true;  // false: dataflow only (rule 3 for every node)
    std::vector<std::string> epiloguePrefixes = {"loss", "lm_head"};
};

// A maximal run of backward nodes in graph order (Input nodes inside do not break a run).
struct BackwardRegion
{
    size_t first = 0, last = 0;  // positions in g.order(), inclusive
    std::vector<NodeId> nodes;  // the backward nodes, in order
};

struct PhaseInfo
{
    std::vector<NodePhase> phase;  // indexed by NodeId (removed ids: Input)
    std::vector<uint8_t> epilogue;  // indexed by NodeId: 1 = loss / epilogue (forward only)
    // indexed by NodeId: 1 = the forward outputs (output items not computed from a seed) need it
    // (required_fw); a forward node without it is work only the backward uses, which a
    // partition recomputes in the backward
    std::vector<uint8_t> forwardNeeded;
    NodeId loss = kNoNode;  // the loss value (first output) when there is one
    std::vector<NodeId> seeds;  // tangent placeholders or the ones_like seed(s)
    NodeId firstBackward = kNoNode;  // first backward node in order
    bool userAnnotated = false;  // rule 1 applied
    size_t fromMeta = 0, fromDataflow = 0;  // call nodes classified by rule 2 / rule 3
    bool hasModulePaths = false;

    NodePhase of(NodeId id) const
    {
        return id >= 0 && static_cast<size_t>(id) < phase.size() ? phase[static_cast<size_t>(id)] : NodePhase::Input;
    }
    bool isBackward(NodeId id) const { return of(id) == NodePhase::Backward; }
    bool isForward(NodeId id) const { return of(id) == NodePhase::Forward; }
    bool isForwardNeeded(NodeId id) const
    {
        return id >= 0 && static_cast<size_t>(id) < forwardNeeded.size() && forwardNeeded[static_cast<size_t>(id)] != 0;
    }
    bool isSeed(NodeId id) const { return std::find(seeds.begin(), seeds.end(), id) != seeds.end(); }
    bool isEpilogue(NodeId id) const
    {
        return id >= 0 && static_cast<size_t>(id) < epilogue.size() && epilogue[static_cast<size_t>(id)] != 0;
    }
    // "meta", "dataflow", "meta+dataflow", "custom.phase"
    std::string method() const;
};

PhaseInfo classifyPhases(const Graph& g, const PhaseOptions& opts = {});

// Why a pass that works on the forward of a forward+loss+backward graph does not apply to `g`
// ("" when it may): every output item is computed in the backward and none in the forward (an
// AOT backward graph, already partitioned). `pass` names the pass in the message.
std::string backwardOnlyGraph(const Graph& g, const PhaseInfo& info, const std::string& pass);

// The same for a graph with no backward at all (no tangent placeholder, no ones_like(loss) seed,
// no backward meta): a forward-only, inference, post-grad or Dynamo graph, saying which when the
// inputs tell (primals_* -> an AOT forward graph, L_* -> a Dynamo graph). sac and remat refuse it
// (there is no backward to recompute in); partition has its own message.
std::string noBackwardGraph(const Graph& g, const PhaseInfo& info, const std::string& pass);

// Contiguous backward runs in graph order.
std::vector<BackwardRegion> backwardRegions(const Graph& g, const PhaseInfo& info);

// Module path of a node: meta.modulePath, else custom.module_fqn, else "".
std::string nodeModulePath(const Node& n);

// The node's own backward flag from meta (rule 1/2): true / false, or -1 when the meta says
// nothing (userAnnotated selects rule 1).
int metaBackwardFlag(const Node& n, bool userAnnotated);

}  // namespace fxl
