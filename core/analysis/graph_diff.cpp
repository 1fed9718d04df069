#include "core/analysis/graph_diff.hpp"

#include <algorithm>

#include "core/analysis/graph_diff_match.hpp"
#include "core/formats/fx/fx_text_writer.hpp"

namespace fxl {

std::string_view diffClassName(DiffClass c)
{
    switch (c) {
    case DiffClass::Unchanged: return "unchanged";
    case DiffClass::Changed: return "changed";
    case DiffClass::Added: return "added";
    case DiffClass::Removed: return "removed";
    }
    return "";
}

std::string_view matchKindName(MatchKind m)
{
    switch (m) {
    case MatchKind::None: return "";
    case MatchKind::Provenance: return "provenance";
    case MatchKind::Name: return "name";
    case MatchKind::Structure: return "structure";
    case MatchKind::NameOnly: return "name_only";
    }
    return "";
}

DiffCounts& DiffCounts::operator+=(const DiffCounts& o)
{
    added += o.added;
    removed += o.removed;
    changed += o.changed;
    unchanged += o.unchanged;
    renamed += o.renamed;
    rewired += o.rewired;
    metaGained += o.metaGained;
    byProvenance += o.byProvenance;
    byName += o.byName;
    byStructure += o.byStructure;
    byNameOnly += o.byNameOnly;
    return *this;
}

bool GraphDiff::identical() const
{
    if (counts.added || counts.removed || counts.changed || !addedSubgraphs.empty() || !removedSubgraphs.empty())
        return false;
    for (const auto& [k, d] : subgraphs)
        if (d && !d->identical()) return false;
    return true;
}

DiffCounts GraphDiff::totalCounts() const
{
    DiffCounts c = counts;
    for (const auto& [k, d] : subgraphs)
        if (d) c += d->totalCounts();
    return c;
}

NodeId GraphDiff::matchOfA(NodeId a) const
{
    return a >= 0 && static_cast<size_t>(a) < matchA.size() ? matchA[static_cast<size_t>(a)] : kNoNode;
}

NodeId GraphDiff::matchOfB(NodeId b) const
{
    return b >= 0 && static_cast<size_t>(b) < matchB.size() ? matchB[static_cast<size_t>(b)] : kNoNode;
}

namespace {

// ---------------------------------------------------------------- rendering

std::string countText(size_t n, const char* what) { return std::to_string(n) + " " + what; }

std::string countsLine(const DiffCounts& c)
{
    std::string s = "# nodes: " + countText(c.added, "added") + ", " + countText(c.removed, "removed") + ", "
        + countText(c.changed, "changed") + ", " + countText(c.unchanged, "unchanged");
    if (c.renamed) s += " (" + std::to_string(c.renamed) + " renamed)";
    s += "; " + std::to_string(c.rewired) + (c.rewired == 1 ? " rewired edge" : " rewired edges");
    if (c.metaGained)
        s += "; " + std::to_string(c.metaGained) + (c.metaGained == 1 ? " node" : " nodes")
            + " with a val on one side only, not counted as changed (--all counts them)";
    return s;
}

void renderText(std::string& out, const GraphDiff& d, const Graph& a, const Graph& b, const DiffTextOptions& o)
{
    out += countsLine(d.counts) + "\n";
    struct Line
    {
        char mark;
        size_t aPos, bPos;  // 1-based positions of the next a / b node at this line
        const NodeDiff* nd;
    };
    std::vector<Line> lines;
    lines.reserve(d.nodes.size());
    size_t ia = 1, ib = 1;
    for (const auto& nd : d.nodes) {
        char mark = nd.cls == DiffClass::Unchanged ? ' '
            : nd.cls == DiffClass::Changed         ? '~'
            : nd.cls == DiffClass::Added           ? '+'
                                                   : '-';
        lines.push_back({mark, ia, ib, &nd});
        if (nd.a != kNoNode) ++ia;
        if (nd.b != kNoNode) ++ib;
    }
    // lines to show: every change plus `context` unchanged lines on each side
    std::vector<uint8_t> show(lines.size(), o.context < 0 ? 1 : 0);
    if (o.context >= 0) {
        const size_t ctx = static_cast<size_t>(o.context);
        for (size_t k = 0; k < lines.size(); ++k) {
            if (lines[k].mark == ' ' && !lines[k].nd->renamed) continue;
            size_t lo = k >= ctx ? k - ctx : 0;
            size_t hi = std::min(lines.size() - 1, k + ctx);
            for (size_t j = lo; j <= hi; ++j) show[j] = 1;
        }
    }
    bool inHunk = false;
    for (size_t k = 0; k < lines.size(); ++k) {
        if (!show[k]) {
            inHunk = false;
            continue;
        }
        const Line& l = lines[k];
        if (!inHunk) {
            out += "@@ a " + std::to_string(l.aPos) + " b " + std::to_string(l.bPos) + " @@\n";
            inHunk = true;
        }
        const NodeDiff& nd = *l.nd;
        out += l.mark;
        out += ' ';
        if (nd.b != kNoNode)
            out += formatNodeLine(b, b.node(nd.b), o.annotations);
        else
            out += formatNodeLine(a, a.node(nd.a), o.annotations);
        std::string note;
        for (size_t j = 0; j < nd.details.size(); ++j) note += (j ? "; " : "") + nd.details[j];
        if (nd.renamed) note += (note.empty() ? "" : "; ") + std::string("renamed from ") + nd.aName;
        if (!note.empty()) out += "  # " + note;
        out += '\n';
    }
    for (const auto& k : d.removedSubgraphs) out += "=== subgraph " + k + " removed ===\n";
    for (const auto& k : d.addedSubgraphs) out += "=== subgraph " + k + " added ===\n";
    for (const auto& [k, sd] : d.subgraphs) {
        const Graph* sa = a.subgraph(k);
        const Graph* sb = b.subgraph(k);
        if (!sd || !sa || !sb || sd->identical()) continue;
        out += "=== subgraph " + k + " ===\n";
        renderText(out, *sd, *sa, *sb, o);
    }
}

nlohmann::json countsJson(const DiffCounts& c)
{
    return {{"added", c.added},
            {"removed", c.removed},
            {"changed", c.changed},
            {"unchanged", c.unchanged},
            {"renamed", c.renamed},
            {"rewired", c.rewired},
            {"meta_gained", c.metaGained},
            {"by_provenance", c.byProvenance},
            {"by_name", c.byName},
            {"by_structure", c.byStructure},
            {"by_name_only", c.byNameOnly}};
}

}  // namespace

GraphDiff diffGraphs(const Graph& a, const Graph& b, const DiffOptions& opts)
{
    GraphDiff d;
    matchGraphs(a, b, opts, d);
    return d;
}

std::string formatNodeLine(const Graph& g, const Node& n, bool annotations)
{
    std::string lhs = n.name;
    bool annotated = annotations && n.val.kind != ValueMeta::Kind::Unknown && n.val.kind != ValueMeta::Kind::None
        && n.val.kind != ValueMeta::Kind::Tuple;
    if (annotated) lhs += ": \"" + formatAnnotation(n.val) + "\"";
    std::string params;
    auto appendParams = [&](size_t from) {
        for (size_t k = from; k < n.args.size(); ++k) {
            if (!params.empty()) params += ", ";
            params += formatArgPython(n.args[k], g);
        }
        for (const auto& [k, v] : n.kwargs) {
            if (!params.empty()) params += ", ";
            params += k + " = " + formatArgPython(v, g);
        }
    };
    switch (n.op) {
    case NodeOp::Placeholder:
        if (n.placeholderDefault) lhs += " = " + formatArgPython(*n.placeholderDefault, g);
        return lhs;
    case NodeOp::Output: {
        if (n.args.size() == 1) return "return " + formatArgPython(n.args[0], g);
        appendParams(0);
        return "return (" + params + ")";
    }
    case NodeOp::GetAttr: return lhs + " = self." + n.target;
    case NodeOp::CallModule: appendParams(0); return lhs + " = self." + n.target + "(" + params + ")";
    case NodeOp::CallMethod: {
        std::string self = n.args.empty() ? std::string("?") : formatArgPython(n.args[0], g);
        appendParams(1);
        return lhs + " = " + self + "." + n.target + "(" + params + ")";
    }
    case NodeOp::CallFunction:
        if (n.isGetitem() && n.args.size() == 2 && n.kwargs.empty())
            return lhs + " = " + formatArgPython(n.args[0], g) + "[" + formatArgPython(n.args[1], g) + "]";
        appendParams(0);
        return lhs + " = " + calleeText(n.target) + "(" + params + ")";
    }
    return lhs;
}

std::string diffToText(const GraphDiff& d, const Graph& a, const Graph& b, const DiffTextOptions& opts)
{
    std::string out = "--- " + opts.aLabel + "\n+++ " + opts.bLabel + "\n";
    renderText(out, d, a, b, opts);
    return out;
}

nlohmann::json diffToJson(const GraphDiff& d, bool includeUnchanged)
{
    nlohmann::json j;
    j["counts"] = countsJson(d.counts);
    if (!d.subgraphs.empty()) j["total_counts"] = countsJson(d.totalCounts());
    nlohmann::json nodes = nlohmann::json::array();
    for (const auto& nd : d.nodes) {
        if (nd.cls == DiffClass::Unchanged && !nd.renamed && !includeUnchanged) continue;
        nlohmann::json x;
        x["class"] = diffClassName(nd.cls);
        x["a"] = nd.a == kNoNode ? nlohmann::json() : nlohmann::json(nd.aName);
        x["b"] = nd.b == kNoNode ? nlohmann::json() : nlohmann::json(nd.bName);
        if (nd.match != MatchKind::None) x["match"] = matchKindName(nd.match);
        if (nd.renamed) x["renamed"] = true;
        if (!nd.fields.empty()) x["fields"] = nd.fields;
        if (!nd.details.empty()) x["details"] = nd.details;
        nodes.push_back(std::move(x));
    }
    j["nodes"] = std::move(nodes);
    nlohmann::json rew = nlohmann::json::array();
    for (const auto& e : d.rewired)
        rew.push_back({{"consumer", e.consumer}, {"where", e.where}, {"from", e.fromProducer}, {"to", e.toProducer}});
    j["rewired"] = std::move(rew);
    if (!d.subgraphs.empty()) {
        nlohmann::json s = nlohmann::json::object();
        for (const auto& [k, sd] : d.subgraphs)
            if (sd) s[k] = diffToJson(*sd, includeUnchanged);
        j["subgraphs"] = std::move(s);
    }
    if (!d.addedSubgraphs.empty()) j["added_subgraphs"] = d.addedSubgraphs;
    if (!d.removedSubgraphs.empty()) j["removed_subgraphs"] = d.removedSubgraphs;
    return j;
}

}  // namespace fxl
