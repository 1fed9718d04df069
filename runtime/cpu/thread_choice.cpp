#include "runtime/cpu/thread_choice.hpp"

#include <algorithm>
#include <string_view>

#include "core/ops/op_registry.hpp"

namespace fxl {

namespace {

int64_t numelOf(const ValueMeta& v)
{
    if (v.isTensor()) return std::max<int64_t>(0, v.tensor.numelHint());
    int64_t n = 0;
    for (const ValueMeta& e : v.elems) n += numelOf(e);
    return n;
}

// The size of dimension `dim` (negative from the end) of a node argument's tensor meta, or 0.
int64_t argDim(const Graph& g, const Node& n, size_t arg, int dim)
{
    if (arg >= n.args.size() || !n.args[arg].isNode()) return 0;
    const ValueMeta& v = g.node(n.args[arg].node).val;
    if (!v.isTensor()) return 0;
    const auto& sizes = v.tensor.sizes;
    const int rank = static_cast<int>(sizes.size());
    const int k = dim < 0 ? rank + dim : dim;
    if (k < 0 || k >= rank) return 0;
    return sizes[static_cast<size_t>(k)].maybeValue().value_or(0);
}

// Flops of a matmul-like node (0 for other ops): output elements x 2 x the reduced length.
int64_t matmulFlops(const Graph& g, const Node& n, int64_t outElements)
{
    if (n.op != NodeOp::CallFunction) return 0;
    std::string_view t = n.target;
    if (t.starts_with("aten.")) t.remove_prefix(5);
    const std::string_view base = t.substr(0, t.find('.'));
    int64_t k = 0;
    if (base == "mm" || base == "bmm" || base == "matmul" || base == "linear")
        k = argDim(g, n, 0, -1);
    else if (base == "addmm" || base == "baddbmm" || base == "addbmm")
        k = argDim(g, n, 1, -1);
    else if (base.find("scaled_dot_product") != std::string_view::npos)
        k = 2 * argDim(g, n, 1, -2);  // scores and the weighted sum: key length each
    else if (base == "convolution" || base == "conv2d" || base == "conv1d")
        k = argDim(g, n, 1, 1) * std::max<int64_t>(1, argDim(g, n, 1, -1)) * std::max<int64_t>(1, argDim(g, n, 1, -2));
    else
        return 0;
    return 2 * outElements * std::max<int64_t>(1, k);
}

std::string percent(int64_t part, int64_t whole)
{
    if (whole <= 0) return "0%";
    return std::to_string(static_cast<int>((100 * static_cast<double>(part)) / static_cast<double>(whole))) + "%";
}

}  // namespace

ThreadChoice chooseThreads(const Graph& g, int maxThreads)
{
    ThreadChoice c;
    const OpRegistry& reg = OpRegistry::instance();
    size_t calls = 0;
    for (NodeId id : g.order()) {
        const Node& n = g.node(id);
        if (n.op != NodeOp::CallFunction && n.op != NodeOp::CallMethod && n.op != NodeOp::CallModule) continue;
        ++calls;
        if (n.isGetitem()) continue;
        if (const OpInfo* op = reg.find(n.target);
            op && (op->has(kTraitView) || op->has(kTraitViewList) || op->has(kTraitAliasNoAnnot)))
            continue;
        const int64_t elements = numelOf(n.val);
        const int64_t flops = matmulFlops(g, n, elements);
        const int64_t work = flops > 0 ? flops : 8 * elements;
        c.work += work;
        if (flops > 0 ? flops >= kLargeMatmulFlops : elements >= kLargeElements) {
            c.largeWork += work;
            ++c.largeNodes;
        }
    }
    const bool split = maxThreads > 1 && c.largeNodes > 0 && 4 * c.largeWork >= c.work;
    c.threads = split ? maxThreads : 1;
    c.reason = std::to_string(c.largeNodes) + " of " + std::to_string(calls) + " nodes large enough to split, "
        + percent(c.largeWork, c.work) + " of the work: " + std::to_string(c.threads)
        + (c.threads == 1 ? " thread" : " threads");
    return c;
}

}  // namespace fxl
