// Forward / backward classification (see phases.hpp for the rules).
#include "core/analysis/phases.hpp"

#include <algorithm>

#include "core/ops/op_registry.hpp"

namespace fxl {

std::string_view nodePhaseName(NodePhase p)
{
    switch (p) {
    case NodePhase::Input: return "input";
    case NodePhase::Forward: return "forward";
    case NodePhase::Backward: return "backward";
    case NodePhase::Output: return "output";
    }
    return "";
}

std::string PhaseInfo::method() const
{
    if (userAnnotated) return "custom.phase";
    if (fromMeta && fromDataflow) return "meta+dataflow";
    if (fromMeta) return "meta";
    return "dataflow";
}

std::string nodeModulePath(const Node& n)
{
    if (!n.meta.modulePath.empty()) return n.meta.modulePath;
    if (n.meta.custom.is_object()) {
        auto it = n.meta.custom.find("module_fqn");
        if (it != n.meta.custom.end() && it->is_string()) return it->get<std::string>();
    }
    return "";
}

namespace {

bool customPhaseBackward(const Node& n)
{
    if (!n.meta.custom.is_object()) return false;
    auto it = n.meta.custom.find("phase");
    return it != n.meta.custom.end() && it->is_string() && it->get<std::string>() == "backward";
}

bool isCallNode(const Node& n)
{
    return n.op == NodeOp::CallFunction || n.op == NodeOp::CallMethod || n.op == NodeOp::CallModule;
}

bool isTangent(const Node& n)
{
    return n.op == NodeOp::Placeholder
        && (n.name.find("tangent") != std::string::npos || n.target.find("tangent") != std::string::npos);
}

// ones_like of a 0-dim tensor (or of a value whose shape is unknown): the loss seed.
bool isLossSeed(const Graph& g, const Node& n)
{
    if (n.op != NodeOp::CallFunction || n.target.rfind("aten.ones_like", 0) != 0) return false;
    if (n.args.empty() || !n.args[0].isNode()) return false;
    const ValueMeta& v = g.node(n.args[0].node).val;
    if (v.kind == ValueMeta::Kind::Unknown) return true;
    return v.isTensor() && v.tensor.sizes.empty();
}

// Alias-like single-input steps the loss may be read through: getitem, views, detach.
bool isPassThrough(const Node& n)
{
    if (n.op != NodeOp::CallFunction || n.args.empty() || !n.args[0].isNode()) return false;
    if (n.isGetitem()) return true;
    const OpInfo* op = OpRegistry::instance().find(n.target);
    return op && (op->has(kTraitView) || op->has(kTraitAliasNoAnnot));
}

bool firstComponentMatches(const std::string& path, const std::vector<std::string>& prefixes)
{
    std::string first = path.substr(0, path.find('.'));
    for (const auto& p : prefixes)
        if (!p.empty() && first.rfind(p, 0) == 0) return true;
    return false;
}

}  // namespace

int metaBackwardFlag(const Node& n, bool userAnnotated)
{
    if (userAnnotated) return customPhaseBackward(n) ? 1 : 0;
    if (n.meta.phase == Phase::Backward) return 1;
    if (n.meta.phase == Phase::Forward || n.meta.phase == Phase::Loss) return 0;
    if (n.meta.autogradBackward) return *n.meta.autogradBackward ? 1 : 0;
    if (customPhaseBackward(n)) return 1;
    return -1;
}

PhaseInfo classifyPhases(const Graph& g, const PhaseOptions& opts)
{
    PhaseInfo info;
    const auto& order = g.order();
    size_t cap = 0;
    for (NodeId id : order) cap = std::max(cap, static_cast<size_t>(id) + 1);
    info.phase.assign(cap, NodePhase::Input);
    info.epilogue.assign(cap, 0);

    if (opts.useMeta)
        for (NodeId id : order)
            if (isCallNode(g.node(id)) && customPhaseBackward(g.node(id))) {
                info.userAnnotated = true;
                break;
            }

    // meta flags per node (-1 = none)
    std::vector<int> flag(cap, -1);
    if (opts.useMeta)
        for (NodeId id : order)
            if (isCallNode(g.node(id)))
                flag[static_cast<size_t>(id)] = metaBackwardFlag(g.node(id), info.userAnnotated);

    // --- dataflow: required_bw
    std::vector<uint8_t> bw(cap, 0);
    bool hasTangents = false;
    for (NodeId id : order)
        if (isTangent(g.node(id))) {
            hasTangents = true;
            bw[static_cast<size_t>(id)] = 1;
            info.seeds.push_back(id);
        }
    NodeId outId = g.outputNode();
    std::vector<NodeId> outItems;
    if (outId != kNoNode)
        for (const auto& a : g.node(outId).args) a.forEachNode([&](NodeId r) { outItems.push_back(r); });
    if (!hasTangents) {
        std::vector<NodeId> cands, preferred;
        NodeId first = outItems.empty() ? kNoNode : outItems.front();
        for (NodeId id : order) {
            const Node& n = g.node(id);
            if (!isLossSeed(g, n)) continue;
            cands.push_back(id);
            if (first != kNoNode && n.args[0].node == first) preferred.push_back(id);
        }
        info.seeds = preferred.empty() ? cands : preferred;
        for (NodeId s : info.seeds) bw[static_cast<size_t>(s)] = 1;
    }
    for (NodeId id : order)
        if (flag[static_cast<size_t>(id)] == 1) bw[static_cast<size_t>(id)] = 1;
    // propagate to users in graph order
    for (NodeId id : order) {
        const Node& n = g.node(id);
        if (n.op == NodeOp::Output || bw[static_cast<size_t>(id)]) continue;
        if (flag[static_cast<size_t>(id)] == 0) continue;  // meta says forward: it stays forward
        bool any = false;
        auto see = [&](NodeId r) {
            if (r >= 0 && static_cast<size_t>(r) < cap && bw[static_cast<size_t>(r)]) any = true;
        };
        for (const auto& a : n.args) a.forEachNode(see);
        for (const auto& kv : n.kwargs) kv.second.forEachNode(see);
        if (any && n.op != NodeOp::Placeholder && n.op != NodeOp::GetAttr) bw[static_cast<size_t>(id)] = 1;
    }

    // --- dataflow: required_fw = ancestors of the forward outputs
    std::vector<uint8_t> fw(cap, 0);
    std::vector<NodeId> stack;
    for (NodeId r : outItems)
        if (!bw[static_cast<size_t>(r)]) stack.push_back(r);
    while (!stack.empty()) {
        NodeId id = stack.back();
        stack.pop_back();
        if (fw[static_cast<size_t>(id)]) continue;
        fw[static_cast<size_t>(id)] = 1;
        const Node& n = g.node(id);
        auto push = [&](NodeId r) {
            if (r >= 0 && static_cast<size_t>(r) < cap && !fw[static_cast<size_t>(r)]) stack.push_back(r);
        };
        for (const auto& a : n.args) a.forEachNode(push);
        for (const auto& kv : n.kwargs) kv.second.forEachNode(push);
    }

    info.forwardNeeded = fw;

    // --- final classification
    size_t firstBwPos = order.size();
    for (size_t p = 0; p < order.size(); ++p)
        if (bw[static_cast<size_t>(order[p])] && isCallNode(g.node(order[p]))) {
            firstBwPos = p;
            break;
        }
    for (size_t p = 0; p < order.size(); ++p) {
        NodeId id = order[p];
        const Node& n = g.node(id);
        auto& ph = info.phase[static_cast<size_t>(id)];
        if (n.op == NodeOp::Placeholder || n.op == NodeOp::GetAttr) {
            ph = NodePhase::Input;
            continue;
        }
        if (n.op == NodeOp::Output) {
            ph = NodePhase::Output;
            continue;
        }
        int f = flag[static_cast<size_t>(id)];
        if (info.userAnnotated || f >= 0) {
            ph = f == 1 ? NodePhase::Backward : NodePhase::Forward;
            ++info.fromMeta;
            continue;
        }
        ++info.fromDataflow;
        if (bw[static_cast<size_t>(id)])
            ph = NodePhase::Backward;
        else if (fw[static_cast<size_t>(id)])
            ph = NodePhase::Forward;
        else
            ph = p > firstBwPos ? NodePhase::Backward : NodePhase::Forward;  // unclaimed
    }
    for (NodeId id : order)
        if (info.phase[static_cast<size_t>(id)] == NodePhase::Backward) {
            info.firstBackward = id;
            break;
        }

    // --- loss / epilogue
    auto mark = [&](NodeId id) {
        if (info.isForward(id)) info.epilogue[static_cast<size_t>(id)] = 1;
    };
    if (!hasTangents && !outItems.empty() && info.isForward(outItems.front())) {
        info.loss = outItems.front();
        NodeId cur = info.loss;
        for (;;) {
            mark(cur);
            const Node& n = g.node(cur);
            if (!isPassThrough(n)) break;
            NodeId up = n.args[0].node;
            if (!info.isForward(up)) break;
            cur = up;
        }
    }
    if (!hasTangents) {
        ptrdiff_t lastAttributed = -1;
        for (size_t p = 0; p < order.size(); ++p) {
            NodeId id = order[p];
            const Node& n = g.node(id);
            if (!info.isForward(id)) continue;
            if (n.meta.phase == Phase::Loss) mark(id);
            std::string mp = nodeModulePath(n);
            if (mp.empty()) continue;
            info.hasModulePaths = true;
            if (firstComponentMatches(mp, opts.epiloguePrefixes))
                mark(id);
            else
                lastAttributed = static_cast<ptrdiff_t>(p);
        }
        if (info.hasModulePaths && lastAttributed >= 0)
            for (size_t p = static_cast<size_t>(lastAttributed) + 1; p < order.size(); ++p) {
                NodeId id = order[p];
                if (info.isForward(id) && nodeModulePath(g.node(id)).empty()) mark(id);
            }
    }
    return info;
}

std::vector<BackwardRegion> backwardRegions(const Graph& g, const PhaseInfo& info)
{
    std::vector<BackwardRegion> out;
    const auto& order = g.order();
    bool open = false;
    for (size_t p = 0; p < order.size(); ++p) {
        NodePhase ph = info.of(order[p]);
        if (ph == NodePhase::Input) continue;
        if (ph == NodePhase::Backward) {
            if (!open) {
                out.push_back({p, p, {}});
                open = true;
            }
            out.back().last = p;
            out.back().nodes.push_back(order[p]);
        } else {
            open = false;
        }
    }
    return out;
}

std::string backwardOnlyGraph(const Graph& g, const PhaseInfo& info, const std::string& pass)
{
    if (info.seeds.empty() && info.firstBackward == kNoNode) return {};
    const NodeId out = g.outputNode();
    if (out == kNoNode) return {};
    const Node& o = g.node(out);
    const std::vector<Arg>& items = o.args.size() == 1 && o.args[0].isSequence() ? o.args[0].items : o.args;
    bool forwardOutput = false, backwardOutput = false;
    for (const Arg& a : items)
        a.forEachNode([&](NodeId id) {
            forwardOutput = forwardOutput || info.isForward(id);
            backwardOutput = backwardOutput || info.isBackward(id);
        });
    if (backwardOutput && !forwardOutput)
        return pass
            + " works on the forward of a forward+loss+backward graph; every output of this graph is computed in the "
              "backward: an AOT backward graph, already partitioned";
    return {};
}

std::string noBackwardGraph(const Graph& g, const PhaseInfo& info, const std::string& pass)
{
    if (!info.seeds.empty() || info.firstBackward != kNoNode) return {};
    bool primals = false, dynamo = false;
    for (NodeId id : g.order()) {
        const Node& n = g.node(id);
        if (n.op != NodeOp::Placeholder) continue;
        primals = primals || n.name.rfind("primals_", 0) == 0;
        dynamo = dynamo || n.name.rfind("L_", 0) == 0 || n.name.rfind("l_", 0) == 0;
    }
    const std::string what = primals ? "its primals_* inputs make it an AOT forward graph, already partitioned (its "
                                       "backward is a separate graph)"
        : dynamo ? "its L_* inputs make it a Dynamo graph, captured before autograd traced a backward"
                 : "a forward-only, inference, post-grad or Dynamo graph";
    return pass
        + " works on a forward+loss+backward graph, recomputing forward values in its backward; this graph has no "
          "backward (no tangent placeholder, no ones_like(loss) seed, no backward phase meta): "
        + what
        + ". It applies to a joint graph (a log's aot_joint_graph, a traced loss + autograd.grad): fxlens info "
          "lists a log's graphs, --graph ID picks one";
}

}  // namespace fxl
