// The executor's controls: progress callbacks, cancellation between nodes, seeded generated
// inputs, and the errors a bad inputs or constants file gets (at its placeholder, naming it).
#include <QtTest>

#include <atomic>
#include <cstring>

#include "core/formats/fx/fx_text_parser.hpp"
#include "runtime/backends.hpp"
#include "runtime/base/kernel.hpp"
#include "runtime/cpu/cpu_backend.hpp"
#include "runtime/exec/executor.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_executor_control {

using namespace fxl;

namespace {

// x @ w, a GELU and a sum: 6 nodes (2 placeholders, 3 calls, output).
const char* const kText = "class G(torch.nn.Module):\n"
                          "    def forward(self, x: \"f32[8, 16][16, 1]cpu\", w: \"f32[16, 4][4, 1]cpu\"):\n"
                          "        mm = torch.ops.aten.mm.default(x, w)\n"
                          "        gelu = torch.ops.aten.gelu.default(mm)\n"
                          "        sum_1 = torch.ops.aten.sum.default(gelu)\n"
                          "        return (gelu, sum_1)\n";

Graph graph()
{
    Graph g = parseFxText(kText, "<test>");
    g.rebuildUsers();
    return g;
}

SafeTensor f32Tensor(const std::string& name, std::vector<int64_t> shape, float start)
{
    SafeTensor t;
    t.name = name;
    t.dtype = DType::F32;
    t.shape = shape;
    int64_t n = 1;
    for (int64_t s : shape) n *= s;
    std::vector<float> v(static_cast<size_t>(n));
    for (size_t k = 0; k < v.size(); ++k) v[k] = start + 0.01f * static_cast<float>(k % 97);
    t.data.resize(v.size() * 4);
    std::memcpy(t.data.data(), v.data(), t.data.size());
    return t;
}

std::vector<uint8_t> bytesOf(const ExecResult& r, Backend& b, size_t item)
{
    const Tensor& t = r.outputs.at(item).tensor;
    std::vector<uint8_t> out(static_cast<size_t>(t.nbytes()));
    b.download(out.data(), t, t.nbytes());
    return out;
}

}  // namespace

class TestExecutorControl : public QObject
{
    Q_OBJECT

private slots:
    void progressOncePerNodeInOrder()
    {
        Graph g = graph();
        std::vector<std::string> seen;
        std::vector<size_t> done;
        ExecOptions o;
        o.progress = [&](size_t d, size_t total, const Node& n) {
            QCOMPARE(total, g.size());
            done.push_back(d);
            seen.push_back(n.name);
        };
        ExecResult r = executeGraph(g, o);
        QVERIFY(!r.cancelled);
        QCOMPARE(seen.size(), g.size());
        for (size_t k = 0; k < g.order().size(); ++k) {
            QCOMPARE(done[k], k + 1);
            QCOMPARE(seen[k], g.node(g.order()[k]).name);
        }
        QCOMPARE(r.outputs.size(), size_t(2));
    }

    // Cancelling from the progress callback stops before the next node.
    void cancelStopsBetweenNodes_data()
    {
        QTest::addColumn<int>("after");
        for (int k : {0, 1, 3, 4}) QTest::newRow(qPrintable(QString("after %1 nodes").arg(k))) << k;
    }
    void cancelStopsBetweenNodes()
    {
        QFETCH(int, after);
        Graph g = graph();
        std::atomic<bool> cancel{after == 0};
        size_t calls = 0;
        ExecOptions o;
        o.cancel = &cancel;
        o.progress = [&](size_t d, size_t, const Node&) {
            ++calls;
            if (static_cast<int>(d) == after) cancel = true;
        };
        ExecResult r = executeGraph(g, o);
        QVERIFY(r.cancelled);
        QCOMPARE(calls, static_cast<size_t>(after));
        QVERIFY(r.outputs.empty());
    }

    // Generated inputs depend on the seed only; resolveInputs gives exactly what a run uses.
    void seededInputs()
    {
        Graph g = graph();
        auto be = makeCpuBackend(CpuBackendOptions{1});
        auto run = [&](uint64_t seed) {
            ExecOptions o;
            o.backend = be.get();
            o.inputSeed = seed;
            ExecResult r = executeGraph(g, o);
            return bytesOf(r, *be, 0);
        };
        QCOMPARE(run(7), run(7));
        QVERIFY(run(7) != run(8));

        ExecOptions o;
        o.backend = be.get();
        o.inputSeed = 7;
        std::vector<std::string> generated;
        SafeTensorsFile resolved = resolveInputs(g, o, &generated);
        QCOMPARE(generated, (std::vector<std::string>{"x", "w"}));
        QVERIFY(resolved.find("x") && resolved.find("w"));
        ExecOptions fromFile;
        fromFile.backend = be.get();
        fromFile.inputs = &resolved;
        fromFile.requireAllInputs = true;
        ExecResult r = executeGraph(g, fromFile);
        QCOMPARE(bytesOf(r, *be, 0), run(7));
    }

