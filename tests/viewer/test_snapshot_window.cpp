// CUDA memory snapshots in the window as a user drives them (viewer/widgets/snapshot_panel.hpp):
// File > Open of a snapshot shows its timeline in the Memory snapshot tab; hovering a band shows
// its size, FX node and frames; a drag zooms and Esc (or Memory > Show every step) shows every
// step again; the device selector switches devices; Memory > Compare the graph with a snapshot
// gives the match rate and peaks `fxlens mem GRAPH --snapshot SNAP --json` gives for the same
// files; Memory > Compare with another snapshot lists the sites that differ as
// `fxlens mem A --compare B --json` does; a broken pickle and a pickle that is no snapshot are
// reported in a message box and change nothing; a large one is cancelled from the status bar. Screenshots of each page
// go to the build directory's tests/ (snapshot_timeline.png, snapshot_overlay.png, snapshot_compare.png).
#include <QComboBox>
#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QProgressBar>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QToolButton>
#include <QtTest>

#include "app/cli_test_util.hpp"
#include "core/formats/memory_snapshot.hpp"
#include "gui_test_util.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"
#include "viewer/model/snapshot_compare_model.hpp"
#include "viewer/model/snapshot_overlay_model.hpp"
#include "viewer/model/snapshot_timeline_model.hpp"
#include "viewer/widgets/main_window.hpp"
#include "viewer/widgets/snapshot_compare_page.hpp"
#include "viewer/widgets/snapshot_overlay_page.hpp"
#include "viewer/widgets/snapshot_panel.hpp"
#include "viewer/widgets/snapshot_view.hpp"
#include "window_driver.hpp"

namespace test_snapshot_window {

using namespace fxl;
using namespace fxl::viewer;
using guitest::DialogDriver;

namespace {

QString snap(const char* file)
{
    return QString::fromStdString(fxltest::testDataPath(std::string("snapshots/") + file).string());
}
QString data(const char* rel) { return QString::fromStdString(fxltest::testDataPath(rel).string()); }
QJsonObject jsonOf(const clitest::Run& r) { return QJsonDocument::fromJson(r.out).object(); }
QString example()
{
    return bundledExamplesDir() + QStringLiteral("/gpt2_tiny.joint.code.py");  // the source tree's copy
}

// the bundled example's remat step, written by `fxlens passes run` into `dir` ("" on failure)
QString rematStep(const QTemporaryDir& dir)
{
    const clitest::Run r =
        clitest::fxlens({"passes", "run", example(), "--pipeline", "remove_detach,sac(policy=alternate_mm),remat,dce",
                         "--out", dir.filePath("steps")});
    const QString step = dir.filePath("steps/03_remat.py");
    return r.exitCode == 0 && QFileInfo::exists(step) ? step : QString();
}

struct Window
{
    MainWindow w;
    DialogDriver driver;

    Window()
    {
        w.setQuietErrors(true);
        w.resize(1366, 768);
        w.show();
    }
    bool trigger(const QString& path)
    {
        QAction* a = guitest::findAction(w, path);
        if (!a) return false;
        a->trigger();
        return w.waitIdle();
    }
    SnapshotPanel* panel() const { return w.snapshotPanel(); }
    SnapshotView* view() const { return panel()->view(); }
};

// A screenshot of the window in focus mode (F11: the central tabs alone, no docks)
void shot(Window& s, const char* name)
{
    s.w.setFocusMode(true);
    guitest::saveShot(s.w, name);
    s.w.setFocusMode(false);
}

// File > Open, the file dialog answered with `path`
bool openByMenu(Window& s, const QString& path)
{
    s.driver.answerFile(path);
    return s.trigger(QStringLiteral("File > Open"));
}

}  // namespace

class TestSnapshotWindow : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase() { guitest::initWindowTests(); }

