#include "core/analysis/snapshot_compare.hpp"

#include <algorithm>
#include <map>

namespace fxl {

std::string allocationSite(const MemorySnapshot& s, const TimelineElement& e)
{
    const auto& st = s.stacks.at(e.stack);
    for (uint32_t f : st)
        if (!s.frames[f].fxNodeName.empty()) return "fx node " + s.frames[f].fxNodeName;
    if (st.empty()) return "(no frames)";
    const SnapshotFrame& f = s.frames[st.front()];
    return f.name + " " + f.filename + (f.line > 0 ? ":" + std::to_string(f.line) : "");
}

SnapshotComparison compareSnapshots(const MemorySnapshot& a, const SnapshotTimeline& ta, const MemorySnapshot& b,
                                    const SnapshotTimeline& tb)
{
    SnapshotComparison c;
    c.peakA = ta.peakBytes;
    c.peakB = tb.peakBytes;
    c.peakStepA = ta.peakStep;
    c.peakStepB = tb.peakStep;
    c.byFxNode = a.fxFrames && b.fxFrames;
    std::map<std::string, SiteComparison> sites;
    for (int side = 0; side < 2; ++side) {
        const MemorySnapshot& s = side ? b : a;
        const SnapshotTimeline& t = side ? tb : ta;
        std::vector<char> live(t.elements.size(), 0);
        for (size_t id : t.liveAtPeak) live[id] = 1;
        for (size_t id = 0; id < t.elements.size(); ++id) {
            const TimelineElement& e = t.elements[id];
            SiteComparison& x = sites[allocationSite(s, e)];
            (side ? x.allocatedB : x.allocatedA) += e.size;
            ++(side ? x.countB : x.countA);
            if (live[id]) (side ? x.atPeakB : x.atPeakA) += e.size;
        }
    }
    for (auto& [name, x] : sites) {
        x.site = name;
        if (x.countA && x.countB)
            ++c.bothSites;
        else if (x.countA)
            ++c.onlyA;
        else
            ++c.onlyB;
        c.sites.push_back(x);
    }
    auto diff = [](const SiteComparison& x) {
        return x.allocatedA > x.allocatedB ? x.allocatedA - x.allocatedB : x.allocatedB - x.allocatedA;
    };
    std::stable_sort(c.sites.begin(), c.sites.end(),
                     [&](const SiteComparison& x, const SiteComparison& y) { return diff(x) > diff(y); });
    return c;
}

}  // namespace fxl
