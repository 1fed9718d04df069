// The executor on graphs with higher-order ops: each HOP graph gives bitwise the outputs of
// the same graph with its nested graphs inlined by hand (tests/data/nested/*_inlined.py);
// cond takes both branches, while_loop counts; a wrong operand count (and the other misuses)
// is a KernelError naming the HOP node; the corpus invoke_subgraph graphs run; the measured
// live bytes follow the timeline by the rule in executor.hpp.
#include <QtTest>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/analysis/memory_timeline.hpp"
#include "core/formats/fx/fx_text_parser.hpp"
#include "core/formats/safetensors.hpp"
#include "core/formats/source.hpp"
#include "runtime/base/kernel.hpp"
#include "runtime/check/equivalence.hpp"
#include "runtime/cpu/cpu_backend.hpp"
#include "runtime/exec/executor.hpp"

#include "graph_test_util.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_nested {

using namespace fxl;
using namespace graphtest;
namespace fs = std::filesystem;

namespace {
const fs::path kData = fxltest::testDataPath("nested");
const fs::path kCorpusFx = fxltest::corpusPath("fx");

// A test graph, with `from` replaced by `to` in its text (once; the text must contain it).
Graph loadNested(const std::string& file, const std::string& from = {}, const std::string& to = {})
{
    std::string text = fxltest::readFile(kData / file);
    if (!from.empty()) {
        const size_t at = text.find(from);
        if (at == std::string::npos) throw std::runtime_error(file + " has no '" + from + "'");
        text.replace(at, from.size(), to);
    }
    return parseFxText(text, file);
}

// Sets an input of a resolved inputs file to one scalar (pred of cond, the loop counter).
void setScalar(SafeTensorsFile& f, const std::string& name, DType t, int64_t v)
{
    for (auto& st : f.tensors)
        if (st.name == name) {
            st.dtype = t;
            st.shape.clear();
            st.data.assign(static_cast<size_t>(dtypeItemSize(t)), 0);
            if (t == DType::Bool)
                st.data[0] = v ? 1 : 0;
            else
                std::memcpy(st.data.data(), &v, st.data.size());  // little-endian i64
            return;
        }
    throw std::runtime_error("no input " + name);
}

// The inputs a HOP graph case runs on: generated from the graph's meta (seed 7), with the
// scalars that steer control flow set by the case.
SafeTensorsFile caseInputs(const Graph& g, const std::string& row)
{
    ExecOptions opts;
    opts.inputSeed = 7;
    SafeTensorsFile f = resolveInputs(g, opts);
    if (row == "cond_true") setScalar(f, "pred", DType::Bool, 1);
    if (row == "cond_false") setScalar(f, "pred", DType::Bool, 0);
    if (row.rfind("while_loop", 0) == 0) setScalar(f, "it", DType::I64, 0);
    return f;
}

QString stepMismatch(const Graph& g, const MemoryTimeline& t, size_t k, int64_t got, int64_t expected)
{
    const Node& n = g.node(t.steps[k].node);
    return QStringLiteral("step %1 (%2): executor %3 bytes, expected %4 (timeline %5)")
        .arg(k)
        .arg(QString::fromStdString(n.name))
        .arg(got)
        .arg(expected)
        .arg(t.steps[k].liveBytes);
}
}  // namespace

