// Every pipeline on every real joint graph of the corpus: each step verifier-clean, and a
// second run byte-identical (printed graphs and change logs). The partitioned .fw./.bw.
// graphs go through dce/cse too. Pipelines naming a pass that is not registered are skipped
// with the pass's name.
#include <QtTest>

#include <algorithm>
#include <filesystem>

#include "core/formats/fx/fx_text_writer.hpp"
#include "core/formats/source.hpp"
#include "passes/pass.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_corpus_passes {

using namespace fxl;
namespace fs = std::filesystem;

namespace {

const fs::path kPytorch = fxltest::corpusPath("pytorch");

// The corpus/pytorch graphs whose name contains `infix` ({corpus/pytorch} when it is absent:
// that row skips or fails by the corpus rule).
std::vector<fs::path> corpusFiles(const std::string& infix)
{
    if (!fs::is_directory(kPytorch)) return {kPytorch};
    std::vector<fs::path> out;
    for (const fs::path& f : fxltest::corpusFiles("pytorch", {".code.py"}))
        if (f.filename().string().find(infix) != std::string::npos) out.push_back(f);
    if (out.empty()) out.push_back(kPytorch / ("*" + infix + "*"));  // a row that skips or fails by the corpus rule
    return out;
}

std::string stepText(const Step& s)
{
    std::string out;
    for (const auto& g : s.graphs) out += "== " + g->role + "\n" + printReadable(g->graph);
    return out;
}

// The pass names of a spec that the registry lacks ("" when all are there).
QString missingPasses(const std::string& spec)
{
    QStringList missing;
    int depth = 0;
    std::string cur;
    auto flush = [&]() {
        const QString n = QString::fromStdString(cur).trimmed();
        if (!n.isEmpty() && !PassRegistry::instance().find(n.toStdString())) missing << n;
        cur.clear();
    };
    for (char c : spec) {
        if (c == '(')
            ++depth;
        else if (c == ')')
            --depth;
        else if (c == ',' && depth == 0)
            flush();
        else if (depth == 0)
            cur += c;
    }
    flush();
    return missing.join(", ");
}

void addRows(const std::vector<fs::path>& files, const std::vector<std::string>& pipelines)
{
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("spec");
    for (const auto& f : files)
        for (const auto& p : pipelines) {
            std::string stem = f.filename().string();
            if (stem.ends_with(".code.py")) stem.resize(stem.size() - 8);
            QTest::newRow((stem + " | " + p).c_str())
                << QString::fromStdString(f.string()) << QString::fromStdString(p);
        }
}

void checkRow(const QString& path, const QString& spec)
{
    FXL_REQUIRE_CORPUS(path);
    const QString missing = missingPasses(spec.toStdString());
    if (!missing.isEmpty()) QFAIL(qPrintable("pass not registered: " + missing));
    auto src = openSource(path.toStdString());
    QVERIFY(src && !src->artifacts.empty());
    std::shared_ptr<Graph> g = src->graph(src->artifacts[0].id);
    QVERIFY(g);
    const PipelineRun a = runPipeline(*g, spec.toStdString());
    QVERIFY2(a.ok, a.error.c_str());
    for (const Step& s : a.steps) {
        for (const auto& p : s.problems)
            QVERIFY2(p.severity != Severity::Error,
                     qPrintable(QString("step %1 (%2): %3")
                                    .arg(s.index)
                                    .arg(QString::fromStdString(s.pass), QString::fromStdString(p.format()))));
    }
    const PipelineRun b = runPipeline(*g, spec.toStdString());
    QVERIFY2(b.ok, b.error.c_str());
    QCOMPARE(a.steps.size(), b.steps.size());
    for (size_t i = 0; i < a.steps.size(); ++i) {
        QCOMPARE(stepText(a.steps[i]), stepText(b.steps[i]));
        QCOMPARE(a.steps[i].log.toJson().dump(), b.steps[i].log.toJson().dump());
    }
}

}  // namespace

class TestCorpusPasses : public QObject
{
    Q_OBJECT
private slots:
    void joint_data()
    {
        addRows(corpusFiles(".joint."),
                {"dce", "cse", "remove_detach", "remove_detach,dce,cse", "annotate_regions",
                 "remove_detach,sac,remat,dce", "remove_detach,sac(policy=recompute_all),remat,dce",
                 "partition(mode=save_all)", "partition(mode=mincut)", "partition(mode=tagged)"});
    }
    void joint()
    {
        FXL_SANITIZER_ROWS(4);
        QFETCH(QString, path);
        QFETCH(QString, spec);
        checkRow(path, spec);
    }

    void partitioned_data()
    {
        std::vector<fs::path> files = corpusFiles(".fw.");
        for (const auto& f : corpusFiles(".bw."))
            if (f != kPytorch) files.push_back(f);  // the absent corpus: one row, not two
        addRows(files, {"dce", "cse", "remove_detach,dce,cse"});
    }
    void partitioned()
    {
        FXL_SANITIZER_ROWS(4);
        QFETCH(QString, path);
        QFETCH(QString, spec);
        checkRow(path, spec);
    }

    // The corpus files are there (so the rows above are not silently empty).
    void corpusPresent()
    {
        FXL_REQUIRE_CORPUS(kPytorch);
        QVERIFY(corpusFiles(".joint.").size() >= 7);
        QVERIFY(corpusFiles(".fw.").size() >= 8);
    }
};

FXL_TEST_APPLESS_MAIN(TestCorpusPasses)
}  // namespace test_corpus_passes
#include "test_corpus_passes.moc"
