// Records a run's allocations as a CUDA memory snapshot (core/formats/memory_snapshot.hpp), in
// the format torch.cuda.memory._dump_snapshot writes, so that PyTorch's tools (memory_viz,
// pickle) and `fxlens mem` read fxlens' runs as they read PyTorch's: one trace entry per storage
// the executor's accounting takes in (alloc) or lets go (free_completed), with the node's frame
// (fx_node_name / fx_node_op / fx_node_target, as PyTorch's augment_with_fx_traces writes them;
// the node's source line as the frame below when the graph has one), then a `snapshot` entry.
// fxlens allocates per storage, with no caching allocator: the snapshot has no segments.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <unordered_map>

#include "core/formats/memory_snapshot.hpp"
#include "runtime/exec/executor.hpp"

namespace fxl {

class SnapshotRecorder
{
public:
    // source: the graph file (the frames' filename); device: the trace's device index
    SnapshotRecorder(std::string source, int64_t device);
    void record(const ExecOptions::StorageEvent& e);
    MemorySnapshot finish();  // adds the `snapshot` entry

private:
    StackId stackOf(const Node& n);
    MemorySnapshot s_;
    std::string source_;
    int64_t device_;
    std::unordered_map<const Node*, StackId> stacks_;
    std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace fxl
