// fxlens passes: list the registered passes, run a pipeline of them on a graph and write
// every step (print_readable text PyTorch can exec, the change log, a summary).
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>

#include "app/cli_common.hpp"
#include "app/cli_constants.hpp"
#include "app/cli_passes.hpp"
#include "core/analysis/graph_diff.hpp"
#include "core/analysis/memory_timeline.hpp"
#include "core/formats/fx/fx_text_writer.hpp"
#include "core/formats/source.hpp"
#include "core/util/format.hpp"
#include "passes/pass.hpp"

namespace fxl::cli {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr size_t kStepProblemsShown = 5;  // per step, in the text form
constexpr size_t kProblemsInJson = 100;  // per step, in the JSON form (counts are exact)

// ---------------------------------------------------------------- passes list

json passJson(const Pass& p)
{
    json opts = json::array();
    for (const PassOption& o : p.options()) {
        opts.push_back({{"name", o.name},
                        {"type", std::string(optionTypeName(o.type))},
                        {"default", o.defaultValue},
                        {"choices", o.choices},
                        {"help", o.help}});
    }
    return {{"name", p.name()}, {"summary", p.summary()}, {"description", p.description()}, {"options", opts}};
}

int runList(const Args& args, Io& io)
{
    const PassRegistry& reg = PassRegistry::instance();
    if (args.has("json")) {
        json passes = json::array();
        for (const auto& p : reg.all()) passes.push_back(passJson(*p));
        io.out << json{{"fxlens", "passes list"}, {"passes", passes}}.dump(1) << "\n";
        return kExitOk;
    }
    for (const auto& p : reg.all()) {
        io.out << std::left << std::setw(16) << p->name() << " " << p->summary() << "\n";
        for (const PassOption& o : p->options()) {
            io.out << "    " << o.name << " (" << optionTypeName(o.type);
            if (!o.choices.empty()) {
                io.out << ": ";
                for (size_t i = 0; i < o.choices.size(); ++i) io.out << (i ? "|" : "") << o.choices[i];
            }
            io.out << ", default " << (o.defaultValue.empty() ? "\"\"" : o.defaultValue) << ")";
            if (!o.help.empty()) io.out << "  " << o.help;
            io.out << "\n";
        }
    }
    io.out << "\nPipeline: fxlens passes run FILE --pipeline 'pass1,pass2(opt=value,list=a;b),...'\n";
    return kExitOk;
}

// ---------------------------------------------------------------- passes run

struct ProblemCounts
{
    size_t errors = 0, warnings = 0, notes = 0;
};

ProblemCounts countProblems(const std::vector<Problem>& ps)
{
    ProblemCounts c;
    for (const Problem& p : ps)
        (p.severity == Severity::Error ? c.errors : p.severity == Severity::Warning ? c.warnings : c.notes)++;
    return c;
}

std::string verifierText(const ProblemCounts& c)
{
    if (c.errors == 0 && c.warnings == 0) return "ok";
    std::string s;
    if (c.errors) s = std::to_string(c.errors) + (c.errors == 1 ? " error" : " errors");
    if (c.warnings)
        s += (s.empty() ? "" : ", ") + std::to_string(c.warnings) + (c.warnings == 1 ? " warning" : " warnings");
    return s;
}

std::string millis(double seconds)
{
    std::ostringstream s;
    s << std::fixed << std::setprecision(3) << seconds * 1000.0 << " ms";
    return s.str();
}

// A pass name as a file name part (registered names are identifiers; be safe anyway).
std::string fileSafe(const std::string& s)
{
    std::string r;
    for (char c : s) r += (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-') ? c : '_';
    return r.empty() ? "step" : r;
}

std::string stepPrefix(const Step& s, size_t stepCount)
{
    const size_t width = std::max<size_t>(2, std::to_string(stepCount - 1).size());
    std::string n = std::to_string(s.index);
    n.insert(0, width - std::min(width, n.size()), '0');
    return n + "_" + (s.index == 0 ? std::string("input") : fileSafe(s.pass));
}

size_t stepNodes(const Step& s)
{
    size_t n = 0;
    for (const auto& g : s.graphs) n += g->graph.size();
    return n;
}

// The memory timeline's peak and saved set of each graph of a step: the numbers `mem`, `info`
// and `run --json` print for that graph (a partition's forward finds its saved values by its
// output descriptors).
struct GraphMemory
{
    int64_t peak = 0, savedBytes = 0;
    size_t savedActivations = 0, savedInputs = 0;
    bool boundary = false;
};

std::vector<GraphMemory> stepMemory(const Step& s)
{
    std::vector<GraphMemory> out;
    for (const auto& g : s.graphs) {
        const MemoryTimeline t = computeMemoryTimeline(g->graph);
        out.push_back({t.peakBytes, t.savedBytes, t.savedActivations(), t.savedInputs(), t.boundaryStep >= 0});
    }
    return out;
}

// "1.23 MiB" per graph, "+" between the graphs of a partition
std::string peakText(const std::vector<GraphMemory>& m)
{
    std::string t;
    for (const auto& g : m) t += (t.empty() ? "" : "+") + formatByteSize(g.peak);
    return t;
}

// the saved activations' bytes of the graph that has a boundary ("-" when none has one)
std::string savedText(const std::vector<GraphMemory>& m)
{
    for (const auto& g : m)
        if (g.boundary) return formatByteSize(g.savedBytes) + " (" + std::to_string(g.savedActivations) + ")";
    return "-";
}

json stepJson(const Step& s, const std::vector<GraphMemory>& memory, const DiffCounts& diff)
{
    json d;
    d["index"] = s.index;
    d["pass"] = s.index == 0 ? json(nullptr) : json(s.pass);
    d["spec"] = s.spec;
    d["options"] = s.options.values;
    d["options_given"] = s.options.given;
    d["wall_seconds"] = s.wallSeconds;
    d["nodes"] = stepNodes(s);
    json graphs = json::array();
    for (size_t k = 0; k < s.graphs.size(); ++k) {
        const GraphMemory& m = memory[k];
        graphs.push_back({{"role", s.graphs[k]->role},
                          {"nodes", s.graphs[k]->graph.size()},
                          {"peak_bytes", m.peak},
                          {"boundary", m.boundary},
                          {"saved_bytes", m.savedBytes},
                          {"saved_activations", m.savedActivations},
                          {"saved_inputs", m.savedInputs}});
    }
    d["graphs"] = graphs;
    // the pass's own log, and the diff against the step before (the counts the window shows)
    d["changes"] = {{"added", s.log.added.size()},
                    {"removed", s.log.removed.size()},
                    {"rewired", s.log.rewired.size()},
                    {"tags", s.log.tags.size()}};
    d["diff"] = s.index == 0
        ? json(nullptr)
        : json{{"added", diff.added}, {"removed", diff.removed}, {"changed", diff.changed}, {"rewired", diff.rewired}};
    d["notes"] = s.log.notes;
    d["stats"] = s.log.stats;
    const ProblemCounts c = countProblems(s.problems);
    json problems = json::array();
    for (const Problem& p : s.problems)
        if (p.severity != Severity::Note && problems.size() < kProblemsInJson) problems.push_back(p.format());
    d["verifier"] = {{"clean", s.verifierClean()},
                     {"errors", c.errors},
                     {"warnings", c.warnings},
                     {"notes", c.notes},
                     {"problems", problems}};
    return d;
}

// the diff's counts, as the window's Steps table: nodes added, removed, changed; edges rewired
std::string changesText(const Step& s, const DiffCounts& c)
{
    if (s.index == 0) return {};
    return "+" + std::to_string(c.added) + " -" + std::to_string(c.removed) + " changed " + std::to_string(c.changed)
        + " rewired " + std::to_string(c.rewired);
}

void printStepsText(const PipelineRun& run, const std::vector<std::vector<GraphMemory>>& memory,
                    const std::vector<DiffCounts>& diffs, std::ostream& out)
{
    // columns as wide as their widest cell, two blanks apart, so large counts never run together
    size_t passWidth = 14, nodesWidth = 7, changesWidth = 22, peakWidth = 4, savedWidth = 5;
    for (size_t i = 0; i < run.steps.size(); ++i) {
        const Step& s = run.steps[i];
        std::string nodes;
        for (const auto& g : s.graphs) nodes += (nodes.empty() ? "" : "+") + std::to_string(g->graph.size());
        passWidth = std::max(passWidth, s.pass.size());
        nodesWidth = std::max(nodesWidth, nodes.size());
        changesWidth = std::max(changesWidth, changesText(s, diffs[i]).size());
        peakWidth = std::max(peakWidth, peakText(memory[i]).size());
        savedWidth = std::max(savedWidth, savedText(memory[i]).size());
    }
    const int pw = static_cast<int>(passWidth + 2), nw = static_cast<int>(nodesWidth + 2),
              cw = static_cast<int>(changesWidth + 2), kw = static_cast<int>(peakWidth + 2),
              sw = static_cast<int>(savedWidth + 2);
    out << " step  " << std::left << std::setw(pw) << "pass" << std::right << std::setw(10) << "time" << std::setw(nw)
        << "nodes" << std::setw(kw) << "peak" << std::setw(sw) << "saved"
        << "  " << std::left << std::setw(cw) << "changes"
        << "verifier\n";
    for (size_t i = 0; i < run.steps.size(); ++i) {
        const Step& s = run.steps[i];
        std::string nodes;
        for (const auto& g : s.graphs) nodes += (nodes.empty() ? "" : "+") + std::to_string(g->graph.size());
        out << std::right << std::setw(5) << s.index << "  " << std::left << std::setw(pw)
            << (s.index == 0 ? std::string("(input)") : s.pass) << std::right << std::setw(10)
            << (s.index == 0 ? std::string() : millis(s.wallSeconds)) << std::setw(nw) << nodes << std::setw(kw)
            << peakText(memory[i]) << std::setw(sw) << savedText(memory[i]) << "  " << std::left << std::setw(cw)
            << changesText(s, diffs[i]) << verifierText(countProblems(s.problems)) << "\n";
        if (s.index > 0 && s.spec != s.pass) out << "         spec: " << s.spec << "\n";
        for (const std::string& n : s.log.notes) out << "         " << n << "\n";
        size_t shown = 0;
        for (const Problem& p : s.problems) {
            if (p.severity == Severity::Note) continue;
            if (shown++ == kStepProblemsShown) {
                out << "         ...\n";
                break;
            }
            out << "         " << p.format() << "\n";
        }
    }
}

// Refuses to write into a directory that holds anything unless --force; creates it.
void prepareOutDir(const std::string& dir, bool force)
{
    std::error_code ec;
    const fs::path p(dir);
    const fs::file_status st = fs::status(p, ec);
    if (fs::exists(st)) {
        if (!fs::is_directory(st)) throw InputError(dir, 0, 0, "--out: exists and is not a directory");
        if (!force && fs::directory_iterator(p, ec) != fs::directory_iterator())
            throw InputError(dir, 0, 0, "--out: directory is not empty (use --force to write into it anyway)");
        if (ec) throw InputError(dir, 0, 0, "--out: cannot read the directory: " + ec.message());
        return;
    }
    fs::create_directories(p, ec);
    if (ec) throw InputError(dir, 0, 0, "--out: cannot create the directory: " + ec.message());
}

// Writes the step files; returns their names (relative to dir), in order.
// Constants that the written step graphs read but the input's constants lack (or all of them
// when the input has none), each once.
struct StepConstantsGap
{
    std::vector<std::string> missing;
    void add(const std::vector<std::string>& names)
    {
        for (const std::string& n : names)
            if (std::find(missing.begin(), missing.end(), n) == missing.end()) missing.push_back(n);
    }
};

std::vector<std::string> writeSteps(const PipelineRun& run, const std::string& dir, bool force,
                                    const GraphConstants& constants, StepConstantsGap& gap, json& doc)
{
    std::vector<std::string> files;
    const fs::path base(dir);
    auto write = [&](const std::string& name, const std::string& content) {
        writeFileAtomic((base / name).string(), content, force);
        files.push_back(name);
    };
    for (size_t i = 0; i < run.steps.size(); ++i) {
        const Step& s = run.steps[i];
        const std::string prefix = stepPrefix(s, run.steps.size());
        json stepFiles = json::array();
        for (const auto& g : s.graphs) {
            // one graph: NN_pass.py; several (partition): NN_pass.<role>.py
            const bool single = s.graphs.size() == 1;
            const std::string name = prefix + (single || g->role.empty() ? "" : "." + fileSafe(g->role)) + ".py";
            write(name, printReadable(g->graph));
            stepFiles.push_back(name);
            // what the graph needs to run on its own, under the name every verb looks for
            std::vector<std::string> missing;
            const std::string written =
                writeConstantsBeside((base / name).string(), g->graph, constants, force, missing);
            if (!written.empty()) {
                const std::string constantsName = fs::path(written).filename().string();
                files.push_back(constantsName);
                stepFiles.push_back(constantsName);
            }
            gap.add(missing);
        }
        if (s.index > 0) {
            const std::string name = prefix + ".changes.json";
            write(name, s.log.toJson().dump(1) + "\n");
            stepFiles.push_back(name);
        }
        doc["steps"][i]["files"] = stepFiles;
    }
    return files;
}

int runRun(const Args& args, Io& io)
{
    if (args.positional.size() != 2)
        throw UsageError(args.positional.size() < 2
                             ? "passes run: missing FILE argument"
                             : "passes run: takes one FILE (unexpected '" + args.positional[2] + "')");
    if (!args.has("pipeline")) throw UsageError("passes run: missing --pipeline SPEC (see 'fxlens passes list')");
    const std::string spec = args.value("pipeline");
    const bool json = args.has("json");
    const std::string outDir = args.value("out");
    if (args.has("out") && outDir.empty()) throw UsageError("--out needs a directory");

    // The spec first: a typo is a usage error, reported before any file is read.
    std::vector<PipelineStage> stages;
    try {
        stages = parsePipelineSpec(spec);
    } catch (const InputError& e) {
        const Diagnostic& d = e.diagnostic();
        printPipelineSpecError(d, spec, io);
        if (json)
            io.out << nlohmann::json{{"fxlens", "passes run"},
                                     {"ok", false},
                                     {"pipeline", spec},
                                     {"error", diagnosticJson(d)}}
                          .dump(1)
                   << "\n";
        return kExitUsage;
    }
    const LoadedGraph lg = loadGraph(args.positional[1], args.value("graph"), io);
    const GraphConstants constants = chooseConstants(lg, args.value("constants"));
    if (!outDir.empty()) prepareOutDir(outDir, args.has("force"));  // before the (long) run
    std::vector<RoleGraph> input;
    input.push_back(RoleGraph{"", lg.graph->clone()});
    const PipelineRun run = runPipeline(std::move(input), stages);

    nlohmann::json doc = {{"fxlens", "passes run"}, {"source", lg.source->path}, {"graph", lg.id}, {"pipeline", spec},
                          {"ok", run.ok},           {"error", run.error}};
    doc["failed_stage"] = run.failedStage;
    doc["diagnostics"] = diagnosticsJson(lg.source->diagnostics, lg.diagnosticsFrom);
    doc["steps"] = nlohmann::json::array();
    bool verifierErrors = false;
    double total = 0;
    std::vector<std::vector<GraphMemory>> memory;
    std::vector<DiffCounts> diffs;
    for (size_t i = 0; i < run.steps.size(); ++i) {
        memory.push_back(stepMemory(run.steps[i]));
        diffs.push_back(i == 0 ? DiffCounts{} : stepDiffCounts(run.steps[i], run.steps[i - 1]));
    }
    for (size_t i = 0; i < run.steps.size(); ++i) {
        const Step& s = run.steps[i];
        doc["steps"].push_back(stepJson(s, memory[i], diffs[i]));
        verifierErrors = verifierErrors || !s.verifierClean();
        total += s.wallSeconds;
    }
    doc["wall_seconds"] = total;
    doc["verifier_clean"] = !verifierErrors;

    std::ostringstream text;
    text << lg.source->path << " (graph " << lg.id << "): pipeline " << spec << "\n";
    printStepsText(run, memory, diffs, text);
    text << "total " << millis(total) << " in passes\n";
    // the estimated peak of the input against the last step's (a chunk pass's saving, or a
    // partition's largest graph)
    if (run.steps.size() > 1) {
        auto largest = [](const std::vector<GraphMemory>& m) {
            int64_t p = 0;
            for (const auto& g : m) p = std::max(p, g.peak);
            return p;
        };
        const int64_t before = largest(memory.front()), after = largest(memory.back());
        char ratio[32];
        std::snprintf(ratio, sizeof ratio, "%.3f", before > 0 ? double(after) / double(before) : 0.0);
        text << "peak " << formatByteSize(before) << " (input) -> " << formatByteSize(after) << " (step "
             << run.steps.back().index << "): ratio " << ratio << "\n";
        doc["peak_before_bytes"] = before;
        doc["peak_after_bytes"] = after;
        doc["peak_ratio"] = before > 0 ? double(after) / double(before) : 0.0;
    }
    if (!run.ok) text << "error: " << run.error << "\n";
    if (verifierErrors) text << "error: the verifier reports errors (see above)\n";

    if (!outDir.empty()) {
        doc["out"] = outDir;
        const bool force = args.has("force");
        StepConstantsGap gap;
        std::vector<std::string> files = writeSteps(run, outDir, force, constants, gap, doc);
        doc["constants"] = constants.toJson();
        doc["constants_missing"] = gap.missing;
        if (!gap.missing.empty()) {
            // the steps are still written: they can be read, diffed and run with --constants
            std::string where = constants.present() ? "the constants " + constants.describe() + " lack them"
                : constants.lookedFor.empty()
                ? "the input has no constants file"
                : "no constants were found (fxlens looked for " + constants.lookedFor + ")";
            text << "warning: the step graphs read " << gap.missing.size() << " constant tensor"
                 << (gap.missing.size() == 1 ? "" : "s")
                 << " with get_attr that were not written beside them: " << where
                 << "; give them with --constants FILE\n";
        }
        writeFileAtomic((fs::path(outDir) / "summary.txt").string(), text.str(), force);
        writeFileAtomic((fs::path(outDir) / "summary.json").string(), doc.dump(1) + "\n", force);
        text << "wrote " << files.size() + 2 << " files to " << outDir << "\n";
    }

    if (json)
        io.out << doc.dump(1) << "\n";
    else
        io.out << text.str();
    if (!run.ok) io.err << "fxlens passes: error: " << run.error << "\n";
    if (verifierErrors) io.err << "fxlens passes: error: the verifier reports errors after a step\n";
    return run.ok && !verifierErrors ? kExitOk : kExitInputError;
}

}  // namespace

int runPasses(const Args& args, Io& io)
{
    if (args.positional.empty()) throw UsageError("missing subcommand: list or run");
    const std::string& sub = args.positional.front();
    if (sub == "list") {
        if (args.positional.size() > 1) throw UsageError("passes list takes no arguments");
        for (const char* o : {"graph", "pipeline", "constants", "out", "force"})
            if (args.has(o)) throw UsageError(std::string("--") + o + " is an option of 'passes run'");
        return runList(args, io);
    }
    if (sub == "run") return runRun(args, io);
    throw UsageError("unknown subcommand '" + sub + "' (expected list or run)");
}

}  // namespace fxl::cli
