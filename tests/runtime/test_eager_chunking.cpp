// The eager-chunking reference (runtime/check/eager_chunking.hpp) on the corpus train steps: each
// selected region runs once per chunk and its live-outs are combined. The CPU kernels are
// batch-invariant (docs/numerics.md section 2: one fixed reduction order per element that does
// not depend on the batch size or offsets), so every output the reference obtains by a cat,
// or computes outside every region from concatenated values, has the bits of the unchunked
// graph: asserted bitwise (the loss is outside the regions of these specs, so it is too).
// Outputs obtained by a sum in chunk order (parameter gradients) differ from the unchunked
// graph only by the order of that reduction: asserted within a few ULP (the max per output is
// logged), and an integer sum (moe_tiny's tokens_per_expert, a bincount) exactly. The combine
// kind of every output is asserted, the result is the same at 1 and 2 threads, and bad specs
// fail with their message. Small hand-written graphs pin what the reference refuses (a node that
// needs the whole chunk axis, a partial sum used otherwise than added up) and what it accepts.
#include <QtTest>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <map>

#include "core/analysis/chunk_spec.hpp"
#include "core/formats/fx/fx_text_parser.hpp"
#include "core/formats/safetensors.hpp"
#include "core/formats/source.hpp"
#include "runtime/check/eager_chunking.hpp"
#include "runtime/check/equivalence.hpp"
#include "runtime/cpu/cpu_backend.hpp"
#include "runtime/exec/executor.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_eager_chunking {

using namespace fxl;
namespace fs = std::filesystem;

namespace {

struct Loaded
{
    std::shared_ptr<Graph> graph;
    SafeTensorsFile inputs, constants;
};

Loaded load(const std::string& name)
{
    const std::string stem = fxltest::corpusPath("pytorch/" + name).string();
    auto src = openSource(stem + ".joint.code.py");
    Loaded l;
    l.graph = src->graph(src->artifacts.at(0).id);
    l.inputs = readSafetensors(stem + ".inputs.safetensors");
    if (fs::exists(stem + ".joint.constants.safetensors"))
        l.constants = readSafetensors(stem + ".joint.constants.safetensors");
    return l;
}

struct Runs
{
    std::unique_ptr<Backend> backend;
    SafeTensorsFile plain, eager;
    EagerChunkResult ref;
};

Runs runBoth(const Loaded& l, const ChunkSpec& spec, int threads)
{
    Runs r;
    r.backend = makeCpuBackend(CpuBackendOptions{threads});
    ExecOptions opts;
    opts.backend = r.backend.get();
    opts.threads = threads;
    opts.inputs = &l.inputs;
    opts.constants = &l.constants;
    opts.requireAllInputs = true;
    ExecResult plain = executeGraph(*l.graph, opts);
    r.plain = outputsToSafetensors(plain, *r.backend);
    r.ref = runEagerChunking(*l.graph, spec, opts);
    r.eager = eagerOutputsToSafetensors(r.ref, *r.backend);
    return r;
}

// The largest |a - b| in units of the last place of the largest |b| of the tensor (f32): the
// normwise distance. An element that is the small difference of large terms (a gradient
// entry near zero) can be thousands of its own ULPs off after a reassociated sum while being
// a fraction of an ULP of the tensor's scale; the elementwise max ULP is logged beside it.
double normwiseUlp(const SafeTensor& a, const SafeTensor& b)
{
    if (a.dtype != DType::F32 || b.dtype != DType::F32 || a.data.size() != b.data.size()) return -1;
    const size_t n = a.data.size() / 4;
    std::vector<float> x(n), y(n);
    std::memcpy(x.data(), a.data.data(), n * 4);
    std::memcpy(y.data(), b.data.data(), n * 4);
    float scale = 0, diff = 0;
    for (size_t i = 0; i < n; ++i) {
        scale = std::max(scale, std::fabs(y[i]));
        diff = std::max(diff, std::fabs(x[i] - y[i]));
    }
    if (scale == 0) return diff == 0 ? 0 : -1;
    const float ulp = std::nextafter(scale, std::numeric_limits<float>::infinity()) - scale;
    return static_cast<double>(diff) / static_cast<double>(ulp);
}

std::string countsOf(const EagerChunkResult& r)
{
    std::map<std::string, int> c;
    for (const auto& o : r.outputInfo) ++c[std::string(chunkCombineName(o.combine))];
    std::string s;
    for (const auto& [k, v] : c) s += (s.empty() ? "" : " ") + k + "=" + std::to_string(v);
    return s;
}

}  // namespace

