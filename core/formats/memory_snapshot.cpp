#include "core/formats/memory_snapshot.hpp"

#include <fstream>
#include <map>
#include <string_view>
#include <unordered_map>

#include "core/formats/pickle/pickle_reader.hpp"
#include "core/formats/pickle/pickle_writer.hpp"
#include "core/ir/diagnostics.hpp"

namespace fxl {

using pickle::Document;
using pickle::Kind;
using PNode = pickle::NodeId;

const char* traceActionName(TraceAction a)
{
    switch (a) {
    case TraceAction::Alloc: return "alloc";
    case TraceAction::FreeRequested: return "free_requested";
    case TraceAction::FreeCompleted: return "free_completed";
    case TraceAction::SegmentAlloc: return "segment_alloc";
    case TraceAction::SegmentFree: return "segment_free";
    case TraceAction::SegmentMap: return "segment_map";
    case TraceAction::SegmentUnmap: return "segment_unmap";
    case TraceAction::Snapshot: return "snapshot";
    case TraceAction::Oom: return "oom";
    case TraceAction::Other: return "other";
    }
    return "other";
}

namespace { }  // namespace

TraceAction traceActionFrom(std::string_view s)
{
    for (TraceAction a : {TraceAction::Alloc, TraceAction::FreeRequested, TraceAction::FreeCompleted,
                          TraceAction::SegmentAlloc, TraceAction::SegmentFree, TraceAction::SegmentMap,
                          TraceAction::SegmentUnmap, TraceAction::Snapshot, TraceAction::Oom})
        if (s == traceActionName(a)) return a;
    return TraceAction::Other;
}

namespace {

// Walks the pickle's values with the path of each for messages.
class Builder
{
public:
    Builder(const Document& d, const std::string& path, MemorySnapshot& s)
        : d_(d)
        , path_(path)
        , s_(s)
    {
        s_.stacks.emplace_back();  // StackId 0: no frames
    }

