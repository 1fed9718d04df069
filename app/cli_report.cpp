// fxlens report (see cli_report.hpp).
#include "app/cli_report.hpp"

#include <filesystem>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>

#include "app/cli_common.hpp"
#include "app/cli_run.hpp"
#include "core/formats/source.hpp"
#include "passes/pass.hpp"

#ifdef FXLENS_HAVE_VIEWER
#include <QGuiApplication>

#include "core/util/format.hpp"
#include "viewer/jobs/run_jobs.hpp"
#include "viewer/jobs/step_jobs.hpp"
#include "viewer/model/step_list_model.hpp"
#include "viewer/render/html_report.hpp"
#endif

namespace fxl::cli {

#ifndef FXLENS_HAVE_VIEWER
int runReport(const Args&, Io&)
{
    throw UsageError("report: this fxlens was built without the viewer (Qt 6 and Graphviz were not found)");
}
#else

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using viewer::ReportCheck;
using viewer::StepState;

// The message of a pass error without runPipeline's "stage K (pass): " (the report names the step).
std::string withoutStagePrefix(const std::string& error, const PipelineStage& stage, int failedStage)
{
    const std::string head = "stage " + std::to_string(failedStage + 1) + " (" + stage.pass + "): ";
    return error.rfind(head, 0) == 0 ? error.substr(head.size()) : error;
}

std::string stepLabel(const StepState& s)
{
    return s.index == 0 ? std::string("step 0 (input)") : "step " + std::to_string(s.index) + " (" + s.spec + ")";
}

// Step k run against step k-1 on the same inputs, as the window's run panel does.
ReportCheck checkStep(const StepState& s, const StepState& before, const LoadedGraph& lg, uint64_t seed,
                      const std::string& device)
{
    ReportCheck c;
    if (s.graphs.size() > 1 || before.graphs.size() > 1) {
        c.skipped = "a partition's graphs are checked against their joint with fxlens check A B (on the files "
                    "fxlens passes run --out writes)";
        return c;
    }
    const viewer::StepGraph& g = s.graphs.front();
    viewer::RunRequest r;
    r.subject = g.prepared->graph;
    r.reference = g.previous;
    r.subjectLabel = stepLabel(s);
    r.referenceLabel = stepLabel(before);
    r.source = lg.source;
    r.artifactId = lg.id;
    r.seed = seed;
    r.backend = device;
    c.outcome = std::make_shared<const viewer::RunOutcome>(viewer::runRequest(r));
    return c;
}

json checkJson(const ReportCheck& c)
{
    const std::string verdict = viewer::checkVerdict(c);
    if (verdict == "none") return nullptr;
    json j = {{"verdict", verdict}};
    if (!c.outcome) {
        j["why"] = c.skipped;
        return j;
    }
    const viewer::RunOutcome& o = *c.outcome;
    j["summary"] = o.summary();
    j["device"] = viewer::checkDevices(o);
    j["inputs"] = o.inputsFrom;
    if (!o.ok) j["error"] = o.error;
    if (o.compared) {
        const json rep = reportToJson(o.report);
        j["outputs"] = rep["outputs"];
        j["states"] = rep["states"];
        j["result"] = verdictKey(o.verdict);
    }
    j["first_divergence"] = nullptr;
    if (o.localize)
        if (const NodeValueDiff* f = o.localize->first())
            j["first_divergence"] = {{"node", f->bName}, {"in_reference", f->aName}, {"max_ulp", f->maxUlp}};
    return j;
}

}  // namespace

