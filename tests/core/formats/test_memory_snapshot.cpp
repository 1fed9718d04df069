// CUDA memory snapshots read through the restricted unpickler (core/formats/memory_snapshot.hpp):
// the snapshot of tests/data/snapshots from every writer (Python's pickle 2 / 4 / 5, PyTorch's
// C++ pickler, PyTorch 2.0's history form) read to the same segments, blocks, trace and
// stacks, FX node names from augmented frames; and a snapshot of the wrong shape refused with
// the path of the value ("device_traces[0][1].size: ...").
#include <QtTest>

#include <string>

#include "core/formats/memory_snapshot.hpp"
#include "core/formats/pickle/pickle_reader.hpp"
#include "core/ir/diagnostics.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_memory_snapshot {

using namespace fxl;

namespace {

constexpr uint64_t kMiB = 1 << 20;
constexpr uint64_t kBase = 0x7F0000000000;

// A few pickle values by hand (protocol 2), for the snapshots of the wrong shape.
QByteArray str(const char* s) { return QByteArray("\x8c", 1) + char(strlen(s)) + QByteArray(s); }
QByteArray num(int v) { return QByteArray("J", 1) + QByteArray(reinterpret_cast<const char*>(&v), 4); }
QByteArray list(const QList<QByteArray>& items)
{
    QByteArray b("](", 2);
    for (const QByteArray& i : items) b += i;
    return b + "e";
}
QByteArray dict(const QList<std::pair<const char*, QByteArray>>& items)
{
    QByteArray b("}(", 2);
    for (const auto& [k, v] : items) b += str(k) + v;
    return b + "u";
}
MemorySnapshot parse(const QByteArray& value)
{
    const QByteArray b = QByteArray("\x80\x02", 2) + value + ".";
    const auto d =
        pickle::Document::parse({reinterpret_cast<const uint8_t*>(b.constData()), size_t(b.size())}, "s.pickle");
    return memorySnapshotFrom(d, "s.pickle");
}

}  // namespace