    void build()
    {
        const PNode root = d_.root();
        if (d_.kind(root) != Kind::Dict)
            fail("",
                 "expected a dict with segments and device_traces (a CUDA memory snapshot), got " + d_.describe(root));
        const auto segments = d_.get(root, "segments");
        const auto traces = d_.get(root, "device_traces");
        if (!segments && !traces) fail("", "a dict without segments or device_traces: not a CUDA memory snapshot");
        if (segments) {
            const auto segs = list(*segments, "segments");
            s_.segments.reserve(segs.size());
            for (size_t i = 0; i < segs.size(); ++i)
                s_.segments.push_back(segment(segs[i], "segments[" + std::to_string(i) + "]"));
        }
        if (traces) {
            const auto devices = list(*traces, "device_traces");
            s_.deviceTraces.resize(devices.size());
            for (size_t dev = 0; dev < devices.size(); ++dev) {
                const std::string where = "device_traces[" + std::to_string(dev) + "]";
                const auto entries = list(devices[dev], where);
                auto& out = s_.deviceTraces[dev];
                out.reserve(entries.size());
                for (size_t i = 0; i < entries.size(); ++i)
                    out.push_back(entry(entries[i], where + "[" + std::to_string(i) + "]"));
            }
        }
    }

private:
    [[noreturn]] void fail(const std::string& where, const std::string& what) const
    {
        throw InputError(path_, 0, 0, (where.empty() ? std::string("the snapshot") : where) + ": " + what);
    }
    std::span<const PNode> list(PNode v, const std::string& where) const
    {
        if (d_.kind(v) != Kind::List && d_.kind(v) != Kind::Tuple)
            fail(where, "expected a list, got " + d_.describe(v));
        return d_.children(v);
    }
    PNode dict(PNode v, const std::string& where) const
    {
        if (d_.kind(v) != Kind::Dict) fail(where, "expected a dict, got " + d_.describe(v));
        return v;
    }
    std::optional<PNode> field(PNode dict, const char* key) const
    {
        const auto v = d_.get(dict, key);
        if (v && d_.kind(*v) == Kind::None) return std::nullopt;
        return v;
    }
    uint64_t unsignedField(PNode dict, const char* key, const std::string& where, bool required) const
    {
        const auto v = field(dict, key);
        if (!v) {
            if (required) fail(where, std::string("no ") + key);
            return 0;
        }
        const Kind k = d_.kind(*v);
        if (k == Kind::UInt || (k == Kind::Int && d_.toInt(*v) >= 0)) return d_.toUInt(*v);
        fail(where + "." + key, "expected a non-negative integer, got " + d_.describe(*v));
    }
    int64_t intField(PNode dict, const char* key, const std::string& where, int64_t fallback) const
    {
        const auto v = field(dict, key);
        if (!v) return fallback;
        const Kind k = d_.kind(*v);
        if (k == Kind::Int || k == Kind::Bool) return d_.toInt(*v);
        if (k == Kind::UInt) return static_cast<int64_t>(d_.toUInt(*v));  // a stream handle as written
        fail(where + "." + key, "expected an integer, got " + d_.describe(*v));
    }
    // segment_pool_id: a pair of integers (a tuple or a list), absent or None when unknown
    std::optional<std::pair<int64_t, int64_t>> poolId(PNode dict, const std::string& where) const
    {
        const auto v = field(dict, "segment_pool_id");
        if (!v || d_.kind(*v) == Kind::None) return std::nullopt;
        const auto items = d_.children(*v);
        const Kind k = d_.kind(*v);
        if ((k != Kind::Tuple && k != Kind::List) || items.size() != 2 || !d_.isNumber(items[0])
            || !d_.isNumber(items[1]) || d_.kind(items[0]) == Kind::Float || d_.kind(items[1]) == Kind::Float)
            fail(where + ".segment_pool_id", "expected a pair of integers, got " + d_.describe(*v));
        auto num = [&](PNode x) { return d_.kind(x) == Kind::UInt ? static_cast<int64_t>(d_.toUInt(x)) : d_.toInt(x); };
        return std::pair<int64_t, int64_t>{num(items[0]), num(items[1])};
    }
    std::string stringField(PNode dict, const char* key, const std::string& where) const
    {
        const auto v = field(dict, key);
        if (!v) return {};
        if (d_.kind(*v) != Kind::String) fail(where + "." + key, "expected a string, got " + d_.describe(*v));
        return std::string(d_.str(*v));
    }
    // a frame list, once per distinct list (the memo shares them)
    StackId stack(PNode frames, const std::string& where)
    {
        if (const auto it = stackOf_.find(frames); it != stackOf_.end()) return it->second;
        std::vector<uint32_t> ids;
        const auto items = list(frames, where);
        if (items.empty()) return 0;
        ids.reserve(items.size());
        for (size_t i = 0; i < items.size(); ++i) ids.push_back(frame(items[i], where + "[" + std::to_string(i) + "]"));
        // the same frames written again (PyTorch's C++ pickler memoizes strings only): one stack
        auto [it, added] = stackByContent_.emplace(ids, static_cast<StackId>(s_.stacks.size()));
        if (added) s_.stacks.push_back(std::move(ids));
        stackOf_.emplace(frames, it->second);
        return it->second;
    }
    uint32_t frame(PNode v, const std::string& where)
    {
        if (const auto it = frameOf_.find(v); it != frameOf_.end()) return it->second;
        dict(v, where);
        SnapshotFrame f;
        f.filename = stringField(v, "filename", where);
        f.name = stringField(v, "name", where);
        f.line = intField(v, "line", where, 0);
        f.fxNodeName = stringField(v, "fx_node_name", where);
        f.fxNodeOp = stringField(v, "fx_node_op", where);
        f.fxNodeTarget = stringField(v, "fx_node_target", where);
        s_.fxFrames = s_.fxFrames || !f.fxNodeName.empty();
        std::string key = f.filename + '\0' + std::to_string(f.line) + '\0' + f.name + '\0' + f.fxNodeName + '\0'
            + f.fxNodeOp + '\0' + f.fxNodeTarget;
        auto [it, added] = frameByContent_.emplace(std::move(key), static_cast<uint32_t>(s_.frames.size()));
        if (added) s_.frames.push_back(std::move(f));
        frameOf_.emplace(v, it->second);
        return it->second;
    }
    StackId framesOf(PNode d, const std::string& where)
    {
        const auto f = field(d, "frames");
        return f ? stack(*f, where + ".frames") : 0;
    }
    SnapshotSegment segment(PNode v, const std::string& where)
    {
        dict(v, where);
        SnapshotSegment g;
        g.device = intField(v, "device", where, 0);
        g.address = unsignedField(v, "address", where, true);
        g.totalSize = unsignedField(v, "total_size", where, true);
        g.allocatedSize = unsignedField(v, "allocated_size", where, false);
        g.activeSize = unsignedField(v, "active_size", where, false);
        g.requestedSize = unsignedField(v, "requested_size", where, false);
        g.stream = intField(v, "stream", where, 0);
        g.segmentType = stringField(v, "segment_type", where);
        if (const auto e = field(v, "is_expandable"); e && d_.kind(*e) == Kind::Bool) g.expandable = d_.toBool(*e);
        g.poolId = poolId(v, where);
        g.stack = framesOf(v, where);
        if (const auto blocks = field(v, "blocks")) {
            const auto items = list(*blocks, where + ".blocks");
            g.blocks.reserve(items.size());
            for (size_t i = 0; i < items.size(); ++i)
                g.blocks.push_back(block(items[i], where + ".blocks[" + std::to_string(i) + "]"));
        }
        return g;
    }
    SnapshotBlock block(PNode v, const std::string& where)
    {
        dict(v, where);
        SnapshotBlock b;
        b.size = unsignedField(v, "size", where, true);
        b.address = unsignedField(v, "address", where, false);
        b.requestedSize = unsignedField(v, "requested_size", where, false);
        b.state = stringField(v, "state", where);
        b.stack = framesOf(v, where);
        // PyTorch 2.0: a history of the block's allocations; memory_viz takes the first entry's
        // frames and real size
        if (const auto h = field(v, "history")) {
            s_.historyForm = true;
            const auto items = list(*h, where + ".history");
            if (!items.empty()) {
                const std::string first = where + ".history[0]";
                const PNode e = dict(items.front(), first);
                if (!field(v, "requested_size")) b.requestedSize = unsignedField(e, "real_size", first, false);
                if (!b.stack) b.stack = framesOf(e, first);
                if (!field(v, "address")) b.address = unsignedField(e, "addr", first, false);
            }
        }
        if (!field(v, "requested_size") && !b.requestedSize) b.requestedSize = b.size;
        return b;
    }
    TraceEntry entry(PNode v, const std::string& where)
    {
        dict(v, where);
        TraceEntry t;
        t.actionName = stringField(v, "action", where);
        if (t.actionName.empty()) fail(where, "no action");
        t.action = traceActionFrom(t.actionName);
        t.addr = unsignedField(v, "addr", where, false);
        t.size = unsignedField(v, "size", where, false);
        t.stream = intField(v, "stream", where, 0);
        t.timeUs = intField(v, "time_us", where, -1);
        t.poolId = poolId(v, where);
        t.deviceFree = unsignedField(v, "device_free", where, false);
        t.stack = framesOf(v, where);
        if (const auto c = field(v, "compile_context"); c && d_.kind(*c) == Kind::String)
            t.compileContext = std::string(d_.str(*c));
        return t;
    }

