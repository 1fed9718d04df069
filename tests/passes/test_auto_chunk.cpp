// auto_chunk: the scenarios T1-T5 (docs/passes.md, auto_chunk) on FX text graphs, checked for
// structure at their real sizes (nothing runs: the sub-graphs of T1 and T4 hold GiB-sized
// tensors), the refusals (the pipeline keeps the input), the change log, the verifier, and the
// round trips of the chunked graph through the JSON format and the FX text writer/reader.
// The numbers of the same graphs at small sizes are in tests/integration/test_auto_chunk_numerics.cpp.
#include <QtTest>

#include <set>

#include "auto_chunk_test_graphs.hpp"
#include "core/analysis/verify.hpp"
#include "core/formats/fx/fx_text_writer.hpp"
#include "core/formats/json_io.hpp"
#include "core/ops/shape_prop.hpp"
#include "passes/auto_chunk.hpp"
#include "passes/pass.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_auto_chunk {

using namespace fxl;
using namespace autochunktest;

}  // namespace test_auto_chunk
Q_DECLARE_METATYPE(std::vector<int64_t>)
namespace test_auto_chunk {

namespace {

struct Chunked
{
    Graph g;
    ChangeLog log;
};

Chunked chunk(const Graph& input, const std::map<std::string, std::string>& opts)
{
    PipelineRun run = runPipeline(input, specOf(opts));
    if (!run.ok) qFatal("auto_chunk failed: %s", run.error.c_str());
    return {run.steps.back().graph().clone(), run.steps.back().log};
}

std::vector<const Node*> calls(const Graph& g, const std::string& target)
{
    std::vector<const Node*> out;
    g.forEachNode([&](const Node& n) {
        if (n.isOp(target)) out.push_back(&n);
    });
    return out;
}

const Node& byName(const Graph& g, const std::string& name)
{
    const NodeId id = g.findByName(name);
    if (id == kNoNode) qFatal("no node %s", name.c_str());
    return g.node(id);
}

const Node& argNode(const Graph& g, const Node& n, size_t k) { return g.node(n.args.at(k).node); }

// The sizes of every tensor value in the graph (tuples included).
std::set<std::vector<int64_t>> shapesIn(const Graph& g)
{
    std::set<std::vector<int64_t>> out;
    std::function<void(const ValueMeta&)> add = [&](const ValueMeta& v) {
        if (v.isTensor()) {
            std::vector<int64_t> s;
            for (const SymInt& x : v.tensor.sizes) s.push_back(x.valueOrHint());
            out.insert(s);
        }
        for (const auto& e : v.elems) add(e);
    };
    g.forEachNode([&](const Node& n) { add(n.val); });
    return out;
}

void dropStorageOffsets(ValueMeta& v)
{
    v.tensor.storageOffset = 0;
    for (auto& e : v.elems) dropStorageOffsets(e);
}

void dropStorageOffsets(Graph& g)
{
    g.forEachNodeMut([](Node& n) { dropStorageOffsets(n.val); });
    for (auto& [name, sub] : g.subgraphs) {
        auto copy = std::make_shared<Graph>(sub->clone());
        dropStorageOffsets(*copy);
        sub = copy;
    }
}

}  // namespace

class TestAutoChunk : public QObject
{
    Q_OBJECT

private slots:
    // T1: y = sum(softmax((2x) @ w)), x [32768, 32], w [32, 32768], 4 chunks: structure at the real size.
    void t1MatmulSoftmax()
    {
        Graph in = parseGraph(t1Text(32768, 32, 32768));
        Chunked c = chunk(in, {{"chunks", "4"}});
        const Graph& g = c.g;
        QCOMPARE(c.log.stats["chunkings"].get<int>(), 1);
        QCOMPARE(c.log.stats["amplifier"].get<std::string>(), std::string("mm"));
        QCOMPARE(c.log.stats["amplify_ratio"].get<double>(), 512.0);
        QCOMPARE(c.log.stats["chunks"].get<int>(), 4);
        QCOMPARE(c.log.stats["subgraphs"].get<int>(), 1);
        QCOMPARE(g.subgraphs.size(), size_t(1));
        QVERIFY(g.subgraphs.count("chunking_subgraph_0"));
        QCOMPARE(g.subgraphs.at("chunking_subgraph_0")->className, std::string("chunking_subgraph_0"));
        const auto invokes = calls(g, "higher_order.invoke_subgraph");
        QCOMPARE(invokes.size(), size_t(4));
        // one split: the scaled x (mul) on dim 0 into 4 x 8192 rows; the weight passed whole
        const auto splits = calls(g, "aten.split.Tensor");
        QCOMPARE(splits.size(), size_t(1));
        QCOMPARE(argNode(g, *splits[0], 0).name, std::string("mul"));
        QCOMPARE(splits[0]->args.at(1).i, int64_t(8192));
        QCOMPARE(splits[0]->args.at(2).i, int64_t(0));
        for (const Node* call : invokes) {
            std::vector<std::string> ops;
            for (size_t k = 2; k < call->args.size(); ++k) ops.push_back(argNode(g, *call, k).name);
            QVERIFY(std::find(ops.begin(), ops.end(), "primals_2") != ops.end());
            QVERIFY(std::find(ops.begin(), ops.end(), "t_1") != ops.end());
        }
        // outputs: (sum_1, mul_1, mm_1): loss from an f32 accumulator with no tangent multiply
        const Node& out = g.node(g.outputNode());
        const Node& loss = g.node(out.args[0].items[0].node);
        QVERIFY(loss.isGetitem());
        QCOMPARE(argNode(g, loss, 0).target, std::string("higher_order.invoke_subgraph"));
        QCOMPARE(loss.val.tensor.dtype, DType::F32);
        QCOMPARE(loss.meta.chunk.value("chunk_id", -1), 3);
        // the activation gradient: cat(dim 0) of the 4 pieces, then mul(tangent), then the graph's own *2
        const Node& gx = g.node(out.args[0].items[1].node);
        QCOMPARE(gx.target, std::string("aten.mul.Tensor"));
        const Node& scaled = argNode(g, gx, 0);
        QCOMPARE(scaled.target, std::string("aten.mul.Tensor"));
        QCOMPARE(argNode(g, scaled, 1).name, std::string("tangents_1"));
        const Node& cat = argNode(g, scaled, 0);
        QCOMPARE(cat.target, std::string("aten.cat.default"));
        QCOMPARE(cat.args.at(1).i, int64_t(0));
        QCOMPARE(cat.args.at(0).items.size(), size_t(4));
        QCOMPARE(cat.meta.chunk["combine"].get<std::string>(), std::string("cat"));
        // the weight gradient: the last accumulator, then mul(tangent)
        const Node& gw = g.node(out.args[0].items[2].node);
        QCOMPARE(gw.target, std::string("aten.mul.Tensor"));
        QCOMPARE(argNode(g, gw, 1).name, std::string("tangents_1"));
        QVERIFY(argNode(g, gw, 0).isGetitem());
        QCOMPARE(calls(g, "aten.cat.default").size(), size_t(1));
        QCOMPARE(c.log.stats["accumulators"].get<int>(), 2);
        QCOMPARE(c.log.stats["cats"].get<int>(), 1);
        // accumulators: f32[] and f32[32, 32768] zeros
        const auto fulls = calls(g, "aten.full.default");
        int accs = 0;
        for (const Node* f : fulls)
            if (f->meta.chunk.value("role", "") == "accumulator") ++accs;
        QCOMPARE(accs, 2);
        // no [32768, 32768] tensor left in the parent; the sub-graph holds [8192, 32768] ones
        QVERIFY(!shapesIn(g).count({32768, 32768}));
        const Graph& sub = *g.subgraphs.at("chunking_subgraph_0");
        QVERIFY(shapesIn(sub).count({8192, 32768}));
        QVERIFY(!shapesIn(sub).count({32768, 32768}));
        QCOMPARE(byName(sub, "expand").args.at(1), Arg::ofList({Arg::ofInt(8192), Arg::ofInt(32768)}));
        QCOMPARE(byName(sub, "mm").meta.chunk["role"].get<std::string>(), std::string("body"));
        QCOMPARE(byName(sub, "mm").meta.chunk["original"].get<std::string>(), std::string("mm"));
        QVERIFY(!hasErrors(verifyGraph(g)));
        // the body's placeholders: the chunked mul, the whole weight and t_1, the ones, 2 accumulators
        QCOMPARE(sub.placeholders().size(), size_t(6));
        // the change log
        QCOMPARE(c.log.stats["region_nodes"].get<int>(), 8);
        QCOMPARE(c.log.removed.size(), size_t(8));
        QVERIFY(QString::fromStdString(c.log.notes.at(0)).startsWith("amplifier mm 'mm': f32[32768, 32768]"));
    }

