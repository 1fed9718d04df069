// The active-memory timeline of a CUDA memory snapshot (core/analysis/snapshot_timeline.hpp)
// against PyTorch's memory visualizer: the cases of its test suite (test/profiler/
// test_memory_viz.js, the calls of its default views; tests/data/snapshots/README.md) as data
// rows, each compared band by band (element, time steps, offsets, size), with the bytes live at
// every step and the peak; the decimation of a 120000-allocation trace; and the snapshot of
// tests/data/snapshots worked out by hand, from every writer.
#include <QtTest>

#include <fstream>

#include <nlohmann/json.hpp>

#include "core/analysis/snapshot_timeline.hpp"
#include "core/formats/memory_snapshot.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_snapshot_timeline {

using namespace fxl;
using json = nlohmann::json;

namespace {

constexpr uint64_t kMiB = 1 << 20;

const json& cases()
{
    static const json c = [] {
        std::ifstream f(fxltest::testDataPath("snapshots/memory_viz_cases.json"));
        return json::parse(f);
    }();
    return c;
}

std::optional<std::pair<int64_t, int64_t>> poolIdOf(const json& j)
{
    const auto it = j.find("segment_pool_id");
    if (it == j.end() || it->is_null()) return std::nullopt;
    return std::pair<int64_t, int64_t>{(*it)[0].get<int64_t>(), (*it)[1].get<int64_t>()};
}

SeriesKind kindOf(const std::string& k)
{
    if (k == "envelope") return SeriesKind::Envelope;
    if (k == "stripe") return SeriesKind::Stripe;
    if (k == "pool_summary") return SeriesKind::PoolSummary;
    if (k == "summary") return SeriesKind::Summary;
    return SeriesKind::Element;
}

// A snapshot as memory_viz's tests write it, in JSON.
MemorySnapshot fromJson(const json& j)
{
    MemorySnapshot s;
    s.stacks.emplace_back();
    for (const json& trace : j.at("device_traces")) {
        auto& out = s.deviceTraces.emplace_back();
        for (const json& e : trace) {
            TraceEntry t;
            t.actionName = e.at("action").get<std::string>();
            t.action = traceActionFrom(t.actionName);
            t.addr = e.value("addr", uint64_t{0});
            t.size = e.value("size", uint64_t{0});
            t.stream = e.value("stream", int64_t{0});
            t.poolId = poolIdOf(e);
            out.push_back(t);
        }
    }
    for (const json& g : j.at("segments")) {
        SnapshotSegment x;
        x.device = g.value("device", int64_t{0});
        x.address = g.at("address").get<uint64_t>();
        x.totalSize = g.at("total_size").get<uint64_t>();
        x.stream = g.value("stream", int64_t{0});
        x.poolId = poolIdOf(g);
        for (const json& b : g.value("blocks", json::array())) {
            SnapshotBlock y;
            y.address = b.at("address").get<uint64_t>();
            y.size = b.at("size").get<uint64_t>();
            y.requestedSize = b.value("requested_size", y.size);
            y.state = b.at("state").get<std::string>();
            x.blocks.push_back(y);
        }
        s.segments.push_back(x);
    }
    return s;
}

}  // namespace

class TestSnapshotTimeline : public QObject
{
    Q_OBJECT

private slots:
    void memoryVizCases_data()
    {
        QTest::addColumn<int>("index");
        for (size_t i = 0; i < cases().size(); ++i)
            QTest::newRow(cases()[i].at("name").get<std::string>().c_str()) << int(i);
    }
    void memoryVizCases()
    {
        QFETCH(int, index);
        const json& c = cases()[static_cast<size_t>(index)];
        const MemorySnapshot s = fromJson(c.at("snapshot"));
        const SnapshotTimeline t = snapshotTimeline(s, c.at("device").get<int64_t>(), c.at("plot_segments").get<bool>(),
                                                    c.at("max_entries").get<size_t>(), c.value("private_pools", false));
        QCOMPARE(t.maxSize, c.at("max_size").get<uint64_t>());
        QCOMPARE(t.elements.size(), c.at("elements_length").get<size_t>());
        QCOMPARE(t.maxAtTime, c.at("max_at_time").get<std::vector<uint64_t>>());
        const json& want = c.at("series");
        QCOMPARE(t.series.size(), want.size());
        for (size_t k = 0; k < want.size(); ++k) {
            const TimelineSeries& got = t.series[k];
            const json& w = want[k];
            const QByteArray where = QByteArray("series ") + QByteArray::number(qulonglong(k));
            QVERIFY2(got.elem == w.at("elem").get<int64_t>(), where.constData());
            if (w.contains("kind")) {  // the private-pool rows say what each band is
                QVERIFY2(got.kind == kindOf(w.at("kind").get<std::string>()), where.constData());
                if (w.contains("pool")) QVERIFY2(got.pool == w.at("pool").get<std::string>(), where.constData());
            }
            QVERIFY2(got.timesteps == w.at("timesteps").get<std::vector<int64_t>>(), where.constData());
            QVERIFY2(got.offsets == w.at("offsets").get<std::vector<uint64_t>>(), where.constData());
            if (w.at("size").is_array())
                QVERIFY2(got.sizes == w.at("size").get<std::vector<uint64_t>>(), where.constData());
            else
                QVERIFY2(got.size == w.at("size").get<uint64_t>(), where.constData());
            QVERIFY2(got.ghost == w.value("ghost", false), where.constData());
        }
    }