class TestEagerChunking : public QObject
{
    Q_OBJECT

private slots:
    void matchesUnchunked_data()
    {
        QTest::addColumn<std::string>("name");
        QTest::addColumn<std::string>("spec");
        QTest::addColumn<std::string>("counts");  // combine kinds of the outputs
        QTest::addColumn<int>("regions");
        QTest::addColumn<int>("maxUlp");  // bound on the summed outputs' normwise ulp from unchunked
        // gpt2_tiny: loss, wte, wpe, 12 params per block, lnf (2): the blocks' 24 grads summed
        QTest::newRow("gpt2_tiny blocks.* batch 2")
            << std::string("gpt2_tiny") << std::string("regions=blocks.*,chunks=2") << std::string("outside=5 sum=24")
            << 2 << 8;
        if (!fxltest::kSanitizedBuild)
            QTest::newRow("gpt2_tiny blocks.* batch 4")
                << std::string("gpt2_tiny") << std::string("regions=blocks.*,chunks=4")
                << std::string("outside=5 sum=24") << 2 << 8;
        QTest::newRow("llama_tiny layers.* batch 2")
            << std::string("llama_tiny") << std::string("regions=layers.*,chunks=2") << std::string("outside=4 sum=18")
            << 2 << 8;
        QTest::newRow("gpt2_tiny blocks.*.mlp seq 2")
            << std::string("gpt2_tiny") << std::string("regions=blocks.*.mlp,dim=seq,chunks=2")
            << std::string("outside=21 sum=8") << 2 << 8;
        if (!fxltest::kSanitizedBuild)
            QTest::newRow("llama_tiny layers.*.feed_forward seq 2")
                << std::string("llama_tiny") << std::string("regions=layers.*.feed_forward,dim=seq,chunks=2")
                << std::string("outside=16 sum=6") << 2 << 8;
        // moe_tiny: loss, tokens_per_expert, inp (2) outside; moe.w1, w2, router summed
        QTest::newRow("moe_tiny moe batch 2") << std::string("moe_tiny") << std::string("regions=moe,chunks=2")
                                              << std::string("outside=3 sum=4") << 1 << 8;
        QTest::newRow("moe_tiny moe batch 3") << std::string("moe_tiny") << std::string("regions=moe,chunks=3")
                                              << std::string("outside=3 sum=4") << 1 << 8;
        QTest::newRow("moe_tiny moe chunk 5 (5,5,5,5,4)")
            << std::string("moe_tiny") << std::string("regions=moe,chunks=5,split=chunk")
            << std::string("outside=3 sum=4") << 1 << 8;
    }
    void matchesUnchunked()
    {
        QFETCH(std::string, name);
        QFETCH(std::string, spec);
        QFETCH(std::string, counts);
        QFETCH(int, regions);
        QFETCH(int, maxUlp);
        FXL_REQUIRE_CORPUS(fxltest::corpusPath("pytorch/" + name + ".joint.code.py"));
        const Loaded l = load(name);
        const ChunkSpec cs = parseChunkSpec(spec);
        Runs r;
        try {
            r = runBoth(l, cs, 2);
        } catch (const std::exception& e) {
            QFAIL(e.what());
        }
        QCOMPARE(countsOf(r.ref), counts);
        QCOMPARE(static_cast<int>(r.ref.regions.size()), regions);
        QCOMPARE(r.ref.chunkSizes, chunkSizes(r.ref.axisLength, cs.chunks, cs.split));
        QCOMPARE(r.ref.weighted, false);
        QCOMPARE(r.eager.tensors.size(), r.plain.tensors.size());
        std::string ulps;
        for (size_t k = 0; k < r.ref.outputInfo.size(); ++k) {
            const EagerOutputInfo& o = r.ref.outputInfo[k];
            const TensorDiff d = compareTensors(o.name, *r.eager.find(o.name), *r.plain.find(o.name));
            QVERIFY2(!d.shapeMismatch && !d.dtypeMismatch, (o.name + ": shape or dtype differs").c_str());
            if (o.combine == ChunkCombine::Outside || o.combine == ChunkCombine::Cat) {
                QVERIFY2(d.bitwiseEqual,
                         (o.name + " (" + o.node + ", " + o.how() + "): " + std::to_string(d.differing)
                          + " elements differ, max ulp " + std::to_string(d.maxUlp))
                             .c_str());
            } else {
                QCOMPARE(o.combine, ChunkCombine::Sum);
                QCOMPARE(o.pieces, static_cast<int>(r.ref.chunkSizes.size()));
                if (!isFloatingPoint(r.plain.find(o.name)->dtype)) {
                    QVERIFY2(d.bitwiseEqual, (o.name + ": an integer sum must be exact").c_str());
                    ulps += " " + o.node + "=exact";
                    continue;
                }
                const double nw = normwiseUlp(*r.eager.find(o.name), *r.plain.find(o.name));
                QVERIFY2(nw >= 0 && nw <= maxUlp,
                         (o.name + " (" + o.node + "): normwise " + std::to_string(nw) + " ulp, elementwise max ulp "
                          + std::to_string(d.maxUlp))
                             .c_str());
                char buf[96];
                std::snprintf(buf, sizeof buf, " %s=%llu/%.2f", o.node.c_str(),
                              static_cast<unsigned long long>(d.maxUlp), nw);
                ulps += buf;
            }
        }
        qInfo("%s [%s]: %zu chunks; summed outputs vs unchunked (node=elementwise max ulp/normwise ulp):%s",
              name.c_str(), spec.c_str(), r.ref.chunkSizes.size(), ulps.c_str());
    }

