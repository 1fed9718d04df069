// The workspace in the window (viewer/widgets/main_window + workspace/), offscreen: saved and
// reopened in a new window, the same sources, pipeline, step, selection, open groups and
// viewport come back; the autosave writes each change; a source changed on disk since is
// noticed and reloaded; a truncated, foreign or newer file is refused with a message and the
// window goes on as it was; an existing file that is not a workspace is never overwritten.
#include <sqlite3.h>

#include <QApplication>
#include <QJsonArray>
#include <QJsonObject>
#include <QSettings>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>

#include <array>
#include <filesystem>
#include <fstream>

#include "app/cli_test_util.hpp"
#include "gui_test_util.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"
#include "viewer/jobs/run_jobs.hpp"
#include "viewer/jobs/step_jobs.hpp"
#include "viewer/model/pipeline_model.hpp"
#include "viewer/model/step_list_model.hpp"
#include "viewer/model/timeline_model.hpp"
#include "viewer/widgets/diff_view.hpp"
#include "viewer/widgets/graph_view.hpp"
#include "viewer/widgets/main_window.hpp"
#include "viewer/widgets/pipeline_editor.hpp"
#include "viewer/widgets/run_panel.hpp"
#include "workspace/workspace.hpp"

namespace test_workspace_window {

using namespace fxl;
using namespace fxl::viewer;
using guitest::openKeys;
using guitest::saveShot;
namespace fs = std::filesystem;

namespace {

const QString kSpec = QStringLiteral("remove_detach,sac(policy=alternate_mm),remat,dce");

void showWindow(MainWindow& w)
{
    w.setQuietErrors(true);
    w.resize(1400, 900);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
}

std::string bytesOf(const fs::path& p)
{
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

class TestWorkspaceWindow : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase() { guitest::initWindowTests(); }

    void saveAndReopen_data()
    {
        QTest::addColumn<QString>("path");
        QTest::newRow("mlp_gelu") << QString::fromStdString(
            fxltest::testDataPath("pytorch/mlp_gelu.joint.code.py").string());
        const auto gpt2 = fxltest::corpusPath("pytorch/gpt2_tiny.joint.code.py");
        QTest::newRow("gpt2_tiny") << QString::fromStdString(gpt2.string());
    }

    // Saved, closed, reopened in a new window: the same step, selection, groups and viewport.
    void saveAndReopen()
    {
        QFETCH(QString, path);
        FXL_REQUIRE_CORPUS(path);
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("session.fxlens"));
        std::set<std::string> keys;
        QString selected;
        QPointF centre;
        std::vector<std::array<qint64, 4>> shownCounts;  // each step's Added, Removed, Changed, Rewired
        {
            MainWindow w;
            showWindow(w);
            QVERIFY(w.openPath(path).isEmpty());
            QVERIFY(w.runPipeline(kSpec).isEmpty());
            const StepListModel* table = w.passes()->stepList();
            for (int k = 1; k < table->rowCount(); ++k) {
                std::array<qint64, 4> c{};
                const int cols[] = {StepListModel::AddedColumn, StepListModel::RemovedColumn,
                                    StepListModel::ChangedColumn, StepListModel::RewiredColumn};
                for (int i = 0; i < 4; ++i) c[size_t(i)] = table->data(table->index(k, cols[i])).toLongLong();
                shownCounts.push_back(c);
            }
            QCOMPARE(int(shownCounts.size()), 4);
            QVERIFY(w.showStep(3));
            QVERIFY(w.waitIdle());
            const Graph& g = *w.graphView()->graph();
            for (NodeId id : g.order())
                if (g.node(id).op == NodeOp::CallFunction) selected = QString::fromStdString(g.node(id).name);
            QVERIFY(w.graphView()->showNode(selected));
            QVERIFY(w.waitIdle());
            w.graphView()->setZoom(0.7);
            QVERIFY(w.saveWorkspace(file).isEmpty());
            // a later change reaches the file through the autosave, without asking
            QVERIFY(w.stepBack());
            QVERIFY(w.waitIdle());
            QTRY_COMPARE_WITH_TIMEOUT(Workspace::open(file.toStdString()).viewState().stepIndex, 2, 10000);
            keys = openKeys(w.graphView());
            QCOMPARE(w.graphView()->selected(), selected);
            centre = w.graphView()->visibleRect().center();
            QVERIFY(w.autosaveNow());
            // a second save to the same path is refused: it exists
            QVERIFY(!w.saveWorkspace(file).isEmpty());
        }
        {
            const Workspace ws = Workspace::open(file.toStdString());
            QCOMPARE(int(ws.sources().size()), 1);
            QCOMPARE(QString::fromStdString(ws.sources()[0].pipeline), kSpec);
            QCOMPARE(int(ws.steps(ws.sources()[0].id).size()), 5);
        }
        // one count of each step's changes: the window's Steps table, `fxlens info` of the
        // workspace it saved and `fxlens passes run` on the same graph and pipeline
        {
            const auto info = clitest::fxlens({QStringLiteral("info"), file, QStringLiteral("--json")});
            QCOMPARE(info.exitCode, 0);
            const QJsonArray steps = clitest::parseJsonDoc(info.out)[QStringLiteral("workspaces")]
                                         .toArray()
                                         .at(0)
                                         .toObject()[QStringLiteral("sources")]
                                         .toArray()
                                         .at(0)
                                         .toObject()[QStringLiteral("steps")]
                                         .toArray();
            const auto run = clitest::fxlens({QStringLiteral("passes"), QStringLiteral("run"), path,
                                              QStringLiteral("--pipeline"), kSpec, QStringLiteral("--json")});
            QCOMPARE(run.exitCode, 0);
            const QJsonArray ran = clitest::parseJsonDoc(run.out)[QStringLiteral("steps")].toArray();
            QCOMPARE(steps.size(), 5);
            QCOMPARE(ran.size(), 5);
            const QString infoText = QString::fromUtf8(clitest::fxlens({QStringLiteral("info"), file}).out);
            for (int k = 1; k < 5; ++k) {
                const QJsonObject recorded = steps.at(k).toObject();
                const QJsonObject diff = ran.at(k).toObject()[QStringLiteral("diff")].toObject();
                const char* keys[] = {"added", "removed", "changed", "rewired"};
                for (int i = 0; i < 4; ++i) {
                    const QString key = QLatin1String(keys[i]);
                    const qint64 shown = shownCounts[size_t(k - 1)][size_t(i)];
                    QCOMPARE(qint64(recorded[key].toInteger()), shown);
                    QCOMPARE(qint64(diff[key].toInteger()), shown);
                }
                const auto& c = shownCounts[size_t(k - 1)];
                const QString line =
                    QStringLiteral("+%1 -%2 changed %3 rewired %4").arg(c[0]).arg(c[1]).arg(c[2]).arg(c[3]);
                QVERIFY2(infoText.contains(line), qPrintable(line + QStringLiteral(" not in:\n") + infoText));
            }
            // remat changes something: the counts compared are not all zero
            QVERIFY(shownCounts[2][0] > 0);
        }
        QVERIFY(!Workspace::open(file.toStdString()).layouts().empty());
        MainWindow w;
        showWindow(w);
        const QString err = w.openWorkspace(file);
        QVERIFY2(err.isEmpty(), qPrintable(err));
        // the layouts came from the workspace: the view on screen needed no Graphviz call
        QCOMPARE(w.graphView()->layout().cachedContainers, w.graphView()->layout().containers.size());
        QVERIFY(w.waitIdle());
        QCOMPARE(w.workspacePath(), file);
        QCOMPARE(w.currentStep(), 2);
        QCOMPARE(w.passes()->pipeline()->spec(), kSpec);
        QCOMPARE(w.graphView()->selected(), selected);
        QCOMPARE(openKeys(w.graphView()), keys);
        QCOMPARE(w.graphView()->zoom(), 0.7);
        const QPointF now = w.graphView()->visibleRect().center();
        QVERIFY2(
            std::abs(now.x() - centre.x()) < 2 && std::abs(now.y() - centre.y()) < 2,
            qPrintable(QStringLiteral("%1,%2 vs %3,%4").arg(now.x()).arg(now.y()).arg(centre.x()).arg(centre.y())));
        QVERIFY(w.workspaceNotice().isEmpty());
        // notes and bookmarks go into the workspace and show in the inspector
        QVERIFY(w.noteOnSelected(QStringLiteral("check this <one>")));
        QVERIFY(w.inspectorText().contains(QStringLiteral("check this <one>")));
        QVERIFY(w.bookmarkSelected(QStringLiteral("mine")));
        const Workspace ws = Workspace::open(file.toStdString());
        QCOMPARE(int(ws.bookmarks(ws.sources()[0].id).size()), 1);
        QCOMPARE(ws.note(ws.sources()[0].id, "", selected.toStdString())->text, std::string("check this <one>"));
    }