class TestNested : public QObject
{
    Q_OBJECT

private slots:
    // HOP graph == the same graph with its bodies inlined by hand, bitwise; the measured live
    // bytes equal the timeline at every step (no body here returns one of its operands).
    void matchesInlined_data()
    {
        QTest::addColumn<std::string>("row");
        QTest::addColumn<std::string>("hopFile");
        QTest::addColumn<std::string>("inlinedFile");
        QTest::newRow("invoke_subgraph") << std::string("invoke_subgraph") << std::string("invoke_subgraph.py")
                                         << std::string("invoke_subgraph_inlined.py");
        QTest::newRow("tag_activation_checkpoint")
            << std::string("checkpoint") << std::string("checkpoint.py") << std::string("checkpoint_inlined.py");
        QTest::newRow("set_grad_enabled+autocast(off)")
            << std::string("wrap_modes") << std::string("wrap_modes.py") << std::string("wrap_modes_inlined.py");
        QTest::newRow("cond true") << std::string("cond_true") << std::string("cond.py")
                                   << std::string("cond_true_inlined.py");
        QTest::newRow("cond false") << std::string("cond_false") << std::string("cond.py")
                                    << std::string("cond_false_inlined.py");
        QTest::newRow("while_loop 3 iterations")
            << std::string("while_loop") << std::string("while_loop.py") << std::string("while_loop_inlined.py");
        QTest::newRow("map_impl") << std::string("map") << std::string("map.py") << std::string("map_inlined.py");
    }
    void matchesInlined()
    {
        QFETCH(std::string, row);
        QFETCH(std::string, hopFile);
        QFETCH(std::string, inlinedFile);
        const Graph hop = loadNested(hopFile);
        const Graph flat = loadNested(inlinedFile);
        QVERIFY(!hop.subgraphs.empty());
        QVERIFY(flat.subgraphs.empty());
        const SafeTensorsFile inputs = caseInputs(hop, row);
        auto backend = makeCpuBackend();
        Run a, b;
        try {
            a = runGraph(hop, inputs, *backend);
            b = runGraph(flat, inputs, *backend);
        } catch (const std::exception& e) {
            QFAIL(e.what());
        }
        QVERIFY(!a.outputs.tensors.empty());
        QCOMPARE(a.outputs.tensors.size(), b.outputs.tensors.size());
        const EquivalenceReport rep = compareOutputs(a.outputs, b.outputs);
        QVERIFY2(rep.allBitwiseEqual(), reportToText(rep).c_str());

        const MemoryTimeline t = computeMemoryTimeline(hop);
        QCOMPARE(a.result.liveBytesPerStep.size(), t.steps.size());
        for (size_t k = 0; k < t.steps.size(); ++k)
            if (a.result.liveBytesPerStep[k] != t.steps[k].liveBytes)
                QFAIL(qPrintable(stepMismatch(hop, t, k, a.result.liveBytesPerStep[k], t.steps[k].liveBytes)));
        QCOMPARE(a.result.peakBytes, t.peakBytes);
        // nothing leaks: once the outputs are dropped the backend holds nothing
        a.result.outputs.clear();
        b.result.outputs.clear();
        QCOMPARE(backend->liveBytes(), int64_t(0));
    }

    // Timeline rule R10: while its body runs, an invoke_subgraph holds the body's own peak
    // (addmm and tanh, 2 x 128 bytes, before the addmm dies), more than its outputs (tanh and
    // sum_1, 144 bytes); the executor measures the same (matchesInlined checks every step).
    void bodyPeakCounts()
    {
        const Graph g = loadNested("invoke_subgraph.py");
        const MemoryTimeline t = computeMemoryTimeline(g);
        const size_t k = g.positionOf(g.findByName("invoke_subgraph"));
        QCOMPARE(t.steps[k].bodyPeakBytes, int64_t(256));
        QCOMPARE(t.steps[k].allocatedBytes, int64_t(144));
        QCOMPARE(t.steps[k].liveBytes, t.steps[k - 1].liveAfterBytes + 256);
        QCOMPARE(t.steps[k].liveAfterBytes, t.steps[k - 1].liveAfterBytes + 144 - t.steps[k].freedBytes);
        ExecOptions o;
        o.inputSeed = 5;
        const ExecResult r = executeGraph(g, o);
        QCOMPARE(r.liveBytesPerStep[k], t.steps[k].liveBytes);
        QCOMPARE(r.peakBytes, t.peakBytes);
    }

    // The cond rows discriminate: the true branch is not the false branch's inlined graph.
    void condBranchesDiffer()
    {
        const Graph hop = loadNested("cond.py");
        const Graph other = loadNested("cond_false_inlined.py");
        const SafeTensorsFile inputs = caseInputs(hop, "cond_true");
        auto backend = makeCpuBackend();
        Run a = runGraph(hop, inputs, *backend), b = runGraph(other, inputs, *backend);
        QVERIFY(!compareOutputs(a.outputs, b.outputs).allBitwiseEqual());
    }

    // A while_loop whose condition is false at once returns copies of its carried inputs.
    void whileLoopNoIteration()
    {
        const Graph g = loadNested("while_loop.py");
        SafeTensorsFile in = caseInputs(g, "while_loop");
        setScalar(in, "it", DType::I64, 5);
        auto backend = makeCpuBackend();
        Run r = runGraph(g, in, *backend);
        QCOMPARE(r.outputs.tensors.size(), size_t(2));
        QCOMPARE(r.outputs.tensors[0].data, in.find("it")->data);
        QCOMPARE(r.outputs.tensors[1].data, in.find("x")->data);
        for (const auto& v : r.result.outputs) QVERIFY(v.tensor.storage() != nullptr);
    }