    // moe_tiny: tokens_per_expert (a bincount inside the block) is summed exactly, and the
    // router grad is summed; the block's backward gets each chunk's own topk indices.
    void moeTokensPerExpert()
    {
        FXL_REQUIRE_CORPUS(fxltest::corpusPath("pytorch/moe_tiny.joint.code.py"));
        const Loaded l = load("moe_tiny");
        Runs r = runBoth(l, parseChunkSpec("regions=moe,chunks=3"), 1);
        QCOMPARE(r.ref.outputInfo.at(1).node, std::string("bincount"));
        QCOMPARE(r.ref.outputInfo.at(1).combine, ChunkCombine::Sum);
        const SafeTensor* e = r.eager.find("out_1");
        QCOMPARE(e->dtype, DType::I64);
        const TensorDiff d = compareTensors("out_1", *e, *r.plain.find("out_1"));
        QVERIFY(d.bitwiseEqual);
        int64_t total = 0;
        for (size_t i = 0; i < e->data.size() / 8; ++i) {
            int64_t v = 0;
            std::memcpy(&v, e->data.data() + 8 * i, 8);
            total += v;
        }
        QCOMPARE(total, int64_t{48});  // 24 tokens, top 2
        // the backward live-ins of moe: its forward values per chunk
        const EagerRegionInfo& reg = r.ref.regions.at(0);
        QCOMPARE(reg.root, std::string("moe"));
        QCOMPARE(static_cast<int>(reg.segments.size()), 2);
        int perChunk = 0;
        for (const auto& li : reg.segments[1].liveIns) perChunk += li.how == "per_chunk";
        QVERIFY(perChunk > 0);
    }

    // linear_ce as a whole train step (gradient accumulation): the mean loss and its seed are
    // weighted by w_k = n_k / N (exact powers of two for 64 rows in 2, 4, 8 chunks).
    void linearCeWholeGraph_data()
    {
        QTest::addColumn<int>("chunks");
        QTest::newRow("2") << 2;
        QTest::newRow("4") << 4;
        if (!fxltest::kSanitizedBuild) QTest::newRow("8") << 8;
    }
    void linearCeWholeGraph()
    {
        QFETCH(int, chunks);
        FXL_REQUIRE_CORPUS(fxltest::corpusPath("pytorch/linear_ce.joint.code.py"));
        const Loaded l = load("linear_ce");
        ChunkSpec cs = parseChunkSpec("chunks=" + std::to_string(chunks) + ",inputs=arg0_1;arg1_1");
        Runs r = runBoth(l, cs, 2);
        QCOMPARE(r.ref.axisLength, int64_t{64});
        QVERIFY(r.ref.weighted);
        QCOMPARE(static_cast<int>(r.ref.weights.size()), chunks);
        for (double w : r.ref.weights) QCOMPARE(w, 1.0 / chunks);
        QVERIFY2(r.ref.weighting.find("nll_loss_forward") != std::string::npos, r.ref.weighting.c_str());
        QVERIFY2(r.ref.weighting.find("'ones_like'") != std::string::npos, r.ref.weighting.c_str());
        QCOMPARE(r.ref.outputInfo.size(), size_t{2});
        QCOMPARE(r.ref.outputInfo[0].combine, ChunkCombine::WeightedSum);
        QCOMPARE(r.ref.outputInfo[1].combine, ChunkCombine::Sum);
        QVERIFY(r.ref.outputInfo[1].seedWeighted);
        std::string ulps;
        for (const char* o : {"out_0", "out_1"}) {
            const TensorDiff d = compareTensors(o, *r.eager.find(o), *r.plain.find(o));
            const double nw = normwiseUlp(*r.eager.find(o), *r.plain.find(o));
            QVERIFY2(nw >= 0 && nw <= 4, (std::string(o) + ": normwise ulp " + std::to_string(nw)).c_str());
            char buf[96];
            std::snprintf(buf, sizeof buf, " %s=%llu/%.2f%s", o, static_cast<unsigned long long>(d.maxUlp), nw,
                          d.bitwiseEqual ? " (bitwise)" : "");
            ulps += buf;
        }
        qInfo("linear_ce whole graph, %d chunks: weighted reference vs unchunked (elementwise max ulp/normwise ulp):%s",
              chunks, ulps.c_str());
    }