    // T2: sum(x @ w): the backward never touches the amplified value -> refused, graph kept
    void t2Trivial()
    {
        Graph in = parseGraph(t2Text(1024, 32, 1024));
        PipelineRun run = runPipeline(in, specOf(smallOptions(4)));
        QVERIFY(!run.ok);
        QCOMPARE(run.steps.size(), size_t(1));
        QVERIFY2(run.error.find("no tangent received chunk metadata") != std::string::npos, run.error.c_str());
        QVERIFY(run.steps.back().graph().structurallyEqual(in));
    }

    // T3: a dynamic-shape amplifier -> refused naming it
    void t3Dynamic()
    {
        Graph in = parseGraph(t3Text());
        PipelineRun run = runPipeline(in, "auto_chunk");
        QVERIFY(!run.ok);
        QVERIFY2(run.error.find("'mm' has a dynamic shape f32[s0, 32768]") != std::string::npos, run.error.c_str());
        QVERIFY(run.steps.back().graph().structurallyEqual(in));
    }

    // T4: linear + cross entropy at the real size (B*T = 32768, C 768, V 50257, bf16, 16 chunks)
    void t4LinearCrossEntropy_data()
    {
        QTest::addColumn<bool>("div2");
        QTest::newRow("loss") << false;
        QTest::newRow("loss / 2") << true;
    }
    void t4LinearCrossEntropy()
    {
        QFETCH(bool, div2);
        Graph in = parseGraph(t4Text(32768, 768, 50257, "bf16", div2));
        Chunked c = chunk(in, {{"chunks", "16"}});
        const Graph& g = c.g;
        QCOMPARE(c.log.stats["chunkings"].get<int>(), 1);
        QCOMPARE(c.log.stats["chunks"].get<int>(), 16);
        QCOMPARE(c.log.stats["subgraphs"].get<int>(), 1);
        QCOMPARE(c.log.stats["nll_rewrites"].get<int>(), 1);
        QCOMPARE(calls(g, "higher_order.invoke_subgraph").size(), size_t(16));
        QVERIFY(!shapesIn(g).count({32768, 50257}));
        QVERIFY(!hasErrors(verifyGraph(g)));
        const Graph& sub = *g.subgraphs.at("chunking_subgraph_0");
        QVERIFY(shapesIn(sub).count({2048, 50257}));
        // the body sums its losses; its nll_loss_backward reads the global total weight (f32 count cast to bf16)
        const Node& nf = byName(sub, "nll_loss_forward");
        QCOMPARE(nf.args.at(3).i, int64_t(2));
        const Node& nb = byName(sub, "nll_loss_backward");
        QCOMPARE(nb.args.at(4).i, int64_t(1));
        const Node& tw = sub.node(nb.args.at(6).node);
        QCOMPARE(tw.op, NodeOp::Placeholder);
        QCOMPARE(tw.name, std::string("nll_loss_forward_total_weight_cast"));
        const Node& twParent = byName(g, "nll_loss_forward_total_weight");
        QCOMPARE(twParent.target, std::string("aten.sum.default"));
        QCOMPARE(argNode(g, twParent, 0).target, std::string("aten.ne.Scalar"));
        // the loss: f32 accumulator / total weight, cast to bf16, with the formula
        const Node& out = g.node(g.outputNode());
        const Node* loss = &g.node(out.args[0].items[0].node);
        if (div2) {
            QCOMPARE(loss->target, std::string("aten.div.Tensor"));
            loss = &argNode(g, *loss, 0);
        }
        QCOMPARE(loss->target, std::string("aten._to_copy.default"));
        QCOMPARE(loss->val.tensor.dtype, DType::BF16);
        QVERIFY(loss->meta.chunk.contains("formula"));
        const Node& mean = argNode(g, *loss, 0);
        QCOMPARE(mean.target, std::string("aten.div.Tensor"));
        QCOMPARE(argNode(g, mean, 1).name, std::string("nll_loss_forward_total_weight"));
        QCOMPARE(argNode(g, mean, 0).val.tensor.dtype, DType::F32);
        // the seed reads the rebuilt loss; the gradients are multiplied by it
        const Node& gw = g.node(out.args[0].items[2].node);
        QCOMPARE(gw.target, std::string("aten.mul.Tensor"));
        QCOMPARE(argNode(g, gw, 1).name, std::string("ones_like"));
        QCOMPARE(argNode(g, gw, 0).val.tensor.dtype, DType::BF16);
        QCOMPARE(c.log.stats["tangent_kind"].get<std::string>(), std::string("seed"));
        if (div2) QVERIFY(sub.findByName("div_1") != kNoNode);  // the seed / 2 runs per chunk on ones
    }