    // A source changed on disk since the workspace was saved is named and taken as it is now.
    void changedSource()
    {
        QTemporaryDir dir;
        const fs::path graph = fs::path(dir.path().toStdString()) / "g.joint.code.py";
        fs::copy_file(fxltest::testDataPath("pytorch/mlp_gelu.joint.code.py"), graph);
        const QString file = dir.filePath(QStringLiteral("w.fxlens"));
        {
            MainWindow w;
            showWindow(w);
            QVERIFY(w.openPath(QString::fromStdString(graph.string())).isEmpty());
            QVERIFY(w.saveWorkspace(file).isEmpty());
        }
        std::ofstream(graph, std::ios::app) << "# edited after the workspace was saved\n";
        MainWindow w;
        showWindow(w);
        QVERIFY(w.openWorkspace(file).isEmpty());
        QVERIFY2(w.workspaceNotice().contains(QLatin1String("changed on disk")), qPrintable(w.workspaceNotice()));
        QVERIFY(w.workspaceNotice().contains(QString::fromStdString(graph.string())));
        QVERIFY(Workspace::open(file.toStdString()).changedSources().empty());  // reloaded
    }

    void refusals_data()
    {
        QTest::addColumn<QString>("how");
        QTest::addColumn<QString>("expected");
        QTest::newRow("truncated") << "truncate"
                                   << "truncated";
        QTest::newRow("foreign text") << "text"
                                      << "not an fxlens workspace";
        QTest::newRow("newer version") << "newer"
                                       << "update fxlens";
        QTest::newRow("missing") << "missing"
                                 << "no such file";
    }

