#include "app/cli_workspace_info.hpp"

#include "core/util/format.hpp"
#include "workspace/workspace.hpp"

namespace fxl::cli {

namespace {

std::string changeKind(SourceChange::Kind k)
{
    switch (k) {
    case SourceChange::Kind::Modified: return "modified";
    case SourceChange::Kind::Missing: return "missing";
    case SourceChange::Kind::Unreadable: return "unreadable";
    }
    return "";
}

// The summary line of a run record's report ("bitwise equal: 29 outputs").
std::string runSummary(const RunRecord& r)
{
    const auto j = nlohmann::json::parse(r.reportJson, nullptr, false);
    return j.is_object() && j.contains("summary") && j["summary"].is_string() ? j["summary"].get<std::string>() : "";
}

}  // namespace

void workspaceInfo(const std::string& path, std::ostream& text, nlohmann::json* out)
{
    const Workspace ws = Workspace::open(path);
    nlohmann::json doc = {{"path", path},
                          {"format", "fxlens-workspace"},
                          {"format_version", Workspace::currentFormatVersion()},
                          {"opened_format_version", ws.openedFormatVersion()},
                          {"created_by", ws.createdBy()},
                          {"written_by", ws.writtenBy()},
                          {"sources", nlohmann::json::array()}};
    text << path << ": fxlens workspace (format " << ws.openedFormatVersion() << ", written by fxlens "
         << ws.writtenBy() << ")\n";
    const auto sources = ws.sources();
    text << "  sources (" << sources.size() << "):\n";
    for (const SourceRecord& s : sources) {
        nlohmann::json js = {{"id", s.id},
                             {"path", s.path},
                             {"role", s.role},
                             {"graph", s.graph},
                             {"pipeline", s.pipeline},
                             {"steps", nlohmann::json::array()},
                             {"runs", nlohmann::json::array()}};
        text << "    " << s.id << "  " << s.role << "  " << s.path << (s.graph.empty() ? "" : "  graph " + s.graph)
             << "\n";
        if (!s.pipeline.empty()) text << "      pipeline " << s.pipeline << "\n";
        for (const StepRecord& st : ws.steps(s.id)) {
            js["steps"].push_back({{"index", st.index},
                                   {"pass", st.pass},
                                   {"spec", st.spec},
                                   {"added", st.added},
                                   {"changed", st.changed < 0 ? nlohmann::json(nullptr) : nlohmann::json(st.changed)},
                                   {"removed", st.removed},
                                   {"rewired", st.rewired},
                                   {"tags", st.tags},
                                   {"verifier_ok", st.verifierOk},
                                   {"seconds", st.seconds},
                                   {"error", st.error}});
            text << "      step " << st.index << " " << (st.index == 0 ? std::string("input") : st.spec);
            // the diff's counts, as the window's Steps table and `fxlens passes` show them; a step
            // saved by a workspace of format 2 kept the counts its pass logged
            if (st.index > 0 && st.changed >= 0)
                text << "  +" << st.added << " -" << st.removed << " changed " << st.changed << " rewired "
                     << st.rewired << "  " << formatDuration(st.seconds);
            else if (st.index > 0)
                text << "  +" << st.added << " -" << st.removed << " rewired " << st.rewired << " tags " << st.tags
                     << " (as the pass logged them)  " << formatDuration(st.seconds);
            text << "  "
                 << (!st.error.empty()   ? "failed: " + st.error
                         : st.verifierOk ? "ok"
                                         : "verifier errors")
                 << "\n";
        }
        for (const RunRecord& r : ws.runs(s.id)) {
            const std::string summary = runSummary(r);
            js["runs"].push_back({{"step", r.step},
                                  {"against", r.against},
                                  {"backend", r.backend},
                                  {"time", r.time},
                                  {"summary", summary}});
            text << "      run of step " << r.step << (r.against.empty() ? "" : " against " + r.against) << " on "
                 << r.backend << ": " << summary << "\n";
        }
        const auto bookmarks = ws.bookmarks(s.id);
        const auto notes = ws.notes(s.id);
        js["bookmarks"] = nlohmann::json::array();
        for (const BookmarkRecord& b : bookmarks)
            js["bookmarks"].push_back({{"graph", b.graph}, {"node", b.node}, {"label", b.label}});
        js["notes"] = nlohmann::json::array();
        for (const NoteRecord& n : notes)
            js["notes"].push_back({{"graph", n.graph}, {"node", n.node}, {"text", n.text}});
        if (!bookmarks.empty() || !notes.empty())
            text << "      " << bookmarks.size() << " bookmark(s), " << notes.size() << " note(s)\n";
        doc["sources"].push_back(std::move(js));
    }
    doc["changed_sources"] = nlohmann::json::array();
    const auto changes = ws.changedSources();
    text << "  changed on disk since: " << (changes.empty() ? "none" : "") << "\n";
    for (const SourceChange& c : changes) {
        doc["changed_sources"].push_back({{"path", c.source.path}, {"kind", changeKind(c.kind)}, {"detail", c.detail}});
        text << "    " << c.source.path << ": " << changeKind(c.kind) << " (" << c.detail << ")\n";
    }
    doc["pipelines"] = nlohmann::json::array();
    for (const PipelineRecord& p : ws.pipelines()) {
        doc["pipelines"].push_back({{"name", p.name}, {"spec", p.spec}});
        text << "  pipeline '" << p.name << "': " << p.spec << "\n";
    }
    const ViewState v = ws.viewState();
    doc["view"] = {{"source", v.currentSource}, {"step", v.stepIndex},     {"graph", v.selectedGraph},
                   {"node", v.selectedNode},    {"zoom", v.viewport.zoom}, {"expanded_groups", v.expandedGroups},
                   {"tabs", v.openTabs}};
    text << "  view: step " << v.stepIndex << (v.selectedNode.empty() ? "" : ", node " + v.selectedNode) << ", "
         << v.expandedGroups.size() << " group(s) open" << (v.openTabs.empty() ? "" : ", tab " + v.openTabs.front())
         << "\n";
    if (out) *out = std::move(doc);
}

}  // namespace fxl::cli
