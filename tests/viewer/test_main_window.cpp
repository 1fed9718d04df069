// The window (viewer/widgets), offscreen: a graph opens into the source tree and the graph
// view (in the background: the tests wait as a user would), groups expand, a node shows in the
// inspector with links, find finds, walks to producers and consumers end where the graph says,
// traces highlight cones, the original text shows the node's line (in a file and in a
// TORCH_TRACE payload), every malformed file of tests/data/bad gives an error message and
// leaves the window usable, and the window is grabbed to PNGs (main_window_*.png in the build
// directory's tests/) for a person to look at.
#include <QApplication>
#include <QDir>
#include <QFileInfo>
#include <QMimeData>
#include <QProcess>
#include <QProgressBar>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QToolButton>
#include <QTreeView>
#include <QtTest>

#include <fstream>

#include "gui_test_util.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"
#include "viewer/model/node_search.hpp"
#include "viewer/model/search_results_model.hpp"
#include "viewer/model/source_tree_model.hpp"
#include "viewer/widgets/graph_view.hpp"
#include "viewer/widgets/main_window.hpp"
#include "viewer/widgets/overview.hpp"

namespace test_main_window {

using namespace fxl;
using namespace fxl::viewer;
using guitest::openKeys;
using guitest::saveShot;

namespace {

// Shows the window (quiet errors: recorded, not in a box) at a size and opens a file in it,
// waiting as a user would until its first graph is shown and laid out.
#define OPEN_IN(w, path, width, height)                                                                                \
    do {                                                                                                               \
        (w).setQuietErrors(true);                                                                                      \
        (w).resize(width, height);                                                                                     \
        (w).show();                                                                                                    \
        QVERIFY(QTest::qWaitForWindowExposed(&(w)));                                                                   \
        QVERIFY2((w).openPath(path).isEmpty(), qPrintable((w).lastError()));                                           \
        QTRY_VERIFY_WITH_TIMEOUT(!(w).graphView()->layoutPending(), 30000);                                            \
    } while (false)

// Waits until the graph view shows what was last asked of it.
#define SETTLE(v) QTRY_VERIFY_WITH_TIMEOUT(!(v)->layoutPending(), 30000)

}  // namespace

class TestMainWindow : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase() { guitest::initWindowTests(); }

    void opensAGraph()
    {
        const QString path = QString::fromStdString(fxltest::testDataPath("pytorch/mlp_gelu.joint.code.py").string());
        MainWindow w;
        OPEN_IN(w, path, 1200, 700);
        QCOMPARE(w.sourceModel()->rowCount(), 1);
        QCOMPARE(w.sourceModel()->data(w.sourceModel()->index(0, SourceTreeModel::GraphsColumn)).toInt(), 1);
        GraphView* v = w.graphView();
        QVERIFY(v->tree());
        SETTLE(v);
        QVERIFY(v->view().groupItems >= 3);  // inputs, forward, backward (at least)
    }

