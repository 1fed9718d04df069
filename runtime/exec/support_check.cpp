#include "runtime/exec/support_check.hpp"

#include <map>
#include <set>

#include "core/ops/custom_ops.hpp"
#include "core/ops/op_registry.hpp"
#include "runtime/base/kernel.hpp"
#include "runtime/exec/executor_plan.hpp"

namespace fxl {

namespace {

using exec::Hop;
using exec::makePlan;
using exec::NodePlan;
using exec::RecipeCache;

// Why the planned node cannot run ("" when it can), as the executor would say when reaching it.
std::string blocker(const Node& n, const NodePlan& np, DeviceKind device)
{
    if (!np.error.empty()) return np.error;
    switch (np.kind) {
    case NodePlan::Kind::Op:
        if (np.op && !np.op->custom && !KernelRegistry::instance().find(np.op->qualifiedName, device))
            return std::string("no ") + (device == DeviceKind::Cpu ? "CPU" : "CUDA") + " kernel for "
                + np.op->qualifiedName;
        return {};
    case NodePlan::Kind::Hop:
        if (np.hop == Hop::Unsupported)
            return "higher-order operator " + n.target + " is not supported by the executor";
        return {};
    case NodePlan::Kind::Torch:
        if (!np.torch) return "no lowering to aten kernels for " + n.target;
        return {};
    case NodePlan::Kind::Unsupported: return "nodes of this kind cannot run (" + n.target + ")";
    default: return {};
    }
}

void collect(const Graph& g, const std::string& prefix, DeviceKind device, std::vector<MissingSupport>& out,
             std::map<std::string, size_t>& byReason, std::set<const Graph*>& decompositions)
{
    RecipeCache recipes;
    const auto plan = makePlan(g, OpRegistry::instance(), recipes, device);
    const auto& order = g.order();
    for (size_t k = 0; k < order.size(); ++k) {
        const Node& n = g.node(order[k]);
        const NodePlan& np = plan->nodes[k];
        // a custom op's decomposition (ops files) runs as a nested graph: what it lacks, once
        if (np.error.empty() && np.op && runsDeclaration(*np.op, device) && np.op->custom->decomposition
            && decompositions.insert(np.op->custom->decomposition.get()).second)
            collect(*np.op->custom->decomposition, np.op->qualifiedName + "/", device, out, byReason, decompositions);
        const std::string why = blocker(n, np, device);
        if (why.empty()) continue;
        auto [it, fresh] = byReason.try_emplace(why, out.size());
        if (fresh) out.push_back({why, {}});
        out[it->second].nodes.push_back(prefix + n.name);
    }
    for (const auto& [attr, sub] : g.subgraphs)
        if (sub) collect(*sub, prefix + attr + "/", device, out, byReason, decompositions);
}

}  // namespace

std::vector<MissingSupport> missingSupport(const Graph& g, DeviceKind device)
{
    std::vector<MissingSupport> out;
    std::map<std::string, size_t> byReason;
    std::set<const Graph*> decompositions;
    collect(g, "", device, out, byReason, decompositions);
    return out;
}

}  // namespace fxl