    // Memory > Include private pools: memory_viz's view incl. private pools, as `fxlens mem
    // --private-pools` computes it (the pool's envelope of 8 MiB, the peak 9 MiB against 7 MiB);
    // unchecked, the default view again; a snapshot without private pools says it has none
    void privatePoolsView()
    {
        Window s;
        QVERIFY(QTest::qWaitForWindowExposed(&s.w));
        QAction* pools =
            guitest::findAction(s.w, QStringLiteral("Memory > Include private pools in the snapshot timeline"));
        QVERIFY(pools);
        QVERIFY(openByMenu(s, snap("step.p2.pickle")));
        pools->trigger();  // a snapshot without private pools: says so, stays in the default view
        QVERIFY2(s.w.lastError().contains("step.p2.pickle has no private pool"), qPrintable(s.w.lastError()));
        QVERIFY(!pools->isChecked());
        QVERIFY(openByMenu(s, snap("pools.p4.pickle")));
        SnapshotTimelineModel* m = s.panel()->model();
        QCOMPARE(m->maxBytes(), uint64_t(7) << 20);
        pools->trigger();
        QVERIFY(s.w.waitIdle());
        const clitest::Run cli = clitest::fxlens({"mem", snap("pools.p4.pickle"), "--private-pools", "--json"});
        QVERIFY2(cli.exitCode == 0, qPrintable(clitest::describe(cli)));
        const QJsonObject t = jsonOf(cli).value("devices").toArray()[0].toObject().value("timeline").toObject();
        QCOMPARE(qint64(m->maxBytes()), t.value("peak_bytes").toInteger());
        QCOMPARE(m->maxBytes(), uint64_t(9) << 20);
        QVERIFY2(s.panel()->summaryText().contains("incl. private pools"), qPrintable(s.panel()->summaryText()));
        bool envelope = false;
        for (int r = 0; r < m->rowCount(); ++r)
            envelope = envelope
                || m->data(m->index(r, SnapshotTimelineModel::BandColumn)).toString() == QStringLiteral("pool 1,7,s0");
        QVERIFY(envelope);
        shot(s, "snapshot_private_pools.png");
        pools->trigger();  // back to the default view
        QVERIFY(s.w.waitIdle());
        QCOMPARE(m->maxBytes(), uint64_t(7) << 20);
        QVERIFY(!s.panel()->summaryText().contains("incl. private pools"));
    }

    // File > Open of a snapshot: the Memory snapshot tab in front with its timeline, a device
    // selector (the snapshot has two devices), the peak of `fxlens mem --json`
    void openFromFileMenu()
    {
        Window s;
        QVERIFY(QTest::qWaitForWindowExposed(&s.w));
        const int tab = s.w.centralTabs()->indexOf(s.panel());
        QVERIFY(!s.w.centralTabs()->isTabVisible(tab));  // hidden until a snapshot is open
        QVERIFY(openByMenu(s, snap("step.p2.pickle")));
        QVERIFY2(s.w.lastError().isEmpty(), qPrintable(s.w.lastError()));
        QVERIFY(s.w.centralTabs()->isTabVisible(tab));
        QCOMPARE(s.w.centralTabs()->currentWidget(), s.panel());
        QCOMPARE(s.w.sourceCount(), 0);  // not opened as a graph
        SnapshotTimelineModel* m = s.panel()->model();
        QVERIFY(m->snapshot());
        const clitest::Run cli = clitest::fxlens({"mem", snap("step.p2.pickle"), "--json"});
        QVERIFY2(cli.exitCode == 0, qPrintable(clitest::describe(cli)));
        const QJsonArray devices = jsonOf(cli).value("devices").toArray();
        QCOMPARE(qint64(m->maxBytes()),
                 devices[0].toObject().value("timeline").toObject().value("peak_bytes").toInteger());
        QCOMPARE(m->steps(), devices[0].toObject().value("timeline").toObject().value("steps").toInteger());
        QVERIFY2(s.panel()->summaryText().contains(QStringLiteral("peak 3.25 MiB at step 1")),
                 qPrintable(s.panel()->summaryText()));
        QCOMPARE(m->rowCount(), s.panel()->bandTable()->model()->rowCount());
        // the device selector: two devices, the second one's timeline
        QComboBox* box = s.panel()->deviceBox();
        QVERIFY(box->isVisible());
        QCOMPARE(box->count(), devices.size());
        box->setCurrentIndex(1);
        QCOMPARE(m->device(), qint64(1));
        QCOMPARE(qint64(m->maxBytes()),
                 devices[1].toObject().value("timeline").toObject().value("peak_bytes").toInteger());
        QVERIFY2(s.panel()->summaryText().contains(QStringLiteral("device 1:")), qPrintable(s.panel()->summaryText()));
        box->setCurrentIndex(0);
        shot(s, "snapshot_two_devices.png");
    }