    // Misuse of each HOP: a KernelError whose message names the HOP node (and the reason).
    void errors_data()
    {
        QTest::addColumn<std::string>("row");
        QTest::addColumn<std::string>("file");
        QTest::addColumn<std::string>("from");
        QTest::addColumn<std::string>("to");
        QTest::addColumn<std::string>("node");
        QTest::addColumn<std::string>("why");
        QTest::addColumn<int>("maxIterations");
        auto row = [](const char* name, const char* r, const char* file, const char* from, const char* to,
                      const char* node, const char* why, int maxIt = 1000000) {
            QTest::newRow(name) << std::string(r) << std::string(file) << std::string(from) << std::string(to)
                                << std::string(node) << std::string(why) << maxIt;
        };
        row("invoke_subgraph operand count", "invoke_subgraph", "invoke_subgraph.py", "'subgraph_0', x, w, b)",
            "'subgraph_0', x, w)", "invoke_subgraph", "'repeated_subgraph0' takes 3 input(s), got 2");
        row("checkpoint operand count", "checkpoint", "checkpoint.py", "(wrap_body_0, l_x_, l_w_,",
            "(wrap_body_0, l_x_,", "tag_activation_checkpoint", "'wrap_body_0' takes 2 input(s), got 1");
        row("set_grad_enabled operand count", "wrap_modes", "wrap_modes.py", "(False, submod_0, x, y)",
            "(False, submod_0, x)", "wrap_with_set_grad_enabled", "'submod_0' takes 2 input(s), got 1");
        row("autocast operand count", "wrap_modes", "wrap_modes.py", "submod_1, getitem, y)", "submod_1, getitem)",
            "wrap_with_autocast", "'submod_1' takes 2 input(s), got 1");
        row("autocast enabled bf16", "wrap_modes", "wrap_modes.py", "torch.bfloat16, False", "torch.bfloat16, True",
            "wrap_with_autocast", "autocast enabled with dtype bf16 is not supported");
        row("cond operand count", "cond_true", "cond.py", "(x, y));", "(x,));", "cond",
            "'true_graph_0' takes 2 input(s), got 1");
        row("cond non-graph branch", "cond_true", "cond.py", "(pred, true_graph_0, false_graph_0,",
            "(pred, true_graph_0, x,", "cond", "is not a nested graph");
        row("cond predicate with many elements", "cond_true", "cond.py", "cond(pred,", "cond(y,", "cond",
            "must have one element");
        row("while_loop operand count", "while_loop", "while_loop.py", "(it, x), (w,))", "(it, x), ())", "while_loop",
            "'cond_fn_0' takes 3 input(s), got 2");
        row("while_loop iteration limit", "while_loop", "while_loop.py", "", "", "while_loop",
            "while_loop ran 2 iterations", 2);
        row("while_loop body arity", "while_loop", "while_loop.py", "return (add, tanh)", "return (add,)", "while_loop",
            "returned 1 value(s) for 2 carried input(s)");
        row("map operand count", "map", "map.py", "[xs], [w])", "[xs], [])", "map_impl",
            "'body_graph_0' takes 2 input(s), got 1");
        row("error inside a body", "invoke_subgraph", "invoke_subgraph.py", "torch.ops.aten.tanh.default(addmm)",
            "torch.ops.aten.tanh.default(addmm, 3)", "invoke_subgraph",
            "in nested graph 'repeated_subgraph0': node 'tanh'");
    }
    void errors()
    {
        QFETCH(std::string, row);
        QFETCH(std::string, file);
        QFETCH(std::string, from);
        QFETCH(std::string, to);
        QFETCH(std::string, node);
        QFETCH(std::string, why);
        QFETCH(int, maxIterations);
        const Graph g = loadNested(file, from, to);
        const SafeTensorsFile inputs = caseInputs(g, row);
        auto backend = makeCpuBackend();
        try {
            runGraph(g, inputs, *backend, maxIterations);
            QFAIL("no error");
        } catch (const KernelError& e) {
            const std::string msg = e.what();
            QVERIFY2(msg.rfind("node '" + node + "'", 0) == 0, msg.c_str());
            QVERIFY2(msg.find(why) != std::string::npos, msg.c_str());
        }
    }

