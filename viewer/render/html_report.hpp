// A pipeline run as one self-contained HTML document, for pasting into a pull request or
// attaching to one (`fxlens report`): the source and the spec, the command that makes the
// steps again, the step table (the numbers of the window's step list,
// viewer/model/step_list_model.hpp), and per step its change log notes, its diff from the step
// before (counts, the first changes, the unified text diff folded in a <details>), its memory
// timeline drawn with the step before overlaid (viewer/render/timeline_draw.hpp) and, when the
// step was checked against the step before, the equivalence table (the window's,
// viewer/model/equivalence_model.hpp) and the first divergence the localization found.
//
// Rules:
//  H1 Self-contained: no script, no external file or link; images are data: URIs of PNGs; the
//     only style is one <style> block (light background), so the page reads the same opened
//     from disk, mailed or pasted.
//  H2 Every text taken from the graph, the spec or a message is escaped (& < > " ').
//  H3 Step table: one <tr class="step"> per step made (the input first, a failed step last),
//     with data-step, data-added, data-removed, data-changed, data-rewired, data-peak-bytes
//     (the largest peak of the step's graphs) and data-check (bitwise, differs, failed,
//     skipped, none) for scripts and tests; the cells are the step list's texts.
//  H4 One <img class="timeline" data-step data-role> per graph of each step made (a partition
//     step has two), data:image/png;base64.
//  H5 The unified diff (diffToText, 3 lines of context) is cut at HtmlReportOptions::diffTextLimit
//     bytes (on a line boundary) with a note saying how much was left out and how to see it all.
//  H6 A failed step shows its error and has no graph; the run's error and the stages not run
//     are named at the top.
// Drawing the timelines needs a QGuiApplication (fonts); QtCore / QtGui only, no widgets.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "viewer/jobs/run_jobs.hpp"
#include "viewer/jobs/step_jobs.hpp"

namespace fxl::viewer {

// The check of one step against the step before.
struct ReportCheck
{
    std::shared_ptr<const RunOutcome> outcome;  // null: not run
    std::string skipped;  // why it was not run ("" when it ran, or when no check was asked for)
};

// "bitwise" (every output bitwise equal), "differs", "failed" (the run stopped: outcome->error),
// "skipped" (ReportCheck::skipped says why) or "none" (no check).
std::string checkVerdict(const ReportCheck& c);

struct HtmlReportInput
{
    std::string title;  // "fxlens report: gpt2_tiny.joint.code.py"
    std::string sourcePath;  // the file the graph was read from
    std::string sourceFormat;  // "FX code (print_readable / gm.code)"; "" to leave out
    std::string graphId;  // its artifact id
    std::string pipeline;  // the spec as given
    std::vector<std::string> stages;  // the text of every stage of the spec, in order
    std::string command;  // what makes the steps again; "" = reproduceCommand(sourcePath, graphId, pipeline)
    std::vector<std::shared_ptr<const StepState>> steps;  // steps[0] the input; a failed step last
    std::vector<ReportCheck> checks;  // by step index; empty: no check was asked for
    std::string error;  // the run's error ("stage 3 (partition): ..."), "" when every stage ran
    std::string generator = "fxlens";  // named in the footer
};

struct HtmlReportOptions
{
    int timelineWidth = 880, timelineHeight = 240;  // points
    double timelineScale = 1.0;  // pixels per point
    size_t changesListed = 40;  // changed / added / removed nodes listed per graph
    size_t diffTextLimit = 192 * 1024;  // bytes of the unified diff per graph (H5)
    int diffContext = 3;
};

// "fxlens passes run 'FILE' --graph 'ID' --pipeline 'SPEC'" (--graph only when graphId is not
// empty), each argument quoted for a POSIX shell when it needs it.
std::string reproduceCommand(const std::string& sourcePath, const std::string& graphId, const std::string& pipeline);

// "&amp;", "&lt;", "&gt;", "&quot;", "&#39;" for & < > " ' (H2).
std::string htmlEscape(const std::string& text);

// The whole document (UTF-8).
std::string buildHtmlReport(const HtmlReportInput& in, const HtmlReportOptions& opts = {});

}  // namespace fxl::viewer