    // the command line's way (`fxlens FILE`): open() of a pickle reads it as a snapshot
    void openFromPath()
    {
        Window s;
        QVERIFY(s.w.openPath(snap("step.p4.pickle")).isEmpty());
        QVERIFY(s.panel()->model()->snapshot());
        QCOMPARE(s.w.centralTabs()->currentWidget(), s.panel());
    }

    // hover: the band under the pointer, its size, FX node and frames in the tooltip
    void hoverShowsFrames()
    {
        Window s;
        QVERIFY(QTest::qWaitForWindowExposed(&s.w));
        QVERIFY(openByMenu(s, snap("step.p2.pickle")));
        SnapshotView* v = s.view();
        SnapshotTimelineModel* m = s.panel()->model();
        int relu = -1;
        for (int r = 0; r < m->rowCount(); ++r)
            if (m->data(m->index(r, SnapshotTimelineModel::FxNodeColumn)).toString() == QLatin1String("relu")) relu = r;
        QVERIFY(relu >= 0);
        const TimelineSeries& band = m->timeline()->series[static_cast<size_t>(relu)];
        const QPointF at = v->pointOnBand(relu, band.timesteps.front() + 1);
        QVERIFY(!at.isNull());
        QTest::mouseMove(v, at.toPoint());
        QTRY_COMPARE(v->hoverBand(), relu);
        QVERIFY2(v->hoverText().contains(QStringLiteral("2 MiB")), qPrintable(v->hoverText()));
        QVERIFY2(v->hoverText().contains(QStringLiteral("FX node relu")), qPrintable(v->hoverText()));
        QVERIFY2(v->hoverText().contains(QStringLiteral("torch/nn/functional.py:1500")), qPrintable(v->hoverText()));
        // off every band: nothing
        QTest::mouseMove(
            v, QPoint(static_cast<int>(v->plotRect().center().x()), static_cast<int>(v->plotRect().top()) + 2));
        QTRY_COMPARE(v->hoverBand(), -1);
        QVERIFY(v->hoverText().isEmpty());
    }

    // a drag across the plot zooms to it; Esc, then Memory > Show every step, show every step
    void dragZoomsAndResets()
    {
        Window s;
        QVERIFY(QTest::qWaitForWindowExposed(&s.w));
        QVERIFY(openByMenu(s, snap("step.p2.pickle")));
        SnapshotView* v = s.view();
        const int64_t steps = s.panel()->model()->steps();
        QCOMPARE(v->first(), qint64(0));
        QCOMPARE(v->last(), steps - 1);
        const QRectF plot = v->plotRect();
        const int y = static_cast<int>(plot.center().y());
        const auto drag = [&](double from, double to) {
            const QPoint a(static_cast<int>(plot.left() + plot.width() * from), y),
                b(static_cast<int>(plot.left() + plot.width() * to), y);
            QTest::mousePress(v, Qt::LeftButton, Qt::NoModifier, a);
            QTest::mouseMove(v, (a + b) / 2);
            QTest::mouseMove(v, b);
            QTest::mouseRelease(v, Qt::LeftButton, Qt::NoModifier, b);
        };
        drag(0.3, 0.7);
        QVERIFY(v->zoomed());
        QVERIFY2(v->first() >= 2 && v->last() <= 8 && v->last() > v->first(),
                 qPrintable(QStringLiteral("%1..%2").arg(v->first()).arg(v->last())));
        guitest::saveShot(*v, "snapshot_zoomed.png");
        v->setFocus();
        QTest::keyClick(v, Qt::Key_Escape);
        QVERIFY(!v->zoomed());
        drag(0.1, 0.5);
        QVERIFY(v->zoomed());
        QVERIFY(s.trigger(QStringLiteral("Memory > Show every step of the snapshot")));
        QVERIFY(!v->zoomed());
        QCOMPARE(v->last(), steps - 1);
    }