    // A bad workspace is refused with a message; the window keeps what it showed.
    void refusals()
    {
        QFETCH(QString, how);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        const QString mlp = QString::fromStdString(fxltest::testDataPath("pytorch/mlp_gelu.joint.code.py").string());
        const QString file = dir.filePath(QStringLiteral("w.fxlens"));
        {
            MainWindow w;
            showWindow(w);
            QVERIFY(w.openPath(mlp).isEmpty());
            QVERIFY(w.runPipeline(kSpec).isEmpty());
            QVERIFY(w.saveWorkspace(file).isEmpty());
        }
        const fs::path p = file.toStdString();
        if (how == QLatin1String("truncate")) {
            fs::resize_file(p, fs::file_size(p) / 2);
        } else if (how == QLatin1String("text")) {
            std::ofstream(p, std::ios::trunc) << "def forward(self, x):\n    return x\n";
        } else if (how == QLatin1String("newer")) {
            sqlite3* db = nullptr;
            QCOMPARE(sqlite3_open(p.c_str(), &db), SQLITE_OK);
            QCOMPARE(sqlite3_exec(db, "UPDATE meta SET value = '99' WHERE key = 'format_version'", nullptr, nullptr,
                                  nullptr),
                     SQLITE_OK);
            sqlite3_close(db);
        } else {
            fs::remove(p);
        }
        const std::string before = fs::exists(p) ? bytesOf(p) : std::string();
        MainWindow w;
        showWindow(w);
        QVERIFY(w.openPath(mlp).isEmpty());
        const Graph* shown = w.graphView()->graph();
        const QString err = w.openWorkspace(file);
        QVERIFY2(err.contains(expected, Qt::CaseInsensitive), qPrintable(err));
        QVERIFY2(err.contains(QLatin1String("w.fxlens")), qPrintable(err));
        QCOMPARE(w.lastError(), err);
        QCOMPARE(w.graphView()->graph(), shown);  // nothing lost
        QVERIFY(w.workspacePath().isEmpty());
        if (fs::exists(p)) QCOMPARE(bytesOf(p), before);  // and the file untouched
    }