    const Document& d_;
    const std::string& path_;
    MemorySnapshot& s_;
    std::unordered_map<PNode, StackId> stackOf_;
    std::unordered_map<PNode, uint32_t> frameOf_;
    std::map<std::vector<uint32_t>, StackId> stackByContent_;
    std::unordered_map<std::string, uint32_t> frameByContent_;
};

}  // namespace

MemorySnapshot memorySnapshotFrom(const Document& doc, const std::string& path)
{
    MemorySnapshot s;
    s.path = path;
    s.pickleProtocol = doc.protocol();
    s.pickleValues = doc.nodeCount();
    Builder(doc, path, s).build();
    return s;
}

MemorySnapshot readMemorySnapshot(const std::string& path, const Progress& progress)
{
    const Document doc = Document::read(path, progress);
    return memorySnapshotFrom(doc, path);
}

bool looksLikePickle(const std::string& path)
{
    std::ifstream f(path, std::ios::binary);
    char head[2] = {0, 0};
    f.read(head, 2);
    return f.gcount() == 2 && static_cast<unsigned char>(head[0]) == 0x80 && head[1] >= 2 && head[1] <= 5;
}

std::string serializeMemorySnapshot(const MemorySnapshot& s)
{
    pickle::Writer w;
    std::vector<int64_t> stackMemo(s.stacks.size(), -1);
    auto frames = [&](StackId id) {
        if (stackMemo[id] >= 0) return w.reference(static_cast<uint32_t>(stackMemo[id]));
        w.beginList();
        for (uint32_t f : s.stacks[id]) {
            const SnapshotFrame& fr = s.frames[f];
            w.beginDict();
            w.string("filename");
            w.string(fr.filename);
            w.string("line");
            w.integer(fr.line);
            w.string("name");
            w.string(fr.name);
            if (!fr.fxNodeName.empty()) {
                w.string("fx_node_op");
                w.string(fr.fxNodeOp);
                w.string("fx_node_name");
                w.string(fr.fxNodeName);
                w.string("fx_node_target");
                w.string(fr.fxNodeTarget);
            }
            w.endDict();
        }
        w.endList();
        stackMemo[id] = w.memoize();
    };
    auto field = [&](const char* k, uint64_t v) {
        w.string(k);
        w.unsignedInteger(v);
    };
    w.beginDict();
    w.string("segments");
    w.beginList();
    for (const SnapshotSegment& g : s.segments) {
        w.beginDict();
        w.string("device");
        w.integer(g.device);
        field("address", g.address);
        field("total_size", g.totalSize);
        field("allocated_size", g.allocatedSize);
        field("active_size", g.activeSize);
        field("requested_size", g.requestedSize);
        w.string("stream");
        w.integer(g.stream);
        w.string("segment_type");
        w.string(g.segmentType.empty() ? "large" : g.segmentType);
        w.string("segment_pool_id");
        w.beginTuple();
        w.integer(g.poolId ? g.poolId->first : 0);
        w.integer(g.poolId ? g.poolId->second : 0);
        w.endTuple();
        w.string("is_expandable");
        w.boolean(g.expandable);
        w.string("frames");
        frames(g.stack);
        w.string("blocks");
        w.beginList();
        for (const SnapshotBlock& b : g.blocks) {
            w.beginDict();
            field("address", b.address);
            field("size", b.size);
            field("requested_size", b.requestedSize);
            w.string("state");
            w.string(b.state);
            w.string("frames");
            frames(b.stack);
            w.endDict();
        }
        w.endList();
        w.endDict();
    }
    w.endList();
    w.string("device_traces");
    w.beginList();
    for (const auto& trace : s.deviceTraces) {
        w.beginList();
        for (const TraceEntry& e : trace) {
            w.beginDict();
            w.string("action");
            w.string(e.action == TraceAction::Other ? e.actionName : std::string(traceActionName(e.action)));
            field("addr", e.addr);
            field("size", e.size);
            w.string("stream");
            w.integer(e.stream);
            if (e.timeUs >= 0) {
                w.string("time_us");
                w.integer(e.timeUs);
            }
            if (e.action == TraceAction::Oom) field("device_free", e.deviceFree);
            w.string("frames");
            frames(e.stack);
            w.string("compile_context");
            w.string(e.compileContext);
            w.endDict();
        }
        w.endList();
    }
    w.endList();
    w.string("allocator_settings");
    w.beginDict();
    w.endDict();
    w.string("external_annotations");
    w.beginList();
    w.endList();
    w.endDict();
    return w.finish();
}

}  // namespace fxl
