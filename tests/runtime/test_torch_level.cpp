// Dynamo-level graphs (call_method, torch functions, Python operators on tensors) run
// through runtime/torch_level: (a) each hand-written Dynamo graph in tests/data/dynamo gives
// bitwise the outputs of its aten-level twin (*_aten.py) on the same inputs, and the measured
// live bytes follow the memory timeline where the timeline classifies the nodes as the
// executor runs them; (b) the corpus Dynamo graphs run or fail with the expected message;
// (c) misuse is a KernelError naming the node and the target.
#include <QtTest>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/analysis/memory_timeline.hpp"
#include "core/formats/fx/fx_text_parser.hpp"
#include "core/formats/source.hpp"
#include "runtime/base/kernel.hpp"
#include "runtime/check/equivalence.hpp"
#include "runtime/cpu/cpu_backend.hpp"
#include "runtime/exec/executor.hpp"
#include "runtime/torch_level/torch_level.hpp"

#include "graph_test_util.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_torch_level {

using namespace fxl;
using namespace graphtest;
namespace fs = std::filesystem;

namespace {
const fs::path kData = fxltest::testDataPath("dynamo");
const fs::path kCorpusFx = fxltest::corpusPath("fx");

Run run(const Graph& g, const SafeTensorsFile& inputs, Backend& b) { return runGraph(g, inputs, b); }

// The message of the KernelError running `g` throws ("" when it runs).
std::string failure(const Graph& g)
{
    try {
        ExecOptions o;
        o.inputSeed = 1;
        executeGraph(g, o);
    } catch (const KernelError& e) {
        return e.what();
    }
    return {};
}

std::string dynamoGraph(const std::string& body)
{
    return "class GraphModule(torch.nn.Module):\n    def forward(self, L_x_: \"f32[4, 8]\"):\n" + body;
}

// `in` (placeholder order of another graph) renamed to `g`'s placeholders, in order: the
// Dynamo graphs name their inputs l_x_ (L_x_ aliased), the aten twins L_x_.
SafeTensorsFile renamedFor(const Graph& g, const SafeTensorsFile& in)
{
    SafeTensorsFile out = in;
    size_t k = 0;
    for (NodeId id : g.order())
        if (g.node(id).op == NodeOp::Placeholder && k < out.tensors.size()) out.tensors[k++].name = g.node(id).name;
    return out;
}

void verifyBitwise(const SafeTensorsFile& a, const SafeTensorsFile& b)
{
    const EquivalenceReport rep = compareOutputs(a, b);
    QVERIFY2(rep.allBitwiseEqual(), reportToText(rep).c_str());
    QVERIFY(!a.tensors.empty());
    QCOMPARE(a.tensors.size(), b.tensors.size());
}
}  // namespace

class TestTorchLevel : public QObject
{
    Q_OBJECT

private slots:
    void matchesAten_data()
    {
        QTest::addColumn<std::string>("name");
        // views / in-place / no-op methods share storages on both sides (timeline R3)
        for (const char* n : {"arith", "act", "matmul", "norm", "views", "inplace"}) QTest::newRow(n) << std::string(n);
    }
    void matchesAten()
    {
        QFETCH(std::string, name);
        const Graph dyn = parseFxText(fxltest::readFile(kData / (name + ".py")), name + ".py");
        const Graph at = parseFxText(fxltest::readFile(kData / (name + "_aten.py")), name + "_aten.py");
        ExecOptions gen;
        gen.inputSeed = 11;
        const SafeTensorsFile in = resolveInputs(dyn, gen);
        auto backend = makeCpuBackend();
        Run a, b;
        try {
            a = run(dyn, in, *backend);
            b = run(at, renamedFor(at, in), *backend);
        } catch (const KernelError& e) {
            QFAIL(e.what());
        }
        verifyBitwise(a.outputs, b.outputs);
        // the recorded meta agrees with what ran (shape and dtype of every output)
        const Node& out = dyn.node(dyn.outputNode());
        QCOMPARE(out.args.at(0).items.size(), a.outputs.tensors.size());
        for (size_t k = 0; k < a.outputs.tensors.size(); ++k) {
            const ValueMeta& m = dyn.node(out.args[0].items[k].node).val;
            QVERIFY(m.isTensor());
            QCOMPARE(a.outputs.tensors[k].dtype, m.tensor.dtype);
            QCOMPARE(a.outputs.tensors[k].shape.size(), m.tensor.sizes.size());
        }
        const MemoryTimeline t = computeMemoryTimeline(dyn);
        QCOMPARE(a.result.liveBytesPerStep.size(), t.steps.size());
        for (size_t k = 0; k < t.steps.size(); ++k)
            if (a.result.liveBytesPerStep[k] != t.steps[k].liveBytes)
                QFAIL(qPrintable(QStringLiteral("step %1 (%2): executor %3 bytes, timeline %4")
                                     .arg(k)
                                     .arg(QString::fromStdString(dyn.node(t.steps[k].node).name))
                                     .arg(a.result.liveBytesPerStep[k])
                                     .arg(t.steps[k].liveBytes)));
        QCOMPARE(a.result.peakBytes, t.peakBytes);
    }

