// The window as a user drives it: every action of every menu, through its menu entry
// (QAction::trigger) and through its key (QTest key events on the window), in each main state
// (nothing open, a graph, a log, a diff, steps run, a check run, a workspace), each checked
// for what it visibly does; the source tree's context menu; no key bound twice; then a seeded
// random walk over actions, keys, clicks, drags, wheels and tabs that must leave the window
// alive and consistent (FXLENS_WALK_SEED and FXLENS_WALK_EVENTS replay one walk; a failing
// walk writes its events to the build directory's tests/random_walk_SEED.txt).
#include <QAbstractButton>
#include <QComboBox>
#include <QDockWidget>
#include <QFile>
#include <QHeaderView>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QStandardItemModel>
#include <QStyle>
#include <QTabBar>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTextBlock>
#include <QTreeView>
#include <QWheelEvent>
#include <QtTest>

#include <functional>
#include <map>
#include <random>

#include "gui_test_util.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"
#include "viewer/jobs/run_jobs.hpp"
#include "viewer/jobs/step_jobs.hpp"
#include "viewer/model/equivalence_model.hpp"
#include "viewer/model/node_search.hpp"
#include "viewer/model/pipeline_model.hpp"
#include "viewer/model/snapshot_timeline_model.hpp"
#include "viewer/model/source_tree_model.hpp"
#include "viewer/model/timeline_model.hpp"
#include "viewer/widgets/diff_view.hpp"
#include "viewer/widgets/graph_view.hpp"
#include "viewer/widgets/main_window.hpp"
#include "viewer/widgets/marks_panel.hpp"
#include "viewer/widgets/pipeline_editor.hpp"
#include "viewer/widgets/run_panel.hpp"
#include "viewer/widgets/snapshot_panel.hpp"
#include "viewer/widgets/snapshot_view.hpp"
#include "viewer/widgets/text_panel.hpp"
#include "window_driver.hpp"

namespace test_window_actions {

using namespace fxl;
using namespace fxl::viewer;
using guitest::DialogDriver;
using guitest::MenuAction;

namespace {

QString data(const char* relative) { return QString::fromStdString(fxltest::testDataPath(relative).string()); }

const QString kSpec = QStringLiteral("remove_detach,sac(policy=alternate_mm),remat,dce");

QDockWidget* dock(MainWindow& w, const QString& title)
{
    for (QDockWidget* d : w.findChildren<QDockWidget*>())
        if (d->windowTitle() == title) return d;
    return nullptr;
}

bool isPng(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) && f.read(8) == QByteArray("\x89PNG\r\n\x1a\n", 8);
}

// A node in the middle of the graph shown with both a producer and a consumer.
QString middleNode(MainWindow& w)
{
    const Graph* g = w.graphView()->graph();
    if (!g) return {};
    const auto order = g->order();
    for (size_t k = order.size() / 2; k < order.size(); ++k) {
        const Node& n = g->node(order[k]);
        if (n.op == NodeOp::CallFunction && !n.users.empty() && !producersOf(*g, n.id).empty())
            return QString::fromStdString(n.name);
    }
    return {};
}

// The window in one of the main states, set up as a user would have left it.
// Each window starts as a new user's: the layout, theme and folding other tests left in the
// settings (the window saves them on closing) are forgotten first.
struct FreshSettings
{
    FreshSettings()
    {
        QSettings settings(QStringLiteral("fxlens"), QStringLiteral("fxlens"));
        for (const char* key : {"window/geometry", "window/state", "theme", "view/fold", "sources/hiddenColumns"})
            settings.remove(QString::fromLatin1(key));
    }
};

struct Session
{
    FreshSettings fresh;
    MainWindow w;
    DialogDriver driver;
    QTemporaryDir dir;
    QString state;
    int saved = 0;  // files written by the test, to name the next one

    QString next(const char* suffix) { return dir.filePath(QStringLiteral("out%1%2").arg(++saved).arg(suffix)); }
};

// States: what is open before the actions run.
void setUp(Session& s, const QString& state)
{
    s.state = state;
    MainWindow& w = s.w;
    w.setQuietErrors(true);
    w.resize(1366, 768);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&w));
    if (state == QLatin1String("nothing")) return;
    if (state == QLatin1String("log")) {
        const auto log = fxltest::corpusPath("tlparse/simple.log");
        QVERIFY2(w.openPath(QString::fromStdString(log.string())).isEmpty(), qPrintable(w.lastError()));
        QVERIFY(w.waitIdle());
        return;
    }
    if (state == QLatin1String("diff")) {
        QVERIFY(
            w.openDiff(data("pytorch/mlp_gelu.fw.default.code.py"), {}, data("pytorch/mlp_gelu.fw.mincut.code.py"), {})
                .isEmpty());
        QVERIFY(w.waitIdle());
        return;
    }
    QVERIFY2(w.openPath(data("pytorch/mlp_gelu.joint.code.py")).isEmpty(), qPrintable(w.lastError()));
    QVERIFY(w.waitIdle());
    if (state == QLatin1String("graph")) return;
    QVERIFY(w.runPipeline(kSpec).isEmpty());
    QVERIFY(w.showStep(3));
    QVERIFY(w.waitIdle());
    if (state == QLatin1String("steps")) return;
    QVERIFY(w.runCheck(0));
    if (state == QLatin1String("run")) return;
    QVERIFY(w.saveWorkspace(s.dir.filePath(QStringLiteral("session.fxlens"))).isEmpty());
    QCOMPARE(state, QStringLiteral("workspace"));
}

bool hasGraph(MainWindow& w) { return w.graphView()->graph() != nullptr; }
// The view Fit, zoom and Collapse act on: the graph, or the diff's right pane (both panes act).
GraphView* frontView(MainWindow& w)
{
    return w.centralTabs()->currentIndex() == 1 ? w.diffView()->viewB() : w.graphView();
}
bool hasSteps(MainWindow& w) { return w.runner()->steps().size() > 1; }
bool inWorkspace(MainWindow& w) { return !w.workspacePath().isEmpty(); }

// What an action does, checked: prepare (what it needs on screen first) and check (what it
// visibly did). Every action of the menus has one; a new action without one fails the test.
struct ActionCheck
{
    std::function<void(Session&)> prepare;
    std::function<void(Session&)> check;
};

