// The reduction kernel family (sum/mean/var_mean/amax/max/argmax/cumsum/bincount, softmax and
// log_softmax with their backward, native_layer_norm (+ backward), nll_loss (+ backward),
// mse_loss (+ backward), embedding_dense_backward):
// - PyTorch 1.13 CPU references (tests/data/kernels/reduction.*, made by gen_reduction_refs.py):
//   allclose |a-e| <= 1e-6 + 1e-5|e| for f32 (worst ratio per op printed), 1 ulp for bf16/f16,
//   1e-12 + 1e-10|e| for f64, exact for integers; NaN where PyTorch has NaN;
// - the numerics contract itself: sumOrdered equals an independent implementation of the
//   documented order, and the column-tiled path equals the per-output path bitwise;
// - batch invariance: row-wise ops computed on any chunk of rows (1, 2, 3, 7, 8, ... at any
//   offset, also along the sequence dim) and on strided copies give the whole call's bits;
// - 1 vs 2 vs 3 threads bitwise for every reference case and for larger inputs of every op;
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

#include "core/formats/safetensors.hpp"
#include "core/formats/source.hpp"
#include "core/ops/op_registry.hpp"
#include "kernel_test_util.hpp"
#include "runtime/backend.hpp"
#include "runtime/cpu/cpu_common.hpp"
#include "runtime/cpu/cpu_reduction.hpp"
#include "runtime/kernel.hpp"

using namespace fxl;
using namespace kerneltest;
namespace fs = std::filesystem;

Q_DECLARE_METATYPE(std::string)

namespace {

const fs::path kData = fs::path(FXLENS_TEST_DATA_DIR) / "kernels";
const fs::path kCorpus = FXLENS_CORPUS_DIR;

// The ops of this family (corpus graphs use all but the max family, var_mean and cumsum).
const std::set<std::string> kFamily = {"aten.sum.default",
                                       "aten.sum.dim_IntList",
                                       "aten.mean.default",
                                       "aten.mean.dim",
                                       "aten.var_mean.correction",
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
                                       "aten.embedding_dense_backward.default"};

// ---- values
Value tv(const Tensor& t) { return Value::ofTensor(t); }
Value iv(int64_t i) { return Value::ofInt(i); }
Value bv(bool b) { return Value::ofBool(b); }
Value fv(double f) { return Value::ofFloat(f); }
Value bools(std::vector<bool> v)
{
    std::vector<Value> items;
    for (bool x : v) items.push_back(Value::ofBool(x));
    return Value::ofList(std::move(items));
}

// Runs an op with named arguments (the others take their schema defaults; one without a
// default must be given); returns the outputs (one for a tensor result, the items of a
// tuple; undefined tensors for None).
std::vector<Tensor> runOp(Backend& be, const std::string& target, const NamedArgs& given)
{
    KernelCall call = makeCall(target, given, /*requireAll=*/true);
    be.run(call);
    if (call.result.kind != Value::Kind::List && !call.result.isTensor())
        throw std::runtime_error(target + " returned no tensor");
    return resultTensors(call.result);
}

// ---- tensors
// Entries [o, o+n) of dimension d as a view.
Tensor chunk(const Tensor& t, int64_t d, int64_t o, int64_t n)
{
    std::vector<int64_t> sz = t.sizes();
    sz[static_cast<size_t>(d)] = n;
    return t.asStrided(sz, t.strides(), t.offset() + o * t.strides()[static_cast<size_t>(d)]);
}

// Same values, other strides: stored with the dims in reverse order (a "transposed" layout
// for every rank), or every other element of a larger buffer starting at offset 5.
Tensor reversedCopy(Backend& be, const Tensor& t)
{
    std::vector<int64_t> rs(t.sizes().rbegin(), t.sizes().rend());
    Tensor store = be.empty(rs, t.dtype());
    std::vector<int64_t> st(store.strides().rbegin(), store.strides().rend());
    Tensor view = store.asStrided(t.sizes(), st, 0);
    be.copy(view, t);
    return view;
}
Tensor gappedCopy(Backend& be, const Tensor& t)
{
    Tensor store = be.empty({2 * t.numel() + 7}, t.dtype());
    std::memset(store.rawData(), 0x7f, static_cast<size_t>(store.nbytes()));
    std::vector<int64_t> st = Tensor::contiguousStrides(t.sizes());
    for (auto& s : st) s *= 2;
    Tensor view = store.asStrided(t.sizes(), st, 5);
    be.copy(view, t);
    return view;
}

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

// A row-wise op for the batch-invariance test: inputs chunked along `dims[k]` (-1: not
// chunked), the outputs listed in `outDims` chunked along that dim (-1: not compared).
struct RowOp
{
    std::string target;
    std::vector<Tensor> inputs;
    std::vector<int64_t> dims;
    std::function<NamedArgs(const std::vector<Tensor>&)> args;
    std::vector<int64_t> outDims;
};

}  // namespace

