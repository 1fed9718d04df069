// The chunk passes in the window, offscreen, as a user drives them (issue 13): both passes are in
// the pipeline editor with their options; a chunk step's diff view shows what `fxlens diff --json`
// counts for the step files, with each chunk's duplicated body grouped as "chunk K" below its
// region; the memory timeline shows the step's estimated peak (`fxlens mem --json`) and, for
// auto_chunk on linear_ce, a lower peak than the step before; the run panel checks the chunk
// step against eager chunking of the step before: every output bitwise equal, each row saying how
// the reference combined it. Screenshots go to the build directory's tests/ (chunk_*.png).
#include <QApplication>
#include <QDockWidget>
#include <QTemporaryDir>
#include <QtTest>

#include "app/cli_test_util.hpp"
#include "gui_test_util.hpp"
#include "passes/pass.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"
#include "viewer/jobs/step_jobs.hpp"
#include "viewer/model/equivalence_model.hpp"
#include "viewer/model/pipeline_model.hpp"
#include "viewer/model/step_list_model.hpp"
#include "viewer/model/timeline_model.hpp"
#include "viewer/model/view_graph.hpp"
#include "viewer/widgets/diff_view.hpp"
#include "viewer/widgets/graph_view.hpp"
#include "viewer/widgets/main_window.hpp"
#include "viewer/widgets/pipeline_editor.hpp"
#include "viewer/widgets/run_panel.hpp"
#include "viewer/widgets/timeline_view.hpp"

namespace test_chunk_stepper {

using namespace fxl;
using namespace fxl::viewer;
using guitest::saveShot;

namespace {

QString corpus(const char* name) { return QString::fromStdString(fxltest::corpusPath(name).string()); }

// Labels of the groups below `parent` in the tree.
QStringList childLabels(const GroupTree& t, int parent)
{
    QStringList out;
    for (int k : t.group(parent).childGroups) out << QString::fromStdString(t.group(k).label);
    return out;
}

}  // namespace

class TestChunkStepper : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase() { guitest::initWindowTests(); }

    // Both passes are offered with their options (the editor is fed by the registry).
    void editorOffersBothPasses()
    {
        for (const char* name : {"auto_chunk", "chunk_region"}) {
            const Pass* p = PassRegistry::instance().find(name);
            QVERIFY2(p, name);
            QVERIFY(!p->options().empty());
        }
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        PipelineEditor* ed = w.passes();
        QVERIFY(ed->setSpec(QStringLiteral("chunk_region(regions=blocks.*,dim=seq,chunks=4)")));
        const PipelineModel* m = ed->pipeline();
        QCOMPARE(m->count(), 1);
        QCOMPARE(m->pass(0), QStringLiteral("chunk_region"));
        QCOMPARE(QString::fromStdString(m->options(0).at("dim")), QStringLiteral("seq"));
        QVERIFY(ed->setSpec(QStringLiteral("auto_chunk(chunks=8)")));
        QCOMPARE(m->pass(0), QStringLiteral("auto_chunk"));
        QVERIFY(!ed->setSpec(QStringLiteral("chunk_region(dim=rows)")));  // a bad option value is refused
    }