    // The reference's bits do not depend on the thread count.
    void threadsInvariant_data()
    {
        QTest::addColumn<std::string>("name");
        QTest::addColumn<std::string>("spec");
        QTest::newRow("gpt2_tiny blocks.*") << std::string("gpt2_tiny") << std::string("regions=blocks.*,chunks=2");
        QTest::newRow("linear_ce whole 4") << std::string("linear_ce") << std::string("chunks=4,inputs=arg0_1;arg1_1");
    }
    void threadsInvariant()
    {
        QFETCH(std::string, name);
        QFETCH(std::string, spec);
        FXL_REQUIRE_CORPUS(fxltest::corpusPath("pytorch/" + name + ".joint.code.py"));
        const Loaded l = load(name);
        Runs a = runBoth(l, parseChunkSpec(spec), 1);
        Runs b = runBoth(l, parseChunkSpec(spec), 2);
        const EquivalenceReport rep = compareOutputs(a.eager, b.eager);
        QVERIFY2(rep.allBitwiseEqual(), reportToText(rep).c_str());
        QCOMPARE(a.eager.tensors.size(), l.graph->node(l.graph->outputNode()).args.at(0).items.size());
    }

    void errors_data()
    {
        QTest::addColumn<std::string>("spec");
        QTest::addColumn<std::string>("message");
        QTest::newRow("pattern with no roots")
            << std::string("regions=decoder.*") << std::string("the pattern 'decoder.*' selects no module");
        QTest::newRow("unknown input") << std::string("regions=blocks.*,inputs=arg0_1;nope")
                                       << std::string("inputs: 'nope' is not a placeholder of the graph");
        QTest::newRow("sequence chunking through attention")
            << std::string("regions=blocks.*.attn,dim=seq")
            << std::string(
                   "eager chunking: 'bmm' has the chunk axis in more than one dim ([16, 8, 8] in a chunk run), as "
                   "attention scores have under sequence chunking");
        QTest::newRow("a parameter named as a data input")
            << std::string("regions=blocks.*,inputs=arg0_1;arg1_1;arg2_1")
            << std::string("the data inputs disagree on the length of dim 0");
    }
    void errors()
    {
        QFETCH(std::string, spec);
        QFETCH(std::string, message);
        FXL_REQUIRE_CORPUS(fxltest::corpusPath("pytorch/gpt2_tiny.joint.code.py"));
        const Loaded l = load("gpt2_tiny");
        ExecOptions opts;
        opts.inputs = &l.inputs;
        opts.constants = &l.constants;
        try {
            runEagerChunking(*l.graph, parseChunkSpec(spec), opts);
            QFAIL("no error");
        } catch (const std::invalid_argument& e) {
            QVERIFY2(std::string(e.what()).find(message) != std::string::npos, e.what());
        }
    }

