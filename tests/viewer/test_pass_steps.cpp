// The pass stepper without widgets: the pipeline model (add, move, remove, options checked,
// spec round trip), the step runner (steps made off the UI thread, each with its diff and
// memory timeline; a new spec keeps the common prefix; a failing pass leaves the earlier steps;
// cancel), and the models the window shows (step list, change list, timeline), each checked by
// QAbstractItemModelTester and against the CLI: every step's diff counts equal `fxlens diff
// --json` of the step files `fxlens passes run --out` writes, every step's timeline peak equals
// `fxlens mem --json`.
#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>

#include <set>

#include "app/cli_test_util.hpp"
#include "core/formats/source.hpp"
#include "core/ir/diagnostics.hpp"
#include "core/util/format.hpp"
#include "passes/pass.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"
#include "viewer/jobs/step_jobs.hpp"
#include "viewer/model/change_list_model.hpp"
#include "viewer/model/pipeline_model.hpp"
#include "viewer/model/provenance_trail.hpp"
#include "viewer/model/step_list_model.hpp"
#include "viewer/model/timeline_model.hpp"
#include "viewer/render/timeline_draw.hpp"

namespace test_pass_steps {

using namespace fxl;
using namespace fxl::viewer;

namespace {

const QString kSpec = QStringLiteral("remove_detach,sac(policy=alternate_mm),remat,dce");

std::shared_ptr<const PreparedGraph> prepare(const std::filesystem::path& path)
{
    std::shared_ptr<Source> src = openSource(path.string());
    return ViewJobs::prepareNow(src, src->graphs().front()->id);
}

// Runs `spec` and waits for the run's end; returns (ok, message).
std::pair<bool, QString> runAndWait(StepRunner& r, const QString& spec)
{
    QSignalSpy done(&r, &StepRunner::finished);
    r.run(spec);
    if (!done.wait(60000)) return {false, QStringLiteral("timed out")};
    return {done.first().at(1).toBool(), done.first().at(2).toString()};
}

}  // namespace

class TestPassSteps : public QObject
{
    Q_OBJECT

private slots:
    void pipelineModel()
    {
        PipelineModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.addStage(QStringLiteral("remove_detach"));
        m.addStage(QStringLiteral("remat"));
        m.addStage(QStringLiteral("sac"), {{"policy", "alternate_mm"}}, 1);
        QCOMPARE(m.spec(), QStringLiteral("remove_detach,sac(policy=alternate_mm),remat"));
        m.moveStage(2, 0);
        QCOMPARE(m.spec(), QStringLiteral("remat,remove_detach,sac(policy=alternate_mm)"));
        m.moveStage(0, 2);
        QCOMPARE(m.spec(), QStringLiteral("remove_detach,sac(policy=alternate_mm),remat"));
        m.removeStage(0);
        QCOMPARE(m.spec(), QStringLiteral("sac(policy=alternate_mm),remat"));
        QVERIFY(m.valid());
        // a bad value is kept, with its error on its row
        m.setOption(0, QStringLiteral("policy"), QStringLiteral("nonsense"));
        QVERIFY(!m.valid());
        QVERIFY2(m.error(0).contains(QLatin1String("policy")), qPrintable(m.error(0)));
        QVERIFY(m.dump().contains(QLatin1String("error:")));
        m.setOption(0, QStringLiteral("policy"), QString());  // back to the default
        QVERIFY(m.valid());
        QCOMPARE(m.stageText(0), QStringLiteral("sac"));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, m.addStage(QStringLiteral("no_such_pass")));
        // the spec round trip, and a bad spec changes nothing
        m.setSpec(kSpec);
        QCOMPARE(m.spec(), kSpec);
        QCOMPARE(m.count(), 4);
        try {
            m.setSpec(QStringLiteral("dce,remat(nope=1)"));
            QFAIL("a bad option must throw");
        } catch (const InputError& e) {
            QVERIFY2(e.diagnostic().format().find("nope") != std::string::npos, e.what());
            QVERIFY(e.diagnostic().column > 1);
        }
        QCOMPARE(m.spec(), kSpec);
        m.setSpec(QString());
        QCOMPARE(m.count(), 0);
    }

