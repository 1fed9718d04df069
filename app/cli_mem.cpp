// fxlens mem: the memory timeline of a graph run in node order (core/analysis/memory_timeline.hpp):
// peak, who is live at it, activations saved across the forward/backward boundary.
#include <algorithm>
#include <nlohmann/json.hpp>
#include <ostream>

#include "app/cli_common.hpp"
#include "app/cli_mem.hpp"
#include "app/cli_mem_snapshot.hpp"
#include "core/analysis/memory_timeline.hpp"
#include "core/analysis/snapshot_overlay.hpp"
#include "core/analysis/snapshot_timeline.hpp"
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
// --snapshot SNAP: a snapshot of a run of this graph over its estimate (snapshot_overlay.hpp)
int overlayOutput(const Args& args, Io& io, const LoadedGraph& lg, const MemoryTimeline& t)
{
    if (args.has("csv")) throw UsageError("--csv does not apply with --snapshot");
    const std::string path = args.value("snapshot");
    const MemorySnapshot s = readMemorySnapshot(path);
    std::vector<int64_t> traced;
    for (size_t d = 0; d < s.deviceTraces.size(); ++d)
        if (!s.deviceTraces[d].empty()) traced.push_back(static_cast<int64_t>(d));
    int64_t device = traced.empty() ? 0 : traced.front();
    if (args.has("device")) {
        device = args.intValue("device", 0);
    } else if (traced.size() > 1) {
        std::string have;
        for (int64_t d : traced) have += (have.empty() ? "" : ", ") + std::to_string(d);
        throw InputError(path, 0, 0, "the snapshot traces devices " + have + ": pick one with --device N");
    }
    const SnapshotTimeline measured = snapshotTimeline(s, device);
    const SnapshotOverlay o = overlaySnapshot(*lg.graph, t, s, measured);
    const Graph& g = *lg.graph;
    const double rate =
        o.allocations ? 100.0 * static_cast<double>(o.byName + o.byOrder) / static_cast<double>(o.allocations) : 0;
    // the nodes where estimate and measurement differ, largest difference first
    std::vector<const OverlayNode*> differ;
    for (const OverlayNode& n : o.nodes)
        if (static_cast<uint64_t>(n.estimatedBytes) != n.measuredBytes) differ.push_back(&n);
    std::stable_sort(differ.begin(), differ.end(), [](const OverlayNode* a, const OverlayNode* b) {
        return std::llabs(static_cast<long long>(a->measuredBytes) - a->estimatedBytes)
            > std::llabs(static_cast<long long>(b->measuredBytes) - b->estimatedBytes);
    });
    if (args.has("json")) {
        nlohmann::json nodes = nlohmann::json::array();
        for (const OverlayNode& n : o.nodes)
            nodes.push_back({{"node", g.node(n.node).name},
                             {"estimated_bytes", n.estimatedBytes},
                             {"measured_bytes", n.measuredBytes},
                             {"estimated_allocations", n.estimatedAllocations},
                             {"measured_allocations", n.measuredAllocations}});
        nlohmann::json doc = {{"fxlens", "mem"},
                              {"source", lg.source->path},
                              {"graph", lg.id},
                              {"snapshot", path},
                              {"device", device},
                              {"allocations", o.allocations},
                              {"matched_by_fx_node_name", o.byName},
                              {"matched_by_order", o.byOrder},
                              {"unmatched", o.unmatched()},
                              {"match_rate", rate / 100.0},
                              {"estimated_peak_bytes", o.estimatedPeak},
                              {"estimated_peak_node", o.estimatedPeakNode},
                              {"measured_peak_bytes", o.measuredPeak},
                              {"measured_peak_step", o.measuredPeakStep},
                              {"measured_peak_node", o.measuredPeakNode},
                              {"nodes", nodes}};
        io.out << doc.dump(1) << "\n";
        return kExitOk;
    }
    char pct[16];
    std::snprintf(pct, sizeof pct, "%.1f%%", rate);
    io.out << "snapshot " << path << " (device " << device << ") over " << lg.source->path << " graph " << lg.id
           << "\n";
    io.out << "  " << o.byName + o.byOrder << " of " << o.allocations << " allocations matched to nodes (" << pct
           << "): " << o.byName << " by fx_node_name, " << o.byOrder << " by allocation order; " << o.unmatched()
           << " unmatched\n";
    io.out << "  peak: estimated " << formatByteSize(o.estimatedPeak) << " (" << o.estimatedPeak << ") at "
           << o.estimatedPeakNode << "; measured " << formatByteSize(static_cast<int64_t>(o.measuredPeak)) << " ("
           << o.measuredPeak << ") at step " << o.measuredPeakStep
           << (o.measuredPeakNode.empty() ? std::string() : " (after " + o.measuredPeakNode + ")") << "\n";
    if (differ.empty()) {
        io.out << "  every node allocated the bytes the estimate says (" << o.nodes.size() << " nodes)\n";
    } else {
        io.out << "  nodes whose measured bytes differ from the estimate (" << differ.size() << "), largest first:\n";
        for (size_t k = 0; k < std::min<size_t>(kLiveShown, differ.size()); ++k)
            io.out << "    " << g.node(differ[k]->node).name << ": estimated "
                   << formatByteSize(differ[k]->estimatedBytes) << ", measured "
                   << formatByteSize(static_cast<int64_t>(differ[k]->measuredBytes)) << "\n";
    }
    return kExitOk;
}

}  // namespace

int runMem(const Args& args, Io& io)
{
    if (looksLikePickle(args.positional.front())) return runMemSnapshot(args, io);
    for (const char* snapshotOnly : {"segments", "top", "compare", "private-pools"})
        if (args.has(snapshotOnly))
            throw UsageError(std::string("--") + snapshotOnly + " applies to a CUDA memory snapshot (a .pickle file)");
    if (args.has("device") && !args.has("snapshot"))
        throw UsageError("--device applies to a CUDA memory snapshot (a .pickle file, or --snapshot)");
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
    if (args.has("snapshot")) return overlayOutput(args, io, lg, t);

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
