// runPipeline's progress and cancellation on the corpus joint graphs: one report per stage
// (passes done out of the pipeline's length), cancelling at the first, a middle or the last
// report keeps the complete steps made so far (each as a run without hooks makes it) and no
// half-made one, and hooks that never cancel change nothing.
#include <QtTest>

#include <atomic>
#include <filesystem>
#include <string>
#include <vector>

#include "core/formats/fx/fx_text_writer.hpp"
#include "core/formats/source.hpp"
#include "core/util/progress.hpp"
#include "passes/pass.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_pipeline_progress {

using namespace fxl;
namespace fs = std::filesystem;

namespace {

const fs::path kPytorch = fxltest::corpusPath("pytorch");

// The corpus joint graphs; without the corpus one row naming the directory (skipped or failed).
std::vector<fs::path> jointGraphs() { return fxltest::corpusFiles("pytorch", {".joint.code.py"}); }

const std::vector<std::string> kSpecs = {
    "remove_detach,annotate_regions,sac(policy=alternate_mm),remat,dce,cse",
    "partition(mode=mincut),dce,cse",  // steps with two graphs
};

void addRows(bool withWhen)
{
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("spec");
    QTest::addColumn<QString>("when");
    for (const auto& f : jointGraphs())
        for (const auto& spec : kSpecs) {
            const std::string stem = f.filename().string();
            const std::string row = stem.substr(0, stem.find('.')) + " | " + spec;
            if (!withWhen) {
                QTest::newRow(row.c_str())
                    << QString::fromStdString(f.string()) << QString::fromStdString(spec) << QString();
                continue;
            }
            // under ASan the two ends only (the middle is the release stage's): a third of the
            // rows, each a whole pipeline at -O0
            for (const char* when : {"first", "middle", "last"}) {
                if (fxltest::kSanitizedBuild && std::string_view(when) == "middle") continue;
                QTest::newRow((row + " | " + when).c_str())
                    << QString::fromStdString(f.string()) << QString::fromStdString(spec) << QString(when);
            }
        }
}

std::string stepText(const Step& s)
{
    std::string out = std::to_string(s.index) + " " + s.pass + " " + s.spec + " (" + s.options.toString() + ")\n";
    for (const auto& g : s.graphs) out += "== " + g->role + "\n" + printReadable(g->graph);
    out += s.log.toJson().dump() + "\n";
    for (const auto& p : s.problems) out += p.format() + "\n";
    return out;
}

struct Call
{
    int64_t done = 0, total = 0;
    std::string what;
};

// Runs `spec` recording every report; cancels inside report number `cancelAt` (1-based, 0 = never).
PipelineRun runRecording(const Graph& g, const std::string& spec, std::vector<Call>& calls, size_t cancelAt = 0)
{
    std::atomic<bool> cancel{false};
    PipelineOptions po;
    po.progress.cancel = &cancel;
    po.progress.report = [&](int64_t done, int64_t total, std::string_view what) {
        calls.push_back({done, total, std::string(what)});
        if (calls.size() == cancelAt) cancel = true;
    };
    return runPipeline(g, spec, po);
}

std::shared_ptr<Graph> loadGraph(const QString& path)
{
    auto src = openSource(path.toStdString());
    return src->graph(src->artifacts.at(0).id);
}

}  // namespace

class TestPipelineProgress : public QObject
{
    Q_OBJECT

private slots:
    // One report per stage plus the input's, in order, naming the stage just done.
    void progressPerStage_data() { addRows(false); }
    void progressPerStage()
    {
        QFETCH(QString, path);
        QFETCH(QString, spec);
        FXL_REQUIRE_CORPUS(path);
        const auto g = loadGraph(path);
        const auto stages = parsePipelineSpec(spec.toStdString());
        const int64_t n = int64_t(stages.size());
        std::vector<Call> calls;
        const PipelineRun run = runRecording(*g, spec.toStdString(), calls);
        QVERIFY2(run.ok, run.error.c_str());
        QVERIFY(!run.cancelled);
        QCOMPARE(calls.size(), size_t(n + 1));
        for (int64_t k = 0; k <= n; ++k) {
            const Call& c = calls[size_t(k)];
            QCOMPARE(c.done, k);
            QCOMPARE(c.total, n);
            QCOMPARE(c.what, k == 0 ? std::string("input") : stages[size_t(k - 1)].text);
        }
    }

