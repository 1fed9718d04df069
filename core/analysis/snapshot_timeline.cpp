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
    out.kind = s.kind;
    out.pool = s.pool;
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

SnapshotTimeline snapshotTimeline(const MemorySnapshot& s, int64_t device, bool segments, size_t maxEntries,
                                  bool privatePools)
{
    using PoolId = std::optional<std::pair<int64_t, int64_t>>;
    SnapshotTimeline t;
    t.device = device;
    t.segments = segments;
    t.privatePools = privatePools;
    std::vector<TimelineElement>& el = t.elements;
    const TraceAction allocAction = segments ? TraceAction::SegmentAlloc : TraceAction::Alloc;
    auto isFree = [&](const TraceEntry& e) {
        if (segments) return e.action == TraceAction::SegmentFree;
        // `free` is memory_viz's merged free_requested + free_completed; free_requested alone
        // frees nothing (the block is not reusable until free_completed)
        return e.action == TraceAction::FreeCompleted || (e.action == TraceAction::Other && e.actionName == "free");
    };
    // the device's segments by address: which one holds an address, and its pool
    std::vector<const SnapshotSegment*> bySegment;
    for (const SnapshotSegment& g : s.segments)
        if (g.device == device) bySegment.push_back(&g);
    std::stable_sort(bySegment.begin(), bySegment.end(),
                     [](const SnapshotSegment* a, const SnapshotSegment* b) { return a->address < b->address; });
    auto findPool = [&](uint64_t addr) -> PoolId {
        size_t lo = 0, hi = bySegment.size();
        while (lo < hi) {
            const size_t mid = (lo + hi) / 2;
            const SnapshotSegment& g = *bySegment[mid];
            if (addr < g.address)
                hi = mid;
            else if (addr >= g.address + g.totalSize)
                lo = mid + 1;
            else
                return g.poolId;
        }
        return std::nullopt;
    };
    auto isPrivate = [](const PoolId& p) { return p && !(p->first == 0 && p->second == 0); };
    auto keyOf = [](const PoolId& p, int64_t stream) {
        return std::to_string(p->first) + "," + std::to_string(p->second) + ",s" + std::to_string(stream);
    };
    struct SegmentEvent
    {
        size_t position;
        int64_t delta;
        std::string pool;
    };
    std::vector<SegmentEvent> segmentEvents;  // private pools' segment events, by action position
    // 1. the trace: allocations matched to frees by address
    std::unordered_map<uint64_t, size_t> open;
    std::vector<size_t> actions, initially;
    if (device >= 0 && static_cast<size_t>(device) < s.deviceTraces.size()) {
        const auto& trace = s.deviceTraces[static_cast<size_t>(device)];
        for (size_t i = 0; i < trace.size(); ++i) {
            const TraceEntry& e = trace[i];
            const bool alloc = e.action == allocAction;
            if (privatePools
                && (e.action == TraceAction::SegmentAlloc || e.action == TraceAction::SegmentFree
                    || e.action == TraceAction::SegmentMap || e.action == TraceAction::SegmentUnmap)) {
                // recorded where the action loop reaches it (an alloc of the segment view first)
                const PoolId pid = findPool(e.addr);
                if (isPrivate(pid)) {
                    const bool add = e.action == TraceAction::SegmentAlloc || e.action == TraceAction::SegmentMap;
                    const int64_t size = static_cast<int64_t>(e.size);
                    segmentEvents.push_back(
                        {actions.size() + ((alloc || isFree(e)) ? 1 : 0), add ? size : -size, keyOf(pid, e.stream)});
                }
            }
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
            x.poolId = e.poolId;
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
            x.poolId = g.poolId;
            el.push_back(std::move(x));
            initially.push_back(el.size() - 1);
        }
    }
    for (TimelineElement& e : el) {
        if (!e.poolId) e.poolId = findPool(e.addr);
        if (privatePools && isPrivate(e.poolId)) e.poolKey = keyOf(e.poolId, e.stream);
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
    int64_t totalMem = 0, totalSummarized = 0;
    int64_t step = 0;
    TimelineSeries summarized;
    summarized.kind = SeriesKind::Summary;
    summarized.offsets.push_back(0);
    std::vector<TimelineSeries>& data = t.series;
    // the stack, bottom to top: an element, or a pool's envelope (elem -1), with its series
    struct StackEntry
    {
        long elem;
        size_t series;
        std::string pool;
    };
    std::vector<StackEntry> stack;
    std::vector<char> inSummary(el.size(), 0);
    auto advance = [&](int64_t n) {
        summarized.timesteps.push_back(step);
        summarized.offsets.push_back(static_cast<uint64_t>(totalMem));
        summarized.sizes.push_back(static_cast<uint64_t>(totalSummarized));
        step += n;
        t.maxAtTime.insert(t.maxAtTime.end(), static_cast<size_t>(n),
                           static_cast<uint64_t>(totalMem + totalSummarized));
    };
    auto place = [&](size_t id) {
        TimelineSeries x;
        x.elem = static_cast<int64_t>(id);
        x.timesteps.push_back(step);
        x.offsets.push_back(static_cast<uint64_t>(totalMem));
        x.size = el[id].size;
        x.ghost = el[id].ghost;
        data.push_back(std::move(x));
        stack.push_back({static_cast<long>(id), data.size() - 1, {}});
        totalMem += static_cast<int64_t>(el[id].size);
        el[id].totalAfterAlloc = static_cast<uint64_t>(totalMem + totalSummarized);
        el[id].start = step;
        el[id].end = -1;
    };
    // --- private pools (memory_viz's process_alloc_data, include_private_inactive)
    struct Block
    {
        size_t elem;
        int64_t size, inner;
        size_t stripe;
    };
    struct Pool
    {
        std::string key;
        int64_t max = 0, active = 0, reserved = 0, drawnActive = 0, summarizedActive = 0;
        long envelope = -1, summary = -1;
        std::vector<Block> blocks;
    };
    std::vector<Pool> pools;  // in creation order
    std::unordered_map<std::string, size_t> poolIndex;
    std::vector<char> poolActive(el.size(), 0);
    auto pool = [&](const std::string& key) -> Pool& {
        auto [it, added] = poolIndex.emplace(key, pools.size());
        if (added) {
            Pool created;
            created.key = key;
            pools.push_back(std::move(created));
        }
        return pools[it->second];
    };
    auto envelopeOffset = [&](const Pool& p) {
        return static_cast<int64_t>(data[static_cast<size_t>(p.envelope)].offsets.back());
    };
    auto stackIndexOfPool = [&](const std::string& key) -> long {
        for (size_t j = 0; j < stack.size(); ++j)
            if (stack[j].elem < 0 && stack[j].pool == key) return static_cast<long>(j);
        return -1;
    };
    auto shiftPoolStripes = [&](Pool& p, int64_t delta) {
        for (const Block& b : p.blocks) {
            TimelineSeries& x = data[b.stripe];
            const uint64_t o = x.offsets.back();
            x.timesteps.push_back(step);
            x.offsets.push_back(o);
            x.timesteps.push_back(step + 3);
            x.offsets.push_back(static_cast<uint64_t>(static_cast<int64_t>(o) + delta));
        }
        if (p.summary >= 0) {
            TimelineSeries& x = data[static_cast<size_t>(p.summary)];
            const uint64_t o = x.offsets.back(), z = x.sizes.back();
            x.timesteps.push_back(step);
            x.offsets.push_back(o);
            x.sizes.push_back(z);
            x.timesteps.push_back(step + 3);
            x.offsets.push_back(static_cast<uint64_t>(static_cast<int64_t>(o) + delta));
            x.sizes.push_back(z);
        }
    };
    // slides every stack entry from `from` up by delta over 3 steps (the caller advances)
    auto shiftAbove = [&](size_t from, int64_t delta) {
        for (size_t j = from; j < stack.size(); ++j) {
            TimelineSeries& x = data[stack[j].series];
            const uint64_t o = x.offsets.back();
            x.timesteps.push_back(step);
            x.offsets.push_back(o);
            x.timesteps.push_back(step + 3);
            x.offsets.push_back(static_cast<uint64_t>(static_cast<int64_t>(o) + delta));
            if (!x.sizes.empty()) {
                const uint64_t z = x.sizes.back();
                x.sizes.push_back(z);
                x.sizes.push_back(z);
            }
            if (stack[j].elem < 0)
                if (const auto it = poolIndex.find(stack[j].pool); it != poolIndex.end())
                    shiftPoolStripes(pools[it->second], delta);
        }
    };
    auto shiftAboveNoAnimation = [&](const std::string& key, int64_t delta) {
        const long at = stackIndexOfPool(key);
        if (at < 0) return;
        for (size_t j = static_cast<size_t>(at) + 1; j < stack.size(); ++j) {
            uint64_t& o = data[stack[j].series].offsets.back();
            o = static_cast<uint64_t>(static_cast<int64_t>(o) + delta);
        }
    };
    auto growEnvelope = [&](Pool& p, int64_t target) {
        if (target <= p.max) return;
        const int64_t delta = target - p.max;
        p.max = target;
        TimelineSeries& env = data[static_cast<size_t>(p.envelope)];
        const uint64_t o = env.offsets.back(), z = env.sizes.back();
        env.timesteps.push_back(step);
        env.offsets.push_back(o);
        env.sizes.push_back(z);
        env.timesteps.push_back(step + 3);
        env.offsets.push_back(o);
        env.sizes.push_back(static_cast<uint64_t>(p.max));
        const long at = stackIndexOfPool(p.key);
        if (at >= 0) shiftAbove(static_cast<size_t>(at) + 1, delta);
        totalMem += delta;
        advance(3);
    };
    auto growEnvelopeNoAnimation = [&](Pool& p, int64_t target) {
        if (target <= p.max) return;
        const int64_t delta = target - p.max;
        p.max = target;
        data[static_cast<size_t>(p.envelope)].sizes.back() = static_cast<uint64_t>(p.max);
        totalMem += delta;
        shiftAboveNoAnimation(p.key, delta);
    };
    auto openEnvelope = [&](Pool& p) {
        if (p.envelope >= 0) return;
        TimelineSeries env;
        env.kind = SeriesKind::Envelope;
        env.pool = p.key;
        env.timesteps.push_back(step);
        env.offsets.push_back(static_cast<uint64_t>(totalMem));
        env.sizes.push_back(0);
        data.push_back(std::move(env));
        p.envelope = static_cast<long>(data.size() - 1);
        stack.push_back({-1, data.size() - 1, p.key});
    };
    auto addStripe = [&](Pool& p, size_t id, int64_t at) {
        const int64_t size = static_cast<int64_t>(el[id].size);
        const int64_t inner = p.drawnActive;
        p.drawnActive += size;
        TimelineSeries x;
        x.kind = SeriesKind::Stripe;
        x.pool = p.key;
        x.elem = static_cast<int64_t>(id);
        x.timesteps.push_back(at);
        x.offsets.push_back(static_cast<uint64_t>(envelopeOffset(p) + inner));
        x.size = el[id].size;
        x.ghost = el[id].ghost;
        data.push_back(std::move(x));
        p.blocks.push_back({id, size, inner, data.size() - 1});
    };
    auto updatePoolSummary = [&](Pool& p, int64_t at) {
        if (p.envelope < 0) return;
        const uint64_t base = static_cast<uint64_t>(envelopeOffset(p) + p.drawnActive);
        if (p.summary < 0) {
            TimelineSeries x;
            x.kind = SeriesKind::PoolSummary;
            x.pool = p.key;
            x.timesteps.push_back(at);
            x.offsets.push_back(base);
            x.sizes.push_back(static_cast<uint64_t>(p.summarizedActive));
            data.push_back(std::move(x));
            p.summary = static_cast<long>(data.size() - 1);
        } else {
            TimelineSeries& x = data[static_cast<size_t>(p.summary)];
            x.timesteps.push_back(at);
            x.offsets.push_back(base);
            x.sizes.push_back(static_cast<uint64_t>(p.summarizedActive));
        }
    };
    auto fixStripes = [&] {
        for (Pool& p : pools) {
            if (p.envelope < 0) continue;
            const int64_t base = envelopeOffset(p);
            for (const Block& b : p.blocks)
                for (uint64_t& o : data[b.stripe].offsets) o = static_cast<uint64_t>(base + b.inner);
        }
    };
    for (size_t id : initially) {
        TimelineElement& e = el[id];
        if (!e.poolKey.empty()) {  // pre-loaded into its pool at step 0, without animation
            Pool& p = pool(e.poolKey);
            poolActive[id] = 1;
            openEnvelope(p);
            p.active += static_cast<int64_t>(e.size);
            growEnvelopeNoAnimation(p, std::max(p.active, p.reserved));
            if (e.drawn)
                addStripe(p, id, 0);
            else
                p.summarizedActive += static_cast<int64_t>(e.size);
            e.start = 0;
            e.end = -1;
            continue;
        }
        if (e.drawn) {
            place(id);
        } else {
            totalSummarized += static_cast<int64_t>(e.size);
            inSummary[id] = 1;
            e.start = step;
            e.end = -1;
        }
    }
    if (privatePools) {
        fixStripes();
        for (Pool& p : pools) {
            if (p.envelope < 0 || p.summarizedActive <= 0) continue;
            TimelineSeries x;
            x.kind = SeriesKind::PoolSummary;
            x.pool = p.key;
            x.timesteps.push_back(0);
            x.offsets.push_back(static_cast<uint64_t>(envelopeOffset(p) + p.drawnActive));
            x.sizes.push_back(static_cast<uint64_t>(p.summarizedActive));
            data.push_back(std::move(x));
            p.summary = static_cast<long>(data.size() - 1);
        }
        // each pool's reserved bytes at the start of the trace: the snapshot's, less what the
        // trace's segment events added since
        std::vector<std::pair<std::string, int64_t>> reserved;
        for (const SnapshotSegment* g : bySegment) {
            if (!isPrivate(g->poolId)) continue;
            const std::string key = keyOf(g->poolId, g->stream);
            auto it = std::find_if(reserved.begin(), reserved.end(), [&](const auto& r) { return r.first == key; });
            if (it == reserved.end())
                reserved.emplace_back(key, static_cast<int64_t>(g->totalSize));
            else
                it->second += static_cast<int64_t>(g->totalSize);
        }
        for (auto& [key, bytes] : reserved) {
            for (const SegmentEvent& se : segmentEvents)
                if (se.pool == key) bytes -= se.delta;
            Pool& p = pool(key);
            p.reserved = bytes;
            if (p.envelope >= 0) growEnvelopeNoAnimation(p, p.reserved);
        }
        fixStripes();
    }
    size_t nextSegmentEvent = 0;
    auto applySegmentEvent = [&] {
        const SegmentEvent& se = segmentEvents[nextSegmentEvent++];
        Pool& p = pool(se.pool);
        p.reserved += se.delta;
        if (p.envelope >= 0) growEnvelope(p, p.reserved);
    };
    for (size_t ai = 0; ai < actions.size(); ++ai) {
        while (nextSegmentEvent < segmentEvents.size() && segmentEvents[nextSegmentEvent].position <= ai)
            applySegmentEvent();
        const size_t id = actions[ai];
        TimelineElement& e = el[id];
        const int64_t size = static_cast<int64_t>(e.size);
        if (!e.poolKey.empty()) {
            Pool& p = pool(e.poolKey);
            if (!poolActive[id]) {  // an allocation in the pool
                poolActive[id] = 1;
                openEnvelope(p);
                p.active += size;
                growEnvelope(p, std::max(p.active, p.reserved));
                if (e.drawn) {
                    addStripe(p, id, step);
                    if (p.summary >= 0) updatePoolSummary(p, step);
                } else {
                    p.summarizedActive += size;
                    updatePoolSummary(p, step);
                }
                e.start = step;
                e.end = -1;
                advance(1);
                e.totalAfterAlloc = static_cast<uint64_t>(totalMem + totalSummarized);
            } else {  // its free: the envelope keeps its height
                const auto b =
                    std::find_if(p.blocks.begin(), p.blocks.end(), [&](const Block& x) { return x.elem == id; });
                if (b != p.blocks.end()) {
                    advance(1);
                    TimelineSeries& mine = data[b->stripe];
                    mine.timesteps.push_back(step);
                    mine.offsets.push_back(mine.offsets.back());
                    const size_t k = static_cast<size_t>(b - p.blocks.begin());
                    p.blocks.erase(b);
                    p.active -= size;
                    p.drawnActive -= size;
                    if (k < p.blocks.size() || p.summary >= 0) {
                        for (size_t j = k; j < p.blocks.size(); ++j) {
                            Block& above = p.blocks[j];
                            above.inner -= size;
                            TimelineSeries& x = data[above.stripe];
                            const uint64_t o = x.offsets.back();
                            x.timesteps.push_back(step);
                            x.offsets.push_back(o);
                            x.timesteps.push_back(step + 3);
                            x.offsets.push_back(static_cast<uint64_t>(envelopeOffset(p) + above.inner));
                        }
                        if (p.summary >= 0) updatePoolSummary(p, step);
                        advance(3);
                    }
                } else {
                    p.active -= size;
                    p.summarizedActive -= size;
                    updatePoolSummary(p, step);
                    advance(1);
                }
                poolActive[id] = 0;
                e.end = step;
            }
            t.maxSize = std::max(t.maxSize, static_cast<uint64_t>(totalMem + totalSummarized));
            continue;
        }
        if (!e.drawn) {
            if (inSummary[id]) {
                advance(1);
                totalSummarized -= size;
                inSummary[id] = 0;
                e.end = step;
            } else {
                totalSummarized += size;
                inSummary[id] = 1;
                e.totalAfterAlloc = static_cast<uint64_t>(totalMem + totalSummarized);
                e.start = step;
                e.end = -1;
                advance(1);
            }
            continue;
        }
        const auto at = std::find_if(stack.rbegin(), stack.rend(),
                                     [&](const StackEntry& x) { return x.elem == static_cast<long>(id); });
        if (at == stack.rend()) {
            place(id);
            advance(1);
        } else {
            const size_t k = static_cast<size_t>(stack.rend() - at) - 1;
            advance(1);
            TimelineSeries& mine = data[stack[k].series];
            mine.timesteps.push_back(step);
            mine.offsets.push_back(mine.offsets.back());
            stack.erase(stack.begin() + static_cast<long>(k));
            if (k < stack.size()) {
                shiftAbove(k, -size);
                advance(3);
            }
            totalMem -= size;
            e.end = step;
        }
        t.maxSize = std::max(t.maxSize, static_cast<uint64_t>(totalMem + totalSummarized));
    }
    while (nextSegmentEvent < segmentEvents.size()) {
        applySegmentEvent();
        t.maxSize = std::max(t.maxSize, static_cast<uint64_t>(totalMem + totalSummarized));
    }
    for (const StackEntry& x : stack) {
        TimelineSeries& series = data[x.series];
        series.timesteps.push_back(step);
        series.offsets.push_back(series.offsets.back());
        if (!series.sizes.empty()) series.sizes.push_back(series.sizes.back());
    }
    for (Pool& p : pools) {
        for (const Block& b : p.blocks) {
            TimelineSeries& x = data[b.stripe];
            x.timesteps.push_back(step);
            x.offsets.push_back(x.offsets.back());
        }
        if (p.summary >= 0) {
            TimelineSeries& x = data[static_cast<size_t>(p.summary)];
            x.timesteps.push_back(step);
            x.offsets.push_back(x.offsets.back());
            x.sizes.push_back(x.sizes.back());
        }
    }
    summarized.elem = -1;
    data.push_back(std::move(summarized));
    for (TimelineSeries& x : data) decimate(x);
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