    // T5: 10 rows into 4 chunks (torch.chunk: 3, 3, 3, 1): 2 sub-graphs, 4 calls, the accumulators
    // threaded; tensor_split gives 3, 3, 2, 2
    void t5TailChunk_data()
    {
        QTest::addColumn<std::string>("split");
        QTest::addColumn<std::vector<int64_t>>("pieces");
        QTest::newRow("chunk") << std::string("chunk") << std::vector<int64_t>{3, 3, 3, 1};
        QTest::newRow("tensor_split") << std::string("tensor_split") << std::vector<int64_t>{3, 3, 2, 2};
    }
    void t5TailChunk()
    {
        QFETCH(std::string, split);
        QFETCH(std::vector<int64_t>, pieces);
        Graph in = parseGraph(t1Text(10, 4, 64));
        Chunked c = chunk(in, smallOptions(4, split));
        const Graph& g = c.g;
        QCOMPARE(c.log.stats["piece_sizes"].get<std::vector<int64_t>>(), pieces);
        QCOMPARE(g.subgraphs.size(), size_t(2));
        const auto invokes = calls(g, "higher_order.invoke_subgraph");
        QCOMPARE(invokes.size(), size_t(4));
        // calls 0..2 use sub-graph 0 (3 rows) for chunk; the piece sizes pick the sub-graph
        std::vector<std::string> attrs;
        for (const Node* call : invokes) attrs.push_back(call->args.at(1).s);
        if (split == "chunk")
            QCOMPARE(attrs,
                     (std::vector<std::string>{"chunking_subgraph_0", "chunking_subgraph_0", "chunking_subgraph_0",
                                               "chunking_subgraph_1"}));
        else
            QCOMPARE(attrs,
                     (std::vector<std::string>{"chunking_subgraph_0", "chunking_subgraph_0", "chunking_subgraph_1",
                                               "chunking_subgraph_1"}));
        // the last 2 operands are the accumulators (loss, weight gradient): call k's are call k-1's outputs
        for (size_t k = 0; k < invokes.size(); ++k) {
            const Node& call = *invokes[k];
            const size_t n = call.args.size();
            for (size_t j = 0; j < 2; ++j) {
                const Node& acc = argNode(g, call, n - 2 + j);
                if (k == 0) {
                    QCOMPARE(acc.target, std::string("aten.full.default"));
                    QCOMPARE(acc.meta.chunk["role"].get<std::string>(), std::string("accumulator"));
                } else {
                    QVERIFY(acc.isGetitem());
                    QCOMPARE(acc.args.at(0).node, invokes[k - 1]->id);
                    QCOMPARE(acc.args.at(1).i, int64_t(1 + j));  // after the one chunked output
                }
            }
        }
        QVERIFY(!hasErrors(verifyGraph(g)));
    }

