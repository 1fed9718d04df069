#include "viewer/render/html_report.hpp"

#include <QBuffer>
#include <QByteArray>
#include <QImage>
#include <QString>

#include <algorithm>
#include <sstream>

#include "core/analysis/graph_diff.hpp"
#include "core/analysis/memory_timeline.hpp"
#include "core/ir/diagnostics.hpp"
#include "core/util/format.hpp"
#include "viewer/model/equivalence_model.hpp"
#include "viewer/model/step_list_model.hpp"
#include "viewer/model/timeline_model.hpp"
#include "viewer/render/timeline_draw.hpp"

namespace fxl::viewer {

namespace {

// H1: simple, light, readable pasted or printed
constexpr const char* kStyle = R"(
body { background: #ffffff; color: #1d1d1f; font: 14px/1.45 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif;
       max-width: 1100px; margin: 24px auto; padding: 0 16px; }
h1 { font-size: 22px; margin: 0 0 12px; }
h2 { font-size: 18px; margin: 28px 0 8px; border-bottom: 1px solid #d0d7de; padding-bottom: 4px; }
h3 { font-size: 15px; margin: 18px 0 6px; }
code, pre { font-family: "SFMono-Regular", Menlo, Consolas, "Liberation Mono", monospace; font-size: 12.5px; }
pre { background: #f6f8fa; border: 1px solid #d0d7de; padding: 8px; overflow-x: auto; white-space: pre; }
table { border-collapse: collapse; margin: 6px 0; }
th, td { border: 1px solid #d0d7de; padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: #f6f8fa; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
table.meta th { width: 110px; }
.ok { color: #1a7f37; } .bad { color: #c02020; font-weight: 600; } .muted { color: #6e7781; }
p.error { color: #c02020; background: #fff0f0; border: 1px solid #f0c0c0; padding: 6px 8px; }
ul.changes { list-style: none; padding-left: 0; margin: 4px 0; font-family: monospace; font-size: 12.5px; }
ul.changes li.added { color: #1a7f37; } ul.changes li.removed { color: #c02020; } ul.changes li.changed { color: #9a6700; }
img.timeline { display: block; border: 1px solid #d0d7de; max-width: 100%; height: auto; }
figure { margin: 8px 0; } figcaption { color: #444c56; font-size: 13px; margin-top: 2px; }
details summary { cursor: pointer; color: #0550ae; }
footer { margin-top: 32px; color: #6e7781; font-size: 12px; }
)";

std::string qs(const QString& s) { return s.toStdString(); }

std::string esc(const std::string& s) { return htmlEscape(s); }
std::string esc(const QString& s) { return htmlEscape(qs(s)); }

bool shellSafe(const std::string& s)
{
    if (s.empty()) return false;
    for (char c : s) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'
            || c == '-' || c == '.' || c == '/' || c == ':' || c == '=' || c == ',' || c == '+' || c == '@';
        if (!ok) return false;
    }
    return true;
}

std::string shellQuote(const std::string& s)
{
    if (shellSafe(s)) return s;
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

std::string stepLabel(const StepState& s)
{
    return s.index == 0 ? std::string("step 0 (input)") : "step " + std::to_string(s.index) + " (" + s.spec + ")";
}

std::string roleSuffix(const std::string& role) { return role.empty() ? std::string() : " [" + role + "]"; }

std::string pngDataUri(const QImage& img)
{
    QByteArray data;
    QBuffer buf(&data);
    buf.open(QIODevice::WriteOnly);
    img.save(&buf, "PNG");
    return "data:image/png;base64," + data.toBase64().toStdString();
}

std::string countsText(const DiffCounts& c)
{
    std::string t = std::to_string(c.added) + " added, " + std::to_string(c.removed) + " removed, "
        + std::to_string(c.changed) + " changed, " + std::to_string(c.unchanged) + " unchanged";
    if (c.renamed) t += " (" + std::to_string(c.renamed) + " renamed)";
    t += "; " + std::to_string(c.rewired) + (c.rewired == 1 ? " rewired edge" : " rewired edges");
    return t;
}

size_t graphNodes(const StepState& s)
{
    size_t n = 0;
    for (const StepGraph& g : s.graphs) n += g.prepared && g.prepared->graph ? g.prepared->graph->size() : 0;
    return n;
}

// The first `limit` bytes of `text`, cut after a whole line, and whether anything was cut.
std::string cutText(const std::string& text, size_t limit, size_t& leftOutLines)
{
    leftOutLines = 0;
    if (text.size() <= limit) return text;
    size_t end = text.rfind('\n', limit);
    end = end == std::string::npos ? limit : end + 1;
    leftOutLines = static_cast<size_t>(std::count(text.begin() + static_cast<std::ptrdiff_t>(end), text.end(), '\n'));
    if (text.back() != '\n') ++leftOutLines;
    return text.substr(0, end);
}

void writeChanges(std::ostringstream& o, const GraphDiff& d, const HtmlReportOptions& opts)
{
    size_t shown = 0, total = 0;
    std::ostringstream items;
    for (const NodeDiff& n : d.nodes) {
        if (n.cls == DiffClass::Unchanged) continue;
        ++total;
        if (shown >= opts.changesListed) continue;
        ++shown;
        const char* cls = n.cls == DiffClass::Added ? "added" : n.cls == DiffClass::Removed ? "removed" : "changed";
        const char* mark = n.cls == DiffClass::Added ? "+ " : n.cls == DiffClass::Removed ? "- " : "~ ";
        std::string details;
        if (n.renamed && !n.aName.empty() && !n.bName.empty()) details = "renamed from " + n.aName;
        for (const std::string& line : n.details) details += (details.empty() ? "" : "; ") + line;
        items << "<li class=\"" << cls << "\">" << mark << esc(n.name());
        if (!details.empty()) items << " <span class=\"muted\">" << esc(details) << "</span>";
        items << "</li>\n";
    }
    if (total == 0) {
        o << "<p class=\"muted\">No node added, removed or changed";
        if (!d.rewired.empty()) o << " (only edges rewired)";
        o << ".</p>\n";
    } else {
        o << "<ul class=\"changes\">\n" << items.str() << "</ul>\n";
        if (shown < total)
            o << "<p class=\"muted\">... and " << (total - shown) << " more changed, added or removed nodes (the text "
              << "diff below lists them all).</p>\n";
    }
    if (!d.subgraphs.empty() || !d.addedSubgraphs.empty() || !d.removedSubgraphs.empty()) {
        const DiffCounts t = d.totalCounts();
        o << "<p class=\"muted\">Nested graphs included: " << esc(countsText(t)) << ".</p>\n";
    }
}

void writeDiff(std::ostringstream& o, const StepState& s, const StepGraph& g, const StepState* before,
               const HtmlReportOptions& opts)
{
    if (!g.diff || !g.previous) return;
    const std::string from = (before ? stepLabel(*before) : "the step before") + roleSuffix(g.previousRole);
    o << "<p><b>Diff from " << esc(from) << ":</b> " << esc(countsText(g.diff->counts)) << "</p>\n";
    writeChanges(o, *g.diff, opts);
    DiffTextOptions t;
    t.aLabel = from;
    t.bLabel = stepLabel(s) + roleSuffix(g.role);
    t.context = opts.diffContext;
    const std::string text = diffToText(*g.diff, *g.previous, *g.prepared->graph, t);
    size_t leftOut = 0;
    const std::string shown = cutText(text, opts.diffTextLimit, leftOut);
    o << "<details><summary>Unified diff (" << opts.diffContext << " lines of context, "
      << esc(formatByteSize(static_cast<int64_t>(text.size()))) << ")</summary>\n<pre class=\"diff\">" << esc(shown)
      << "</pre>\n";
    if (leftOut)
        o << "<p class=\"muted\">Cut here: " << leftOut << " more lines ("
          << esc(formatByteSize(static_cast<int64_t>(text.size() - shown.size())))
          << ") left out; <code>fxlens passes run --out DIR</code> writes the steps and <code>fxlens diff</code> shows "
             "the whole diff.</p>\n";
    o << "</details>\n";
}

void writeTimeline(std::ostringstream& o, const StepState& s, const StepGraph& g, const HtmlReportOptions& opts)
{
    if (!g.timeline || !g.prepared) return;
    TimelineModel m;
    m.setTimelines(g.timeline, g.prepared->graph, g.previousTimeline, g.previous, g.diff);
    const QImage img = renderTimelineImage(m, opts.timelineWidth, opts.timelineHeight, opts.timelineScale, false);
    std::string caption = timelineSummary(*g.timeline);
    if (m.hasPrevious()) caption += "; " + qs(m.peakChangeLabel()) + " from the step before";
    o << "<figure><img class=\"timeline\" data-step=\"" << s.index << "\" data-role=\"" << esc(g.role) << "\" width=\""
      << opts.timelineWidth << "\" height=\"" << opts.timelineHeight << "\" alt=\"memory timeline of "
      << esc(stepLabel(s) + roleSuffix(g.role)) << "\" src=\"" << pngDataUri(img) << "\">\n<figcaption>" << esc(caption)
      << "</figcaption></figure>\n";
}

void writeCheck(std::ostringstream& o, const StepState& s, const StepState* before, const ReportCheck& c)
{
    const std::string verdict = checkVerdict(c);
    if (verdict == "none") return;
    o << "<h3>Check against " << esc(before ? stepLabel(*before) : std::string("the step before")) << "</h3>\n";
    if (verdict == "skipped") {
        o << "<p class=\"muted\">Not checked: " << esc(c.skipped) << "</p>\n";
        return;
    }
    const RunOutcome& r = *c.outcome;
    if (verdict == "failed") {
        o << "<p class=\"error\">The run failed: " << esc(r.error) << "</p>\n";
        return;
    }
    o << "<p><span class=\"" << (r.bitwise() ? "ok" : "bad") << "\">" << esc(r.summary()) << "</span>; inputs "
      << esc(r.inputsFrom) << "; " << esc(stepLabel(s)) << " ran in " << esc(formatDuration(r.subject.seconds))
      << ", measured peak " << esc(formatByteSize(r.subject.peakBytes)) << "; device " << esc(checkDevices(r))
      << "</p>\n";
    EquivalenceModel m;
    m.setReport(r.report, QString::fromStdString(r.request.subjectLabel),
                QString::fromStdString(r.request.referenceLabel));
    o << "<table class=\"equivalence\"><thead><tr>";
    for (int col = 0; col < m.columnCount(); ++col)
        o << "<th>" << esc(m.headerData(col, Qt::Horizontal).toString()) << "</th>";
    o << "</tr></thead><tbody>\n";
    for (int row = 0; row < m.rowCount(); ++row) {
        const bool bitwise = m.data(m.index(row, 0), EquivalenceModel::BitwiseRole).toBool();
        o << "<tr class=\"output " << (bitwise ? "bitwise" : "differs") << "\">";
        for (int col = 0; col < m.columnCount(); ++col) {
            const bool num = col == EquivalenceModel::DifferingColumn || col == EquivalenceModel::MaxAbsColumn
                || col == EquivalenceModel::MaxUlpColumn;
            const bool result = col == EquivalenceModel::ResultColumn;
            o << "<td"
              << (num          ? " class=\"num\""
                      : result ? (bitwise ? " class=\"ok\"" : " class=\"bad\"")
                               : "")
              << ">" << esc(m.data(m.index(row, col)).toString()) << "</td>";
        }
        o << "</tr>\n";
    }
    o << "</tbody></table>\n";
    if (!r.localize) return;
    const LocalizeReport& l = *r.localize;
    const LocalizeCounts& k = l.counts;
    o << "<p>Localization: " << k.compared << " shared nodes compared, " << k.equal << " equal, " << k.differing
      << " differ";
    if (k.unmatched) o << ", " << k.unmatched << " without a counterpart";
    if (k.overBudget) o << ", " << k.overBudget << " over the byte budget";
    o << ".</p>\n";
    if (const NodeValueDiff* f = l.first()) {
        o << "<p class=\"error\">First divergence: <code>" << esc(f->bName) << "</code> (" << esc(f->target)
          << ", node " << f->bIndex << " of " << esc(stepLabel(s)) << ") against <code>" << esc(f->aName)
          << "</code>: " << f->differing << " of " << f->numel << " elements differ, max ULP " << f->maxUlp;
        if (f->first && f->first->firstIndex >= 0) {
            std::string idx;
            for (int64_t i : f->first->firstIndexNd) idx += (idx.empty() ? "" : ", ") + std::to_string(i);
            o << "; first at [" << esc(idx) << "]: " << esc(qs(QString::number(f->first->firstA, 'g', 9))) << " vs "
              << esc(qs(QString::number(f->first->firstB, 'g', 9)));
        }
        o << ". ";
        if (l.firstUncomparedInputs.empty())
            o << "Every tensor input was compared equal: the difference starts here.";
        else {
            o << "Inputs not compared: ";
            for (size_t i = 0; i < l.firstUncomparedInputs.size(); ++i)
                o << (i ? ", " : "") << "<code>" << esc(l.firstUncomparedInputs[i].bName) << "</code> ("
                  << esc(l.firstUncomparedInputs[i].reason) << ")";
            o << ": the difference may come in through them.";
        }
        o << "</p>\n";
    }
}

void writeProblems(std::ostringstream& o, const StepState& s)
{
    size_t shown = 0, total = 0;
    std::ostringstream items;
    for (const Problem& p : s.problems) {
        if (p.severity == Severity::Note) continue;
        ++total;
        if (shown++ < 10) items << "<li>" << esc(p.format()) << "</li>\n";
    }
    if (!total) return;
    o << "<h3>Verifier</h3>\n<ul>\n" << items.str();
    if (total > 10) o << "<li class=\"muted\">... and " << total - 10 << " more</li>\n";
    o << "</ul>\n";
}

}  // namespace

std::string checkVerdict(const ReportCheck& c)
{
    if (!c.outcome) return c.skipped.empty() ? "none" : "skipped";
    if (!c.outcome->ok || !c.outcome->compared) return "failed";
    return c.outcome->bitwise() ? "bitwise" : "differs";
}

std::string reproduceCommand(const std::string& sourcePath, const std::string& graphId, const std::string& pipeline)
{
    std::string c = "fxlens passes run " + shellQuote(sourcePath);
    if (!graphId.empty()) c += " --graph " + shellQuote(graphId);
    return c + " --pipeline " + shellQuote(pipeline);
}

std::string htmlEscape(const std::string& text)
{
    std::string r;
    r.reserve(text.size() + text.size() / 8);
    for (char c : text) {
        switch (c) {
        case '&': r += "&amp;"; break;
        case '<': r += "&lt;"; break;
        case '>': r += "&gt;"; break;
        case '"': r += "&quot;"; break;
        case '\'': r += "&#39;"; break;
        default: r += c;
        }
    }
    return r;
}

std::string buildHtmlReport(const HtmlReportInput& in, const HtmlReportOptions& opts)
{
    std::ostringstream o;
    const auto& steps = in.steps;
    auto check = [&](size_t i) { return i < in.checks.size() ? in.checks[i] : ReportCheck{}; };
    const bool checked = !in.checks.empty();

    o << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" << esc(in.title)
      << "</title>\n<style>" << kStyle << "</style>\n</head>\n<body>\n<h1>" << esc(in.title) << "</h1>\n";

    // ---- the source, the spec, how to make it again, the outcome
    o << "<table class=\"meta\">\n<tr><th>Source</th><td><code>" << esc(in.sourcePath) << "</code>";
    if (!in.sourceFormat.empty()) o << " <span class=\"muted\">(" << esc(in.sourceFormat) << ")</span>";
    o << "</td></tr>\n<tr><th>Graph</th><td>" << esc(in.graphId.empty() ? std::string("(the only graph)") : in.graphId);
    if (!steps.empty() && steps.front()) o << ", " << graphNodes(*steps.front()) << " nodes";
    o << "</td></tr>\n<tr><th>Pipeline</th><td><code>" << esc(in.pipeline) << "</code></td></tr>\n";
    o << "<tr><th>Reproduce</th><td><code>"
      << esc(in.command.empty() ? reproduceCommand(in.sourcePath, in.graphId, in.pipeline) : in.command)
      << "</code></td></tr>\n";
    const size_t made = steps.empty() ? 0 : steps.size() - 1;
    o << "<tr><th>Result</th><td>";
    if (in.error.empty())
        o << "<span class=\"ok\">all " << in.stages.size() << " stages ran</span>";
    else
        o << "<span class=\"bad\">" << esc(in.error) << "</span>";
    const size_t attempted = made;  // the failed step counts as attempted
    if (attempted < in.stages.size()) {
        o << "<br><span class=\"muted\">not run:";
        for (size_t k = attempted; k < in.stages.size(); ++k)
            o << (k > attempted ? "," : "") << " stage " << k + 1 << " <code>" << esc(in.stages[k]) << "</code>";
        o << "</span>";
    }
    o << "</td></tr>\n";
    if (checked) {
        size_t bitwise = 0, differ = 0, failed = 0, skipped = 0;
        for (size_t i = 1; i < steps.size(); ++i) {
            const std::string v = checkVerdict(check(i));
            bitwise += v == "bitwise";
            differ += v == "differs";
            failed += v == "failed";
            skipped += v == "skipped";
        }
        o << "<tr><th>Check</th><td>each step run against the step before on identical inputs: ";
        o << "<span class=\"" << (differ || failed ? "bad" : "ok") << "\">" << bitwise << " bitwise equal, " << differ
          << " differ, " << failed << " failed to run</span>";
        if (skipped) o << ", " << skipped << " not checked";
        o << "</td></tr>\n";
    }
    o << "</table>\n";

    // ---- the step table (H3): the step list's cells
    StepListModel list;
    list.setSteps(steps, {}, false);
    o << "<h2>Steps</h2>\n<table class=\"steps\"><thead><tr>";
    for (int col = 0; col < StepListModel::ColumnCount; ++col)
        o << "<th>" << esc(list.headerData(col, Qt::Horizontal).toString()) << "</th>";
    if (checked) o << "<th>Check</th>";
    o << "</tr></thead>\n<tbody>\n";
    for (int row = 0; row < list.stepCount(); ++row) {
        const StepState& s = *list.step(row);
        const DiffCounts c = s.diffCounts();
        const ReportCheck rc = check(static_cast<size_t>(row));
        o << "<tr class=\"step" << (s.failed ? " failed" : "") << "\" data-step=\"" << s.index << "\" data-added=\""
          << c.added << "\" data-removed=\"" << c.removed << "\" data-changed=\"" << c.changed << "\" data-rewired=\""
          << c.rewired << "\" data-peak-bytes=\"" << StepListModel::peakOf(s) << "\" data-check=\"" << checkVerdict(rc)
          << "\">";
        for (int col = 0; col < StepListModel::ColumnCount; ++col) {
            const QString text = list.data(list.index(row, col)).toString();
            if (col == StepListModel::StepColumn) {
                o << "<td><a href=\"#step-" << s.index << "\">" << esc(text) << "</a></td>";
            } else if (col == StepListModel::VerifierColumn) {
                o << "<td class=\"" << (s.failed || s.errorCount() ? "bad" : "ok") << "\">" << esc(text) << "</td>";
            } else {
                o << "<td class=\"num\">" << esc(text) << "</td>";
            }
        }
        if (checked) {
            const std::string v = checkVerdict(rc);
            const std::string cls = v == "bitwise" ? "ok" : v == "differs" || v == "failed" ? "bad" : "muted";
            const std::string text = v == "none" ? std::string() : v == "skipped" ? "not checked" : v;
            o << "<td class=\"" << cls << "\">" << esc(text) << "</td>";
        }
        o << "</tr>\n";
    }
    o << "</tbody></table>\n";

    // ---- one section per step
    for (size_t i = 0; i < steps.size(); ++i) {
        const StepState& s = *steps[i];
        const StepState* before = i > 0 ? steps[i - 1].get() : nullptr;
        o << "<section class=\"step\" id=\"step-" << s.index << "\">\n<h2>"
          << esc(s.index == 0 ? std::string("Step 0: the input") : "Step " + std::to_string(s.index) + ": " + s.spec)
          << "</h2>\n";
        if (s.failed) {
            o << "<p class=\"error\">The pass failed: " << esc(s.error) << "</p>\n";
            o << "<p class=\"muted\">The steps before it are complete; no graph was made.</p>\n</section>\n";
            continue;
        }
        if (s.index > 0)
            o << "<p class=\"muted\">Pass time " << esc(formatDuration(s.passSeconds)) << "; " << graphNodes(s)
              << " nodes.</p>\n";
        if (!s.log.notes.empty()) {
            o << "<h3>Notes</h3>\n<ul class=\"notes\">\n";
            for (const std::string& n : s.log.notes) o << "<li>" << esc(n) << "</li>\n";
            o << "</ul>\n";
        }
        writeProblems(o, s);
        for (const StepGraph& g : s.graphs) {
            if (s.graphs.size() > 1 || !g.role.empty())
                o << "<h3>Graph " << esc(g.role.empty() ? std::string("(unnamed)") : g.role) << ": "
                  << (g.prepared && g.prepared->graph ? g.prepared->graph->size() : 0) << " nodes</h3>\n";
            writeDiff(o, s, g, before, opts);
            writeTimeline(o, s, g, opts);
        }
        if (i > 0) writeCheck(o, s, before, check(i));
        o << "</section>\n";
    }
    o << "<footer>Written by " << esc(in.generator) << ". Peaks and saved bytes are the memory timeline's estimates "
      << "(live bytes over execution order, the step before drawn as a line); counts are those of "
      << "<code>fxlens diff</code>.</footer>\n</body>\n</html>\n";
    return o.str();
}

}  // namespace fxl::viewer