    // A hand-made AOT-style joint graph with a tangent and a mean loss:
    //   loss = mean(x * w); grad_w = sum(div(expand(tangents_1, [4, 3]), 12) * x, [0])
    // chunked as a whole in 2: the tangent is the seed (w_k = 1/2), the loss is 1/2 l0 + 1/2 l1,
    // and the traced count 12 of the mean's backward becomes the chunk's 6 (else grad_w would be
    // half of the unchunked one).
    void tangentSeedAndMeanBackward()
    {
        Graph g;
        auto meta = [](std::vector<int64_t> sizes) {
            TensorMeta m;
            for (int64_t v : sizes) m.sizes.emplace_back(v);
            m.strides = contiguousStrides(m.sizes);
            m.device = "cpu";
            return ValueMeta::ofTensor(m);
        };
        auto add = [&](const char* name, NodeOp op, const char* target, std::vector<Arg> args,
                       std::vector<int64_t> sizes) {
            Node n;
            n.name = name;
            n.op = op;
            n.target = target;
            n.args = std::move(args);
            if (op != NodeOp::Output) n.val = meta(std::move(sizes));
            return g.addNode(std::move(n));
        };
        auto list = [](std::vector<int64_t> v) {
            std::vector<Arg> items;
            for (int64_t x : v) items.push_back(Arg::ofInt(x));
            return Arg::ofList(std::move(items));
        };
        const NodeId x = add("x", NodeOp::Placeholder, "x", {}, {4, 3});
        const NodeId w = add("w", NodeOp::Placeholder, "w", {}, {3});
        const NodeId t = add("tangents_1", NodeOp::Placeholder, "tangents_1", {}, {});
        g.node(x).meta.desc = "PlainAOTInput(idx=0)";
        g.node(w).meta.desc = "ParamAOTInput(target='w')";
        g.node(t).meta.desc = "TangentAOTInput(idx=0)";
        const NodeId y = add("y", NodeOp::CallFunction, "aten.mul.Tensor", {Arg::ofNode(x), Arg::ofNode(w)}, {4, 3});
        const NodeId loss = add("loss", NodeOp::CallFunction, "aten.mean.default", {Arg::ofNode(y)}, {});
        const NodeId e =
            add("expand", NodeOp::CallFunction, "aten.expand.default", {Arg::ofNode(t), list({4, 3})}, {4, 3});
        const NodeId d = add("div", NodeOp::CallFunction, "aten.div.Scalar", {Arg::ofNode(e), Arg::ofInt(12)}, {4, 3});
        const NodeId m =
            add("mul_1", NodeOp::CallFunction, "aten.mul.Tensor", {Arg::ofNode(d), Arg::ofNode(x)}, {4, 3});
        const NodeId gw = add("grad_w", NodeOp::CallFunction, "aten.sum.dim_IntList", {Arg::ofNode(m), list({0})}, {3});
        add("output", NodeOp::Output, "output", {Arg::ofTuple({Arg::ofNode(loss), Arg::ofNode(gw)})}, {});
        g.rebuildUsers();

        auto backend = makeCpuBackend(CpuBackendOptions{1});
        ExecOptions opts;
        opts.backend = backend.get();
        opts.inputSeed = 7;
        const SafeTensorsFile plain = outputsToSafetensors(executeGraph(g, opts), *backend);
        const EagerChunkResult r = runEagerChunking(g, parseChunkSpec("chunks=2"), opts);
        QVERIFY(r.weighted);
        QCOMPARE(r.weighting, std::string("loss 'loss' is aten.mean.default; backward seed 'tangents_1' = w_k"));
        QCOMPARE(r.outputInfo.at(0).combine, ChunkCombine::WeightedSum);
        QCOMPARE(r.outputInfo.at(1).combine, ChunkCombine::Sum);
        QVERIFY(r.outputInfo.at(1).seedWeighted);
        QCOMPARE(r.regions.at(0).segments.at(0).rewrittenSizes,
                 (std::vector<std::string>{"expand: [4, 3] -> [2, 3] (chunk 0)", "div: divisor 12 -> 6 (chunk 0)",
                                           "expand: [4, 3] -> [2, 3] (chunk 1)", "div: divisor 12 -> 6 (chunk 1)"}));
        const SafeTensorsFile eager = eagerOutputsToSafetensors(r, *backend);
        for (const char* o : {"out_0", "out_1"}) {
            const double nw = normwiseUlp(*eager.find(o), *plain.find(o));
            QVERIFY2(nw >= 0 && nw <= 4, (std::string(o) + ": normwise ulp " + std::to_string(nw)).c_str());
        }
    }