    // The chunked graph survives the JSON format and the FX text writer/reader, sub-graphs and
    // meta.chunk included.
    void roundTrips_data()
    {
        QTest::addColumn<std::string>("which");
        QTest::newRow("T1 10 rows") << std::string("t1");
        QTest::newRow("T4 small") << std::string("t4");
    }
    void roundTrips()
    {
        QFETCH(std::string, which);
        Graph in = which == "t1" ? parseGraph(t1Text(10, 4, 64)) : parseGraph(t4Text(64, 16, 512, "f32", true));
        Chunked c = chunk(in, smallOptions(4));
        std::string why;
        Graph j = parseGraphJson(formatGraphJson(c.g), "<json>");
        QVERIFY2(j.structurallyEqual(c.g, &why), why.c_str());
        // FX text prints no annotation for multi-output nodes (the splits, the calls): shape
        // propagation fills them back, as for any graph read from FX text
        Graph t = parseFxText(printReadable(c.g), "<fx>");
        ShapePropOptions so;
        so.overwrite = false;
        QVERIFY(propagateShapes(t, so).problems.empty());
        // nor storage offsets (the pieces of a split are views at offsets)
        Graph want = c.g.clone();
        dropStorageOffsets(want);
        dropStorageOffsets(t);
        QVERIFY2(t.structurallyEqual(want, &why), why.c_str());
        int withChunk = 0;
        t.forEachNode([&](const Node& n) { withChunk += n.meta.chunk.is_null() ? 0 : 1; });
        QVERIFY(withChunk > 10);
    }