    // Memory > Compare the graph with a snapshot: the numbers of `fxlens mem GRAPH --snapshot
    // SNAP --json` for the same files: a run of another graph (matched by name and by order,
    // nodes that differ), and the remat step of the bundled example over a run of its input
    // (the recomputed nodes differ)
    void overlayMatchesTheCli_data()
    {
        QTest::addColumn<QString>("graph");
        QTest::addColumn<QString>("ran");
        QTest::addColumn<QString>("screenshot");
        QTest::newRow("t5_bias over a run of mlp_gelu")
            << data("models/t5_bias.joint.code.py") << data("pytorch/mlp_gelu.joint.code.py") << QString();
        QTest::newRow("gpt2_tiny's remat step over a run of gpt2_tiny")
            << QStringLiteral("remat") << example() << "snapshot_overlay.png";
    }
    void overlayMatchesTheCli()
    {
        QFETCH(QString, graph);
        QFETCH(QString, ran);
        QFETCH(QString, screenshot);
        QTemporaryDir dir;
        if (graph == QLatin1String("remat")) graph = rematStep(dir);
        QVERIFY(!graph.isEmpty());
        const QString snapshot = dir.filePath("run.pickle");
        QVERIFY(clitest::fxlens({"run", ran, "--memory-snapshot", snapshot}).exitCode == 0);
        const clitest::Run cli = clitest::fxlens({"mem", graph, "--snapshot", snapshot, "--json"});
        QVERIFY2(cli.exitCode == 0, qPrintable(clitest::describe(cli)));
        const QJsonObject j = jsonOf(cli);

        Window s;
        QVERIFY(QTest::qWaitForWindowExposed(&s.w));
        // no graph yet: the action says so and nothing opens
        QVERIFY(s.trigger(QStringLiteral("Memory > Compare the graph with a snapshot")));
        QVERIFY2(s.w.lastError().contains(QStringLiteral("no graph is shown")), qPrintable(s.w.lastError()));
        QVERIFY(!s.driver.seen().join('|').contains(QStringLiteral("file:")));
        s.w.clearLastError();
        QVERIFY(s.w.openPath(graph).isEmpty());
        s.driver.answerFile(snapshot);
        QVERIFY(s.trigger(QStringLiteral("Memory > Compare the graph with a snapshot")));
        QVERIFY2(s.w.lastError().isEmpty(), qPrintable(s.w.lastError()));
        SnapshotOverlayPage* page = s.panel()->overlayPage();
        QCOMPARE(s.w.centralTabs()->currentWidget(), s.panel());
        QCOMPARE(s.panel()->pages()->currentWidget(), page);
        SnapshotOverlayModel* m = page->model();
        QCOMPARE(m->matchRate(), j.value("match_rate").toDouble());
        QCOMPARE(qint64(m->overlay()->byName), j.value("matched_by_fx_node_name").toInteger());
        QCOMPARE(qint64(m->overlay()->byOrder), j.value("matched_by_order").toInteger());
        QCOMPARE(qint64(m->overlay()->estimatedPeak), j.value("estimated_peak_bytes").toInteger());
        QCOMPARE(qint64(m->overlay()->measuredPeak), j.value("measured_peak_bytes").toInteger());
        const QString rate = QStringLiteral("(%1%)").arg(100.0 * j.value("match_rate").toDouble(), 0, 'f', 1);
        QVERIFY2(page->summaryText().contains(rate), qPrintable(page->summaryText()));
        // both timelines drawn: the estimate of the graph, the measurement of the snapshot
        QCOMPARE(page->estimateModel()->current()->peakBytes, j.value("estimated_peak_bytes").toInteger());
        QCOMPARE(qint64(page->measuredModel()->maxBytes()), j.value("measured_peak_bytes").toInteger());
        // the nodes that differ most first, as many as the CLI lists
        QCOMPARE(page->table()->model()->rowCount(), j.value("nodes").toArray().size());
        QVERIFY(m->differing() > 0);
        const qint64 top = std::llabs(
            m->data(m->index(0, SnapshotOverlayModel::DifferenceColumn), SnapshotOverlayModel::BytesRole).toLongLong());
        for (const QJsonValue& n : j.value("nodes").toArray())
            QVERIFY(std::llabs(n.toObject().value("measured_bytes").toInteger()
                               - n.toObject().value("estimated_bytes").toInteger())
                    <= top);
        if (!screenshot.isEmpty()) shot(s, qPrintable(screenshot));
    }