    void expandSelectInspect()
    {
        const auto path = fxltest::corpusPath("pytorch/gpt2_tiny.joint.code.py");
        FXL_REQUIRE_CORPUS(path);
        MainWindow w;
        OPEN_IN(w, QString::fromStdString(path.string()), 1400, 850);
        GraphView* v = w.graphView();
        QCOMPARE(v->view().groupItems, size_t(4));
        QCOMPARE(v->view().nodeItems, size_t(1));
        v->toggleGroup(v->tree()->find("forward"));
        SETTLE(v);
        // blocks.0 and blocks.1 are identical: folded into one box (the window's default)
        QVERIFY(v->foldIdentical());
        QCOMPARE(v->view().groupItems, size_t(7));
        v->setFoldIdentical(false);
        SETTLE(v);
        QCOMPARE(v->view().groupItems, size_t(8));
        v->setFoldIdentical(true);
        SETTLE(v);
        v->toggleGroup(v->tree()->find("forward"));
        SETTLE(v);
        QCOMPARE(v->view().groupItems, size_t(4));
        // jump to a node: its groups open, it is selected, the inspector shows it
        QVERIFY(v->showNode(QStringLiteral("addmm")));
        SETTLE(v);
        QCOMPARE(v->selected(), QStringLiteral("addmm"));
        QVERIFY(v->view().itemOfNode(v->tree()->graph().findByName("addmm")) >= 0);
        const QString text = w.inspectorText();
        QVERIFY2(text.contains(QStringLiteral("aten.addmm.default")), qPrintable(text));
        // the arguments named by the schema: addmm(self, mat1, mat2)
        QVERIFY2(text.contains(QStringLiteral("self=")) && text.contains(QStringLiteral("mat1="))
                     && text.contains(QStringLiteral("mat2=")),
                 qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("blocks.0")), qPrintable(text));
        // the inspector links every argument to its producer and every user
        const Graph& g = v->tree()->graph();
        const Node& addmm = g.node(g.findByName("addmm"));
        const QString html = w.inspectorHtml();
        for (NodeId p : producersOf(g, addmm.id))
            QVERIFY2(html.contains(QStringLiteral("node:%1").arg(QString::fromStdString(g.node(p).name))),
                     g.node(p).name.c_str());
        for (NodeId u : addmm.users)
            QVERIFY2(html.contains(QStringLiteral("node:%1").arg(QString::fromStdString(g.node(u).name))),
                     g.node(u).name.c_str());
        // breadcrumbs: file, phase, module groups, node
        const QString crumbs = w.breadcrumbText();
        QVERIFY2(crumbs.contains(QStringLiteral("forward")) && crumbs.contains(QStringLiteral("blocks.0"))
                     && crumbs.endsWith(QStringLiteral("addmm")),
                 qPrintable(crumbs));
        // the original text is at the node's line
        QVERIFY(w.originalLine() > 0);
        QCOMPARE(w.originalLine(), findNodeLine(fxltest::readFile(path), "addmm"));
        saveShot(w, "main_window_gpt2_tiny.png");
        QVERIFY(!v->showNode(QStringLiteral("no_such_node")));
        // the overview (minimap): a click there centres the view on that point of the drawing
        Overview* o = w.overview();
        const double s = o->scale();
        const QPointF origin((o->width() - v->layout().width * s) / 2, (o->height() - v->layout().height * s) / 2);
        const QPointF target(v->layout().width * 0.25, v->layout().height * 0.75);
        QTest::mouseClick(o, Qt::LeftButton, Qt::NoModifier, (origin + target * s).toPoint());
        const QPointF centre = v->visibleRect().center();
        QVERIFY2(std::abs(centre.x() - target.x()) < 2 / s + 2 && std::abs(centre.y() - target.y()) < 2 / s + 2,
                 qPrintable(
                     QStringLiteral("%1,%2 vs %3,%4").arg(centre.x()).arg(centre.y()).arg(target.x()).arg(target.y())));
        v->fit();
        saveShot(w, "main_window_gpt2_tiny_fit.png");
        // the file is the first of the recent files
        const QStringList recent = QSettings(QStringLiteral("fxlens"), QStringLiteral("fxlens"))
                                       .value(QStringLiteral("recent"))
                                       .toStringList();
        QVERIFY(!recent.isEmpty());
        QCOMPARE(recent.front(), QFileInfo(QString::fromStdString(path.string())).absoluteFilePath());
    }

    // A stub that names several far ends offers them in a menu; each entry jumps there.
    void stubMenu()
    {
        const auto path = fxltest::corpusPath("pytorch/gpt2_tiny.joint.code.py");
        FXL_REQUIRE_CORPUS(path);
        MainWindow w;
        OPEN_IN(w, QString::fromStdString(path.string()), 1400, 850);
        GraphView* v = w.graphView();
        v->toggleGroup(v->tree()->find("forward"));
        SETTLE(v);
        int stub = -1;
        for (size_t k = 0; k < v->view().items.size(); ++k)
            if (v->view().items[k].kind == ItemKind::Stub && v->view().items[k].peers.size() > 3) {
                stub = static_cast<int>(k);
                break;
            }
        QVERIFY(stub >= 0);
        const std::vector<NodeId> peers = v->view().items[static_cast<size_t>(stub)].peers;
        v->activateStub(stub, v->mapToGlobal(QPoint(50, 50)));
        QVERIFY(v->stubMenu());
        const QList<QAction*> actions = v->stubMenu()->actions();
        const size_t listed = std::min(peers.size(), size_t(GraphView::kMaxStubMenu));
        QCOMPARE(size_t(actions.size()), listed + (peers.size() > listed ? 1 : 0));
        const QString second = QString::fromStdString(v->graph()->node(peers[1]).name);
        QVERIFY(actions[1]->text().startsWith(second + QStringLiteral("  (")));
        actions[1]->trigger();
        SETTLE(v);
        QCOMPARE(v->selected(), second);
        QVERIFY(v->view().itemOfNode(peers[1]) >= 0);
    }

    // Find: the query language of the find dock, results that jump.
    void findNodes()
    {
        const auto path = fxltest::corpusPath("pytorch/gpt2_tiny.joint.code.py");
        FXL_REQUIRE_CORPUS(path);
        MainWindow w;
        OPEN_IN(w, QString::fromStdString(path.string()), 1400, 850);
        GraphView* v = w.graphView();
        QCOMPARE(w.find(QStringLiteral("target:aten.mm.default")), 19);
        SETTLE(v);
        // the first result is selected and shown (its groups expanded on the way)
        const NodeId first = w.searchModel()->nodeAt(0);
        const QString firstName = QString::fromStdString(v->graph()->node(first).name);
        QCOMPARE(v->selected(), firstName);
        QVERIFY(v->view().itemOfNode(first) >= 0);
        w.findNext();
        SETTLE(v);
        QCOMPARE(v->selected(), QString::fromStdString(v->graph()->node(w.searchModel()->nodeAt(1)).name));
        w.findNext(-2);
        SETTLE(v);
        QCOMPARE(v->selected(), QString::fromStdString(v->graph()->node(w.searchModel()->nodeAt(18)).name));
        QCOMPARE(
            w.find(QStringLiteral("op:mm phase:backward module:blocks.1")),
            static_cast<int>(searchNodes(*v->tree(), parseSearchQuery("op:mm phase:backward module:blocks.1")).size()));
        QVERIFY(w.searchModel()->rowCount() > 0);
        QCOMPARE(w.find(QStringLiteral("colour:red")), 0);
        QVERIFY2(w.findStatus().contains(QStringLiteral("colour")), qPrintable(w.findStatus()));
    }

    // Walks: producer / consumer from a node, through the others, ending where the graph ends.
    void walks_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("gpt2_tiny") << "pytorch/gpt2_tiny.joint.code.py";
        QTest::newRow("mlp_gelu") << "pytorch/mlp_gelu.joint.code.py";
    }

    void walks()
    {
        QFETCH(QString, file);
        const auto path = fxltest::corpusPath(file.toStdString());
        FXL_REQUIRE_CORPUS(path);
        MainWindow w;
        OPEN_IN(w, QString::fromStdString(path.string()), 1200, 800);
        GraphView* v = w.graphView();
        const Graph& g = *v->graph();
        // from the output, always the first producer: ends at a node without producers
        const NodeId out = g.outputNode();
        QVERIFY(v->showNode(QString::fromStdString(g.node(out).name)));
        SETTLE(v);
        NodeId at = out;
        int steps = 0;
        while (w.walkProducer()) {
            SETTLE(v);
            const NodeId next = g.findByName(v->selected().toStdString());
            QCOMPARE(next, producersOf(g, at).front());
            at = next;
            QVERIFY(++steps < 100000);
        }
        QVERIFY(producersOf(g, at).empty());
        QVERIFY(g.node(at).op == NodeOp::Placeholder || g.node(at).op == NodeOp::GetAttr || g.node(at).args.empty());
        // its consumers, one after the other, and round again
        const std::vector<NodeId> users = consumersOf(g, at);
        QVERIFY(!users.empty());
        QVERIFY(w.walkConsumer());
        for (size_t k = 0; k < users.size(); ++k) {
            SETTLE(v);
            QCOMPARE(v->selected(), QString::fromStdString(g.node(users[k]).name));
            QVERIFY(w.walkNext());
        }
        SETTLE(v);
        QCOMPARE(v->selected(), QString::fromStdString(g.node(users[0]).name));
        // the output has no consumers: the walk says so and stays
        QVERIFY(v->showNode(QString::fromStdString(g.node(out).name)));
        SETTLE(v);
        QVERIFY(!w.walkConsumer());
        QCOMPARE(v->selected(), QString::fromStdString(g.node(out).name));
        QVERIFY(w.statusText().contains(QStringLiteral("no consumers")));
    }

    // Trace: the cones are highlighted (their size is the graph's), and Esc clears them.
    void traces()
    {
        const auto path = fxltest::corpusPath("pytorch/gpt2_tiny.joint.code.py");
        FXL_REQUIRE_CORPUS(path);
        MainWindow w;
        OPEN_IN(w, QString::fromStdString(path.string()), 1400, 850);
        GraphView* v = w.graphView();
        QVERIFY(v->showNode(QStringLiteral("addmm")));
        SETTLE(v);
        const Graph& g = *v->graph();
        const NodeId id = g.findByName("addmm");
        QCOMPARE(w.traceUpstream(), upstreamCone(g, id).size());
        QCOMPARE(v->highlightCount(), upstreamCone(g, id).size() + 1);
        QCOMPARE(w.traceDownstream(), downstreamCone(g, id).size());
        QVERIFY(w.traceDownstream() > 100);  // the first linear feeds most of the step
        saveShot(w, "main_window_trace.png");
        w.clearTrace();
        QCOMPARE(v->highlightCount(), size_t(0));
    }

    // A TORCH_TRACE log: its tree, a graph's payload in the text dock at the node's line.
    void logPayloadText()
    {
        const auto path = fxltest::corpusPath("tlparse/simple.log");
        FXL_REQUIRE_CORPUS(path);
        MainWindow w;
        OPEN_IN(w, QString::fromStdString(path.string()), 1400, 850);
        GraphView* v = w.graphView();
        const Graph& g = *v->graph();
        // a node in the middle of the graph
        const NodeId id = g.order()[g.order().size() / 2];
        const std::string name = g.node(id).name;
        QVERIFY(v->showNode(QString::fromStdString(name)));
        SETTLE(v);
        QVERIFY(w.originalLine() > 1);
        // that line of the log file defines the node
        const std::string log = fxltest::readFile(path);
        size_t pos = 0;
        for (int l = 1; l < w.originalLine(); ++l) pos = log.find('\n', pos) + 1;
        const std::string line = log.substr(pos, log.find('\n', pos) - pos);
        QVERIFY2(line.find(name) != std::string::npos, line.c_str());
        w.setTheme(MainWindow::Theme::Dark);
        QVERIFY(v->dark());
        saveShot(w, "main_window_log_dark.png");
        w.setTheme(MainWindow::Theme::Light);
        QVERIFY(!v->dark());
        w.setTheme(MainWindow::Theme::FollowDesktop);
    }

    // A log with several compile ids: its tree (counts per compile id), one of its graphs shown
    // with a node selected: the screenshot of the README.
    void logWithCompileIds()
    {
        const auto path = fxltest::corpusPath("tlparse/cache_hit_miss.log");
        FXL_REQUIRE_CORPUS(path);
        MainWindow w;
        OPEN_IN(w, QString::fromStdString(path.string()), 1500, 900);
        SourceTreeModel* m = w.sourceModel();
        const QModelIndex file = m->index(0, 0);
        QStringList ids;
        for (int r = 0; r < m->rowCount(file); ++r) ids << m->index(r, 0, file).data().toString();
        QVERIFY2(ids.contains(QStringLiteral("[0/0]")) && ids.contains(QStringLiteral("[1/0]")),
                 qPrintable(ids.join(',')));
        w.sourceView()->expandAll();
        GraphView* v = w.graphView();
        SETTLE(v);
        const Graph& g = *v->graph();
        QVERIFY(v->showNode(QString::fromStdString(g.node(g.order()[g.order().size() / 2]).name)));
        SETTLE(v);
        saveShot(w, "main_window_log.png");
    }

    // The 100k-node graph: its top level, then one block opened in place (the README's
    // screenshots); the 640 forward blocks are one family of identical siblings.
    void largeGraph()
    {
        const auto path = fxltest::corpusPath("pytorch/large/gpt2_deep640.joint.code.py");
        FXL_REQUIRE_CORPUS(path);
        MainWindow w;
        OPEN_IN(w, QString::fromStdString(path.string()), 1500, 900);
        GraphView* v = w.graphView();
        QCOMPARE(v->view().groupItems, size_t(4));
        saveShot(w, "main_window_deep640_top.png");
        const GroupTree* t = v->tree();
        const int block = t->find("forward/blocks.17");
        QVERIFY(block > 0);
        QCOMPARE(t->group(block).identicalSiblings, size_t(640));
        std::set<int> open;
        for (int k : t->chain(block)) open.insert(k);
        v->setExpanded(open);
        SETTLE(v);
        QCOMPARE(v->expanded(), open);
        v->showGroup(block);
        SETTLE(v);
        v->setZoom(0.8);
        v->showGroup(block);
        SETTLE(v);
        QVERIFY(v->visibleRect().intersects(QRectF(0, 0, v->layout().width, v->layout().height)));
        saveShot(w, "main_window_deep640_block.png");
    }

    // Opening a large log shows a progress bar with Cancel; Cancel stops it, nothing is added,
    // and the window goes on working. A file dropped on the window opens.
    void cancelAndDrop()
    {
        const auto path = fxltest::corpusPath("tlparse/simple.log");
        FXL_REQUIRE_CORPUS(path);
        QTemporaryDir dir;
        const QString big = dir.filePath(QStringLiteral("big.log"));
        {
            const std::string text = fxltest::readFile(path);
            std::ofstream out(big.toStdString());
            for (int k = 0; k < 300; ++k) out << text << "\n";
        }
        MainWindow w;
        w.setQuietErrors(true);
        w.resize(1200, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.open(big);
        QVERIFY(w.jobs()->busy(ViewJobs::Open));
        QVERIFY(w.progressBar()->isVisible() && w.cancelButton()->isVisible());
        QTest::mouseClick(w.cancelButton(), Qt::LeftButton);
        QVERIFY(!w.jobs()->busy());
        QVERIFY(w.waitIdle());
        QCOMPARE(w.sourceModel()->rowCount(), 0);
        QVERIFY2(w.statusText().contains(QStringLiteral("cancelled")), qPrintable(w.statusText()));
        QVERIFY(!w.progressBar()->isVisible());
        // a drop opens the file
        QMimeData mime;
        mime.setUrls({QUrl::fromLocalFile(
            QString::fromStdString(fxltest::testDataPath("pytorch/mlp_gelu.joint.code.py").string()))});
        // as a drag does: enter (the window accepts files), then drop
        QDragEnterEvent enter(QPoint(100, 100), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&w, &enter);
        QVERIFY(enter.isAccepted());
        QDropEvent drop(QPointF(100, 100), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&w, &drop);
        QVERIFY(w.waitIdle());
        QVERIFY2(w.sourceModel()->rowCount() == 1, qPrintable(w.statusText() + QStringLiteral(" / ") + w.lastError()));
        QVERIFY(w.graphView()->graph());
        SETTLE(w.graphView());
        QVERIFY(w.graphView()->view().groupItems >= 3);
    }

    // The shortcut list comes from the menus: every frequent action is in it.
    void shortcuts()
    {
        MainWindow w;
        const QString list = w.shortcutList();
        for (const char* what : {"Open", "Find nodes", "Go to producer", "Go to consumer", "Trace upstream",
                                 "Trace downstream", "Fit", "Collapse all", "Keyboard shortcuts"})
            QVERIFY2(list.contains(QLatin1String(what)), what);
        QVERIFY(list.contains(QStringLiteral("Ctrl+F")));
        QVERIFY(list.contains(QStringLiteral("Alt+Up")));
    }

    // `fxlens FILE` without a display says so and points to fxlens render, instead of waiting
    // for a window nobody sees; `fxlens` alone there prints the help.
    void noDisplay()
    {
        const QString fxlens = QString::fromStdString((fxltest::buildDir() / "app" / "fxlens").string());
        const QString file = QString::fromStdString(fxltest::testDataPath("pytorch/mlp_gelu.joint.code.py").string());
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove(QStringLiteral("DISPLAY"));
        env.remove(QStringLiteral("WAYLAND_DISPLAY"));
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        QProcess p;
        p.setProcessEnvironment(env);
        p.start(fxlens, {file});
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitCode(), 1);
        const QByteArray err = p.readAllStandardError();
        QVERIFY2(err.contains("no display") && err.contains("fxlens render"), err.constData());
        p.start(fxlens, {});
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitCode(), 0);
        QVERIFY(p.readAllStandardOutput().contains("Usage: fxlens"));
    }

    void badFilesKeepTheWindowUsable_data()
    {
        QTest::addColumn<QString>("path");
        const QDir bad(QString::fromStdString(fxltest::testDataPath("bad").string()));
        for (const QString& f : bad.entryList(QDir::Files | QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
            if (f == QLatin1String("README.md")) continue;
            QTest::newRow(qPrintable(f)) << bad.filePath(f);
        }
    }

    void badFilesKeepTheWindowUsable()
    {
        QFETCH(QString, path);
        const QString good = QString::fromStdString(fxltest::testDataPath("pytorch/mlp_gelu.joint.code.py").string());
        MainWindow w;
        w.setQuietErrors(true);
        QVERIFY(w.openPath(good).isEmpty());
        SETTLE(w.graphView());
        const size_t shown = w.graphView()->view().items.size();
        const QString error = w.openPath(path);
        if (error.isEmpty()) {
            // some files are only bad inside (a graph that fails when parsed): open it
            const int src = w.sourceModel()->sourceCount() - 1;
            const Source* s = w.sourceModel()->source(src);
            bool failed = s->graphs().empty();
            for (const Artifact* a : s->graphs()) failed = failed || !w.showGraph(src, QString::fromStdString(a->id));
            if (failed) {
                QVERIFY2(!w.lastError().isEmpty(), "a failure says why");
            } else if (QFileInfo(path).fileName().startsWith(QLatin1String("params_"))) {
                // params.json feeds only fxlens info's parameter counts, which the window does not show
                QVERIFY(w.statusText().contains(QStringLiteral("nodes")));
            } else {
                // read with warnings (lines skipped, annotations kept verbatim): the status bar says so
                QVERIFY2(w.statusText().contains(QStringLiteral("warning")), qPrintable(w.statusText()));
            }
        } else {
            QVERIFY2(error.contains(QFileInfo(path).fileName()) || error.contains(QStringLiteral("error")),
                     qPrintable(error));
        }
        // the window still works: the good graph is there and can be shown again
        QVERIFY(w.showGraph(0, QStringLiteral("0")));
        SETTLE(w.graphView());
        QCOMPARE(w.graphView()->view().items.size(), shown);
    }
};

FXL_TEST_MAIN(TestMainWindow)
}  // namespace test_main_window
// the file's macros end with it (a unity batch compiles several test files as one)
#undef OPEN_IN
#undef SETTLE
#include "test_main_window.moc"