    // A hand-made graph: a = relu(x) and c = add(a, b) are in "blk", b = neg(a) is not: blk's
    // forward cannot run as one unit (b needs it and it needs b).
    void segmentNotContractible()
    {
        Graph g;
        auto meta = [] {
            TensorMeta m;
            m.sizes = {SymInt(4), SymInt(3)};
            m.strides = contiguousStrides(m.sizes);
            m.device = "cpu";
            return ValueMeta::ofTensor(m);
        };
        auto add = [&](const char* name, NodeOp op, const char* target, std::vector<Arg> args, const char* module) {
            Node n;
            n.name = name;
            n.op = op;
            n.target = target;
            n.args = std::move(args);
            if (op != NodeOp::Output) n.val = meta();
            n.meta.modulePath = module;
            return g.addNode(std::move(n));
        };
        const NodeId x = add("x", NodeOp::Placeholder, "x", {}, "");
        g.node(x).meta.desc = "PlainAOTInput(idx=0)";
        const NodeId a = add("a", NodeOp::CallFunction, "aten.relu.default", {Arg::ofNode(x)}, "blk");
        const NodeId b = add("b", NodeOp::CallFunction, "aten.neg.default", {Arg::ofNode(a)}, "other");
        const NodeId c = add("c", NodeOp::CallFunction, "aten.add.Tensor", {Arg::ofNode(a), Arg::ofNode(b)}, "blk");
        add("output", NodeOp::Output, "output", {Arg::ofTuple({Arg::ofNode(c)})}, "");
        g.rebuildUsers();
        try {
            runEagerChunking(g, parseChunkSpec("regions=blk"), {});
            QFAIL("no error");
        } catch (const std::invalid_argument& e) {
            QCOMPARE(
                std::string(e.what()),
                std::string("eager chunking: the segment blk (forward) cannot be run as one unit: node 'b' outside "
                            "it is fed by it (from 'a') and feeds it ('c')"));
        }
        // "other" as the region instead: b alone is a segment, run per chunk, its output cat along dim 0
        EagerChunkResult r = runEagerChunking(g, parseChunkSpec("regions=other,chunks=2"), {});
        QCOMPARE(r.outputInfo.at(0).combine, ChunkCombine::Outside);
        QCOMPARE(r.regions.at(0).segments.at(0).liveOuts.at(0).combine, ChunkCombine::Cat);
        QCOMPARE(r.regions.at(0).segments.at(0).liveIns.at(0).how, std::string("sliced"));
        QCOMPARE(r.subgraphRuns, 2 + 1 + 1 + 1);  // b per chunk, its cat, a, then c (outside, after b)
    }

    // A hand-made graph: x [4, 3] is the data; y = t(x) [3, 4] outside the region feeds the
    // region "blk": its dim 0 has size 3, not N = 4.
    void liveInAxisSize()
    {
        Graph g;
        auto tensorMeta = [](std::vector<int64_t> sizes) {
            TensorMeta m;
            m.dtype = DType::F32;
            for (int64_t s : sizes) m.sizes.emplace_back(s);
            m.strides = contiguousStrides(m.sizes);
            m.device = "cpu";
            return ValueMeta::ofTensor(m);
        };
        Node x;
        x.name = x.target = "x";
        x.op = NodeOp::Placeholder;
        x.val = tensorMeta({4, 3});
        x.meta.desc = "PlainAOTInput(idx=0)";
        const NodeId xi = g.addNode(x);
        Node t;
        t.name = "y";
        t.target = "aten.t.default";
        t.args = {Arg::ofNode(xi)};
        t.val = tensorMeta({3, 4});
        t.meta.modulePath = "pre";
        const NodeId ti = g.addNode(t);
        Node r;
        r.name = "z";
        r.target = "aten.relu.default";
        r.args = {Arg::ofNode(ti)};
        r.val = tensorMeta({3, 4});
        r.meta.modulePath = "blk";
        const NodeId ri = g.addNode(r);
        Node o;
        o.name = "output";
        o.target = "output";
        o.op = NodeOp::Output;
        o.args = {Arg::ofTuple({Arg::ofNode(ri)})};
        g.addNode(o);
        g.rebuildUsers();
        try {
            runEagerChunking(g, parseChunkSpec("regions=blk"), {});
            QFAIL("no error");
        } catch (const std::invalid_argument& e) {
            QCOMPARE(std::string(e.what()),
                     std::string("eager chunking: the live-in 'y' of blk (forward) depends on the data inputs but has "
                                 "shape [3, 4]: its dim 0 (batch) should have size 4 (or 1, broadcast)"));
        }
        // the same graph chunked as a whole: y is inside; t(x) of a [2, 3] piece is [3, 2], so
        // the output is concatenated along dim 1
        EagerChunkResult w = runEagerChunking(g, parseChunkSpec("chunks=2"), {});
        QCOMPARE(w.outputInfo.at(0).combine, ChunkCombine::Cat);
        QCOMPARE(w.outputInfo.at(0).dim, 1);
        QCOMPARE(w.weighted, false);
    }

