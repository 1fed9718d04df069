// The default thread count (runtime/cpu/thread_choice.hpp): one thread for graphs of small
// kernels (every traced model of the corpus, the 100k-node graph included, where a second
// thread only adds hand-offs), the backend's count when large kernels carry the work. The
// timings behind the rule are in tests/bench/RESULTS.md ("The default thread count").
#include <QtTest>

#include <string>

#include "core/formats/fx/fx_text_parser.hpp"
#include "core/formats/source.hpp"
#include "runtime/cpu/thread_choice.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_thread_choice {

using namespace fxl;

namespace {

Graph parse(const std::string& body, const std::string& inputs)
{
    return parseFxText("class GraphModule(torch.nn.Module):\n    def forward(self, " + inputs + "):\n" + body,
                       "threads.py");
}

}  // namespace

class TestThreadChoice : public QObject
{
    Q_OBJECT

private slots:
    void corpusModelsRunOnOneThread_data()
    {
        QTest::addColumn<QString>("path");
        for (const auto& p : fxltest::corpusFiles("pytorch", {".joint.code.py"}))
            QTest::newRow(fxltest::corpusRowName(p).c_str()) << QString::fromStdString(p.string());
        for (const auto& p : fxltest::corpusFiles("pytorch/large", {".joint.code.py"}))
            QTest::newRow(fxltest::corpusRowName(p).c_str()) << QString::fromStdString(p.string());
    }

    void corpusModelsRunOnOneThread()
    {
        QFETCH(QString, path);
        FXL_REQUIRE_CORPUS(path);
        auto src = openSource(path.toStdString());
        const auto g = src->graph(src->graphs().front()->id);
        const ThreadChoice c = chooseThreads(*g, 2);
        QCOMPARE(c.threads, 1);
        QVERIFY(c.work > 0);
        QCOMPARE(c.largeNodes, size_t(0));
        QVERIFY2(c.reason.find("0 of ") == 0, c.reason.c_str());
        QCOMPARE(chooseThreads(*g, 1).threads, 1);
    }

    void largeKernelsSplit_data()
    {
        QTest::addColumn<QString>("inputs");
        QTest::addColumn<QString>("body");
        QTest::addColumn<int>("threads");
        QTest::addColumn<int>("large");
        const char* mm512 = "a: \"f32[512, 512]\", b: \"f32[512, 512]\"";
        // two 512^3 products: 268 MFLOP each
        QTest::newRow("512 cube matmuls") << mm512
                                          << "        mm: \"f32[512, 512]\" = torch.ops.aten.mm.default(a, b)\n"
                                             "        relu: \"f32[512, 512]\" = torch.ops.aten.relu.default(mm)\n"
                                             "        mm_1: \"f32[512, 512]\" = torch.ops.aten.mm.default(relu, b)\n"
                                             "        return (mm_1,)\n"
                                          << 2 << 2;
        // 128x256x256: 16.8 MFLOP, below the threshold
        QTest::newRow("mid matmuls") << "a: \"f32[128, 256]\", b: \"f32[256, 256]\""
                                     << "        mm: \"f32[128, 256]\" = torch.ops.aten.mm.default(a, b)\n"
                                        "        return (mm,)\n"
                                     << 1 << 0;
        // addmm reads K from its second argument
        QTest::newRow("addmm") << "c: \"f32[512]\", a: \"f32[512, 512]\", b: \"f32[512, 512]\""
                               << "        addmm: \"f32[512, 512]\" = torch.ops.aten.addmm.default(c, a, b)\n"
                                  "        return (addmm,)\n"
                               << 2 << 1;
        // 2M elements of pointwise work
        QTest::newRow("large pointwise") << "a: \"f32[2048, 1024]\""
                                         << "        exp: \"f32[2048, 1024]\" = torch.ops.aten.exp.default(a)\n"
                                            "        return (exp,)\n"
                                         << 2 << 1;
        // a view of a large tensor allocates and computes nothing
        QTest::newRow("large view")
            << "a: \"f32[2048, 1024]\""
            << "        view: \"f32[1024, 2048]\" = torch.ops.aten.view.default(a, [1024, 2048])\n"
               "        return (view,)\n"
            << 1 << 0;
    }

    void largeKernelsSplit()
    {
        QFETCH(QString, inputs);
        QFETCH(QString, body);
        QFETCH(int, threads);
        QFETCH(int, large);
        const Graph g = parse(body.toStdString(), inputs.toStdString());
        const ThreadChoice c = chooseThreads(g, 2);
        QCOMPARE(c.threads, threads);
        QCOMPARE(c.largeNodes, size_t(large));
        QCOMPARE(chooseThreads(g, 1).threads, 1);  // never more than allowed
        if (threads > 1) QCOMPARE(chooseThreads(g, 4).threads, 4);
    }

    // Large kernels that carry under a quarter of the work do not split the run.
    void largeShareDecides()
    {
        std::string body = "        mm: \"f32[256, 1024]\" = torch.ops.aten.mm.default(a, b)\n";  // 2^27 flops
        // 1000 small 64^3 matmuls, 2*64*64*64 = 524288 flops each: 5.2e8 in all, against 1.3e8
        for (int k = 0; k < 1000; ++k) {
            const std::string name = "s" + std::to_string(k);
            body += "        " + name + ": \"f32[64, 64]\" = torch.ops.aten.mm.default(c, d)\n";
        }
        body += "        return (mm,)\n";
        const Graph g =
            parse(body, "a: \"f32[256, 256]\", b: \"f32[256, 1024]\", c: \"f32[64, 64]\", d: \"f32[64, 64]\"");
        const ThreadChoice c = chooseThreads(g, 2);
        QCOMPARE(c.largeNodes, size_t(1));
        QVERIFY2(4 * c.largeWork < c.work, c.reason.c_str());
        QCOMPARE(c.threads, 1);
    }
};

FXL_TEST_APPLESS_MAIN(TestThreadChoice)
}  // namespace test_thread_choice
#include "test_thread_choice.moc"
