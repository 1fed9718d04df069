// fxlens mem: the memory timeline of a graph run in node order (core/analysis/memory_timeline.hpp):
// peak, who is live at it, activations saved across the forward/backward boundary.
#include <algorithm>
#include <nlohmann/json.hpp>
#include <ostream>

#include "app/cli_common.hpp"
#include "app/cli_mem.hpp"
#include "app/cli_mem_snapshot.hpp"
#include "core/analysis/memory_timeline.hpp"
#include "core/formats/memory_snapshot.hpp"
#include "core/formats/source.hpp"
#include "core/ir/graph.hpp"
#include "core/util/format.hpp"

namespace fxl::cli {

namespace {
constexpr size_t kLiveShown = 5;  // largest storages live at the peak, in the text form

// --forward-outputs N reads a forward graph's output list as N user outputs followed by the
// values saved for backward. N beyond the list, or a graph whose backward the timeline already
// finds, would be ignored in silence: a UsageError instead.
void checkForwardOutputs(const Graph& g, int64_t n, const MemoryOptions& mo)
{
    size_t outputs = 0;
    const NodeId out = g.outputNode();
    if (out != kNoNode) {
        const Node& on = g.node(out);
        outputs = on.args.size() == 1 && on.args[0].isSequence() ? on.args[0].items.size() : on.args.size();
    }
    if (static_cast<size_t>(n) > outputs)
        throw UsageError("--forward-outputs " + std::to_string(n) + ": the graph returns " + std::to_string(outputs)
                         + " values (N user outputs are followed by the saved values: N is at most "
                         + std::to_string(outputs) + ")");
    const MemoryTimeline own = computeMemoryTimeline(g, mo);
    if (own.boundaryStep >= 0 && own.boundaryRule == "first backward node")
        throw UsageError("--forward-outputs applies to a forward graph; this graph has backward nodes (its "
                         "forward/backward boundary is at step "
                         + std::to_string(own.boundaryStep) + "), which set the saved values");
}
}  // namespace

int runMem(const Args& args, Io& io)
{
    if (looksLikePickle(args.positional.front())) return runMemSnapshot(args, io);
    for (const char* snapshotOnly : {"device", "segments", "top"})
        if (args.has(snapshotOnly))
            throw UsageError(std::string("--") + snapshotOnly + " applies to a CUDA memory snapshot (a .pickle file)");
    const bool json = args.has("json");
    const std::string csv = args.value("csv");
    if (args.has("csv") && csv.empty()) throw UsageError("--csv needs a file name or '-' (stdout)");
    if (json && csv == "-") throw UsageError("--csv - and --json both write to stdout: pick one");
    MemoryOptions mo;
    mo.countInputs = !args.has("no-inputs");
    mo.usePhaseMeta = !args.has("no-phase");
    int64_t forwardOutputs = -1;
    if (args.has("forward-outputs")) {
        forwardOutputs = args.intValue("forward-outputs", 0);
        if (forwardOutputs < 0) throw UsageError("--forward-outputs expects a count of user outputs (0 or more)");
    }

    const LoadedGraph lg = loadGraph(args.positional.front(), args.value("graph"), io);
    if (forwardOutputs >= 0) {
        checkForwardOutputs(*lg.graph, forwardOutputs, mo);
        mo.forwardOutputs = static_cast<size_t>(forwardOutputs);
    }
    const MemoryTimeline t = computeMemoryTimeline(*lg.graph, mo);
    const std::string summary = timelineSummary(t);

    if (args.has("csv")) {
        const std::string text = timelineToCsv(t, *lg.graph);
        if (csv == "-") {
            io.out << text;
            io.err << summary << "\n";  // stdout holds only the CSV
            return kExitOk;
        }
        writeFileAtomic(csv, text, args.has("force"));
    }
    if (json) {
        nlohmann::json doc = {{"fxlens", "mem"},
                              {"source", lg.source->path},
                              {"graph", lg.id},
                              {"nodes", lg.graph->size()},
                              {"count_inputs", mo.countInputs}};
        doc["diagnostics"] = diagnosticsJson(lg.source->diagnostics, lg.diagnosticsFrom);
        if (args.has("csv")) doc["csv"] = csv;
        doc["timeline"] = timelineToJson(t);
        io.out << doc.dump(1) << "\n";
        return kExitOk;
    }
    io.out << summary << "\n";
    io.out << "  inputs " << formatByteSize(t.inputBytes) << (mo.countInputs ? "" : " (not counted)") << ", outputs "
           << formatByteSize(t.outputBytes) << ", live at the end " << formatByteSize(t.finalBytes) << "\n";
    if (t.boundaryStep >= 0)
        io.out << "  saved for backward: " << savedSummary(t) << "; boundary: " << t.boundaryRule << "\n";
    if (!t.liveAtPeak.empty()) {
        io.out << "  live at the peak (" << t.liveAtPeak.size() << " storages), largest:\n";
        for (size_t i = 0; i < std::min(kLiveShown, t.liveAtPeak.size()); ++i) {
            const int s = t.liveAtPeak[i];
            io.out << "    " << formatByteSize(t.storages.at(static_cast<size_t>(s)).bytes) << "  " << t.storageName(s)
                   << "\n";
        }
    }
    if (!t.unknownSizes.empty())
        io.out << "  " << t.unknownSizes.size()
               << " tensors of unknown size counted as 0 bytes (first: " << t.unknownSizes.front() << ")\n";
    for (const std::string& n : t.notes) io.out << "  note: " << n << "\n";
    if (args.has("csv")) io.out << "  timeline written to " << csv << "\n";
    return kExitOk;
}

}  // namespace fxl::cli
