// chunk_region on the corpus, run (issue 13): each chunked training step is executed on the
// corpus inputs and compared with the unchunked graph, output by output. An output that does
// not depend on a partial sum (the loss, the embedding gradients computed from concatenated
// activation gradients, tokens_per_expert's integer sum) must be bitwise equal; an output
// downstream of a partial sum (the parameter gradients of the chunked blocks) differs only by
// the reduction order: within a few ULP, the max printed per output. 1 and 2 threads give the
// same bits.
#include <QtTest>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <set>

#include "core/formats/fx/fx_text_parser.hpp"
#include "core/formats/safetensors.hpp"
#include "core/formats/source.hpp"
#include "passes/pass.hpp"
#include "runtime/check/equivalence.hpp"
#include "runtime/exec/executor.hpp"
#include "runtime/graph_test_util.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_chunk_region_numerics {

using namespace fxl;
namespace fs = std::filesystem;

namespace {
const fs::path kPytorch = fxltest::corpusPath("pytorch");

// The largest error allowed for an output that sums per-chunk partial gradients, in ULPs of the
// output's largest magnitude (element-wise ULPs are meaningless where sums cancel to near 0).
constexpr double kMaxScaledUlp = 8.0;

// max |a - b| over the elements, in ULPs of max |b|.
double scaledUlp(const SafeTensor& a, const SafeTensor& b)
{
    const size_t n = b.data.size() / 4;
    float big = 0;
    double worst = 0;
    for (size_t i = 0; i < n; ++i) {
        float y;
        std::memcpy(&y, b.data.data() + 4 * i, 4);
        big = std::max(big, std::fabs(y));
    }
    const double ulp = static_cast<double>(std::nextafter(big, INFINITY) - big);
    for (size_t i = 0; i < n; ++i) {
        float x, y;
        std::memcpy(&x, a.data.data() + 4 * i, 4);
        std::memcpy(&y, b.data.data() + 4 * i, 4);
        worst = std::max(worst, std::fabs(static_cast<double>(x) - static_cast<double>(y)) / ulp);
    }
    return worst;
}

using Item = std::optional<SafeTensor>;

std::vector<Item> run(const Graph& g, const SafeTensorsFile& inputs, const SafeTensorsFile& constants, int threads)
{
    return graphtest::outputItems(g, inputs, constants, threads);
}

// For each output item: whether its value depends on a partial sum of the chunks.
std::vector<bool> downstreamOfSum(const Graph& g)
{
    std::vector<char> mark(0);
    NodeId maxId = 0;
    for (NodeId id : g.order()) maxId = std::max(maxId, id);
    mark.assign(static_cast<size_t>(maxId + 1), 0);
    for (NodeId id : g.order()) {
        const Node& n = g.node(id);
        bool m = n.meta.chunk.is_object() && n.meta.chunk.value("combine", std::string()) == "sum";
        for (const auto& a : n.args) a.forEachNode([&](NodeId x) { m = m || mark[static_cast<size_t>(x)]; });
        for (const auto& kv : n.kwargs) kv.second.forEachNode([&](NodeId x) { m = m || mark[static_cast<size_t>(x)]; });
        mark[static_cast<size_t>(id)] = m;
    }
    std::vector<bool> out;
    const Node& o = g.node(g.outputNode());
    const std::vector<Arg>* items = &o.args;
    if (o.args.size() == 1 && o.args[0].isSequence()) items = &o.args[0].items;
    for (const Arg& a : *items) out.push_back(a.isNode() && mark[static_cast<size_t>(a.node)]);
    return out;
}
}  // namespace

// A deterministic f32 input (values in [-1, 1) from a small LCG).
SafeTensor input(const std::string& name, std::vector<int64_t> shape, uint32_t seed)
{
    SafeTensor t;
    t.name = name;
    t.shape = std::move(shape);
    int64_t n = 1;
    for (auto d : t.shape) n *= d;
    t.data.resize(static_cast<size_t>(n) * 4);
    uint32_t x = seed * 2654435761u + 1;
    for (int64_t i = 0; i < n; ++i) {
        x = x * 1664525u + 1013904223u;
        const float v = static_cast<float>(x >> 8) / static_cast<float>(1u << 24) * 2.0f - 1.0f;
        std::memcpy(t.data.data() + 4 * i, &v, 4);
    }
    return t;
}