    void stepsMatchTheCli_data()
    {
        QTest::addColumn<QString>("path");
        QTest::newRow("mlp_gelu") << QString::fromStdString(
            fxltest::testDataPath("pytorch/mlp_gelu.joint.code.py").string());
        const auto gpt2 = fxltest::corpusPath("pytorch/gpt2_tiny.joint.code.py");
        QTest::newRow("gpt2_tiny") << QString::fromStdString(gpt2.string());
    }

    // Every step's diff counts and timeline peak equal what the CLI says of the step files.
    void stepsMatchTheCli()
    {
        QFETCH(QString, path);
        FXL_REQUIRE_CORPUS(path);
        StepRunner r;
        r.setInput(prepare(path.toStdString()));
        QSignalSpy arrived(&r, &StepRunner::stepAvailable);
        const auto [ok, message] = runAndWait(r, kSpec);
        QVERIFY2(ok, qPrintable(message));
        QCOMPARE(int(r.steps().size()), 5);
        QCOMPARE(arrived.count(), 5);  // one at a time
        QTemporaryDir dir;
        const auto written =
            clitest::fxlens({QStringLiteral("passes"), QStringLiteral("run"), path, QStringLiteral("--pipeline"), kSpec,
                             QStringLiteral("--out"), dir.path()});
        QVERIFY2(written.exitCode == 0, written.err.constData());
        const QStringList files = QDir(dir.path()).entryList({QStringLiteral("0*.py")}, QDir::Files, QDir::Name);
        QCOMPARE(files.size(), 5);
        StepListModel list;
        QAbstractItemModelTester tester(&list, QAbstractItemModelTester::FailureReportingMode::QtTest);
        list.setSteps(r.steps(), kSpec.split(QLatin1Char(',')), false);
        QCOMPARE(list.rowCount(), 5);
        for (int k = 0; k < 5; ++k) {
            const auto& st = *r.steps()[static_cast<size_t>(k)];
            QCOMPARE(st.index, k);
            QVERIFY(!st.failed);
            const StepGraph& sg = *st.graph("");
            const QString file = dir.filePath(files[k]);
            const auto mem = clitest::fxlens({QStringLiteral("mem"), file, QStringLiteral("--json")});
            QCOMPARE(mem.exitCode, 0);
            const QJsonObject peak = clitest::parseJsonDoc(mem.out)[QStringLiteral("timeline")]
                                         .toObject()[QStringLiteral("peak")]
                                         .toObject();
            QCOMPARE(qint64(sg.timeline->peakBytes), qint64(peak[QStringLiteral("bytes")].toDouble()));
            QCOMPARE(QString::fromStdString(sg.timeline->peakNode()), peak[QStringLiteral("node")].toString());
            TimelineModel tm;
            tm.setTimelines(sg.timeline, sg.prepared->graph, sg.previousTimeline, sg.previous, sg.diff);
            QCOMPARE(tm.peakLabel(),
                     QStringLiteral("peak %1 at %2")
                         .arg(QString::fromStdString(formatByteSize(qint64(peak[QStringLiteral("bytes")].toDouble()))),
                              peak[QStringLiteral("node")].toString()));
            if (k == 0) {
                QVERIFY(!sg.diff);
                continue;
            }
            const auto diff =
                clitest::fxlens({QStringLiteral("diff"), dir.filePath(files[k - 1]), file, QStringLiteral("--json")});
            QCOMPARE(diff.exitCode, 0);
            const QJsonObject counts = clitest::parseJsonDoc(diff.out)[QStringLiteral("total_counts")].toObject();
            const DiffCounts c = st.diffCounts();
            QCOMPARE(qint64(c.added), qint64(counts[QStringLiteral("added")].toInt()));
            QCOMPARE(qint64(c.removed), qint64(counts[QStringLiteral("removed")].toInt()));
            QCOMPARE(qint64(c.changed), qint64(counts[QStringLiteral("changed")].toInt()));
            QCOMPARE(qint64(c.rewired), qint64(counts[QStringLiteral("rewired")].toInt()));
            QCOMPARE(list.data(list.index(k, StepListModel::AddedColumn)).toLongLong(), qint64(c.added));
            QCOMPARE(list.data(list.index(k, StepListModel::ChangedColumn)).toLongLong(), qint64(c.changed));
            QCOMPARE(list.data(list.index(k, StepListModel::VerifierColumn)).toString(), QStringLiteral("ok"));
            // the change list lists every change of the step
            ChangeListModel changes;
            QAbstractItemModelTester ct(&changes, QAbstractItemModelTester::FailureReportingMode::QtTest);
            changes.setDiff(sg.diff.get());
            QCOMPARE(size_t(changes.rowCount()), c.added + c.removed + c.changed);
            QCOMPARE(changes.count(DiffClass::Added), c.added);
        }
        // remat adds a recomputed node: the step list says so
        QVERIFY(r.steps()[3]->diffCounts().added > 0);
        QVERIFY2(list.dump().contains(QLatin1String("3 remat")), qPrintable(list.dump()));
    }

