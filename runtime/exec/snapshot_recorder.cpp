#include "runtime/exec/snapshot_recorder.hpp"

#include "core/ir/graph.hpp"

namespace fxl {

SnapshotRecorder::SnapshotRecorder(std::string source, int64_t device)
    : source_(std::move(source))
    , device_(device)
{
    s_.path = source_;
    s_.stacks.emplace_back();
    s_.deviceTraces.resize(static_cast<size_t>(device_) + 1);
}

StackId SnapshotRecorder::stackOf(const Node& n)
{
    if (const auto it = stacks_.find(&n); it != stacks_.end()) return it->second;
    std::vector<uint32_t> st;
    SnapshotFrame f;
    f.filename = source_;
    f.name = n.name;
    f.fxNodeName = n.name;
    f.fxNodeOp = std::string(nodeOpName(n.op));
    f.fxNodeTarget = n.target;
    s_.frames.push_back(std::move(f));
    st.push_back(static_cast<uint32_t>(s_.frames.size() - 1));
    if (!n.meta.source.empty()) {
        SnapshotFrame u;
        u.filename = n.meta.source.file;
        u.line = n.meta.source.line;
        u.name = n.meta.source.function;
        s_.frames.push_back(std::move(u));
        st.push_back(static_cast<uint32_t>(s_.frames.size() - 1));
    }
    s_.stacks.push_back(std::move(st));
    s_.fxFrames = true;
    const StackId id = static_cast<StackId>(s_.stacks.size() - 1);
    stacks_.emplace(&n, id);
    return id;
}

void SnapshotRecorder::record(const ExecOptions::StorageEvent& e)
{
    TraceEntry t;
    t.action = e.alloc ? TraceAction::Alloc : TraceAction::FreeCompleted;
    t.actionName = traceActionName(t.action);
    t.addr = e.address;
    t.size = static_cast<uint64_t>(e.bytes);
    t.timeUs = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start_).count();
    if (e.node) t.stack = stackOf(*e.node);
    s_.deviceTraces[static_cast<size_t>(device_)].push_back(std::move(t));
}

MemorySnapshot SnapshotRecorder::finish()
{
    TraceEntry t;
    t.action = TraceAction::Snapshot;
    t.actionName = "snapshot";
    t.timeUs = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start_).count();
    s_.deviceTraces[static_cast<size_t>(device_)].push_back(std::move(t));
    return std::move(s_);
}

}  // namespace fxl
