// The pass stepper in the window, offscreen, as a user drives it: run a pipeline, step through
// it, look at each step's diff and memory timeline. What is shown is checked against the CLI
// (`fxlens diff --json`, `fxlens mem --json` of the step files `fxlens passes run --out`
// writes); selection syncs across the diff's two sides, and a node without a counterpart says
// so; stepping back and forth restores the same views; a failing pass leaves the earlier steps
// usable; two files, and a TORCH_TRACE before/after pair, open as a diff. Screenshots of the
// stepper go to the build directory's tests/ (stepper_*.png) for a person to look at.
#include <QAbstractItemModelTester>
#include <QApplication>
#include <QComboBox>
#include <QCompleter>
#include <QDockWidget>
#include <QLineEdit>
#include <QListView>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QXmlStreamReader>
#include <QtTest>

#include "app/cli_test_util.hpp"
#include "gui_test_util.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"
#include "viewer/jobs/step_jobs.hpp"
#include "viewer/model/change_list_model.hpp"
#include "viewer/model/equivalence_model.hpp"
#include "viewer/model/pipeline_model.hpp"
#include "viewer/model/source_tree_model.hpp"
#include "viewer/model/step_list_model.hpp"
#include "viewer/model/timeline_model.hpp"
#include "viewer/render/scene_draw.hpp"
#include "viewer/render/timeline_draw.hpp"
#include "viewer/widgets/diff_view.hpp"
#include "viewer/widgets/graph_view.hpp"
#include "viewer/widgets/main_window.hpp"
#include "viewer/widgets/pipeline_editor.hpp"
#include "viewer/widgets/run_panel.hpp"
#include "viewer/widgets/timeline_view.hpp"

namespace test_pass_stepper {

using namespace fxl;
using namespace fxl::viewer;
using guitest::openKeys;
using guitest::saveShot;

namespace {

const QString kSpec = QStringLiteral("remove_detach,sac(policy=alternate_mm),remat,dce");

#define OPEN_IN(w, path)                                                                                               \
    do {                                                                                                               \
        (w).setQuietErrors(true);                                                                                      \
        (w).resize(1500, 950);                                                                                         \
        (w).show();                                                                                                    \
        QVERIFY(QTest::qWaitForWindowExposed(&(w)));                                                                   \
        QVERIFY2((w).openPath(path).isEmpty(), qPrintable((w).lastError()));                                           \
        QVERIFY((w).waitIdle());                                                                                       \
    } while (false)

// The Run dock raised and tall enough to read its table (the screenshots of the run panel).
void raiseRunDock(MainWindow& w, int height)
{
    auto* dock = w.findChild<QDockWidget*>(QStringLiteral("run"));
    QVERIFY(dock);
    dock->show();
    dock->raise();
    w.resize(w.width(), 760 + height);
    QCoreApplication::processEvents();
    w.resizeDocks({dock}, {height}, Qt::Vertical);
    QCoreApplication::processEvents();
}

QString mlpGelu() { return QString::fromStdString(fxltest::testDataPath("pytorch/mlp_gelu.joint.code.py").string()); }

}  // namespace

class TestPassStepper : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase() { guitest::initWindowTests(); }

