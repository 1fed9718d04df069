#include "core/ops/op_writes.hpp"

#include <algorithm>
#include <array>

namespace fxl {

namespace {

// An operator that writes `written` (by schema position and name) when its argument `when`
// (position and name) is true, or not known before the run.
struct DependentWrite
{
    std::string_view target;
    std::array<std::pair<int, std::string_view>, 2> written;  // {-1, ""} for none
    std::pair<int, std::string_view> when;
};

// Positions as in native_functions.yaml of PyTorch 1.13 (the same in later releases).
constexpr std::array<DependentWrite, 7> kDependentWrites = {{
    {"aten.native_batch_norm.default", {{{3, "running_mean"}, {4, "running_var"}}}, {5, "training"}},
    {"aten.batch_norm.default", {{{3, "running_mean"}, {4, "running_var"}}}, {5, "training"}},
    {"aten._batch_norm_impl_index.default", {{{3, "running_mean"}, {4, "running_var"}}}, {5, "training"}},
    {"aten.cudnn_batch_norm.default", {{{3, "running_mean"}, {4, "running_var"}}}, {5, "training"}},
    {"aten.miopen_batch_norm.default", {{{3, "running_mean"}, {4, "running_var"}}}, {5, "training"}},
    {"aten.instance_norm.default", {{{3, "running_mean"}, {4, "running_var"}}}, {5, "use_input_stats"}},
    {"aten.rrelu_with_noise.default", {{{1, "noise"}, {-1, ""}}}, {4, "training"}},
}};

// The argument at schema position `pos` named `name`: positional, else by keyword.
const Arg* argument(const Node& n, int pos, std::string_view name)
{
    if (pos >= 0 && static_cast<size_t>(pos) < n.args.size()) return &n.args[static_cast<size_t>(pos)];
    return n.kwarg(name);
}

// "aten.native_batch_norm" (printed without overload) and "torch.ops.aten..." name the default.
std::string withOverload(const std::string& target)
{
    std::string t = OpRegistry::normalizeTarget(target);
    if (std::count(t.begin(), t.end(), '.') == 1) t += ".default";
    return t;
}

bool isInplaceMethodName(std::string_view name)
{
    return !name.empty() && name.back() == '_' && name.substr(0, 2) != "__";
}

void addNode(std::vector<WrittenArgument>& out, const Arg* a, std::string_view name, bool bySchema)
{
    if (!a || a->isNone()) return;
    out.push_back({std::string(name), a->isNode() ? a->node : kNoNode, bySchema});
}

}  // namespace

std::vector<std::string_view> argumentDependentWriters()
{
    std::vector<std::string_view> out;
    for (const DependentWrite& d : kDependentWrites) out.push_back(d.target);
    return out;
}

std::vector<WrittenArgument> writtenArguments(const Node& n, const OpRegistry& reg)
{
    std::vector<WrittenArgument> out;
    if (n.op == NodeOp::CallMethod) {
        // Tensor methods ending in '_' write self (add_, copy_, ...)
        if (isInplaceMethodName(n.target)) addNode(out, n.args.empty() ? nullptr : &n.args[0], "self", true);
        return out;
    }
    if (n.op != NodeOp::CallFunction || n.isGetitem()) return out;
    const std::string target = withOverload(n.target);
    if (const OpInfo* op = reg.find(target)) {
        for (size_t i = 0; i < op->schema.args.size(); ++i) {
            const SchemaArg& a = op->schema.args[i];
            if (a.alias && a.alias->isWrite)
                addNode(out, argument(n, a.kwargOnly ? -1 : static_cast<int>(i), a.name), a.name, true);
        }
        if (out.empty() && op->has(kTraitInplace)) addNode(out, n.args.empty() ? nullptr : &n.args[0], "self", true);
    }
    for (const DependentWrite& d : kDependentWrites) {
        if (target != d.target) continue;
        const Arg* when = argument(n, d.when.first, d.when.second);
        // false (or the schema's default, false) writes nothing; a value known only at run time may
        if (!when || when->isNone() || (when->kind == Arg::Kind::Bool && !when->b)) break;
        for (const auto& [pos, name] : d.written)
            if (pos >= 0) addNode(out, argument(n, pos, name), name, false);
        break;
    }
    return out;
}

bool targetMayWrite(NodeOp op, const std::string& target, const OpRegistry& reg)
{
    if (op == NodeOp::CallMethod) return isInplaceMethodName(target);
    if (op != NodeOp::CallFunction) return false;
    const std::string t = withOverload(target);
    for (const DependentWrite& d : kDependentWrites)
        if (t == d.target) return true;
    const OpInfo* info = reg.find(t);
    if (!info) return false;
    if (info->has(kTraitInplace)) return true;
    return std::any_of(info->schema.args.begin(), info->schema.args.end(),
                       [](const SchemaArg& a) { return a.alias && a.alias->isWrite; });
}

bool writesInPlace(const Node& n, const OpRegistry& reg) { return !writtenArguments(n, reg).empty(); }

namespace {

// Tensor methods of Dynamo-level graphs whose value may share self's storage.
bool isViewMethod(std::string_view m)
{
    static constexpr std::string_view kViews[] = {
        "view",   "view_as",    "transpose",  "permute", "t",        "unsqueeze",  "squeeze",    "expand", "expand_as",
        "detach", "narrow",     "select",     "reshape", "flatten",  "contiguous", "unflatten",  "split",  "chunk",
        "unbind", "as_strided", "reshape_as", "movedim", "swapaxes", "unfold",     "__getitem__"};
    for (std::string_view v : kViews)
        if (m == v) return true;
    return false;
}

}  // namespace

std::vector<NodeId> storageRoots(const Graph& g, const OpRegistry& reg)
{
    NodeId maxId = -1;
    for (NodeId id : g.order()) maxId = std::max(maxId, id);
    std::vector<NodeId> root(static_cast<size_t>(maxId + 1), kNoNode);
    auto rootOf = [&](NodeId id) {
        return id >= 0 && static_cast<size_t>(id) < root.size() && root[static_cast<size_t>(id)] != kNoNode
            ? root[static_cast<size_t>(id)]
            : id;
    };
    auto firstNodeArg = [](const Node& n) -> NodeId {
        for (const Arg& a : n.args)
            if (a.isNode()) return a.node;
        return kNoNode;
    };
    for (NodeId id : g.order()) {
        const Node& n = g.node(id);
        NodeId r = id;
        if (n.isGetitem()) {
            // an element of a view list (split, unbind) is a view of the base; of another
            // multi-output op, a storage of its own
            if (!n.args.empty() && n.args[0].isNode()) {
                const Node& src = g.node(n.args[0].node);
                const OpInfo* op = src.op == NodeOp::CallFunction ? reg.find(src.target) : nullptr;
                if ((op && op->has(kTraitViewList)) || (src.op == NodeOp::CallMethod && isViewMethod(src.target)))
                    r = rootOf(n.args[0].node);
            }
        } else if (n.op == NodeOp::CallMethod) {
            if ((isInplaceMethodName(n.target) || isViewMethod(n.target)) && !n.args.empty() && n.args[0].isNode())
                r = rootOf(n.args[0].node);
        } else if (n.op == NodeOp::CallFunction) {
            const std::vector<WrittenArgument> written = writtenArguments(n, reg);
            const OpInfo* op = reg.find(n.target);
            if (op && op->has(kTraitInplace) && !written.empty() && written[0].node != kNoNode)
                r = rootOf(written[0].node);
            else if (op
                     && (op->has(kTraitView) || op->has(kTraitViewList) || op->has(kTraitAliasNoAnnot)
                         || op->kind.find("view") != std::string::npos)) {
                if (const NodeId src = firstNodeArg(n); src != kNoNode) r = rootOf(src);
            }
        }
        root[static_cast<size_t>(id)] = r;
    }
    return root;
}

std::vector<char> readsBeforeLaterWrite(const Graph& g, const OpRegistry& reg,
                                        const std::function<bool(NodeId)>& counts)
{
    const std::vector<NodeId> root = storageRoots(g, reg);
    const auto& order = g.order();
    std::vector<int64_t> pos(root.size(), -1), lastWrite(root.size(), -1);
    for (size_t k = 0; k < order.size(); ++k) pos[static_cast<size_t>(order[k])] = static_cast<int64_t>(k);
    for (size_t k = 0; k < order.size(); ++k) {
        const Node& n = g.node(order[k]);
        if (n.op != NodeOp::CallFunction && n.op != NodeOp::CallMethod) continue;
        if (counts && !counts(order[k])) continue;
        for (const WrittenArgument& w : writtenArguments(n, reg))
            if (w.node >= 0 && static_cast<size_t>(w.node) < root.size())
                lastWrite[static_cast<size_t>(root[static_cast<size_t>(w.node)])] = static_cast<int64_t>(k);
    }
    std::vector<char> out(root.size(), 0);
    for (size_t k = 0; k < order.size(); ++k) {
        const Node& n = g.node(order[k]);
        if (n.op == NodeOp::Output || n.op == NodeOp::Placeholder || n.op == NodeOp::GetAttr) continue;
        forEachInput(n, [&](NodeId in) {
            if (in < 0 || static_cast<size_t>(in) >= root.size()) return;
            if (lastWrite[static_cast<size_t>(root[static_cast<size_t>(in)])] > static_cast<int64_t>(k))
                out[static_cast<size_t>(order[k])] = 1;
        });
    }
    return out;
}

}  // namespace fxl