    // A chunked graph is not chunked again; a graph without tangent or seed is refused; an op
    // without a rule is named.
    void refusals()
    {
        Graph in = parseGraph(t1Text(10, 4, 64));
        Chunked c = chunk(in, smallOptions(2));
        PipelineRun again = runPipeline(c.g, specOf(smallOptions(2)));
        QVERIFY(!again.ok);
        QVERIFY2(again.error.find("produced by auto_chunk") != std::string::npos, again.error.c_str());

        Graph inf = parseGraph("class GraphModule(torch.nn.Module):\n"
                               "    def forward(self, x: \"f32[64, 8]\", w: \"f32[8, 512]\"):\n"
                               "        mm: \"f32[64, 512]\" = torch.ops.aten.mm.default(x, w)\n"
                               "        return (mm,)\n");
        PipelineRun r = runPipeline(inf, specOf(smallOptions(2)));
        QVERIFY(!r.ok);
        QVERIFY2(r.error.find("no tangent placeholder and no backward seed") != std::string::npos, r.error.c_str());

        // default thresholds: the small T1 has no amplifier
        PipelineRun r2 = runPipeline(in, "auto_chunk");
        QVERIFY(!r2.ok);
        QVERIFY2(r2.error.find("no amplifier") != std::string::npos, r2.error.c_str());
        QVERIFY2(r2.error.find("the largest ratio is 'mm' f32[10, 64]") != std::string::npos, r2.error.c_str());

        // softmax along the chunk dim
        std::string text = t1Text(10, 4, 64);
        const std::string sm = "_softmax.default(mm, 1";
        text.replace(text.find(sm), sm.size(), "_softmax.default(mm, 0");
        PipelineRun r3 = runPipeline(parseGraph(text), specOf(smallOptions(2)));
        QVERIFY(!r3.ok);
        QVERIFY2(r3.error.find("'_softmax' (aten._softmax.default): the softmax dim 0 is the chunk dim")
                     != std::string::npos,
                 r3.error.c_str());

        // an op without a rule on the way
        std::string text2 = t1Text(10, 4, 64);
        const std::string sm2 = "torch.ops.aten._softmax.default(mm, 1, False)";
        text2.replace(text2.find(sm2), sm2.size(), "torch.ops.aten.cumsum.default(mm, 1)");
        PipelineRun r4 = runPipeline(parseGraph(text2), specOf(smallOptions(2)));
        QVERIFY(!r4.ok);
        QVERIFY2(r4.error.find("'_softmax' (aten.cumsum.default): no chunking rule for this op") != std::string::npos,
                 r4.error.c_str());
    }
};

FXL_TEST_GUILESS_MAIN(TestAutoChunk)
}  // namespace test_auto_chunk
#include "test_auto_chunk.moc"
