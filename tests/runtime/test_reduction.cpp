// The reduction kernel family (sum/mean/var_mean/amax/max/argmax/cumsum/bincount, softmax and
// log_softmax with their backward, native_layer_norm (+ backward), nll_loss (+ backward),
// mse_loss (+ backward), embedding_dense_backward, native_group_norm (+ backward),
// native_batch_norm (+ backward), _native_batch_norm_legit (.default, .no_stats, _functional,
// _no_training), _cdist_forward, _pdist_forward, _embedding_bag):
// - PyTorch 1.13 CPU references (tests/data/kernels/reduction.*, made by gen_reduction_refs.py):
//   allclose |a-e| <= 1e-6 + 1e-5|e| for f32 (worst ratio per op printed), 1 ulp for bf16/f16,
//   1e-12 + 1e-10|e| for f64, exact for integers; NaN where PyTorch has NaN;
// - the numerics contract itself: sumOrdered equals an independent implementation of the
//   documented order, and the column-tiled path equals the per-output path bitwise;
// - 1 vs 2 vs 3 threads bitwise for every reference case (larger inputs and batch invariance:
//   test_reduction_invariance);
// - bad inputs raise KernelError; every reduction-family op of the corpus graphs runs on
//   inputs shaped like the recorded meta and gives the recorded shapes and dtypes.
#include <QtTest>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <random>
#include <set>

#include <nlohmann/json.hpp>

#include "core/formats/fx/fx_text_parser.hpp"
#include "core/formats/safetensors.hpp"
#include "core/formats/source.hpp"
#include "core/ops/op_registry.hpp"
#include "core/ops/shape_prop.hpp"
#include "kernel_test_util.hpp"
#include "reduction_test_util.hpp"
#include "runtime/base/backend.hpp"
#include "runtime/base/kernel.hpp"
#include "runtime/cpu/cpu_backend.hpp"
#include "runtime/cpu/cpu_common.hpp"
#include "runtime/cpu/cpu_reduction.hpp"
#include "runtime/exec/executor.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_reduction {

using namespace fxl;
using namespace kerneltest;
using namespace reductiontest;
namespace fs = std::filesystem;