std::map<QString, ActionCheck> actionChecks()
{
    std::map<QString, ActionCheck> c;
    auto count = std::make_shared<int>(0);
    auto value = std::make_shared<double>(0);
    auto text = std::make_shared<QString>();
    auto path = std::make_shared<QString>();

    c[QStringLiteral("File > Open")] = {[count, path](Session& s) {
                                            *count = s.w.sourceModel()->sourceCount();
                                            *path = data("pytorch/mlp_gelu.fw.mincut.code.py");
                                            s.driver.answerFile(*path);
                                        },
                                        [count, path](Session& s) {
                                            QVERIFY(s.w.waitIdle());
                                            QCOMPARE(s.w.sourceModel()->sourceCount(), *count + 1);
                                            // what was opened is shown, in the Graph tab
                                            QTRY_VERIFY(s.w.graphView()->prepared()
                                                        && s.w.graphView()->prepared()->source->path
                                                            == path->toStdString());
                                            QCOMPARE(s.w.centralTabs()->currentIndex(), 0);
                                        }};
    c[QStringLiteral("File > Open folder (per-rank logs, tlparse output)")] = {
        [count](Session& s) { *count = s.w.sourceModel()->sourceCount(); },
        [count](Session& s) {
            QVERIFY2(s.driver.seen().contains(QStringLiteral("file: Open a folder")),
                     qPrintable(s.driver.seen().join('|')));
            QCOMPARE(s.w.sourceModel()->sourceCount(), *count);  // cancelled: nothing opened
        }};
    c[QStringLiteral("File > Save workspace")] = {[path](Session& s) {
                                                      *path =
                                                          inWorkspace(s.w) ? s.w.workspacePath() : s.next(".fxlens");
                                                      s.driver.answerFile(*path);
                                                  },
                                                  [path](Session& s) {
                                                      QVERIFY(QFileInfo::exists(*path));
                                                      QCOMPARE(s.w.workspacePath(), *path);
                                                  }};
    c[QStringLiteral("File > Save workspace as")] = {[path](Session& s) {
                                                         *path = s.next(".fxlens");
                                                         s.driver.answerFile(*path);
                                                     },
                                                     [path](Session& s) {
                                                         QVERIFY(QFileInfo::exists(*path));
                                                         QCOMPARE(s.w.workspacePath(), *path);
                                                     }};
    auto exportCheck = [path](const char* suffix, std::function<bool(MainWindow&)> possible) {
        return ActionCheck{[path, suffix](Session& s) {
                               *path = s.next(suffix);
                               s.driver.answerFile(*path);
                           },
                           [path, possible](Session& s) {
                               if (possible(s.w)) {
                                   QVERIFY2(QFileInfo::exists(*path), qPrintable(s.w.lastError()));
                                   if (path->endsWith(QLatin1String(".png"))) QVERIFY(isPng(*path));
                               } else {
                                   QVERIFY(!QFileInfo::exists(*path));
                                   QVERIFY(!s.w.lastError().isEmpty());  // said why
                               }
                           }};
    };
    c[QStringLiteral("File > Export > Graph view (SVG, PNG)")] = exportCheck(".png", hasGraph);
    c[QStringLiteral("File > Export > Diff view (SVG, PNG)")] =
        exportCheck(".svg", [](MainWindow& w) { return w.diffView()->diff() != nullptr; });
    c[QStringLiteral("File > Export > Memory timeline (PNG, CSV)")] = exportCheck(".csv", hasGraph);
    c[QStringLiteral("File > Export > Pipeline report (HTML)")] = exportCheck(".html", hasGraph);
    c[QStringLiteral("Find > Find nodes")] = {{}, [](Session& s) {
                                                  QDockWidget* d = dock(s.w, QStringLiteral("Find"));
                                                  QVERIFY(d && d->isVisible());
                                                  auto* edit = qobject_cast<QLineEdit*>(QApplication::focusWidget());
                                                  QVERIFY2(edit && d->isAncestorOf(edit), "focus is not in Find");
                                              }};
    auto findStep = [text](int) {
        return ActionCheck{[text](Session& s) {
                               text->clear();
                               if (!hasGraph(s.w)) return;
                               for (const char* q : {"op:mm", "op:addmm", "add", "mul"})
                                   if (s.w.find(QString::fromLatin1(q)) > 1) {
                                       *text = s.w.graphView()->selected();
                                       return;
                                   }
                           },
                           [text](Session& s) {
                               if (text->isEmpty()) return;
                               QVERIFY(!s.w.graphView()->selected().isEmpty());
                               QVERIFY(s.w.graphView()->selected() != *text);
                           }};
    };
    c[QStringLiteral("Find > Find next")] = findStep(1);
    c[QStringLiteral("Find > Find previous")] = findStep(-1);
    auto walk = [text](bool producer) {
        return ActionCheck{[text](Session& s) {
                               *text = middleNode(s.w);
                               if (!text->isEmpty()) QVERIFY(s.w.graphView()->showNode(*text));
                           },
                           [text, producer](Session& s) {
                               if (text->isEmpty()) return;
                               const Graph& g = *s.w.graphView()->graph();
                               const NodeId from = g.findByName(text->toStdString());
                               const NodeId now = g.findByName(s.w.graphView()->selected().toStdString());
                               QVERIFY(now != kNoNode);
                               const auto list = producer ? producersOf(g, from) : consumersOf(g, from);
                               QVERIFY2(std::find(list.begin(), list.end(), now) != list.end(),
                                        qPrintable(s.w.graphView()->selected()));
                           }};
    };
    c[QStringLiteral("Navigate > Go to producer")] = walk(true);
    c[QStringLiteral("Navigate > Go to consumer")] = walk(false);
    auto walkNext = [text]() {
        return ActionCheck{[text](Session& s) {
                               *text = middleNode(s.w);
                               if (text->isEmpty()) return;
                               QVERIFY(s.w.graphView()->showNode(*text));
                               QVERIFY(s.w.walkConsumer() || s.w.walkProducer());
                           },
                           [text](Session& s) {
                               if (text->isEmpty()) return;
                               QVERIFY2(s.w.statusText().contains(QLatin1String(" of ")), qPrintable(s.w.statusText()));
                           }};
    };
    c[QStringLiteral("Navigate > Next producer / consumer")] = walkNext();
    c[QStringLiteral("Navigate > Previous producer / consumer")] = walkNext();
    auto trace = [text](bool clear) {
        return ActionCheck{[text, clear](Session& s) {
                               *text = middleNode(s.w);
                               if (text->isEmpty()) return;
                               QVERIFY(s.w.graphView()->showNode(*text));
                               if (clear) QVERIFY(s.w.traceUpstream() > 0);
                           },
                           [text, clear](Session& s) {
                               if (text->isEmpty()) return;
                               if (clear)
                                   QCOMPARE(s.w.graphView()->highlightCount(), size_t(0));
                               else
                                   QVERIFY(s.w.graphView()->highlightCount() > 1);
                           }};
    };
    c[QStringLiteral("Navigate > Trace upstream")] = trace(false);
    c[QStringLiteral("Navigate > Trace downstream")] = trace(false);
    c[QStringLiteral("Navigate > Clear trace")] = trace(true);
    c[QStringLiteral("Navigate > Bookmark the node")] = {
        [text](Session& s) {
            *text = middleNode(s.w);
            if (!text->isEmpty()) QVERIFY(s.w.graphView()->showNode(*text));
        },
        [text](Session& s) {
            if (inWorkspace(s.w) && !text->isEmpty()) {
                QVERIFY2(s.w.inspectorText().contains(QLatin1String("Bookmarked")), qPrintable(s.w.inspectorText()));
                // listed in the Bookmarks and notes dock, and a double click there shows it
                QTableWidget* t = s.w.marksPanel()->table();
                QVERIFY(t->rowCount() > 0 && t->item(t->rowCount() - 1, 1)->text() == *text);
                s.w.graphView()->showNode(QString::fromStdString(
                    s.w.graphView()->graph()->node(s.w.graphView()->graph()->order().front()).name));
                QVERIFY(s.w.waitIdle());
                QDockWidget* d = dock(s.w, QStringLiteral("Bookmarks and notes"));
                d->show();
                d->raise();
                QCoreApplication::processEvents();
                const QModelIndex row = t->model()->index(t->rowCount() - 1, 1);
                t->scrollTo(row);
                guitest::userDoubleClick(t->viewport(), t->visualRect(row).center());
                QVERIFY(s.w.waitIdle());
                QCOMPARE(s.w.graphView()->selected(), *text);
            } else if (!inWorkspace(s.w))
                QVERIFY(s.w.statusText().contains(QLatin1String("workspace")));
        }};
    c[QStringLiteral("Navigate > Note on the node")] = {
        [text](Session& s) {
            *text = middleNode(s.w);
            if (!text->isEmpty()) QVERIFY(s.w.graphView()->showNode(*text));
            s.driver.answerText(QStringLiteral("a note typed here"));
        },
        [text](Session& s) {
            if (inWorkspace(s.w) && !text->isEmpty())
                QVERIFY2(s.w.inspectorText().contains(QLatin1String("a note typed here")),
                         qPrintable(s.w.inspectorText()));
            else
                QVERIFY(s.w.statusText().contains(QLatin1String("workspace")));
        }};
    // the spec typed into the field and not applied is what runs
    c[QStringLiteral("Passes > Run the pipeline")] = {
        [](Session& s) { s.w.passes()->specEdit()->setText(QStringLiteral("remove_detach,dce")); },
        [](Session& s) {
            QVERIFY(dock(s.w, QStringLiteral("Passes"))->isVisible());
            QVERIFY(s.w.waitIdle());
            if (!hasGraph(s.w)) {
                QVERIFY(s.w.passes()->message().contains(QLatin1String("open a graph")));
                return;
            }
            QCOMPARE(s.w.passes()->pipeline()->spec(), QStringLiteral("remove_detach,dce"));
            QCOMPARE(int(s.w.runner()->steps().size()), 3);
        }};
    auto step = [count](int by) {
        return ActionCheck{[count, by](Session& s) {
                               if (hasSteps(s.w)) QVERIFY(s.w.showStep(by > 0 ? 1 : 2));
                               *count = s.w.currentStep();
                           },
                           [count, by](Session& s) {
                               if (hasSteps(s.w)) QCOMPARE(s.w.currentStep(), *count + by);
                           }};
    };
    c[QStringLiteral("Passes > Next step")] = step(1);
    c[QStringLiteral("Passes > Previous step")] = step(-1);
    c[QStringLiteral("Passes > Check the step against the one before")] = {
        [count](Session& s) {
            *count = static_cast<int>(s.w.runner()->steps().size()) - 1;
            if (hasSteps(s.w)) QVERIFY(s.w.showStep(*count));
        },
        [count](Session& s) {
            QDockWidget* d = dock(s.w, QStringLiteral("Run"));
            QVERIFY(d && d->isVisible());
            QVERIFY(s.w.waitIdle());
            if (hasSteps(s.w) && s.w.centralTabs()->currentIndex() == 0) {
                const auto o = s.w.runPanel()->outcome();
                QVERIFY(o && o->ok && o->compared && o->request.stepIndex == *count);
                QVERIFY(o->bitwise());
                QVERIFY(!s.w.runPanel()->stale());
            }
        }};
    c[QStringLiteral("Passes > Show the graph")] = {{},
                                                    [](Session& s) { QCOMPARE(s.w.centralTabs()->currentIndex(), 0); }};
    c[QStringLiteral("Passes > Show the diff")] = {{},
                                                   [](Session& s) { QCOMPARE(s.w.centralTabs()->currentIndex(), 1); }};
    // the Memory menu (viewer/widgets/snapshot_panel.hpp; tests/viewer/test_snapshot_window.cpp
    // drives each further): a snapshot opened shows in the Memory snapshot tab (the tab shown
    // before comes back after, for the actions that follow); the two comparisons ask for a file
    // (cancelled here) or say what they need first
    c[QStringLiteral("Memory > Open a CUDA memory snapshot")] = {
        [count, path](Session& s) {
            *count = s.w.centralTabs()->currentIndex();
            *path = QString::fromStdString(fxltest::testDataPath("snapshots/step.p2.pickle").string());
            s.driver.answerFile(*path);
        },
        [count, path](Session& s) {
            QVERIFY(s.w.waitIdle());
            const auto shown = s.w.snapshotPanel()->model()->snapshot();
            QVERIFY2(shown && shown->path == *path, qPrintable(s.w.lastError()));
            QCOMPARE(s.w.centralTabs()->currentWidget(), s.w.snapshotPanel());
            s.w.centralTabs()->setCurrentIndex(*count);
        }};
    c[QStringLiteral("Memory > Compare the graph with a snapshot")] = {
        [](Session& s) { s.w.clearLastError(); },
        [](Session& s) {
            if (hasGraph(s.w))
                QVERIFY2(s.driver.seen().contains(QStringLiteral("file: A snapshot of the graph's run")),
                         qPrintable(s.driver.seen().join('|')));
            else
                QVERIFY2(s.w.lastError().contains(QStringLiteral("no graph is shown")), qPrintable(s.w.lastError()));
        }};
    c[QStringLiteral("Memory > Compare with another snapshot")] = {
        [](Session& s) { s.w.clearLastError(); },
        [](Session& s) {
            if (s.w.snapshotPanel()->model()->snapshot())
                QVERIFY2(s.driver.seen().join('|').contains(QStringLiteral("file: A snapshot to compare with")),
                         qPrintable(s.driver.seen().join('|')));
            else
                QVERIFY2(s.w.lastError().contains(QStringLiteral("no snapshot is shown")), qPrintable(s.w.lastError()));
        }};
    c[QStringLiteral("Memory > Show every step of the snapshot")] = {
        [](Session& s) { s.w.snapshotPanel()->view()->setRange(1, 3); },
        [](Session& s) { QVERIFY(!s.w.snapshotPanel()->view()->zoomed()); }};
    // a snapshot without a private pool (or none) says so and stays unchecked
    // (test_snapshot_window privatePoolsView drives it on one with a pool)
    c[QStringLiteral("Memory > Include private pools in the snapshot timeline")] = {
        [](Session& s) { s.w.clearLastError(); },
        [](Session& s) {
            QAction* a =
                guitest::findAction(s.w, QStringLiteral("Memory > Include private pools in the snapshot timeline"));
            if (s.w.snapshotPanel()->model()->snapshot()
                && !s.w.snapshotPanel()->model()->snapshot()->poolTimelines.empty()) {
                QVERIFY(a->isChecked());
                a->trigger();  // back to the default view for the actions that follow
            } else {
                QVERIFY(!a->isChecked());
                QVERIFY2(s.w.lastError().contains(QStringLiteral("Include private pools:")),
                         qPrintable(s.w.lastError()));
            }
        }};
    c[QStringLiteral("View > Fit")] = {[value](Session& s) {
                                           frontView(s.w)->setZoom(4.0);
                                           *value = frontView(s.w)->zoom();
                                       },
                                       [value](Session& s) {
                                           if (frontView(s.w)->shown()) QVERIFY(frontView(s.w)->zoom() < *value);
                                       }};
    auto zoom = [value](double factor) {
        return ActionCheck{[value](Session& s) {
                               frontView(s.w)->setZoom(0.5);
                               *value = frontView(s.w)->zoom();
                           },
                           [value, factor](Session& s) {
                               if (frontView(s.w)->shown())
                                   QVERIFY(std::abs(frontView(s.w)->zoom() - *value * factor) < 1e-9);
                           }};
    };
    c[QStringLiteral("View > Zoom in")] = zoom(1.25);
    c[QStringLiteral("View > Zoom out")] = zoom(1 / 1.25);
    c[QStringLiteral("View > Collapse all")] = {[](Session& s) {
                                                    const QString n = middleNode(s.w);
                                                    if (!n.isEmpty()) QVERIFY(s.w.graphView()->showNode(n));
                                                    QVERIFY(s.w.waitIdle());
                                                },
                                                [](Session& s) {
                                                    QVERIFY(s.w.waitIdle());
                                                    QVERIFY(frontView(s.w)->expanded().empty());
                                                }};
    c[QStringLiteral("View > Focus on the graph (hide the docks)")] = {{}, [](Session& s) {
                                                                           int shown = 0;
                                                                           for (QDockWidget* d :
                                                                                s.w.findChildren<QDockWidget*>())
                                                                               shown += d->isHidden() ? 0 : 1;
                                                                           if (s.w.focusMode())
                                                                               QCOMPARE(shown, 0);
                                                                           else
                                                                               QVERIFY(shown > 0);
                                                                       }};
    c[QStringLiteral("View > Fold identical siblings")] = {
        [value](Session& s) { *value = s.w.graphView()->foldIdentical() ? 1 : 0; },
        [value](Session& s) { QCOMPARE(s.w.graphView()->foldIdentical() ? 1.0 : 0.0, 1 - *value); }};
    c[QStringLiteral("View > Theme > Light")] = {{}, [](Session& s) { QVERIFY(!s.w.graphView()->dark()); }};
    c[QStringLiteral("View > Theme > Dark")] = {{}, [](Session& s) { QVERIFY(s.w.graphView()->dark()); }};
    c[QStringLiteral("View > Theme > Follow the desktop")] = {
        {}, [](Session& s) {
            QCOMPARE(s.w.graphView()->dark(), QApplication::palette().color(QPalette::Window).lightness() < 128);
        }};
    for (const char* title : {"Sources", "Find", "Inspector", "Overview", "Legend", "Bookmarks and notes",
                              "Original text", "Passes", "Memory timeline", "Run"}) {
        const QString t = QString::fromLatin1(title);
        c[QStringLiteral("View > ") + t] = {
            [value, t](Session& s) {
                QDockWidget* d = dock(s.w, t);
                QVERIFY(d);
                *value = d->isHidden() ? 1 : 0;
            },
            [value, t](Session& s) { QCOMPARE(dock(s.w, t)->isHidden() ? 1.0 : 0.0, 1 - *value); }};
    }
    c[QStringLiteral("Help > Keyboard shortcuts")] = {{}, [](Session& s) {
                                                          bool shown = false;
                                                          for (const QString& x : s.driver.seen())
                                                              shown = shown
                                                                  || (x.startsWith(QLatin1String("box: "))
                                                                      && x.contains(QLatin1String("Find nodes"))
                                                                      && x.contains(QLatin1String("Ctrl+Shift+E")));
                                                          QVERIFY2(shown, qPrintable(s.driver.seen().join('|')));
                                                      }};
    // the user's copy of the example made again from the bundled files
    c[QStringLiteral("Help > Restore the bundled example")] = {
        {}, [](Session& s) {
            QVERIFY(s.w.waitIdle());
            QCOMPARE(s.w.workspacePath(), exampleCopyDir() + QStringLiteral("/gpt2_tiny.fxlens"));
            QCOMPARE(s.w.currentStep(), 3);
            QVERIFY(QString::fromStdString(s.w.graphView()->prepared()->source->path).startsWith(exampleCopyDir()));
        }};
    c[QStringLiteral("File > Quit")] = {{}, [](Session& s) { QTRY_VERIFY(!s.w.isVisible()); }};
    return c;
}