    void chunkStep_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("spec");
        QTest::addColumn<QString>("region");  // the region whose chunk groups are looked for ("" : none in the parent)
        QTest::addColumn<bool>("lowerPeak");
        QTest::addColumn<QString>("shot");
        QTest::newRow("gpt2_tiny chunk_region")
            << corpus("pytorch/gpt2_tiny.joint.code.py") << "chunk_region(regions=blocks.*,dim=batch)"
            << "blocks.0" << false << "gpt2_tiny";
        QTest::newRow("linear_ce auto_chunk")
            << corpus("pytorch/linear_ce.joint.code.py") << "auto_chunk(chunks=4,amplify_ratio=1,min_output_bytes=0)"
            << "" << true << "linear_ce";
    }
    void chunkStep()
    {
        QFETCH(QString, path);
        QFETCH(QString, spec);
        QFETCH(QString, region);
        QFETCH(bool, lowerPeak);
        QFETCH(QString, shot);
        FXL_REQUIRE_CORPUS(path);
        MainWindow w;
        w.setQuietErrors(true);
        w.resize(1500, 950);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY2(w.openPath(path).isEmpty(), qPrintable(w.lastError()));
        QVERIFY(w.waitIdle());
        const QString failure = w.runPipeline(spec);
        QVERIFY2(failure.isEmpty(), qPrintable(failure));
        QCOMPARE(w.currentStep(), 1);

        // the diff view against the CLI's diff of the written step files
        QTemporaryDir dir;
        const auto written = clitest::fxlens({QStringLiteral("passes"), QStringLiteral("run"), path,
                                              QStringLiteral("--pipeline"), spec, QStringLiteral("--out"), dir.path()});
        QVERIFY2(written.exitCode == 0, written.err.constData() + written.out);
        const QStringList files = QDir(dir.path()).entryList({QStringLiteral("0*.py")}, QDir::Files, QDir::Name);
        QCOMPARE(files.size(), 2);
        const auto diff = clitest::fxlens(
            {QStringLiteral("diff"), dir.filePath(files[0]), dir.filePath(files[1]), QStringLiteral("--json")});
        const QJsonObject counts = clitest::parseJsonDoc(diff.out)[QStringLiteral("total_counts")].toObject();
        DiffView* d = w.diffView();
        QVERIFY(d->diff());
        const DiffCounts c = d->diff()->totalCounts();
        QCOMPARE(qint64(c.added), qint64(counts[QStringLiteral("added")].toInt()));
        QCOMPARE(qint64(c.removed), qint64(counts[QStringLiteral("removed")].toInt()));
        QCOMPARE(qint64(c.changed), qint64(counts[QStringLiteral("changed")].toInt()));
        QVERIFY(c.added > 0);

        // the duplicated bodies, one group per chunk below the region's root, forward and backward
        const GroupTree* t = d->viewB()->tree();
        QVERIFY(t);
        if (!region.isEmpty()) {
            for (const char* phase : {"forward", "backward"}) {
                const int ph = t->find(phase);
                QVERIFY2(ph > 0, phase);
                const int root = t->child(ph, region.toStdString());
                QVERIFY2(root > 0, qPrintable(childLabels(*t, ph).join(',')));
                const QStringList inside = childLabels(*t, root);
                QVERIFY2(inside.contains(QStringLiteral("chunk 0")) && inside.contains(QStringLiteral("chunk 1")),
                         qPrintable(phase + QStringLiteral(": ") + inside.join(',')));
            }
        }

        // the timeline: the step's estimated peak is `fxlens mem`'s, and auto_chunk lowers it
        const auto mem = clitest::fxlens({QStringLiteral("mem"), dir.filePath(files[1]), QStringLiteral("--json")});
        const QJsonObject peak =
            clitest::parseJsonDoc(mem.out)[QStringLiteral("timeline")].toObject()[QStringLiteral("peak")].toObject();
        QCOMPARE(w.timelineModel()->current()->peakBytes, qint64(peak[QStringLiteral("bytes")].toDouble()));
        QVERIFY(w.timelineModel()->hasPrevious());
        const qint64 before = w.timelineModel()->previous()->peakBytes;
        if (lowerPeak) {
            QVERIFY2(w.timelineModel()->current()->peakBytes < before,
                     qPrintable(QStringLiteral("%1 vs %2").arg(w.timelineModel()->current()->peakBytes).arg(before)));
        }

        // the run panel in eager-chunking mode
        const auto o = w.runCheck(static_cast<int>(RunPanel::Against::EagerChunking));
        QVERIFY2(o, qPrintable(w.statusText() + QLatin1Char('|') + w.runPanel()->summaryText()));
        QVERIFY2(o->ok, o->error.c_str());
        QVERIFY(o->compared);
        QVERIFY(o->request.eagerChunks.has_value());
        QVERIFY2(o->bitwise(), o->summary().c_str());
        EquivalenceModel* table = w.runPanel()->table();
        QCOMPARE(size_t(table->rowCount()), o->report.outputs.size());
        QCOMPARE(o->outputNotes.size(), o->report.outputs.size());
        int sums = 0;
        for (int r = 0; r < table->rowCount(); ++r) {
            QCOMPARE(table->data(table->index(r, EquivalenceModel::ResultColumn)).toString(),
                     QStringLiteral("bitwise"));
            const QString note = table->data(table->index(r, EquivalenceModel::NoteColumn)).toString();
            QVERIFY2(!note.isEmpty(), qPrintable(QString::number(r)));
            sums += note.contains(QLatin1String("sum of")) ? 1 : 0;
        }
        QVERIFY(sums > 0);  // the parameter gradients: summed in chunk order, bitwise with the chunk step
        QVERIFY2(w.runPanel()->summaryText().contains(QLatin1String("reference: eager chunking (")),
                 qPrintable(w.runPanel()->summaryText()));
        // measured beside the estimate
        QVERIFY(w.timelineModel()->hasMeasured());
        QCOMPARE(w.timelineModel()->measuredPeak(), w.timelineModel()->current()->peakBytes);

        // a step not made by a chunk pass cannot be checked that way: the window says why
        QVERIFY(w.showStep(0));
        QVERIFY(w.waitIdle());
        QVERIFY(w.runCheck(static_cast<int>(RunPanel::Against::EagerChunking)) == nullptr);

        if (!shot.isEmpty()) {
            QVERIFY(w.showStep(1));
            QVERIFY(w.waitIdle());
            w.centralTabs()->setCurrentWidget(d);
            d->showChange(0);
            QVERIFY(w.waitIdle());
            // a node of chunk 1's body: its groups open on the right (blocks.0 > chunk 1 > ...)
            if (!region.isEmpty()) {
                QString inChunk1;
                d->viewB()->graph()->forEachNode([&](const Node& n) {
                    if (inChunk1.isEmpty() && n.meta.chunk.is_object() && n.meta.chunk.value("chunk_id", -1) == 1
                        && n.meta.modulePath.find(".attn.c_attn") != std::string::npos)
                        inChunk1 = QString::fromStdString(n.name);
                });
                QVERIFY(!inChunk1.isEmpty());
                QVERIFY(d->viewB()->showNode(inChunk1));
                QVERIFY(w.waitIdle());
            }
            saveShot(w, ("chunk_diff_" + shot + ".png").toUtf8().constData());
            saveShot(*w.timelineView(), ("chunk_timeline_" + shot + ".png").toUtf8().constData());
            QVERIFY(w.runCheck(static_cast<int>(RunPanel::Against::EagerChunking)));
            auto* dock = w.findChild<QDockWidget*>(QStringLiteral("run"));
            QVERIFY(dock);
            dock->show();
            dock->raise();
            w.resize(w.width(), 1100);
            QCoreApplication::processEvents();
            w.resizeDocks({dock}, {360}, Qt::Vertical);
            QCoreApplication::processEvents();
            saveShot(*w.runPanel(), ("chunk_run_" + shot + ".png").toUtf8().constData());
        }
    }
};

FXL_TEST_MAIN(TestChunkStepper)
}  // namespace test_chunk_stepper
#include "test_chunk_stepper.moc"