    // a snapshot of two devices over a graph: the first traced device, as `--device 0` gives it,
    // and the device selector switches to `--device 1`'s numbers
    void overlayDeviceSelector()
    {
        const QString graph = data("pytorch/mlp_gelu.joint.code.py"), snapshot = snap("step.p4.pickle");
        Window s;
        QVERIFY(QTest::qWaitForWindowExposed(&s.w));
        QVERIFY(s.w.openPath(graph).isEmpty());
        s.driver.answerFile(snapshot);
        QVERIFY(s.trigger(QStringLiteral("Memory > Compare the graph with a snapshot")));
        QVERIFY2(s.w.lastError().isEmpty(), qPrintable(s.w.lastError()));
        SnapshotOverlayPage* page = s.panel()->overlayPage();
        QVERIFY(page->deviceBox()->isVisible());
        QCOMPARE(page->deviceBox()->count(), 2);
        for (int device : {0, 1}) {
            page->deviceBox()->setCurrentIndex(device);
            const clitest::Run cli =
                clitest::fxlens({"mem", graph, "--snapshot", snapshot, "--device", QString::number(device), "--json"});
            QVERIFY2(cli.exitCode == 0, qPrintable(clitest::describe(cli)));
            const QJsonObject j = jsonOf(cli);
            QCOMPARE(page->model()->matchRate(), j.value("match_rate").toDouble());
            QCOMPARE(qint64(page->model()->overlay()->allocations), j.value("allocations").toInteger());
            QCOMPARE(qint64(page->model()->overlay()->measuredPeak), j.value("measured_peak_bytes").toInteger());
            QCOMPARE(page->measuredModel()->device(), qint64(device));
            QVERIFY2(page->summaryText().contains(QStringLiteral("(device %1)").arg(device)),
                     qPrintable(page->summaryText()));
        }
    }