// The actions of the window in the order a test runs them (Quit last), the recent files' menu
// filled as a user opening it would see it.
std::vector<MenuAction> actionsToRun(MainWindow& w)
{
    for (QMenu* m : w.menuBar()->findChildren<QMenu*>())
        if (m->title().contains(QLatin1String("recent"))) emit m->aboutToShow();
    std::vector<MenuAction> all = guitest::menuActions(w), out;
    MenuAction quit;
    for (const MenuAction& m : all) {
        if (m.path.startsWith(QLatin1String("File > Open recent"))) continue;  // its own test
        if (m.path == QLatin1String("File > Quit"))
            quit = m;
        else
            out.push_back(m);
    }
    if (quit.action) out.push_back(quit);
    return out;
}

QStringList states() { return {"nothing", "graph", "log", "diff", "steps", "run", "workspace"}; }

// The window's consistency after any sequence of events.
void checkConsistent(MainWindow& w)
{
    QVERIFY(w.isVisible());
    const GraphView* v = w.graphView();
    if (const Graph* g = v->graph()) {
        if (!v->selected().isEmpty())
            QVERIFY2(g->findByName(v->selected().toStdString()) != kNoNode, qPrintable(v->selected()));
    }
    QVERIFY(w.currentStep() < static_cast<int>(w.runner()->steps().size()));
    // a result the run panel shows as current is of the steps shown (by content hash)
    if (const auto o = w.runPanel()->outcome();
        o && o->ok && o->request.stepIndex >= 0 && o->request.against != "graphs" && !w.runPanel()->stale())
        QVERIFY2(checkStaleness(o->request, w.runner()->steps()).empty(),
                 checkStaleness(o->request, w.runner()->steps()).c_str());
    QVERIFY(!w.breadcrumbText().isEmpty());
}

}  // namespace

