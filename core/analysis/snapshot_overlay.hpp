// A CUDA memory snapshot of a graph's run laid over that graph's estimated memory timeline
// (memory_timeline.hpp): each allocation the snapshot's trace recorded is matched to the FX node
// that made it, by the `fx_node_name` of its frames where they carry one, else by allocation
// order against the estimate's storages (the executor allocates in node order), and the match
// rate is reported; then the estimate and the measurement side by side: their peaks and, per
// node, the bytes each says the node allocated.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/analysis/memory_timeline.hpp"
#include "core/analysis/snapshot_timeline.hpp"

namespace fxl {

struct OverlayNode
{
    NodeId node = kNoNode;
    int64_t estimatedBytes = 0;  // the node's storages in the estimate
    uint64_t measuredBytes = 0;  // the snapshot's allocations matched to it
    size_t estimatedAllocations = 0, measuredAllocations = 0;
};

struct SnapshotOverlay
{
    size_t allocations = 0;  // recorded by the trace (not those from before it)
    size_t byName = 0, byOrder = 0;  // matched
    size_t unmatched() const { return allocations - byName - byOrder; }
    int64_t estimatedPeak = 0;
    std::string estimatedPeakNode;
    uint64_t measuredPeak = 0;
    int64_t measuredPeakStep = 0;
    std::string measuredPeakNode;  // the node of the last allocation live at the peak
    std::vector<OverlayNode> nodes;  // graph order; nodes with an estimate or a measurement
    std::vector<NodeId> elementNode;  // per timeline element: its node (kNoNode: unmatched)
};

SnapshotOverlay overlaySnapshot(const Graph& g, const MemoryTimeline& estimate, const MemorySnapshot& s,
                                const SnapshotTimeline& measured);

}  // namespace fxl
