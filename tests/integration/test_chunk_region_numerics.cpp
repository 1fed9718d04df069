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

#include "core/formats/safetensors.hpp"
#include "core/formats/source.hpp"
#include "passes/pass.hpp"
#include "runtime/equivalence.hpp"
#include "runtime/executor.hpp"
#include "test_util.hpp"

using namespace fxl;
namespace fs = std::filesystem;

Q_DECLARE_METATYPE(std::string)

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
    auto backend = makeCpuBackend(CpuBackendOptions{threads});
    ExecOptions o;
    o.backend = backend.get();
    o.inputs = &inputs;
    o.constants = &constants;
    o.requireAllInputs = true;
    ExecResult r = executeGraph(g, o);
    std::vector<Item> items;
    for (const Value& v : r.outputs) {
        if (!v.isTensor()) {
            items.emplace_back(std::nullopt);
            continue;
        }
        SafeTensor st;
        st.dtype = v.tensor.dtype();
        st.shape = v.tensor.sizes();
        st.data.resize(static_cast<size_t>(v.tensor.nbytes()));
        backend->download(st.data.data(), v.tensor, v.tensor.nbytes());
        items.emplace_back(std::move(st));
    }
    return items;
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

class TestChunkRegionNumerics : public QObject
{
    Q_OBJECT

private slots:
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

QTEST_GUILESS_MAIN(TestChunkRegionNumerics)
#include "test_chunk_region_numerics.moc"
