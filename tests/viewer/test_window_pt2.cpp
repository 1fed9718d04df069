// torch.export archives (.pt2) in the window, opened as a user opens them (File > Open, the file
// dialog answered): every layout of tests/data/pt2 shows its programs in the source tree and
// the first one in the graph view, grouped by phase and by the modules of nn_module_stack; a
// damaged archive shows why and leaves the window as it was; an AOTInductor package says it
// holds no graph. The window is grabbed to window_pt2.png for a person to look at.
#include <QFileInfo>
#include <QTemporaryDir>
#include <QtTest>

#include "gui_test_util.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"
#include "viewer/model/source_tree_model.hpp"
#include "viewer/widgets/graph_view.hpp"
#include "viewer/widgets/main_window.hpp"
#include "window_driver.hpp"

namespace test_window_pt2 {

using namespace fxl;
using namespace fxl::viewer;

namespace {

QString data(const QString& file)
{
    return QString::fromStdString(fxltest::testDataPath("pt2/" + file.toStdString()).string());
}

// File > Open with the dialog answered: what a user does.
void openByMenu(MainWindow& w, guitest::DialogDriver& driver, const QString& path)
{
    driver.answerFile(path);
    QAction* open = guitest::findAction(w, QStringLiteral("File > Open"));
    QVERIFY(open);
    open->trigger();
    QVERIFY(w.waitIdle());
}

}  // namespace

class TestWindowPt2 : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase() { guitest::initWindowTests(); }

    void opensEveryLayout_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("graphs");
        QTest::newRow("2.1") << "flat21_mlp.pt2" << 1;
        QTest::newRow("2.2-2.7") << "flat25_mlp.pt2" << 1;
        QTest::newRow("2.7 cond") << "flat27_cond.pt2" << 1;
        QTest::newRow("2.8") << "rooted28_mlp.pt2" << 2;
        QTest::newRow("2.9 raw") << "rooted29_raw.pt2" << 1;
    }
    void opensEveryLayout()
    {
        QFETCH(QString, file);
        QFETCH(int, graphs);
        MainWindow w;
        w.setQuietErrors(true);
        guitest::DialogDriver driver;
        w.resize(1300, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        openByMenu(w, driver, data(file));
        QVERIFY2(w.lastError().isEmpty(), qPrintable(w.lastError()));
        QCOMPARE(w.sourceModel()->sourceCount(), 1);
        QCOMPARE(w.sourceModel()->data(w.sourceModel()->index(0, SourceTreeModel::GraphsColumn)).toInt(), graphs);
        QTRY_VERIFY_WITH_TIMEOUT(
            w.graphView()->prepared() && w.graphView()->prepared()->source->path == data(file).toStdString(), 30000);
        QTRY_VERIFY_WITH_TIMEOUT(!w.graphView()->layoutPending(), 30000);
        QVERIFY(w.graphView()->tree());
        QVERIFY(w.graphView()->view().groupItems >= 2);
        if (file.contains("mlp")) {  // the MLP's modules, from nn_module_stack
            bool fc1 = false;
            for (const GroupInfo& g : w.graphView()->tree()->groups()) fc1 = fc1 || g.key.ends_with("fc1");
            QVERIFY(fc1);
        }
        if (file == "rooted28_mlp.pt2") guitest::saveShot(w, "window_pt2.png");
    }

    void damagedArchiveSaysWhy_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("message");
        QTest::newRow("unknown union member") << "bad_union.pt2"
                                              << "unknown Argument member 'as_foo'";
        QTest::newRow("newer major") << "bad_newer_major.pt2"
                                     << "schema version 9.0 is newer";
        QTest::newRow("truncated") << "bad_truncated.pt2"
                                   << "not a ZIP archive";
        QTest::newRow("code in the weights") << "bad_global.pt2"
                                             << "global posix.system refused";
    }
    void damagedArchiveSaysWhy()
    {
        QFETCH(QString, file);
        QFETCH(QString, message);
        MainWindow w;
        w.setQuietErrors(true);
        guitest::DialogDriver driver;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        openByMenu(w, driver, data("flat25_mlp.pt2"));
        QCOMPARE(w.sourceModel()->sourceCount(), 1);
        openByMenu(w, driver, data(file));
        QTRY_VERIFY_WITH_TIMEOUT(w.lastError().contains(message), 30000);
        QVERIFY2(w.lastError().contains(file), qPrintable(w.lastError()));
        QCOMPARE(w.sourceModel()->sourceCount(), 1);  // the good archive is still there
    }

    // a workspace with an archive open reopens on it: File > Save workspace as, then File > Open
    // of the workspace in a new window
    void workspaceReopens()
    {
        QTemporaryDir dir;
        const QString ws = dir.filePath("pt2.fxlens");
        {
            MainWindow w;
            w.setQuietErrors(true);
            guitest::DialogDriver driver;
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            openByMenu(w, driver, data("rooted28_mlp.pt2"));
            QTRY_VERIFY_WITH_TIMEOUT(w.graphView()->prepared(), 30000);
            driver.answerFile(ws);
            guitest::findAction(w, QStringLiteral("File > Save workspace as"))->trigger();
            QTRY_VERIFY(QFileInfo::exists(ws));
        }
        MainWindow w;
        w.setQuietErrors(true);
        guitest::DialogDriver driver;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        openByMenu(w, driver, ws);
        QVERIFY2(w.lastError().isEmpty(), qPrintable(w.lastError()));
        QCOMPARE(w.workspacePath(), ws);
        QTRY_VERIFY_WITH_TIMEOUT(w.graphView()->prepared()
                                     && w.graphView()->prepared()->source->path
                                         == data("rooted28_mlp.pt2").toStdString(),
                                 30000);
        QCOMPARE(w.sourceModel()->data(w.sourceModel()->index(0, SourceTreeModel::GraphsColumn)).toInt(), 2);
    }

    void aotiPackageSaysItHoldsNoGraph()
    {
        MainWindow w;
        w.setQuietErrors(true);
        guitest::DialogDriver driver;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        openByMenu(w, driver, data("aoti_package.pt2"));
        QTRY_VERIFY_WITH_TIMEOUT(
            w.lastError().contains("so it holds no graph") || w.statusText().contains("so it holds no graph"), 30000);
    }
};

FXL_TEST_MAIN(TestWindowPt2)
}  // namespace test_window_pt2
#include "test_window_pt2.moc"