    // `fxlens` alone: the bundled example as a workspace, made on first use, reopened after.
    void exampleWorkspace()
    {
        const QString examples = QString::fromStdString(
            (fxltest::testDataPath() / ".." / ".." / "resources" / "examples").lexically_normal().string());
        const QString made = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)
            + QStringLiteral("/example/gpt2_tiny.fxlens");
        QFile::remove(made);
        for (int round = 0; round < 2; ++round) {
            MainWindow w;
            showWindow(w);
            const QString err = w.openExample(examples);
            QVERIFY2(err.isEmpty(), qPrintable(err));
            QVERIFY(w.waitIdle());
            QCOMPARE(w.workspacePath(), made);
            QCOMPARE(w.passes()->pipeline()->spec(), kSpec);
            QCOMPARE(w.currentStep(), 3);  // remat: its diff and timeline
            QCOMPARE(w.centralTabs()->currentWidget(), static_cast<QWidget*>(w.diffView()));
            QVERIFY(w.diffView()->diff() && w.diffView()->diff()->totalCounts().added > 0);
            QVERIFY(w.timelineModel()->hasPrevious());
            const auto o = w.runPanel()->outcome();
            QVERIFY(o && o->ok);
            QCOMPARE(o->request.stepIndex, 4);
            QCOMPARE(o->request.against, std::string("input"));
            QVERIFY2(o->bitwise(), o->summary().c_str());
            // the window works on the user's copy, never on the bundled files
            QVERIFY(QString::fromStdString(w.graphView()->prepared()->source->path).startsWith(exampleCopyDir()));
            if (round == 1) saveShot(w, "window_example_workspace.png");
        }
        // the user changes the example (another pipeline, saved by the autosave), then goes back
        const std::string bundled = fxltest::readFile(examples.toStdString() + "/gpt2_tiny.joint.code.py");
        {
            MainWindow w;
            showWindow(w);
            QVERIFY(w.openExample(examples).isEmpty());
            QVERIFY(w.runPipeline(QStringLiteral("remove_detach,dce")).isEmpty());
            QVERIFY(w.autosaveNow());
        }
        {
            MainWindow w;
            showWindow(w);
            QVERIFY(w.openExample(examples).isEmpty());
            QCOMPARE(w.passes()->pipeline()->spec(), QStringLiteral("remove_detach,dce"));  // kept
            QVERIFY2(w.restoreExample(examples).isEmpty(), qPrintable(w.lastError()));
            QCOMPARE(w.passes()->pipeline()->spec(), kSpec);
            QCOMPARE(w.currentStep(), 3);
        }
        QCOMPARE(fxltest::readFile(examples.toStdString() + "/gpt2_tiny.joint.code.py"), bundled);
    }

    // Saving onto a file that is not a workspace never overwrites it.
    void neverOverwrites()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("notes.fxlens"));
        std::ofstream(file.toStdString()) << "my own notes, not a workspace\n";
        MainWindow w;
        showWindow(w);
        QVERIFY(w.openPath(QString::fromStdString(fxltest::testDataPath("pytorch/mlp_gelu.joint.code.py").string()))
                    .isEmpty());
        const QString err = w.saveWorkspace(file, true);
        QVERIFY2(!err.isEmpty(), "a user's file must not be replaced");
        QCOMPARE(bytesOf(file.toStdString()), std::string("my own notes, not a workspace\n"));
        QVERIFY(w.workspacePath().isEmpty());
    }
};

FXL_TEST_MAIN(TestWorkspaceWindow)
}  // namespace test_workspace_window
#include "test_workspace_window.moc"