class TestReduction : public QObject
{
    Q_OBJECT

    std::unique_ptr<Backend> be1_, be2_, be3_;

    // Checks that every chunk (sizes 1,2,3,7,8,16,... at several offsets) and strided copies
    // of the inputs give the whole call's bits for the per-row outputs.
    void checkRowInvariance(const RowOp& op, int64_t rows)
    {
        Backend& be = *be2_;
        const std::vector<Tensor> whole = runOp(be, op.target, op.args(op.inputs));
        std::vector<int64_t> sizes = {1, 2, 3, 7, 8, 16, rows - 1, rows};
        int checked = 0;
        for (int64_t c : sizes) {
            if (c < 1 || c > rows) continue;
            std::set<int64_t> offsets = {0, 1, 2, 3, 5, rows / 2, rows - c - 1, rows - c};
            for (int64_t o : offsets) {
                if (o < 0 || o + c > rows) continue;
                std::vector<Tensor> in;
                for (size_t k = 0; k < op.inputs.size(); ++k)
                    in.push_back(op.dims[k] < 0 ? op.inputs[k] : chunk(op.inputs[k], op.dims[k], o, c));
                const std::vector<Tensor> part = runOp(be, op.target, op.args(in));
                for (size_t k = 0; k < op.outDims.size(); ++k) {
                    if (op.outDims[k] < 0) continue;
                    const Tensor expect = chunk(whole[k], op.outDims[k], o, c);
                    if (!sameBits(be, part[k], expect))
                        QFAIL(qPrintable(QString("%1: output %2 of rows [%3, %4) differs from the whole call")
                                             .arg(QString::fromStdString(op.target))
                                             .arg(k)
                                             .arg(o)
                                             .arg(o + c)));
                    ++checked;
                }
            }
        }
        for (int layout = 0; layout < 2; ++layout) {
            std::vector<Tensor> in;
            for (const Tensor& t : op.inputs) in.push_back(layout == 0 ? reversedCopy(be, t) : gappedCopy(be, t));
            const std::vector<Tensor> part = runOp(be, op.target, op.args(in));
            for (size_t k = 0; k < op.outDims.size(); ++k) {
                if (op.outDims[k] < 0) continue;
                if (!sameBits(be, part[k], whole[k]))
                    QFAIL(qPrintable(QString("%1: output %2 differs for %3 inputs")
                                         .arg(QString::fromStdString(op.target))
                                         .arg(k)
                                         .arg(layout == 0 ? "transposed" : "strided")));
                ++checked;
            }
        }
        QVERIFY(checked > 10);
    }

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
            QSKIP("tests/data/kernels/reduction.cases.json missing: run tests/runtime/gen_reduction_refs.py");
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

