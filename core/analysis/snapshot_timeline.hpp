// The active-memory timeline of a CUDA memory snapshot (memory_snapshot.hpp), by the rules of
// PyTorch's memory visualizer (memory_viz, torch/utils/viz): its "Active Memory Timeline" and
// "Active Cached Segment Timeline", so that fxlens and memory_viz draw the same picture and
// report the same peak; docs/memory.md section 5 lists the rules. Allocations are matched to
// frees by address (a reused address starts a new allocation); an unmatched free, and a block
// the snapshot shows allocated that no trace event opened, were allocated before the trace
// began. The largest `maxEntries` allocations are drawn as bands stacked in allocation order
// (a freed band's upper neighbours slide down over 3 steps); the others are summed in one band.
// The x axis counts steps (an allocation 1, a free 1 or 4), not time.
//
// With `privatePools`, memory_viz's "Allocated Memory (incl. Private Pools)" view: each private
// pool (a segment_pool_id other than (0, 0), as CUDA graphs and MemPool make) is one envelope
// on the stack whose height is the larger of its reserved bytes (the snapshot's segments, the
// trace's segment events) and its live bytes, and only grows; its allocations are stripes
// inside it and its small ones one summary stripe. Without it, private-pool blocks count as
// ordinary blocks, as in memory_viz's default view.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/formats/memory_snapshot.hpp"

namespace fxl {

struct TimelineElement
{
    std::string action;  // alloc / segment_alloc; free_completed for an unmatched free
    uint64_t addr = 0, size = 0;
    int64_t stream = 0;
    StackId stack = 0;
    int64_t timeUs = -1;
    int64_t traceIndex = -1;  // the trace entry; -1 for one made from the snapshot's blocks
    bool ghost = false;  // from a block the snapshot shows allocated
    bool initiallyAllocated = false;  // allocated before the trace began
    bool drawn = false;  // among the largest maxEntries
    std::optional<std::pair<int64_t, int64_t>> poolId;  // from the event, else the segment holding it
    std::string poolKey;  // "1,7,s0": the private pool (and stream) it is drawn in; "" outside pools
    uint64_t totalAfterAlloc = 0;  // all bytes live once it was allocated
    // the steps during which it counts in maxAtTime: [start, end); end = steps when never freed
    int64_t start = 0, end = 0;
};

enum class SeriesKind
{
    Element,  // an allocation on the stack (size constant)
    Summary,  // the summarized band (elem -1, a size per point), always the last series
    Envelope,  // a private pool's envelope (a size per point)
    Stripe,  // an allocation inside a pool's envelope (size constant)
    PoolSummary,  // a pool's small allocations, on top of its stripes (a size per point)
};

// One band: an element's (size constant) or the summarized one's (elem -1, a size per point).
struct TimelineSeries
{
    SeriesKind kind = SeriesKind::Element;
    std::string pool;  // Envelope, Stripe, PoolSummary: the pool's key
    int64_t elem = -1;
    std::vector<int64_t> timesteps;
    std::vector<uint64_t> offsets;
    uint64_t size = 0;
    std::vector<uint64_t> sizes;  // the summarized band
    bool ghost = false;
};

struct SnapshotTimeline
{
    int64_t device = 0;
    bool segments = false;  // the cached-segment timeline
    bool privatePools = false;  // the view with private pools' envelopes
    std::vector<TimelineElement> elements;
    std::vector<TimelineSeries> series;  // memory_viz's allocations_over_time; the summarized band last
    std::vector<uint64_t> maxAtTime;  // bytes live at each step
    uint64_t maxSize = 0;  // memory_viz's max_size (after drawn actions only)
    // fxlens: the largest of maxAtTime, its first step, and the elements live there (largest first)
    uint64_t peakBytes = 0;
    int64_t peakStep = 0;
    std::vector<size_t> liveAtPeak;
};

inline constexpr size_t kMemoryVizMaxEntries = 15000;  // memory_viz's detail default
inline constexpr size_t kMemoryVizMaxPoints = 100000;  // a band with more points is decimated

SnapshotTimeline snapshotTimeline(const MemorySnapshot& s, int64_t device, bool segments = false,
                                  size_t maxEntries = kMemoryVizMaxEntries, bool privatePools = false);

// "Addr: b'7f0000000000_0, Size: 1.0MiB"-like one-line summary of an element and its
// innermost frames, for the CLI and the window.
std::string describeElement(const MemorySnapshot& s, const TimelineElement& e, size_t frames = 3);

}  // namespace fxl
