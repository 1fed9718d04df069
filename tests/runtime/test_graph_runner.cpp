// GraphRunner (runtime/exec/executor.hpp): a graph planned once and run many times gives, on
// every run, exactly what executeGraph gives (outputs bit for bit, the written inputs, the
// live bytes of every step and the peak), while its runs after the first give the
// metadata-only views from the layouts the first run learnt; an input of another layout, or a
// view whose kernel copies, still runs the kernel.
#include <QtTest>

#include <filesystem>

#include "core/formats/fx/fx_text_parser.hpp"
#include "core/formats/safetensors.hpp"
#include "core/formats/source.hpp"
#include "runtime/base/kernel.hpp"
#include "runtime/cpu/cpu_backend.hpp"
#include "runtime/exec/executor.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_graph_runner {

using namespace fxl;
namespace fs = std::filesystem;

namespace {

struct Case
{
    std::shared_ptr<Graph> graph;
    SafeTensorsFile inputs, constants;
};

Case load(const fs::path& stem)
{
    auto src = openSource(stem.string() + ".joint.code.py");
    Case c;
    c.graph = src->graph(src->artifacts.at(0).id);
    c.inputs = readSafetensors(stem.string() + ".inputs.safetensors");
    if (fs::exists(stem.string() + ".joint.constants.safetensors"))
        c.constants = readSafetensors(stem.string() + ".joint.constants.safetensors");
    return c;
}

std::vector<std::vector<uint8_t>> bytesOf(const std::vector<Value>& values, Backend& b)
{
    std::vector<std::vector<uint8_t>> out;
    for (const Value& v : values) {
        std::vector<uint8_t> bytes;
        if (v.isTensor()) {
            bytes.resize(static_cast<size_t>(v.tensor.nbytes()));
            b.download(bytes.data(), v.tensor, v.tensor.nbytes());
        }
        out.push_back(std::move(bytes));
    }
    return out;
}

// What a run must repeat exactly.
struct Observed
{
    std::vector<std::vector<uint8_t>> outputs;
    std::vector<std::vector<int64_t>> outputSizes, outputStrides;
    int64_t peak = 0;
    std::string peakNode;
    std::vector<int64_t> perStep;
    std::vector<std::string> written;  // name: writers
    std::vector<std::vector<uint8_t>> writtenValues;
};

Observed observe(const ExecResult& r, Backend& b)
{
    Observed o;
    o.outputs = bytesOf(r.outputs, b);
    for (const Value& v : r.outputs) {
        o.outputSizes.push_back(v.isTensor() ? v.tensor.sizes() : std::vector<int64_t>{});
        o.outputStrides.push_back(v.isTensor() ? v.tensor.strides() : std::vector<int64_t>{});
    }
    o.peak = r.peakBytes;
    o.peakNode = r.peakNode;
    o.perStep = r.liveBytesPerStep;
    std::vector<Value> values;
    for (const WrittenInput& w : r.writtenInputs) {
        std::string line = w.name + ":";
        for (const auto& n : w.writers) line += " " + n;
        o.written.push_back(line);
        values.push_back(w.value);
    }
    o.writtenValues = bytesOf(values, b);
    return o;
}

void compare(const Observed& want, const Observed& got, const char* what)
{
    QVERIFY2(got.outputs.size() == want.outputs.size(), what);
    for (size_t k = 0; k < want.outputs.size(); ++k) {
        QVERIFY2(got.outputs[k] == want.outputs[k],
                 qPrintable(QStringLiteral("%1: out_%2 bytes differ").arg(what).arg(k)));
        QVERIFY2(got.outputSizes[k] == want.outputSizes[k] && got.outputStrides[k] == want.outputStrides[k],
                 qPrintable(QStringLiteral("%1: out_%2 layout differs").arg(what).arg(k)));
    }
    QCOMPARE(got.peak, want.peak);
    QCOMPARE(got.peakNode, want.peakNode);
    QVERIFY2(got.perStep == want.perStep, what);
    QVERIFY2(got.written == want.written, what);
    QVERIFY2(got.writtenValues == want.writtenValues, what);
}

// t, a transpose back, a view and a product: every view's input is a placeholder or a view.
const char* const kViews = "class G(torch.nn.Module):\n"
                           "    def forward(self, x: \"f32[4, 6][6, 1]cpu\", w: \"f32[6, 3][3, 1]cpu\"):\n"
                           "        t = torch.ops.aten.t.default(x)\n"
                           "        transpose = torch.ops.aten.transpose.int(t, 0, 1)\n"
                           "        view = torch.ops.aten.view.default(transpose, [2, 2, 6])\n"
                           "        view_1 = torch.ops.aten.view.default(view, [4, 6])\n"
                           "        mm = torch.ops.aten.mm.default(view_1, w)\n"
                           "        split = torch.ops.aten.split.Tensor(mm, 2)\n"
                           "        getitem = split[0]\n"
                           "        getitem_1 = split[1]\n"
                           "        add = torch.ops.aten.add.Tensor(getitem, getitem_1)\n"
                           "        return (add, t, split)\n";

SafeTensor f32(const std::string& name, std::vector<int64_t> shape)
{
    SafeTensor t;
    t.name = name;
    t.dtype = DType::F32;
    t.shape = shape;
    int64_t n = 1;
    for (int64_t s : shape) n *= s;
    std::vector<float> v(static_cast<size_t>(n));
    for (size_t k = 0; k < v.size(); ++k) v[k] = 0.25f * static_cast<float>(k % 13) - 1.0f;
    t.data.resize(v.size() * 4);
    std::memcpy(t.data.data(), v.data(), t.data.size());
    return t;
}

}  // namespace

