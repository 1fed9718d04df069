// `fxlens info` on a workspace file, through the real binary: what the workspace holds (sources,
// pipeline, steps, runs, notes, the view), as text and --json; a changed source is named; a
// file that is not a workspace is refused with the file and a nonzero exit code.
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>

#include "app/cli_test_util.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"
#include "workspace/workspace.hpp"

namespace test_cli_workspace_info {

using namespace fxl;
namespace fs = std::filesystem;

class TestCliWorkspaceInfo : public QObject
{
    Q_OBJECT

private slots:
    void info()
    {
        QTemporaryDir dir;
        const fs::path root = dir.path().toStdString();
        const fs::path graph = root / "mlp_gelu.joint.code.py";
        fs::copy_file(fxltest::testDataPath("pytorch/mlp_gelu.joint.code.py"), graph);
        const fs::path file = root / "w.fxlens";
        {
            Workspace ws = Workspace::create(file);
            const int64_t id = ws.addSource(graph);
            ws.setSourcePipeline(id, "remove_detach,dce");
            ws.saveSteps(id,
                         {{0, "", "", 0, 0, 0, 0, true, 0, ""},
                          {1, "remove_detach", "remove_detach", 0, 1, 1, 0, true, 1e-4, ""},
                          {2, "dce", "dce", 0, 0, 0, 0, true, 2e-5, ""}});
            RunRecord run;
            run.source = id;
            run.step = 2;
            run.against = "input";
            run.reportJson = R"({"summary": "bitwise equal: 3 outputs"})";
            ws.addRun(run);
            ws.setNote(id, "", "mm", "look here");
            ws.savePipeline("mine", "cse,dce");
            ViewState v;
            v.currentSource = id;
            v.stepIndex = 2;
            v.selectedNode = "mm";
            v.openTabs = {"diff"};
            ws.saveViewState(v);
        }
        const QString path = QString::fromStdString(file.string());
        const auto text = clitest::fxlens({QStringLiteral("info"), path});
        QCOMPARE(text.exitCode, 0);
        const QString out = QString::fromUtf8(text.out);
        for (const char* want : {"fxlens workspace (format 3", "pipeline remove_detach,dce",
                                 "step 1 remove_detach  +0 -1 changed 0 rewired 1",
                                 "run of step 2 against input on cpu: bitwise equal: 3 outputs", "1 note(s)",
                                 "pipeline 'mine': cse,dce", "view: step 2, node mm", "changed on disk since: none"})
            QVERIFY2(out.contains(QLatin1String(want)),
                     qPrintable(QStringLiteral("missing '%1' in:\n%2").arg(QLatin1String(want), out)));
        const auto js = clitest::fxlens({QStringLiteral("info"), path, QStringLiteral("--json")});
        QCOMPARE(js.exitCode, 0);
        const QJsonObject w = clitest::parseJsonDoc(js.out)[QStringLiteral("workspaces")].toArray().at(0).toObject();
        QCOMPARE(w[QStringLiteral("sources")].toArray().size(), 1);
        QCOMPARE(w[QStringLiteral("sources")].toArray().at(0).toObject()[QStringLiteral("steps")].toArray().size(), 3);
        QCOMPARE(w[QStringLiteral("view")].toObject()[QStringLiteral("step")].toInt(), 2);
        QCOMPARE(w[QStringLiteral("sources")]
                     .toArray()
                     .at(0)
                     .toObject()[QStringLiteral("steps")]
                     .toArray()
                     .at(1)
                     .toObject()[QStringLiteral("changed")]
                     .toInt(),
                 0);
        // a step recorded by a workspace of format 2 (its changed count unknown): its counts are
        // said to be the pass's own
        {
            Workspace ws = Workspace::open(file);
            const int64_t id = ws.sources().front().id;
            std::vector<StepRecord> old = ws.steps(id);
            old[1].changed = -1;
            ws.saveSteps(id, old);
        }
        const auto older = clitest::fxlens({QStringLiteral("info"), path});
        QVERIFY2(older.out.contains("step 1 remove_detach  +0 -1 rewired 1 tags 0 (as the pass logged them)"),
                 older.out.constData());
        // the source edited since: named
        std::ofstream(graph, std::ios::app) << "# edited\n";
        const auto changed = clitest::fxlens({QStringLiteral("info"), path});
        QVERIFY2(changed.out.contains("mlp_gelu.joint.code.py: modified"), changed.out.constData());
    }

    void refused_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("expected");
        QTest::newRow("text") << QByteArray("def forward(self, x):\n    return x\n") << "not an fxlens workspace";
        QTest::newRow("empty") << QByteArray() << "empty";
    }

    void refused()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("bad.fxlens"));
        QVERIFY(clitest::writeFile(path, bytes));
        const auto r = clitest::fxlens({QStringLiteral("info"), path});
        QVERIFY(r.exitCode != 0);
        QVERIFY2(r.err.contains(path.toUtf8()) && QString::fromUtf8(r.err).contains(expected, Qt::CaseInsensitive),
                 r.err.constData());
        QCOMPARE(clitest::readFile(path), bytes);  // untouched
    }
};

FXL_TEST_APPLESS_MAIN(TestCliWorkspaceInfo)
}  // namespace test_cli_workspace_info
#include "test_cli_workspace_info.moc"
