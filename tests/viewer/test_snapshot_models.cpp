// The window's CUDA memory snapshot models (viewer/model/snapshot_timeline_model.hpp,
// snapshot_overlay_model.hpp, snapshot_compare_model.hpp) under Qt's model tester, against the
// core analyses and `fxlens mem --json` for the same files; the snapshot jobs
// (viewer/jobs/snapshot_jobs.hpp): a result delivered, an unreadable file reported with its
// reason, a read cancelled midway, progress reported in the pickle's bytes.
#include <QAbstractItemModelTester>
#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

#include "app/cli_test_util.hpp"
#include "core/formats/memory_snapshot.hpp"
#include "core/formats/source.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"
#include "viewer/jobs/snapshot_jobs.hpp"
#include "viewer/jobs/view_jobs.hpp"
#include "viewer/model/snapshot_compare_model.hpp"
#include "viewer/model/snapshot_overlay_model.hpp"
#include "viewer/model/snapshot_timeline_model.hpp"

namespace test_snapshot_models {

using namespace fxl;
using namespace fxl::viewer;
using namespace clitest;

namespace {

QString snap(const char* file)
{
    return QString::fromStdString(fxltest::testDataPath(std::string("snapshots/") + file).string());
}
QString data(const char* rel) { return QString::fromStdString(fxltest::testDataPath(rel).string()); }

std::shared_ptr<const Graph> loadGraph(const QString& path)
{
    std::shared_ptr<Source> src = openSource(path.toStdString());
    return ViewJobs::prepareNow(src, src->graphs().front()->id)->graph;
}

// a snapshot of `allocations` 512-byte allocations, each freed, on device 0: a pickle of a few MB
QString bigSnapshot(const QTemporaryDir& dir, size_t allocations)
{
    MemorySnapshot s;
    s.stacks.emplace_back();
    s.frames.push_back({"model.py", "forward", 7, "mm", "call_function", "aten.mm.default"});
    s.stacks.push_back({0});
    s.deviceTraces.emplace_back();
    for (size_t i = 0; i < allocations; ++i) {
        TraceEntry a;
        a.action = TraceAction::Alloc;
        a.actionName = "alloc";
        a.addr = 0x7f0000000000 + i * 512;
        a.size = 512;
        a.stack = 1;
        s.deviceTraces[0].push_back(a);
        if (i % 2 == 1) {
            TraceEntry f = a;
            f.action = TraceAction::FreeCompleted;
            f.actionName = "free_completed";
            s.deviceTraces[0].push_back(f);
        }
    }
    const QString path = dir.filePath("big.pickle");
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly)) return {};
    const std::string bytes = serializeMemorySnapshot(s);
    f.write(bytes.data(), static_cast<qint64>(bytes.size()));
    return path;
}

QJsonObject jsonOf(const Run& r) { return QJsonDocument::fromJson(r.out).object(); }

// the bands a model lists: the series, less a summarized band that never holds a byte
int bandRows(const SnapshotTimeline& t)
{
    const bool emptySummary = !t.series.empty() && t.series.back().elem < 0
        && std::all_of(t.series.back().sizes.begin(), t.series.back().sizes.end(), [](uint64_t v) { return v == 0; });
    return static_cast<int>(t.series.size()) - (emptySummary ? 1 : 0);
}

}  // namespace

