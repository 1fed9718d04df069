// Where two runs diverge (runtime/check/localize.hpp): a graph against itself has no divergence and
// every node compared; each fixture of tests/data/localize (one node's arithmetic changed)
// against its original names that node as the first divergence, with every compared node
// before it bitwise equal; a pass result (sac+remat) is bitwise its input node by node, its
// recomputed copies compared with their originals. And the executor's onValue hook changes
// neither the outputs nor the measured live bytes. Labelled integration: the pass row needs
// the passes layer.
#include <QtTest>

#include <algorithm>
#include <set>

#include "core/formats/safetensors.hpp"
#include "core/formats/source.hpp"
#include "passes/pass.hpp"
#include "runtime/check/equivalence.hpp"
#include "runtime/check/localize.hpp"
#include "runtime/cpu/cpu_backend.hpp"
#include "runtime/exec/executor.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_localize {

using namespace fxl;

namespace {

std::shared_ptr<Graph> loadGraph(const std::string& relative)
{
    auto src = openSource(fxltest::testDataPath(relative).string());
    return src->graph(src->artifacts.at(0).id);
}

// The inputs of a tests/data/pytorch graph: its sidecar when there is one, else generated.
SafeTensorsFile inputsOf(const std::string& stem)
{
    const auto p = fxltest::testDataPath("pytorch/" + stem + ".inputs.safetensors");
    return std::filesystem::exists(p) ? readSafetensors(p.string()) : SafeTensorsFile{};
}

size_t valueNodes(const Graph& g)
{
    size_t n = 0;
    for (NodeId id : g.order()) n += g.node(id).op != NodeOp::Output;
    return n;
}

}  // namespace

class TestLocalize : public QObject
{
    Q_OBJECT

private slots:
    void identical_data()
    {
        QTest::addColumn<std::string>("stem");
        QTest::newRow("mlp_gelu") << std::string("mlp_gelu");
        QTest::newRow("moe_tiny") << std::string("moe_tiny");
    }
    void identical()
    {
        QFETCH(std::string, stem);
        const auto a = loadGraph("pytorch/" + stem + ".joint.code.py");
        const auto b = loadGraph("pytorch/" + stem + ".joint.code.py");
        const SafeTensorsFile inputs = inputsOf(stem);
        ExecOptions opts;
        opts.inputs = &inputs;
        const LocalizeReport r = localizeRuns(*a, *b, opts, nullptr);
        QVERIFY(!r.diverged());
        QCOMPARE(r.counts.unmatched, size_t(0));
        QCOMPARE(r.counts.differing, size_t(0));
        QCOMPARE(r.counts.compared + r.counts.nonTensor, valueNodes(*b));
        QCOMPARE(r.counts.equal, r.counts.compared);
        QCOMPARE(r.ulpByNameB.size(), r.counts.compared);
        for (const auto& [name, ulp] : r.ulpByNameA) QVERIFY2(ulp == 0, name.c_str());
        QVERIFY(r.peakKeptBytes > 0);
        QVERIFY(localizeToText(r).find("first divergence: none") != std::string::npos);
        QVERIFY(localizeToJson(r)["first_divergence"].is_null());
    }

    void firstDivergence_data()
    {
        QTest::addColumn<std::string>("stem");
        QTest::addColumn<std::string>("variant");
        QTest::addColumn<std::string>("node");
        QTest::addColumn<std::string>("uncomparedInput");  // "" = all inputs compared equal
        QTest::newRow("gelu tanh") << std::string("mlp_gelu") << std::string("mlp_gelu.joint.gelu_tanh.code.py")
                                   << std::string("gelu") << std::string();
        QTest::newRow("constant plus one ulp")
            << std::string("moe_tiny") << std::string("moe_tiny.joint.add_1_plus_one_ulp.code.py")
            << std::string("add_1") << std::string();
        QTest::newRow("sum reassociated")
            << std::string("moe_tiny") << std::string("moe_tiny.joint.add_3_reassociated.code.py")
            << std::string("add_3") << std::string("squeeze_5_plus_mm_2");
    }
    void firstDivergence()
    {
        QFETCH(std::string, stem);
        QFETCH(std::string, variant);
        QFETCH(std::string, node);
        QFETCH(std::string, uncomparedInput);
        const auto a = loadGraph("pytorch/" + stem + ".joint.code.py");
        const auto b = loadGraph("localize/" + variant);
        const SafeTensorsFile inputs = inputsOf(stem);
        ExecOptions opts;
        opts.inputs = &inputs;
        const LocalizeReport r = localizeRuns(*a, *b, opts, nullptr);
        QVERIFY(r.diverged());
        const NodeValueDiff& f = *r.first();
        QCOMPARE(f.bName, node);
        QCOMPARE(f.aName, node);
        const auto& order = b->order();
        QCOMPARE(f.bIndex, size_t(std::find(order.begin(), order.end(), b->findByName(node)) - order.begin()));
        QVERIFY(!f.shapeMismatch && !f.dtypeMismatch);
        QVERIFY(f.differing > 0 && f.maxUlp > 0);
        QVERIFY(f.first && f.first->firstIndex >= 0);
        QCOMPARE(r.ulpByNameB.at(node), f.maxUlp);
        // every node of B before it was compared (or is unpaired / not a tensor) and is equal
        size_t before = 0;
        for (const NodeValueDiff& d : r.nodes)
            if (d.bIndex < f.bIndex) {
                QVERIFY2(d.bitwiseEqual, d.bName.c_str());
                ++before;
            }
        QCOMPARE(before, *r.firstDivergence);
        QVERIFY(before > 3);
        QCOMPARE(r.counts.compared + r.counts.nonTensor + r.counts.unmatched, valueNodes(*b));
        if (uncomparedInput.empty()) {
            QVERIFY(r.firstUncomparedInputs.empty());
            QCOMPARE(r.counts.unmatched, size_t(0));
        } else {
            QCOMPARE(r.firstUncomparedInputs.size(), size_t(1));
            QCOMPARE(r.firstUncomparedInputs[0].bName, uncomparedInput);
            QCOMPARE(r.firstUncomparedInputs[0].reason, std::string("unmatched"));
        }
        const std::string text = localizeToText(r);
        QVERIFY2(text.find("first divergence: " + node + " (B #" + std::to_string(f.bIndex)) != std::string::npos,
                 text.c_str());
        const auto j = localizeToJson(r);
        QCOMPARE(j["first_divergence"]["b"].get<std::string>(), node);
        QCOMPARE(j["first_divergence"]["inputs"].get<std::string>(),
                 std::string(uncomparedInput.empty() ? "all equal" : "some not compared"));
    }

