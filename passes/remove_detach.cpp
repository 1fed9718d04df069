// remove_detach: drops detach (and optionally alias) nodes and identity views / slices,
// rewiring their users to the producer, as torchtitan's remove_detach /
// remove_identity_view / remove_identity_slice do before SAC tagging: a detach tagged
// MUST_SAVE would stop the remat walk (docs/passes.md section 2.6). A removed node's recompute tag moves
// to its producer when the producer has none.
#include <unordered_map>
#include <unordered_set>

#include "passes/graph_edit.hpp"
#include "passes/remove_detach.hpp"

namespace fxl {
namespace {

enum class Kind
{
    Keep,
    Detach,
    Alias,
    IdentityView,
    IdentitySlice
};

const char* kindStat(Kind k)
{
    switch (k) {
    case Kind::Detach: return "detach";
    case Kind::Alias: return "alias";
    case Kind::IdentityView: return "identity_view";
    case Kind::IdentitySlice: return "identity_slice";
    case Kind::Keep: break;
    }
    return "kept";
}

// Same sizes (and strides and offset where both are known): the view is the input itself.
bool sameLayout(const ValueMeta& a, const ValueMeta& b)
{
    if (!a.isTensor() || !b.isTensor()) return false;
    const TensorMeta& x = a.tensor;
    const TensorMeta& y = b.tensor;
    if (x.dtype != y.dtype || x.sizes != y.sizes) return false;
    if (!x.strides.empty() && !y.strides.empty() && x.strides != y.strides) return false;
    return x.storageOffset == y.storageOffset;
}

// The size list of a view/reshape equals the input's concrete sizes (used when the node has no meta).
bool sizeArgMatches(const Arg& size, const ValueMeta& in)
{
    if (!in.isTensor() || !size.isSequence() || size.items.size() != in.tensor.sizes.size()) return false;
    for (size_t d = 0; d < size.items.size(); ++d) {
        const auto v = in.tensor.sizes[d].maybeValue();
        if (size.items[d].kind != Arg::Kind::Int || !v || *v != size.items[d].i) return false;
    }
    return true;
}

class RemoveDetachPass : public Pass
{
public:
    std::string name() const override { return "remove_detach"; }
    std::string summary() const override { return "remove detach, identity views and identity slices"; }
    std::string description() const override
    {
        return "Removes aten.detach.default nodes (and aten.alias.default with include_alias=true), whole chains "
               "of them, rewiring every user (graph outputs included) to the producer. With identity_views=true "
               "(default) also removes aten.view / aten.reshape / aten._unsafe_view to the input's own sizes and "
               "aten.slice over the full range with step 1. Run it before SAC tagging: a detach tagged MUST_SAVE "
               "stops the remat walk. A removed node's recompute tag (and ac_graph_id) moves to its producer when "
               "the producer has none.";
    }
    std::vector<PassOption> options() const override
    {
        return {
            {"include_alias", OptionType::Bool, "false", {}, "also remove aten.alias.default"},
            {"identity_views",
             OptionType::Bool,
             "true",
             {},
             "also remove identity view/reshape/_unsafe_view and full slices"},
        };
    }