    // Item 4 of issue 14: each Dynamo-level graph run by fxlens against PyTorch's own outputs
    // for the same inputs (tests/runtime/gen_dynamo_refs.py, PyTorch 1.13), f32 within
    // allclose(rtol 1e-5, atol 1e-6), integers and bools exactly.
    void matchesPyTorch_data()
    {
        QTest::addColumn<std::string>("name");
        for (const char* n : {"arith", "act", "matmul", "norm", "views", "inplace"}) QTest::newRow(n) << std::string(n);
    }
    void matchesPyTorch()
    {
        QFETCH(std::string, name);
        const Graph dyn = parseFxText(fxltest::readFile(kData / (name + ".py")), name + ".py");
        const SafeTensorsFile in = readSafetensors((kData / (name + ".inputs.safetensors")).string());
        const SafeTensorsFile want = readSafetensors((kData / (name + ".outputs.safetensors")).string());
        auto backend = makeCpuBackend();
        Run a;
        try {
            a = run(dyn, renamedFor(dyn, in), *backend);
        } catch (const KernelError& e) {
            QFAIL(e.what());
        }
        QCOMPARE(a.outputs.tensors.size(), want.tensors.size());
        Tolerance tol;
        tol.atol = 1e-6;
        tol.rtol = 1e-5;
        const EquivalenceReport rep = compareOutputs(a.outputs, want, tol);
        QVERIFY2(rep.allWithinTolerance(), reportToText(rep).c_str());
        int bitwise = 0;
        for (const TensorDiff& d : rep.outputs) bitwise += d.bitwiseEqual ? 1 : 0;
        qInfo("%zu outputs within allclose(1e-5, 1e-6) of PyTorch, %d of them bitwise equal", rep.outputs.size(),
              bitwise);
    }

    // a view method shares the input's storage; an in-place method writes into it
    void viewsAlias()
    {
        const Graph g = parseFxText(dynamoGraph("        v: \"f32[32]\" = L_x_.view(32)\n"
                                                "        w: \"f32[8, 4]\" = L_x_.transpose(0, 1)\n"
                                                "        c: \"f32[4, 8]\" = L_x_.clone()\n"
                                                "        a: \"f32[4, 8]\" = c.add_(1)\n"
                                                "        return (v, w, c, a)\n"),
                                    "views");
        ExecOptions o;
        ExecResult r = executeGraph(g, o);
        QCOMPARE(r.outputs.size(), size_t(4));
        QVERIFY(r.outputs[0].tensor.storage() == r.outputs[1].tensor.storage());
        QVERIFY(r.outputs[2].tensor.storage() == r.outputs[3].tensor.storage());
        QVERIFY(r.outputs[0].tensor.storage() != r.outputs[2].tensor.storage());
        QCOMPARE(r.outputs[1].tensor.strides(), (std::vector<int64_t>{1, 8}));
    }

    // size() gives ints that feed a view; getitem by a node int
    void sizeAndSymbolicArithmetic()
    {
        const Graph g = parseFxText(dynamoGraph("        s = L_x_.size()\n"
                                                "        n = s[1]\n"
                                                "        m = n * 2\n"
                                                "        h = m // 4\n"
                                                "        v: \"f32[8, 4]\" = L_x_.view(h, -1)\n"
                                                "        d = L_x_.size(-2)\n"
                                                "        e = d - 1\n"
                                                "        k: \"f32[8]\" = L_x_[e]\n"
                                                "        return (v, k)\n"),
                                    "size");
        ExecOptions o;
        ExecResult r;
        try {
            r = executeGraph(g, o);
        } catch (const KernelError& e) {
            QFAIL(e.what());
        }
        QCOMPARE(r.outputs.at(0).tensor.sizes(), (std::vector<int64_t>{4, 8}));
        QCOMPARE(r.outputs.at(1).tensor.sizes(), (std::vector<int64_t>{8}));
        QCOMPARE(r.outputs.at(1).tensor.offset(), int64_t(24));
    }