    // Memory > Compare with another snapshot: the sites of `fxlens mem A --compare B --json`
    // (runs of the bundled example before and after its remat step: B's peak lower, the
    // recomputed nodes only in B)
    void compareShowsDifferences()
    {
        QTemporaryDir dir;
        const QString a = dir.filePath("gpt2_tiny.pickle"), b = dir.filePath("gpt2_tiny_remat.pickle");
        const QString remat = rematStep(dir);
        QVERIFY(!remat.isEmpty());
        QVERIFY(clitest::fxlens({"run", example(), "--memory-snapshot", a}).exitCode == 0);
        QVERIFY(clitest::fxlens({"run", remat, "--memory-snapshot", b}).exitCode == 0);
        const clitest::Run cli = clitest::fxlens({"mem", a, "--compare", b, "--json"});
        QVERIFY2(cli.exitCode == 0, qPrintable(clitest::describe(cli)));
        const QJsonObject j = jsonOf(cli);

        Window s;
        QVERIFY(QTest::qWaitForWindowExposed(&s.w));
        // nothing shown yet: the action says so
        QVERIFY(s.trigger(QStringLiteral("Memory > Compare with another snapshot")));
        QVERIFY2(s.w.lastError().contains(QStringLiteral("no snapshot is shown")), qPrintable(s.w.lastError()));
        s.w.clearLastError();
        QVERIFY(openByMenu(s, a));
        s.driver.answerFile(b);
        QVERIFY(s.trigger(QStringLiteral("Memory > Compare with another snapshot")));
        QVERIFY2(s.w.lastError().isEmpty(), qPrintable(s.w.lastError()));
        SnapshotComparePage* page = s.panel()->comparePage();
        QCOMPARE(s.panel()->pages()->currentWidget(), page);
        SnapshotCompareModel* m = page->model();
        QCOMPARE(qint64(m->comparison()->peakA), j.value("peak_a").toInteger());
        QCOMPARE(qint64(m->comparison()->peakB), j.value("peak_b").toInteger());
        const QJsonArray sites = j.value("sites").toArray();
        QCOMPARE(page->table()->model()->rowCount(), sites.size());
        int differ = 0;
        for (int r = 0; r < sites.size(); ++r) {
            const QJsonObject o = sites[r].toObject();
            QCOMPARE(m->data(m->index(r, SnapshotCompareModel::SiteColumn)).toString(), o.value("site").toString());
            differ += o.value("allocated_a").toInteger() != o.value("allocated_b").toInteger()
                || o.value("at_peak_a").toInteger() != o.value("at_peak_b").toInteger();
        }
        QVERIFY(differ > 0);
        QCOMPARE(m->differing(), differ);
        QVERIFY(j.value("peak_b").toInteger() < j.value("peak_a").toInteger());
        QVERIFY(j.value("sites_only_b").toInt() > 0);
        QVERIFY2(page->summaryText().contains(QStringLiteral("peak A")), qPrintable(page->summaryText()));
        // both timelines, on one y axis
        QCOMPARE(qint64(page->modelA()->maxBytes()), j.value("peak_a").toInteger());
        QCOMPARE(qint64(page->modelB()->maxBytes()), j.value("peak_b").toInteger());
        shot(s, "snapshot_compare.png");
        // A's timeline, a band hovered (outlined), for the documentation
        s.panel()->pages()->setCurrentIndex(0);
        SnapshotTimelineModel* ta = s.panel()->model();
        int largest = 0;
        for (int r = 1; r < ta->rowCount(); ++r)
            if (ta->data(ta->index(r, SnapshotTimelineModel::SizeColumn), SnapshotTimelineModel::BytesRole).toLongLong()
                > ta->data(ta->index(largest, SnapshotTimelineModel::SizeColumn), SnapshotTimelineModel::BytesRole)
                      .toLongLong())
                largest = r;
        const TimelineSeries& band = ta->timeline()->series[static_cast<size_t>(largest)];
        s.w.setFocusMode(true);
        QCoreApplication::processEvents();
        const QPointF at = s.view()->pointOnBand(largest, (band.timesteps.front() + band.timesteps.back()) / 2);
        QVERIFY(!at.isNull());
        QTest::mouseMove(s.view(), at.toPoint());
        QTRY_COMPARE(s.view()->hoverBand(), largest);
        QVERIFY2(s.view()->hoverText().contains(QStringLiteral("FX node")), qPrintable(s.view()->hoverText()));
        guitest::saveShot(s.w, "snapshot_timeline.png");
        s.w.setFocusMode(false);
    }