class TestWindowActions : public QObject
{
    Q_OBJECT

    // Each action of the menus in `state`, fired from its menu or (byKey) by its key pressed on
    // the window with the graph view focused; each checked by its ActionCheck.
    void eachAction(const QString& state, bool byKey)
    {
        if (state == QLatin1String("log")) FXL_REQUIRE_CORPUS(fxltest::corpusPath("tlparse/simple.log"));
        Session s;
        setUp(s, state);
        const auto checks = actionChecks();
        for (const MenuAction& m : actionsToRun(s.w)) {
            if (byKey && m.action->shortcut().isEmpty()) continue;
            const auto it = checks.find(m.path);
            QVERIFY2(it != checks.end(), qPrintable(QStringLiteral("no check for the action ") + m.path));
            s.driver.clearAnswers();
            s.driver.clearSeen();
            if (it->second.prepare) it->second.prepare(s);
            if (QTest::currentTestFailed()) QFAIL(qPrintable(QStringLiteral("preparing ") + m.path));
            QVERIFY2(m.action->isEnabled(), qPrintable(m.path));
            s.w.activateWindow();  // a dialog of the action before took it
            QVERIFY(QTest::qWaitForWindowActive(&s.w));
            int triggered = 0;
            auto c = connect(m.action, &QAction::triggered, this, [&triggered] { ++triggered; });
            if (byKey) {
                s.w.graphView()->setFocus();  // as after a click on it
                QCoreApplication::processEvents();
                QTest::keySequence(s.w.graphView(), m.action->shortcut());
            } else {
                m.action->trigger();
            }
            disconnect(c);
            QVERIFY2(s.w.waitIdle(), qPrintable(m.path));
            QVERIFY2(triggered == 1,
                     qPrintable(QStringLiteral("%1 (%2) triggered %3 times")
                                    .arg(m.path, m.action->shortcut().toString())
                                    .arg(triggered)));
            it->second.check(s);
            if (QTest::currentTestFailed())
                QFAIL(
                    qPrintable(QStringLiteral("%1 %2 in state %3; status: %4; dialogs: %5")
                                   .arg(m.path, byKey ? QStringLiteral("by its key") : QStringLiteral("from its menu"),
                                        state, s.w.statusText(), s.driver.seen().join('|'))));
        }
    }

private slots:
    void initTestCase() { guitest::initWindowTests(); }