int runReport(const Args& args, Io& io)
{
    if (!args.has("pipeline")) throw UsageError("missing --pipeline SPEC (see 'fxlens passes list')");
    const std::string out = args.value("out");
    if (out.empty()) throw UsageError("missing --out FILE.html: where to write the report");
    const std::string spec = args.value("pipeline");
    const bool asJson = args.has("json"), force = args.has("force"), check = args.has("check");
    const uint64_t seed = static_cast<uint64_t>(args.intValue("seed", 0));
    if (args.has("seed") && !check) throw UsageError("--seed is the seed of --check's generated inputs: add --check");
    if (args.has("device") && !check) throw UsageError("--device is where --check runs the steps: add --check");
    const DeviceChoice device = deviceOption(args, "device", DeviceChoice{});

    // The spec first: a typo is a usage error, reported before any file is read.
    std::vector<PipelineStage> stages;
    try {
        stages = parsePipelineSpec(spec);
    } catch (const InputError& e) {
        printPipelineSpecError(e.diagnostic(), spec, io);
        if (asJson)
            io.out << json{{"fxlens", "report"},
                           {"ok", false},
                           {"pipeline", spec},
                           {"error", diagnosticJson(e.diagnostic())}}
                          .dump(1)
                   << "\n";
        return kExitUsage;
    }
    // an existing report is never replaced without --force: say so before the (long) run
    std::error_code ec;
    if (fs::is_directory(out, ec)) throw InputError(out, 0, 0, "--out: is a directory");
    if (!force && fs::exists(fs::symlink_status(out, ec)))
        throw InputError(out, 0, 0, "output file exists (use --force to replace it)");

    const LoadedGraph lg = loadGraph(args.positional.front(), args.value("graph"), io);
    std::string deviceName;  // the device's own name ("cuda-emu:0" for cuda-emu)
    if (check) {
        try {
            deviceName = deviceBackend(device, 1)->name();
        } catch (const DeviceUnavailable& e) {
            throw InputError(lg.source->path, 0, 0, std::string("--device ") + e.what());
        }
    }

    // text needs a QGuiApplication (fonts); no display is needed
    std::unique_ptr<QGuiApplication> app;
    if (!QGuiApplication::instance()) {
        qputenv("QT_QPA_PLATFORM", "offscreen");
        static int argc = 1;
        static char name[] = "fxlens";
        static char* argv[] = {name, nullptr};
        app = std::make_unique<QGuiApplication>(argc, argv);
    }

    std::vector<RoleGraph> input;
    input.push_back(RoleGraph{"", lg.graph->clone()});
    const PipelineRun run = runPipeline(std::move(input), stages);

    std::vector<std::shared_ptr<const StepState>> steps;
    for (const Step& s : run.steps)
        steps.push_back(viewer::prepareStep(s, steps.empty() ? nullptr : steps.back().get(), lg.source, lg.id));
    if (!run.ok && run.failedStage >= 0 && static_cast<size_t>(run.failedStage) < stages.size()) {
        const PipelineStage& stage = stages[static_cast<size_t>(run.failedStage)];
        auto failed = std::make_shared<StepState>();
        failed->index = run.failedStage + 1;
        failed->pass = stage.pass;
        failed->spec = stage.text;
        failed->failed = true;
        failed->error = withoutStagePrefix(run.error, stage, run.failedStage);
        steps.push_back(std::move(failed));
    }

    std::vector<ReportCheck> checks;
    if (check) {
        checks.resize(steps.size());
        for (size_t i = 1; i < steps.size(); ++i)
            if (!steps[i]->failed) checks[i] = checkStep(*steps[i], *steps[i - 1], lg, seed, deviceName);
    }

    viewer::HtmlReportInput in;
    in.title = "fxlens report: " + fs::path(lg.source->path).filename().string();
    in.sourcePath = lg.source->path;
    in.sourceFormat = formatDescription(lg.source->format);
    in.graphId = lg.id;
    in.pipeline = spec;
    for (const PipelineStage& s : stages) in.stages.push_back(s.text);
    in.command = viewer::reproduceCommand(lg.source->path, args.has("graph") ? lg.id : std::string(), spec);
    in.steps = steps;
    in.checks = checks;
    in.error = run.ok ? std::string() : run.error;
    const std::string html = viewer::buildHtmlReport(in);
    writeFileAtomic(out, html, force);

    // the summary: the step list's numbers, the checks' verdicts
    viewer::StepListModel list;
    list.setSteps(steps, {}, false);
    bool verifierErrors = false, allBitwise = true;
    size_t images = 0;
    json doc = {{"fxlens", "report"}, {"source", lg.source->path}, {"graph", lg.id}, {"pipeline", spec},
                {"out", out},         {"bytes", html.size()},      {"ok", run.ok},   {"error", run.error}};
    doc["failed_stage"] = run.failedStage;
    doc["checked"] = check;
    doc["device"] = check ? json(deviceName) : json(nullptr);
    doc["steps"] = json::array();
    std::ostringstream text;
    text << lg.source->path << " (graph " << lg.id << "): pipeline " << spec << "\n";
    if (check) text << "checks on " << deviceName << "\n";
    text << std::left << std::setw(30) << " step" << std::right << std::setw(7) << "added" << std::setw(9) << "removed"
         << std::setw(9) << "changed" << std::setw(9) << "rewired"
         << "  " << std::left << std::setw(10) << "verifier" << std::right << std::setw(10) << "time" << std::setw(11)
         << "peak"
         << "  " << std::left << std::setw(20) << "peak change" << (check ? "check" : "") << "\n";
    for (int row = 0; row < list.stepCount(); ++row) {
        const StepState& s = *steps[static_cast<size_t>(row)];
        auto cell = [&](int col) { return list.data(list.index(row, col)).toString().toStdString(); };
        const DiffCounts c = s.diffCounts();
        const ReportCheck rc = check ? checks[static_cast<size_t>(row)] : ReportCheck{};
        const std::string verdict = viewer::checkVerdict(rc);
        if (verdict == "differs" || verdict == "failed") allBitwise = false;
        verifierErrors = verifierErrors || s.errorCount() > 0;
        images += s.graphs.size();
        json graphs = json::array();
        for (const viewer::StepGraph& g : s.graphs) {
            json counts = nullptr;
            if (g.diff) {
                const DiffCounts gc = g.diff->totalCounts();
                counts = {
                    {"added", gc.added}, {"removed", gc.removed}, {"changed", gc.changed}, {"rewired", gc.rewired}};
            }
            graphs.push_back({{"role", g.role},
                              {"counts", counts},
                              {"nodes", g.prepared->graph->size()},
                              {"peak_bytes", g.timeline ? g.timeline->peakBytes : 0},
                              {"peak_node", g.timeline ? g.timeline->peakNode() : std::string()}});
        }
        json step = {
            {"index", s.index},
            {"pass", s.index == 0 ? json(nullptr) : json(s.pass)},
            {"spec", s.spec},
            {"failed", s.failed},
            {"error", s.error},
            {"pass_seconds", s.passSeconds},
            {"counts", {{"added", c.added}, {"removed", c.removed}, {"changed", c.changed}, {"rewired", c.rewired}}},
            {"verifier_errors", s.errorCount()},
            {"peak_bytes", viewer::StepListModel::peakOf(s)},
            {"peak_change", cell(viewer::StepListModel::PeakChangeColumn)},
            {"graphs", graphs},
            {"check", checkJson(rc)}};
        doc["steps"].push_back(step);
        text << std::left << std::setw(30) << (" " + cell(viewer::StepListModel::StepColumn)) << std::right
             << std::setw(7) << cell(viewer::StepListModel::AddedColumn) << std::setw(9)
             << cell(viewer::StepListModel::RemovedColumn) << std::setw(9) << cell(viewer::StepListModel::ChangedColumn)
             << std::setw(9) << cell(viewer::StepListModel::RewiredColumn) << "  " << std::left << std::setw(10)
             << (s.failed ? std::string("failed") : cell(viewer::StepListModel::VerifierColumn)) << std::right
             << std::setw(10) << cell(viewer::StepListModel::TimeColumn) << std::setw(11)
             << cell(viewer::StepListModel::PeakColumn) << "  " << std::left << std::setw(20)
             << cell(viewer::StepListModel::PeakChangeColumn)
             << (verdict == "none"          ? std::string()
                     : verdict == "skipped" ? std::string("not checked")
                                            : verdict)
             << "\n";
        if (rc.outcome && verdict != "bitwise") text << "      " << rc.outcome->summary() << "\n";
    }
    doc["images"] = images;
    doc["verifier_clean"] = !verifierErrors;
    doc["all_bitwise"] = check ? json(allBitwise) : json(nullptr);
    text << "wrote " << out << " (" << formatByteSize(static_cast<int64_t>(html.size())) << ", " << images
         << (images == 1 ? " timeline" : " timelines") << ")\n";

    if (asJson) {
        io.out << doc.dump(1) << "\n";
    } else {
        // the table's empty cells leave blanks at the ends of lines
        std::string t = text.str();
        for (size_t eol = t.find('\n'); eol != std::string::npos; eol = t.find('\n', eol + 1)) {
            size_t start = eol;
            while (start > 0 && t[start - 1] == ' ') --start;
            t.erase(start, eol - start);
            eol = start;
        }
        io.out << t;
    }
    if (!run.ok) io.err << "fxlens report: error: " << run.error << " (the report shows the steps made before it)\n";
    if (verifierErrors) io.err << "fxlens report: error: the verifier reports errors after a step\n";
    if (check && !allBitwise)
        io.err << "fxlens report: error: some step is not bitwise equal to the step before (see the report)\n";
    return run.ok && !verifierErrors && (!check || allBitwise) ? kExitOk : kExitInputError;
}

#endif

}  // namespace fxl::cli