    // Cancelling at report k (done = k - 1 stages) keeps exactly the input and those stages.
    void cancelKeepsCompleteSteps_data() { addRows(true); }
    void cancelKeepsCompleteSteps()
    {
        FXL_SANITIZER_ROWS(3);
        QFETCH(QString, path);
        QFETCH(QString, spec);
        QFETCH(QString, when);
        FXL_REQUIRE_CORPUS(path);
        const auto g = loadGraph(path);
        const PipelineRun plain = runPipeline(*g, spec.toStdString());
        QVERIFY2(plain.ok, plain.error.c_str());
        const size_t reports = plain.steps.size();  // the input's and one per stage
        const size_t cancelAt = when == "first" ? 1 : when == "last" ? reports : (reports + 1) / 2;

        std::vector<Call> calls;
        const PipelineRun run = runRecording(*g, spec.toStdString(), calls, cancelAt);
        QVERIFY(run.cancelled);
        QVERIFY(!run.ok);
        QCOMPARE(run.failedStage, -1);
        QVERIFY2(run.error.find("cancelled") != std::string::npos, run.error.c_str());
        QCOMPARE(calls.size(), cancelAt);  // no pass ran after the cancelling report
        QCOMPARE(run.steps.size(), cancelAt);
        for (size_t k = 0; k < run.steps.size(); ++k) QCOMPARE(stepText(run.steps[k]), stepText(plain.steps[k]));
    }

    // Hooks that never cancel leave every step as a run without them makes it.
    void sameStepsWithHooks_data() { addRows(false); }
    void sameStepsWithHooks()
    {
        FXL_SANITIZER_ROWS(2);
        QFETCH(QString, path);
        QFETCH(QString, spec);
        FXL_REQUIRE_CORPUS(path);
        const auto g = loadGraph(path);
        const PipelineRun plain = runPipeline(*g, spec.toStdString());
        std::vector<Call> calls;
        const PipelineRun hooked = runRecording(*g, spec.toStdString(), calls);
        QCOMPARE(hooked.ok, plain.ok);
        QVERIFY(!hooked.cancelled);
        QCOMPARE(hooked.error, plain.error);
        QCOMPARE(hooked.steps.size(), plain.steps.size());
        for (size_t k = 0; k < plain.steps.size(); ++k) QCOMPARE(stepText(hooked.steps[k]), stepText(plain.steps[k]));
    }

    // A pass that fails ends the progress there: the failure is not a cancellation.
    void failureIsNotCancel()
    {
        const fs::path p = kPytorch / "mlp_gelu.joint.code.py";
        FXL_REQUIRE_CORPUS(p);
        const auto g = loadGraph(QString::fromStdString(p.string()));
        // The second partition finds a forward and a backward graph, not one joint graph.
        std::vector<Call> calls;
        const PipelineRun run = runRecording(*g, "partition(mode=mincut),partition(mode=mincut)", calls);
        QVERIFY(!run.cancelled);
        QVERIFY2(!run.ok, "partitioning twice should fail");
        QCOMPARE(run.failedStage, 1);
        QCOMPARE(calls.size(), size_t(2));  // the input's and the first stage's
        QCOMPARE(calls.back().done, int64_t(1));
    }
};

FXL_TEST_APPLESS_MAIN(TestPipelineProgress)
}  // namespace test_pipeline_progress
#include "test_pipeline_progress.moc"