    Kind classify(const Graph& g, const Node& n, const PassOptions& opts, const OpRegistry& reg) const
    {
        if (n.op != NodeOp::CallFunction || n.args.empty() || !n.args[0].isNode()) return Kind::Keep;
        const OpInfo* op = reg.find(OpRegistry::normalizeTarget(n.target));
        if (!op) return Kind::Keep;
        const std::string& q = op->qualifiedName;
        if (q == "aten.detach.default") return Kind::Detach;
        if (q == "aten.alias.default") return opts.getBool("include_alias") ? Kind::Alias : Kind::Keep;
        if (!opts.getBool("identity_views")) return Kind::Keep;
        const bool isView = q == "aten.view.default" || q == "aten.reshape.default" || q == "aten._unsafe_view.default";
        const bool isSlice = q == "aten.slice.Tensor";
        if (!isView && !isSlice) return Kind::Keep;
        const ValueMeta& in = g.node(n.args[0].node).val;
        if (isView) {
            if (n.val.kind != ValueMeta::Kind::Unknown) return sameLayout(n.val, in) ? Kind::IdentityView : Kind::Keep;
            const Arg* size = n.args.size() > 1 ? &n.args[1] : n.kwarg(q == "aten.reshape.default" ? "shape" : "size");
            return (size && sizeArgMatches(*size, in)) ? Kind::IdentityView : Kind::Keep;
        }
        // slice(self, dim=0, start=None, end=None, step=1): step must be 1 and the range full.
        std::vector<Arg> bound;
        if (reg.bind(*op, n, bound) || bound.size() < 5) return Kind::Keep;
        if (!(bound[4].kind == Arg::Kind::Int && bound[4].i == 1)) return Kind::Keep;
        if (!(bound[2].isNone() || (bound[2].kind == Arg::Kind::Int && bound[2].i == 0))) return Kind::Keep;
        if (n.val.kind != ValueMeta::Kind::Unknown) return sameLayout(n.val, in) ? Kind::IdentitySlice : Kind::Keep;
        if (!in.isTensor() || bound[1].kind != Arg::Kind::Int) return Kind::Keep;
        const int64_t rank = static_cast<int64_t>(in.tensor.sizes.size());
        const int64_t dim = bound[1].i < 0 ? bound[1].i + rank : bound[1].i;
        if (dim < 0 || dim >= rank) return Kind::Keep;
        if (bound[3].isNone()) return Kind::IdentitySlice;
        const auto size = in.tensor.sizes[static_cast<size_t>(dim)].maybeValue();
        return (bound[3].kind == Arg::Kind::Int && size && bound[3].i >= *size) ? Kind::IdentitySlice : Kind::Keep;
    }

    void run(Graph& g, const PassOptions& opts, PassContext& ctx) const override
    {
        g.rebuildUsers();
        const std::vector<NodeId> order = g.order();
        std::unordered_map<NodeId, Kind> removable;
        for (NodeId id : order) {
            const Kind k = classify(g, g.node(id), opts, ctx.registry);
            if (k != Kind::Keep) removable.emplace(id, k);
        }
        std::unordered_map<NodeId, NodeId> root;  // removed node -> surviving producer
        std::vector<NodeId> removed;
        std::map<std::string, size_t> counts;
        for (NodeId id : order) {
            auto kit = removable.find(id);
            if (kit == removable.end()) continue;
            const Node& n = g.node(id);
            NodeId producer = n.args[0].node;
            if (auto r = root.find(producer); r != root.end()) producer = r->second;
            root[id] = producer;
            removed.push_back(id);
            ++counts[kindStat(kit->second)];

            // Rewire users; entries for users that are removed themselves would only be noise.
            PassContext tmp(ctx.registry);
            tmp.graphRole = ctx.graphRole;
            replaceAllUsesLogged(g, id, producer, &tmp);
            for (auto& e : tmp.log.rewired) {
                const NodeId c = g.findByName(e.consumer);
                if (c == kNoNode || !removable.count(c)) ctx.log.rewired.push_back(std::move(e));
            }

            Node& p = g.node(producer);
            if (n.meta.recompute != Recompute::None && p.meta.recompute == Recompute::None
                && p.op != NodeOp::Placeholder && p.op != NodeOp::GetAttr) {
                ctx.tagSet(p.name, "recompute", "", recomputeText(n.meta.recompute));
                p.meta.recompute = n.meta.recompute;
                if (n.meta.acGraphId && !p.meta.acGraphId) {
                    ctx.tagSet(p.name, "ac_graph_id", "", std::to_string(*n.meta.acGraphId));
                    p.meta.acGraphId = n.meta.acGraphId;
                }
            }
        }
        g.rebuildUsers();
        eraseNodes(g, removed, &ctx);
        for (const auto& [k, c] : counts) ctx.log.stats[k] = ctx.log.stats.value(k, size_t{0}) + c;
        std::string line = (ctx.graphRole.empty() ? "" : ctx.graphRole + ": ") + "removed "
            + std::to_string(removed.size()) + " node" + (removed.size() == 1 ? "" : "s");
        if (!counts.empty()) {
            line += " (";
            bool first = true;
            for (const auto& [k, c] : counts) {
                line += (first ? "" : ", ") + std::to_string(c) + " " + k;
                first = false;
            }
            line += ")";
        }
        ctx.note(line);
    }
};

}  // namespace

std::unique_ptr<Pass> makeRemoveDetachPass() { return std::make_unique<RemoveDetachPass>(); }

}  // namespace fxl