    // A budget that only scalars fit: gelu's value is not kept, the divergence is found where it
    // reaches a kept value (sum_1), whose input is named as not compared.
    void budget()
    {
        const auto a = loadGraph("pytorch/mlp_gelu.joint.code.py");
        const auto b = loadGraph("localize/mlp_gelu.joint.gelu_tanh.code.py");
        const SafeTensorsFile inputs = inputsOf("mlp_gelu");
        ExecOptions opts;
        opts.inputs = &inputs;
        LocalizeOptions lo;
        lo.byteBudget = 20;  // f32[4] fits, f32[2, 8] does not
        const LocalizeReport r = localizeRuns(*a, *b, opts, nullptr, lo);
        QVERIFY(r.diverged());
        QCOMPARE(r.first()->bName, std::string("sum_1"));
        QCOMPARE(r.firstUncomparedInputs.size(), size_t(1));
        QCOMPARE(r.firstUncomparedInputs[0].bName, std::string("mm_1"));
        QCOMPARE(r.firstUncomparedInputs[0].reason, std::string("over budget"));
        QVERIFY(r.counts.overBudget > 0);
        QCOMPARE(r.overBudget.size(), r.counts.overBudget);
        QVERIFY(std::find(r.overBudget.begin(), r.overBudget.end(), "gelu") != r.overBudget.end());
        QVERIFY(r.peakKeptBytes <= 20);
        QVERIFY(localizeToText(r).find("values of A not kept (budget 20 bytes): ") != std::string::npos);
    }

    // sac+remat recomputes forward nodes in the backward: node by node the same bits, the
    // recomputed copies compared with the nodes they were copied from.
    void passResult()
    {
        const auto joint = loadGraph("pytorch/mlp_gelu.joint.code.py");
        const PipelineRun pr = runPipeline(*joint, "remove_detach,sac(policy=alternate_mm),remat,dce");
        QVERIFY2(pr.ok, pr.error.c_str());
        const Graph& after = pr.steps.back().graph();
        const SafeTensorsFile inputs = inputsOf("mlp_gelu");
        ExecOptions opts;
        opts.inputs = &inputs;
        const LocalizeReport r = localizeRuns(*joint, after, opts, nullptr);
        QVERIFY(!r.diverged());
        QCOMPARE(r.counts.differing, size_t(0));
        size_t recomputed = 0;
        for (const NodeValueDiff& d : r.nodes)
            if (d.aName != d.bName && (d.match == "provenance" || d.match == "provenance_copy")) {
                QVERIFY(d.bitwiseEqual);
                ++recomputed;
            }
        QVERIFY2(recomputed > 0, "no recomputed node was compared with its original");
        QCOMPARE(r.counts.compared + r.counts.nonTensor + r.counts.unmatched, valueNodes(after));
    }

    // Observing every value leaves the outputs and the measured live bytes as they were.
    void hookChangesNothing()
    {
        const auto g = loadGraph("pytorch/moe_tiny.joint.code.py");
        const ExecResult plain = executeGraph(*g);
        ExecOptions opts;
        std::set<std::string> seen;
        opts.onValue = [&](const Node& n, const Value& v) {
            QVERIFY(!seen.count(n.name));
            seen.insert(n.name);
            (void)v;
        };
        const auto backend = makeCpuBackend();
        opts.backend = backend.get();
        Localizer loc(*g, *g);
        auto record = loc.recordA(*backend);
        auto user = opts.onValue;
        opts.onValue = [&](const Node& n, const Value& v) {
            record(n, v);
            user(n, v);
        };
        const ExecResult observed = executeGraph(*g, opts);
        QCOMPARE(seen.size(), valueNodes(*g));
        QCOMPARE(observed.peakBytes, plain.peakBytes);
        QCOMPARE(observed.peakNode, plain.peakNode);
        QVERIFY(observed.liveBytesPerStep == plain.liveBytesPerStep);
        const SafeTensorsFile x = outputsToSafetensors(plain, *plain.ownedBackend);
        const SafeTensorsFile y = outputsToSafetensors(observed, *backend);
        QVERIFY(compareOutputs(x, y).allBitwiseEqual());
        QCOMPARE(x.tensors.size(), y.tensors.size());
    }
};

FXL_TEST_GUILESS_MAIN(TestLocalize)
}  // namespace test_localize
#include "test_localize.moc"
