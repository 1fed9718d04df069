// The viewer's background jobs and layout cache (viewer/jobs, viewer/layout), without widgets:
// a job reports progress and delivers its result on the UI thread; starting a newer job of the
// same kind drops the older one's result (a stale layout never replaces a newer one); a
// cancelled open delivers nothing and says it was cancelled; a bad file fails with a message
// naming the file; the layout cache gives back the same layout, lays out again only what
// changed when a group opens, and costs no engine call when a layout is asked for again.
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

#include "test_registry.hpp"
#include "test_util.hpp"
#include "viewer/jobs/run_jobs.hpp"
#include "viewer/jobs/view_jobs.hpp"

namespace test_view_jobs {

using namespace fxl;
using namespace fxl::viewer;

}  // namespace test_view_jobs
Q_DECLARE_METATYPE(std::shared_ptr<const fxl::viewer::PreparedView>)
namespace test_view_jobs {

namespace {

std::shared_ptr<const PreparedGraph> prepared(const std::string& path)
{
    std::shared_ptr<Source> src = openSource(path);
    return ViewJobs::prepareNow(src, src->graphs().front()->id);
}

bool sameLayout(const Layout& a, const Layout& b)
{
    if (a.items.size() != b.items.size() || a.edges.size() != b.edges.size() || a.width != b.width
        || a.height != b.height)
        return false;
    for (size_t k = 0; k < a.items.size(); ++k)
        if (a.items[k].x != b.items[k].x || a.items[k].y != b.items[k].y || a.items[k].w != b.items[k].w) return false;
    for (size_t k = 0; k < a.edges.size(); ++k)
        if (a.edges[k].points.size() != b.edges[k].points.size()) return false;
    return true;
}

}  // namespace

class TestViewJobs : public QObject
{
    Q_OBJECT

private slots:
    // The layout cache as bytes (what a workspace keeps): entries come back equal, a graph laid
    // out from them needs no engine and gives the same layout, damaged bytes give no entry.
    void layoutCacheBytes()
    {
        const auto g = prepared(fxltest::testDataPath("pytorch/mlp_gelu.joint.code.py").string());
        std::set<int> all;
        for (size_t k = 1; k < g->tree->groups().size(); ++k) all.insert(static_cast<int>(k));
        const auto first = ViewJobs::layoutNow(g, all);
        const auto entries = g->cache->entries();
        QVERIFY(!entries.empty());
        auto fresh = std::make_shared<PreparedGraph>();
        fresh->source = g->source;
        fresh->artifactId = g->artifactId;
        fresh->graph = g->graph;
        fresh->tree = std::make_unique<GroupTree>(*g->graph);
        for (const auto& [key, e] : entries) {
            const std::string bytes = LayoutCache::encode(*e);
            const auto back = LayoutCache::decode(bytes);
            QVERIFY(back);
            QCOMPARE(back->positions.size(), e->positions.size());
            QCOMPARE(back->edges.size(), e->edges.size());
            QCOMPARE(back->w, e->w);
            QCOMPARE(back->dot, e->dot);
            for (size_t i = 0; i < e->positions.size(); ++i) {
                QCOMPARE(back->positions[i].x, e->positions[i].x);
                QCOMPARE(back->positions[i].y, e->positions[i].y);
            }
            fresh->cache->insert(key, back);
            // damaged: cut, one byte more, another magic
            QVERIFY(!LayoutCache::decode(bytes.substr(0, bytes.size() - 1)));
            QVERIFY(!LayoutCache::decode(bytes + "x"));
            std::string other = bytes;
            other[0] ^= 1;
            QVERIFY(!LayoutCache::decode(other));
        }
        QVERIFY(!LayoutCache::decode(std::string()));
        QVERIFY(!LayoutCache::decode(std::string(64, '\xff')));
        const auto again = ViewJobs::layoutNow(fresh, all);
        QCOMPARE(again->layout.cachedContainers, again->layout.containers.size());
        QCOMPARE(again->layout.dotContainers, size_t(0));
        QVERIFY(sameLayout(first->layout, again->layout));
    }

    void openReportsAndDelivers()
    {
        const auto path = fxltest::corpusPath("tlparse/simple.log");
        FXL_REQUIRE_CORPUS(path);
        ViewJobs jobs;
        QSignalSpy available(&jobs, &ViewJobs::sourceAvailable);
        QSignalSpy progress(&jobs, &ViewJobs::progress);
        QSignalSpy finished(&jobs, &ViewJobs::finished);
        const quint64 id = jobs.open(QString::fromStdString(path.string()));
        QVERIFY(id != 0);
        QVERIFY(jobs.busy(ViewJobs::Open));
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 30000);
        QCOMPARE(available.count(), 1);
        QCOMPARE(available.at(0).at(0).toULongLong(), id);
        QVERIFY(!jobs.busy());
        // progress: in bytes, never decreasing, the last one complete
        QVERIFY(progress.count() >= 1);
        qint64 last = -1;
        for (const auto& p : progress) {
            QVERIFY(p.at(2).toLongLong() >= last);
            last = p.at(2).toLongLong();
        }
        QCOMPARE(last, progress.last().at(3).toLongLong());
    }