class TestMemorySnapshot : public QObject
{
    Q_OBJECT

private slots:
    void writers_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("python protocol 2") << "step.p2.pickle";
        QTest::newRow("python protocol 4") << "step.p4.pickle";
        QTest::newRow("python protocol 5") << "step.p5.pickle";
        QTest::newRow("C++ pickler") << "step.cpp.pickle";
        QTest::newRow("PyTorch 2.0 history") << "step.history.pickle";
    }
    void writers()
    {
        QFETCH(QString, file);
        const bool history = file.contains("history");
        const MemorySnapshot s = readMemorySnapshot(fxltest::testDataPath("snapshots/" + file.toStdString()).string());
        QCOMPARE(s.historyForm, history);
        QCOMPARE(s.fxFrames, !history);
        QCOMPARE(s.segments.size(), size_t(2));
        const SnapshotSegment& g = s.segments[0];
        QCOMPARE(g.address, kBase);
        QCOMPARE(g.totalSize, 4 * kMiB);
        QCOMPARE(g.segmentType, std::string("large"));
        QCOMPARE(g.blocks.size(), size_t(4));
        QCOMPARE(g.blocks[0].state, std::string("active_allocated"));
        QCOMPARE(g.blocks[0].requestedSize, uint64_t(500 * 1024));
        QCOMPARE(g.blocks[2].address, kBase + 3 * kMiB);
        QCOMPARE(s.segments[1].device, int64_t(1));
        QCOMPARE(s.segments[1].address, (uint64_t{1} << 63) + 4096);
        // the blocks' stacks: the frames of the allocation, innermost first
        const auto& st = s.stacks[g.blocks[2].stack];
        QCOMPARE(st.size(), size_t(2));
        QCOMPARE(s.frames[st[0]].filename, std::string("model.py"));
        QCOMPARE(s.frames[st[1]].name, std::string("train_step"));
        QCOMPARE(g.blocks[1].stack, StackId(0));  // an inactive block: no frames
        // the trace
        QCOMPARE(s.deviceTraces.size(), size_t(2));
        const auto& t = s.deviceTraces[0];
        QCOMPARE(t.size(), size_t(9));
        QCOMPARE(t[0].action, TraceAction::SegmentAlloc);
        QCOMPARE(t[1].action, TraceAction::Alloc);
        QCOMPARE(t[3].action, TraceAction::FreeRequested);
        QCOMPARE(t[4].action, TraceAction::FreeCompleted);
        QCOMPARE(t[8].action, TraceAction::Snapshot);
        QCOMPARE(t[2].size, 2 * kMiB);
        QCOMPARE(t[2].timeUs, int64_t(1002));
        QCOMPARE(t[2].compileContext, std::string("N/A"));
        // a frame list written once per use (the C++ pickler) or shared (Python's memo): one
        // stack either way
        QCOMPARE(t[1].stack, t[3].stack);
        QVERIFY(t[1].stack != t[2].stack);
        const SnapshotFrame& top = s.frames[s.stacks[t[2].stack][0]];
        QCOMPARE(top.name, std::string("relu"));
        QCOMPARE(top.fxNodeName, history ? std::string() : std::string("relu"));
        QCOMPARE(top.fxNodeTarget, history ? std::string() : std::string("aten.relu.default"));
        // distinct frames: train, linear, relu, grad, model __init__ (and none repeated)
        QCOMPARE(s.frames.size(), size_t(5));
    }

    void wrongShapes_data()
    {
        QTest::addColumn<QByteArray>("value");
        QTest::addColumn<QString>("message");
        QTest::newRow("not a dict") << list({}) << "the snapshot: expected a dict with segments and device_traces";
        QTest::newRow("no snapshot keys")
            << dict({{"a", num(1)}}) << "the snapshot: a dict without segments or device_traces";
        QTest::newRow("segments not a list")
            << dict({{"segments", num(5)}}) << "segments: expected a list, got the integer 5";
        QTest::newRow("segment without address")
            << dict({{"segments", list({dict({{"total_size", num(1)}})})}}) << "segments[0]: no address";
        QTest::newRow("negative size")
            << dict({{"device_traces", list({list({dict({{"action", str("alloc")}, {"size", num(-4)}})})})}})
            << "device_traces[0][0].size: expected a non-negative integer, got the integer -4";
        QTest::newRow("entry without action")
            << dict({{"device_traces", list({list({dict({{"size", num(4)}})})})}}) << "device_traces[0][0]: no action";
        QTest::newRow("frame not a dict")
            << dict({{"device_traces", list({list({dict({{"action", str("alloc")}, {"frames", list({num(3)})}})})})}})
            << "device_traces[0][0].frames[0]: expected a dict, got the integer 3";
        QTest::newRow("filename not a string")
            << dict({{"device_traces",
                      list({list(
                          {dict({{"action", str("alloc")}, {"frames", list({dict({{"filename", num(3)}})})}})})})}})
            << "device_traces[0][0].frames[0].filename: expected a string, got the integer 3";
    }
    void wrongShapes()
    {
        QFETCH(QByteArray, value);
        QFETCH(QString, message);
        try {
            (void)parse(value);
            QFAIL("accepted");
        } catch (const InputError& e) {
            QVERIFY2(QString::fromStdString(e.diagnostic().message).startsWith(message),
                     qPrintable(QString::fromStdString(e.diagnostic().message)));
        }
    }

    // an unknown action is kept, named, and not interpreted; missing optional fields default
    void tolerant()
    {
        const MemorySnapshot s =
            parse(dict({{"device_traces", list({list({dict({{"action", str("workspace_snapshot")}})})})}}));
        QCOMPARE(s.deviceTraces[0][0].action, TraceAction::Other);
        QCOMPARE(s.deviceTraces[0][0].actionName, std::string("workspace_snapshot"));
        QCOMPARE(s.deviceTraces[0][0].timeUs, int64_t(-1));
        QVERIFY(s.segments.empty());
    }

    void looksLikePickleByItsFirstBytes()
    {
        QVERIFY(looksLikePickle(fxltest::testDataPath("snapshots/step.p4.pickle").string()));
        QVERIFY(!looksLikePickle(fxltest::testDataPath("snapshots/make_snapshots.py").string()));
    }
};

FXL_TEST_APPLESS_MAIN(TestMemorySnapshot)
}  // namespace test_memory_snapshot
#include "test_memory_snapshot.moc"
