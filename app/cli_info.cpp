// fxlens info: what a file holds and, per graph, the numbers a pass writer looks at first.
#include <algorithm>
#include <iomanip>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
#include <set>
#include <sstream>

#include "app/cli_common.hpp"
#include "app/cli_info.hpp"
#include "app/cli_workspace_info.hpp"
#include "core/analysis/graph_stats.hpp"
#include "core/analysis/memory_timeline.hpp"
#include "core/formats/source.hpp"
#include "core/util/format.hpp"

#include "core/analysis/verify.hpp"
#include "runtime/exec/support_check.hpp"

namespace fxl::cli {

namespace {

using nlohmann::json;

constexpr size_t kProblemsShown = 5;
constexpr size_t kNodesShown = 5;  // nodes named per reason a graph cannot run

struct GraphReport
{
    json doc;
    bool inputError = false;
};

// Unknown operators and verifier problems.
void checkGraph(const Graph& g, json& doc)
{
    json unknown = json::array();
    for (const auto& name : unknownOperators(g)) unknown.push_back(name);
    doc["unknown_operators"] = unknown;
    const std::vector<Problem> problems = verifyGraph(g);
    size_t errors = 0, warnings = 0, notes = 0;
    json first = json::array();
    for (const Problem& p : problems) {
        (p.severity == Severity::Error ? errors : p.severity == Severity::Warning ? warnings : notes)++;
        // notes (operators the registry cannot check) are listed as unknown operators already
        if (p.severity != Severity::Note && first.size() < kProblemsShown) first.push_back(p.format());
    }
    doc["verifier_problems"] = errors + warnings;
    doc["verifier_errors"] = errors;
    doc["verifier_warnings"] = warnings;
    doc["verifier_notes"] = notes;
    doc["verifier_first"] = first;
    // what the CPU runtime lacks for this graph, so that `run` holds no surprise
    json cannotRun = json::array();
    for (const MissingSupport& m : missingSupport(g, DeviceKind::Cpu))
        cannotRun.push_back({{"reason", m.reason}, {"count", m.nodes.size()}, {"nodes", m.nodes}});
    doc["runs_on_cpu"] = cannotRun.empty();
    doc["cannot_run"] = std::move(cannotRun);
}

GraphReport graphReport(Source& src, const Artifact& a, const Args& args, Io& io)
{
    GraphReport r;
    json& d = r.doc;
    d["id"] = a.id;
    d["kind"] = a.kind;
    d["file"] = a.file;
    d["line"] = a.line;
    d["rank"] = a.rank ? json(*a.rank) : json(nullptr);
    d["compile_id"] = a.compileId;
    if (!a.subgraphName.empty()) d["subgraph_name"] = a.subgraphName;
    if (!a.pairedWith.empty()) d["paired_with"] = a.pairedWith;
    if (a.md5Ok) d["md5_ok"] = *a.md5Ok;
    json sidecars = json::object();
    if (!a.inputsPath.empty()) sidecars["inputs"] = a.inputsPath;
    if (!a.constantsPath.empty()) sidecars["constants"] = a.constantsPath;
    if (!a.metaPath.empty()) sidecars["meta"] = a.metaPath;
    if (!a.paramsPath.empty()) sidecars["params"] = a.paramsPath;
    if (!sidecars.empty()) d["sidecars"] = sidecars;

    const size_t diagsBefore = src.diagnostics.items.size();
    std::shared_ptr<Graph> g;
    try {
        g = src.graph(a.id);
    } catch (const InputError& e) {
        io.err << e.diagnostic().format() << "\n";
        d["error"] = diagnosticJson(e.diagnostic());
        r.inputError = true;
        return r;
    }
    d["diagnostics"] = diagnosticsJson(src.diagnostics, diagsBefore);
    if (!g) {
        d["error"] = "no graph";
        r.inputError = true;
        return r;
    }

    std::optional<ParamsInfo> params;
    if (!a.paramsPath.empty()) {
        try {
            params = readParamsJson(a.paramsPath);
        } catch (const InputError& e) {
            io.err << e.diagnostic().format() << "\n";
            d["params_error"] = diagnosticJson(e.diagnostic());
            r.inputError = true;
        }
    }
    const GraphStats s = computeGraphStats(*g, params ? &*params : nullptr);
    d["nodes"] = s.nodeCount;
    d["total_nodes"] = s.totalNodeCount;
    d["nodes_by_kind"] = s.nodesByKind;
    d["nested_graphs"] = s.nestedNodeCounts;
    const bool allOps = args.has("all-ops");
    const size_t top = static_cast<size_t>(args.intValue("top", 10));
    json hist = json::array();
    for (size_t i = 0; i < s.opHistogram.size() && (allOps || i < top); ++i)
        hist.push_back({{"target", s.opHistogram[i].target}, {"count", s.opHistogram[i].count}});
    d["ops"] = hist;
    d["distinct_ops"] = s.opHistogram.size();
    d["parameters"] = {{"count", s.parameterNames.size()},
                       {"bytes", s.parameterBytes},
                       {"without_meta", s.parametersWithoutMeta},
                       {"rule", s.parameterRule}};
    d["activations"] = {{"tensors", s.activationTensors},
                        {"bytes", s.activationBytes},
                        {"without_meta", s.activationsWithoutMeta},
                        {"rule",
                         "storages allocated by the graph's nodes, as the memory timeline counts them (views, "
                         "aliases, in-place results, waits and getitems share one; nested graphs' temporaries "
                         "not counted)"}};
    d["memory"] = {{"peak_bytes", s.peakBytes},
                   {"peak_node", s.peakNode},
                   {"boundary", s.hasBoundary ? json(s.boundaryRule) : json(nullptr)},
                   {"saved_activations", s.savedActivations},
                   {"saved_bytes", s.savedBytes},
                   {"saved_inputs", s.savedInputs}};
    checkGraph(*g, d);
    return r;
}

void printGraphText(const json& d, std::ostream& out)
{
    out << "  graph " << d["id"].get<std::string>() << " (" << d["kind"].get<std::string>() << ")";
    out << "  " << d["file"].get<std::string>() << ":" << d["line"].get<int64_t>();
    if (!d["rank"].is_null()) out << "  rank " << d["rank"].get<int>();
    if (!d["compile_id"].get<std::string>().empty()) out << "  " << d["compile_id"].get<std::string>();
    if (d.contains("subgraph_name")) out << "  subgraph " << d["subgraph_name"].get<std::string>();
    out << "\n";
    if (d.contains("paired_with")) out << "    paired with: " << d["paired_with"].get<std::string>() << "\n";
    if (d.contains("md5_ok") && !d["md5_ok"].get<bool>()) out << "    payload MD5 mismatch\n";
    if (d.contains("sidecars")) {
        out << "    sidecars:";
        for (const auto& [k, v] : d["sidecars"].items()) out << " " << k << "=" << v.get<std::string>();
        out << "\n";
    }
    if (d.contains("error")) {
        out << "    " << (d["error"].is_object() ? d["error"]["text"].get<std::string>() : d["error"].dump()) << "\n";
        return;
    }
    out << "    nodes: " << d["nodes"].get<size_t>();
    std::string sep = " (";
    for (const auto& [k, v] : d["nodes_by_kind"].items()) {
        out << sep << k << " " << v.get<size_t>();
        sep = ", ";
    }
    out << (sep == ", " ? ")" : "") << "\n";
    if (!d["nested_graphs"].empty()) {
        out << "    nested graphs (" << d["total_nodes"].get<size_t>() << " nodes in all):\n";
        for (const auto& [k, v] : d["nested_graphs"].items())
            out << "      " << k << ": " << v.get<size_t>() << " nodes\n";
    }
    const size_t distinct = d["distinct_ops"].get<size_t>();
    out << "    operators (" << d["ops"].size() << " of " << distinct << " distinct"
        << (d["nested_graphs"].empty() ? "" : ", nested graphs included") << "):\n";
    for (const auto& o : d["ops"])
        out << "      " << std::setw(6) << o["count"].get<int64_t>() << "  " << o["target"].get<std::string>() << "\n";
    const json& p = d["parameters"];
    out << "    parameters: " << p["count"].get<size_t>() << " tensors, " << formatByteSize(p["bytes"].get<int64_t>());
    if (p["without_meta"].get<size_t>() > 0) out << " (" << p["without_meta"].get<size_t>() << " without shape)";
    out << "\n      rule: " << p["rule"].get<std::string>() << "\n";
    const json& act = d["activations"];
    out << "    activations: " << act["tensors"].get<size_t>() << " tensors, "
        << formatByteSize(act["bytes"].get<int64_t>()) << " (views share their base's)";
    if (act["without_meta"].get<size_t>() > 0)
        out << "; " << act["without_meta"].get<size_t>() << " tensors of unknown size counted as 0 B";
    out << "\n";
    const json& mem = d["memory"];
    out << "    memory: peak " << formatByteSize(mem["peak_bytes"].get<int64_t>()) << " at "
        << mem["peak_node"].get<std::string>();
    if (mem["boundary"].is_null())
        out << ", no fw/bw boundary\n";
    else
        out << "; saved for backward: "
            << savedSummary(mem["saved_activations"].get<size_t>(), mem["saved_bytes"].get<int64_t>(),
                            mem["saved_inputs"].get<size_t>())
            << " (boundary: " << mem["boundary"].get<std::string>() << ")"
            << "\n";
    if (d.contains("params_error")) out << "    params.json: " << d["params_error"]["text"].get<std::string>() << "\n";
    out << "    unknown operators: ";
    if (d["unknown_operators"].empty()) out << "none";
    std::string comma;
    for (const auto& u : d["unknown_operators"]) {
        out << comma << u.get<std::string>();
        comma = ", ";
    }
    out << "\n";
    out << "    verifier: " << d["verifier_errors"].get<size_t>() << " error(s), "
        << d["verifier_warnings"].get<size_t>() << " warning(s)\n";
    for (const auto& v : d["verifier_first"]) out << "      " << v.get<std::string>() << "\n";
    if (d["runs_on_cpu"].get<bool>()) {
        out << "    runs on the CPU runtime: yes\n";
        return;
    }
    out << "    runs on the CPU runtime: no\n";
    for (const auto& m : d["cannot_run"]) {
        const auto& nodes = m["nodes"];
        out << "      " << m["reason"].get<std::string>() << " (" << nodes.size()
            << (nodes.size() == 1 ? " node: " : " nodes: ");
        for (size_t i = 0; i < std::min<size_t>(nodes.size(), kNodesShown); ++i)
            out << (i ? ", " : "") << nodes[i].get<std::string>();
        out << (nodes.size() > kNodesShown ? ", ...)\n" : ")\n");
    }
}

// What a .pt2 says about itself: layout, versions, each program's signature in counts.
void printAboutText(const json& a, std::ostream& out)
{
    out << "  layout: " << a.value("layout", "") << "  version " << a.value("version", "");
    if (a.contains("archive_version")) out << "  archive version " << a["archive_version"].get<std::string>();
    out << "\n";
    for (const auto& m : a["models"]) {
        out << "  program " << m["name"].get<std::string>() << ": schema " << m["schema_version"].get<std::string>();
        if (!m["torch_version"].get<std::string>().empty()) out << ", torch " << m["torch_version"].get<std::string>();
        if (!m["verifiers"].empty()) {
            out << ", verifiers";
            for (const auto& v : m["verifiers"]) out << " " << v.get<std::string>();
        }
        out << "\n";
        std::map<std::string, size_t> ins, outs;
        size_t read = 0;
        for (const auto& i : m["inputs"]) {
            ins[i["kind"].get<std::string>()]++;
            read += i.value("weight_read", false) ? 1 : 0;
        }
        for (const auto& o : m["outputs"]) outs[o["kind"].get<std::string>()]++;
        for (const auto& [what, counts] : {std::pair{"inputs", &ins}, std::pair{"outputs", &outs}}) {
            out << "    " << what << ":";
            std::string sep = " ";
            for (const auto& [k, n] : *counts) {
                out << sep << n << " " << k;
                sep = ", ";
            }
            out << "\n";
        }
        out << "    weights: " << m["weights"]["tensors"].get<size_t>() << " tensors ("
            << m["weights"]["form"].get<std::string>() << "), " << read << " read by the graph as constants\n";
        for (const auto& [sym, r] : m["range_constraints"].items())
            out << "    range: " << r["min"].get<std::string>() << " <= " << sym
                << " <= " << r["max"].get<std::string>() << "\n";
    }
    if (a.contains("aotinductor_files")) {
        out << "  AOTInductor files (" << a["aotinductor_files"].size() << "):";
        for (size_t i = 0; i < std::min<size_t>(a["aotinductor_files"].size(), 8); ++i)
            out << "\n    " << a["aotinductor_files"][i].get<std::string>();
        out << (a["aotinductor_files"].size() > 8 ? "\n    ...\n" : "\n");
    }
    if (a.contains("no_graph")) out << "  " << a["no_graph"].get<std::string>() << "\n";
}

void printSourceText(const json& s, std::ostream& out)
{
    out << s["path"].get<std::string>() << ": " << s["format_description"].get<std::string>() << "\n";
    if (s.contains("about")) printAboutText(s["about"], out);
    if (s.contains("ranks") && !s["ranks"].empty()) {
        out << "  ranks:";
        for (const auto& r : s["ranks"]) out << " " << r.get<int>();
        out << "\n";
    }
    if (s.contains("compile_ids") && !s["compile_ids"].empty()) {
        out << "  compile ids (" << s["compile_ids"].size() << "):";
        for (const auto& c : s["compile_ids"]) out << " " << c.get<std::string>();
        out << "\n";
    }
    const size_t graphs = s["graphs"].get<size_t>();
    size_t unreadable = 0;
    for (const auto& g : s["graph_info"]) unreadable += g.contains("error") ? 1 : 0;
    out << "  artifacts: " << s["artifacts"].get<size_t>() << " (" << graphs << (graphs == 1 ? " graph" : " graphs");
    if (unreadable) out << ", " << unreadable << " of them could not be read";
    out << ")\n";
    if (s["artifacts"].get<size_t>() > 1) {
        for (const auto& [k, v] : s["artifact_kinds"].items())
            out << "    " << std::setw(6) << v.get<size_t>() << "  " << k << "\n";
    }
    if (s.contains("md5_failures")) out << "  md5 failures: " << s["md5_failures"].get<size_t>() << "\n";
    if (!s["diagnostics"].empty()) out << "  diagnostics: " << s["diagnostics"].size() << " (on stderr)\n";
    for (const auto& g : s["graph_info"]) printGraphText(g, out);
}

}  // namespace

int runInfo(const Args& args, Io& io)
{
    const bool asJson = args.has("json");
    (void)args.intValue("top", 10);  // validate before any work
    const std::vector<std::string> wanted = args.has("graph") ? args.options.at("graph") : std::vector<std::string>{};
    int rc = kExitOk;
    json doc = {
        {"fxlens", "info"}, {"sources", json::array()}, {"workspaces", json::array()}, {"errors", json::array()}};

    for (const std::string& path : args.positional) {
        if (path.size() > 7 && path.compare(path.size() - 7, 7, ".fxlens") == 0) {
            // a workspace the window wrote: what it holds
            try {
                json w;
                std::ostringstream text;
                workspaceInfo(path, text, &w);
                if (asJson)
                    doc["workspaces"].push_back(std::move(w));
                else
                    io.out << text.str();
            } catch (const InputError& e) {
                io.err << e.diagnostic().format() << "\n";
                doc["errors"].push_back(diagnosticJson(e.diagnostic()));
                rc = kExitInputError;
            }
            continue;
        }
        std::unique_ptr<Source> src;
        try {
            src = openSource(path);
        } catch (const InputError& e) {
            io.err << e.diagnostic().format() << "\n";
            doc["errors"].push_back(diagnosticJson(e.diagnostic()));
            rc = kExitInputError;
            continue;
        }
        json s;
        s["path"] = src->path;
        s["format"] = std::string(sourceFormatName(src->format));
        s["format_description"] = formatDescription(src->format);
        const bool isLog = src->format == SourceFormat::TorchTrace || src->format == SourceFormat::TorchTraceDir
            || src->format == SourceFormat::TlparseOutput;
        std::map<std::string, size_t> kinds;
        std::vector<std::string> compileIds;
        std::set<std::string> seenIds;
        size_t md5Failures = 0;
        for (const Artifact& a : src->artifacts) {
            kinds[a.kind]++;
            if (!a.compileId.empty() && seenIds.insert(a.compileId).second) compileIds.push_back(a.compileId);
            if (a.md5Ok && !*a.md5Ok) md5Failures++;
        }
        s["artifacts"] = src->artifacts.size();
        s["artifact_kinds"] = kinds;
        if (!src->about.is_null()) s["about"] = src->about;
        s["graphs"] = src->graphs().size();
        if (isLog) {
            s["ranks"] = src->ranks;
            s["compile_ids"] = compileIds;
            s["md5_failures"] = md5Failures;
        }
        // Loader warnings (MD5 mismatches, skipped lines) go to stderr as well.
        printDiagnostics(src->diagnostics, 0, io);
        s["diagnostics"] = diagnosticsJson(src->diagnostics, 0);
        const size_t loadDiags = src->diagnostics.items.size();

        std::vector<const Artifact*> selected;
        if (wanted.empty()) {
            selected = src->graphs();
        } else {
            for (const std::string& id : wanted) {
                const Artifact* a = src->find(id);
                if (!a || !a->isGraph) {
                    io.err << noSuchGraphMessage(*src, id) << "\n";
                    doc["errors"].push_back({{"file", src->path}, {"text", noSuchGraphMessage(*src, id)}});
                    rc = kExitInputError;
                    continue;
                }
                selected.push_back(a);
            }
        }
        s["graph_info"] = json::array();
        for (const Artifact* a : selected) {
            GraphReport r = graphReport(*src, *a, args, io);
            if (r.inputError) rc = kExitInputError;
            s["graph_info"].push_back(std::move(r.doc));
        }
        // Diagnostics raised while parsing graphs (lossy input, unknown ops, ...).
        printDiagnostics(src->diagnostics, loadDiags, io);
        // An error-level diagnostic (a broken sidecar, an unreadable log among several) is
        // an input error even though loading went on.
        if (src->diagnostics.hasErrors()) rc = kExitInputError;
        if (!asJson) printSourceText(s, io.out);
        doc["sources"].push_back(std::move(s));
    }
    if (asJson) io.out << doc.dump(1) << "\n";
    return rc;
}

}  // namespace fxl::cli
