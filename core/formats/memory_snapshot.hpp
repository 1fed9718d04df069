// CUDA memory snapshots as PyTorch writes them (torch.cuda.memory._dump_snapshot, the C++
// writer of torch/csrc/cuda/memory_snapshot.cpp): the allocator's segments with their blocks,
// and per device the trace of allocator events, each with the Python stack that caused it.
// Read through the restricted unpickler (pickle/pickle_reader.hpp): no Python object is ever
// built. Stacks are kept once per distinct frame list (the pickle's memo shares them).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/util/progress.hpp"

namespace fxl {

namespace pickle {
class Document;
}

struct SnapshotFrame
{
    std::string filename, name;
    int64_t line = 0;
    // with torch.cuda.memory._record_memory_history(augment_with_fx_traces=True): the FX node
    // whose code the frame runs (empty otherwise)
    std::string fxNodeName, fxNodeOp, fxNodeTarget;
};

using StackId = uint32_t;  // index into MemorySnapshot::stacks; 0 is the empty stack

struct SnapshotBlock
{
    uint64_t address = 0, size = 0, requestedSize = 0;
    std::string state;  // active_allocated, active_pending_free, inactive
    StackId stack = 0;
};

struct SnapshotSegment
{
    int64_t device = 0;
    uint64_t address = 0, totalSize = 0, allocatedSize = 0, activeSize = 0, requestedSize = 0;
    int64_t stream = 0;
    std::string segmentType;  // large, small
    bool expandable = false;
    // segment_pool_id: (0, 0) the default pool, anything else a private pool (CUDA graphs, MemPool)
    std::optional<std::pair<int64_t, int64_t>> poolId;
    StackId stack = 0;
    std::vector<SnapshotBlock> blocks;
};

enum class TraceAction
{
    Alloc,
    FreeRequested,
    FreeCompleted,
    SegmentAlloc,
    SegmentFree,
    SegmentMap,
    SegmentUnmap,
    Snapshot,
    Oom,
    Other,  // an action this reader does not know: kept, named in `actionName`, not interpreted
};
const char* traceActionName(TraceAction a);
TraceAction traceActionFrom(std::string_view name);  // Other for a name not known

struct TraceEntry
{
    TraceAction action = TraceAction::Other;
    std::string actionName;  // as written
    uint64_t addr = 0, size = 0;
    int64_t stream = 0;
    int64_t timeUs = -1;  // -1: not recorded (before PyTorch 2.2)
    uint64_t deviceFree = 0;  // oom: the free bytes the device reported
    StackId stack = 0;
    std::string compileContext;
    std::optional<std::pair<int64_t, int64_t>> poolId;  // on the event itself (newer PyTorch), else unknown
};

struct MemorySnapshot
{
    std::string path;
    int pickleProtocol = 0;
    std::vector<SnapshotSegment> segments;
    std::vector<std::vector<TraceEntry>> deviceTraces;  // per device index
    std::vector<SnapshotFrame> frames;
    std::vector<std::vector<uint32_t>> stacks;  // frame indices, innermost first as written
    bool historyForm = false;  // blocks carry PyTorch 2.0's `history` instead of `frames`
    bool fxFrames = false;  // some frame names an FX node
    size_t pickleValues = 0;  // values in the pickle (its memo shares many)
};

// Throws InputError: the pickle's errors (byte offset), or the structure's with the path of
// the offending value ("device_traces[0][17].size: expected an integer, got the string 'x'").
// `progress` counts the pickle's bytes read; cancelled, it throws CancelledError.
MemorySnapshot readMemorySnapshot(const std::string& path, const Progress& progress = {});
MemorySnapshot memorySnapshotFrom(const pickle::Document& doc, const std::string& path);

// The snapshot as PyTorch writes it (a pickle of protocol 2, frame lists shared): Python's
// pickle, memory_viz and readMemorySnapshot read it.
std::string serializeMemorySnapshot(const MemorySnapshot& s);

// Whether the file starts as a pickle of protocol 2 or later does (PROTO): how `fxlens mem`
// tells a snapshot from a graph.
bool looksLikePickle(const std::string& path);

}  // namespace fxl
