#include "core/analysis/memory_timeline.hpp"

#include <map>

#include <algorithm>

#include "core/analysis/memory_timeline_builder.hpp"
#include "core/util/format.hpp"

namespace fxl {

std::string_view stepPhaseName(StepPhase p)
{
    switch (p) {
    case StepPhase::Input: return "input";
    case StepPhase::Forward: return "forward";
    case StepPhase::Backward: return "backward";
    case StepPhase::Output: return "output";
    }
    return "";
}

const std::string& MemoryTimeline::peakNode() const
{
    static const std::string kEmpty;
    return peakStep >= 0 && static_cast<size_t>(peakStep) < names.size() ? names[static_cast<size_t>(peakStep)]
                                                                         : kEmpty;
}

std::string MemoryTimeline::storageName(int storage) const
{
    if (storage < 0 || static_cast<size_t>(storage) >= storages.size()) return "?";
    const StorageInfo& s = storages[static_cast<size_t>(storage)];
    std::string n = static_cast<size_t>(s.allocStep) < names.size() ? names[static_cast<size_t>(s.allocStep)] : "?";
    if (s.element >= 0) n += "[" + std::to_string(s.element) + "]";
    return n;
}

namespace {

std::string csvField(const std::string& s)
{
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string o = "\"";
    for (char c : s) {
        if (c == '"') o += '"';
        o += c;
    }
    return o + "\"";
}

std::string signedBytes(int64_t d) { return (d > 0 ? "+" : "") + formatByteSize(d); }

}  // namespace

MemoryTimeline computeMemoryTimeline(const Graph& g, const MemoryOptions& opts)
{
    MemoryTimeline t;
    buildMemoryTimeline(g, opts, t);
    return t;
}

size_t MemoryTimeline::savedActivations() const
{
    return static_cast<size_t>(
        std::count_if(saved.begin(), saved.end(), [](const SavedValue& v) { return !v.inputBacked; }));
}

size_t MemoryTimeline::savedInputs() const { return saved.size() - savedActivations(); }

std::optional<size_t> savedOutputsStart(const Graph& g)
{
    for (size_t k = 0; k < g.outputDescs.size(); ++k)
        if (g.outputDescs[k].starts_with("SavedForBackwardsAOTOutput")) return k;
    return std::nullopt;
}

std::string savedSummary(const MemoryTimeline& t)
{
    return savedSummary(t.savedActivations(), t.savedBytes, t.savedInputs());
}

std::string savedSummary(size_t acts, int64_t bytes, size_t inputs)
{
    std::string s = std::to_string(acts) + (acts == 1 ? " saved activation (" : " saved activations (")
        + formatByteSize(bytes) + ")";
    if (inputs > 0)
        s += ", " + std::to_string(inputs) + (inputs == 1 ? " parameter / input" : " parameters / inputs")
            + " or views of them (resident, not counted)";
    return s;
}

std::string timelineSummary(const MemoryTimeline& t)
{
    std::string s = "peak " + formatByteSize(t.peakBytes);
    if (t.peakStep >= 0)
        s += " at " + t.peakNode() + " (node " + std::to_string(t.peakStep + 1) + "/" + std::to_string(t.steps.size())
            + ")";
    if (t.boundaryStep >= 0)
        s += ", saved " + formatByteSize(t.savedBytes) + " across fw/bw";
    else
        s += ", no fw/bw boundary";
    return s;
}

TimelineComparison compareTimelines(const MemoryTimeline& a, const MemoryTimeline& b)
{
    TimelineComparison c;
    c.peakA = a.peakBytes;
    c.peakB = b.peakBytes;
    c.peakDelta = b.peakBytes - a.peakBytes;
    c.peakNodeA = a.peakNode();
    c.peakNodeB = b.peakNode();
    c.peakStepA = a.peakStep;
    c.peakStepB = b.peakStep;
    c.savedA = a.savedBytes;
    c.savedB = b.savedBytes;
    c.savedDelta = b.savedBytes - a.savedBytes;
    c.finalA = a.finalBytes;
    c.finalB = b.finalBytes;
    c.summary = "peak " + formatByteSize(c.peakA) + " -> " + formatByteSize(c.peakB) + " (" + signedBytes(c.peakDelta)
        + ") at " + (c.peakNodeA.empty() ? "-" : c.peakNodeA) + " -> " + (c.peakNodeB.empty() ? "-" : c.peakNodeB)
        + "; saved " + formatByteSize(c.savedA) + " -> " + formatByteSize(c.savedB) + " (" + signedBytes(c.savedDelta)
        + ")";
    return c;
}

std::string timelineToCsv(const MemoryTimeline& t, const Graph& g, const MemoryTimeline* before)
{
    // with the step before: its live bytes at the node of the same name ("" where it has none)
    std::map<std::string, int64_t> beforeLive;
    if (before)
        for (size_t k = 0; k < before->steps.size(); ++k)
            beforeLive.emplace(before->names[k], before->steps[k].liveBytes);
    std::string out = "execution_index,node,op,target,phase,allocated_bytes,freed_bytes,live_bytes,live_after_bytes";
    out += before ? ",live_bytes_step_before\n" : "\n";
    for (size_t k = 0; k < t.steps.size(); ++k) {
        const auto& st = t.steps[k];
        std::string op, target;
        if (g.alive(st.node)) {
            const Node& n = g.node(st.node);
            op = nodeOpName(n.op);
            target = n.target;
        }
        out += std::to_string(k) + "," + csvField(t.names[k]) + "," + op + "," + csvField(target) + ","
            + std::string(stepPhaseName(st.phase)) + "," + std::to_string(st.allocatedBytes) + ","
            + std::to_string(st.freedBytes) + "," + std::to_string(st.liveBytes) + ","
            + std::to_string(st.liveAfterBytes);
        if (before) {
            const auto it = beforeLive.find(t.names[k]);
            out += "," + (it == beforeLive.end() ? std::string() : std::to_string(it->second));
        }
        out += "\n";
    }
    return out;
}

nlohmann::json timelineToJson(const MemoryTimeline& t)
{
    using nlohmann::json;
    json j;
    j["summary"] = timelineSummary(t);
    json live = json::array();
    for (int s : t.liveAtPeak)
        live.push_back({{"storage", t.storageName(s)}, {"bytes", t.storages[static_cast<size_t>(s)].bytes}});
    j["peak"] = {{"bytes", t.peakBytes}, {"step", t.peakStep}, {"node", t.peakNode()}, {"live", std::move(live)}};
    j["input_bytes"] = t.inputBytes;
    j["output_bytes"] = t.outputBytes;
    j["final_bytes"] = t.finalBytes;
    if (t.boundaryStep >= 0)
        j["boundary"] = {{"step", t.boundaryStep},
                         {"node", t.names[static_cast<size_t>(t.boundaryStep)]},
                         {"live_bytes", t.liveAtBoundaryBytes}};
    else
        j["boundary"] = nullptr;
    json saved = json::array();
    for (const auto& sv : t.saved)
        saved.push_back(
            {{"node",
              sv.step >= 0 && static_cast<size_t>(sv.step) < t.names.size() ? t.names[static_cast<size_t>(sv.step)]
                                                                            : std::string("?")},
             {"bytes", sv.bytes},
             {"input_backed", sv.inputBacked}});
    j["saved"] = {{"bytes", t.savedBytes},
                  {"activations", t.savedActivations()},
                  {"inputs", t.savedInputs()},
                  {"values", std::move(saved)}};
    j["boundary_rule"] = t.boundaryRule.empty() ? json(nullptr) : json(t.boundaryRule);
    json steps = json::array();
    for (size_t k = 0; k < t.steps.size(); ++k) {
        const auto& st = t.steps[k];
        steps.push_back({{"node", t.names[k]},
                         {"phase", stepPhaseName(st.phase)},
                         {"allocated", st.allocatedBytes},
                         {"freed", st.freedBytes},
                         {"live", st.liveBytes},
                         {"live_after", st.liveAfterBytes}});
    }
    j["steps"] = std::move(steps);
    json storages = json::array();
    for (size_t s = 0; s < t.storages.size(); ++s) {
        const auto& si = t.storages[s];
        storages.push_back({{"name", t.storageName(static_cast<int>(s))},
                            {"bytes", si.bytes},
                            {"alloc_step", si.allocStep},
                            {"free_step", si.freeStep >= 0 ? json(si.freeStep) : json(nullptr)},
                            {"input", si.input},
                            {"output", si.output}});
    }
    j["storages"] = std::move(storages);
    j["unknown_sizes"] = t.unknownSizes;
    j["notes"] = t.notes;
    return j;
}

}  // namespace fxl