    // A new spec keeps the steps of the common prefix; a failing pass ends the run with its
    // message on its step, the earlier steps intact.
    void prefixKeptAndFailure()
    {
        StepRunner r;
        r.setInput(prepare(fxltest::testDataPath("pytorch/mlp_gelu.joint.code.py")));
        QVERIFY(runAndWait(r, kSpec).first);
        const auto step2 = r.steps()[2];
        QVERIFY(runAndWait(r, kSpec + QStringLiteral(",cse")).first);
        QCOMPARE(r.stepsKept(), 5);
        QCOMPARE(int(r.steps().size()), 6);
        QCOMPARE(r.steps()[2], step2);  // the very same step
        QVERIFY(runAndWait(r, QStringLiteral("remove_detach,cse")).first);
        QCOMPARE(r.stepsKept(), 2);
        QCOMPARE(r.steps()[2]->pass, std::string("cse"));

        const auto [ok, message] = runAndWait(r, QStringLiteral("dce,partition,partition"));
        QVERIFY(!ok);
        QVERIFY2(message.startsWith(QLatin1String("step 3 (partition): ")), qPrintable(message));
        QVERIFY2(message.contains(QLatin1String("exactly one joint graph")), qPrintable(message));
        QCOMPARE(int(r.steps().size()), 4);
        QVERIFY(r.steps()[3]->failed);
        QVERIFY(r.steps()[3]->graphs.empty());
        // the steps before it are whole: the partition's two graphs, their timelines and diffs
        const auto& part = *r.steps()[2];
        QVERIFY(!part.failed);
        QCOMPARE(int(part.graphs.size()), 2);
        QCOMPARE(part.graphs[0].role, std::string("forward"));
        for (const StepGraph& g : part.graphs) {
            QVERIFY(g.timeline && g.diff && g.prepared);
            QCOMPARE(g.previousRole, std::string(""));
        }
        StepListModel list;
        QAbstractItemModelTester tester(&list, QAbstractItemModelTester::FailureReportingMode::QtTest);
        list.setSteps(r.steps(), QStringLiteral("dce,partition,partition").split(QLatin1Char(',')), false);
        const QString verdict = list.data(list.index(3, StepListModel::VerifierColumn)).toString();
        QVERIFY2(verdict.startsWith(QLatin1String("failed: ")), qPrintable(verdict));
        QCOMPARE(list.data(list.index(2, StepListModel::VerifierColumn)).toString(), QStringLiteral("ok"));
        // and running again after fixing the spec makes the failed step anew
        QVERIFY(runAndWait(r, QStringLiteral("dce,partition,dce")).first);
        QCOMPARE(r.stepsKept(), 3);
        QVERIFY(!r.steps()[3]->failed);
    }

