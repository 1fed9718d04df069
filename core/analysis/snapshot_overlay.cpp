#include "core/analysis/snapshot_overlay.hpp"

#include <algorithm>
#include <map>

#include "core/ir/graph.hpp"

namespace fxl {

SnapshotOverlay overlaySnapshot(const Graph& g, const MemoryTimeline& estimate, const MemorySnapshot& s,
                                const SnapshotTimeline& measured)
{
    SnapshotOverlay o;
    const auto& el = measured.elements;
    o.elementNode.assign(el.size(), kNoNode);
    // by name: the innermost frame that names an FX node of this graph
    std::vector<char> nodeNamed(g.size(), 0);
    for (size_t i = 0; i < el.size(); ++i) {
        if (el[i].traceIndex < 0 || el[i].initiallyAllocated) continue;
        ++o.allocations;
        for (uint32_t f : s.stacks.at(el[i].stack)) {
            const std::string& name = s.frames[f].fxNodeName;
            if (name.empty()) continue;
            const NodeId n = g.findByName(name);
            if (n == kNoNode) continue;
            o.elementNode[i] = n;
            nodeNamed[static_cast<size_t>(n)] = 1;
            ++o.byName;
            break;
        }
    }
    // by order: the rest against the storages of the nodes no allocation named, in order
    std::vector<NodeId> storageNodes;
    for (const StorageInfo& st : estimate.storages)
        if (st.bytes > 0 && !nodeNamed[static_cast<size_t>(st.node)]) storageNodes.push_back(st.node);
    size_t next = 0;
    for (size_t i = 0; i < el.size() && next < storageNodes.size(); ++i) {
        if (el[i].traceIndex < 0 || el[i].initiallyAllocated || o.elementNode[i] != kNoNode) continue;
        o.elementNode[i] = storageNodes[next++];
        ++o.byOrder;
    }
    // side by side
    std::map<NodeId, OverlayNode> per;
    for (const StorageInfo& st : estimate.storages) {
        OverlayNode& n = per[st.node];
        n.node = st.node;
        n.estimatedBytes += st.bytes;
        ++n.estimatedAllocations;
    }
    for (size_t i = 0; i < el.size(); ++i) {
        if (o.elementNode[i] == kNoNode) continue;
        OverlayNode& n = per[o.elementNode[i]];
        n.node = o.elementNode[i];
        n.measuredBytes += el[i].size;
        ++n.measuredAllocations;
    }
    std::vector<std::pair<size_t, OverlayNode>> ordered;
    for (auto& [id, n] : per) ordered.emplace_back(g.positionOf(id), n);
    std::sort(ordered.begin(), ordered.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (auto& [pos, n] : ordered) o.nodes.push_back(n);
    o.estimatedPeak = estimate.peakBytes;
    o.estimatedPeakNode = estimate.peakNode();
    o.measuredPeak = measured.peakBytes;
    o.measuredPeakStep = measured.peakStep;
    int64_t latest = -1;
    for (size_t id : measured.liveAtPeak)
        if (el[id].start > latest && o.elementNode[id] != kNoNode) {
            latest = el[id].start;
            o.measuredPeakNode = g.node(o.elementNode[id]).name;
        }
    return o;
}

}  // namespace fxl
