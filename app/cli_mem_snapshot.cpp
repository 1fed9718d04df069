#include "app/cli_mem_snapshot.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <numeric>
#include <ostream>
#include <set>
#include <sstream>

#include "app/cli_common.hpp"
#include "core/analysis/snapshot_compare.hpp"
#include "core/analysis/snapshot_timeline.hpp"
#include "core/formats/memory_snapshot.hpp"
#include "core/util/format.hpp"

namespace fxl::cli {

namespace {

nlohmann::json framesJson(const MemorySnapshot& s, StackId id)
{
    nlohmann::json a = nlohmann::json::array();
    for (uint32_t f : s.stacks.at(id)) {
        const SnapshotFrame& fr = s.frames[f];
        nlohmann::json j = {{"filename", fr.filename}, {"line", fr.line}, {"name", fr.name}};
        if (!fr.fxNodeName.empty()) j["fx_node_name"] = fr.fxNodeName;
        if (!fr.fxNodeTarget.empty()) j["fx_node_target"] = fr.fxNodeTarget;
        a.push_back(std::move(j));
    }
    return a;
}

std::string fxNodeOf(const MemorySnapshot& s, StackId id)
{
    for (uint32_t f : s.stacks.at(id))
        if (!s.frames[f].fxNodeName.empty()) return s.frames[f].fxNodeName;
    return {};
}

nlohmann::json elementJson(const MemorySnapshot& s, const TimelineElement& e)
{
    return {{"addr", e.addr},
            {"size", e.size},
            {"stream", e.stream},
            {"trace_index", e.traceIndex},
            {"allocated_before_trace", e.initiallyAllocated},
            {"from_snapshot_blocks", e.ghost},
            {"start_step", e.start},
            {"end_step", e.end},
            {"fx_node", fxNodeOf(s, e.stack)},
            {"frames", framesJson(s, e.stack)}};
}

std::vector<size_t> largest(const SnapshotTimeline& t, size_t n)
{
    std::vector<size_t> ids(t.elements.size());
    std::iota(ids.begin(), ids.end(), size_t{0});
    std::stable_sort(ids.begin(), ids.end(),
                     [&](size_t a, size_t b) { return t.elements[a].size > t.elements[b].size; });
    if (ids.size() > n) ids.resize(n);
    return ids;
}

std::string csvField(const std::string& s)
{
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string q = "\"";
    for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
}

// the device both snapshots are read on: --device N, else the first one A traces
int64_t comparedDevice(const Args& args, const MemorySnapshot& a)
{
    if (args.has("device")) return args.intValue("device", 0);
    for (size_t d = 0; d < a.deviceTraces.size(); ++d)
        if (!a.deviceTraces[d].empty()) return static_cast<int64_t>(d);
    return 0;
}

// --compare B: two snapshots' timelines aligned by allocation site (snapshot_compare.hpp)
int compareOutput(const Args& args, Io& io, const MemorySnapshot& a)
{
    const std::string pathB = args.value("compare");
    const MemorySnapshot b = readMemorySnapshot(pathB);
    const int64_t device = comparedDevice(args, a);
    const bool segments = args.has("segments");
    const SnapshotTimeline ta = snapshotTimeline(a, device, segments), tb = snapshotTimeline(b, device, segments);
    const SnapshotComparison c = compareSnapshots(a, ta, b, tb);
    const size_t top = static_cast<size_t>(args.intValue("top", 10));
    if (args.has("json")) {
        nlohmann::json sites = nlohmann::json::array();
        for (const SiteComparison& x : c.sites)
            sites.push_back({{"site", x.site},
                             {"allocated_a", x.allocatedA},
                             {"allocated_b", x.allocatedB},
                             {"count_a", x.countA},
                             {"count_b", x.countB},
                             {"at_peak_a", x.atPeakA},
                             {"at_peak_b", x.atPeakB}});
        io.out << nlohmann::json{{"fxlens", "mem"},
                                 {"a", a.path},
                                 {"b", b.path},
                                 {"device", device},
                                 {"peak_a", c.peakA},
                                 {"peak_b", c.peakB},
                                 {"peak_step_a", c.peakStepA},
                                 {"peak_step_b", c.peakStepB},
                                 {"aligned_by", c.byFxNode ? "fx node" : "allocation site"},
                                 {"sites_in_both", c.bothSites},
                                 {"sites_only_a", c.onlyA},
                                 {"sites_only_b", c.onlyB},
                                 {"sites", sites}}
                      .dump(1)
               << "\n";
        return kExitOk;
    }
    const auto bytes = [](uint64_t v) { return formatByteSize(static_cast<int64_t>(v)); };
    const int64_t delta = static_cast<int64_t>(c.peakB) - static_cast<int64_t>(c.peakA);
    io.out << "A: " << a.path << "\nB: " << b.path << "\n";
    io.out << "device " << device << ": peak A " << bytes(c.peakA) << " (" << c.peakA << ") at step " << c.peakStepA
           << ", B " << bytes(c.peakB) << " (" << c.peakB << ") at step " << c.peakStepB << ": "
           << (delta == 0 ? std::string("the same")
                          : (delta > 0 ? "B +" : "B -") + formatByteSize(delta > 0 ? delta : -delta))
           << "\n";
    io.out << "aligned by " << (c.byFxNode ? "FX node" : "allocation site (innermost frame)") << ": " << c.bothSites
           << " sites in both, " << c.onlyA << " only in A, " << c.onlyB << " only in B\n";
    size_t shown = 0;
    for (const SiteComparison& x : c.sites) {
        if (x.allocatedA == x.allocatedB && x.atPeakA == x.atPeakB) continue;
        if (shown++ == 0) io.out << "sites that differ (allocated A -> B; live at the peak A -> B):\n";
        if (shown > top) break;
        io.out << "  " << x.site << ": " << bytes(x.allocatedA) << " (" << x.countA << ") -> " << bytes(x.allocatedB)
               << " (" << x.countB << "); " << bytes(x.atPeakA) << " -> " << bytes(x.atPeakB) << "\n";
    }
    if (shown == 0) io.out << "every site allocated the same bytes in both, with the same bytes live at the peaks\n";
    return kExitOk;
}

}  // namespace

int runMemSnapshot(const Args& args, Io& io)
{
    for (const char* graphOnly : {"graph", "no-inputs", "no-phase", "forward-outputs", "snapshot"})
        if (args.has(graphOnly))
            throw UsageError(std::string("--") + graphOnly + " applies to a graph; " + args.positional.front()
                             + " is a CUDA memory snapshot");
    const bool asJson = args.has("json");
    const std::string csv = args.value("csv");
    if (args.has("csv") && csv.empty()) throw UsageError("--csv needs a file name or '-' (stdout)");
    if (asJson && csv == "-") throw UsageError("--csv - and --json both write to stdout: pick one");
    const bool segmentsView = args.has("segments");
    const bool pools = args.has("private-pools");
    if (segmentsView && pools)
        throw UsageError("--private-pools is a view of the active memory timeline, not of --segments");
    const int64_t top = args.intValue("top", 5);
    if (top < 0) throw UsageError("--top expects a count (0 or more)");
    const MemorySnapshot s = readMemorySnapshot(args.positional.front());
    if (args.has("compare")) {
        if (args.has("csv")) throw UsageError("--csv does not apply with --compare");
        return compareOutput(args, io, s);
    }

    // the devices: those with a trace or a segment, or the one asked for
    std::set<int64_t> devices;
    for (size_t d = 0; d < s.deviceTraces.size(); ++d)
        if (!s.deviceTraces[d].empty()) devices.insert(static_cast<int64_t>(d));
    for (const SnapshotSegment& g : s.segments) devices.insert(g.device);
    if (args.has("device")) {
        const int64_t d = args.intValue("device", 0);
        if (!devices.count(d)) {
            std::string have;
            for (int64_t x : devices) have += (have.empty() ? "" : ", ") + std::to_string(x);
            throw InputError(args.positional.front(), 0, 0,
                             "no device " + std::to_string(d)
                                 + " in the snapshot (devices: " + (have.empty() ? "none" : have) + ")");
        }
        devices = {d};
    }

    nlohmann::json doc = {{"fxlens", "mem"},
                          {"snapshot", s.path},
                          {"pickle_protocol", s.pickleProtocol},
                          {"pickle_values", s.pickleValues},
                          {"history_form", s.historyForm},
                          {"fx_frames", s.fxFrames},
                          {"frames", s.frames.size()},
                          {"stacks", s.stacks.size() - 1},
                          {"view",
                           segmentsView ? "segments"
                               : pools  ? "active_incl_private_pools"
                                        : "active"},
                          {"devices", nlohmann::json::array()}};
    std::ostringstream text, csvText;
    csvText << "device,element,addr,size,stream,start_step,end_step,trace_index,allocated_before_trace,fx_node,frame\n";
    text << "snapshot " << s.path << ": pickle protocol " << s.pickleProtocol << ", " << s.segments.size()
         << " segments, " << devices.size() << (devices.size() == 1 ? " device" : " devices") << ", " << s.frames.size()
         << " distinct frames in " << s.stacks.size() - 1 << " stacks" << (s.fxFrames ? "; frames name FX nodes" : "")
         << (s.historyForm ? "; PyTorch 2.0's history form" : "") << "\n";
    for (int64_t d : devices) {
        uint64_t reserved = 0, allocated = 0;
        size_t segs = 0;
        for (const SnapshotSegment& g : s.segments)
            if (g.device == d) {
                ++segs;
                reserved += g.totalSize;
                for (const SnapshotBlock& b : g.blocks)
                    if (b.state == "active_allocated") allocated += b.size;
            }
        const size_t events = d >= 0 && static_cast<size_t>(d) < s.deviceTraces.size()
            ? s.deviceTraces[static_cast<size_t>(d)].size()
            : 0;
        const SnapshotTimeline t = snapshotTimeline(s, d, segmentsView, kMemoryVizMaxEntries, pools);
        size_t before = 0;
        for (const TimelineElement& e : t.elements) before += e.initiallyAllocated;
        nlohmann::json dj = {{"device", d},
                             {"segments", segs},
                             {"reserved_bytes", reserved},
                             {"allocated_bytes", allocated},
                             {"trace_events", events}};
        nlohmann::json tj = {{"elements", t.elements.size()},
                             {"allocated_before_trace", before},
                             {"steps", t.maxAtTime.size()},
                             {"peak_bytes", t.peakBytes},
                             {"peak_step", t.peakStep},
                             {"memory_viz_max_size", t.maxSize},
                             {"live_at_peak", nlohmann::json::array()},
                             {"largest", nlohmann::json::array()}};
        for (size_t id : t.liveAtPeak) tj["live_at_peak"].push_back(elementJson(s, t.elements[id]));
        const std::vector<size_t> big = largest(t, static_cast<size_t>(top));
        for (size_t id : big) tj["largest"].push_back(elementJson(s, t.elements[id]));
        // the private pools: each envelope's height (the pool's reserved or live bytes, whichever
        // was larger, at its highest) and the allocations drawn in it
        std::vector<std::pair<std::string, uint64_t>> envelopes;
        if (pools) {
            nlohmann::json pj = nlohmann::json::array();
            for (const TimelineSeries& x : t.series) {
                if (x.kind != SeriesKind::Envelope) continue;
                const uint64_t height = x.sizes.empty() ? 0 : *std::max_element(x.sizes.begin(), x.sizes.end());
                size_t inside = 0;
                for (const TimelineElement& e : t.elements) inside += e.poolKey == x.pool;
                pj.push_back({{"pool", x.pool}, {"envelope_bytes", height}, {"allocations", inside}});
                envelopes.emplace_back(x.pool, height);
            }
            tj["private_pools"] = std::move(pj);
        }
        dj["timeline"] = std::move(tj);
        doc["devices"].push_back(std::move(dj));

        text << "device " << d << ": " << segs << (segs == 1 ? " segment, " : " segments, ")
             << formatByteSize(static_cast<int64_t>(reserved)) << " reserved, "
             << formatByteSize(static_cast<int64_t>(allocated)) << " allocated at the snapshot; " << events
             << " trace events\n";
        text << "  "
             << (segmentsView ? "cached segment"
                     : pools  ? "active memory (incl. private pools)"
                              : "active memory")
             << " timeline (memory_viz's rules): " << t.elements.size() << (segmentsView ? " segments" : " allocations")
             << " (" << before << " from before the trace), " << t.maxAtTime.size() << " steps\n";
        for (const auto& [key, height] : envelopes)
            text << "  private pool " << key << ": envelope " << formatByteSize(static_cast<int64_t>(height))
                 << " (reserved or live, whichever was larger)\n";
        text << "  peak " << formatByteSize(static_cast<int64_t>(t.peakBytes)) << " (" << t.peakBytes << ") at step "
             << t.peakStep << "; live there: " << t.liveAtPeak.size() << "\n";
        for (size_t k = 0; k < std::min<size_t>(static_cast<size_t>(top), t.liveAtPeak.size()); ++k)
            text << "    " << describeElement(s, t.elements[t.liveAtPeak[k]]) << "\n";
        if (!big.empty()) text << "  largest:\n";
        for (size_t id : big) text << "    " << describeElement(s, t.elements[id]) << "\n";
        for (size_t id = 0; id < t.elements.size(); ++id) {
            const TimelineElement& e = t.elements[id];
            const auto& st = s.stacks.at(e.stack);
            std::string frame;
            if (!st.empty())
                frame =
                    s.frames[st[0]].name + " " + s.frames[st[0]].filename + ":" + std::to_string(s.frames[st[0]].line);
            csvText << d << "," << id << "," << e.addr << "," << e.size << "," << e.stream << "," << e.start << ","
                    << e.end << "," << e.traceIndex << "," << (e.initiallyAllocated ? 1 : 0) << ","
                    << csvField(fxNodeOf(s, e.stack)) << "," << csvField(frame) << "\n";
        }
    }
    if (args.has("csv")) {
        if (csv == "-") {
            io.out << csvText.str();
            io.err << text.str();
            return kExitOk;
        }
        writeFileAtomic(csv, csvText.str(), args.has("force"));
        doc["csv"] = csv;
    }
    if (asJson) {
        io.out << doc.dump(1) << "\n";
        return kExitOk;
    }
    io.out << text.str();
    if (args.has("csv")) io.out << "allocations written to " << csv << "\n";
    return kExitOk;
}

}  // namespace fxl::cli
