#include "viewer/model/provenance_trail.hpp"

namespace fxl::viewer {

namespace {

const NodeDiff* diffOfB(const GraphDiff& d, NodeId b)
{
    for (const NodeDiff& n : d.nodes)
        if (n.b == b) return &n;
    return nullptr;
}

std::string describe(const NodeDiff& n)
{
    switch (n.cls) {
    case DiffClass::Unchanged: return n.renamed ? "renamed from " + n.aName : "unchanged";
    case DiffClass::Added: return "added";
    case DiffClass::Removed: return "removed";
    case DiffClass::Changed: {
        std::string s = "changed:";
        for (size_t i = 0; i < n.fields.size(); ++i) s += (i ? ", " : " ") + n.fields[i];
        if (n.renamed) s += " (renamed from " + n.aName + ")";
        return s;
    }
    }
    return {};
}

}  // namespace

std::vector<TrailEntry> provenanceTrail(const std::vector<std::shared_ptr<const StepState>>& steps, int step,
                                        const std::string& role, const std::string& node)
{
    std::vector<TrailEntry> out;
    if (step < 0 || step >= static_cast<int>(steps.size())) return out;
    std::string cur = node, curRole = role;
    for (int j = step; j >= 0; --j) {
        const StepState& st = *steps[static_cast<size_t>(j)];
        if (st.failed) return out;
        const StepGraph* sg = st.graph(curRole);
        if (!sg) return out;
        const Graph& g = *sg->prepared->graph;
        const NodeId id = g.findByName(cur);
        if (id == kNoNode) return out;
        TrailEntry e;
        e.step = j;
        e.role = sg->role;
        e.node = cur;
        if (j == 0 || !sg->diff) {
            e.change = "input";
            e.source = g.node(id).meta.source;
            out.push_back(std::move(e));
            return out;
        }
        const NodeDiff* nd = diffOfB(*sg->diff, id);
        if (!nd) return out;
        e.change = describe(*nd);
        std::string next = nd->aName;
        if (nd->cls == DiffClass::Added) {
            // a copy continues through the node it copies
            const std::string& from = g.node(id).meta.provenance;
            if (!from.empty() && sg->previous && sg->previous->findByName(from) != kNoNode) {
                e.copyOf = from;
                e.change = "added: copy of " + from;
                next = from;
            }
        }
        out.push_back(std::move(e));
        if (next.empty()) return out;  // made from nothing here
        cur = next;
        curRole = sg->previousRole;
    }
    return out;
}

std::string trailToText(const std::vector<TrailEntry>& trail,
                        const std::vector<std::shared_ptr<const StepState>>& steps)
{
    std::string out;
    for (const TrailEntry& e : trail) {
        const StepState& st = *steps.at(static_cast<size_t>(e.step));
        out += "step " + std::to_string(e.step) + " (" + (e.step == 0 ? std::string("input") : st.spec) + ")";
        if (!e.role.empty()) out += " " + e.role;
        out += ": " + e.node + "  " + e.change + "\n";
        if (!e.source.empty())
            out += "  source " + e.source.file + ":" + std::to_string(e.source.line)
                + (e.source.function.empty() ? "" : " in " + e.source.function) + "\n";
    }
    return out;
}

}  // namespace fxl::viewer