    // ---------------- batch invariance of the row-wise ops
    void rowInvariance_data()
    {
        QTest::addColumn<std::string>("name");
        for (const char* n :
             {"softmax", "log_softmax", "softmax_bwd", "log_softmax_bwd", "softmax_seq", "layer_norm", "layer_norm_seq",
              "layer_norm_bwd", "nll_none", "sum_lastdim", "mean_lastdim", "amax_lastdim", "var_mean_lastdim",
              "cumsum_lastdim", "mse_none", "softmax_bf16", "layer_norm_bwd_bf16"})
            QTest::newRow(n) << std::string(n);
    }
    void rowInvariance()
    {
        QFETCH(std::string, name);
        Backend& be = *be2_;
        const int64_t R = 37, C = 300;
        RowOp op;
        auto x = randomTensor(be, {R, C}, DType::F32, 11, 2.0);
        auto g = randomTensor(be, {R, C}, DType::F32, 12);
        if (name == "softmax" || name == "log_softmax" || name == "softmax_bf16") {
            const bool log = name == "log_softmax";
            if (name == "softmax_bf16") x = randomTensor(be, {R, C}, DType::BF16, 13, 2.0);
            op = {log ? "aten._log_softmax.default" : "aten._softmax.default",
                  {x},
                  {0},
                  [](const std::vector<Tensor>& in) {
                      return NamedArgs{{"self", tv(in[0])}, {"dim", iv(-1)}, {"half_to_float", bv(false)}};
                  },
                  {0}};
        } else if (name == "softmax_bwd" || name == "log_softmax_bwd") {
            const bool log = name == "log_softmax_bwd";
            const Tensor y = runOp(be, log ? "aten._log_softmax.default" : "aten._softmax.default",
                                   {{"self", tv(x)}, {"dim", iv(1)}, {"half_to_float", bv(false)}})[0];
            op = {log ? "aten._log_softmax_backward_data.default" : "aten._softmax_backward_data.default",
                  {g, y},
                  {0, 0},
                  [](const std::vector<Tensor>& in) {
                      return NamedArgs{{"grad_output", tv(in[0])},
                                       {"output", tv(in[1])},
                                       {"dim", iv(1)},
                                       {"input_dtype", dtypeValue(DType::F32)}};
                  },
                  {0}};
        } else if (name == "softmax_seq") {  // [B, T, T] scores chunked along the query dim
            Tensor s = randomTensor(be, {3, R, 40}, DType::F32, 14, 3.0);
            op = {"aten._softmax.default",
                  {s},
                  {1},
                  [](const std::vector<Tensor>& in) {
                      return NamedArgs{{"self", tv(in[0])}, {"dim", iv(-1)}, {"half_to_float", bv(false)}};
                  },
                  {1}};
        } else if (name == "layer_norm" || name == "layer_norm_seq") {
            const bool seq = name == "layer_norm_seq";
            Tensor in = seq ? randomTensor(be, {2, R, 64}, DType::F32, 15) : x;
            const int64_t n = seq ? 64 : C;
            Tensor w = randomTensor(be, {n}, DType::F32, 16), b = randomTensor(be, {n}, DType::F32, 17);
            op = {"aten.native_layer_norm.default",
                  {in, w, b},
                  {seq ? 1 : 0, -1, -1},
                  [n](const std::vector<Tensor>& v) {
                      return NamedArgs{{"input", tv(v[0])},
                                       {"normalized_shape", sizesValue({n})},
                                       {"weight", tv(v[1])},
                                       {"bias", tv(v[2])},
                                       {"eps", fv(1e-5)}};
                  },
                  {seq ? 1 : 0, seq ? 1 : 0, seq ? 1 : 0}};
        } else if (name == "layer_norm_bwd" || name == "layer_norm_bwd_bf16") {
            const DType dt = name == "layer_norm_bwd" ? DType::F32 : DType::BF16;
            Tensor xi = randomTensor(be, {R, C}, dt, 18), gi = randomTensor(be, {R, C}, dt, 19);
            Tensor w = randomTensor(be, {C}, dt, 20), b = randomTensor(be, {C}, dt, 21);
            const auto f = runOp(be, "aten.native_layer_norm.default",
                                 {{"input", tv(xi)},
                                  {"normalized_shape", sizesValue({C})},
                                  {"weight", tv(w)},
                                  {"bias", tv(b)},
                                  {"eps", fv(1e-5)}});
            op = {"aten.native_layer_norm_backward.default",
                  {gi, xi, f[1], f[2], w, b},
                  {0, 0, 0, 0, -1, -1},
                  [C](const std::vector<Tensor>& v) {
                      return NamedArgs{{"grad_out", tv(v[0])},
                                       {"input", tv(v[1])},
                                       {"normalized_shape", sizesValue({C})},
                                       {"mean", tv(v[2])},
                                       {"rstd", tv(v[3])},
                                       {"weight", tv(v[4])},
                                       {"bias", tv(v[5])},
                                       {"output_mask", bools({true, true, true})}};
                  },
                  {0, -1, -1}};  // dgamma/dbeta sum over rows: cross-chunk by nature
        } else if (name == "nll_none") {
            const Tensor lsm = runOp(be, "aten._log_softmax.default",
                                     {{"self", tv(x)}, {"dim", iv(1)}, {"half_to_float", bv(false)}})[0];
            Tensor t = randomInts(be, {R}, 0, C, 22);
            t.data<int64_t>()[5] = -100;
            t.data<int64_t>()[20] = -100;
            Tensor w = randomTensor(be, {C}, DType::F32, 23);
            op = {"aten.nll_loss_forward.default",
                  {lsm, t, w},
                  {0, 0, -1},
                  [](const std::vector<Tensor>& v) {
                      return NamedArgs{{"self", tv(v[0])},
                                       {"target", tv(v[1])},
                                       {"weight", tv(v[2])},
                                       {"reduction", iv(0)},
                                       {"ignore_index", iv(-100)}};
                  },
                  {0}};
        } else if (name == "sum_lastdim" || name == "mean_lastdim") {
            op = {name == "sum_lastdim" ? "aten.sum.dim_IntList" : "aten.mean.dim",
                  {x},
                  {0},
                  [](const std::vector<Tensor>& v) {
                      return NamedArgs{{"self", tv(v[0])}, {"dim", sizesValue({-1})}, {"keepdim", bv(true)}};
                  },
                  {0}};
        } else if (name == "amax_lastdim") {
            op = {"aten.max.dim",
                  {x},
                  {0},
                  [](const std::vector<Tensor>& v) {
                      return NamedArgs{{"self", tv(v[0])}, {"dim", iv(1)}};
                  },
                  {0, 0}};
        } else if (name == "var_mean_lastdim") {
            op = {"aten.var_mean.correction",
                  {x},
                  {0},
                  [](const std::vector<Tensor>& v) {
                      return NamedArgs{{"self", tv(v[0])}, {"dim", sizesValue({1})}};
                  },
                  {0, 0}};
        } else if (name == "cumsum_lastdim") {
            op = {"aten.cumsum.default",
                  {x},
                  {0},
                  [](const std::vector<Tensor>& v) {
                      return NamedArgs{{"self", tv(v[0])}, {"dim", iv(1)}};
                  },
                  {0}};
        } else if (name == "mse_none") {
            op = {"aten.mse_loss.default",
                  {x, g},
                  {0, 0},
                  [](const std::vector<Tensor>& v) {
                      return NamedArgs{{"self", tv(v[0])}, {"target", tv(v[1])}, {"reduction", iv(0)}};
                  },
                  {0}};
        } else {
            QFAIL("unknown row op");
        }
        const int64_t rows = op.inputs[0].size(op.dims[0]);
        checkRowInvariance(op, rows);
    }

