// fxlens diff: two graphs (typically one before and after a pass) node by node.
#include <algorithm>
#include <nlohmann/json.hpp>
#include <ostream>
#include <set>

#include "app/cli_common.hpp"
#include "app/cli_diff.hpp"
#include "core/analysis/graph_diff.hpp"
#include "core/formats/source.hpp"

namespace fxl::cli {

namespace {

nlohmann::json sideJson(const LoadedGraph& lg)
{
    return {{"source", lg.source->path},
            {"graph", lg.id},
            {"nodes", lg.graph->size()},
            {"diagnostics", diagnosticsJson(lg.source->diagnostics, lg.diagnosticsFrom)}};
}

nlohmann::json countsJson(const DiffCounts& c)
{
    return {{"added", c.added},         {"removed", c.removed}, {"changed", c.changed},
            {"unchanged", c.unchanged}, {"renamed", c.renamed}, {"rewired", c.rewired}};
}

}  // namespace

int runDiff(const Args& args, Io& io)
{
    const long long context = args.intValue("context", 3);
    const LoadedGraph a = loadGraph(args.positional.at(0), args.value("graph-a"), io, "--graph-a");
    const LoadedGraph b = loadGraph(args.positional.at(1), args.value("graph-b"), io, "--graph-b");

    DiffOptions opts;
    if (args.has("ignore")) {
        // The fields diffGraphs compares (core/analysis/graph_diff.hpp): a typo must not silently
        // ignore nothing.
        static const std::set<std::string> known = {
            "op",        "target",      "args",      "kwargs",      "inputs",
            "val",       "device",      "val_known", "module_path", "source",
            "recompute", "ac_graph_id", "custom",    "phase",       "autograd_backward",
            "desc",      "chunk",       "default",   "subgraph"};
        for (const std::string& list : args.options.at("ignore")) {
            size_t start = 0;
            while (start <= list.size()) {
                size_t comma = list.find(',', start);
                if (comma == std::string::npos) comma = list.size();
                const std::string f = list.substr(start, comma - start);
                if (!known.count(f)) {
                    std::string names;
                    for (const auto& k : known) names += (names.empty() ? "" : ", ") + k;
                    throw UsageError("--ignore: unknown field '" + f + "' (fields: " + names + ")");
                }
                opts.ignoreFields.insert(f);
                start = comma + 1;
            }
        }
    }
    // --all shows everything, vals gained on one side included
    opts.metaGainedIsChange = args.has("all");
    const GraphDiff d = diffGraphs(*a.graph, *b.graph, opts);

    if (args.has("json")) {
        nlohmann::json doc = {{"fxlens", "diff"}, {"a", sideJson(a)}, {"b", sideJson(b)}};
        doc["identical"] = d.identical();
        doc["total_counts"] = countsJson(d.totalCounts());
        doc["diff"] = diffToJson(d, args.has("all"));
        io.out << doc.dump(1) << "\n";
        return kExitOk;
    }
    DiffTextOptions t;
    auto label = [](const LoadedGraph& lg, const std::string& given) {
        return given.empty() ? lg.source->path : lg.source->path + " (graph " + lg.id + ")";
    };
    t.aLabel = label(a, args.value("graph-a"));
    t.bLabel = label(b, args.value("graph-b"));
    t.context = args.has("all") ? -1 : static_cast<int>(std::min<long long>(context, 1'000'000));
    io.out << diffToText(d, *a.graph, *b.graph, t);
    return kExitOk;
}

}  // namespace fxl::cli