namespace {

const fs::path kData = fxltest::testDataPath("kernels");

// corpusOps: at least this many distinct calls run per corpus graph (the count when this was
// written, lowered by a tenth from 10 on), so a row cannot pass having run nothing. 0 where no
// family node runs: the bw partitions' inputs carry no recorded meta (meta.json describes the
// joint graph), and some partitions have no node of the family.
const std::map<std::string, int> kCorpusFloors = {
    {"checkpoint_mlp.joint.code.py", 1},  // 1 counted
    {"gpt2_deep640.joint.code.py", 13},  // 14 counted
    {"gpt2_tiny.bw.default.code.py", 0},  // 0 counted
    {"gpt2_tiny.bw.mincut.code.py", 0},  // 0 counted
    {"gpt2_tiny.fw.default.code.py", 4},  // 4 counted
    {"gpt2_tiny.fw.mincut.code.py", 4},  // 4 counted
    {"gpt2_tiny.joint.code.py", 13},  // 14 counted
    {"linear_ce.bw.default.code.py", 0},  // 0 counted
    {"linear_ce.bw.mincut.code.py", 0},  // 0 counted
    {"linear_ce.fw.default.code.py", 2},  // 2 counted
    {"linear_ce.fw.mincut.code.py", 2},  // 2 counted
    {"linear_ce.joint.code.py", 4},  // 4 counted
    {"llama_tiny.bw.default.code.py", 0},  // 0 counted
    {"llama_tiny.bw.mincut.code.py", 0},  // 0 counted
    {"llama_tiny.fw.default.code.py", 4},  // 4 counted
    {"llama_tiny.fw.mincut.code.py", 4},  // 4 counted
    {"llama_tiny.joint.code.py", 9},  // 10 counted
    {"mlp_gelu.bw.default.code.py", 0},  // 0 counted
    {"mlp_gelu.bw.mincut.code.py", 0},  // 0 counted
    {"mlp_gelu.fw.default.code.py", 1},  // 1 counted
    {"mlp_gelu.fw.mincut.code.py", 1},  // 1 counted
    {"mlp_gelu.joint.code.py", 1},  // 1 counted
    {"moe_dispatch.joint.code.py", 6},  // 6 counted
    {"moe_tiny.joint.code.py", 6},  // 6 counted
};

// The ops of this family (corpus graphs use all but the max family, var_mean and cumsum).
const std::set<std::string> kFamily = {"aten.sum.default",
                                       "aten.sum.dim_IntList",
                                       "aten.mean.default",
                                       "aten.mean.dim",
                                       "aten.var_mean.correction",
                                       "aten.var.correction",
                                       "aten.var.dim",
                                       "aten.amin.default",
                                       "aten.argmin.default",
                                       "aten.min.dim",
                                       "aten.any.default",
                                       "aten.any.dim",
                                       "aten.any.dims",
                                       "aten.prod.default",
                                       "aten.prod.dim_int",
                                       "aten.amax.default",
                                       "aten.max.default",
                                       "aten.max.dim",
                                       "aten.argmax.default",
                                       "aten.cumsum.default",
                                       "aten.bincount.default",
                                       "aten._softmax.default",
                                       "aten._log_softmax.default",
                                       "aten._softmax_backward_data.default",
                                       "aten._log_softmax_backward_data.default",
                                       "aten._safe_softmax.default",
                                       "aten.native_layer_norm.default",
                                       "aten.native_layer_norm_backward.default",
                                       "aten.nll_loss_forward.default",
                                       "aten.nll_loss_backward.default",
                                       "aten.mse_loss.default",
                                       "aten.mse_loss_backward.default",
                                       "aten.embedding_dense_backward.default",
                                       "aten.native_group_norm.default",
                                       "aten.native_group_norm_backward.default",
                                       "aten.native_batch_norm.default",
                                       "aten.native_batch_norm_backward.default",
                                       "aten._native_batch_norm_legit.default",
                                       "aten._native_batch_norm_legit.no_stats",
                                       "aten._native_batch_norm_legit_no_training.default",
                                       "aten._native_batch_norm_legit_functional.default",
                                       "aten._cdist_forward.default",
                                       "aten._pdist_forward.default",
                                       "aten._embedding_bag.default"};
// ---- comparisons

struct Verdict
{
    bool ok = true;
    std::string why;
    double worstRatio = 0;  // f32/f64: max |a-e| / (atol + rtol |e|)
    int32_t worstUlp = 0;  // bf16/f16
};

Verdict compareToRef(Backend& be, const Tensor& a, const SafeTensor& e)
{
    Verdict v;
    if (a.sizes() != e.shape) {
        v.ok = false;
        v.why = "shape " + describe(a) + " vs expected rank " + std::to_string(e.shape.size());
        return v;
    }
    if (a.dtype() != e.dtype) {
        v.ok = false;
        v.why = std::string("dtype ") + std::string(dtypeAbbr(a.dtype())) + " vs " + std::string(dtypeAbbr(e.dtype));
        return v;
    }
    const std::vector<uint8_t> ab = bytesOf(be, a);
    const int64_t n = a.numel(), is = a.itemSize();
    for (int64_t k = 0; k < n; ++k) {
        const uint8_t* pa = ab.data() + k * is;
        const uint8_t* pe = e.data.data() + k * is;
        auto fail = [&](const std::string& msg) {
            if (v.ok) {
                v.ok = false;
                v.why = "element " + std::to_string(k) + ": " + msg;
            }
        };
        if (!isFloatingPoint(a.dtype())) {
            if (std::memcmp(pa, pe, static_cast<size_t>(is)) != 0)
                fail(std::to_string(cpu::loadAsDouble(pa, a.dtype())) + " vs "
                     + std::to_string(cpu::loadAsDouble(pe, a.dtype())));
            continue;
        }
        const double x = cpu::loadAsDouble(pa, a.dtype()), y = cpu::loadAsDouble(pe, a.dtype());
        if (std::isnan(x) || std::isnan(y)) {
            if (std::isnan(x) != std::isnan(y)) fail(std::to_string(x) + " vs " + std::to_string(y));
            continue;
        }
        if (std::isinf(x) || std::isinf(y)) {
            if (x != y) fail(std::to_string(x) + " vs " + std::to_string(y));
            continue;
        }
        if (a.dtype() == DType::BF16 || a.dtype() == DType::F16) {
            uint16_t ha, he;
            std::memcpy(&ha, pa, 2);
            std::memcpy(&he, pe, 2);
            const int32_t d = std::abs(ordered16(ha) - ordered16(he));
            v.worstUlp = std::max(v.worstUlp, d);
            if (d > 1) fail(std::to_string(x) + " vs " + std::to_string(y) + " (" + std::to_string(d) + " ulp)");
            continue;
        }
        const double atol = a.dtype() == DType::F64 ? 1e-12 : 1e-6, rtol = a.dtype() == DType::F64 ? 1e-10 : 1e-5;
        const double r = std::abs(x - y) / (atol + rtol * std::abs(y));
        v.worstRatio = std::max(v.worstRatio, r);
        if (r > 1.0) fail(QString::asprintf("%.9g vs %.9g (ratio %.3g)", x, y, r).toStdString());
    }
    return v;
}

// ---- the reference data
const RefFile& refs()
{
    static const RefFile r = [] {
        RefFile f;
        f.load(kData, "reduction");
        return f;
    }();
    return r;
}

// ---- an independent implementation of the documented summation order: blocks of 128, 8
// lanes + fixed tree per block, then the block values as complete binary trees over the
// binary decomposition of the block count (largest first), folded right to left.
float treeOf(const std::vector<float>& b, size_t lo, size_t n)
{
    if (n == 1) return b[lo];
    return treeOf(b, lo, n / 2) + treeOf(b, lo + n / 2, n / 2);
}
float contractReference(const std::vector<float>& x)
{
    std::vector<float> blocks;
    for (size_t b0 = 0; b0 < x.size(); b0 += 128) {
        float l[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        for (size_t i = b0; i < std::min(x.size(), b0 + 128); ++i) l[(i - b0) % 8] += x[i];
        blocks.push_back(((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7])));
    }
    if (blocks.empty()) return 0.0f;
    std::vector<float> parts;
    size_t lo = 0;
    for (int bit = 62; bit >= 0; --bit) {
        const size_t p = size_t(1) << bit;
        if (blocks.size() & p) {
            parts.push_back(treeOf(blocks, lo, p));
            lo += p;
        }
    }
    float v = parts.back();
    for (size_t k = parts.size() - 1; k-- > 0;) v = parts[k] + v;
    return v;
}

std::map<std::string, double>& worstRatios()
{
    static std::map<std::string, double> m;
    return m;
}
std::map<std::string, int32_t>& worstUlps()
{
    static std::map<std::string, int32_t> m;
    return m;
}
std::map<std::string, int32_t>& worstUlpsVsTorch()
{
    static std::map<std::string, int32_t> m;
    return m;
}

}  // namespace