class TestGraphRunner : public QObject
{
    Q_OBJECT

private slots:
    // Real graphs: the committed PyTorch 1.13 models (BatchNorm's written running stats among
    // them) and the corpus' train steps.
    void runsRepeatExecuteGraph_data()
    {
        QTest::addColumn<QString>("stem");
        QTest::addColumn<bool>("corpus");
        for (const char* m :
             {"bn_convnet", "gn_resnet", "gru_steps", "lstm_lm", "moe_bag", "t5_bias", "unet", "vit_cls"})
            QTest::newRow(qPrintable(QStringLiteral("models/%1").arg(QLatin1String(m))))
                << QString::fromStdString(fxltest::testDataPath(std::string("models/") + m).string()) << false;
        for (const char* c : {"gpt2_tiny", "llama_tiny", "moe_dispatch", "checkpoint_mlp", "linear_ce"})
            QTest::newRow(c) << QString::fromStdString(fxltest::corpusPath(std::string("pytorch/") + c).string())
                             << true;
    }
    void runsRepeatExecuteGraph()
    {
        QFETCH(QString, stem);
        QFETCH(bool, corpus);
        if (corpus) FXL_REQUIRE_CORPUS(stem.toStdString() + ".joint.code.py");
        const Case c = load(stem.toStdString());
        auto backend = makeCpuBackend(CpuBackendOptions{2});
        ExecOptions opts;
        opts.backend = backend.get();
        opts.inputs = &c.inputs;
        opts.constants = &c.constants;
        opts.requireAllInputs = true;
        const ExecResult once = executeGraph(*c.graph, opts);
        QCOMPARE(once.viewsFromPlan, int64_t(0));
        const Observed want = observe(once, *backend);

        GraphRunner runner(*c.graph, *backend);
        int64_t views = -1;
        for (int run = 0; run < 3; ++run) {
            const ExecResult r = runner.run(opts);
            compare(want, observe(r, *backend), qPrintable(QStringLiteral("run %1").arg(run)));
            if (QTest::currentTestFailed()) return;
            if (run == 0) QCOMPARE(r.viewsFromPlan, int64_t(0));  // the first run learns
            if (run == 1) views = r.viewsFromPlan;
            if (run == 2) QCOMPARE(r.viewsFromPlan, views);
        }
        // every such graph has views (t, view, expand, ...): the later runs must have used the plan
        QVERIFY2(views > 0, "no view was given from the plan");
        // without the per-step clock: the same run, no slowest nodes
        ExecOptions quiet = opts;
        quiet.timeSteps = false;
        const ExecResult q = runner.run(quiet);
        compare(want, observe(q, *backend), "timeSteps off");
        QVERIFY(q.slowest.empty());
        QVERIFY(!once.slowest.empty());
    }

