#include "core/analysis/snapshot_timeline.hpp"

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <unordered_map>

#include "core/util/format.hpp"

namespace fxl {

namespace {

// Keeps at most about kMemoryVizMaxPoints points of a long band: per bucket the points with the
// lowest and highest bottom and top, and the first and last points.
void decimate(TimelineSeries& s)
{
    const size_t n = s.timesteps.size();
    if (n <= kMemoryVizMaxPoints) return;
    const bool perPoint = !s.sizes.empty();
    auto top = [&](size_t i) { return s.offsets[i] + (perPoint ? s.sizes[i] : s.size); };
    const size_t buckets = kMemoryVizMaxPoints / 4;
    std::vector<char> keep(n, 0);
    keep[0] = keep[n - 1] = 1;
    for (size_t b = 0; b < buckets; ++b) {
        const size_t lo = b * n / buckets, hi = (b + 1) * n / buckets;
        if (lo >= hi) continue;
        size_t minO = lo, maxO = lo, minT = lo, maxT = lo;
        for (size_t i = lo; i < hi; ++i) {
            if (s.offsets[i] < s.offsets[minO]) minO = i;
            if (s.offsets[i] > s.offsets[maxO]) maxO = i;
            if (top(i) < top(minT)) minT = i;
            if (top(i) > top(maxT)) maxT = i;
        }
        keep[minO] = keep[maxO] = keep[minT] = keep[maxT] = 1;
    }
    TimelineSeries out;
    out.elem = s.elem;
    out.size = s.size;
    out.ghost = s.ghost;
    for (size_t i = 0; i < n; ++i) {
        if (!keep[i]) continue;
        out.timesteps.push_back(s.timesteps[i]);
        out.offsets.push_back(s.offsets[i]);
        if (perPoint) out.sizes.push_back(s.sizes[i]);
    }
    s = std::move(out);
}

}  // namespace

SnapshotTimeline snapshotTimeline(const MemorySnapshot& s, int64_t device, bool segments, size_t maxEntries)
{
    SnapshotTimeline t;
    t.device = device;
    t.segments = segments;
    std::vector<TimelineElement>& el = t.elements;
    const TraceAction allocAction = segments ? TraceAction::SegmentAlloc : TraceAction::Alloc;
    auto isFree = [&](const TraceEntry& e) {
        if (segments) return e.action == TraceAction::SegmentFree;
        // `free` is memory_viz's merged free_requested + free_completed; free_requested alone
        // frees nothing (the block is not reusable until free_completed)
        return e.action == TraceAction::FreeCompleted || (e.action == TraceAction::Other && e.actionName == "free");
    };
    // 1. the trace: allocations matched to frees by address
    std::unordered_map<uint64_t, size_t> open;
    std::vector<size_t> actions, initially;
    if (device >= 0 && static_cast<size_t>(device) < s.deviceTraces.size()) {
        const auto& trace = s.deviceTraces[static_cast<size_t>(device)];
        for (size_t i = 0; i < trace.size(); ++i) {
            const TraceEntry& e = trace[i];
            const bool alloc = e.action == allocAction;
            if (!alloc && !isFree(e)) continue;
            if (!alloc) {
                if (const auto it = open.find(e.addr); it != open.end()) {
                    actions.push_back(it->second);
                    open.erase(it);
                    continue;
                }
            }
            TimelineElement x;
            x.action = e.actionName;
            x.addr = e.addr;
            x.size = e.size;
            x.stream = e.stream;
            x.stack = e.stack;
            x.timeUs = e.timeUs;
            x.traceIndex = static_cast<int64_t>(i);
            el.push_back(std::move(x));
            const size_t id = el.size() - 1;
            if (alloc) {
                open[e.addr] = id;
            } else {  // freed, never allocated in the trace: allocated before it began
                el[id].initiallyAllocated = true;
                initially.push_back(id);
            }
            actions.push_back(id);
        }
    }
    // 2. what the snapshot shows allocated that the trace did not open
    for (const SnapshotSegment& g : s.segments) {
        if (g.device != device) continue;
        if (segments) {
            if (open.count(g.address)) continue;
            TimelineElement x;
            x.action = "segment_alloc";
            x.addr = g.address;
            x.size = g.totalSize;
            x.stream = g.stream;
            x.initiallyAllocated = true;
            el.push_back(std::move(x));
            initially.push_back(el.size() - 1);
            continue;
        }
        for (const SnapshotBlock& b : g.blocks) {
            if (b.state != "active_allocated" || open.count(b.address)) continue;
            TimelineElement x;
            x.action = "alloc";
            x.addr = b.address;
            x.size = b.requestedSize;
            x.stream = g.stream;
            x.stack = b.stack;
            x.ghost = true;
            x.initiallyAllocated = true;
            el.push_back(std::move(x));
            initially.push_back(el.size() - 1);
        }
    }
    std::reverse(initially.begin(), initially.end());
    if (actions.empty() && !initially.empty()) {
        actions.push_back(initially.back());
        initially.pop_back();
        el[actions.back()].initiallyAllocated = false;
    }
    // 3. the largest maxEntries are drawn (a stable sort: ties in element order)
    {
        std::vector<size_t> bySize(el.size());
        std::iota(bySize.begin(), bySize.end(), size_t{0});
        std::stable_sort(bySize.begin(), bySize.end(), [&](size_t a, size_t b) { return el[a].size > el[b].size; });
        for (size_t k = 0; k < std::min(maxEntries, bySize.size()); ++k) el[bySize[k]].drawn = true;
    }
    // 4. the stacked bands
    uint64_t totalMem = 0, totalSummarized = 0;
    int64_t step = 0;
    TimelineSeries summarized;
    summarized.offsets.push_back(0);
    std::vector<size_t> stack;  // element ids, bottom to top
    std::vector<long> seriesOf(el.size(), -1);
    std::vector<char> inSummary(el.size(), 0);
    auto advance = [&](int64_t n) {
        summarized.timesteps.push_back(step);
        summarized.offsets.push_back(totalMem);
        summarized.sizes.push_back(totalSummarized);
        step += n;
        t.maxAtTime.insert(t.maxAtTime.end(), static_cast<size_t>(n), totalMem + totalSummarized);
    };
    auto place = [&](size_t id) {
        TimelineSeries x;
        x.elem = static_cast<int64_t>(id);
        x.timesteps.push_back(step);
        x.offsets.push_back(totalMem);
        x.size = el[id].size;
        x.ghost = el[id].ghost;
        t.series.push_back(std::move(x));
        seriesOf[id] = static_cast<long>(t.series.size() - 1);
        stack.push_back(id);
        totalMem += el[id].size;
        el[id].totalAfterAlloc = totalMem + totalSummarized;
        el[id].start = step;
        el[id].end = -1;
    };
    for (size_t id : initially) {
        if (el[id].drawn) {
            place(id);
        } else {
            totalSummarized += el[id].size;
            inSummary[id] = 1;
            el[id].start = step;
            el[id].end = -1;
        }
    }
    for (size_t id : actions) {
        TimelineElement& e = el[id];
        if (!e.drawn) {
            if (inSummary[id]) {
                advance(1);
                totalSummarized -= e.size;
                inSummary[id] = 0;
                e.end = step;
            } else {
                totalSummarized += e.size;
                inSummary[id] = 1;
                e.totalAfterAlloc = totalMem + totalSummarized;
                e.start = step;
                e.end = -1;
                advance(1);
            }
            continue;
        }
        const auto at = std::find(stack.rbegin(), stack.rend(), id);
        if (at == stack.rend()) {
            place(id);
            advance(1);
        } else {
            const size_t k = static_cast<size_t>(stack.rend() - at) - 1;
            advance(1);
            TimelineSeries& mine = t.series[static_cast<size_t>(seriesOf[id])];
            mine.timesteps.push_back(step);
            mine.offsets.push_back(mine.offsets.back());
            stack.erase(stack.begin() + static_cast<long>(k));
            if (k < stack.size()) {
                for (size_t j = k; j < stack.size(); ++j) {
                    TimelineSeries& above = t.series[static_cast<size_t>(seriesOf[stack[j]])];
                    const uint64_t o = above.offsets.back();
                    above.timesteps.push_back(step);
                    above.offsets.push_back(o);
                    above.timesteps.push_back(step + 3);
                    above.offsets.push_back(o - e.size);
                }
                advance(3);
            }
            totalMem -= e.size;
            e.end = step;
        }
        t.maxSize = std::max(t.maxSize, totalMem + totalSummarized);
    }
    for (size_t id : stack) {
        TimelineSeries& x = t.series[static_cast<size_t>(seriesOf[id])];
        x.timesteps.push_back(step);
        x.offsets.push_back(x.offsets.back());
    }
    summarized.elem = -1;
    t.series.push_back(std::move(summarized));
    for (TimelineSeries& x : t.series) decimate(x);
    // fxlens: the peak and what is live there
    for (TimelineElement& e : el)
        if (e.end < 0) e.end = step;
    for (size_t i = 0; i < t.maxAtTime.size(); ++i)
        if (t.maxAtTime[i] > t.peakBytes) {
            t.peakBytes = t.maxAtTime[i];
            t.peakStep = static_cast<int64_t>(i);
        }
    if (!t.maxAtTime.empty()) {
        for (size_t id = 0; id < el.size(); ++id)
            if (el[id].start <= t.peakStep && t.peakStep < el[id].end) t.liveAtPeak.push_back(id);
        std::stable_sort(t.liveAtPeak.begin(), t.liveAtPeak.end(),
                         [&](size_t a, size_t b) { return el[a].size > el[b].size; });
    }
    return t;
}

std::string describeElement(const MemorySnapshot& s, const TimelineElement& e, size_t frames)
{
    char addr[32];
    std::snprintf(addr, sizeof addr, "0x%llx", static_cast<unsigned long long>(e.addr));
    std::string out = formatByteSize(static_cast<int64_t>(e.size)) + " at " + addr;
    if (e.stream) out += " (stream " + std::to_string(e.stream) + ")";
    if (e.ghost)
        out += ", allocated before the trace (from the snapshot's blocks)";
    else if (e.initiallyAllocated)
        out += ", allocated before the trace (its free was recorded)";
    const auto& st = s.stacks.at(e.stack);
    if (st.empty()) return out + ": no frames recorded";
    out += ":";
    std::string fx;
    for (uint32_t f : st)
        if (fx.empty() && !s.frames[f].fxNodeName.empty()) fx = s.frames[f].fxNodeName;
    if (!fx.empty()) out += " [fx node " + fx + "]";
    for (size_t k = 0; k < std::min(frames, st.size()); ++k) {
        const SnapshotFrame& f = s.frames[st[k]];
        out += (k ? " <- " : " ") + f.name + " " + f.filename + (f.line > 0 ? ":" + std::to_string(f.line) : "");
    }
    if (st.size() > frames) out += " <- ...";
    return out;
}

}  // namespace fxl
