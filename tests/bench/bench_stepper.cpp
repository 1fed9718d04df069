// The pass stepper at scale, offscreen (QT_QPA_PLATFORM=offscreen when no platform is given):
// on a graph (default: the 100k-node corpus graph), the window runs a pipeline (default
// "dce,cse") and follows it; for each step, the time from Run to the step shown with its
// timeline (the graph view laid out and painted, the timeline model holding that step), then
// stepping back and forward (Ctrl+Left / Ctrl+Right) and showing the Diff tab, each timed to the
// painted view. All along, a watchdog: a 10 ms timer on the UI thread whose largest gap between
// two ticks (minus the 10 ms) is the longest time the UI thread was blocked.
// Usage: bench_stepper [GRAPH_FILE] [SPEC]
#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>

#include "bench_util.hpp"
#include "test_util.hpp"
#include "viewer/jobs/step_jobs.hpp"
#include "viewer/model/timeline_model.hpp"
#include "viewer/widgets/diff_view.hpp"
#include "viewer/widgets/graph_view.hpp"
#include "viewer/widgets/main_window.hpp"
#include "viewer/widgets/timeline_view.hpp"

using namespace fxl;
using namespace fxl::viewer;
using benchutil::rssMb;
using benchutil::waitFor;
using benchutil::Watchdog;

namespace {

// Times every event the UI thread delivers: the longest one names the receiver and the event
// type, which says what blocked the UI thread (the watchdog says only for how long).
class TimedApplication : public QApplication
{
public:
    using QApplication::QApplication;
    bool notify(QObject* receiver, QEvent* e) override
    {
        if (depth_++ > 0) {  // nested: the outer event's time includes it
            const bool r = QApplication::notify(receiver, e);
            --depth_;
            return r;
        }
        QElapsedTimer t;
        t.start();
        const int type = e->type();
        const char* cls = receiver->metaObject()->className();
        const bool r = QApplication::notify(receiver, e);
        const double ms = t.nsecsElapsed() / 1e6;
        if (ms > worstMs) {
            worstMs = ms;
            worst = std::string(cls) + ", event type " + std::to_string(type);
        }
        --depth_;
        return r;
    }
    void reset()
    {
        worstMs = 0;
        worst.clear();
    }
    double worstMs = 0;
    std::string worst;

private:
    int depth_ = 0;
};

}  // namespace

int main(int argc, char** argv)
{
    std::setvbuf(stdout, nullptr, _IOLBF, 0);  // line by line, also into a pipe
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    TimedApplication app(argc, argv);
    QStandardPaths::setTestModeEnabled(true);
    const std::string graphPath =
        argc > 1 && argv[1][0] ? argv[1] : fxltest::corpusPath("pytorch/large/gpt2_deep640.joint.code.py").string();
    const QString spec = argc > 2 ? QString::fromUtf8(argv[2]) : QStringLiteral("dce,cse");

    MainWindow w;
    w.setQuietErrors(true);
    w.resize(1500, 900);
    w.show();
    GraphView* v = w.graphView();
    int painted = 0;
    QObject::connect(v, &GraphView::framePainted, [&] { ++painted; });
    Watchdog dog;

    // the graph and its input step (timeline) first
    QElapsedTimer clock;
    clock.start();
    w.open(QString::fromStdString(graphPath));
    waitFor([&] { return w.currentStep() == 0 && !v->layoutPending() && painted > 0; });
    if (!v->graph()) {
        std::printf("could not open %s: %s\n", graphPath.c_str(), qPrintable(w.lastError()));
        return 1;
    }
    std::printf("graph: %s (%zu nodes); open -> input step shown with its timeline: %.2f s; UI thread blocked at most "
                "%.0f ms\n",
                graphPath.c_str(), v->graph()->size(), clock.nsecsElapsed() / 1e9, dog.worstMs());

    // run: each step shown as it arrives
    const int stages = static_cast<int>(spec.count(QLatin1Char(',')) + 1);
    dog.reset();
    app.reset();
    clock.restart();
    // a step is shown when the window has put it on screen (synchronously, with its timeline)
    // and its graph's layout has arrived (a step that left the graph as it was needs none)
    std::vector<double> arrived(static_cast<size_t>(stages) + 1, -1), laidOut(arrived);
    QObject::connect(w.runner(), &StepRunner::stepAvailable, [&](quint64, int index) {
        if (index < static_cast<int>(arrived.size())) arrived[static_cast<size_t>(index)] = clock.nsecsElapsed() / 1e9;
        if (!v->layoutPending() && index < static_cast<int>(laidOut.size()))
            laidOut[static_cast<size_t>(index)] = arrived[static_cast<size_t>(index)];
    });
    QObject::connect(v, &GraphView::viewChanged, [&] {
        const int k = w.currentStep();
        if (k >= 0 && k < static_cast<int>(laidOut.size()) && laidOut[static_cast<size_t>(k)] < 0)
            laidOut[static_cast<size_t>(k)] = clock.nsecsElapsed() / 1e9;
    });
    const QString failed = w.runPipeline(spec, 600000);
    waitFor([&] { return !v->layoutPending(); });
    const double total = clock.nsecsElapsed() / 1e9;
    std::vector<double> shown(arrived.size());
    for (size_t k = 0; k < shown.size(); ++k) shown[k] = std::max(arrived[k], laidOut[k]);
    if (!failed.isEmpty()) {
        std::printf("the pipeline failed: %s\n", qPrintable(failed));
        return 1;
    }
    const auto& steps = w.runner()->steps();
    double previous = 0;
    for (size_t k = 1; k < steps.size(); ++k) {
        const auto& s = *steps[k];
        const DiffCounts c = s.diffCounts();
        std::printf("step %zu %-10s shown with its timeline at %.2f s (%.2f s after the step before): pass %.3f s, "
                    "diff+timeline+grouping %.3f s on the worker; +%zu -%zu ~%zu\n",
                    k, s.spec.c_str(), shown[k], shown[k] - previous, s.passSeconds, s.prepareSeconds, c.added,
                    c.removed, c.changed);
        previous = shown[k];
    }
    std::printf("run %s: %.2f s in all; the UI thread blocked at most %.0f ms (the longest event: %.0f ms, %s)\n",
                qPrintable(spec), total, dog.worstMs(), app.worstMs, app.worst.c_str());
    std::printf("timeline of the last step: %d points, %s\n", w.timelineModel()->rowCount(),
                qPrintable(w.timelineModel()->peakChangeLabel()));

    auto timed = [&](const char* what, const std::function<void()>& act, GraphView* view) {
        waitFor([&] { return !view->layoutPending(); });
        dog.reset();
        QElapsedTimer t;
        t.start();
        act();
        QCoreApplication::processEvents();
        waitFor([&] { return !view->layoutPending(); });
        view->viewport()->repaint();
        w.timelineView()->repaint();
        std::printf("%-36s %.3f s; UI thread blocked at most %.0f ms\n", what, t.nsecsElapsed() / 1e9, dog.worstMs());
    };
    timed(
        "step back (Ctrl+Left):", [&] { w.stepBack(); }, v);
    timed(
        "step forward (Ctrl+Right):", [&] { w.stepForward(); }, v);
    timed(
        "show the Diff tab:", [&] { w.centralTabs()->setCurrentWidget(w.diffView()); }, w.diffView()->viewB());
    timed(
        "step back in the Diff tab:", [&] { w.stepBack(); }, w.diffView()->viewB());
    std::printf("rss %.0f MB (peak %.0f MB)\n", rssMb("VmRSS:"), rssMb("VmHWM:"));
    return 0;
}