    // Inputs from a file: used as given; a missing, mistyped or misshapen one is an error
    // that names the placeholder.
    void inputErrors_data()
    {
        QTest::addColumn<QString>("what");
        QTest::addColumn<QString>("message");
        QTest::newRow("missing") << "missing"
                                 << "input 'w' is missing";
        QTest::newRow("dtype") << "dtype"
                               << "input 'w'";
        QTest::newRow("shape") << "shape"
                               << "input 'w'";
    }
    void inputErrors()
    {
        QFETCH(QString, what);
        QFETCH(QString, message);
        Graph g = graph();
        SafeTensorsFile in;
        in.tensors.push_back(f32Tensor("x", {8, 16}, -0.5f));
        if (what == "dtype") {
            SafeTensor w = f32Tensor("w", {16, 4}, 0.1f);
            w.dtype = DType::I32;
            in.tensors.push_back(w);
        } else if (what == "shape") {
            in.tensors.push_back(f32Tensor("w", {4, 16}, 0.1f));
        }
        ExecOptions o;
        o.inputs = &in;
        o.requireAllInputs = true;
        try {
            executeGraph(g, o);
            QFAIL("no error");
        } catch (const KernelError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(message), e.what());
        }
        // without requireAllInputs a missing input is generated and the run succeeds
        if (what == "missing") {
            o.requireAllInputs = false;
            ExecResult r = executeGraph(g, o);
            QCOMPARE(r.outputs.size(), size_t(2));
        }
    }

    // Where there is no CUDA device, asking for the backend says why instead of failing later;
    // so does a driver that reports devices the CUDA runtime cannot use (the stand-in driver of
    // test_cli_devices: the runtime loads the real libcuda.so.1, absent here).
    void cudaBackendSaysWhy()
    {
        if (!cuda::probeCudaDriver().devices.empty()) QSKIP("this machine has a CUDA device");
        std::string why;
        auto b = makeCudaBackend(0, &why);
        QVERIFY(!b);
        QVERIFY2(why.find("CUDA") != std::string::npos, why.c_str());
        QVERIFY(!whyNoCudaGraphs().empty());
        const QByteArray fake =
            QByteArray::fromStdString((fxltest::buildDir() / "tests" / "libfake_cuda_driver.so").string());
        if (!QFile::exists(QString::fromUtf8(fake))) QSKIP("the stand-in driver is built with the app tests");
        qputenv("FXLENS_CUDA_DRIVER", fake);
        why.clear();
        b = makeCudaBackend(1, &why);
        QVERIFY(!b);
#if defined(FXLENS_HAVE_CUDA)
        // devices found (the stand-in driver's): graphs can run there, so no reason is given;
        // the CUDA runtime itself then finds no device, and says so
        QCOMPARE(QString::fromStdString(whyNoCudaGraphs()), QString());
        qunsetenv("FXLENS_CUDA_DRIVER");
        QVERIFY(!b);
        QVERIFY2(why.starts_with("the CUDA runtime found no device: "), why.c_str());
#else
        qunsetenv("FXLENS_CUDA_DRIVER");
        QVERIFY2(why.find("built without CUDA") != std::string::npos, why.c_str());
#endif
    }

    void missingConstant()
    {
        Graph g = parseFxText("class G(torch.nn.Module):\n"
                              "    def forward(self, x: \"f32[4][1]cpu\"):\n"
                              "        _tensor_constant0 = self._tensor_constant0\n"
                              "        add = torch.ops.aten.add.Tensor(x, _tensor_constant0)\n"
                              "        return (add,)\n",
                              "<test>");
        g.rebuildUsers();
        try {
            executeGraph(g, ExecOptions{});
            QFAIL("no error");
        } catch (const KernelError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains("_tensor_constant0"), e.what());
        }
    }
};

FXL_TEST_APPLESS_MAIN(TestExecutorControl)
}  // namespace test_executor_control
#include "test_executor_control.moc"
