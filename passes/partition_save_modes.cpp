#include "passes/partition_save_modes.hpp"

#include <set>

#include "passes/partition_op_sets.hpp"

namespace fxl::partitioning {

namespace {

// A SymBool read only by asserts is not saved: the backward does not need it.
bool isReadOnlyByAsserts(const Graph& g, const Node& n)
{
    bool assertOnly = n.val.kind == ValueMeta::Kind::SymBool && !n.users.empty();
    for (NodeId u : n.users)
        if (PartitionOpSets::baseName(g.node(u)).find("assert") == std::string_view::npos) assertOnly = false;
    return assertOnly;
}

// The getitems of a tagged multi-output node that are saved: all of them for MUST_SAVE,
// else those custom.ap_must_save_getitem_indices lists (all when there is no list).
void saveTaggedGetitems(const Graph& g, const Node& n, SavedValues& saves)
{
    const bool mustSave = n.meta.recompute == Recompute::MustSave;
    if (!mustSave && !hasCustomFlag(n, "ap_must_save")) return;
    std::set<int64_t> indices;
    bool all = mustSave;
    if (!all) {
        auto it = n.meta.custom.find("ap_must_save_getitem_indices");
        if (it == n.meta.custom.end() || !it->is_array())
            all = true;
        else
            for (const auto& v : *it)
                if (v.is_number_integer()) indices.insert(v.get<int64_t>());
    }
    for (NodeId u : n.users) {
        const Node& getitem = g.node(u);
        if (!getitem.isGetitem()) continue;
        const bool listed =
            getitem.args.size() > 1 && getitem.args[1].kind == Arg::Kind::Int && indices.count(getitem.args[1].i);
        if (!all && !listed) continue;
        saves.values.push_back(u);
    }
}

void maybeSaveTagged(const Graph& g, NodeId id, SavedValues& saves)
{
    const Node& n = g.node(id);
    if (n.meta.recompute == Recompute::MustRecompute) return;
    if (isSymbolic(n.val)) {
        if (!isReadOnlyByAsserts(g, n)) saves.symbols.push_back(id);
        return;
    }
    if (isMultiOutput(g, n)) {
        saveTaggedGetitems(g, n, saves);
        return;
    }
    if (n.val.kind == ValueMeta::Kind::Opaque || n.op == NodeOp::Placeholder || hasCustomFlag(n, "ap_must_save")
        || n.meta.recompute == Recompute::MustSave)
        saves.values.push_back(id);
}

}  // namespace

SavedValues chooseSaveAll(const ClassifiedJoint& joint)
{
    const Graph& g = *joint.graph;
    SavedValues saves;
    for (NodeId id : g.order()) {
        if (!joint.classes.isRequiredFw(id)) continue;
        const Node& n = g.node(id);
        if (isSymbolic(n.val))
            saves.symbols.push_back(id);
        else if (isMultiOutput(g, n)) {
            for (NodeId u : n.users)
                if (g.node(u).isGetitem()) saves.values.push_back(u);
        } else
            saves.values.push_back(id);
    }
    return saves;
}

SavedValues chooseTagged(const ClassifiedJoint& joint)
{
    const Graph& g = *joint.graph;
    SavedValues saves;
    for (NodeId id : g.order())
        if (joint.classes.isRequiredFw(id)) maybeSaveTagged(g, id, saves);
    for (NodeId id : g.order())
        if (joint.classes.isUnclaimed(id)) maybeSaveTagged(g, id, saves);
    return saves;
}

}  // namespace fxl::partitioning