    // Graphs whose function needs the whole batch, chunked as a whole in 2 (x [4, 3] is the
    // data): the reference refuses each, naming the node and the reason, instead of computing
    // another function (eager_chunking_function.hpp).
    void refusesWholeAxis_data()
    {
        QTest::addColumn<QString>("body");
        QTest::addColumn<QString>("message");
        auto row = [](const char* name, const char* body, const char* message) {
            QTest::newRow(name) << QString::fromLatin1(body) << QString::fromLatin1(message);
        };
        row("batch statistics",
            "bn = torch.ops.aten.native_batch_norm.default(x, w, w, None, None, True, 0.1, 1e-05)\n"
            "        y: \"f32[4, 3]\" = bn[0]",
            "'bn' (aten.native_batch_norm.default) normalizes with batch statistics (training mode): mean and "
            "variance over every dim but the channels, and 'x' holds the chunk axis in dim 0");
        row("softmax over the batch", "y: \"f32[4, 3]\" = torch.ops.aten._softmax.default(x, 0, False)",
            "'y' (aten._softmax.default) normalizes along dim 0, and 'x' holds the chunk axis in dim 0");
        row("cumsum along the batch", "y: \"f32[4, 3]\" = torch.ops.aten.cumsum.default(x, 0)",
            "'y' (aten.cumsum.default) accumulates along dim 0");
        row("flip of the batch", "y: \"f32[4, 3]\" = torch.ops.aten.flip.default(x, [0])",
            "'y' (aten.flip.default) reverses the order along dim 0");
        row("select of one sample", "y: \"f32[3]\" = torch.ops.aten.select.int(x, 0, 1)",
            "'y' (aten.select.int) selects one index of the chunk axis (dim 0)");
        row("slice of the batch", "y: \"f32[2, 3]\" = torch.ops.aten.slice.Tensor(x, 0, 1, 3)",
            "'y' (aten.slice.Tensor) slices the chunk axis (dim 0, 1:3:1)");
        row("mean over the batch",
            "m: \"f32[3]\" = torch.ops.aten.mean.dim(x, [0])\n"
            "        y: \"f32[4, 3]\" = torch.ops.aten.sub.Tensor(x, m)",
            "'m' (aten.mean.dim) reduces over the chunk axis in a way that is not a plain sum");
        row("a partial sum used non-linearly",
            "s: \"f32[3]\" = torch.ops.aten.sum.dim_IntList(x, [0])\n"
            "        y: \"f32[3]\" = torch.ops.aten.relu.default(s)",
            "'y' (aten.relu.default) uses 's', this chunk's part of a sum over the chunk axis, other than by "
            "adding it up or scaling it");
        row("a whole value added to a partial sum",
            "s: \"f32[3]\" = torch.ops.aten.sum.dim_IntList(x, [0])\n"
            "        y: \"f32[3]\" = torch.ops.aten.add.Tensor(s, w)",
            "'y' (aten.add.Tensor) adds 'w', a value every chunk has whole, to 's', this chunk's part of a sum "
            "over the chunk axis: adding up the chunks would count 'w' once per chunk");
        row("a partial sum broadcast over the rows",
            "s: \"f32[3]\" = torch.ops.aten.sum.dim_IntList(x, [0])\n"
            "        y: \"f32[4, 3]\" = torch.ops.aten.mul.Tensor(x, s)",
            "'y' (aten.mul.Tensor) uses 's', this chunk's part of a sum over the chunk axis");
    }
    void refusesWholeAxis()
    {
        QFETCH(QString, body);
        QFETCH(QString, message);
        const std::string text = "class G(torch.nn.Module):\n    def forward(self, x: \"f32[4, 3]\", w: \"f32[3]\"):\n"
                                 "        "
            + body.toStdString() + "\n        return (y,)\n";
        const Graph g = parseFxText(text, "graph.py");
        ExecOptions opts;
        opts.inputSeed = 3;
        try {
            runEagerChunking(g, parseChunkSpec("inputs=x,chunks=2"), opts);
            QFAIL("not refused");
        } catch (const std::invalid_argument& e) {
            const std::string what = e.what();
            QVERIFY2(what.rfind("eager chunking: the whole graph: ", 0) == 0, e.what());
            QVERIFY2(what.find(message.toStdString()) != std::string::npos, e.what());
            QVERIFY2(what.ends_with("; the reference refuses this region"), e.what());
        }
    }