    // The learnt layouts are used only for the input layout they were learnt on: a later run
    // whose input is a transposed (non-contiguous) tensor runs the kernels and gives what
    // executeGraph gives for that input.
    void otherInputLayoutRunsTheKernels()
    {
        Graph g = parseFxText(kViews, "<test>");
        g.rebuildUsers();
        SafeTensorsFile in;
        in.tensors = {f32("x", {4, 6}), f32("w", {6, 3})};
        auto backend = makeCpuBackend(CpuBackendOptions{1});
        ExecOptions opts;
        opts.backend = backend.get();
        opts.inputs = &in;
        opts.requireAllInputs = true;
        GraphRunner runner(g, *backend);
        runner.run(opts);
        const ExecResult second = runner.run(opts);
        // t, transpose, view, view_1, split: all five from the plan
        QCOMPARE(second.viewsFromPlan, int64_t(5));
        compare(observe(executeGraph(g, opts), *backend), observe(second, *backend), "same inputs");

        // x as the transpose of a [6, 4] tensor: same sizes, strides [1, 4]
        Tensor base = backend->empty({6, 4}, DType::F32);
        const SafeTensor xs = f32("x", {6, 4});
        backend->upload(base, xs.data.data(), static_cast<int64_t>(xs.data.size()));
        Tensor w = backend->empty({6, 3}, DType::F32);
        const SafeTensor ws = f32("w", {6, 3});
        backend->upload(w, ws.data.data(), static_cast<int64_t>(ws.data.size()));
        std::vector<Value> values{Value::ofTensor(base.asStrided({4, 6}, {1, 4}, 0)), Value::ofTensor(w)};
        ExecOptions other;
        other.backend = backend.get();
        other.inputValues = &values;
        const ExecResult viaRunner = runner.run(other);
        // t of a transposed x has another input layout: its kernel runs, and so do the views
        // after it; split's input (mm's new tensor) has the layout it had: from the plan
        QCOMPARE(viaRunner.viewsFromPlan, int64_t(1));
        compare(observe(executeGraph(g, other), *backend), observe(viaRunner, *backend), "transposed input");
        // and the contiguous input again uses the plan
        QCOMPARE(runner.run(opts).viewsFromPlan, int64_t(5));
    }

    void otherBackendRefused()
    {
        Graph g = parseFxText(kViews, "<test>");
        g.rebuildUsers();
        auto a = makeCpuBackend(CpuBackendOptions{1});
        auto b = makeCpuBackend(CpuBackendOptions{1});
        GraphRunner runner(g, *a);
        ExecOptions opts;
        opts.backend = b.get();
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, runner.run(opts));
    }

    // A node that cannot run fails when the runner is made, before any input is read.
    void unrunnableNodeFailsAtPlanning()
    {
        Graph g = parseFxText("class G(torch.nn.Module):\n"
                              "    def forward(self, x: \"f32[4][1]cpu\"):\n"
                              "        y = torch.ops.aten.no_such_op.default(x)\n"
                              "        return (y,)\n",
                              "<test>");
        g.rebuildUsers();
        auto backend = makeCpuBackend(CpuBackendOptions{1});
        try {
            GraphRunner runner(g, *backend);
            QFAIL("no error");
        } catch (const KernelError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains("no_such_op"), e.what());
        }
    }
};

FXL_TEST_APPLESS_MAIN(TestGraphRunner)
}  // namespace test_graph_runner
#include "test_graph_runner.moc"