    void remat_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("shot");
        QTest::newRow("mlp_gelu") << mlpGelu() << QString();
        const auto gpt2 = fxltest::corpusPath("pytorch/gpt2_tiny.joint.code.py");
        QTest::newRow("gpt2_tiny") << QString::fromStdString(gpt2.string()) << QStringLiteral("gpt2_tiny");
    }

    // The remat step's diff view shows the counts of `fxlens diff --json`, every step's timeline
    // peak label is `fxlens mem --json`'s peak, and the step list agrees.
    void remat()
    {
        QFETCH(QString, path);
        FXL_REQUIRE_CORPUS(path);
        QFETCH(QString, shot);
        MainWindow w;
        OPEN_IN(w, path);
        QCOMPARE(w.currentStep(), 0);  // the input step is made on opening
        const QString failure = w.runPipeline(kSpec);
        QVERIFY2(failure.isEmpty(), qPrintable(failure));
        QCOMPARE(w.passes()->stepList()->rowCount(), 5);
        QCOMPARE(w.currentStep(), 4);  // followed the run to its end

        QTemporaryDir dir;
        const auto written =
            clitest::fxlens({QStringLiteral("passes"), QStringLiteral("run"), path, QStringLiteral("--pipeline"), kSpec,
                             QStringLiteral("--out"), dir.path()});
        QVERIFY2(written.exitCode == 0, written.err.constData());
        const QStringList files = QDir(dir.path()).entryList({QStringLiteral("0*.py")}, QDir::Files, QDir::Name);
        QCOMPARE(files.size(), 5);
        for (int k = 0; k < 5; ++k) {
            QVERIFY(w.showStep(k));
            QVERIFY(w.waitIdle());
            const auto mem = clitest::fxlens({QStringLiteral("mem"), dir.filePath(files[k]), QStringLiteral("--json")});
            const QJsonObject peak = clitest::parseJsonDoc(mem.out)[QStringLiteral("timeline")]
                                         .toObject()[QStringLiteral("peak")]
                                         .toObject();
            QVERIFY2(w.timelineModel()->peakLabel().endsWith(QStringLiteral(" at ")
                                                             + peak[QStringLiteral("node")].toString()),
                     qPrintable(w.timelineModel()->peakLabel()));
            QCOMPARE(w.timelineModel()->current()->peakBytes, qint64(peak[QStringLiteral("bytes")].toDouble()));
            QCOMPARE(w.timelineModel()->hasPrevious(), k > 0);
        }
        QVERIFY(w.showStep(3));
        QVERIFY(w.waitIdle());
        const auto diff = clitest::fxlens(
            {QStringLiteral("diff"), dir.filePath(files[2]), dir.filePath(files[3]), QStringLiteral("--json")});
        const QJsonObject counts = clitest::parseJsonDoc(diff.out)[QStringLiteral("total_counts")].toObject();
        DiffView* d = w.diffView();
        QVERIFY(d->diff());
        const DiffCounts c = d->diff()->totalCounts();
        QCOMPARE(qint64(c.added), qint64(counts[QStringLiteral("added")].toInt()));
        QCOMPARE(qint64(c.removed), qint64(counts[QStringLiteral("removed")].toInt()));
        QCOMPARE(qint64(c.changed), qint64(counts[QStringLiteral("changed")].toInt()));
        QVERIFY(c.added > 0);
        QCOMPARE(size_t(d->changes()->count(DiffClass::Added)), c.added);
        QVERIFY2(d->countsText().contains(QStringLiteral("+%1 added").arg(c.added)), qPrintable(d->countsText()));
        // the marks: every added node of the after side is marked added
        size_t marked = 0;
        for (uint8_t m : d->viewB()->nodeMarks()) marked += m == MarkAdded ? 1 : 0;
        QCOMPARE(marked, c.added);
        // the text diff has one '+' line per added node
        const QString text = d->textDiff();
        QVERIFY2(text.startsWith(QLatin1String("--- step 2 (sac")), qPrintable(text.left(200)));
        qsizetype plus = 0;
        for (const QString& line : text.split(QLatin1Char('\n'))) plus += line.startsWith(QLatin1String("+ ")) ? 1 : 0;
        QCOMPARE(size_t(plus), c.added);
        if (!shot.isEmpty()) {
            w.centralTabs()->setCurrentWidget(d);
            // open the first changed node's groups on both sides
            d->showChange(0);
            QVERIFY(w.waitIdle());
            saveShot(w, "stepper_diff_gpt2_tiny.png");
            saveShot(*w.timelineView(), "stepper_timeline_gpt2_tiny.png");
            saveShot(*w.passes(), "stepper_passes_gpt2_tiny.png");
        }
    }

    void runPanel_data() { remat_data(); }

    // The run panel checks the remat step against the step before and against the input: every
    // output bitwise equal; the run's measured live bytes equal the timeline's estimate.
    void runPanel()
    {
        QFETCH(QString, path);
        FXL_REQUIRE_CORPUS(path);
        QFETCH(QString, shot);
        MainWindow w;
        OPEN_IN(w, path);
        QVERIFY(w.runCheck(0) == nullptr);  // the input has no step before
        QVERIFY(w.runPipeline(kSpec).isEmpty());
        QVERIFY(w.showStep(3));
        QVERIFY(w.waitIdle());
        for (int against : {0, 1}) {
            const auto o = w.runCheck(against);
            QVERIFY2(o, qPrintable(w.statusText() + QLatin1Char('|') + w.runPanel()->summaryText()));
            QVERIFY2(o->ok, o->error.c_str());
            QVERIFY(o->compared);
            QVERIFY2(o->bitwise(), o->summary().c_str());
            QVERIFY(!o->report.outputs.empty());
            EquivalenceModel* t = w.runPanel()->table();
            QAbstractItemModelTester tester(t, QAbstractItemModelTester::FailureReportingMode::QtTest);
            QCOMPARE(size_t(t->rowCount()), o->report.outputs.size());
            for (int r = 0; r < t->rowCount(); ++r)
                QCOMPARE(t->data(t->index(r, EquivalenceModel::ResultColumn)).toString(), QStringLiteral("bitwise"));
            w.runPanel()->setOnlyDiffering(true);
            QCOMPARE(t->rowCount(), 0);
            w.runPanel()->setOnlyDiffering(false);
            QVERIFY2(w.runPanel()->summaryText().contains(QLatin1String("bitwise equal")),
                     qPrintable(w.runPanel()->summaryText()));
            if (path.contains(QLatin1String("gpt2")))
                QVERIFY2(o->inputsFrom == "gpt2_tiny.inputs.safetensors", o->inputsFrom.c_str());
            // the measurement beside the estimate: the same rules, the same bytes
            QVERIFY(w.timelineModel()->hasMeasured());
            QCOMPARE(w.timelineModel()->measuredPeak(), w.timelineModel()->current()->peakBytes);
            QCOMPARE(w.timelineModel()->measuredMismatches(), 0);
        }
        const auto alone = w.runCheck(2);
        QVERIFY(alone && alone->ok && !alone->compared);
        if (!shot.isEmpty()) {
            QVERIFY(w.runCheck(0));
            raiseRunDock(w, 330);
            saveShot(*w.runPanel(), "stepper_run_gpt2_tiny.png");
            saveShot(*w.timelineView(), "stepper_timeline_measured_gpt2_tiny.png");
        }
    }

    void localize_data()
    {
        QTest::addColumn<QString>("original");
        QTest::addColumn<QString>("variant");
        QTest::addColumn<QString>("first");
        auto data = [](const char* p) { return QString::fromStdString(fxltest::testDataPath(p).string()); };
        QTest::newRow("one ulp") << data("pytorch/moe_tiny.joint.code.py")
                                 << data("localize/moe_tiny.joint.add_1_plus_one_ulp.code.py") << "add_1";
        QTest::newRow("reassociated") << data("pytorch/moe_tiny.joint.code.py")
                                      << data("localize/moe_tiny.joint.add_3_reassociated.code.py") << "add_3";
        QTest::newRow("gelu tanh") << data("pytorch/mlp_gelu.joint.code.py")
                                   << data("localize/mlp_gelu.joint.gelu_tanh.code.py") << "gelu";
    }

    // A graph with one node's arithmetic changed, against the original (two files as a diff):
    // the run panel names that node as the first divergence and colours both graphs by ULP.
    void localize()
    {
        QFETCH(QString, original);
        QFETCH(QString, variant);
        QFETCH(QString, first);
        MainWindow w;
        w.setQuietErrors(true);
        w.resize(1500, 950);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.openDiff(original, {}, variant, {}).isEmpty());
        QVERIFY(w.waitIdle());
        const auto o = w.runCheck(0);
        QVERIFY(o && o->ok && o->compared);
        QVERIFY(!o->bitwise());
        QVERIFY(o->localize && o->localize->first());
        QCOMPARE(QString::fromStdString(o->localize->first()->bName), first);
        QVERIFY2(
            w.runPanel()->localizeText().contains(QStringLiteral("first divergence: <a href=\"node:%1\">").arg(first)),
            qPrintable(w.runPanel()->localizeText()));
        // the table lists the outputs that differ, each with its first differing element
        w.runPanel()->setOnlyDiffering(true);
        EquivalenceModel* table = w.runPanel()->table();
        QVERIFY(table->rowCount() > 0);
        for (int r = 0; r < table->rowCount(); ++r) {
            QCOMPARE(table->data(table->index(r, EquivalenceModel::ResultColumn)).toString(),
                     QStringLiteral("differs"));
            QVERIFY(
                table->data(table->index(r, EquivalenceModel::FirstColumn)).toString().contains(QLatin1String(" vs ")));
        }
        // colours: the first divergence red-ish (not bitwise), every node before it bitwise
        DiffView* d = w.diffView();
        QVERIFY(d->colouredByUlp());
        const Graph& b = *d->viewB()->graph();
        const auto& marks = d->viewB()->nodeMarks();
        const NodeId firstId = b.findByName(first.toStdString());
        QVERIFY(marks[size_t(firstId)] >= 2);
        for (NodeId id : b.order()) {
            if (id == firstId) break;
            QVERIFY2(marks[size_t(id)] <= 1, b.node(id).name.c_str());  // bitwise, or not compared
        }
        // the view's switch, as a user picks it: the diff's colours, then the run's again
        const std::vector<uint8_t> runMarks = marks;
        auto* colourBy = d->findChild<QComboBox*>(QStringLiteral("colourBy"));
        QVERIFY(colourBy && colourBy->isEnabled());
        colourBy->setCurrentIndex(0);
        QVERIFY(!d->colouredByUlp());
        QCOMPARE(d->viewB()->nodeMarks(), diffMarks(*d->diff(), b, true));
        colourBy->setCurrentIndex(1);
        QVERIFY(d->colouredByUlp());
        QCOMPARE(d->viewB()->nodeMarks(), runMarks);
        if (first == QLatin1String("add_1")) {
            QVERIFY(d->selectB(first));
            QVERIFY(w.waitIdle());
            raiseRunDock(w, 300);
            saveShot(w, "stepper_localize_moe_tiny.png");
        }
    }

    // File > Export: the graph and diff views to SVG and PNG, the timeline to PNG and CSV, the
    // pipeline report to HTML; an existing file is not replaced unless asked.
    void exports()
    {
        MainWindow w;
        OPEN_IN(w, mlpGelu());
        QVERIFY(w.runPipeline(kSpec).isEmpty());
        QVERIFY(w.showStep(3));
        QVERIFY(w.waitIdle());
        QVERIFY(w.runCheck(0));
        QTemporaryDir dir;
        auto path = [&](const char* name) { return dir.filePath(QString::fromLatin1(name)); };
        auto xmlOk = [](const QByteArray& bytes) {
            QXmlStreamReader x(bytes);
            while (!x.atEnd()) x.readNext();
            return !x.hasError();
        };
        QVERIFY(w.exportGraph(path("g.svg")).isEmpty());
        const QByteArray graphSvg = clitest::readFile(path("g.svg"));
        QVERIFY(xmlOk(graphSvg));
        QCOMPARE(graphSvg.count("<g class=\"node\"") + graphSvg.count("<g class=\"group\"")
                     + graphSvg.count("<g class=\"stub-in\"") + graphSvg.count("<g class=\"stub-out\""),
                 qsizetype(w.graphView()->view().items.size()));
        QVERIFY(w.exportGraph(path("g.png")).isEmpty());
        QVERIFY(QImage(path("g.png")).width() > 100);
        // the diff: both sides, titled
        w.centralTabs()->setCurrentWidget(w.diffView());
        QVERIFY(w.waitIdle());
        QVERIFY(w.exportDiff(path("d.svg")).isEmpty());
        const QByteArray diffSvg = clitest::readFile(path("d.svg"));
        QVERIFY(xmlOk(diffSvg));
        QCOMPARE(diffSvg.count("<svg"), qsizetype(4));  // the document, the two sides, the legend
        QVERIFY(diffSvg.contains("step 2 (sac(policy=alternate_mm))") && diffSvg.contains("step 3 (remat)"));
        // the legend of the colours on the nodes and the counts of the Diff tab, coloured by the
        // run's ULP distance or by the diff
        QVERIFY(diffSvg.contains(w.diffView()->colouredByUlp() ? "ulp-legend" : "diff-legend"));
        w.diffView()->setColouredByUlp(!w.diffView()->colouredByUlp());
        QVERIFY(w.exportDiff(path("d2.svg")).isEmpty());
        QVERIFY(
            clitest::readFile(path("d2.svg")).contains(w.diffView()->colouredByUlp() ? "ulp-legend" : "diff-legend"));
        w.diffView()->setColouredByUlp(!w.diffView()->colouredByUlp());
        {
            const DiffCounts c = w.diffView()->diff()->totalCounts();
            const QString counts =
                QStringLiteral("+%1 added, \u2212%2 removed, %3 changed, %4 unchanged; %5 rewired edges")
                    .arg(c.added)
                    .arg(c.removed)
                    .arg(c.changed)
                    .arg(c.unchanged)
                    .arg(c.rewired);
            QVERIFY2(QString::fromUtf8(diffSvg).contains(counts), qPrintable(counts));
        }
        QVERIFY(w.exportDiff(path("d.png")).isEmpty());
        const QImage diffPng(path("d.png"));
        QVERIFY(diffPng.save(
            QString::fromStdString((fxltest::buildDir() / "tests" / "export_diff_mlp_gelu.png").string())));
        QVERIFY(diffPng.width() > QImage(path("g.png")).width() / 2);
        // the timeline
        QVERIFY(w.exportTimeline(path("t.png")).isEmpty());
        QVERIFY(QImage(path("t.png")).width() >= 1200);
        QVERIFY(w.exportTimeline(path("t.csv")).isEmpty());
        const QList<QByteArray> rows = clitest::readFile(path("t.csv")).trimmed().split('\n');
        QCOMPARE(size_t(rows.size()), w.timelineModel()->current()->steps.size() + 1);
        QVERIFY(rows.front().startsWith("execution_index,node,"));
        QVERIFY(rows.front().endsWith(",live_bytes_step_before"));  // the step shown has one before
        // the report, with the check of step 3 the run panel made
        QVERIFY(w.exportReport(path("r.html")).isEmpty());
        const QByteArray html = clitest::readFile(path("r.html"));
        QVERIFY(html.contains("3 remat"));
        QVERIFY(html.contains("data:image/png;base64,"));
        QVERIFY(html.contains("data-check=\"bitwise\""));
        QVERIFY(!html.contains("src=\"http") && !html.contains("src=\"file"));
        // not replaced unless asked
        const QByteArray before = clitest::readFile(path("t.csv"));
        QVERIFY(!w.exportTimeline(path("t.csv")).isEmpty());
        QVERIFY(!w.exportGraph(path("t.csv")).isEmpty());
        QCOMPARE(clitest::readFile(path("t.csv")), before);
        QVERIFY(w.exportTimeline(path("t.csv"), true).isEmpty());
    }

    void ranksAndCompilesAsADiff_data()
    {
        QTest::addColumn<QString>("path");
        QTest::newRow("graph_exec_order")
            << QString::fromStdString(fxltest::corpusPath("tlparse/graph_exec_order").string());
    }

    // The same compile id on two ranks, and two compile ids of one rank, as diffs (what the
    // source tree's "Diff the two selected graphs" does).
    void ranksAndCompilesAsADiff()
    {
        QFETCH(QString, path);
        FXL_REQUIRE_CORPUS(path);
        MainWindow w;
        OPEN_IN(w, path);
        const auto src = openSource(path.toStdString());
        auto find = [&](int rank, const std::string& compileId, const std::string& kind) -> const Artifact* {
            for (const Artifact& a : src->artifacts)
                if (a.isGraph && a.rank == rank && a.compileId == compileId && a.kind == kind) return &a;
            return nullptr;
        };
        const Artifact* r0 = find(0, "[0/0]", "aot_inference_graph");
        const Artifact* r1 = find(1, "[0/0]", "aot_inference_graph");
        const Artifact* r0b = find(0, "[0/1]", "aot_inference_graph");
        QVERIFY(r0 && r1 && r0b);
        for (const auto& [a, b] : {std::pair{r0, r1}, std::pair{r0, r0b}}) {
            const QString err = w.diffGraphs(0, QString::fromStdString(a->id), 0, QString::fromStdString(b->id));
            QVERIFY2(err.isEmpty(), qPrintable(err));
            QVERIFY(w.waitIdle());
            QCOMPARE(w.diffView()->viewA()->prepared()->artifactId, a->id);
            QCOMPARE(w.diffView()->viewB()->prepared()->artifactId, b->id);
            QCOMPARE(w.diffView()->diff()->totalCounts(),
                     diffGraphs(*src->graph(a->id), *src->graph(b->id)).totalCounts());
            QVERIFY(w.diffView()->countsText().contains(QLatin1String("unchanged")));
        }
    }

    // The timeline panel as a user handles it: hover names the node and what is live there, a
    // click at the peak selects the peak's node in the graph, a drag zooms into a range, a double
    // click shows everything again; a click on a step row shows that step; Cancel stops a run.
    void timelineAndStepListByMouse()
    {
        MainWindow w;
        OPEN_IN(w, mlpGelu());
        QVERIFY(w.runPipeline(kSpec).isEmpty());
        QVERIFY(w.showStep(3));
        QVERIFY(w.waitIdle());
        TimelineView* t = w.timelineView();
        auto* dock = w.findChild<QDockWidget*>(QStringLiteral("timeline"));
        QVERIFY(dock);
        dock->raise();
        QCoreApplication::processEvents();
        TimelineModel* m = w.timelineModel();
        const int peak = m->peakRow();
        QVERIFY(peak >= 0);
        const QRectF plot = t->plotRect();
        TimelineDrawOptions o;
        const int x = static_cast<int>(timelineXOf(peak, plot, o, *m));
        const int y = static_cast<int>(plot.center().y());
        QSignalSpy clicked(t, &TimelineView::nodeClicked);
        QTest::mouseMove(t, QPoint(x, y));
        QCOMPARE(t->hoverRow(), peak);
        const QString hover = t->hoverText(peak);
        QVERIFY2(hover.contains(m->nameAt(peak)) && hover.contains(QLatin1String("largest live")), qPrintable(hover));
        QTest::mouseClick(t, Qt::LeftButton, {}, QPoint(x, y));
        QCOMPARE(clicked.count(), 1);
        QCOMPARE(clicked.first().at(0).toString(), m->nameAt(peak));
        QVERIFY(w.waitIdle());
        QCOMPARE(w.graphView()->selected(), m->nameAt(peak));
        // drag across the left half: the range shown shrinks to it
        QTest::mousePress(t, Qt::LeftButton, {}, QPoint(static_cast<int>(plot.left()) + 2, y));
        QTest::mouseMove(t, QPoint(static_cast<int>(plot.center().x()), y));
        QTest::mouseRelease(t, Qt::LeftButton, {}, QPoint(static_cast<int>(plot.center().x()), y));
        QVERIFY(t->first() == 0 && t->last() < m->rowCount() - 1 && t->last() > 0);
        QTest::mouseDClick(t, Qt::LeftButton, {}, QPoint(x, y));
        QCOMPARE(t->last(), m->rowCount() - 1);
        // a click on a step row shows that step
        QTableView* steps = w.passes()->stepView();
        const QRect row1 = steps->visualRect(w.passes()->stepList()->index(1, 0));
        QTest::mouseClick(steps->viewport(), Qt::LeftButton, {}, row1.center());
        QVERIFY(w.waitIdle());
        QCOMPARE(w.currentStep(), 1);
        // Cancel: the run stops and says so
        QVERIFY(w.showStep(3));
        w.runPanel()->setAgainst(RunPanel::Against::Input);
        emit w.runPanel()->runRequested(RunPanel::Against::Input);
        w.runPanel()->cancel();
        QVERIFY(w.waitIdle());
        QVERIFY(w.runPanel()->outcome() && w.runPanel()->outcome()->cancelled);
        QVERIFY(!w.runPanel()->busy());
    }

    // Selecting a node selects its counterpart, both ways; a node without one says so.
    void selectionSync()
    {
        MainWindow w;
        OPEN_IN(w, mlpGelu());
        QVERIFY(w.runPipeline(kSpec).isEmpty());
        QVERIFY(w.showStep(3));
        QVERIFY(w.waitIdle());
        DiffView* d = w.diffView();
        QVERIFY(d->selectA(QStringLiteral("mm")));
        QVERIFY(w.waitIdle());
        QCOMPARE(d->viewA()->selected(), QStringLiteral("mm"));
        QCOMPARE(d->viewB()->selected(), QStringLiteral("mm"));
        // b -> a: the node the recomputed copy feeds
        QString added, changed;
        for (const NodeDiff& n : d->diff()->nodes) {
            if (n.cls == DiffClass::Added && added.isEmpty()) added = QString::fromStdString(n.bName);
            if (n.cls == DiffClass::Changed && changed.isEmpty()) changed = QString::fromStdString(n.bName);
        }
        QVERIFY(!added.isEmpty() && !changed.isEmpty());
        QVERIFY(d->selectB(changed));
        QVERIFY(w.waitIdle());
        const NodeId changedB = d->viewB()->graph()->findByName(changed.toStdString());
        const QString counterpart =
            QString::fromStdString(d->viewA()->graph()->node(d->diff()->matchOfB(changedB)).name);
        QCOMPARE(d->viewA()->selected(), counterpart);
        // an added node has no counterpart: said, and the other side keeps its selection
        QVERIFY(d->selectB(added));
        QVERIFY(w.waitIdle());
        QVERIFY2(d->syncStatus().contains(QStringLiteral("'%1' has no counterpart in step 2").arg(added)),
                 qPrintable(d->syncStatus()));
        QVERIFY2(d->syncStatus().contains(QLatin1String("added")), qPrintable(d->syncStatus()));
        QCOMPARE(d->viewA()->selected(), counterpart);
    }

    // The inspector's History of a recomputed node, and "show in step N".
    void provenance()
    {
        MainWindow w;
        OPEN_IN(w, mlpGelu());
        QVERIFY(w.runPipeline(kSpec).isEmpty());
        QVERIFY(w.showStep(3));
        QVERIFY(w.waitIdle());
        const Graph& g = *w.graphView()->graph();
        QString copy, original;
        for (NodeId id : g.order())
            if (!g.node(id).meta.provenance.empty()) {
                copy = QString::fromStdString(g.node(id).name);
                original = QString::fromStdString(g.node(id).meta.provenance);
            }
        QVERIFY(!copy.isEmpty());
        QVERIFY(w.graphView()->showNode(copy));
        QVERIFY(w.waitIdle());
        QVERIFY2(w.inspectorText().contains(QStringLiteral("added: copy of ") + original),
                 qPrintable(w.inspectorText()));
        QVERIFY(w.inspectorHtml().contains(QStringLiteral("step:2::") + original));
        QVERIFY(w.showInStep(2, {}, original));
        QVERIFY(w.waitIdle());
        QCOMPARE(w.currentStep(), 2);
        QCOMPARE(w.graphView()->selected(), original);
        QVERIFY(!w.showInStep(2, {}, QStringLiteral("no_such_node")));
    }

    void stepBackAndForth_data() { remat_data(); }

    // Stepping back and forward restores the same views: groups open, selection, zoom.
    void stepBackAndForth()
    {
        QFETCH(QString, path);
        FXL_REQUIRE_CORPUS(path);
        MainWindow w;
        OPEN_IN(w, path);
        QVERIFY(w.runPipeline(kSpec).isEmpty());
        QVERIFY(w.showStep(3));
        QVERIFY(w.waitIdle());
        GraphView* v = w.graphView();
        // a node deep in the graph that the step before has too, selected and shown
        const Graph& g = *v->graph();
        const Graph& before = *w.runner()->steps()[2]->graph("")->prepared->graph;
        QString deep;
        for (NodeId id : g.order()) {
            const Node& n = g.node(id);
            if (n.op == NodeOp::CallFunction && before.findByName(n.name) != kNoNode
                && (deep.isEmpty() || !n.meta.modulePath.empty()))
                deep = QString::fromStdString(n.name);
        }
        QVERIFY(!deep.isEmpty());
        QVERIFY(v->showNode(deep));
        QVERIFY(w.waitIdle());
        v->setZoom(0.8);
        const auto keys = openKeys(v);
        const QString sel = v->selected();
        const QRectF seen = v->visibleRect();
        QCOMPARE(sel, deep);
        QVERIFY(w.stepBack());
        QVERIFY(w.waitIdle());
        QCOMPARE(w.currentStep(), 2);
        QCOMPARE(v->selected(), deep);  // the same node in the step before
        QVERIFY(w.stepForward());
        QVERIFY(w.waitIdle());
        QCOMPARE(w.currentStep(), 3);
        QCOMPARE(openKeys(v), keys);
        QCOMPARE(v->selected(), sel);
        QCOMPARE(v->zoom(), 0.8);
        // the centre, where the drawing is larger than the window (a smaller one is centred)
        const bool scrolls = v->sceneRect().width() > seen.width() && v->sceneRect().height() > seen.height();
        QVERIFY2(!scrolls
                     || (std::abs(v->visibleRect().center().x() - seen.center().x()) < 2
                         && std::abs(v->visibleRect().center().y() - seen.center().y()) < 2),
                 qPrintable(QStringLiteral("%1,%2 vs %3,%4")
                                .arg(v->visibleRect().center().x())
                                .arg(v->visibleRect().center().y())
                                .arg(seen.center().x())
                                .arg(seen.center().y())));
        // the keyboard does the same
        QTest::keyClick(&w, Qt::Key_Left, Qt::ControlModifier);
        QVERIFY(w.waitIdle());
        QCOMPARE(w.currentStep(), 2);
        QTest::keyClick(&w, Qt::Key_Right, Qt::ControlModifier);
        QVERIFY(w.waitIdle());
        QCOMPARE(w.currentStep(), 3);
        QVERIFY(!w.showStep(5));  // no such step
        QCOMPARE(w.currentStep(), 3);
    }

    // A failing pass shows its message on its step; the steps before it stay usable.
    void failingPass()
    {
        MainWindow w;
        OPEN_IN(w, mlpGelu());
        const QString failure = w.runPipeline(QStringLiteral("dce,partition,partition"));
        QVERIFY2(failure.contains(QLatin1String("step 3 (partition)")), qPrintable(failure));
        StepListModel* list = w.passes()->stepList();
        QCOMPARE(list->rowCount(), 4);
        QVERIFY(
            list->data(list->index(3, StepListModel::VerifierColumn)).toString().startsWith(QLatin1String("failed: ")));
        QCOMPARE(w.currentStep(), 2);  // the last good step is shown
        QVERIFY(!w.showStep(3));
        QVERIFY(w.showStep(1));
        QVERIFY(w.waitIdle());
        QVERIFY(w.showStep(2));
        QVERIFY(w.waitIdle());
        // the partition's two graphs
        QVERIFY(w.graphView()->graph());
        w.setStepRole(QStringLiteral("backward"));
        QVERIFY(w.waitIdle());
        QCOMPARE(w.graphView()->graph(), w.currentStepState()->graph("backward")->prepared->graph.get());
        QVERIFY(w.diffView()->diff());
        // fixing the spec and running again goes on from the good steps
        QVERIFY(w.runPipeline(QStringLiteral("dce,partition,dce")).isEmpty());
        QCOMPARE(w.runner()->stepsKept(), 3);
        QCOMPARE(list->rowCount(), 4);
    }

    // The pipeline editor: the registry's passes, options as typed fields, the spec text.
    void pipelineEditor()
    {
        MainWindow w;
        OPEN_IN(w, mlpGelu());
        PipelineEditor* e = w.passes();
        QVERIFY(e->setSpec(kSpec));
        QCOMPARE(e->pipeline()->count(), 4);
        QCOMPARE(e->specEdit()->text(), kSpec);
        e->stageView()->setCurrentIndex(e->pipeline()->index(1));
        auto* policy = e->findChild<QComboBox*>(QStringLiteral("option_policy"));
        QVERIFY(policy);
        QCOMPARE(policy->currentText(), QStringLiteral("alternate_mm"));
        QVERIFY(policy->toolTip().contains(QLatin1String("enum")));
        policy->setCurrentText(QStringLiteral("recompute_all"));
        QCOMPARE(e->pipeline()->stageText(1), QStringLiteral("sac(policy=recompute_all)"));
        QVERIFY(e->specEdit()->text().contains(QLatin1String("sac(policy=recompute_all)")));
        QVERIFY(!e->setSpec(QStringLiteral("dce,nosuchpass")));
        QVERIFY2(e->message().contains(QLatin1String("nosuchpass")), qPrintable(e->message()));
        QCOMPARE(e->pipeline()->count(), 4);  // unchanged
        e->savePipeline(QStringLiteral("mine"));
        QVERIFY(e->savedPipelines().contains(QStringLiteral("mine")));
        QVERIFY(e->setSpec(QStringLiteral("dce")));
        QVERIFY(e->loadPipeline(QStringLiteral("mine")));
        QVERIFY(e->pipeline()->spec().contains(QLatin1String("recompute_all")));
        QVERIFY(w.runPipeline(e->pipeline()->spec()).isEmpty());
        saveShot(*e, "stepper_pipeline_editor.png");
    }

    // An option that names modules offers the graph's module paths; in a list, for the item
    // being typed.
    void moduleOptionsComplete()
    {
        const auto gpt2 = fxltest::corpusPath("pytorch/gpt2_tiny.joint.code.py");
        FXL_REQUIRE_CORPUS(gpt2);
        MainWindow w;
        OPEN_IN(w, QString::fromStdString(gpt2.string()));
        PipelineEditor* e = w.passes();
        QVERIFY(e->setSpec(QStringLiteral("chunk_region,sac")));
        e->stageView()->setCurrentIndex(e->pipeline()->index(0));
        auto* regions = e->findChild<QLineEdit*>(QStringLiteral("option_regions"));
        QVERIFY(regions);
        QCompleter* c = regions->completer();
        QVERIFY(c);
        const QStringList modules = modulePathSuggestions(*w.runner()->input()->graph);
        QVERIFY(modules.contains(QStringLiteral("blocks.*")));
        QCOMPARE(c->model()->rowCount(), modules.size());
        QCOMPARE(c->splitPath(QStringLiteral("layers.*; blo")), QStringList{QStringLiteral("blo")});
        regions->setText(QStringLiteral("layers.*;blo"));
        const int at = int(modules.indexOf(QStringLiteral("blocks.*")));
        QCOMPARE(c->pathFromIndex(c->model()->index(at, 0)), QStringLiteral("layers.*;blocks.*"));
        e->stageView()->setCurrentIndex(e->pipeline()->index(1));
        auto* save = e->findChild<QLineEdit*>(QStringLiteral("option_save"));
        QVERIFY(save);
        QVERIFY(!save->completer());  // operators, not modules
    }

    // Two files open as a diff (what `fxlens A B` does), with the counts of `fxlens diff`.
    void twoFilesAsADiff()
    {
        QTemporaryDir dir;
        const auto written =
            clitest::fxlens({QStringLiteral("passes"), QStringLiteral("run"), mlpGelu(), QStringLiteral("--pipeline"),
                             kSpec, QStringLiteral("--out"), dir.path()});
        QVERIFY(written.exitCode == 0);
        const QString a = dir.filePath(QStringLiteral("02_sac.py")), b = dir.filePath(QStringLiteral("03_remat.py"));
        MainWindow w;
        w.setQuietErrors(true);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        const QString err = w.openDiff(a, {}, b, {});
        QVERIFY2(err.isEmpty(), qPrintable(err));
        QVERIFY(w.waitIdle());
        QCOMPARE(w.centralTabs()->currentWidget(), w.diffView());
        const auto diff = clitest::fxlens({QStringLiteral("diff"), a, b, QStringLiteral("--json")});
        const QJsonObject counts = clitest::parseJsonDoc(diff.out)[QStringLiteral("total_counts")].toObject();
        const DiffCounts c = w.diffView()->diff()->totalCounts();
        QCOMPARE(qint64(c.added), qint64(counts[QStringLiteral("added")].toInt()));
        QCOMPARE(qint64(c.changed), qint64(counts[QStringLiteral("changed")].toInt()));
        QCOMPARE(qint64(c.removed), qint64(counts[QStringLiteral("removed")].toInt()));
        // a missing file: a message, nothing lost
        QVERIFY(!w.openDiff(dir.filePath(QStringLiteral("nope.py")), {}, b, {}).isEmpty());
    }

    void tracePairAsADiff_data()
    {
        QTest::addColumn<QString>("path");
        for (const char* name :
             {"tlparse/inductor_provenance_jit_debug_handle_log.txt", "tlparse/autotune_with_compile_id.log"}) {
            const auto p = fxltest::corpusPath(name);
            QTest::newRow(name) << QString::fromStdString(p.string());
        }
    }

    // A before_*/after_* pair of a TORCH_TRACE log opens as a diff, before on the left.
    void tracePairAsADiff()
    {
        QFETCH(QString, path);
        FXL_REQUIRE_CORPUS(path);
        MainWindow w;
        OPEN_IN(w, path);
        const auto src = openSource(path.toStdString());
        int pairs = 0;
        for (const Artifact& a : src->artifacts) {
            if (!a.isGraph || a.pairedWith.empty() || a.kind.rfind("after_", 0) != 0) continue;
            const QString err = w.diffPair(0, QString::fromStdString(a.id));
            QVERIFY2(err.isEmpty(), qPrintable(err));
            QVERIFY(w.waitIdle());
            const Artifact* before = src->find(a.pairedWith);
            QVERIFY(before);
            QCOMPARE(w.diffView()->viewA()->prepared()->artifactId, before->id);
            QCOMPARE(w.diffView()->viewB()->prepared()->artifactId, a.id);
            // the counts are those of the two graphs' diff
            const DiffCounts c = diffGraphs(*src->graph(before->id), *src->graph(a.id)).totalCounts();
            QCOMPARE(w.diffView()->diff()->totalCounts(), c);
            ++pairs;
        }
        QVERIFY(pairs > 0);
        QVERIFY(!w.diffPair(0, QStringLiteral("no-such-id")).isEmpty());
    }
};

FXL_TEST_MAIN(TestPassStepper)
}  // namespace test_pass_stepper
// the file's macros end with it (a unity batch compiles several test files as one)
#undef OPEN_IN
#include "test_pass_stepper.moc"