    // The corpus invoke_subgraph graphs (pytorch test expectations): the partitioned forward
    // runs and gives what its body gives (out0 = body + body, the saved values = the
    // inputs); the Dynamo-level graph stops at the first node no kernel runs, inside its body.
    void corpusPartitionedForward()
    {
        const fs::path p = kCorpusFx / "pytorch_test_invoke_subgraph_partitioned_fw.txt";
        FXL_REQUIRE_CORPUS(p);
        auto src = openSource(p.string());
        std::shared_ptr<Graph> g = src->graph(src->artifacts.at(0).id);
        const Graph* body = g->subgraph("partitioned_fw_subgraph_0_0");
        QVERIFY(body);
        ExecOptions gen;
        gen.inputSeed = 3;
        const SafeTensorsFile in = resolveInputs(*g, gen);
        QCOMPARE(in.tensors.size(), size_t(3));
        auto backend = makeCpuBackend();
        Run r;
        try {
            r = runGraph(*g, in, *backend);
        } catch (const std::exception& e) {
            QFAIL(e.what());
        }
        QCOMPARE(r.outputs.tensors.size(), size_t(7));
        // the body alone on the same inputs (renamed to its placeholders)
        SafeTensorsFile bin = in;
        for (size_t k = 0; k < 3; ++k) bin.tensors[k].name = "primals_" + std::to_string(k);
        Run rb = runGraph(*body, bin, *backend);
        const SafeTensor& mul2 = rb.outputs.tensors.at(0);
        std::vector<float> twice(8), got(8);
        std::memcpy(twice.data(), mul2.data.data(), 32);
        for (float& v : twice) v = v + v;  // exact
        std::memcpy(got.data(), r.outputs.tensors[0].data.data(), 32);
        QCOMPARE(got, twice);
        // outputs 1-6 are getitem_12, _11, _10, _15, _14, _13: the inputs p3, p2, p1 twice
        for (size_t k = 1; k < 7; ++k) QCOMPARE(r.outputs.tensors[k].data, in.tensors[(3 - (k - 1) % 3) - 1].data);

        // Accounting (timeline R3): the body returns its operands as outputs 1-3, which share
        // the operands' storages; only output 0 (the mul) is a new allocation of each call.
        const MemoryTimeline t = computeMemoryTimeline(*g);
        QCOMPARE(r.result.liveBytesPerStep.size(), t.steps.size());
        int hopStorages = 0;
        for (const auto& s : t.storages)
            if (g->node(s.node).isOp("higher_order.invoke_subgraph")) {
                ++hopStorages;
                QCOMPARE(s.element, 0);
            }
        QCOMPARE(hopStorages, 2);  // one per call
        for (size_t k = 0; k < t.steps.size(); ++k)
            if (r.result.liveBytesPerStep[k] != t.steps[k].liveBytes)
                QFAIL(qPrintable(stepMismatch(*g, t, k, r.result.liveBytesPerStep[k], t.steps[k].liveBytes)));
        QCOMPARE(r.result.peakBytes, t.peakBytes);
    }

    void corpusDynamoGraph()
    {
        const fs::path p = kCorpusFx / "pytorch_test_invoke_subgraph_dynamo_graph.txt";
        FXL_REQUIRE_CORPUS(p);
        auto src = openSource(p.string());
        std::shared_ptr<Graph> g = src->graph(src->artifacts.at(0).id);
        ExecOptions gen;
        gen.inputSeed = 3;
        const SafeTensorsFile in = resolveInputs(*g, gen);
        // The body's Dynamo-level nodes (buf.add_(1), torch.mul, mul.sin(), sin + 5) run through
        // runtime/torch_level; both invocations mutate the buffer, so the second sees buf + 2.
        // The same computation in aten ops, on the same inputs (renamed to its placeholders):
        const Graph at = parseFxText("class GraphModule(torch.nn.Module):\n"
                                     "    def forward(self, x: \"f32[8]\", y: \"f32[8]\", buf: \"f32[8]\"):\n"
                                     "        b1: \"f32[8]\" = torch.ops.aten.add.Scalar(buf, 1)\n"
                                     "        m: \"f32[8]\" = torch.ops.aten.mul.Tensor(x, y)\n"
                                     "        s: \"f32[8]\" = torch.ops.aten.sin.default(m)\n"
                                     "        a: \"f32[8]\" = torch.ops.aten.add.Scalar(s, 5)\n"
                                     "        o1: \"f32[8]\" = torch.ops.aten.add.Tensor(a, b1)\n"
                                     "        b2: \"f32[8]\" = torch.ops.aten.add.Scalar(b1, 1)\n"
                                     "        o2: \"f32[8]\" = torch.ops.aten.add.Tensor(a, b2)\n"
                                     "        out: \"f32[8]\" = torch.ops.aten.add.Tensor(o1, o2)\n"
                                     "        return (out,)\n",
                                     "invoke_subgraph_aten");
        SafeTensorsFile atIn = in;
        QCOMPARE(atIn.tensors.size(), size_t(3));
        const char* names[] = {"x", "y", "buf"};
        for (size_t k = 0; k < 3; ++k) atIn.tensors[k].name = names[k];
        auto backend = makeCpuBackend();
        Run a, b;
        try {
            a = runGraph(*g, in, *backend);
            b = runGraph(at, atIn, *backend);
        } catch (const KernelError& e) {
            QFAIL(e.what());
        }
        const EquivalenceReport rep = compareOutputs(a.outputs, b.outputs);
        QVERIFY2(rep.allBitwiseEqual(), reportToText(rep).c_str());
        QCOMPARE(a.outputs.tensors.size(), size_t(1));
    }
};

FXL_TEST_APPLESS_MAIN(TestNested)
}  // namespace test_nested
#include "test_nested.moc"