    // memory_viz's test of a 120000-allocation trace with nothing drawn: the summarized band
    // keeps 50000 points, its first and last as they were, the bytes per step untouched
    void longTraceDecimated()
    {
        MemorySnapshot s;
        s.stacks.emplace_back();
        auto& tr = s.deviceTraces.emplace_back();
        for (uint64_t i = 0; i < 120000; ++i) {
            TraceEntry e;
            e.action = TraceAction::Alloc;
            e.actionName = "alloc";
            e.addr = 1048576 + i * 1024;
            e.size = 1024;
            tr.push_back(e);
        }
        const SnapshotTimeline t = snapshotTimeline(s, 0, false, 0);
        QCOMPARE(t.maxSize, uint64_t(0));
        QCOMPARE(t.elements.size(), size_t(120000));
        QCOMPARE(t.maxAtTime.size(), size_t(120000));
        QCOMPARE(t.series.size(), size_t(1));
        const TimelineSeries& band = t.series[0];
        QCOMPARE(band.timesteps.size(), size_t(50000));
        QCOMPARE(band.offsets.size(), size_t(50000));
        QCOMPARE(band.sizes.size(), size_t(50000));
        QCOMPARE(band.timesteps.front(), int64_t(0));
        QCOMPARE(band.sizes.front(), uint64_t(1024));
        QCOMPARE(band.timesteps.back(), int64_t(119999));
        QCOMPARE(band.sizes.back(), uint64_t(122880000));
        QCOMPARE(t.peakBytes, uint64_t(122880000));
    }

    // the snapshot of tests/data/snapshots (make_snapshots.py), by hand. Device 0: the 256 KiB
    // block at base+3MiB was allocated before the trace (a ghost, placed first at step 0); then A
    // (1 MiB), B (2 MiB) on top, A freed (B slides down: 1 + 3 steps), A' (512 KiB), B freed
    // (A' slides down).
    void stepByHand_data()
    {
        QTest::addColumn<QString>("file");
        for (const char* f :
             {"step.p2.pickle", "step.p4.pickle", "step.p5.pickle", "step.cpp.pickle", "step.history.pickle"})
            QTest::newRow(f) << QString(f);
    }
    void stepByHand()
    {
        QFETCH(QString, file);
        const MemorySnapshot s = readMemorySnapshot(fxltest::testDataPath("snapshots/" + file.toStdString()).string());
        const SnapshotTimeline t = snapshotTimeline(s, 0);
        // elements: A, B, A' from the trace, and the ghost (the block at base+0 is A', open)
        QCOMPARE(t.elements.size(), size_t(4));
        QVERIFY(t.elements[3].ghost);
        QCOMPARE(t.elements[3].size, uint64_t(256 * 1024));
        // the bytes live after each step (an allocation counts from its own step; a free keeps
        // its bytes through its 1 + 3 steps)
        const uint64_t g = 256 * 1024, a2 = g + 2 * kMiB + kMiB / 2;
        QCOMPARE(t.maxAtTime,
                 (std::vector<uint64_t>{g + kMiB, g + 3 * kMiB, g + 3 * kMiB, g + 3 * kMiB, g + 3 * kMiB, g + 3 * kMiB,
                                        a2, a2, a2, a2, a2}));
        QCOMPARE(t.maxSize, g + 3 * kMiB);
        QCOMPARE(t.peakBytes, g + 3 * kMiB);
        QCOMPARE(t.peakStep, int64_t(1));
        // live at the peak: B, A, the ghost, largest first; B's frames name the FX node
        QCOMPARE(t.liveAtPeak.size(), size_t(3));
        QCOMPARE(t.elements[t.liveAtPeak[0]].size, 2 * kMiB);
        const std::string top = describeElement(s, t.elements[t.liveAtPeak[0]]);
        QVERIFY2(top.starts_with("2 MiB at 0x7f0000100000: "), top.c_str());
        QVERIFY2(top.find("relu torch/nn/functional.py:1500 <- train_step train.py:42") != std::string::npos,
                 top.c_str());
        QCOMPARE(top.find("[fx node relu]") != std::string::npos, !file.contains("history"));
        // device 1: the one block, allocated in the trace at 2^63 + 4096
        const SnapshotTimeline t1 = snapshotTimeline(s, 1);
        QCOMPARE(t1.elements.size(), size_t(1));
        QCOMPARE(t1.elements[0].addr, (uint64_t{1} << 63) + 4096);
        QCOMPARE(t1.peakBytes, uint64_t(4096));
        // the segment view: the 4 MiB segment from the trace
        const SnapshotTimeline ts = snapshotTimeline(s, 0, true);
        QCOMPARE(ts.elements.size(), size_t(1));
        QCOMPARE(ts.peakBytes, 4 * kMiB);
    }
};

FXL_TEST_APPLESS_MAIN(TestSnapshotTimeline)
}  // namespace test_snapshot_timeline
#include "test_snapshot_timeline.moc"