    void torchLevelKeysListed()
    {
        const auto keys = torchLevelKeys();
        for (const char* k : {"method:view", "method:add_", "operator.add", "operator.getitem", "torch._C._nn.linear",
                              "torch.matmul", "torch.nn.functional.layer_norm", "method:to", "method:size"})
            QVERIFY2(std::find(keys.begin(), keys.end(), k) != keys.end(), k);
    }

    // Python operators on numbers (export / Dynamo graphs' SymInt arithmetic and item()
    // results) follow Python: floor division and modulo round toward -inf, true division gives
    // a float, comparisons a bool.
    void scalarOperators_data()
    {
        QTest::addColumn<std::string>("expr");  // over a = x.item() (x = -7)
        QTest::addColumn<std::string>("expected");
        QTest::newRow("neg") << std::string("operator.neg(a)") << std::string("7");
        QTest::newRow("floordiv") << std::string("operator.floordiv(a, 3)") << std::string("-3");
        QTest::newRow("mod") << std::string("operator.mod(a, 3)") << std::string("2");
        QTest::newRow("truediv") << std::string("operator.truediv(a, 3)") << std::string("-2.33333");
        QTest::newRow("pow") << std::string("operator.pow(operator.neg(a), 2)") << std::string("49");
        QTest::newRow("lt") << std::string("operator.lt(a, 3)") << std::string("true");
        QTest::newRow("sym_max") << std::string("torch.sym_max(a, 3)") << std::string("3");
        QTest::newRow("ceil") << std::string("math.ceil(operator.truediv(a, 3))") << std::string("-2");
    }
    void scalarOperators()
    {
        QFETCH(std::string, expr);
        QFETCH(std::string, expected);
        // nested calls are written as two nodes
        std::string body;
        std::string last = expr;
        if (expr.rfind("math.ceil(", 0) == 0) {
            body = "        t = operator.truediv(a, 3)\n";
            last = "math.ceil(t)";
        }
        if (expr.rfind("operator.pow(", 0) == 0) {
            body = "        t = operator.neg(a)\n";
            last = "operator.pow(t, 2)";
        }
        const Graph g = parseFxText("class GraphModule(torch.nn.Module):\n"
                                    "    def forward(self, x: \"i64[]\"):\n"
                                    "        a: \"Sym(u0)\" = torch.ops.aten._local_scalar_dense.default(x)\n"
                                        + body + "        r = " + last + "\n        return (r,)\n",
                                    "scalar.py");
        auto backend = makeCpuBackend();
        SafeTensorsFile in;
        SafeTensor x;
        x.name = "x";
        x.dtype = DType::I64;
        const int64_t v = -7;
        x.data.resize(8);
        std::memcpy(x.data.data(), &v, 8);
        in.tensors.push_back(x);
        ExecOptions o;
        o.backend = backend.get();
        o.inputs = &in;
        ExecResult r;
        try {
            r = executeGraph(g, o);
        } catch (const KernelError& e) {
            QFAIL(e.what());
        }
        QCOMPARE(r.outputs.size(), size_t(1));
        const Value& out = r.outputs[0];
        std::string got;
        if (out.kind == Value::Kind::Int) got = std::to_string(out.i);
        if (out.kind == Value::Kind::Bool) got = out.b ? "true" : "false";
        if (out.kind == Value::Kind::Float) got = QString::number(out.f).toStdString();
        QCOMPARE(got, expected);
    }