    // A recomputed node's trail goes through the forward node it copies, down to the input.
    void provenance()
    {
        StepRunner r;
        r.setInput(prepare(fxltest::testDataPath("pytorch/mlp_gelu.joint.code.py")));
        QVERIFY(runAndWait(r, kSpec).first);
        const Graph& g = *r.steps()[4]->graph("")->prepared->graph;
        std::string copy;
        for (NodeId id : g.order())
            if (!g.node(id).meta.provenance.empty()) copy = g.node(id).name;
        QVERIFY(!copy.empty());
        const auto trail = provenanceTrail(r.steps(), 4, "", copy);
        const std::string text = trailToText(trail, r.steps());
        QCOMPARE(int(trail.size()), 5);
        QCOMPARE(trail[0].step, 4);
        QCOMPARE(trail[0].change, std::string("unchanged"));
        QCOMPARE(trail[1].step, 3);
        QVERIFY2(trail[1].change.rfind("added: copy of ", 0) == 0, text.c_str());
        QCOMPARE(trail[1].copyOf, g.node(g.findByName(copy)).meta.provenance);
        QCOMPARE(trail[2].node, trail[1].copyOf);  // continues through the original
        QVERIFY2(trail[2].change.find("recompute") != std::string::npos, text.c_str());  // sac tagged it
        QCOMPARE(trail[4].step, 0);
        QCOMPARE(trail[4].change, std::string("input"));
        QVERIFY(provenanceTrail(r.steps(), 4, "", "no_such_node").empty());
        QVERIFY(provenanceTrail(r.steps(), 9, "", copy).empty());
        // a node the input has, unchanged all the way: one entry per step
        QCOMPARE(int(provenanceTrail(r.steps(), 4, "", "mm").size()), 5);
    }

    void cancelDropsTheRest()
    {
        StepRunner r;
        r.setInput(prepare(fxltest::testDataPath("pytorch/mlp_gelu.joint.code.py")));
        QSignalSpy done(&r, &StepRunner::finished);
        QSignalSpy arrived(&r, &StepRunner::stepAvailable);
        r.run(kSpec + QStringLiteral(",cse,dce,cse,dce"));
        r.cancel();
        QCOMPARE(done.count(), 1);
        QVERIFY(!done.first().at(1).toBool());
        QVERIFY2(done.first().at(2).toString().startsWith(QLatin1String("cancelled")),
                 qPrintable(done.first().at(2).toString()));
        const qsizetype seen = arrived.count();
        QTest::qWait(300);  // the worker's results after the cancel are dropped
        QCOMPARE(arrived.count(), seen);
        QVERIFY(!r.busy());
    }

    // The module paths an option naming modules offers: every depth, and each numbered
    // family as a pattern; only options whose help says they name modules.
    void moduleSuggestions()
    {
        const auto path = fxltest::corpusPath("pytorch/gpt2_tiny.joint.code.py");
        FXL_REQUIRE_CORPUS(path);
        const auto g = prepare(path.string())->graph;
        const QStringList s = modulePathSuggestions(*g);
        for (const char* want : {"blocks", "blocks.0", "blocks.1.attn", "blocks.*", "blocks.*.attn", "wte"})
            QVERIFY2(s.contains(QLatin1String(want)),
                     qPrintable(QLatin1String(want) + QLatin1String(" not in ") + s.join(QLatin1Char(' '))));
        QVERIFY(std::is_sorted(s.begin(), s.end()));
        QCOMPARE(modulePathSuggestions(*g, 3).size(), 3);
        const Pass* chunk = PassRegistry::instance().find("chunk_region");
        const Pass* sac = PassRegistry::instance().find("sac");
        QVERIFY(chunk && sac);
        int naming = 0;
        for (const PassOption& o : chunk->options()) naming += optionNamesModules(o) ? 1 : 0;
        QCOMPARE(naming, 1);  // regions
        for (const PassOption& o : sac->options()) QVERIFY2(!optionNamesModules(o), o.name.c_str());
    }

    // The timeline model over a remat step: the step before on the same axis, the peak, the
    // largest values live at a point; and its image.
    void timelineOverlay_data() { stepsMatchTheCli_data(); }