class TestSnapshotModels : public QObject
{
    Q_OBJECT

private slots:
    // S1-S4 on the test snapshot whose timeline tests/core/analysis works out by hand
    void timelineModel()
    {
        const auto s = SnapshotJobs::readNow(snap("step.p2.pickle"));
        QCOMPARE(s->devices, (std::vector<int64_t>{0, 1}));
        SnapshotTimelineModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(m.rowCount(), 0);
        m.setSnapshot(s, 0);
        const SnapshotTimeline& t = *s->timelines[0];
        QCOMPARE(m.rowCount(), bandRows(t));
        QVERIFY(m.rowCount() >= 4);
        QCOMPARE(m.steps(), qint64(11));  // `fxlens mem step.p2.pickle --json`: steps 11
        QCOMPARE(m.maxBytes(), uint64_t(3407872));  // peak_bytes
        QVERIFY2(m.peakLabel().startsWith(QStringLiteral("peak 3.25 MiB at step 1")), qPrintable(m.peakLabel()));
        // every band is found where it is drawn: in the middle of its first segment
        int found = 0;
        for (int r = 0; r < m.rowCount(); ++r) {
            const TimelineSeries& b = t.series[static_cast<size_t>(r)];
            if (b.timesteps.size() < 2 || b.elem < 0) continue;
            const double step = (static_cast<double>(b.timesteps[0]) + static_cast<double>(b.timesteps[1])) / 2;
            const double lo = static_cast<double>(b.offsets[0] + b.offsets[1]) / 2;
            QCOMPARE(m.bandAt(step, lo + static_cast<double>(b.size) / 2), r);
            ++found;
        }
        QVERIFY(found >= 3);
        QCOMPARE(m.bandAt(0, -1), -1);
        QCOMPARE(m.bandAt(5, 1e15), -1);  // above every band
        // the 2 MiB band: its FX node and frames
        int relu = -1;
        for (int r = 0; r < m.rowCount(); ++r)
            if (m.data(m.index(r, SnapshotTimelineModel::SizeColumn), SnapshotTimelineModel::BytesRole).toLongLong()
                == 2 * 1024 * 1024)
                relu = r;
        QVERIFY(relu >= 0);
        QCOMPARE(m.data(m.index(relu, SnapshotTimelineModel::FxNodeColumn)).toString(), QStringLiteral("relu"));
        const QString text = m.bandText(relu);
        QVERIFY2(text.contains(QStringLiteral("FX node relu")) && text.contains(QStringLiteral("functional.py:1500")),
                 qPrintable(text));
        // the 1 MiB band of mm is freed where its band ends, before the band above it slid
        // down over it (maxAtTime counts it until then)
        const auto mm = m.match(m.index(0, SnapshotTimelineModel::FxNodeColumn), Qt::DisplayRole, QStringLiteral("mm"),
                                1, Qt::MatchExactly);
        QCOMPARE(mm.size(), 1);
        const TimelineSeries& mmBand = t.series[static_cast<size_t>(mm[0].row())];
        QCOMPARE(m.data(m.index(mm[0].row(), SnapshotTimelineModel::FreedColumn)).toString(),
                 QString::number(mmBand.timesteps.back()));
        QVERIFY(mmBand.timesteps.back() < t.elements[static_cast<size_t>(mmBand.elem)].end);
        QVERIFY2(m.bandText(mm[0].row()).contains(QStringLiteral("freed at step %1").arg(mmBand.timesteps.back())),
                 qPrintable(m.bandText(mm[0].row())));
        // the other device, then nothing
        m.setDeviceIndex(1);
        QCOMPARE(m.device(), qint64(1));
        QCOMPARE(m.rowCount(), bandRows(*s->timelines[1]));
        m.clear();
        QCOMPARE(m.rowCount(), 0);
        QCOMPARE(m.bandAt(1, 1), -1);
    }

    // memory_viz's detail limit: beyond the largest maxEntries, one summarized band
    void summarizedBand()
    {
        const auto s = SnapshotJobs::readNow(snap("step.p4.pickle"), {}, 1);
        SnapshotTimelineModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setSnapshot(s, 0);
        QVERIFY(m.rowCount() >= 2);
        const int last = m.rowCount() - 1;
        QCOMPARE(m.data(m.index(last, 0), SnapshotTimelineModel::ElementRole).toInt(), -1);
        QCOMPARE(m.data(m.index(last, SnapshotTimelineModel::BandColumn)).toString(), QStringLiteral("summarized"));
        QVERIFY2(m.bandText(last).contains(QStringLiteral("summarized")), qPrintable(m.bandText(last)));
        QCOMPARE(m.maxBytes(), uint64_t(3407872));  // the peak does not depend on the detail
    }