    // ---------------- threads: larger inputs of every op, 1 vs 2 vs 3 vs 5 threads bitwise
    void threadInvariance_data()
    {
        QTest::addColumn<std::string>("name");
        for (const char* n : {"sum_rows",   "sum_cols",       "sum_3d",   "sum_all",  "mean",    "var_mean",
                              "amax",       "argmax",         "cumsum",   "bincount", "softmax", "log_softmax_bwd",
                              "layer_norm", "layer_norm_bwd", "nll_mean", "nll_none", "nll_bwd", "mse_mean",
                              "mse_bwd",    "embedding_bwd"})
            QTest::newRow(n) << std::string(n);
    }
    void threadInvariance()
    {
        QFETCH(std::string, name);
        std::vector<std::unique_ptr<Backend>> bes;
        for (int t : {1, 2, 3, 5}) bes.push_back(makeCpuBackend({t}));
        std::vector<std::vector<uint8_t>> first;
        // inputs made once (CPU tensors can be read by any CPU backend)
        const auto x = randomTensor(*be1_, {513, 300}, DType::F32, 31);
        const auto y = randomTensor(*be1_, {513, 300}, DType::F32, 32);
        for (size_t k = 0; k < bes.size(); ++k) {
            Backend& be = *bes[k];
            std::vector<Tensor> out;
            if (name == "sum_rows")
                out = runOp(be, "aten.sum.dim_IntList",
                            {{"self", tv(x)}, {"dim", sizesValue({0})}, {"keepdim", bv(true)}});
            else if (name == "sum_cols")
                out = runOp(be, "aten.sum.dim_IntList", {{"self", tv(x)}, {"dim", sizesValue({1})}});
            else if (name == "sum_3d")
                out = runOp(be, "aten.sum.dim_IntList",
                            {{"self", tv(x.asStrided({27, 19, 300}, {5700, 300, 1}, 0))}, {"dim", sizesValue({0, 1})}});
            else if (name == "sum_all")
                out = runOp(be, "aten.sum.default", {{"self", tv(x)}});
            else if (name == "mean")
                out = runOp(be, "aten.mean.dim", {{"self", tv(x)}, {"dim", sizesValue({-1})}, {"keepdim", bv(true)}});
            else if (name == "var_mean")
                out = runOp(be, "aten.var_mean.correction", {{"self", tv(x)}, {"dim", sizesValue({0})}});
            else if (name == "amax")
                out = runOp(be, "aten.amax.default", {{"self", tv(x)}, {"dim", sizesValue({0})}});
            else if (name == "argmax")
                out = runOp(be, "aten.argmax.default", {{"self", tv(x)}, {"dim", iv(1)}});
            else if (name == "cumsum")
                out = runOp(be, "aten.cumsum.default", {{"self", tv(x)}, {"dim", iv(0)}});
            else if (name == "bincount") {
                Tensor ids = randomInts(be, {5000}, 0, 37, 33);
                Tensor w = randomTensor(be, {5000}, DType::F32, 34);
                out = runOp(be, "aten.bincount.default", {{"self", tv(ids)}, {"weights", tv(w)}});
            } else if (name == "softmax")
                out =
                    runOp(be, "aten._softmax.default", {{"self", tv(x)}, {"dim", iv(0)}, {"half_to_float", bv(false)}});
            else if (name == "log_softmax_bwd")
                out = runOp(be, "aten._log_softmax_backward_data.default",
                            {{"grad_output", tv(x)},
                             {"output", tv(y)},
                             {"dim", iv(1)},
                             {"input_dtype", dtypeValue(DType::F32)}});
            else if (name == "layer_norm" || name == "layer_norm_bwd") {
                Tensor w = randomTensor(be, {300}, DType::F32, 35), b = randomTensor(be, {300}, DType::F32, 36);
                out = runOp(be, "aten.native_layer_norm.default",
                            {{"input", tv(x)},
                             {"normalized_shape", sizesValue({300})},
                             {"weight", tv(w)},
                             {"bias", tv(b)},
                             {"eps", fv(1e-5)}});
                if (name == "layer_norm_bwd")
                    out = runOp(be, "aten.native_layer_norm_backward.default",
                                {{"grad_out", tv(y)},
                                 {"input", tv(x)},
                                 {"normalized_shape", sizesValue({300})},
                                 {"mean", tv(out[1])},
                                 {"rstd", tv(out[2])},
                                 {"weight", tv(w)},
                                 {"bias", tv(b)},
                                 {"output_mask", bools({true, true, true})}});
            } else if (name == "nll_mean" || name == "nll_none" || name == "nll_bwd") {
                Tensor t = randomInts(be, {513}, 0, 300, 37);
                t.data<int64_t>()[3] = -100;
                const int64_t red = name == "nll_none" ? 0 : 1;
                out = runOp(be, "aten.nll_loss_forward.default",
                            {{"self", tv(x)},
                             {"target", tv(t)},
                             {"weight", Value::none()},
                             {"reduction", iv(red)},
                             {"ignore_index", iv(-100)}});
                if (name == "nll_bwd") {
                    Tensor g = randomTensor(be, {}, DType::F32, 38);
                    out = runOp(be, "aten.nll_loss_backward.default",
                                {{"grad_output", tv(g)},
                                 {"self", tv(x)},
                                 {"target", tv(t)},
                                 {"weight", Value::none()},
                                 {"reduction", iv(1)},
                                 {"ignore_index", iv(-100)},
                                 {"total_weight", tv(out[1])}});
                }
            } else if (name == "mse_mean")
                out = runOp(be, "aten.mse_loss.default", {{"self", tv(x)}, {"target", tv(y)}, {"reduction", iv(1)}});
            else if (name == "mse_bwd") {
                Tensor g = randomTensor(be, {}, DType::F32, 39);
                out = runOp(be, "aten.mse_loss_backward.default",
                            {{"grad_output", tv(g)}, {"self", tv(x)}, {"target", tv(y)}, {"reduction", iv(1)}});
            } else if (name == "embedding_bwd") {
                Tensor ids = randomInts(be, {9, 57}, 0, 40, 40);
                Tensor g = chunk(x, 0, 0, 9 * 57).asStrided({9, 57, 300}, {17100, 300, 1}, 0);
                out = runOp(be, "aten.embedding_dense_backward.default",
                            {{"grad_output", tv(g)},
                             {"indices", tv(ids)},
                             {"num_weights", iv(40)},
                             {"padding_idx", iv(2)},
                             {"scale_grad_by_freq", bv(false)}});
            } else {
                QFAIL("unknown op");
            }
            std::vector<uint8_t> all;
            for (const Tensor& t : out) {
                if (!t.defined()) continue;
                auto b = bytesOf(be, t);
                all.insert(all.end(), b.begin(), b.end());
            }
            QVERIFY(!all.empty());
            if (k == 0)
                first.push_back(all);
            else
                QVERIFY2(all == first[0],
                         qPrintable(QString("%1 threads differ from 1").arg(k == 1 ? 2 : (k == 2 ? 3 : 5))));
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
    // like its recorded meta and produces the recorded shapes and dtypes
    void corpusOps_data()
    {
        QTest::addColumn<std::string>("path");
        if (!fs::exists(kCorpus / "pytorch")) QSKIP("corpus directory FXLENS_CORPUS_DIR/pytorch not found");
        for (const std::string& f : corpusCodeFiles(kCorpus))
            QTest::newRow(fs::path(f).filename().string().c_str()) << f;
    }
    void corpusOps()
    {
        QFETCH(std::string, path);
        auto src = openSource(path);
        QVERIFY(src && !src->artifacts.empty());
        auto g = src->graph(src->artifacts[0].id);
        QVERIFY(g);
        Backend& be = *be2_;
        std::set<std::string> seen;
        int ran = 0, skipped = 0;
        uint32_t seed = 100;
        std::string failure;
        g->forEachNode([&](const Node& n) {
            if (!failure.empty() || n.op != NodeOp::CallFunction || !kFamily.count(n.target)) return;
            const OpInfo* op = OpRegistry::instance().find(n.target);
            std::vector<Arg> bound;
            if (auto err = OpRegistry::instance().bind(*op, n, bound)) {
                failure = n.name + ": " + *err;
                return;
            }
            // one run per distinct (target, argument metas and constants)
            std::string sig = n.target;
            std::vector<Value> args;
            for (const Arg& a : bound) {
                if (a.isNode()) {
                    const ValueMeta& m = g->node(a.node).val;
                    if (!m.isTensor()) {  // e.g. a partition's placeholder the meta file does not cover
                        ++skipped;
                        return;
                    }
                    const std::vector<int64_t> sizes = concrete(m.tensor.sizes, 1),
                                               strides = concrete(m.tensor.strides, 1);
                    sig += "|" + std::string(dtypeAbbr(m.tensor.dtype));
                    for (int64_t s : sizes) sig += "," + std::to_string(s);
                    sig += "/";
                    for (int64_t s : strides) sig += "," + std::to_string(s);
                    Tensor t;
                    if (isFloatingPoint(m.tensor.dtype)) {
                        t = randomTensor(be, sizes, m.tensor.dtype, ++seed);
                    } else {
                        // index-like inputs (targets, token ids, counts): small valid values
                        t = randomInts(be, sizes, 0, 4, ++seed, m.tensor.dtype);
                    }
                    if (strides.size() == sizes.size() && !strides.empty()
                        && strides != Tensor::contiguousStrides(sizes)) {
                        int64_t span = 1;
                        for (size_t k = 0; k < sizes.size(); ++k) span += (sizes[k] - 1) * strides[k];
                        Tensor store = be.empty({std::max<int64_t>(span, 1)}, m.tensor.dtype);
                        std::memset(store.rawData(), 0, static_cast<size_t>(store.nbytes()));
                        Tensor view = store.asStrided(sizes, strides, 0);
                        be.copy(view, t);
                        t = view;
                    }
                    args.push_back(Value::ofTensor(t));
                } else {
                    Value v = argToValue(a);
                    sig += "|" + (a.kind == Arg::Kind::Float ? std::to_string(a.f) : std::to_string(a.i))
                        + std::to_string(a.items.size());
                    for (const Arg& x : a.items) sig += "," + std::to_string(x.i) + (x.b ? "t" : "f");
                    args.push_back(v);
                }
            }
            if (!seen.insert(sig).second) return;
            std::vector<Tensor> out;
            try {
                out = runCall(be, op, args);
            } catch (const std::exception& e) {
                failure = n.name + " (" + n.target + "): " + e.what();
                return;
            }
            const std::vector<const TensorMeta*> want = outputMetas(n);
            if (want.size() != out.size()) {
                failure =
                    n.name + ": " + std::to_string(out.size()) + " outputs, meta has " + std::to_string(want.size());
                return;
            }
            for (size_t k = 0; k < want.size(); ++k) {
                if (!want[k]) {
                    if (out[k].defined()) failure = n.name + ": output " + std::to_string(k) + " should be None";
                    continue;
                }
                const std::vector<int64_t> ws = concrete(want[k]->sizes, -1);
                bool sizesOk = out[k].defined() && out[k].sizes().size() == ws.size();
                for (size_t d = 0; sizesOk && d < ws.size(); ++d) sizesOk = ws[d] < 0 || ws[d] == out[k].sizes()[d];
                if (!sizesOk || out[k].dtype() != want[k]->dtype) {
                    std::string w = std::string(dtypeAbbr(want[k]->dtype)) + "[";
                    for (int64_t s : ws) w += std::to_string(s) + ",";
                    failure = n.name + ": output " + std::to_string(k) + " is "
                        + (out[k].defined() ? describe(out[k]) : "None") + ", meta says " + w + "]";
                    return;
                }
            }
            ++ran;
        });
        QVERIFY2(failure.empty(), failure.c_str());
        qInfo("%s: %d distinct reduction-family calls ran (%d skipped: inputs without meta)",
              fs::path(path).filename().string().c_str(), ran, skipped);
    }
};

QTEST_APPLESS_MAIN(TestReduction)
#include "test_reduction.moc"
