// The window at scale, offscreen (QT_QPA_PLATFORM=offscreen is set when no platform is given):
//  1. a graph (default: the 100k-node corpus graph) from File > Open to the first drawn view,
//     with the time of each stage (indexed, graph read and grouped, laid out, painted);
//  2. expanding groups down to one block (forward, its first range, the first block), each
//     from the double-click to the painted view, and collapsing back to the top (cached);
//  3. a ~150 MB TORCH_TRACE log (the corpus logs concatenated, as bench_trace_index does) from
//     Open to its source tree on screen;
//  4. a CUDA memory snapshot (SNAPSHOT, e.g. the 1 GB one bench_snapshot generates) from Open to
//     its timeline drawn and its band table sorted;
//  and all along a watchdog: a 10 ms timer on the UI thread whose largest gap between two ticks
//  is the longest time the UI thread was blocked. Resident memory after each part.
// Usage: bench_viewer [GRAPH_FILE] [LOG_MB=150] [SNAPSHOT]
#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QStandardPaths>
#include <QTimer>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "bench_util.hpp"
#include "test_util.hpp"
#include "viewer/model/snapshot_timeline_model.hpp"
#include "viewer/model/source_tree_model.hpp"
#include "viewer/widgets/graph_view.hpp"
#include "viewer/widgets/main_window.hpp"
#include "viewer/widgets/snapshot_panel.hpp"
#include "viewer/widgets/snapshot_view.hpp"

namespace fs = std::filesystem;
using namespace fxl::viewer;
using benchutil::rssMb;
using benchutil::waitFor;
using benchutil::Watchdog;

namespace {

std::string buildLog(double sizeMb)
{
    const fs::path out = fs::temp_directory_path() / "fxlens_bench_viewer.log";
    if (!fxltest::writeConcatenatedCorpusLogs(out, sizeMb)) std::exit(2);
    return out.string();
}

}  // namespace