    void badFileFails()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("broken.code.py"));
        std::ofstream(path.toStdString()) << "def forward(self, x):\n    y = torch.ops.aten.mm.default(x, \n";
        ViewJobs jobs;
        QSignalSpy failed(&jobs, &ViewJobs::failed);
        QSignalSpy finished(&jobs, &ViewJobs::finished);
        std::shared_ptr<Source> src = openSource(path.toStdString());
        jobs.prepare(src, QString::fromStdString(src->graphs().front()->id));
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 30000);
        QCOMPARE(failed.count(), 1);
        const QString message = failed.at(0).at(2).toString();
        QVERIFY2(message.contains(QStringLiteral("broken.code.py:")), qPrintable(message));
    }

    // A cancelled open of a large log: no source, "cancelled", and the jobs object is free.
    void cancelOpen()
    {
        const auto path = fxltest::corpusPath("tlparse/simple.log");
        FXL_REQUIRE_CORPUS(path);
        QTemporaryDir dir;
        const QString big = dir.filePath(QStringLiteral("big.log"));
        {
            std::ifstream in(path);
            const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
            std::ofstream out(big.toStdString());
            for (int k = 0; k < 200; ++k) out << text;
        }
        ViewJobs jobs;
        QSignalSpy available(&jobs, &ViewJobs::sourceAvailable);
        QSignalSpy cancelled(&jobs, &ViewJobs::cancelled);
        const quint64 id = jobs.open(big);
        jobs.cancel(ViewJobs::Open);
        QCOMPARE(cancelled.count(), 1);
        QCOMPARE(cancelled.at(0).at(0).toULongLong(), id);
        QVERIFY(!jobs.busy());
        QTest::qWait(300);
        QCOMPARE(available.count(), 0);
    }

    // Two layouts asked in a row: only the second one arrives.
    void staleLayoutDropped()
    {
        const auto path = fxltest::corpusPath("pytorch/gpt2_tiny.joint.code.py");
        FXL_REQUIRE_CORPUS(path);
        auto g = prepared(path.string());
        ViewJobs jobs;
        QSignalSpy views(&jobs, &ViewJobs::viewAvailable);
        QSignalSpy finished(&jobs, &ViewJobs::finished);
        std::set<int> all;
        for (size_t k = 1; k < g->tree->groups().size(); ++k) all.insert(static_cast<int>(k));
        const quint64 first = jobs.layout(g, all);
        const quint64 second = jobs.layout(g, {g->tree->find("forward")});
        QVERIFY(second > first);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 30000);
        QTest::qWait(200);  // the first job's result, if it came, would be here by now
        QCOMPARE(views.count(), 1);
        QCOMPARE(views.at(0).at(0).toULongLong(), second);
        const auto view = views.at(0).at(1).value<std::shared_ptr<const PreparedView>>();
        QCOMPARE(view->expanded, std::set<int>{g->tree->find("forward")});
    }

    void layoutCache_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("group");
        QTest::newRow("gpt2_tiny forward") << "pytorch/gpt2_tiny.joint.code.py"
                                           << "forward";
        QTest::newRow("llama_tiny backward") << "pytorch/llama_tiny.joint.code.py"
                                             << "backward";
        if (!fxltest::kSanitizedBuild)
            QTest::newRow("gpt2_deep640 forward") << "pytorch/large/gpt2_deep640.joint.code.py"
                                                  << "forward";
    }

    void layoutCache()
    {
        QFETCH(QString, file);
        QFETCH(QString, group);
        const auto path = fxltest::corpusPath(file.toStdString());
        FXL_REQUIRE_CORPUS(path);
        auto g = prepared(path.string());
        const int k = g->tree->find(group.toStdString());
        QVERIFY(k > 0);
        // top level, then the group open: only the containers whose input changed are laid out
        auto top = ViewJobs::layoutNow(g, {});
        QCOMPARE(top->layout.cachedContainers, size_t(0));
        auto open = ViewJobs::layoutNow(g, {k});
        QCOMPARE(open->view.containers.size(), size_t(2));
        QCOMPARE(open->layout.cachedContainers + open->layout.dotContainers + open->layout.layeredContainers,
                 size_t(2));
        // asked again: every container from the cache, and the same layout as without a cache
        const size_t misses = g->cache->misses();
        auto again = ViewJobs::layoutNow(g, {k});
        QCOMPARE(again->layout.cachedContainers, size_t(2));
        QCOMPARE(g->cache->misses(), misses);
        QVERIFY(sameLayout(again->layout, open->layout));
        const Layout fresh = layoutView(open->view, *g->tree);
        QVERIFY(sameLayout(fresh, open->layout));
        // collapsing back is free too
        auto back = ViewJobs::layoutNow(g, {});
        QCOMPARE(back->layout.cachedContainers, size_t(1));
        QVERIFY(sameLayout(back->layout, top->layout));
        // a child of the group opened: the group's own children that did not change stay cached
        const GroupInfo& info = g->tree->group(k);
        if (!info.childGroups.empty()) {
            auto deeper = ViewJobs::layoutNow(g, {k, info.childGroups.front()});
            QCOMPARE(deeper->view.containers.size(), size_t(3));
            QVERIFY(deeper->layout.cachedContainers <= 1);
        }
    }

    // A layout reports progress per container and stops when cancelled.
    void layoutProgressAndCancel()
    {
        const auto path = fxltest::corpusPath("pytorch/gpt2_tiny.joint.code.py");
        FXL_REQUIRE_CORPUS(path);
        auto g = prepared(path.string());
        std::set<int> all;
        for (size_t k = 1; k < g->tree->groups().size(); ++k) all.insert(static_cast<int>(k));
        std::vector<int64_t> reports;
        Progress p;
        p.report = [&](int64_t done, int64_t total, std::string_view) {
            reports.push_back(done);
            QVERIFY(done <= total);
        };
        auto v = ViewJobs::layoutNow(g, all, p);
        QCOMPARE(reports.size(), v->view.containers.size());
        QCOMPARE(reports.back(), static_cast<int64_t>(v->view.containers.size()));
        std::atomic<bool> stop{false};
        Progress c;
        c.cancel = &stop;
        int calls = 0;
        c.report = [&](int64_t, int64_t, std::string_view) {
            if (++calls == 2) stop = true;
        };
        QVERIFY_THROWS_EXCEPTION(CancelledError, ViewJobs::layoutNow(prepared(path.string()), all, c));
        QCOMPARE(calls, 2);
    }
    // Which check of a step the window asks for (stepRunRequest) and when its result no longer
    // belongs to the steps (checkStaleness): by the content hashes of the graphs it ran on. A
    // partition step pairs its forward and backward against the joint before it.
    void checkRequestsAndStaleness()
    {
        auto graph = std::make_shared<Graph>();
        auto prepared = [&](uint64_t) {
            auto p = std::make_shared<PreparedGraph>();
            p->graph = graph;
            return std::shared_ptr<const PreparedGraph>(p);
        };
        auto step = [&](int index, std::vector<std::pair<std::string, uint64_t>> graphs, const char* spec) {
            auto s = std::make_shared<StepState>();
            s->index = index;
            s->spec = spec;
            s->pass = spec;
            for (const auto& [role, hash] : graphs) {
                StepGraph g;
                g.role = role;
                g.prepared = prepared(hash);
                g.contentHash = hash;
                s->graphs.push_back(std::move(g));
            }
            return s;
        };
        std::vector<std::shared_ptr<const StepState>> steps = {
            step(0, {{"", 11}}, ""), step(1, {{"", 22}}, "remat"),
            step(2, {{"forward", 33}, {"backward", 44}}, "partition")};
        std::string why;
        // the input has nothing before it
        QVERIFY(!stepRunRequest(steps, 0, "", "previous", &why));
        QCOMPARE(why, std::string("the input graph has no step before it: run it alone, or show a later step"));
        // step 1 against the step before, and against the input
        auto r = stepRunRequest(steps, 1, "", "previous", &why);
        QVERIFY(r);
        QCOMPARE(r->subjectHash, uint64_t(22));
        QCOMPARE(r->referenceHash, uint64_t(11));
        QCOMPARE(r->subjectLabel, std::string("step 1 (remat)"));
        QCOMPARE(checkStaleness(*r, steps), std::string());
        // eager chunking needs a chunk pass's step
        QVERIFY(!stepRunRequest(steps, 1, "", "eager", &why));
        QVERIFY(why.find("was not made by a chunk pass") != std::string::npos);
        // the partition: forward then backward, against the joint step before
        auto p = stepRunRequest(steps, 2, "forward", "previous", &why);
        QVERIFY2(p, why.c_str());
        QVERIFY(p->subjectBackward);
        QCOMPARE(p->subjectHash, uint64_t(33));
        QCOMPARE(p->subjectBackwardHash, uint64_t(44));
        QCOMPARE(p->referenceHash, uint64_t(22));
        QCOMPARE(checkStaleness(*p, steps), std::string());
        // the pipeline changed: each graph's hash makes its check stale, with the reason
        auto changed = steps;
        changed[1] = step(1, {{"", 23}}, "remat");
        QCOMPARE(checkStaleness(*r, changed),
                 std::string("it ran on an earlier version of step 1 (the pipeline changed since)"));
        QCOMPARE(checkStaleness(*p, changed), std::string("the graph it was compared with changed since"));
        changed = steps;
        changed[2] = step(2, {{"forward", 33}, {"backward", 45}}, "partition");
        QCOMPARE(checkStaleness(*p, changed),
                 std::string("it ran on an earlier version of step 2's backward (the pipeline changed since)"));
        changed.pop_back();
        QCOMPARE(checkStaleness(*p, changed), std::string("step 2 is not there any more (the pipeline changed)"));
        // a request recorded without hashes says so
        RunRequest old = *r;
        old.subjectHash = 0;
        QCOMPARE(checkStaleness(old, steps),
                 std::string("it was recorded without the steps' content hashes: run it again"));
    }
};

FXL_TEST_GUILESS_MAIN(TestViewJobs)
}  // namespace test_view_jobs
#include "test_view_jobs.moc"