    // the overlay model against `fxlens mem GRAPH --snapshot SNAP --json` for the same files
    void overlayModel()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("mlp.pickle");
        const QString mlp = data("pytorch/mlp_gelu.joint.code.py"), t5 = data("models/t5_bias.joint.code.py");
        QVERIFY(fxlens({"run", mlp, "--memory-snapshot", path}).exitCode == 0);
        const Run cli = fxlens({"mem", t5, "--snapshot", path, "--json"});
        QVERIFY2(cli.exitCode == 0, qPrintable(describe(cli)));
        const QJsonObject j = jsonOf(cli);
        const auto result = SnapshotJobs::overlayNow(SnapshotJobs::readNow(path), loadGraph(t5), "t5");
        SnapshotOverlayModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setOverlay(result, 0);
        const SnapshotOverlay& o = *m.overlay();
        QCOMPARE(m.matchRate(), j.value("match_rate").toDouble());
        QCOMPARE(qint64(o.byName), j.value("matched_by_fx_node_name").toInteger());
        QCOMPARE(qint64(o.byOrder), j.value("matched_by_order").toInteger());
        QCOMPARE(qint64(o.estimatedPeak), j.value("estimated_peak_bytes").toInteger());
        QCOMPARE(qint64(o.measuredPeak), j.value("measured_peak_bytes").toInteger());
        QCOMPARE(m.rowCount(), j.value("nodes").toArray().size());
        // largest difference first; every node of the CLI's list is a row with its numbers
        qint64 before = std::numeric_limits<qint64>::max();
        for (int r = 0; r < m.rowCount(); ++r) {
            const qint64 d =
                std::llabs(m.data(m.index(r, SnapshotOverlayModel::DifferenceColumn), SnapshotOverlayModel::BytesRole)
                               .toLongLong());
            QVERIFY(d <= before);
            before = d;
        }
        QVERIFY(m.differing() > 0);
        for (const QJsonValue& v : j.value("nodes").toArray()) {
            const QJsonObject n = v.toObject();
            const auto rows = m.match(m.index(0, 0), Qt::DisplayRole, n.value("node").toString(), 1, Qt::MatchExactly);
            QCOMPARE(rows.size(), 1);
            QCOMPARE(
                m.data(m.index(rows[0].row(), SnapshotOverlayModel::MeasuredColumn), SnapshotOverlayModel::BytesRole)
                    .toLongLong(),
                n.value("measured_bytes").toInteger());
            QCOMPARE(
                m.data(m.index(rows[0].row(), SnapshotOverlayModel::EstimatedColumn), SnapshotOverlayModel::BytesRole)
                    .toLongLong(),
                n.value("estimated_bytes").toInteger());
        }
        QVERIFY2(m.summary().contains(QStringLiteral("(100.0%)")), qPrintable(m.summary()));
        m.clear();
        QCOMPARE(m.rowCount(), 0);
        QCOMPARE(m.matchRate(), 0.0);
    }

    // the compare model against `fxlens mem A --compare B --json`
    void compareModel()
    {
        QTemporaryDir dir;
        const QString a = dir.filePath("a.pickle"), b = dir.filePath("b.pickle");
        QVERIFY(fxlens({"run", data("pytorch/mlp_gelu.joint.code.py"), "--memory-snapshot", a}).exitCode == 0);
        QVERIFY(fxlens({"run", data("models/t5_bias.joint.code.py"), "--memory-snapshot", b}).exitCode == 0);
        const Run cli = fxlens({"mem", a, "--compare", b, "--json"});
        QVERIFY2(cli.exitCode == 0, qPrintable(describe(cli)));
        const QJsonObject j = jsonOf(cli);
        SnapshotCompareModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setComparison(SnapshotJobs::compareNow(SnapshotJobs::readNow(a), SnapshotJobs::readNow(b)), 0);
        QCOMPARE(qint64(m.comparison()->peakA), j.value("peak_a").toInteger());
        QCOMPARE(qint64(m.comparison()->peakB), j.value("peak_b").toInteger());
        const QJsonArray sites = j.value("sites").toArray();
        QCOMPARE(m.rowCount(), sites.size());
        for (int r = 0; r < m.rowCount(); ++r) {
            const QJsonObject o = sites[r].toObject();
            QCOMPARE(m.data(m.index(r, SnapshotCompareModel::SiteColumn)).toString(), o.value("site").toString());
            QCOMPARE(m.data(m.index(r, SnapshotCompareModel::DifferenceColumn), SnapshotCompareModel::BytesRole)
                         .toLongLong(),
                     o.value("allocated_b").toInteger() - o.value("allocated_a").toInteger());
        }
        QVERIFY(m.differing() > 0);
        QVERIFY2(m.summary().contains(QStringLiteral("aligned by FX node")), qPrintable(m.summary()));
    }

    // the jobs: a result, an error with the file and its reason, a cancel midway, progress
    void jobs()
    {
        SnapshotJobs jobs;
        QSignalSpy ok(&jobs, &SnapshotJobs::snapshotAvailable), failed(&jobs, &SnapshotJobs::failed),
            cancelled(&jobs, &SnapshotJobs::cancelled), finished(&jobs, &SnapshotJobs::finished);
        jobs.read(snap("step.p5.pickle"));
        QVERIFY(jobs.busy());
        QTRY_COMPARE(finished.size(), 1);
        QCOMPARE(ok.size(), 1);
        QVERIFY(!jobs.busy());

        QTemporaryDir dir;
        const QString broken = dir.filePath("broken.pickle");
        QFile in(snap("step.p2.pickle"));
        QVERIFY(in.open(QIODevice::ReadOnly));
        QFile out(broken);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(in.read(200));  // a pickle cut short
        out.close();
        jobs.read(broken);
        QTRY_COMPARE(finished.size(), 2);
        QCOMPARE(failed.size(), 1);
        const QString message = failed[0][2].toString();
        QVERIFY2(message.contains(QStringLiteral("broken.pickle")), qPrintable(message));

        // a large one: progress in bytes, and a cancel stops it where it is
        const QString big = bigSnapshot(dir, 100000);
        QVERIFY(!big.isEmpty());
        std::atomic<bool> stop{false};
        int64_t reports = 0, total = 0;
        Progress p;
        p.cancel = &stop;
        p.report = [&](int64_t done, int64_t t, std::string_view) {
            ++reports;
            total = t;
            if (done > t / 4) stop = true;
        };
        QVERIFY_THROWS_EXCEPTION(CancelledError, SnapshotJobs::readNow(big, p));
        QVERIFY(reports >= 2);
        QCOMPARE(total, static_cast<int64_t>(QFileInfo(big).size()));
        // through the job: cancelled at once, nothing delivered
        QSignalSpy progress(&jobs, &SnapshotJobs::progress);
        jobs.read(big);
        jobs.cancel(SnapshotJobs::Read);
        QCOMPARE(cancelled.size(), 1);
        QTest::qWait(300);
        QCOMPARE(ok.size(), 1);
        QVERIFY(!jobs.busy());
        // and read to its end: every allocation there
        jobs.read(big);
        QTRY_COMPARE_WITH_TIMEOUT(ok.size(), 2, 60000);
        const auto s = ok[1][1].value<std::shared_ptr<const LoadedSnapshot>>();
        QVERIFY(s);
        QCOMPARE(s->timelines[0]->elements.size(), size_t(100000));
        QVERIFY(progress.size() >= 2);
    }
};

FXL_TEST_MAIN(TestSnapshotModels)
}  // namespace test_snapshot_models
#include "test_snapshot_models.moc"