class TestChunkRegionNumerics : public QObject
{
    Q_OBJECT

private slots:
    // The hand-written scenarios of tests/passes/test_chunk_region.cpp, static, run: E1 (forward
    // linear), E3 (backward: activation gradient concatenated, weight gradient summed), E5 (a
    // buffer updated chunk after chunk), with 5 rows in 2 and 3 uneven chunks.
    void scenarios_data()
    {
        QTest::addColumn<std::string>("sig");
        QTest::addColumn<std::string>("body");  // lines separated by "; "
        QTest::addColumn<std::string>("meta");  // name:path name@phase
        QTest::addColumn<int>("chunks");
        QTest::addColumn<QString>("summed");  // output items expected to differ by reduction order only
        const std::string e1 = "mm: \"f32[5, 3]\" = torch.ops.aten.mm.default(x, w); relu: \"f32[5, 3]\" = "
                               "torch.ops.aten.relu.default(mm); return (relu,)";
        const std::string e3 = "grad_act: \"f32[5, 3]\" = torch.ops.aten.mm.default(grad_out, w); t: \"f32[3, 5]\" = "
                               "torch.ops.aten.t.default(x); grad_w: \"f32[3, 3]\" = torch.ops.aten.mm.default(t, "
                               "grad_out); return (grad_act, grad_w)";
        const std::string e5 = "relu: \"f32[5, 3]\" = torch.ops.aten.relu.default(x); count: \"f32[3]\" = "
                               "torch.ops.aten.sum.dim_IntList(x, [0]); add_: \"f32[3]\" = "
                               "torch.ops.aten.add_.Tensor(buf, count); return (relu, add_)";
        for (int k : {2, 3}) {
            const std::string c = " chunks " + std::to_string(k);
            QTest::newRow(("E1" + c).c_str()) << std::string("w: \"f32[3, 3]\", x: \"f32[5, 3]\"") << e1
                                              << std::string("mm:layers.0 relu:layers.0") << k << "";
            QTest::newRow(("E3" + c).c_str())
                << std::string("w: \"f32[3, 3]\", x: \"f32[5, 3]\", grad_out: \"f32[5, 3]\"") << e3
                << std::string("grad_act:layers.0 t:layers.0 grad_w:layers.0 grad_act@backward t@backward "
                               "grad_w@backward")
                << k << "1";
            QTest::newRow(("E5" + c).c_str()) << std::string("buf: \"f32[3]\", x: \"f32[5, 3]\"") << e5
                                              << std::string("relu:layers.0 count:layers.0 add_:layers.0") << k << "1";
        }
    }
    void scenarios()
    {
        QFETCH(std::string, sig);
        QFETCH(std::string, body);
        QFETCH(std::string, meta);
        QFETCH(int, chunks);
        QFETCH(QString, summed);
        std::string text = "class G(torch.nn.Module):\n    def forward(self, " + sig + "):\n";
        for (const QString& l : QString::fromStdString(body).split("; ")) text += "        " + l.toStdString() + "\n";
        Graph g = parseFxText(text, "<test>");
        g.forEachNodeMut([](Node& n) {
            if (n.op == NodeOp::CallFunction) n.meta.phase = Phase::Forward;
        });
        for (const QString& t : QString::fromStdString(meta).split(' ')) {
            const bool ph = t.contains('@');
            Node& n = g.node(g.findByName(t.section(ph ? '@' : ':', 0, 0).toStdString()));
            if (ph)
                n.meta.phase = Phase::Backward;
            else
                n.meta.modulePath = t.section(':', 1).toStdString();
        }
        g.rebuildUsers();
        const std::string inputs = sig.find("grad_out") != std::string::npos ? "x;grad_out" : "x";
        PipelineRun pr = runPipeline(
            g, "chunk_region(regions=layers.*,inputs=" + inputs + ",chunks=" + std::to_string(chunks) + ")");
        QVERIFY2(pr.ok, pr.error.c_str());
        const Graph& chunked = pr.steps.back().graph();
        SafeTensorsFile in, none;
        uint32_t seed = 1;
        g.forEachNode([&](const Node& n) {
            if (n.op != NodeOp::Placeholder) return;
            std::vector<int64_t> shape;
            for (const auto& d : n.val.tensor.sizes) shape.push_back(*d.maybeValue());
            in.tensors.push_back(input(n.name, shape, seed++));
        });
        const std::vector<Item> want = run(g, in, none, 1);
        const std::vector<Item> got = run(chunked, in, none, 1);
        QCOMPARE(got.size(), want.size());
        for (size_t k = 0; k < want.size(); ++k) {
            const TensorDiff d = compareTensors("out", *got[k], *want[k]);
            const bool reduced = summed.contains(QString::number(k));
            const double scaled = d.bitwiseEqual ? 0.0 : scaledUlp(*got[k], *want[k]);
            qInfo("%s output %zu: %s, %.2f ULP of the largest element", QTest::currentDataTag(), k,
                  d.bitwiseEqual ? "bitwise" : "differs", scaled);
            if (reduced)
                QVERIFY(scaled <= kMaxScaledUlp);
            else
                QVERIFY2(d.bitwiseEqual, qPrintable(QStringLiteral("output %1 not bitwise").arg(k)));
        }
    }