    // The CompositeImplicitAutograd aten ops of pre-dispatch graphs (linear, matmul) and the
    // prims of AOT graphs (convert_element_type) give bitwise what their decompositions give.
    void compositeAtenOps_data()
    {
        QTest::addColumn<std::string>("graph");
        QTest::addColumn<std::string>("twin");
        const std::string head = "class GraphModule(torch.nn.Module):\n"
                                 "    def forward(self, x: \"f32[3, 4, 8]\", w: \"f32[5, 8]\", b: \"f32[5]\"):\n";
        QTest::newRow("linear") << head + "        r = torch.ops.aten.linear.default(x, w, b)\n        return (r,)\n"
                                << head
                + "        v = torch.ops.aten.view.default(x, [12, 8])\n"
                  "        t = torch.ops.aten.t.default(w)\n"
                  "        m = torch.ops.aten.addmm.default(b, v, t)\n"
                  "        r = torch.ops.aten.view.default(m, [3, 4, 5])\n        return (r,)\n";
        QTest::newRow("matmul") << head
                + "        t = torch.ops.aten.t.default(w)\n"
                  "        r = torch.ops.aten.matmul.default(x, t)\n        return (r,)\n"
                                << head
                + "        v = torch.ops.aten.view.default(x, [12, 8])\n"
                  "        t = torch.ops.aten.t.default(w)\n"
                  "        m = torch.ops.aten.mm.default(v, t)\n"
                  "        r = torch.ops.aten.view.default(m, [3, 4, 5])\n        return (r,)\n";
        for (const char* dt : {"torch.bfloat16", "torch.float16", "torch.float64", "torch.int32", "torch.bool"})
            QTest::newRow((std::string("convert_element_type ") + dt).c_str())
                << head + "        r = torch.ops.prims.convert_element_type.default(x, " + dt
                    + ")\n        return (r,)\n"
                << head + "        r = torch.ops.aten._to_copy.default(x, dtype = " + dt + ")\n        return (r,)\n";
    }
    void compositeAtenOps()
    {
        QFETCH(std::string, graph);
        QFETCH(std::string, twin);
        const Graph g = parseFxText(graph, "g.py");
        const Graph t = parseFxText(twin, "twin.py");
        ExecOptions gen;
        gen.inputSeed = 3;
        const SafeTensorsFile in = resolveInputs(g, gen);
        auto backend = makeCpuBackend();
        try {
            verifyBitwise(run(g, in, *backend).outputs, run(t, in, *backend).outputs);
        } catch (const KernelError& e) {
            QFAIL(e.what());
        }
    }

    // (b) corpus Dynamo graphs
    void corpus_data()
    {
        QTest::addColumn<std::string>("file");
        QTest::addColumn<std::string>("expectedError");  // empty: runs
        QTest::newRow("invoke_subgraph") << std::string("pytorch_test_invoke_subgraph_dynamo_graph.txt")
                                         << std::string();
        QTest::newRow("mlp") << std::string("tlparse_v2.9dev_mlp_dynamo_output_graph.txt") << std::string();
        QTest::newRow("getattr") << std::string("tlparse_v2.4dev_getattr_dynamo_output_graph.txt")
                                 << std::string("constant 'L__self___param' is not in the constants file");
        QTest::newRow("gelu_dropout") << std::string("tlparse_v2.6dev_gelu_dropout_dynamo_output_graph.txt")
                                      << std::string("node 'out_1' (test.baz): unknown operator test.baz");
        QTest::newRow("collectives")
            << std::string("tlparse_v2.9dev_collectives_dynamo_output_graph.txt")
            << std::string("node 'all_reduce_default' (_c10d_functional.all_reduce.default): no CPU kernel for "
                           "_c10d_functional.all_reduce.default");
    }
    void corpus()
    {
        QFETCH(std::string, file);
        QFETCH(std::string, expectedError);
        const fs::path p = kCorpusFx / file;
        FXL_REQUIRE_CORPUS(p);
        auto src = openSource(p.string());
        std::shared_ptr<Graph> g = src->graph(src->artifacts.at(0).id);
        const std::string msg = failure(*g);
        qInfo("%s: %s", file.c_str(), msg.empty() ? "ran" : msg.c_str());
        if (expectedError.empty())
            QVERIFY2(msg.empty(), msg.c_str());
        else
            QVERIFY2(msg.find(expectedError) != std::string::npos, msg.c_str());
    }