    // At 1366 x 768 every dock's tab says its whole name (four tabs in the right column once
    // read "I...", "O...", "Le...", "B...").
    void dockTabsReadable()
    {
        MainWindow w;
        w.setQuietErrors(true);
        w.resize(1366, 768);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.openPath(data("pytorch/mlp_gelu.joint.code.py")).isEmpty());
        QVERIFY(w.waitIdle());
        // with the Diff tab in front (its change list beside two panes widens the middle)
        QVERIFY(w.runPipeline(QStringLiteral("remove_detach,sac(policy=alternate_mm),remat,dce")).isEmpty());
        QVERIFY(w.showStep(3));
        w.centralTabs()->setCurrentWidget(w.diffView());
        QVERIFY(w.waitIdle());
        int tabs = 0;
        for (QTabBar* bar : w.findChildren<QTabBar*>()) {
            if (bar->parentWidget() != &w || !bar->isVisible()) continue;  // the docks' tab bars only
            for (int i = 0; i < bar->count(); ++i) {
                ++tabs;
                // the text and the style's margins beside it, or the tab bar elides the name
                const int text = bar->fontMetrics().horizontalAdvance(bar->tabText(i))
                    + bar->style()->pixelMetric(QStyle::PM_TabBarTabHSpace, nullptr, bar);
                QVERIFY2(bar->tabRect(i).width() >= text,
                         qPrintable(QStringLiteral("tab '%1' is %2 px wide for %3 px of text and margins")
                                        .arg(bar->tabText(i))
                                        .arg(bar->tabRect(i).width())
                                        .arg(text)));
            }
        }
        QVERIFY(tabs >= 9);  // Passes, Sources, Find; Inspector, Overview, Legend; Original text, ...
        // and the window still fits the screen it was made for
        QVERIFY2(
            w.minimumSizeHint().width() <= 1366 && w.width() <= 1366,
            qPrintable(
                QStringLiteral("the window needs %1 px, is %2 px").arg(w.minimumSizeHint().width()).arg(w.width())));
    }

    void everyMenuAction_data()
    {
        QTest::addColumn<QString>("state");
        for (const QString& s : states()) QTest::newRow(qPrintable(s)) << s;
    }

    // Every action of the menus, picked from its menu (trigger), in each state: the window
    // stays up and does what the entry says.
    void everyMenuAction()
    {
        QFETCH(QString, state);
        eachAction(state, false);
    }

    void everyShortcut_data() { everyMenuAction_data(); }

    // Every key of the menus, pressed on the window (the graph view has the focus, as after a
    // click on it): it triggers its action exactly once and the action does what it says.
    void everyShortcut()
    {
        QFETCH(QString, state);
        eachAction(state, true);
    }

    // No key is bound twice in the window (Qt then runs neither and says "Ambiguous shortcut
    // overload"), counting every action and every button.
    void noKeyBoundTwice()
    {
        Session s;
        setUp(s, QStringLiteral("graph"));
        std::map<QString, QStringList> owners;
        for (QAction* a : s.w.findChildren<QAction*>())
            for (const QKeySequence& k : a->shortcuts())
                if (!k.isEmpty()) owners[k.toString()] << guitest::plainText(a);
        for (QAbstractButton* b : s.w.findChildren<QAbstractButton*>())
            if (!b->shortcut().isEmpty()) owners[b->shortcut().toString()] << QStringLiteral("button ") + b->text();
        for (const auto& [key, who] : owners)
            QVERIFY2(who.size() == 1, qPrintable(key + QStringLiteral(": ") + who.join(", ")));
        QVERIFY(owners.count(QStringLiteral("Ctrl+F")) == 1);
        QVERIFY(owners.count(QStringLiteral("Ctrl+Return")) == 1);
    }

    // File > Open recent: the files opened before, the newest first; picking one opens it and
    // shows it.
    void openRecent()
    {
        Session s;
        setUp(s, QStringLiteral("graph"));
        const QString other = data("pytorch/linear_ce.joint.code.py");
        QVERIFY(s.w.openPath(other).isEmpty());
        QVERIFY(s.w.openPath(data("pytorch/mlp_gelu.fw.default.code.py")).isEmpty());
        QMenu* recent = nullptr;
        for (QMenu* m : s.w.menuBar()->findChildren<QMenu*>())
            if (m->title().contains(QLatin1String("recent"))) recent = m;
        QVERIFY(recent);
        emit recent->aboutToShow();
        QAction* pick = nullptr;
        for (QAction* a : recent->actions())
            if (a->text() == QFileInfo(other).absoluteFilePath()) pick = a;
        QVERIFY(pick);
        const int before = s.w.sourceModel()->sourceCount();
        pick->trigger();
        QVERIFY(s.w.waitIdle());
        QCOMPARE(s.w.sourceModel()->sourceCount(), before + 1);
        QVERIFY(s.w.graphView()->prepared()->source->path == QFileInfo(other).absoluteFilePath().toStdString()
                || s.w.graphView()->prepared()->source->path == other.toStdString());
    }

    // Run plans first: a graph with two unknown operators is refused at once, both named, and
    // nothing runs (the panel's Run, as a user presses it, in "run it alone").
    void runRefusesWithEveryReason()
    {
        Session s;
        setUp(s, QStringLiteral("nothing"));
        const QString path = s.dir.filePath(QStringLiteral("unknown_ops.code.py"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("class GraphModule(torch.nn.Module):\n"
                "    def forward(self, arg0_1: \"f32[4]\"):\n"
                "        foo = torch.ops.mylib.foo.default(arg0_1)\n"
                "        bar = torch.ops.mylib.bar.default(foo)\n"
                "        add = torch.ops.aten.add.Tensor(bar, arg0_1)\n"
                "        return (add,)\n");
        f.close();
        QVERIFY(s.w.openPath(path).isEmpty());
        s.w.runPanel()->setAgainst(RunPanel::Against::Nothing);
        auto* run = s.w.runPanel()->findChild<QPushButton*>(QStringLiteral("run"));
        QVERIFY(run);
        QDockWidget* runDock = dock(s.w, QStringLiteral("Run"));
        runDock->show();
        runDock->raise();
        QVERIFY(run->isVisible());
        QTest::mouseClick(run, Qt::LeftButton);
        QVERIFY(s.w.waitIdle());
        const auto o = s.w.runPanel()->outcome();
        QVERIFY(o && !o->ok);
        QVERIFY2(o->error.find("nothing was run") != std::string::npos
                     && o->error.find("mylib.foo.default") != std::string::npos
                     && o->error.find("mylib.bar.default") != std::string::npos,
                 o->error.c_str());
        QCOMPARE(o->subject.seconds, 0.0);
        QVERIFY2(s.w.runPanel()->summaryText().contains(QLatin1String("mylib.bar.default")),
                 qPrintable(s.w.runPanel()->summaryText()));
    }

    // "Check this step on the CPU against the device", as a user picks it: the emulated CUDA
    // device in the backend list (a real choice: the CUDA kernels' code run by the CPU), the
    // check in the list of what to compare with, Run pressed: every output and every node value
    // of the step on the device bitwise equal to the CPU's; the summary names the device and
    // gives the measured peak beside the estimate.
    void checkStepOnCpuAndDevice()
    {
        Session s;
        setUp(s, QStringLiteral("nothing"));
        QVERIFY(s.w.openPath(QString::fromStdString(fxltest::testDataPath("pytorch/mlp_gelu.joint.code.py").string()))
                    .isEmpty());
        QVERIFY(s.w.waitIdle());
        RunPanel* panel = s.w.runPanel();
        auto* backend = panel->findChild<QComboBox*>(QStringLiteral("backend"));
        auto* against = panel->findChild<QComboBox*>(QStringLiteral("against"));
        auto* run = panel->findChild<QPushButton*>(QStringLiteral("run"));
        QVERIFY(backend && against && run);
        QDockWidget* runDock = dock(s.w, QStringLiteral("Run"));
        runDock->show();
        runDock->raise();
        const int emu = backend->findData(QStringLiteral("cuda-emu:0"));
        QVERIFY2(emu >= 0, "the emulated CUDA device is not in the backend list");
        auto* items = qobject_cast<QStandardItemModel*>(backend->model());
        QVERIFY(items && items->item(emu)->isEnabled());
        backend->setCurrentIndex(emu);
        against->setCurrentIndex(static_cast<int>(RunPanel::Against::OnCpu));
        QVERIFY(run->isVisible() && run->isEnabled());
        QTest::mouseClick(run, Qt::LeftButton);
        QVERIFY(s.w.waitIdle());
        const auto o = panel->outcome();
        QVERIFY(o);
        QVERIFY2(o->ok, o->error.c_str());
        QCOMPARE(QString::fromStdString(o->request.backend), QStringLiteral("cuda-emu:0"));
        QCOMPARE(QString::fromStdString(o->request.referenceBackend), QStringLiteral("cpu"));
        QVERIFY(o->compared);
        QVERIFY2(o->bitwise(), o->summary().c_str());
        QCOMPARE(o->report.outputs.size(), size_t(3));
        QVERIFY(o->localize);
        QCOMPARE(o->localize->counts.compared, size_t(16));
        QCOMPARE(o->localize->counts.differing, size_t(0));
        QCOMPARE(o->subject.peakBytes, o->subjectEstimatePeak);
        const QString text = panel->summaryText();
        QVERIFY2(text.contains(QLatin1String("bitwise equal")) && text.contains(QLatin1String("on the CPU"))
                     && text.contains(QLatin1String("on cuda-emu:0"))
                     && text.contains(QLatin1String("the memory timeline's estimate 612 B")),
                 qPrintable(text));
        guitest::saveShot(*panel, "run_panel_cuda_emulated.png");
    }

    // The diff's options in the window, as in the CLI: fields typed into the ignore field are
    // left out (two graphs that differ in their sizes alone show no change when val is
    // ignored), an unknown field is said; the filter shows the nodes only rewired.
    void diffOptions()
    {
        Session s;
        setUp(s, QStringLiteral("nothing"));
        const QString a = s.dir.filePath(QStringLiteral("a.code.py")), b = s.dir.filePath(QStringLiteral("b.code.py"));
        for (const auto& [path, n] : {std::pair{a, 4}, std::pair{b, 8}}) {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QStringLiteral("class GraphModule(torch.nn.Module):\n"
                                   "    def forward(self, x: \"f32[%1]\"):\n"
                                   "        relu: \"f32[%1]\" = torch.ops.aten.relu.default(x)\n"
                                   "        neg: \"f32[%1]\" = torch.ops.aten.neg.default(relu)\n"
                                   "        return (neg,)\n")
                        .arg(n)
                        .toUtf8());
        }
        QVERIFY(s.w.openDiff(a, {}, b, {}).isEmpty());
        DiffView* d = s.w.diffView();
        QVERIFY(d->diff()->totalCounts().changed > 0);
        // the memory timeline follows: the right graph's over the left one's
        QVERIFY(s.w.timelineModel()->hasPrevious());
        QCOMPARE(s.w.timelineModel()->current()->peakBytes, computeMemoryTimeline(*d->viewB()->graph()).peakBytes);
        QCOMPARE(s.w.timelineModel()->previous()->peakBytes, computeMemoryTimeline(*d->viewA()->graph()).peakBytes);
        QVERIFY(s.w.timelineModel()->current()->peakBytes > s.w.timelineModel()->previous()->peakBytes);
        auto* ignore = d->findChild<QLineEdit*>(QStringLiteral("ignoreFields"));
        QVERIFY(ignore);
        ignore->setFocus();
        QTest::keyClicks(ignore, QStringLiteral("nosuch"));
        QTest::keyClick(ignore, Qt::Key_Return);
        QVERIFY2(d->syncStatus().contains(QLatin1String("no field named 'nosuch'")), qPrintable(d->syncStatus()));
        ignore->selectAll();
        QTest::keyClicks(ignore, QStringLiteral("val"));
        QTest::keyClick(ignore, Qt::Key_Return);
        QCOMPARE(d->diff()->totalCounts().changed, size_t(0));
        QVERIFY2(d->countsText().contains(QLatin1String("0 changed")), qPrintable(d->countsText()));
        auto* filter = d->findChild<QComboBox*>(QStringLiteral("changeFilter"));
        QVERIFY(filter && filter->findText(QStringLiteral("rewired only")) >= 0);
    }

    // The Original text dock: the file's line numbers beside the text, and a click on a line
    // that defines a node selects that node.
    void originalTextClickSelects()
    {
        Session s;
        setUp(s, QStringLiteral("graph"));
        QDockWidget* d = dock(s.w, QStringLiteral("Original text"));
        d->show();
        d->raise();
        QCoreApplication::processEvents();
        QCOMPARE(TextPanel::nodeOfLine(QStringLiteral("        mm: \"f32[8, 16]\" = torch.ops.aten.mm.default(a, b)")),
                 QStringLiteral("mm"));
        QCOMPARE(TextPanel::nodeOfLine(QStringLiteral("    %mm : [num_users=1] = call_function[target=aten.mm]")),
                 QStringLiteral("mm"));
        QCOMPARE(TextPanel::nodeOfLine(QStringLiteral("        return (mm,)")), QString());
        QPlainTextEdit* e = s.w.textPanel()->editor();
        QTextBlock target;
        for (QTextBlock b = e->document()->begin(); b.isValid(); b = b.next())
            if (TextPanel::nodeOfLine(b.text()) == QLatin1String("gelu")) target = b;
        QVERIFY(target.isValid());
        QVERIFY(s.w.graphView()->selected() != QLatin1String("gelu"));
        QTextCursor c(target);
        const QRect r = e->cursorRect(c);
        QTest::mouseClick(e->viewport(), Qt::LeftButton, Qt::NoModifier, QPoint(r.x() + 40, r.center().y()));
        QVERIFY(s.w.waitIdle());
        QCOMPARE(s.w.graphView()->selected(), QStringLiteral("gelu"));
        QCOMPARE(s.w.originalLine(), s.w.textPanel()->firstFileLine() + target.blockNumber());
        QVERIFY(e->viewport()->geometry().left() > 10);  // the line numbers' margin
        guitest::saveShot(*s.w.textPanel(), "window_text_panel.png");
    }

    // A reopened workspace makes its last check again only while it is of the same steps: the
    // graph unchanged, the check comes back current; the graph edited on disk since (the
    // steps are made from the new text), the panel says the workspace's check is stale and
    // nothing claims it.
    void staleCheckInAReopenedWorkspace()
    {
        QTemporaryDir dir;
        const QString graph = dir.filePath(QStringLiteral("mlp.joint.code.py"));
        QVERIFY(QFile::copy(data("pytorch/mlp_gelu.joint.code.py"), graph));
        QVERIFY(QFile::copy(data("pytorch/mlp_gelu.inputs.safetensors"),
                            dir.filePath(QStringLiteral("mlp.inputs.safetensors"))));
        const QString ws = dir.filePath(QStringLiteral("mlp.fxlens"));
        {
            Session s;
            setUp(s, QStringLiteral("nothing"));
            QVERIFY(s.w.openPath(graph).isEmpty());
            QVERIFY(s.w.runPipeline(QStringLiteral("remove_detach,dce")).isEmpty());
            QVERIFY(s.w.showStep(2));
            const auto o = s.w.runCheck(1);  // against the input
            QVERIFY(o && o->ok && o->bitwise());
            QVERIFY(s.w.saveWorkspace(ws).isEmpty());
            s.w.close();
        }
        {
            Session s;
            setUp(s, QStringLiteral("nothing"));
            QVERIFY2(s.w.openWorkspace(ws).isEmpty(), qPrintable(s.w.lastError()));
            const auto o = s.w.runPanel()->outcome();
            QVERIFY(o && o->ok && o->bitwise() && o->request.stepIndex == 2);
            QVERIFY(!s.w.runPanel()->stale());
            s.w.close();
        }
        QString text = QString::fromUtf8(fxltest::readFile(graph));
        QVERIFY(text.contains(QLatin1String("aten.gelu.default(mm)")));
        text.replace(QLatin1String("aten.gelu.default(mm)"), QLatin1String("aten.relu.default(mm)"));
        QFile f(graph);
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write(text.toUtf8());
        f.close();
        {
            Session s;
            setUp(s, QStringLiteral("nothing"));
            QVERIFY2(s.w.openWorkspace(ws).isEmpty(), qPrintable(s.w.lastError()));
            QVERIFY2(s.w.workspaceNotice().contains(QLatin1String("changed on disk")),
                     qPrintable(s.w.workspaceNotice()));
            QVERIFY(!s.w.runPanel()->outcome());  // not made again
            QVERIFY(s.w.runPanel()->stale());
            QVERIFY2(
                s.w.runPanel()->staleText().contains(QLatin1String("the workspace's last check (step 2) is stale")),
                qPrintable(s.w.runPanel()->staleText()));
        }
    }

    // Save dialogs suggest a name for what is shown and open in the folder saved in last.
    void saveDialogsSuggestAndRemember()
    {
        Session s;
        setUp(s, QStringLiteral("steps"));
        QAction* exportGraph = guitest::findAction(s.w, QStringLiteral("File > Export > Graph view (SVG, PNG)"));
        QAction* exportTimeline =
            guitest::findAction(s.w, QStringLiteral("File > Export > Memory timeline (PNG, CSV)"));
        QVERIFY(exportGraph && exportTimeline);
        const QString first = s.dir.filePath(QStringLiteral("sub/graph.svg"));
        QVERIFY(QDir().mkpath(s.dir.filePath(QStringLiteral("sub"))));
        s.driver.answerFile(first);
        exportGraph->trigger();
        QVERIFY(s.w.waitIdle());
        QVERIFY(QFileInfo::exists(first));
        QVERIFY2(s.driver.seen().size() >= 2
                     && s.driver.seen().at(1).endsWith(QLatin1String("/mlp_gelu.joint_step3_remat.svg")),
                 qPrintable(s.driver.seen().join('|')));
        s.driver.clearSeen();
        s.driver.answerFile(s.dir.filePath(QStringLiteral("sub/t.csv")));
        exportTimeline->trigger();
        QVERIFY(s.w.waitIdle());
        QVERIFY2(s.driver.seen().size() >= 2
                     && s.driver.seen().at(1)
                         == QStringLiteral("file at: ")
                             + QFileInfo(s.dir.filePath(QStringLiteral("sub"))).absoluteFilePath()
                             + QStringLiteral("/mlp_gelu.joint_step3_remat_memory.png"),
                 qPrintable(s.driver.seen().join('|')));
    }

    // A double click on a graph of the source tree with the Diff tab in front shows that graph
    // in the Graph tab (it left the Diff tab's empty-state text before).
    void doubleClickShowsTheGraph()
    {
        Session s;
        setUp(s, QStringLiteral("graph"));
        QVERIFY(s.w.openPath(data("pytorch/linear_ce.joint.code.py")).isEmpty());
        s.w.centralTabs()->setCurrentIndex(1);
        QTreeView* tree = s.w.sourceView();
        const QModelIndex first = s.w.sourceModel()->index(0, 0);
        QModelIndex graph = first;
        if (!s.w.sourceModel()->data(first, SourceTreeModel::IsGraphRole).toBool())
            graph = s.w.sourceModel()->index(0, 0, first);
        QVERIFY(s.w.sourceModel()->data(graph, SourceTreeModel::IsGraphRole).toBool());
        tree->scrollTo(graph);
        const QPoint at = tree->visualRect(graph).center();
        QVERIFY(tree->isVisible());
        guitest::userDoubleClick(tree->viewport(), at);
        QVERIFY(s.w.waitIdle());
        QCOMPARE(s.w.centralTabs()->currentIndex(), 0);
        QVERIFY(s.w.graphView()->prepared()->source->path.find("mlp_gelu") != std::string::npos);
    }

    // The source tree's context menu: two graphs selected, "Diff the two selected graphs"
    // shows their diff.
    void treeContextMenu()
    {
        Session s;
        setUp(s, QStringLiteral("diff"));
        QTreeView* tree = s.w.sourceView();
        QItemSelection sel;
        for (int r = 0; r < 2; ++r) {
            QModelIndex i = s.w.sourceModel()->index(r, 0);
            if (!s.w.sourceModel()->data(i, SourceTreeModel::IsGraphRole).toBool())
                i = s.w.sourceModel()->index(0, 0, i);
            sel.select(i, i);
        }
        tree->selectionModel()->select(sel, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        s.w.centralTabs()->setCurrentIndex(0);
        s.driver.pickMenuEntry(QStringLiteral("Diff the two selected graphs"));
        emit tree->customContextMenuRequested(QPoint(10, 10));
        QVERIFY(s.w.waitIdle());
        QVERIFY2(!s.driver.seen().isEmpty() && s.driver.seen().front().contains(QLatin1String("Diff the two")),
                 qPrintable(s.driver.seen().join('|')));
        QCOMPARE(s.w.centralTabs()->currentIndex(), 1);
        QVERIFY(s.w.diffView()->diff());
    }

    // The run panel sees every state a graph writes: the Diff tab showing a BatchNorm step
    // and a copy whose only change is a buffer update (momentum 0.2 in one batch norm),
    // Ctrl+Shift+R checks the right one against the left: every output bitwise equal, the
    // running statistics not, and the verdict says "not bitwise equal".
    void runPanelSeesBufferUpdates()
    {
        Session s;
        setUp(s, QStringLiteral("nothing"));
        const QString original = data("models/bn_convnet.joint.code.py");
        QString text = QString::fromStdString(fxltest::readFile(original.toStdString()));
        const QString from = QStringLiteral("arg10_1, arg11_1, True, 0.1, 1e-05");
        QVERIFY(text.contains(from));
        text.replace(text.indexOf(from), from.size(), QStringLiteral("arg10_1, arg11_1, True, 0.2, 1e-05"));
        const QString edited = s.dir.filePath(QStringLiteral("bn_edited.py"));
        {
            QFile f(edited);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(text.toUtf8());
        }
        QVERIFY2(s.w.openDiff(original, {}, edited, {}).isEmpty(), qPrintable(s.w.lastError()));
        QVERIFY(s.w.waitIdle());
        QCOMPARE(s.w.centralTabs()->currentWidget(), s.w.diffView());
        QTest::keyClick(&s.w, Qt::Key_R, Qt::ControlModifier | Qt::ShiftModifier);
        QVERIFY(s.w.waitIdle(120000));
        const auto o = s.w.runPanel()->outcome();
        QVERIFY2(o && o->ok && o->compared, o ? o->error.c_str() : "no outcome");
        QCOMPARE(o->request.against, std::string("graphs"));
        QCOMPARE(o->summary(), std::string("0 of 9 outputs differ, 2 of 6 written states differ"));
        QCOMPARE(o->verdict, Verdict::Different);
        QVERIFY2(s.w.runPanel()->summaryText().contains(QLatin1String(">not bitwise equal</b>")),
                 qPrintable(s.w.runPanel()->summaryText()));
        EquivalenceModel* m = s.w.runPanel()->table();
        QMap<QString, QString> result;
        for (int r = 0; r < m->rowCount(); ++r)
            result.insert(m->data(m->index(r, EquivalenceModel::OutputColumn)).toString(),
                          m->data(m->index(r, EquivalenceModel::ResultColumn)).toString());
        QCOMPARE(result.value(QStringLiteral("state input arg10_1")), QStringLiteral("differs"));
        QCOMPARE(result.value(QStringLiteral("state input arg11_1")), QStringLiteral("differs"));
        QCOMPARE(result.value(QStringLiteral("state input arg13_1")), QStringLiteral("bitwise"));
        QCOMPARE(result.value(QStringLiteral("out_0 (getitem_6)")), QStringLiteral("bitwise"));
        QCOMPARE(m->stateCount(), size_t(6));
    }

    // A partition step is checked in the run panel as the pair it is (its forward, then its
    // backward on the forward's saved values) against the joint before it, states included.
    void runPanelChecksPartitionStep()
    {
        Session s;
        setUp(s, QStringLiteral("nothing"));
        QVERIFY2(s.w.openPath(data("models/bn_convnet.joint.code.py")).isEmpty(), qPrintable(s.w.lastError()));
        QVERIFY(s.w.waitIdle());
        QVERIFY(s.w.runPipeline(QStringLiteral("partition(mode=mincut)")).isEmpty());
        QVERIFY(s.w.showStep(1));
        QVERIFY(s.w.waitIdle());
        QTest::keyClick(&s.w, Qt::Key_R, Qt::ControlModifier | Qt::ShiftModifier);
        QVERIFY(s.w.waitIdle(120000));
        const auto o = s.w.runPanel()->outcome();
        QVERIFY2(o && o->ok && o->compared, o ? o->error.c_str() : "no outcome");
        QVERIFY(o->request.subjectBackward);
        QCOMPARE(o->summary(), std::string("bitwise equal: 9 outputs and 6 written states"));
        QCOMPARE(o->verdict, Verdict::BitwiseEqual);
        QVERIFY2(
            s.w.runPanel()->summaryText().contains(QLatin1String(">bitwise equal</b>: 9 outputs and 6 written states")),
            qPrintable(s.w.runPanel()->summaryText()));
        QCOMPARE(s.w.runPanel()->table()->stateCount(), size_t(6));
    }

    // At 1366 x 768 the Sources tree shows each name of a log whole (the counts' columns once
    // left "dynam...", "aot_inf..."); its header's context menu brings the counts back, and
    // every name's tooltip says them.
    void sourceNamesWhole()
    {
        const auto log = fxltest::corpusPath("tlparse/cache_hit_miss.log");
        FXL_REQUIRE_CORPUS(log);
        Session s;
        setUp(s, QStringLiteral("nothing"));
        QVERIFY2(s.w.openPath(QString::fromStdString(log.string())).isEmpty(), qPrintable(s.w.lastError()));
        QVERIFY(s.w.waitIdle());
        QTreeView* tree = s.w.sourceView();
        QVERIFY(tree->isVisible());
        SourceTreeModel* m = s.w.sourceModel();
        int checked = 0;
        std::function<void(const QModelIndex&)> walk = [&](const QModelIndex& parent) {
            for (int r = 0; r < m->rowCount(parent); ++r) {
                const QModelIndex i = m->index(r, 0, parent);
                if (m->data(i, SourceTreeModel::KindRole).toString() == QLatin1String("other")) continue;
                tree->expand(i);
                const QString name = m->data(i).toString();
                const QRect cell = tree->visualRect(i);
                // the text and the delegate's margins on both sides
                const int needed = tree->fontMetrics().horizontalAdvance(name)
                    + 2 * (tree->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, tree) + 1);
                QVERIFY2(
                    cell.width() >= needed,
                    qPrintable(
                        QStringLiteral("'%1' has %2 px for %3 px of text").arg(name).arg(cell.width()).arg(needed)));
                QVERIFY(m->data(i, Qt::ToolTipRole).toString().contains(QRegularExpression("line \\d+|\\d+ graph")));
                ++checked;
                walk(i);
            }
        };
        walk({});
        QVERIFY2(checked >= 10, qPrintable(QString::number(checked)));  // the file, [0/0], [1/0], their graphs
        // the header's context menu: Graphs shown again, and remembered for the next window
        QHeaderView* header = tree->header();
        QVERIFY(header->isSectionHidden(SourceTreeModel::GraphsColumn));
        s.driver.pickMenuEntry(QStringLiteral("Graphs"));
        emit header->customContextMenuRequested(QPoint(10, 5));
        QVERIFY(!header->isSectionHidden(SourceTreeModel::GraphsColumn));
        QVERIFY(header->isSectionHidden(SourceTreeModel::ArtifactsColumn));
        MainWindow again;
        QVERIFY(!again.sourceView()->header()->isSectionHidden(SourceTreeModel::GraphsColumn));
    }

    // Run ignores nothing typed: a spec typed and not applied is checked as it is typed, and
    // Run (the button) runs it; a wrong one runs nothing and says why, at the column.
    void typedSpecRuns()
    {
        Session s;
        setUp(s, QStringLiteral("graph"));
        PipelineEditor* p = s.w.passes();
        QLineEdit* e = p->specEdit();
        e->setFocus();
        e->clear();
        QTest::keyClicks(e, QStringLiteral("dce,nosuchpass"));
        QVERIFY2(p->message().contains(QLatin1String("nosuchpass")), qPrintable(p->message()));
        QTest::mouseClick(p->runButton(), Qt::LeftButton);
        QVERIFY(s.w.waitIdle());
        QCOMPARE(int(s.w.runner()->steps().size()), 1);  // nothing ran
        e->setFocus();
        e->selectAll();
        QTest::keyClicks(e, QStringLiteral("remove_detach,dce"));
        QVERIFY2(p->message().contains(QLatin1String("not applied")), qPrintable(p->message()));
        QTest::mouseClick(p->runButton(), Qt::LeftButton);
        QVERIFY(s.w.waitIdle());
        QVERIFY2(p->pipeline()->spec() == QStringLiteral("remove_detach,dce"),
                 qPrintable(e->text() + QLatin1Char('|') + p->message()));
        QCOMPARE(int(s.w.runner()->steps().size()), 3);
        QVERIFY2(!p->message().contains(QLatin1String("nosuchpass")), qPrintable(p->message()));
    }

    // A check belongs to the pair of step snapshots it ran on: after the pipeline changes, the
    // panel says the old result is stale, and the report leaves it out; a step remade the same
    // keeps it current.
    void staleCheck()
    {
        Session s;
        setUp(s, QStringLiteral("graph"));
        QVERIFY(s.w.runPipeline(QStringLiteral("remove_detach,dce,cse")).isEmpty());
        QVERIFY(s.w.showStep(3));
        const auto o = s.w.runCheck(0);
        QVERIFY(o && o->ok && o->bitwise());
        QVERIFY(!s.w.runPanel()->stale());
        const QString first = s.next(".html");
        QVERIFY(s.w.exportReport(first).isEmpty());
        QVERIFY(QString::fromUtf8(fxltest::readFile(first)).contains(QLatin1String("bitwise equal")));
        // the same steps remade: still current
        QVERIFY(s.w.runPipeline(QStringLiteral("remove_detach,dce,cse,dce")).isEmpty());
        QVERIFY2(!s.w.runPanel()->stale(), qPrintable(s.w.runPanel()->staleText()));
        // step 3 made by another pass: the result is stale in the panel and left out of the report
        QVERIFY(s.w.runPipeline(QStringLiteral("remove_detach,dce,sac(policy=alternate_mm)")).isEmpty());
        QVERIFY(s.w.runPanel()->stale());
        QVERIFY2(s.w.runPanel()->staleText().contains(QLatin1String("earlier version of step 3")),
                 qPrintable(s.w.runPanel()->staleText()));
        const QString second = s.next(".html");
        QVERIFY(s.w.exportReport(second).isEmpty());
        const QString html = QString::fromUtf8(fxltest::readFile(second));
        QVERIFY2(html.contains(QLatin1String("stale")), qPrintable(html.left(2000)));
        QVERIFY(!html.contains(QLatin1String(">bitwise equal")));
    }

    void randomWalk_data()
    {
        QTest::addColumn<int>("seed");
        QTest::addColumn<int>("events");
        const int events = qEnvironmentVariableIntValue("FXLENS_WALK_EVENTS");
        if (qEnvironmentVariableIsSet("FXLENS_WALK_SEED")) {
            QTest::newRow("replay") << qEnvironmentVariableIntValue("FXLENS_WALK_SEED") << (events ? events : 2000);
            return;
        }
        // the release stage walks seeds 1 and 2, the sanitizer stage (-O0, ASan) a shorter third
        const int n = events ? events : (fxltest::kSanitizedBuild ? 800 : 2000);
        for (int seed : fxltest::kSanitizedBuild ? std::vector<int>{3} : std::vector<int>{1, 2})
            QTest::newRow(qPrintable(QStringLiteral("seed %1").arg(seed))) << seed << n;
    }

    // Random actions, keys, clicks, double clicks, drags, wheels, tab switches and window sizes
    // on a graph with a pipeline: the window stays up and consistent after every batch.
    void randomWalk()
    {
        QFETCH(int, seed);
        QFETCH(int, events);
        Session s;
        setUp(s, QStringLiteral("graph"));
        s.w.passes()->specEdit()->setText(kSpec);
        std::mt19937 rng(static_cast<uint32_t>(seed));
        auto pick = [&rng](size_t n) { return static_cast<size_t>(rng() % n); };
        QStringList log;
        auto fail = [&](const QString& why) {
            const QString file = QString::fromStdString((fxltest::buildDir() / "tests").string())
                + QStringLiteral("/random_walk_%1.txt").arg(seed);
            QFile f(file);
            if (f.open(QIODevice::WriteOnly)) f.write(log.join('\n').toUtf8());
            QFAIL(
                qPrintable(QStringLiteral("seed %1 after %2 events: %3 (events in %4; replay with FXLENS_WALK_SEED=%1 "
                                          "FXLENS_WALK_EVENTS=%2; last: %5)")
                               .arg(seed)
                               .arg(log.size())
                               .arg(why, file, log.mid(std::max<qsizetype>(0, log.size() - 8)).join(" / "))));
        };
        const QStringList graphs = {data("pytorch/mlp_gelu.fw.default.code.py"),
                                    data("pytorch/linear_ce.joint.code.py"), data("pytorch/mlp_gelu.joint.code.py")};
        const QSize sizes[] = {{1366, 768}, {1600, 1000}, {900, 600}, {1920, 1080}};
        for (int e = 0; e < events; ++e) {
            const auto actions = actionsToRun(s.w);
            const size_t kind = pick(100);
            GraphView* view = s.w.centralTabs()->currentIndex() == 1 ? s.w.diffView()->viewB() : s.w.graphView();
            QWidget* vp = view->viewport();
            const QPoint at(static_cast<int>(pick(std::max(1, vp->width()))),
                            static_cast<int>(pick(std::max(1, vp->height()))));
            s.driver.clearAnswers();
            if (kind < 30) {
                const MenuAction& m = actions[pick(actions.size())];
                // Quit ends the walk; restoring the example runs its pipeline and check (every
                // state tests it)
                if (m.path == QLatin1String("File > Quit") || m.path.startsWith(QLatin1String("Help > Restore")))
                    continue;
                if (m.path == QLatin1String("File > Open")) s.driver.answerFile(graphs[pick(graphs.size())]);
                if (m.path.startsWith(QLatin1String("File > Save"))
                    || m.path.startsWith(QLatin1String("File > Export")))
                    s.driver.answerFile(s.next(m.path.contains(QLatin1String("workspace")) ? ".fxlens" : ".png"));
                if (m.path.contains(QLatin1String("Note"))) s.driver.answerText(QStringLiteral("note %1").arg(e));
                log << QStringLiteral("action %1").arg(m.path);
                m.action->trigger();
            } else if (kind < 50) {
                std::vector<QKeySequence> keys;
                for (const MenuAction& m : actions)
                    if (!m.action->shortcut().isEmpty() && m.path != QLatin1String("File > Quit")
                        && !m.path.startsWith(QLatin1String("File > Open"))
                        && !m.path.startsWith(QLatin1String("File > Save"))
                        && !m.path.startsWith(QLatin1String("File > Export")))
                        keys.push_back(m.action->shortcut());
                for (int k :
                     {int(Qt::Key_Plus), int(Qt::Key_Minus), int(Qt::Key_Left), int(Qt::Key_Right), int(Qt::Key_Up),
                      int(Qt::Key_Down), int(Qt::Key_Return), int(Qt::Key_Space), int(Qt::Key_Tab)})
                    keys.push_back(QKeySequence(k));
                const QKeySequence k = keys[pick(keys.size())];
                log << QStringLiteral("key %1").arg(k.toString());
                if (QWidget* f = QApplication::focusWidget(); f && s.w.isAncestorOf(f))
                    QTest::keySequence(f, k);
                else
                    QTest::keySequence(view, k);
            } else if (kind < 70) {
                const bool twice = pick(4) == 0;
                log << QStringLiteral("%1 %2,%3").arg(twice ? "double click" : "click").arg(at.x()).arg(at.y());
                if (twice)
                    guitest::userDoubleClick(vp, at);
                else
                    QTest::mouseClick(vp, Qt::LeftButton, Qt::NoModifier, at);
            } else if (kind < 78) {
                const QPoint to = at + QPoint(static_cast<int>(pick(200)) - 100, static_cast<int>(pick(200)) - 100);
                log << QStringLiteral("drag %1,%2 to %3,%4").arg(at.x()).arg(at.y()).arg(to.x()).arg(to.y());
                QTest::mousePress(vp, Qt::LeftButton, Qt::NoModifier, at);
                QTest::mouseMove(vp, (at + to) / 2);
                QTest::mouseMove(vp, to);
                QTest::mouseRelease(vp, Qt::LeftButton, Qt::NoModifier, to);
            } else if (kind < 86) {
                const int delta = pick(2) ? 120 : -120;
                log << QStringLiteral("wheel %1 at %2,%3").arg(delta).arg(at.x()).arg(at.y());
                QWheelEvent wheel(at, vp->mapToGlobal(at), QPoint(), QPoint(0, delta), Qt::NoButton, Qt::NoModifier,
                                  Qt::NoScrollPhase, false);
                QApplication::sendEvent(vp, &wheel);
            } else if (kind < 94) {
                // a row of one of the lists: sources, steps, find results
                QAbstractItemView* lists[] = {s.w.sourceView(), s.w.passes()->stepView()};
                QAbstractItemView* list = lists[pick(2)];
                const int rows = list->model()->rowCount();
                if (rows == 0) continue;
                QModelIndex i = list->model()->index(static_cast<int>(pick(static_cast<size_t>(rows))), 0);
                if (list == s.w.sourceView() && list->model()->rowCount(i) > 0 && pick(2))
                    i = list->model()->index(static_cast<int>(pick(static_cast<size_t>(list->model()->rowCount(i)))), 0,
                                             i);
                list->scrollTo(i);
                const QPoint c = list->visualRect(i).center();
                const bool twice = pick(2) == 0;
                log << QStringLiteral("%1 row %2 of %3")
                           .arg(twice ? "double click" : "click")
                           .arg(i.row())
                           .arg(list == s.w.sourceView() ? "sources" : "steps");
                if (twice)
                    guitest::userDoubleClick(list->viewport(), c);
                else
                    QTest::mouseClick(list->viewport(), Qt::LeftButton, Qt::NoModifier, c);
            } else if (kind < 97) {
                const int tab = static_cast<int>(pick(2));
                log << QStringLiteral("tab %1").arg(tab);
                s.w.centralTabs()->setCurrentIndex(tab);
            } else {
                const QSize z = sizes[pick(4)];
                log << QStringLiteral("resize %1x%2").arg(z.width()).arg(z.height());
                s.w.resize(z);
            }
            QCoreApplication::processEvents();
            if (!s.w.isVisible()) fail(QStringLiteral("the window closed"));
            if (e % 25 == 24 || e + 1 == events) {
                if (!s.w.waitIdle(120000)) fail(QStringLiteral("the window stayed busy for 2 minutes"));
                checkConsistent(s.w);
                if (QTest::currentTestFailed()) fail(QStringLiteral("inconsistent"));
            }
        }
    }
};

FXL_TEST_MAIN(TestWindowActions)
}  // namespace test_window_actions
#include "test_window_actions.moc"