    // a large snapshot reads in the background: the status bar's progress and Cancel show, and
    // Cancel stops it with nothing shown (then it reads to its end when asked again)
    void cancelFromTheStatusBar()
    {
        QTemporaryDir dir;
        MemorySnapshot big;
        big.stacks.emplace_back();
        big.deviceTraces.emplace_back();
        // enough to cancel midway: under ASan reading is many times slower, a tenth is enough there
        const size_t entries = fxltest::kSanitizedBuild ? 20000 : 200000;
        for (size_t i = 0; i < entries; ++i) {
            TraceEntry a;
            a.action = TraceAction::Alloc;
            a.actionName = "alloc";
            a.addr = 0x7f0000000000 + i * 512;
            a.size = 512;
            big.deviceTraces[0].push_back(a);
        }
        const QString path = dir.filePath("big.pickle");
        const std::string bytes = serializeMemorySnapshot(big);
        QVERIFY(clitest::writeFile(path, QByteArray(bytes.data(), static_cast<qsizetype>(bytes.size()))));
        Window s;
        QVERIFY(QTest::qWaitForWindowExposed(&s.w));
        s.driver.answerFile(path);
        guitest::findAction(s.w, QStringLiteral("File > Open"))->trigger();  // returns once the read started
        QVERIFY(s.panel()->busy());
        QVERIFY(s.w.cancelButton()->isVisible());
        QVERIFY(s.w.progressBar()->isVisible());
        QTest::mouseClick(s.w.cancelButton(), Qt::LeftButton);
        QVERIFY(s.w.waitIdle());
        QVERIFY(!s.panel()->model()->snapshot());
        QCOMPARE(s.w.statusText(), QStringLiteral("cancelled"));
        QVERIFY(!s.w.cancelButton()->isVisible());
        QVERIFY(openByMenu(s, path));
        QVERIFY(s.panel()->model()->snapshot());
        QCOMPARE(s.panel()->model()->timeline()->elements.size(), entries);
    }

    // a pickle cut short and a pickle that is no snapshot: a message box says why, the window
    // stays as it was (the snapshot shown before stays shown)
    void badPickleShowsAMessage()
    {
        QTemporaryDir dir;
        const QString cut = dir.filePath("cut.pickle"), list = dir.filePath("list.pickle");
        QFile in(snap("step.p2.pickle"));
        QVERIFY(in.open(QIODevice::ReadOnly));
        QVERIFY(clitest::writeFile(cut, in.read(300)));
        // [1, 2]: PROTO 2, EMPTY_LIST, BINPUT 0, MARK, BININT1 1, BININT1 2, APPENDS, STOP
        QVERIFY(clitest::writeFile(list,
                                   QByteArray("\x80\x02]q\x00(K\x01K\x02"
                                              "e.",
                                              12)));
        Window s;
        s.w.setQuietErrors(false);  // the message box a user sees
        QVERIFY(QTest::qWaitForWindowExposed(&s.w));
        QVERIFY(openByMenu(s, snap("step.p2.pickle")));
        const auto shown = s.panel()->model()->snapshot();
        QVERIFY(shown);
        for (const QString& bad : {cut, list}) {
            s.driver.clearSeen();
            QVERIFY(openByMenu(s, bad));
            QTRY_VERIFY(s.driver.seen().join('|').contains(QStringLiteral("box: The snapshot could not be read")));
            QVERIFY2(s.driver.seen().join('|').contains(QFileInfo(bad).fileName()),
                     qPrintable(s.driver.seen().join('|')));
            QVERIFY(s.w.isVisible());
            QCOMPARE(s.panel()->model()->snapshot(), shown);
        }
        // and a bad second snapshot to compare with
        s.driver.clearSeen();
        s.driver.answerFile(cut);
        QVERIFY(s.trigger(QStringLiteral("Memory > Compare with another snapshot")));
        QTRY_VERIFY(s.driver.seen().join('|').contains(QStringLiteral("box: The snapshot could not be read")));
        QVERIFY(!s.panel()->comparePage()->model()->comparison());
    }
};

FXL_TEST_MAIN(TestSnapshotWindow)
}  // namespace test_snapshot_window
#include "test_snapshot_window.moc"
