// The window (viewer/widgets), offscreen: a graph opens into the source tree and the graph
// view, groups expand, a node shows in the inspector, every malformed file of tests/data/bad
// gives an error message and leaves the window usable, and the window is grabbed to a PNG
// (tests/viewer/main_window_gpt2_tiny.png in the build directory) for a person to look at.
#include <QApplication>
#include <QDir>
#include <QFileInfo>
#include <QProcess>
#include <QtTest>

#include "test_util.hpp"
#include "viewer/model/source_tree_model.hpp"
#include "viewer/widgets/graph_view.hpp"
#include "viewer/widgets/main_window.hpp"

using namespace fxl;
using namespace fxl::viewer;

class TestMainWindow : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QApplication::setStyle(QStringLiteral("Fusion"));
        QApplication::setFont(QFont(QStringLiteral("DejaVu Sans"), 9));
    }

    void opensAGraph()
    {
        const QString path = QString::fromStdString(fxltest::testDataPath("pytorch/mlp_gelu.joint.code.py").string());
        MainWindow w;
        w.setQuietErrors(true);
        w.resize(1200, 700);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY2(w.openPath(path).isEmpty(), qPrintable(w.lastError()));
        QCOMPARE(w.sourceModel()->rowCount(), 1);
        QCOMPARE(w.sourceModel()->data(w.sourceModel()->index(0, SourceTreeModel::GraphsColumn)).toInt(), 1);
        const GraphView* v = w.graphView();
        QVERIFY(v->tree());
        QVERIFY(v->view().groupItems >= 3);  // inputs, forward, backward (at least)
    }

    void expandSelectInspect()
    {
        const auto path = fxltest::corpusPath("pytorch/gpt2_tiny.joint.code.py");
        FXL_REQUIRE_CORPUS(path);
        MainWindow w;
        w.setQuietErrors(true);
        w.resize(1400, 850);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY2(w.openPath(QString::fromStdString(path.string())).isEmpty(), qPrintable(w.lastError()));
        GraphView* v = w.graphView();
        QCOMPARE(v->view().groupItems, size_t(4));
        QCOMPARE(v->view().nodeItems, size_t(1));
        v->toggleGroup(v->tree()->find("forward"));
        QCOMPARE(v->view().groupItems, size_t(8));
        v->toggleGroup(v->tree()->find("forward"));
        QCOMPARE(v->view().groupItems, size_t(4));
        // jump to a node: its groups open, it is selected, the inspector shows it
        QVERIFY(v->showNode(QStringLiteral("addmm")));
        QCOMPARE(v->selected(), QStringLiteral("addmm"));
        QVERIFY(v->view().itemOfNode(v->tree()->graph().findByName("addmm")) >= 0);
        const QString text = w.inspectorText();
        QVERIFY2(text.contains(QStringLiteral("aten.addmm.default")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("blocks.0")), qPrintable(text));
        QVERIFY(!v->showNode(QStringLiteral("no_such_node")));
        // a click on an item selects what is under it
        v->fit();
        QCoreApplication::processEvents();
        const QImage shot = w.grab().toImage();
        QVERIFY(!shot.isNull() && shot.width() > 100);
        const QString out =
            QString::fromStdString((fxltest::buildDir() / "tests" / "main_window_gpt2_tiny.png").string());
        QVERIFY(shot.save(out));
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
        QCOMPARE(w.graphView()->view().items.size(), shown);
    }
};

QTEST_MAIN(TestMainWindow)
#include "test_main_window.moc"