    void corpus_data()
    {
        QTest::addColumn<std::string>("name");
        QTest::addColumn<std::string>("spec");
        QTest::newRow("gpt2_tiny blocks batch 2")
            << std::string("gpt2_tiny") << std::string("chunk_region(regions=blocks.*,dim=batch)");
        QTest::newRow("gpt2_tiny blocks batch 4")
            << std::string("gpt2_tiny") << std::string("chunk_region(regions=blocks.*,dim=batch,chunks=4)");
        QTest::newRow("gpt2_tiny blocks batch 3 (uneven)")
            << std::string("gpt2_tiny") << std::string("chunk_region(regions=blocks.*,dim=batch,chunks=3)");
        QTest::newRow("gpt2_tiny mlp seq")
            << std::string("gpt2_tiny") << std::string("chunk_region(regions=blocks.*.mlp,dim=seq)");
        QTest::newRow("llama_tiny layers batch")
            << std::string("llama_tiny") << std::string("chunk_region(regions=layers.*,dim=batch)");
        QTest::newRow("llama_tiny feed_forward seq")
            << std::string("llama_tiny") << std::string("chunk_region(regions=layers.*.feed_forward,dim=seq)");
        QTest::newRow("moe_tiny moe batch")
            << std::string("moe_tiny") << std::string("chunk_region(regions=moe,dim=batch)");
    }
    void corpus()
    {
        QFETCH(std::string, name);
        QFETCH(std::string, spec);
        const std::string stem = (kPytorch / name).string();
        FXL_REQUIRE_CORPUS(kPytorch / (name + ".joint.code.py"));
        auto src = openSource(stem + ".joint.code.py");
        std::shared_ptr<Graph> g = src->graph(src->artifacts.at(0).id);
        SafeTensorsFile inputs = readSafetensors(stem + ".inputs.safetensors");
        SafeTensorsFile constants;
        if (fs::exists(stem + ".joint.constants.safetensors"))
            constants = readSafetensors(stem + ".joint.constants.safetensors");
        PipelineRun pr = runPipeline(*g, spec);
        QVERIFY2(pr.ok, pr.error.c_str());
        QVERIFY2(pr.steps.back().verifierClean(), "the chunked graph does not verify");
        const Graph& chunked = pr.steps.back().graph();
        const std::vector<Item> want = run(*g, inputs, constants, 1);
        const std::vector<Item> got = run(chunked, inputs, constants, 1);
        const std::vector<Item> got2 = run(chunked, inputs, constants, 2);
        const std::vector<bool> summed = downstreamOfSum(chunked);
        QCOMPARE(got.size(), want.size());
        QCOMPARE(summed.size(), want.size());
        int bitwise = 0, reordered = 0;
        QStringList bad;
        for (size_t k = 0; k < want.size(); ++k) {
            QVERIFY(want[k].has_value() && got[k].has_value() && got2[k].has_value());
            // 1 and 2 threads: the same bits
            QVERIFY2(got[k]->data == got2[k]->data,
                     qPrintable(QStringLiteral("output %1 differs at 2 threads").arg(k)));
            const TensorDiff d = compareTensors("out_" + std::to_string(k), *got[k], *want[k]);
            QVERIFY2(!d.shapeMismatch && !d.dtypeMismatch, qPrintable(QStringLiteral("output %1 shape/dtype").arg(k)));
            const int64_t ulp = static_cast<int64_t>(d.maxUlp);
            const double scaled = d.bitwiseEqual || got[k]->dtype != DType::F32 ? 0.0 : scaledUlp(*got[k], *want[k]);
            qInfo("%s | %s: output %zu %s: %s, max ULP %lld, max error %.2f ULP of the largest element", name.c_str(),
                  spec.c_str(), k, summed[k] ? "(partial sums)" : "(bitwise expected)",
                  d.bitwiseEqual ? "bitwise" : "differs", static_cast<long long>(ulp), scaled);
            if (!summed[k] || got[k]->dtype != DType::F32) {
                if (!d.bitwiseEqual)
                    bad << QStringLiteral("output %1: %2 of %3 elements differ, max ULP %4")
                               .arg(k)
                               .arg(d.differing)
                               .arg(d.numel)
                               .arg(ulp);
                ++bitwise;
            } else {
                if (scaled > kMaxScaledUlp)
                    bad << QStringLiteral("output %1: error %2 ULP of its largest element > %3")
                               .arg(k)
                               .arg(scaled)
                               .arg(kMaxScaledUlp);
                ++reordered;
            }
        }
        QVERIFY2(bad.isEmpty(), qPrintable(bad.join("; ")));
        // the loss never depends on a partial sum; the chunked blocks' parameter gradients do
        QVERIFY(!summed[0]);
        QVERIFY(reordered > 0);
        qInfo("%s | %s: %d outputs bitwise, %d within %.0f ULP of their largest element", name.c_str(), spec.c_str(),
              bitwise, reordered, kMaxScaledUlp);
    }
};

FXL_TEST_GUILESS_MAIN(TestChunkRegionNumerics)
}  // namespace test_chunk_region_numerics
#include "test_chunk_region_numerics.moc"