    // the MLP graph gives bitwise what the same computation written in aten ops gives
    void corpusMlpMatchesAten()
    {
        const fs::path p = kCorpusFx / "tlparse_v2.9dev_mlp_dynamo_output_graph.txt";
        FXL_REQUIRE_CORPUS(p);
        auto src = openSource(p.string());
        std::shared_ptr<Graph> g = src->graph(src->artifacts.at(0).id);
        ExecOptions gen;
        gen.inputSeed = 5;
        const SafeTensorsFile in = resolveInputs(*g, gen);
        const Graph at = parseFxText(
            "class GraphModule(torch.nn.Module):\n"
            "    def forward(self, L_self_modules_fc1_parameters_weight_: \"f32[16, 10]\", "
            "L_self_modules_fc1_parameters_bias_: "
            "\"f32[16]\", L_x_: \"f32[8, 10]\", L_a_: \"f32[10, 20]\", L_c_: \"f32[10, 30]\", L_b_: \"f32[20, 30]\"):\n"
            "        wt: \"f32[10, 16]\" = torch.ops.aten.t.default(L_self_modules_fc1_parameters_weight_)\n"
            "        x: \"f32[8, 16]\" = torch.ops.aten.addmm.default(L_self_modules_fc1_parameters_bias_, L_x_, wt)\n"
            "        x_1: \"f32[8, 16]\" = torch.ops.aten.relu.default(x)\n"
            "        x_2: \"f32[8, 16]\" = torch.ops.aten.sigmoid.default(x_1)\n"
            "        d: \"f32[10, 20]\" = torch.ops.aten.mul.Scalar(L_a_, 3.14)\n"
            "        y: \"f32[10, 30]\" = torch.ops.aten.addmm.default(L_c_, d, L_b_)\n"
            "        z: \"f32[10, 30]\" = torch.ops.aten.gelu.default(y)\n"
            "        return (x_2, z)\n",
            "mlp_aten");
        auto backend = makeCpuBackend();
        verifyBitwise(run(*g, in, *backend).outputs, run(at, renamedFor(at, in), *backend).outputs);
    }

    // (c) errors name the node and the target
    void errors_data()
    {
        QTest::addColumn<std::string>("body");
        QTest::addColumn<std::string>("expected");
        QTest::newRow("unknown method")
            << std::string("        f: \"f32[4, 8]\" = L_x_.frobnicate(2)\n        return (f,)\n")
            << std::string("node 'f' (frobnicate): call_method 'frobnicate' has no lowering to aten kernels");
        QTest::newRow("unknown torch function")
            << std::string("        f: \"f32[4, 8]\" = torch.special.frob(L_x_)\n        return (f,)\n")
            << std::string("node 'f' (torch.special.frob): unknown operator torch.special.frob");
        QTest::newRow("call_module") << std::string("        f: \"f32[4, 8]\" = self.fc1(L_x_)\n        return (f,)\n")
                                     << std::string("node 'f' (fc1): call_module nodes cannot run: the module 'fc1'");
        QTest::newRow("bad keyword")
            << std::string("        f: \"f32[32]\" = L_x_.view(32, foo = 1)\n        return (f,)\n")
            << std::string("node 'f' (view): call_method 'view': unexpected keyword argument 'foo'");
        QTest::newRow("missing argument")
            << std::string("        f: \"f32[8, 4]\" = L_x_.transpose(0)\n        return (f,)\n")
            << std::string("node 'f' (transpose): call_method 'transpose': missing argument 'dim1'");
        QTest::newRow("too many positionals")
            << std::string("        f: \"f32[8, 4]\" = L_x_.t(0)\n        return (f,)\n")
            << std::string("node 'f' (t): call_method 't': 2 positional arguments");
        QTest::newRow("inplace relu") << std::string(
            "        f: \"f32[4, 8]\" = torch.nn.functional.relu(L_x_, inplace = True)\n        return (f,)\n")
                                      << std::string(
                                             "node 'f' (torch.nn.functional.relu): inplace=True is not supported");
        QTest::newRow("matmul sizes") << std::string("        f = torch.matmul(L_x_, L_x_)\n        return (f,)\n")
                                      << std::string("node 'f' (torch.matmul): ");
        QTest::newRow("softmax without dim")
            << std::string("        f: \"f32[4, 8]\" = torch.nn.functional.softmax(L_x_)\n        return (f,)\n")
            << std::string("node 'f' (torch.nn.functional.softmax): softmax without dim");
        QTest::newRow("tensor index mixed")
            << std::string("        i = L_x_ > 0\n        f = L_x_[(i, 0)]\n        return (f,)\n")
            << std::string("node 'f' (operator.getitem): getitem: a tensor index together with other indices");
    }
    void errors()
    {
        QFETCH(std::string, body);
        QFETCH(std::string, expected);
        const Graph g = parseFxText(dynamoGraph(body), "errors");
        const std::string msg = failure(g);
        QVERIFY2(msg.rfind(expected, 0) == 0, msg.c_str());
    }
};

FXL_TEST_APPLESS_MAIN(TestTorchLevel)
}  // namespace test_torch_level
#include "test_torch_level.moc"
