// Two CUDA memory snapshots compared (two steps, two runs, a graph before and after a pass):
// their active-memory timelines (snapshot_timeline.hpp) aligned by what made each allocation
// (the FX node its frames name, else its innermost frame), with the peaks side by side and, per
// allocation site, the bytes each allocated and the bytes each had live at its own peak.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/analysis/snapshot_timeline.hpp"

namespace fxl {

struct SiteComparison
{
    std::string site;  // "fx node mm_2", or "relu torch/nn/functional.py:1500", or "(no frames)"
    uint64_t allocatedA = 0, allocatedB = 0;  // bytes allocated over the trace
    size_t countA = 0, countB = 0;
    uint64_t atPeakA = 0, atPeakB = 0;  // bytes live at each one's peak
};

struct SnapshotComparison
{
    uint64_t peakA = 0, peakB = 0;
    int64_t peakStepA = 0, peakStepB = 0;
    size_t bothSites = 0, onlyA = 0, onlyB = 0;
    bool byFxNode = false;  // sites are FX nodes in both
    std::vector<SiteComparison> sites;  // largest |allocated difference| first, then by name
};

// The allocation site of an element: its FX node where a frame names one, else its innermost
// frame, else "(no frames)".
std::string allocationSite(const MemorySnapshot& s, const TimelineElement& e);

SnapshotComparison compareSnapshots(const MemorySnapshot& a, const SnapshotTimeline& ta, const MemorySnapshot& b,
                                    const SnapshotTimeline& tb);

}  // namespace fxl
