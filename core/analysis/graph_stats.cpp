#include "core/analysis/graph_stats.hpp"

#include "core/analysis/memory_timeline.hpp"

#include <algorithm>
#include <charconv>

#include "core/ops/op_registry.hpp"

namespace fxl {

namespace {

std::optional<int> parseIndex(std::string_view digits)
{
    if (digits.empty()) return std::nullopt;
    int v = 0;
    auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    if (ec != std::errc() || ptr != digits.data() + digits.size()) return std::nullopt;
    return v;
}

void countNested(const Graph& g, const std::string& prefix, GraphStats& s, std::map<std::string, int64_t>& ops,
                 int depth)
{
    g.forEachNode([&](const Node& n) {
        if (n.op == NodeOp::CallFunction) ops[n.target]++;
    });
    // Nesting deeper than this is a cycle in a malformed graph, not a real model.
    if (depth > 64) return;
    for (const auto& [attr, sub] : g.subgraphs) {
        if (!sub) continue;
        std::string path = prefix.empty() ? attr : prefix + "." + attr;
        s.nestedNodeCounts[path] = sub->size();
        s.totalNodeCount += sub->size();
        countNested(*sub, path, s, ops, depth + 1);
    }
}

}  // namespace

std::optional<int> jointInputIndex(const std::string& name)
{
    // make_fx names joint inputs arg0_1, arg1_1, ...; AOT autograd primals_1, primals_2, ...
    if (name.starts_with("arg") && name.size() > 5 && name.compare(name.size() - 2, 2, "_1") == 0)
        return parseIndex(std::string_view(name).substr(3, name.size() - 5));
    if (name.starts_with("primals_")) {
        auto v = parseIndex(std::string_view(name).substr(8));
        if (v && *v >= 1) return *v - 1;
    }
    return std::nullopt;
}

GraphStats computeGraphStats(const Graph& g, const ParamsInfo* params)
{
    GraphStats s;
    s.nodeCount = g.size();
    s.totalNodeCount = g.size();
    std::map<std::string, int64_t> ops;
    countNested(g, "", s, ops, 0);
    g.forEachNode([&](const Node& n) { s.nodesByKind[std::string(nodeOpName(n.op))]++; });

    s.opHistogram.reserve(ops.size());
    for (const auto& [t, c] : ops) s.opHistogram.push_back({t, c});
    std::stable_sort(s.opHistogram.begin(), s.opHistogram.end(),
                     [](const OpCount& a, const OpCount& b) { return a.count > b.count; });

    // --- parameters
    const std::vector<NodeId> phs = g.placeholders();
    std::vector<NodeId> paramIds;
    bool anyJointName = false, anyPrimals = false, anyParamDesc = false;
    for (NodeId id : phs) {
        const Node& n = g.node(id);
        if (jointInputIndex(n.name)) anyJointName = true;
        if (n.name.starts_with("primals_")) anyPrimals = true;
        if (n.meta.desc.starts_with("ParamAOTInput") || n.meta.desc.starts_with("BufferAOTInput")) anyParamDesc = true;
    }
    bool describedWeights = false;
    g.forEachNode([&](const Node& n) {
        if (n.op == NodeOp::GetAttr
            && (n.meta.desc.starts_with("ParamAOTInput") || n.meta.desc.starts_with("BufferAOTInput")))
            describedWeights = true;
    });
    if (params) {
        const int lo = params->numDataInputs;
        const int hi = lo + static_cast<int>(params->paramFqns.size());
        for (size_t k = 0; k < phs.size(); ++k) {
            const Node& n = g.node(phs[k]);
            // Partitioned graphs keep the joint names (a backward graph's saved primals_3 is
            // joint input 2); graphs with other names are matched by position.
            std::optional<int> idx = anyJointName ? jointInputIndex(n.name) : std::optional<int>(static_cast<int>(k));
            if (idx && *idx >= lo && *idx < hi) paramIds.push_back(phs[k]);
        }
        s.parameterRule = "params.json: inputs " + std::to_string(lo) + ".." + std::to_string(hi - 1)
            + " of the traced step are parameters (" + std::to_string(lo)
            + " data inputs first); placeholders matched by "
            + (anyJointName ? "joint input index in their name (argN_1 / primals_N+1)" : "position");
    } else if (anyParamDesc || describedWeights) {
        // placeholders, and the weights a torch.export archive holds (read as get_attr nodes)
        g.forEachNode([&](const Node& n) {
            if ((n.op == NodeOp::Placeholder || n.op == NodeOp::GetAttr)
                && (n.meta.desc.starts_with("ParamAOTInput") || n.meta.desc.starts_with("BufferAOTInput")))
                paramIds.push_back(n.id);
        });
        s.parameterRule = describedWeights
            ? "inputs and weights described as ParamAOTInput / BufferAOTInput (a torch.export signature)"
            : "placeholders described as ParamAOTInput / BufferAOTInput";
    } else if (anyPrimals) {
        for (NodeId id : phs)
            if (g.node(id).name.starts_with("primals_")) paramIds.push_back(id);
        s.parameterRule = "primals_* placeholders (AOT forward inputs; without params.json data inputs cannot be "
                          "told apart, so they are included)";
    } else {
        s.parameterRule = "unknown: no params.json, no ParamAOTInput descriptors, no primals_* inputs";
    }
    for (NodeId id : paramIds) {
        const Node& n = g.node(id);
        s.parameterNames.push_back(n.name);
        const std::optional<int64_t> b = valueBytes(n.val);
        if (b)
            s.parameterBytes += *b;
        else
            s.parametersWithoutMeta++;
    }

    // --- activations and the saved set: the memory timeline's accounting (memory_timeline.hpp)
    const MemoryTimeline t = computeMemoryTimeline(g);
    for (const StorageInfo& st : t.storages) {
        if (st.input) continue;
        s.activationTensors++;
        s.activationBytes += st.bytes;
    }
    for (const std::string& u : t.unknownSizes) {
        const NodeId id = g.findByName(u.substr(0, u.find('[')));
        if (id != kNoNode && g.node(id).op != NodeOp::Placeholder && g.node(id).op != NodeOp::GetAttr)
            s.activationsWithoutMeta++;
    }
    s.peakBytes = t.peakBytes;
    s.peakNode = t.peakNode();
    s.hasBoundary = t.boundaryStep >= 0;
    s.boundaryRule = t.boundaryRule;
    s.savedActivations = t.savedActivations();
    s.savedInputs = t.savedInputs();
    s.savedBytes = t.savedBytes;
    s.savedSummary = s.hasBoundary ? savedSummary(t) : std::string();
    return s;
}

std::string parameterTarget(const Node& n)
{
    if (n.op != NodeOp::Placeholder) return {};
    const std::string& d = n.meta.desc;
    if (!d.starts_with("ParamAOTInput(") && !d.starts_with("BufferAOTInput(")) return {};
    const size_t from = d.find("target='");
    if (from == std::string::npos) return {};
    const size_t begin = from + 8;
    const size_t end = d.find('\'', begin);
    return end == std::string::npos ? std::string() : d.substr(begin, end - begin);
}

}  // namespace fxl