int main(int argc, char** argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QStandardPaths::setTestModeEnabled(true);  // the window's settings apart from the user's
    const std::string graphPath =
        argc > 1 && argv[1][0] ? argv[1] : fxltest::corpusPath("pytorch/large/gpt2_deep640.joint.code.py").string();
    const double logMb = argc > 2 ? std::atof(argv[2]) : 150.0;
    std::printf("rss at start: %.0f MB\n", rssMb("VmRSS:"));

    MainWindow w;
    w.setQuietErrors(true);
    w.resize(1500, 900);
    w.show();
    GraphView* v = w.graphView();
    int painted = 0;
    QObject::connect(v, &GraphView::framePainted, [&] { ++painted; });
    Watchdog dog;
    QCoreApplication::processEvents();

    // 1. open -> first drawn view
    dog.reset();
    QElapsedTimer clock;
    clock.start();
    double tSource = -1, tGraph = -1, tLayout = -1;
    QObject::connect(w.jobs(), &ViewJobs::sourceAvailable, [&] {
        if (tSource < 0) tSource = clock.nsecsElapsed() / 1e9;
    });
    QObject::connect(w.jobs(), &ViewJobs::graphAvailable, [&] {
        if (tGraph < 0) tGraph = clock.nsecsElapsed() / 1e9;
    });
    QObject::connect(w.jobs(), &ViewJobs::viewAvailable, [&] {
        if (tLayout < 0) tLayout = clock.nsecsElapsed() / 1e9;
    });
    w.open(QString::fromStdString(graphPath));
    waitFor([&] { return painted > 0 && !v->layout().items.empty(); });
    const double tFirst = clock.nsecsElapsed() / 1e9;
    if (!v->graph()) {
        std::printf("could not open %s: %s\n", graphPath.c_str(), qPrintable(w.lastError()));
        return 1;
    }
    std::printf("graph: %s (%zu nodes, %zu groups)\n", graphPath.c_str(), v->graph()->size(),
                v->tree()->groups().size() - 1);
    std::printf("open -> first drawn view: %.2f s (indexed %.2f s, read+grouped %.2f s, laid out %.2f s, painted "
                "%.2f s); %zu items\n",
                tFirst, tSource, tGraph, tLayout, tFirst, v->view().items.size());
    std::printf("  UI thread blocked at most %.0f ms\n", dog.worstMs());
    std::printf("  rss %.0f MB (peak %.0f MB)\n", rssMb("VmRSS:"), rssMb("VmHWM:"));

    // 2. expand forward -> first range -> first block, then collapse all
    auto step = [&](const char* what, const std::function<void()>& act) {
        waitFor([&] { return !v->layoutPending(); });
        dog.reset();
        const int before = painted;
        QElapsedTimer t;
        t.start();
        act();
        waitFor([&] { return !v->layoutPending() && painted > before; });
        std::printf("%-34s %.3f s, %zu items on screen, UI thread blocked at most %.0f ms\n", what,
                    t.nsecsElapsed() / 1e9, v->view().items.size(), dog.worstMs());
    };
    const GroupTree* tree = v->tree();
    const int forward = tree->find("forward");
    step("expand forward:", [&] { v->toggleGroup(forward); });
    int inner = forward;
    std::string label = "forward";
    for (int depth = 0; depth < 2 && !tree->group(inner).childGroups.empty(); ++depth) {
        // the first child that is a member of a family of siblings (blocks.0 rather than wte)
        const std::vector<int>& kids = tree->group(inner).childGroups;
        inner = kids.front();
        for (int k : kids)
            if (tree->group(k).familySize > 1 || tree->group(k).range) {
                inner = k;
                break;
            }
        label = tree->group(inner).label;
        const std::string what = "expand " + label + ":";
        step(what.c_str(), [&] { v->toggleGroup(inner); });
    }
    step("collapse all (cached layout):", [&] { v->collapseAll(); });
    step("expand the same again (cached):", [&] {
        std::set<int> again;
        for (int k : tree->chain(inner)) again.insert(k);
        v->setExpanded(again);
    });
    step("fold off (every block a box):", [&] { v->setFoldIdentical(false); });
    step("fold on again (cached):", [&] { v->setFoldIdentical(true); });
    std::printf("layout cache: %zu entries, %zu hits, %zu misses\n", v->prepared()->cache->size(),
                v->prepared()->cache->hits(), v->prepared()->cache->misses());
    std::printf("rss after expanding: %.0f MB (peak %.0f MB)\n", rssMb("VmRSS:"), rssMb("VmHWM:"));

    // 3. a large TORCH_TRACE log: open -> its tree on screen
    if (logMb > 0) {
        const std::string log = buildLog(logMb);
        const double mb = static_cast<double>(fs::file_size(log)) / 1e6;
        const int rowsBefore = w.sourceModel()->rowCount();
        dog.reset();
        clock.restart();
        w.open(QString::fromStdString(log));
        waitFor([&] { return w.sourceModel()->rowCount() > rowsBefore; });
        QCoreApplication::processEvents();
        const double tTree = clock.nsecsElapsed() / 1e9;
        const QModelIndex top = w.sourceModel()->index(rowsBefore, 0);
        std::printf("log %.1f MB: open -> tree on screen %.2f s (%d top rows under it, %s graphs, %s artifacts); UI "
                    "thread blocked at most %.0f ms\n",
                    mb, tTree, w.sourceModel()->rowCount(top),
                    qPrintable(w.sourceModel()->data(top.siblingAtColumn(SourceTreeModel::GraphsColumn)).toString()),
                    qPrintable(w.sourceModel()->data(top.siblingAtColumn(SourceTreeModel::ArtifactsColumn)).toString()),
                    dog.worstMs());
        std::printf("rss with the log open: %.0f MB (peak %.0f MB)\n", rssMb("VmRSS:"), rssMb("VmHWM:"));
        fs::remove(log);
    }

    // 4. a CUDA memory snapshot: open -> its timeline drawn, its bands listed and sorted
    if (argc > 3) {
        const QString snap = QString::fromLocal8Bit(argv[3]);
        const double mb = static_cast<double>(fs::file_size(argv[3])) / 1e6;
        dog.reset();
        clock.restart();
        w.open(snap);
        waitFor([&] { return w.snapshotPanel()->model()->snapshot() != nullptr || !w.lastError().isEmpty(); });
        const double tRead = clock.nsecsElapsed() / 1e9;
        QCoreApplication::processEvents();
        const QImage drawn = w.snapshotPanel()->view()->grab().toImage();  // the timeline painted
        const double tDrawn = clock.nsecsElapsed() / 1e9;
        const fxl::SnapshotTimeline* t = w.snapshotPanel()->model()->timeline();
        std::printf("snapshot %.1f MB: open -> read, timelines and table %.2f s, painted %.2f s (%zu allocations, %d "
                    "bands, %zu steps); UI thread blocked at most %.0f ms%s\n",
                    mb, tRead, tDrawn, t ? t->elements.size() : 0, w.snapshotPanel()->model()->rowCount(),
                    t ? t->maxAtTime.size() : 0, dog.worstMs(), drawn.isNull() ? " (not painted)" : "");
        std::printf("rss with the snapshot open: %.0f MB (peak %.0f MB)\n", rssMb("VmRSS:"), rssMb("VmHWM:"));
    }
    return 0;
}
