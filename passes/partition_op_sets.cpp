#include "passes/partition_op_sets.hpp"

#include <set>
#include <utility>

#include "passes/graph_edit.hpp"

namespace fxl::partitioning {

namespace {

// "aten.mm.default" -> ("aten", "mm"); "operator.getitem" -> ("operator", "getitem").
std::pair<std::string_view, std::string_view> splitTarget(std::string_view t)
{
    if (t.substr(0, 10) == "torch.ops.") t.remove_prefix(10);
    const size_t d1 = t.find('.');
    if (d1 == std::string_view::npos) return {"", t};
    const std::string_view ns = t.substr(0, d1);
    std::string_view rest = t.substr(d1 + 1);
    if (ns == "operator" || ns == "_operator" || ns == "builtins" || ns == "math") return {"operator", rest};
    const size_t d2 = rest.find('.');
    return {ns, d2 == std::string_view::npos ? rest : rest.substr(0, d2)};
}

// Older traces (torch 1.13, the corpus) spell some of these differently where newer AOT graphs
// decompose to the listed ops: _reshape_alias (a view with explicit strides, now view /
// as_strided), transpose (now permute) and detach (now alias). They count as what they became.
const std::set<std::string_view>& viewOps()
{
    static const std::set<std::string_view> s = {"squeeze", "unsqueeze",        "alias",     "view",       "slice",
                                                 "t",       "broadcast_in_dim", "expand",    "as_strided", "permute",
                                                 "select",  "_reshape_alias",   "transpose", "detach"};
    return s;
}

const std::set<std::string_view>& recomputableNames()
{
    static const std::set<std::string_view> s = {
        // pointwise arithmetic / comparison / logic / activations / math
        "add", "sub", "div", "atan2", "mul", "max", "min", "pow", "remainder", "fmod", "__and__", "__or__", "__xor__",
        "__lshift__", "__rshift__", "eq", "ne", "ge", "gt", "le", "lt", "abs", "bitwise_not", "ceil", "floor", "frac",
        "neg", "relu", "round", "silu", "trunc", "log", "log10", "log1p", "log2", "lgamma", "exp", "expm1", "erf",
        "erfc", "cos", "acos", "cosh", "sin", "asin", "sinh", "tan", "atan", "tanh", "atanh", "sqrt", "rsqrt",
        "reciprocal", "sigmoid", "softplus", "threshold", "threshold_backward", "clamp", "where", "lerp", "addcmul",
        "gelu", "gelu_backward", "rsub", "maximum", "isinf", "any",
        // reductions
        "sum", "mean", "_grad_sum_to_size", "sum_to_size", "amax", "var", "var_mean", "std", "argmax",
        // casts
        "to", "type_as", "_to_copy", "convert_element_type",
        // views and shape ops
        "view", "reshape", "_unsafe_view", "expand", "slice", "select", "squeeze", "unsqueeze", "t", "permute",
        "as_strided", "alias", "broadcast_in_dim", "broadcast_tensors", "_reshape_alias", "transpose", "detach",
        // factories
        "full", "full_like", "zeros", "ones", "new_zeros", "empty", "empty_like", "zeros_like", "ones_like",
        "scalar_tensor", "arange", "iota", "triu", "lift_fresh_copy",
        // misc
        "clone", "index", "gather", "getitem"};
    return s;
}

const std::set<std::string_view>& randomNames()
{
    static const std::set<std::string_view> s = {"native_dropout", "rand_like", "randn_like"};
    return s;
}

const std::set<std::string_view>& computeIntensiveNames()
{
    static const std::set<std::string_view> s = {"mm",
                                                 "convolution",
                                                 "convolution_backward",
                                                 "bmm",
                                                 "addmm",
                                                 "_scaled_dot_product_flash_attention",
                                                 "_scaled_dot_product_efficient_attention",
                                                 "_flash_attention_forward",
                                                 "_efficient_attention_forward",
                                                 "upsample_bilinear2d",
                                                 "_scaled_mm"};
    return s;
}

}  // namespace

const OpInfo* PartitionOpSets::opInfo(const Node& n) const
{
    if (n.op != NodeOp::CallFunction) return nullptr;
    auto it = infoByTarget_.find(n.target);
    if (it != infoByTarget_.end()) return it->second;
    const OpInfo* info = registry_.find(OpRegistry::normalizeTarget(n.target));
    infoByTarget_.emplace(n.target, info);
    return info;
}

bool PartitionOpSets::hasTrait(const Node& n, OpTrait trait) const
{
    const OpInfo* info = opInfo(n);
    return info && info->has(trait);
}

std::string_view PartitionOpSets::baseName(const Node& n) { return splitTarget(n.target).second; }

std::string_view PartitionOpSets::namespaceName(const Node& n) { return splitTarget(n.target).first; }

bool PartitionOpSets::isView(const Node& n) const
{
    return n.op == NodeOp::CallFunction && (namespaceName(n) == "aten" || namespaceName(n) == "prims")
        && viewOps().count(baseName(n));
}

bool PartitionOpSets::isRandom(const Node& n) const
{
    if (n.op != NodeOp::CallFunction) return false;
    const OpInfo* info = opInfo(n);
    return (info && (info->has(kTraitRandom) || dropsOut(n, *info)))
        || (namespaceName(n) == "aten" && randomNames().count(baseName(n)));
}

bool PartitionOpSets::isComputeIntensive(const Node& n) const
{
    if (n.op != NodeOp::CallFunction) return false;
    return (namespaceName(n) == "aten" && computeIntensiveNames().count(baseName(n))) || hasTrait(n, kTraitMatmul);
}

bool PartitionOpSets::isCollective(const Node& n) const
{
    if (n.op != NodeOp::CallFunction) return false;
    const std::string_view ns = namespaceName(n);
    return ns == "_c10d_functional" || ns == "_c10d_functional_autograd" || ns == "c10d_functional"
        || hasTrait(n, kTraitCollective) || hasTrait(n, kTraitWait);
}

bool PartitionOpSets::isRecomputable(const Node& n) const
{
    if (n.op != NodeOp::CallFunction || isRandom(n)) return false;
    const std::string_view ns = namespaceName(n), base = baseName(n);
    if (ns == "operator") return true;  // getitem and the symbolic-int magic methods
    if ((ns == "aten" || ns == "prims") && recomputableNames().count(base)) return true;
    return hasTrait(n, kTraitPointwise) || hasTrait(n, kTraitSym);
}

bool PartitionOpSets::isCat(const Node& n) const
{
    return n.op == NodeOp::CallFunction && namespaceName(n) == "aten" && baseName(n) == "cat";
}

}  // namespace fxl::partitioning