    // A live-out computed only from a value every chunk has whole (m, the batch mean taken
    // outside the region, passed whole as a broadcast live-in) is the same in every chunk: it is
    // taken from chunk 0, not summed over the chunks.
    void wholeLiveOutTakenOnce()
    {
        Graph g = parseFxText("class G(torch.nn.Module):\n"
                              "    def forward(self, x: \"f32[4, 3]\"):\n"
                              "        m: \"f32[1, 3]\" = torch.ops.aten.mean.dim(x, [0], True)\n"
                              "        y: \"f32[1, 3]\" = torch.ops.aten.mul.Tensor(m, 2)\n"
                              "        z: \"f32[4, 3]\" = torch.ops.aten.add.Tensor(x, y)\n"
                              "        return (z, y)\n",
                              "graph.py");
        g.node(g.findByName("y")).meta.modulePath = "blk";
        g.node(g.findByName("z")).meta.modulePath = "blk";
        auto backend = makeCpuBackend(CpuBackendOptions{1});
        ExecOptions opts;
        opts.backend = backend.get();
        opts.inputSeed = 5;
        const SafeTensorsFile plain = outputsToSafetensors(executeGraph(g, opts), *backend);
        const EagerChunkResult r = runEagerChunking(g, parseChunkSpec("regions=blk,inputs=x,chunks=2"), opts);
        QCOMPARE(r.regions.at(0).segments.at(0).liveIns.at(1).how, std::string("broadcast"));
        QCOMPARE(r.outputInfo.at(1).combine, ChunkCombine::Same);
        QCOMPARE(r.outputInfo.at(0).combine, ChunkCombine::Cat);
        const SafeTensorsFile eager = eagerOutputsToSafetensors(r, *backend);
        for (const char* o : {"out_0", "out_1"})
            QVERIFY2(compareTensors(o, *eager.find(o), *plain.find(o)).bitwiseEqual, o);
    }

    // What the reference accepts, right: per-row work, sums over the batch that are only added
    // up and scaled, a norm over the other dims; each equals the unchunked graph (bitwise, or
    // within 4 normwise ULP for a sum in chunk order).
    void acceptsPerRow_data()
    {
        QTest::addColumn<QString>("body");
        QTest::addColumn<QString>("combine");
        auto row = [](const char* name, const char* body, const char* combine) {
            QTest::newRow(name) << QString::fromLatin1(body) << QString::fromLatin1(combine);
        };
        row("softmax over the features", "y: \"f32[4, 3]\" = torch.ops.aten._softmax.default(x, 1, False)", "cat");
        row("sum over the batch, scaled",
            "s: \"f32[3]\" = torch.ops.aten.sum.dim_IntList(x, [0])\n"
            "        y: \"f32[3]\" = torch.ops.aten.mul.Tensor(s, w)",
            "sum");
        row("two partial sums added",
            "s: \"f32[3]\" = torch.ops.aten.sum.dim_IntList(x, [0])\n"
            "        e: \"f32[4, 3]\" = torch.ops.aten.exp.default(x)\n"
            "        t: \"f32[3]\" = torch.ops.aten.sum.dim_IntList(e, [0])\n"
            "        y: \"f32[3]\" = torch.ops.aten.add.Tensor(s, t)",
            "sum");
        row("layer norm of each row",
            "ln = torch.ops.aten.native_layer_norm.default(x, [3], w, w, 1e-05)\n"
            "        y: \"f32[4, 3]\" = ln[0]",
            "cat");
        row("a whole value only", "y: \"f32[3]\" = torch.ops.aten.mul.Tensor(w, w)", "same");
    }
    void acceptsPerRow()
    {
        QFETCH(QString, body);
        QFETCH(QString, combine);
        const std::string text = "class G(torch.nn.Module):\n    def forward(self, x: \"f32[4, 3]\", w: \"f32[3]\"):\n"
                                 "        "
            + body.toStdString() + "\n        return (y,)\n";
        const Graph g = parseFxText(text, "graph.py");
        auto backend = makeCpuBackend(CpuBackendOptions{1});
        ExecOptions opts;
        opts.backend = backend.get();
        opts.inputSeed = 3;
        const SafeTensorsFile plain = outputsToSafetensors(executeGraph(g, opts), *backend);
        const EagerChunkResult r = runEagerChunking(g, parseChunkSpec("inputs=x,chunks=2"), opts);
        QCOMPARE(QString::fromLatin1(chunkCombineName(r.regions.at(0).segments.at(0).liveOuts.at(0).combine).data()),
                 combine);
        const SafeTensorsFile eager = eagerOutputsToSafetensors(r, *backend);
        const double nw = normwiseUlp(*eager.find("out_0"), *plain.find("out_0"));
        QVERIFY2(nw >= 0 && nw <= 4, ("normwise ulp " + std::to_string(nw)).c_str());
    }
};

FXL_TEST_GUILESS_MAIN(TestEagerChunking)
}  // namespace test_eager_chunking
#include "test_eager_chunking.moc"
