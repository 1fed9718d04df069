// The executor against real PyTorch: every corpus/pytorch case run on its recorded inputs
// matches PyTorch's recorded outputs (allclose for floats, exact for integers), and its
// measured peak equals the memory timeline's estimate for the same order.
#include <QtTest>

#include <filesystem>

#include "core/analysis/memory_timeline.hpp"
#include "core/formats/fx/fx_text_parser.hpp"
#include "core/formats/safetensors.hpp"
#include "core/formats/source.hpp"
#include "runtime/check/equivalence.hpp"
#include "runtime/cpu/cpu_backend.hpp"
#include "runtime/exec/executor.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_executor {

using namespace fxl;
namespace fs = std::filesystem;

namespace {

struct Loaded
{
    std::shared_ptr<Graph> graph;
    SafeTensorsFile inputs, constants, expected;
};

Loaded load(const std::string& name)
{
    const std::string stem = fxltest::corpusPath("pytorch/" + name).string();  // name may be "large/..."

    auto src = openSource(stem + ".joint.code.py");
    Loaded l;
    l.graph = src->graph(src->artifacts.at(0).id);
    l.inputs = readSafetensors(stem + ".inputs.safetensors");
    if (fs::exists(stem + ".joint.constants.safetensors"))
        l.constants = readSafetensors(stem + ".joint.constants.safetensors");
    l.expected = readSafetensors(stem + ".outputs.safetensors");
    return l;
}
}  // namespace

class TestExecutor : public QObject
{
    Q_OBJECT

private slots:
    void matchesPyTorch_data()
    {
        QTest::addColumn<std::string>("name");
        for (const char* n :
             {"mlp_gelu", "linear_ce", "gpt2_tiny", "llama_tiny", "moe_tiny", "moe_dispatch", "checkpoint_mlp"})
            QTest::newRow(n) << std::string(n);
        QTest::newRow("large/gpt2_deep640") << std::string("large/gpt2_deep640");
    }
    void matchesPyTorch()
    {
        QFETCH(std::string, name);
        FXL_REQUIRE_CORPUS(fxltest::corpusPath("pytorch/" + name + ".joint.code.py"));
        Loaded l = load(name);
        ExecOptions opts;
        opts.inputs = &l.inputs;
        opts.constants = &l.constants;
        opts.requireAllInputs = true;
        auto backend = makeCpuBackend();
        opts.backend = backend.get();
        ExecResult r;
        try {
            r = executeGraph(*l.graph, opts);
        } catch (const std::exception& e) {
            QFAIL(e.what());
        }
        SafeTensorsFile got = outputsToSafetensors(r, *backend);
        const Tolerance tol{1e-6, 1e-5};
        EquivalenceReport rep = compareOutputs(got, l.expected, tol);
        // messages are built only on failure: a report over thousands of outputs is long
        if (!rep.onlyInA.empty() || !rep.onlyInB.empty()) QFAIL(reportToText(rep).c_str());
        double worst = 0;
        for (const auto& d : rep.outputs) {
            QVERIFY2(!d.dtypeMismatch && !d.shapeMismatch, (d.name + ": dtype or shape differs").c_str());
            const SafeTensor* e = l.expected.find(d.name);
            if (!isFloatingPoint(e->dtype)) QVERIFY2(d.bitwiseEqual, (d.name + ": integer output differs").c_str());
            if (!(d.bitwiseEqual || d.withinTolerance)) QFAIL(reportToText(rep).c_str());
            worst = std::max(worst, d.worstToleranceRatio);
        }
        qInfo("%s: %zu outputs, worst |a-e| / (1e-6 + 1e-5|e|) = %.3f, %.3f s, peak %lld bytes", name.c_str(),
              rep.outputs.size(), worst, r.seconds, static_cast<long long>(r.peakBytes));
    }

    // Executor peak bytes equal the memory timeline's estimate for the same order.
    void peakMatchesTimeline_data() { matchesPyTorch_data(); }
    void peakMatchesTimeline()
    {
        QFETCH(std::string, name);
        FXL_REQUIRE_CORPUS(fxltest::corpusPath("pytorch/" + name + ".joint.code.py"));
        Loaded l = load(name);
        ExecOptions opts;
        opts.inputs = &l.inputs;
        opts.constants = &l.constants;
        ExecResult r = executeGraph(*l.graph, opts);
        MemoryTimeline t = computeMemoryTimeline(*l.graph);
        QCOMPARE(r.liveBytesPerStep.size(), t.steps.size());
        for (size_t k = 0; k < t.steps.size(); ++k) {
            if (r.liveBytesPerStep[k] != t.steps[k].liveBytes) {
                const Node& n = l.graph->node(t.steps[k].node);
                QFAIL(qPrintable(QStringLiteral("step %1 (%2, %3): executor %4 bytes, timeline %5")
                                     .arg(k)
                                     .arg(QString::fromStdString(n.name), QString::fromStdString(n.target))
                                     .arg(r.liveBytesPerStep[k])
                                     .arg(t.steps[k].liveBytes)));
            }
        }
        QCOMPARE(r.peakBytes, t.peakBytes);
    }

    // A tensor read only through a keyword argument (add's `other = b`) is freed after that
    // read, in the executor's measure as in the timeline (both counted by hand here).
    void keywordTensorFreedAfterItsUse()
    {
        const Graph g = parseFxText("def forward(self, x: \"f32[4, 8]\", y: \"f32[4, 8]\"):\n"
                                    "    a: \"f32[4, 8]\" = torch.ops.aten.relu.default(x)\n"
                                    "    b: \"f32[4, 8]\" = torch.ops.aten.neg.default(y)\n"
                                    "    add: \"f32[4, 8]\" = torch.ops.aten.add.Tensor(a, other = b)\n"
                                    "    exp: \"f32[4, 8]\" = torch.ops.aten.exp.default(add)\n"
                                    "    sum_1: \"f32[]\" = torch.ops.aten.sum.default(exp)\n"
                                    "    return (sum_1,)\n",
                                    "keyword.py");
        ExecOptions opts;
        opts.inputSeed = 1;
        const ExecResult r = executeGraph(g, opts);
        QCOMPARE(r.liveBytesPerStep, (std::vector<int64_t>{128, 256, 384, 512, 640, 512, 388, 260}));
        QCOMPARE(r.peakBytes, int64_t(640));
    }
};

FXL_TEST_APPLESS_MAIN(TestExecutor)
}  // namespace test_executor
#include "test_executor.moc"