class TestReduction : public QObject
{
    Q_OBJECT

    std::unique_ptr<Backend> be1_, be2_, be3_;

private slots:
    void initTestCase()
    {
        be1_ = makeCpuBackend({1});
        be2_ = makeCpuBackend({2});
        be3_ = makeCpuBackend({3});
    }

    void cleanupTestCase()
    {
        for (const auto& [op, r] : worstRatios()) qInfo("worst f32 allclose ratio %-44s %.4f", op.c_str(), r);
        for (const auto& [op, u] : worstUlps()) qInfo("worst bf16/f16 ulp      %-44s %d", op.c_str(), u);
        for (const auto& [op, u] : worstUlpsVsTorch())
            qInfo("bf16/f16 ulp vs PyTorch's 16-bit output (info) %-44s %d", op.c_str(), u);
    }

    // _native_batch_norm_legit (and native_batch_norm) in training update the running stats
    // in place to the values _native_batch_norm_legit_functional returns (those are checked
    // against PyTorch's in pytorchRefs); no_training and eval leave them as they are.
    void batchNormRunningStats_data()
    {
        QTest::addColumn<std::string>("target");
        QTest::addColumn<bool>("training");
        QTest::newRow("legit train") << std::string("aten._native_batch_norm_legit.default") << true;
        QTest::newRow("native train") << std::string("aten.native_batch_norm.default") << true;
        QTest::newRow("legit eval") << std::string("aten._native_batch_norm_legit.default") << false;
        QTest::newRow("no_training") << std::string("aten._native_batch_norm_legit_no_training.default") << false;
    }
    void batchNormRunningStats()
    {
        QFETCH(std::string, target);
        QFETCH(bool, training);
        Backend& be = *be2_;
        const Tensor x = randomTensor(be, {6, 3, 7}, DType::F32, 41), w = randomTensor(be, {3}, DType::F32, 42);
        const Tensor rm0 = randomTensor(be, {3}, DType::F32, 43);
        Tensor rv0 = randomTensor(be, {3}, DType::F32, 44);
        for (int64_t c = 0; c < 3; ++c) rv0.data<float>()[c] = std::abs(rv0.data<float>()[c]) + 0.5f;
        auto copyOf = [&](const Tensor& t) {
            Tensor c = be.empty(t.sizes(), t.dtype());
            be.copy(c, t);
            return c;
        };
        const Tensor rm = copyOf(rm0), rv = copyOf(rv0);
        NamedArgs args{{"input", tv(x)},         {"weight", tv(w)},       {"bias", Value::none()},
                       {"running_mean", tv(rm)}, {"running_var", tv(rv)}, {"momentum", fv(0.1)},
                       {"eps", fv(1e-5)}};
        if (target != "aten._native_batch_norm_legit_no_training.default") args["training"] = bv(training);
        const auto r = runOp(be, target, args);
        const auto f = runOp(be, "aten._native_batch_norm_legit_functional.default",
                             {{"input", tv(x)},
                              {"weight", tv(w)},
                              {"bias", Value::none()},
                              {"running_mean", tv(rm0)},
                              {"running_var", tv(rv0)},
                              {"training", bv(training)},
                              {"momentum", fv(0.1)},
                              {"eps", fv(1e-5)}});
        QCOMPARE(f.size(), size_t(5));
        QVERIFY(sameBits(be, r[0], f[0]));
        QVERIFY(sameBits(be, rm, f[3]));
        QVERIFY(sameBits(be, rv, f[4]));
        QCOMPARE(sameBits(be, rm, rm0), !training);
        QCOMPARE(sameBits(be, rv, rv0), !training);
        // momentum 0.1: r = 0.9 r + 0.1 s (the variance unbiased, M = 42)
        if (training) {
            const float mean0 = r[1].data<float>()[0];
            QVERIFY(std::abs(rm.data<float>()[0] - (0.9f * rm0.data<float>()[0] + 0.1f * mean0)) < 1e-6f);
        }
    }