    void timelineOverlay()
    {
        QFETCH(QString, path);
        FXL_REQUIRE_CORPUS(path);
        StepRunner r;
        r.setInput(prepare(path.toStdString()));
        QVERIFY(runAndWait(r, kSpec).first);
        const StepGraph& sg = *r.steps()[3]->graph("");
        TimelineModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setTimelines(sg.timeline, sg.prepared->graph, sg.previousTimeline, sg.previous, sg.diff);
        QCOMPARE(size_t(m.rowCount()), sg.diff->nodes.size());
        size_t missing = 0, added = 0;
        for (const auto& p : m.points()) {
            missing += (p.flags & TimelineModel::CurrentMissing) ? 1 : 0;
            added += (p.flags & TimelineModel::PreviousMissing) ? 1 : 0;
        }
        QCOMPARE(missing, sg.diff->counts.removed);
        QCOMPARE(added, sg.diff->counts.added);
        QVERIFY(m.peakRow() >= 0 && m.previousPeakRow() >= 0);
        QCOMPARE(m.nameAt(m.peakRow()), QString::fromStdString(sg.timeline->peakNode()));
        QCOMPARE(m.points()[size_t(m.peakRow())].live, sg.timeline->peakBytes);
        QCOMPARE(m.points()[size_t(m.previousPeakRow())].previousLive, sg.previousTimeline->peakBytes);
        QVERIFY(m.peakChangeLabel().contains(QString::fromStdString(formatByteSize(sg.timeline->peakBytes))));
        const QStringList largest = m.largestLiveAt(m.peakRow(), 3);
        QVERIFY(!largest.isEmpty());
        const int top = sg.timeline->liveAtPeak.front();
        QVERIFY2(
            largest.front().endsWith(QString::fromStdString(formatByteSize(sg.timeline->storages[size_t(top)].bytes))),
            qPrintable(largest.join(QLatin1Char('|'))));
        QCOMPARE(m.boundaryRow() >= 0, sg.timeline->boundaryStep >= 0);
        // the export: the step before is drawn (its orange line), and the peak marker (red)
        const QImage img = renderTimelineImage(m, 900, 260);
        QVERIFY(img.save(QString::fromStdString(
            (fxltest::buildDir() / "tests" / ("timeline_remat_" + std::string(QTest::currentDataTag()) + ".png"))
                .string())));
        int orange = 0, red = 0;
        for (int y = 0; y < img.height(); ++y)
            for (int x = 0; x < img.width(); ++x) {
                const QColor c = img.pixelColor(x, y);
                orange += (c.red() > 200 && c.green() > 110 && c.green() < 170 && c.blue() < 60) ? 1 : 0;
                red += (c.red() > 180 && c.green() < 60 && c.blue() < 60) ? 1 : 0;
            }
        QVERIFY2(orange > 50, qPrintable(QString::number(orange)));
        QVERIFY2(red > 10, qPrintable(QString::number(red)));

        // the legend explains each colour drawn: the output its own colour, the backward's start
        // its dashed line
        QStringList legend;
        for (const TimelineLegendEntry& e : timelineLegend(m, TimelineDrawOptions{})) legend << e.text;
        QVERIFY2(legend.contains(QStringLiteral("output")) && legend.contains(QStringLiteral("forward"))
                     && legend.contains(QStringLiteral("step before")),
                 qPrintable(legend.join(QLatin1Char('|'))));
        QCOMPARE(legend.contains(QStringLiteral("backward starts")), m.boundaryRow() >= 0);
        std::set<QRgb> colours;
        for (StepPhase ph : {StepPhase::Input, StepPhase::Forward, StepPhase::Backward, StepPhase::Output})
            colours.insert(timelineAreaColour(ph, false).rgb());
        QCOMPARE(colours.size(), size_t(4));
        // the output row (the last) is drawn in the output colour: a timeline of its last rows
        TimelineDrawOptions tail;
        tail.first = m.rowCount() - 2;
        tail.legend = tail.title = false;
        QCOMPARE(m.points().back().phase, StepPhase::Output);
        QImage end(400, 200, QImage::Format_ARGB32);
        end.fill(Qt::white);
        {
            QPainter painter(&end);
            drawTimeline(painter, QRectF(0, 0, 400, 200), m, tail);
        }
        const QRectF plot = timelinePlotRect(QRectF(0, 0, 400, 200), tail);
        const int x = int(timelineXOf(m.rowCount() - 1, plot, tail, m));
        int outputPixels = 0;
        for (int y = int(plot.top()); y < int(plot.bottom()); ++y)
            outputPixels += end.pixelColor(x, y).rgb() == timelineAreaColour(StepPhase::Output, false).rgb() ? 1 : 0;
        QVERIFY2(outputPixels > 0, "the output row is not drawn in the output colour");
    }
};

FXL_TEST_MAIN(TestPassSteps)
}  // namespace test_pass_steps
#include "test_pass_steps.moc"