    // The meta functions of the norm / distance / embedding-bag ops give the shapes and dtypes
    // their kernels return (every tensor output of each).
    void normAndBagMeta()
    {
        const std::string text = R"(class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[4, 6, 5]", w: "f32[6]", rm: "f32[6]", rv: "f32[6]", xb: "bf16[4, 6, 5]", a: "f32[2, 5, 3]", b: "f32[1, 4, 3]", p2: "f32[8, 15]", emb: "f16[10, 4]", embf: "f32[10, 4]"):
        idx = torch.ops.aten.arange.default(7, dtype = torch.int32)
        offs = torch.ops.aten.arange.start_step(0, 7, 3, dtype = torch.int32)
        gn = torch.ops.aten.native_group_norm.default(xb, None, None, 4, 6, 5, 3, 1e-05)
        gn0 = gn[0]
        gn1 = gn[1]
        gn2 = gn[2]
        gnb = torch.ops.aten.native_group_norm_backward.default(gn0, xb, gn1, gn2, None, 4, 6, 5, 3, [True, True, True])
        gnb0 = gnb[0]
        gnb1 = gnb[1]
        gnb2 = gnb[2]
        bn = torch.ops.aten._native_batch_norm_legit.default(xb, w, w, rm, rv, True, 0.1, 1e-05)
        bn0 = bn[0]
        bn1 = bn[1]
        bn2 = bn[2]
        nt = torch.ops.aten._native_batch_norm_legit_no_training.default(x, w, None, rm, rv, 0.1, 1e-05)
        nt0 = nt[0]
        nt1 = nt[1]
        ns = torch.ops.aten._native_batch_norm_legit.no_stats(x, None, None, True, 0.1, 1e-05)
        ns1 = ns[1]
        nb = torch.ops.aten.native_batch_norm_backward.default(x, x, w, rm, rv, ns1, ns1, True, 1e-05, [True, True, False])
        nb0 = nb[0]
        nb1 = nb[1]
        bf = torch.ops.aten._native_batch_norm_legit_functional.default(x, w, w, rm, rv, True, 0.1, 1e-05)
        bf0 = bf[0]
        bf1 = bf[1]
        bf3 = bf[3]
        cd = torch.ops.aten._cdist_forward.default(a, b, 1.0, None)
        pd = torch.ops.aten._pdist_forward.default(p2, 2.0)
        eb = torch.ops.aten._embedding_bag.default(emb, idx, offs, False, 2, False, None, False, -1)
        eb0 = eb[0]
        eb1 = eb[1]
        eb2 = eb[2]
        eb3 = eb[3]
        es = torch.ops.aten._embedding_bag.default(embf, idx, offs, False, 0, False, None, False, -1)
        es1 = es[1]
        es3 = es[3]
        return (gn0, gn1, gn2, gnb0, gnb1, gnb2, bn0, bn1, bn2, nt0, nt1, ns1, nb0, nb1, bf0, bf1, bf3, cd, pd, eb0, eb1, eb2, eb3, es1, es3)
)";
        Graph g = parseFxText(text, "norm_meta");
        ShapePropOptions o;
        o.overwrite = true;
        const ShapePropResult pr = propagateShapes(g, o);
        QVERIFY2(pr.problems.empty(), pr.problems.empty() ? "" : pr.problems[0].c_str());
        ExecOptions eo;
        eo.inputSeed = 1;
        const ExecResult r = executeGraph(g, eo);
        const auto& items = g.node(g.outputNode()).args.at(0).items;
        QCOMPARE(r.outputs.size(), items.size());
        QCOMPARE(items.size(), size_t(25));
        for (size_t k = 0; k < items.size(); ++k) {
            const Node& n = g.node(items[k].node);
            QVERIFY2(n.val.isTensor() && r.outputs[k].isTensor(), n.name.c_str());
            std::vector<int64_t> sizes;
            for (const auto& sz : n.val.tensor.sizes) sizes.push_back(sz.valueOrHint());
            QVERIFY2(sizes == r.outputs[k].tensor.sizes(), n.name.c_str());
            QVERIFY2(n.val.tensor.dtype == r.outputs[k].tensor.dtype(), n.name.c_str());
        }
        // the fast-path sum's offset2bag is empty, the max form's max_indices [bags, D]
        QCOMPARE(r.outputs[23].tensor.numel(), int64_t(0));
        QCOMPARE(r.outputs[22].tensor.sizes(), (std::vector<int64_t>{3, 4}));
    }

    void kernelsRegistered()
    {
        for (const std::string& t : kFamily) {
            QVERIFY2(OpRegistry::instance().find(t), t.c_str());
            QVERIFY2(KernelRegistry::instance().find(t, DeviceKind::Cpu), t.c_str());
        }
    }

    // ---------------- PyTorch references
    void pytorchRefs_data()
    {
        QTest::addColumn<int>("index");
        const RefFile& r = refs();
        if (!r.doc.is_object())
            QFAIL("tests/data/kernels/reduction.cases.json missing: run tests/runtime/gen_reduction_refs.py");
        const auto& cs = r.doc.at("cases");
        for (size_t k = 0; k < cs.size(); ++k) {
            const std::string id = cs[k].at("id").get<std::string>() + " " + cs[k].at("note").get<std::string>();
            QTest::newRow(id.c_str()) << static_cast<int>(k);
        }
    }

    void pytorchRefs()
    {
        QFETCH(int, index);
        const nlohmann::json& c = refs().doc.at("cases").at(static_cast<size_t>(index));
        const std::string target = c.at("op").get<std::string>();
        const OpInfo* op = OpRegistry::instance().find(target);
        QVERIFY2(op, target.c_str());
        QCOMPARE(c.at("args").size(), op->schema.args.size());
        std::vector<std::vector<Tensor>> results;
        for (Backend* be : {be1_.get(), be2_.get(), be3_.get()}) {
            std::vector<Value> args;
            for (const auto& a : c.at("args")) args.push_back(caseArg(*be, refs(), a));
            try {
                results.push_back(runCall(*be, op, args));
            } catch (const KernelError& e) {
                QFAIL(e.what());
            }
        }
        const auto& outs = c.at("outputs");
        QCOMPARE(results[0].size(), outs.size());
        for (size_t k = 0; k < outs.size(); ++k) {
            // threads never change a bit
            QVERIFY2(sameBits(*be1_, results[0][k], results[1][k]), "1 vs 2 threads differ");
            QVERIFY2(sameBits(*be1_, results[0][k], results[2][k]), "1 vs 3 threads differ");
            if (outs[k].is_null()) {
                QVERIFY2(!results[0][k].defined(), "expected None");
                continue;
            }
            QVERIFY2(results[0][k].defined(), "expected a tensor, got None");
            const SafeTensor* e = refs().byKey.at(outs[k].get<std::string>());
            const bool half = results[0][k].dtype() == DType::BF16 || results[0][k].dtype() == DType::F16;
            if (half && c.contains("outputs_f64") && !c.at("outputs_f64").at(k).is_null()) {
                // PyTorch's own 16-bit output (it rounds intermediates): reported only
                const Verdict pt = compareToRef(*be1_, results[0][k], *e);
                worstUlpsVsTorch()[target] = std::max(worstUlpsVsTorch()[target], pt.worstUlp);
                // the correctly rounded result (the op in float64, rounded once): within 1 ulp
                const SafeTensor* e64 = refs().byKey.at(c.at("outputs_f64").at(k).get<std::string>());
                SafeTensor rounded = *e64;
                rounded.dtype = results[0][k].dtype();
                rounded.data.assign(static_cast<size_t>(e64->numel() * 2), 0);
                for (int64_t i = 0; i < e64->numel(); ++i)
                    cpu::storeFromDouble(rounded.data.data() + i * 2, rounded.dtype,
                                         cpu::loadAsDouble(e64->data.data() + i * 8, DType::F64));
                const Verdict v = compareToRef(*be1_, results[0][k], rounded);
                worstUlps()[target] = std::max(worstUlps()[target], v.worstUlp);
                QVERIFY2(v.ok,
                         qPrintable(
                             QString("output %1 vs float64 reference: %2").arg(k).arg(QString::fromStdString(v.why))));
                continue;
            }
            const Verdict v = compareToRef(*be1_, results[0][k], *e);
            if (results[0][k].dtype() == DType::F32)
                worstRatios()[target] = std::max(worstRatios()[target], v.worstRatio);
            if (results[0][k].dtype() == DType::BF16 || results[0][k].dtype() == DType::F16)
                worstUlps()[target] = std::max(worstUlps()[target], v.worstUlp);
            QVERIFY2(v.ok, qPrintable(QString("output %1: %2").arg(k).arg(QString::fromStdString(v.why))));
        }
    }

    // ---------------- the numerics contract
    void contractOrder()
    {
        std::mt19937 rng(7);
        std::normal_distribution<float> nd(0.0f, 1.0f);
        for (int64_t n : {0, 1, 2, 7, 8, 9, 15, 127, 128, 129, 255, 256, 257, 384, 640, 1000, 4096, 5000, 12345}) {
            std::vector<float> x(static_cast<size_t>(n));
            for (auto& v : x) v = nd(rng) * 100.0f;
            const float got = cpu::red::sumOrdered<float>(n, [&](int64_t i) { return x[static_cast<size_t>(i)]; });
            const float want = contractReference(x);
            QVERIFY2(std::memcmp(&got, &want, 4) == 0, qPrintable(QString("n=%1: %2 vs %3").arg(n).arg(got).arg(want)));
            // the tile path: every width gives each output's own sequence
            for (int T : {1, 3, 8, 64}) {
                std::vector<float> y(static_cast<size_t>(n * T));
                for (auto& v : y) v = nd(rng);
                float out[64];
                cpu::red::sumOrderedTile<float>(
                    n, T, [&](int t, int64_t i) { return y[static_cast<size_t>(i * T + t)]; }, out);
                for (int t = 0; t < T; ++t) {
                    const float s =
                        cpu::red::sumOrdered<float>(n, [&](int64_t i) { return y[static_cast<size_t>(i * T + t)]; });
                    QVERIFY2(std::memcmp(&s, &out[t], 4) == 0,
                             qPrintable(QString("tile n=%1 T=%2 t=%3").arg(n).arg(T).arg(t)));
                }
            }
        }
    }

    // Column reduction (tiled over outputs) vs row reduction (per output) of the same data.
    void tileVsScalarPath()
    {
        Backend& be = *be2_;
        for (auto [R, C] : {std::pair<int64_t, int64_t>{513, 300}, {1000, 7}, {129, 65}, {3, 200}}) {
            for (DType dt : {DType::F32, DType::BF16, DType::F64}) {
                Tensor x = randomTensor(be, {R, C}, dt, static_cast<uint32_t>(R * C));
                Tensor xt = be.empty({C, R}, dt);
                be.copy(xt.asStrided({R, C}, {1, R}, 0), x);  // xt = x^T, contiguous
                const Tensor a = runOp(be, "aten.sum.dim_IntList", {{"self", tv(x)}, {"dim", sizesValue({0})}})[0];
                const Tensor b = runOp(be, "aten.sum.dim_IntList", {{"self", tv(xt)}, {"dim", sizesValue({1})}})[0];
                QVERIFY2(sameBits(be, a, b), qPrintable(QString("sum over rows %1x%2").arg(R).arg(C)));
                const Tensor m1 = runOp(be, "aten.mean.dim", {{"self", tv(x)}, {"dim", sizesValue({0})}})[0];
                const Tensor m2 = runOp(be, "aten.mean.dim", {{"self", tv(xt)}, {"dim", sizesValue({1})}})[0];
                QVERIFY(sameBits(be, m1, m2));
                // and the single-output full sum has the same order as a row
                const Tensor col = chunk(x, 1, 0, 1);  // [R, 1] strided column
                const Tensor s1 = runOp(be, "aten.sum.default", {{"self", tv(col)}})[0];
                QVERIFY(sameBits(be, s1, a.asStrided({}, {}, a.offset())));
            }
        }
    }

    // ---------------- semantics not covered by PyTorch references
    void embeddingBackwardOrder()
    {
        // the sum per vocabulary row is the contract's sum of its tokens' rows in token order
        Backend& be = *be1_;
        const int64_t K = 700, D = 3;
        Tensor ids = randomInts(be, {K}, 0, 3, 41);
        Tensor g = randomTensor(be, {K, D}, DType::F32, 42, 10.0);
        const Tensor out = runOp(be, "aten.embedding_dense_backward.default",
                                 {{"grad_output", tv(g)},
                                  {"indices", tv(ids)},
                                  {"num_weights", iv(4)},
                                  {"padding_idx", iv(1)},
                                  {"scale_grad_by_freq", bv(false)}})[0];
        for (int64_t v = 0; v < 4; ++v)
            for (int64_t j = 0; j < D; ++j) {
                std::vector<float> terms;
                for (int64_t k = 0; k < K; ++k)
                    if (ids.data<int64_t>()[k] == v && v != 1) terms.push_back(g.data<float>()[k * D + j]);
                const float want = contractReference(terms);
                const float got = out.data<float>()[v * D + j];
                QVERIFY2(std::memcmp(&want, &got, 4) == 0, qPrintable(QString("row %1 col %2").arg(v).arg(j)));
            }
    }

    void safeSoftmax()
    {
        // no reference in PyTorch 1.13: equal to _softmax on ordinary rows, zeros on fully
        // masked rows (where _softmax gives NaN), -inf entries of partly masked rows give 0
        Backend& be = *be2_;
        Tensor x = randomTensor(be, {5, 9}, DType::F32, 49);
        float* p = x.data<float>();
        const float ninf = -std::numeric_limits<float>::infinity();
        for (int j = 0; j < 9; ++j) p[1 * 9 + j] = ninf;
        for (int j = 4; j < 9; ++j) p[3 * 9 + j] = ninf;
        const Tensor s = runOp(be, "aten._safe_softmax.default", {{"self", tv(x)}, {"dim", iv(-1)}})[0];
        const Tensor r =
            runOp(be, "aten._softmax.default", {{"self", tv(x)}, {"dim", iv(-1)}, {"half_to_float", bv(false)}})[0];
        for (int64_t i = 0; i < 5; ++i) {
            if (i == 1) {
                for (int j = 0; j < 9; ++j) {
                    QCOMPARE(s.data<float>()[i * 9 + j], 0.0f);
                    QVERIFY(std::isnan(r.data<float>()[i * 9 + j]));
                }
                continue;
            }
            QVERIFY(sameBits(be, chunk(s, 0, i, 1), chunk(r, 0, i, 1)));
        }
        QCOMPARE(s.data<float>()[3 * 9 + 5], 0.0f);
        // dtype=float64 computes in float64
        const Tensor d = runOp(be, "aten._safe_softmax.default",
                               {{"self", tv(x)}, {"dim", iv(-1)}, {"dtype", dtypeValue(DType::F64)}})[0];
        QCOMPARE(d.dtype(), DType::F64);
        QVERIFY(std::abs(d.data<double>()[0] - r.data<float>()[0]) < 1e-6);
    }

    void layerNormBackwardWithoutWeight()
    {
        // PyTorch 1.13 CPU crashes for weight=None with output_mask[1]; the meta (and this
        // kernel) return None for the gradients of absent parameters.
        Backend& be = *be1_;
        Tensor x = randomTensor(be, {4, 8}, DType::F32, 43), g = randomTensor(be, {4, 8}, DType::F32, 44);
        const auto f = runOp(be, "aten.native_layer_norm.default",
                             {{"input", tv(x)},
                              {"normalized_shape", sizesValue({8})},
                              {"weight", Value::none()},
                              {"bias", Value::none()},
                              {"eps", fv(1e-5)}});
        const auto r = runOp(be, "aten.native_layer_norm_backward.default",
                             {{"grad_out", tv(g)},
                              {"input", tv(x)},
                              {"normalized_shape", sizesValue({8})},
                              {"mean", tv(f[1])},
                              {"rstd", tv(f[2])},
                              {"weight", Value::none()},
                              {"bias", Value::none()},
                              {"output_mask", bools({true, true, true})}});
        QCOMPARE(r.size(), size_t(3));
        QVERIFY(r[0].defined());
        QVERIFY(!r[1].defined());
        QVERIFY(!r[2].defined());
    }

    void badInputs()
    {
        Backend& be = *be1_;
        Tensor x = randomTensor(be, {4, 5}, DType::F32, 45);
        Tensor t = randomInts(be, {4}, 0, 5, 46);
        t.data<int64_t>()[2] = 5;
        QVERIFY_THROWS_EXCEPTION(KernelError,
                                 runOp(be, "aten.nll_loss_forward.default",
                                       {{"self", tv(x)},
                                        {"target", tv(t)},
                                        {"weight", Value::none()},
                                        {"reduction", iv(1)},
                                        {"ignore_index", iv(-100)}}));
        Tensor ids = randomInts(be, {4}, 0, 3, 47);
        ids.data<int64_t>()[1] = 9;
        QVERIFY_THROWS_EXCEPTION(KernelError,
                                 runOp(be, "aten.embedding_dense_backward.default",
                                       {{"grad_output", tv(x)},
                                        {"indices", tv(ids)},
                                        {"num_weights", iv(3)},
                                        {"padding_idx", iv(-1)},
                                        {"scale_grad_by_freq", bv(false)}}));
        QVERIFY_THROWS_EXCEPTION(KernelError,
                                 runOp(be, "aten.native_layer_norm.default",
                                       {{"input", tv(x)},
                                        {"normalized_shape", sizesValue({4})},
                                        {"weight", Value::none()},
                                        {"bias", Value::none()},
                                        {"eps", fv(1e-5)}}));
        QVERIFY_THROWS_EXCEPTION(KernelError,
                                 runOp(be, "aten.sum.dim_IntList", {{"self", tv(x)}, {"dim", sizesValue({2})}}));
        QVERIFY_THROWS_EXCEPTION(KernelError,
                                 runOp(be, "aten.sum.dim_IntList", {{"self", tv(x)}, {"dim", sizesValue({1, -1})}}));
        Tensor neg = randomInts(be, {4}, -2, 0, 48);
        QVERIFY_THROWS_EXCEPTION(KernelError, runOp(be, "aten.bincount.default", {{"self", tv(neg)}}));
        Tensor empty = be.empty({0, 3}, DType::F32);
        QVERIFY_THROWS_EXCEPTION(KernelError,
                                 runOp(be, "aten.amax.default", {{"self", tv(empty)}, {"dim", sizesValue({0})}}));
        QVERIFY_THROWS_EXCEPTION(KernelError, runOp(be, "aten.mean.dim", {{"self", tv(t)}, {"dim", sizesValue({0})}}));
    }

    // ---------------- the corpus graphs: every reduction-family node runs on inputs shaped
    // like its recorded meta and produces the recorded shapes and dtypes (None where the meta
    // has no tensor)
    void corpusOps_data()
    {
        QTest::addColumn<std::string>("path");
        for (const std::string& f : corpusCodeFiles()) QTest::newRow(fs::path(f).filename().string().c_str()) << f;
    }

    void corpusOps()
    {
        QFETCH(std::string, path);
        FXL_REQUIRE_CORPUS(path);
        auto src = openSource(path);
        QVERIFY(src && !src->artifacts.empty());
        auto g = src->graph(src->artifacts[0].id);
        QVERIFY(g);
        CorpusRunOptions o;
        o.family = kFamily;
        o.makeInput = [](Backend& be, const TensorMeta& m, uint32_t seed) {
            const std::vector<int64_t> sizes = concrete(m.sizes, 1), strides = concrete(m.strides, 1);
            // index-like inputs (targets, token ids, counts): small valid values
            Tensor t = isFloatingPoint(m.dtype) ? randomTensor(be, sizes, m.dtype, seed)
                                                : randomInts(be, sizes, 0, 4, seed, m.dtype);
            if (strides.size() == sizes.size() && !strides.empty() && strides != Tensor::contiguousStrides(sizes)) {
                int64_t span = 1;
                for (size_t k = 0; k < sizes.size(); ++k) span += (sizes[k] - 1) * strides[k];
                Tensor store = be.empty({std::max<int64_t>(span, 1)}, m.dtype);
                std::memset(store.rawData(), 0, static_cast<size_t>(store.nbytes()));
                Tensor view = store.asStrided(sizes, strides, 0);
                be.copy(view, t);
                t = view;
            }
            return t;
        };
        o.noneWhereMetaIsNone = true;
        const CorpusRunResult r = runCorpusFamily(*g, *be2_, o);
        QVERIFY2(r.failure.empty(), r.failure.c_str());
        const std::string file = fs::path(path).filename().string();
        qInfo("%s: %d distinct reduction-family calls ran (%d skipped: inputs without meta)", file.c_str(), r.ran,
              r.skipped);
        const int floor = corpusRunFloor(kCorpusFloors, path);
        QVERIFY2(floor >= 0, (file + ": no expected count in kCorpusFloors (a new corpus file?)").c_str());
        QVERIFY2(
            r.ran >= floor,
            (file + ": " + std::to_string(r.ran) + " calls ran, expected at least " + std::to_string(floor)).c_str());
    }
};

FXL_TEST_APPLESS_MAIN(TestReduction)
}  // namespace test_reduction
#include "test_reduction.moc"
