// The convolution and pooling kernels (runtime/cpu/cpu_conv.cpp, cpu_pool.cpp):
// - PyTorch 1.13 CPU references (tests/data/kernels/conv_pool.*, made by gen_conv_pool_refs.py):
//   f32 within allclose(rtol 1e-5, atol 1e-6), f64 within (1e-10, 1e-12), bf16 / f16 within
//   1 ulp of "f32 compute, rounded once", int64 indices exact; PyTorch's output layout
//   (channels-last stays channels-last); 1 and 2 threads bitwise equal;
// - batch invariance: rows [a, b) of a batch run alone give the bits they have inside the
//   whole batch (convolution forward, transposed, grad_input; every pool and its backward;
//   upsampling, grid_sampler_2d); grad_weight / grad_bias (reductions over the batch) equal at 1 and 2 threads;
// - the meta functions (core/ops/op_meta_nn.cpp) give PyTorch's output sizes, dtypes and layout;
// - unbatched convolution = the batch of one; bad arguments give a KernelError.
#include <QtTest>

#include <cmath>
#include <cstring>
#include <map>

#include "core/ops/schema.hpp"
#include "kernel_test_util.hpp"
#include "runtime/base/backend.hpp"
#include "runtime/base/kernel.hpp"
#include "runtime/cpu/cpu_backend.hpp"
#include "runtime/cpu/cpu_common.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_conv_pool {

using namespace fxl;
using kerneltest::bytesOf;
using kerneltest::makeCall;
using kerneltest::NamedArgs;
using kerneltest::ordered16;
using kerneltest::sizesValue;

namespace {

std::vector<Tensor> runOp(Backend& be, const std::string& target, const NamedArgs& given)
{
    KernelCall call = makeCall(target, given);
    be.run(call);
    return kerneltest::resultTensors(call.result);
}

Value tv(const Tensor& t) { return Value::ofTensor(t); }
Value ints(const std::vector<int64_t>& v) { return sizesValue(v); }
Value boolList(const std::vector<bool>& v)
{
    std::vector<Value> items;
    for (bool b : v) items.push_back(Value::ofBool(b));
    return Value::ofList(std::move(items));
}

// Rows [r0, r0 + n) of dim 0 as a view.
Tensor rows(const Tensor& t, int64_t r0, int64_t n)
{
    std::vector<int64_t> sz = t.sizes();
    sz[0] = n;
    return t.asStrided(sz, t.strides(), t.offset() + r0 * t.strides()[0]);
}

// Strides agree on every dim of more than one element (size-1 dims may have any stride).
bool sameLayout(const std::vector<int64_t>& sizes, const std::vector<int64_t>& a, const std::vector<int64_t>& b)
{
    if (a.size() != sizes.size() || b.size() != sizes.size()) return false;
    for (size_t d = 0; d < sizes.size(); ++d)
        if (sizes[d] > 1 && a[d] != b[d]) return false;
    return true;
}

// The op's meta function on the case's arguments (tensors as metas of the views the kernel got).
std::vector<ValueMeta> metaOutputs(const kerneltest::RefFile& refs, const nlohmann::json& c)
{
    const OpInfo* op = OpRegistry::instance().find(c.at("op").get<std::string>());
    if (!op || !op->meta) throw std::runtime_error("no meta function for " + c.at("op").get<std::string>());
    std::vector<ValueMeta> metas;
    std::function<Arg(const nlohmann::json&)> toArg = [&](const nlohmann::json& j) -> Arg {
        if (j.is_null()) return Arg::none();
        if (j.is_boolean()) return Arg::ofBool(j.get<bool>());
        if (j.is_number_integer()) return Arg::ofInt(j.get<int64_t>());
        if (j.is_number_float()) return Arg::ofFloat(j.get<double>());
        if (j.is_array()) {
            std::vector<Arg> items;
            for (const auto& x : j) items.push_back(toArg(x));
            return Arg::ofList(std::move(items));
        }
        const SafeTensor& st = *refs.byKey.at(j.at("tensor").get<std::string>());
        TensorMeta m;
        m.dtype = st.dtype;
        m.device = "cpu";
        const std::vector<int64_t> sizes = j.contains("sizes") ? j.at("sizes").get<std::vector<int64_t>>() : st.shape;
        for (int64_t v : sizes) m.sizes.push_back(SymInt(v));
        if (j.contains("strides"))
            for (int64_t v : j.at("strides").get<std::vector<int64_t>>()) m.strides.push_back(SymInt(v));
        else
            m.strides = contiguousStrides(m.sizes);
        metas.push_back(ValueMeta::ofTensor(m));
        return Arg::ofNode(static_cast<NodeId>(metas.size() - 1));
    };
    MetaCall mc;
    mc.op = op;
    for (const SchemaArg& a : op->schema.args)
        mc.bound.push_back(c.at("args").contains(a.name) ? toArg(c.at("args").at(a.name)) : parseDefaultValue(a));
    mc.metaOf = [&](NodeId id) -> const ValueMeta& { return metas.at(static_cast<size_t>(id)); };
    const ValueMeta r = op->meta(mc);
    if (r.kind == ValueMeta::Kind::Tuple) return r.elems;
    return {r};
}

// Worst error per dtype over the reference cases: |a-e|/tol for f32/f64, ulps for bf16/f16.
std::map<std::string, double>& worstByDtype()
{
    static std::map<std::string, double> m;
    return m;
}

// A batch-invariance case: the op, its batched tensor arguments (batch = dim 0), the other
// arguments, and which outputs are batched.
struct InvCase
{
    std::string target;
    NamedArgs fixed;
    std::map<std::string, Tensor> batched;
    std::vector<size_t> batchedOuts;
};

}  // namespace

class TestConvPool : public QObject
{
    Q_OBJECT

    kerneltest::RefFile refs_;
    std::unique_ptr<Backend> be1_, be2_;

    InvCase invCase(const std::string& name)
    {
        Backend& be = *be2_;
        auto rnd = [&](const std::vector<int64_t>& s, uint32_t seed, DType dt = DType::F32) {
            return kerneltest::randomTensor(be, s, dt, seed);
        };
        const int64_t N = 5;
        InvCase c;
        auto conv = [&](const std::vector<int64_t>& x, const std::vector<int64_t>& w, std::vector<int64_t> s,
                        std::vector<int64_t> p, std::vector<int64_t> d, int64_t g, bool tr, std::vector<int64_t> op,
                        DType dt) {
            c.target = "aten.convolution.default";
            c.batched["input"] = rnd(x, 1, dt);
            c.fixed = {{"weight", tv(rnd(w, 2, dt))}, {"bias", tv(rnd({tr ? w[1] * g : w[0]}, 3, dt))},
                       {"stride", ints(s)},           {"padding", ints(p)},
                       {"dilation", ints(d)},         {"transposed", Value::ofBool(tr)},
                       {"output_padding", ints(op)},  {"groups", Value::ofInt(g)}};
            c.batchedOuts = {0};
        };
        if (name == "conv2d")
            conv({N, 3, 9, 10}, {4, 3, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 1, false, {0, 0}, DType::F32);
        else if (name == "conv2d groups stride dilation bf16")
            conv({N, 4, 11, 9}, {6, 2, 3, 2}, {2, 1}, {1, 2}, {2, 1}, 2, false, {0, 0}, DType::BF16);
        else if (name == "conv1d f64")
            conv({N, 3, 17}, {4, 3, 5}, {2}, {2}, {1}, 1, false, {0}, DType::F64);
        else if (name == "conv3d f16")
            conv({N, 2, 5, 4, 6}, {3, 2, 2, 3, 2}, {1, 2, 1}, {1, 1, 0}, {1, 1, 2}, 1, false, {0, 0, 0}, DType::F16);
        else if (name == "conv2d transposed")
            conv({N, 4, 5, 6}, {4, 3, 3, 3}, {2, 2}, {1, 1}, {1, 1}, 1, true, {1, 0}, DType::F32);
        else if (name == "conv2d 64 channels") {
            conv({N, 64, 6, 6}, {8, 64, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 1, false, {0, 0}, DType::F32);
        } else if (name == "convolution_backward grad_input") {
            c.target = "aten.convolution_backward.default";
            c.batched["grad_output"] = rnd({N, 6, 5, 10}, 4);
            c.batched["input"] = rnd({N, 4, 11, 9}, 5);
            c.fixed = {{"weight", tv(rnd({6, 2, 3, 2}, 6))},
                       {"bias_sizes", ints({6})},
                       {"stride", ints({2, 1})},
                       {"padding", ints({1, 1})},
                       {"dilation", ints({2, 1})},
                       {"transposed", Value::ofBool(false)},
                       {"output_padding", ints({0, 0})},
                       {"groups", Value::ofInt(2)},
                       {"output_mask", boolList({true, false, false})}};
            c.batchedOuts = {0};
        } else if (name == "convolution_backward transposed grad_input") {
            c.target = "aten.convolution_backward.default";
            c.batched["grad_output"] = rnd({N, 3, 10, 11}, 7);
            c.batched["input"] = rnd({N, 4, 5, 6}, 8);
            c.fixed = {{"weight", tv(rnd({4, 3, 3, 3}, 9))},
                       {"bias_sizes", ints({3})},
                       {"stride", ints({2, 2})},
                       {"padding", ints({1, 1})},
                       {"dilation", ints({1, 1})},
                       {"transposed", Value::ofBool(true)},
                       {"output_padding", ints({1, 0})},
                       {"groups", Value::ofInt(1)},
                       {"output_mask", boolList({true, false, false})}};
            c.batchedOuts = {0};
        } else if (name == "max_pool2d" || name == "max_pool2d_backward") {
            Tensor x = rnd({N, 3, 9, 10}, 10);
            const NamedArgs a = {{"kernel_size", ints({3, 3})},
                                 {"stride", ints({2, 2})},
                                 {"padding", ints({1, 1})},
                                 {"dilation", ints({1, 2})},
                                 {"ceil_mode", Value::ofBool(true)}};
            c.fixed = a;
            if (name == "max_pool2d") {
                c.target = "aten.max_pool2d_with_indices.default";
                c.batched["self"] = x;
                c.batchedOuts = {0, 1};
            } else {
                NamedArgs f = a;
                f["self"] = tv(x);
                const std::vector<Tensor> y = runOp(be, "aten.max_pool2d_with_indices.default", f);
                c.target = "aten.max_pool2d_with_indices_backward.default";
                c.batched["self"] = x;
                c.batched["indices"] = y[1];
                c.batched["grad_output"] = rnd(y[0].sizes(), 11);
                c.batchedOuts = {0};
            }
        } else if (name == "max_pool3d") {
            c.target = "aten.max_pool3d_with_indices.default";
            c.batched["self"] = rnd({N, 2, 5, 6, 7}, 12, DType::BF16);
            c.fixed = {{"kernel_size", ints({2, 3, 2})}, {"stride", ints({2, 2, 1})}, {"padding", ints({1, 1, 0})}};
            c.batchedOuts = {0, 1};
        } else if (name == "avg_pool2d" || name == "avg_pool2d_backward") {
            Tensor x = rnd({N, 3, 9, 10}, 13);
            const NamedArgs a = {{"kernel_size", ints({3, 3})},
                                 {"stride", ints({2, 2})},
                                 {"padding", ints({1, 1})},
                                 {"ceil_mode", Value::ofBool(true)},
                                 {"count_include_pad", Value::ofBool(false)}};
            c.fixed = a;
            c.batched["self"] = x;
            c.batchedOuts = {0};
            if (name == "avg_pool2d") {
                c.target = "aten.avg_pool2d.default";
            } else {
                NamedArgs f = a;
                f["self"] = tv(x);
                const std::vector<Tensor> y = runOp(be, "aten.avg_pool2d.default", f);
                c.target = "aten.avg_pool2d_backward.default";
                c.fixed["divisor_override"] = Value::none();
                c.batched["grad_output"] = rnd(y[0].sizes(), 14);
            }
        } else if (name == "avg_pool1d") {
            c.target = "aten.avg_pool1d.default";
            c.batched["self"] = rnd({N, 3, 11}, 15, DType::F64);
            c.fixed = {{"kernel_size", ints({3})}, {"stride", ints({2})}, {"padding", ints({1})}};
            c.batchedOuts = {0};
        } else if (name == "avg_pool3d") {
            c.target = "aten.avg_pool3d.default";
            c.batched["self"] = rnd({N, 2, 5, 6, 4}, 16, DType::F16);
            c.fixed = {{"kernel_size", ints({2, 3, 2})}, {"stride", ints({1, 2, 2})}, {"padding", ints({1, 1, 0})}};
            c.batchedOuts = {0};
        } else if (name == "_adaptive_avg_pool2d") {
            c.target = "aten._adaptive_avg_pool2d.default";
            c.batched["self"] = rnd({N, 3, 10, 7}, 17);
            c.fixed = {{"output_size", ints({3, 4})}};
            c.batchedOuts = {0};
        } else if (name == "_adaptive_avg_pool2d_backward") {
            c.target = "aten._adaptive_avg_pool2d_backward.default";
            c.batched["self"] = rnd({N, 3, 10, 7}, 18);
            c.batched["grad_output"] = rnd({N, 3, 3, 4}, 19);
            c.batchedOuts = {0};
        } else if (name == "avg_pool3d_backward") {
            c.target = "aten.avg_pool3d_backward.default";
            c.batched["self"] = rnd({N, 2, 5, 6, 4}, 27);
            c.batched["grad_output"] = rnd({N, 2, 6, 3, 2}, 28);
            c.fixed = {{"kernel_size", ints({2, 3, 2})},
                       {"stride", ints({1, 2, 2})},
                       {"padding", ints({1, 1, 0})},
                       {"ceil_mode", Value::ofBool(false)},
                       {"count_include_pad", Value::ofBool(true)},
                       {"divisor_override", Value::none()}};
            c.batchedOuts = {0};
        } else if (name == "_adaptive_avg_pool3d") {
            c.target = "aten._adaptive_avg_pool3d.default";
            c.batched["self"] = rnd({N, 2, 5, 7, 6}, 20);
            c.fixed = {{"output_size", ints({2, 3, 4})}};
            c.batchedOuts = {0};
        } else if (name == "adaptive_avg_pool1d") {
            c.target = "aten.adaptive_avg_pool1d.default";
            c.batched["self"] = rnd({N, 3, 13}, 21);
            c.fixed = {{"output_size", ints({4})}};
            c.batchedOuts = {0};
        } else if (name == "upsample_bilinear2d") {
            c.target = "aten.upsample_bilinear2d.vec";
            c.batched["input"] = rnd({N, 3, 4, 5}, 22);
            c.fixed = {{"output_size", ints({7, 9})}, {"align_corners", Value::ofBool(false)}};
            c.batchedOuts = {0};
        } else if (name == "upsample_nearest2d") {
            c.target = "aten.upsample_nearest2d.vec";
            c.batched["input"] = rnd({N, 3, 4, 5}, 23);
            c.fixed = {{"output_size", ints({7, 9})}};
            c.batchedOuts = {0};
        } else if (name == "upsample_bilinear2d_backward" || name == "upsample_nearest2d_backward") {
            const bool bil = name == "upsample_bilinear2d_backward";
            c.target = bil ? "aten.upsample_bilinear2d_backward.vec" : "aten.upsample_nearest2d_backward.vec";
            c.batched["grad_output"] = rnd({N, 3, 7, 9}, 26);
            c.fixed = {{"output_size", ints({7, 9})}, {"input_size", ints({N, 3, 4, 5})}};
            if (bil) c.fixed["align_corners"] = Value::ofBool(true);
            c.batchedOuts = {0};
        } else if (name == "grid_sampler_2d") {
            c.target = "aten.grid_sampler_2d.default";
            c.batched["input"] = rnd({N, 3, 5, 6}, 24);
            c.batched["grid"] = rnd({N, 4, 7, 2}, 25);
            c.fixed = {{"interpolation_mode", Value::ofInt(0)},
                       {"padding_mode", Value::ofInt(2)},
                       {"align_corners", Value::ofBool(false)}};
            c.batchedOuts = {0};
        } else {
            throw std::runtime_error("no invariance case " + name);
        }
        return c;
    }

private slots:
    void initTestCase()
    {
        be1_ = makeCpuBackend({1});
        be2_ = makeCpuBackend({2});
        refs_.load(fxltest::testDataPath("kernels"), "conv_pool");
        QVERIFY2(!refs_.doc.is_null(), "tests/data/kernels/conv_pool.cases.json is missing");
    }

    void cleanupTestCase()
    {
        for (const auto& [dt, w] : worstByDtype())
            qInfo("worst over the PyTorch cases, %s: %.3g %s", dt.c_str(), w,
                  (dt == "bf16" || dt == "f16") ? "ulp (bound 1)" : "x tolerance (bound 1)");
    }

    // ---------------- PyTorch references
    void matchesPyTorch_data()
    {
        QTest::addColumn<std::string>("id");
        int k = 0;
        for (const auto& c : refs_.doc.at("cases")) {
            if (fxltest::kSanitizedBuild && k++ % 3 != 0) continue;  // a third of the cases under ASan
            const std::string id = c.at("id").get<std::string>();
            QTest::newRow((id + " " + c.at("note").get<std::string>()).c_str()) << id;
        }
    }
    void matchesPyTorch()
    {
        QFETCH(std::string, id);
        const nlohmann::json& c = *refs_.byId.at(id);
        NamedArgs args1, args2;
        for (const auto& [name, j] : c.at("args").items()) {
            args1[name] = kerneltest::caseArg(*be1_, refs_, j);
            args2[name] = kerneltest::caseArg(*be2_, refs_, j);
        }
        const std::string target = c.at("op").get<std::string>();
        const std::vector<Tensor> got = runOp(*be2_, target, args2);
        const std::vector<Tensor> got1 = runOp(*be1_, target, args1);
        const auto& outs = c.at("outs");
        QCOMPARE(got.size(), outs.size());
        QCOMPARE(got1.size(), outs.size());
        for (size_t o = 0; o < outs.size(); ++o) {
            if (outs[o].is_null()) {
                QVERIFY2(!got[o].defined(), "output should be None");
                continue;
            }
            QVERIFY(got[o].defined());
            QVERIFY2(kerneltest::sameBits(*be1_, got1[o], got[o]), "1 and 2 threads differ");
            const SafeTensor& exp = *refs_.byKey.at(outs[o].get<std::string>());
            QCOMPARE(got[o].sizes(), exp.shape);
            const auto wantStrides = c.at("out_strides")[o].get<std::vector<int64_t>>();
            QVERIFY2(sameLayout(exp.shape, got[o].strides(), wantStrides),
                     qPrintable(QString("output %1 has PyTorch's values but not its layout").arg(o)));
            QCOMPARE(got[o].dtype(), exp.dtype);
            const std::vector<uint8_t> g = bytesOf(*be2_, got[o]);
            QCOMPARE(g.size(), exp.data.size());
            const DType dt = exp.dtype;
            if (dt == DType::I64) {
                QVERIFY2(g == exp.data, "indices differ");
                continue;
            }
            const int64_t isz = dtypeItemSize(dt);
            double worst = 0;
            for (int64_t k = 0; k < static_cast<int64_t>(exp.numel()); ++k) {
                const uint8_t* gp = g.data() + k * isz;
                const uint8_t* ep = exp.data.data() + k * isz;
                const double gv = cpu::loadAsDouble(gp, dt), ev = cpu::loadAsDouble(ep, dt);
                const QString where =
                    QString("output %1 element %2: %3 vs %4").arg(o).arg(k).arg(gv, 0, 'g', 17).arg(ev, 0, 'g', 17);
                if (std::isnan(ev) || std::isnan(gv)) {
                    QVERIFY2(std::isnan(ev) && std::isnan(gv), qPrintable(where));
                    continue;
                }
                if (std::isinf(ev) || std::isinf(gv)) {
                    QVERIFY2(ev == gv, qPrintable(where));
                    continue;
                }
                double err;
                if (dt == DType::BF16 || dt == DType::F16) {
                    uint16_t gh, eh;
                    std::memcpy(&gh, gp, 2);
                    std::memcpy(&eh, ep, 2);
                    err = std::abs(ordered16(gh) - ordered16(eh));
                } else {
                    const double tol = dt == DType::F64 ? 1e-12 + 1e-10 * std::fabs(ev) : 1e-6 + 1e-5 * std::fabs(ev);
                    err = std::fabs(gv - ev) / tol;
                }
                worst = std::max(worst, err);
                QVERIFY2(err <= 1.0, qPrintable(where));
            }
            double& w = worstByDtype()[std::string(dtypeAbbr(dt))];
            w = std::max(w, worst);
        }
    }

    // The op's meta function (core/ops) gives PyTorch's output sizes and dtypes.
    void metaMatchesPyTorch_data() { matchesPyTorch_data(); }
    void metaMatchesPyTorch()
    {
        QFETCH(std::string, id);
        const nlohmann::json& c = *refs_.byId.at(id);
        const std::vector<ValueMeta> metas = metaOutputs(refs_, c);
        const auto& outs = c.at("outs");
        QCOMPARE(metas.size(), outs.size());
        for (size_t o = 0; o < outs.size(); ++o) {
            if (outs[o].is_null()) continue;
            QVERIFY(metas[o].isTensor());
            const SafeTensor& exp = *refs_.byKey.at(outs[o].get<std::string>());
            QCOMPARE(kerneltest::concrete(metas[o].tensor.sizes, -1), exp.shape);
            QVERIFY2(sameLayout(exp.shape, kerneltest::concrete(metas[o].tensor.strides, -1),
                                c.at("out_strides")[o].get<std::vector<int64_t>>()),
                     qPrintable(QString("output %1: the meta's strides are not PyTorch's").arg(o)));
            QCOMPARE(metas[o].tensor.dtype, exp.dtype);
        }
    }

    // ---------------- batch invariance
    void batchInvariance_data()
    {
        QTest::addColumn<std::string>("name");
        for (const char* n : {"conv2d",
                              "conv2d groups stride dilation bf16",
                              "conv1d f64",
                              "conv3d f16",
                              "conv2d transposed",
                              "conv2d 64 channels",
                              "convolution_backward grad_input",
                              "convolution_backward transposed grad_input",
                              "max_pool2d",
                              "max_pool2d_backward",
                              "max_pool3d",
                              "avg_pool2d",
                              "avg_pool2d_backward",
                              "avg_pool1d",
                              "avg_pool3d",
                              "_adaptive_avg_pool2d",
                              "_adaptive_avg_pool2d_backward",
                              "_adaptive_avg_pool3d",
                              "adaptive_avg_pool1d",
                              "upsample_bilinear2d",
                              "upsample_nearest2d",
                              "grid_sampler_2d"})
            QTest::newRow(n) << std::string(n);
    }
    void batchInvariance()
    {
        QFETCH(std::string, name);
        const InvCase c = invCase(name);
        auto argsFor = [&](int64_t r0, int64_t n) {
            NamedArgs a = c.fixed;
            for (const auto& [k, t] : c.batched) a[k] = tv(n < 0 ? t : rows(t, r0, n));
            if (n >= 0 && a.count("input_size")) {  // upsampling backwards: input_size carries the batch
                std::vector<int64_t> s = a["input_size"].toIntList();
                s[0] = n;
                a["input_size"] = ints(s);
            }
            return a;
        };
        const std::vector<Tensor> whole = runOp(*be2_, c.target, argsFor(0, -1));
        const std::vector<Tensor> whole1 = runOp(*be1_, c.target, argsFor(0, -1));
        QCOMPARE(whole.size(), whole1.size());
        for (size_t o = 0; o < whole.size(); ++o)
            QVERIFY2(kerneltest::sameBits(*be1_, whole[o], whole1[o]), "1 and 2 threads differ");
        const int64_t N = c.batched.begin()->second.size(0);
        std::vector<std::pair<int64_t, int64_t>> chunks = {{0, 1}, {1, 2}, {3, 2}, {4, 1}};
        if (fxltest::kSanitizedBuild) chunks = {{1, 2}};
        for (auto [r0, n] : chunks) {
            QVERIFY(r0 + n <= N);
            const std::vector<Tensor> part = runOp(*be2_, c.target, argsFor(r0, n));
            for (size_t o : c.batchedOuts) {
                QVERIFY(whole[o].defined() && part[o].defined());
                QVERIFY2(
                    kerneltest::sameBits(*be2_, part[o], rows(whole[o], r0, n)),
                    qPrintable(
                        QString("rows [%1, %2) alone differ from the batch (output %3)").arg(r0).arg(r0 + n).arg(o)));
            }
        }
    }

    // grad_weight / grad_bias reduce over the batch: fixed order, same bits at 1 and 2 threads.
    void convolutionBackwardWeightThreads()
    {
        Backend& be = *be2_;
        const NamedArgs a = {{"grad_output", tv(kerneltest::randomTensor(be, {6, 6, 5, 10}, DType::F32, 31))},
                             {"input", tv(kerneltest::randomTensor(be, {6, 4, 11, 9}, DType::F32, 32))},
                             {"weight", tv(kerneltest::randomTensor(be, {6, 2, 3, 2}, DType::F32, 33))},
                             {"bias_sizes", ints({6})},
                             {"stride", ints({2, 1})},
                             {"padding", ints({1, 1})},
                             {"dilation", ints({2, 1})},
                             {"transposed", Value::ofBool(false)},
                             {"output_padding", ints({0, 0})},
                             {"groups", Value::ofInt(2)},
                             {"output_mask", boolList({true, true, true})}};
        const std::vector<Tensor> r2 = runOp(*be2_, "aten.convolution_backward.default", a);
        const std::vector<Tensor> r1 = runOp(*be1_, "aten.convolution_backward.default", a);
        QCOMPARE(r2.size(), size_t(3));
        QCOMPARE(r2[1].sizes(), (std::vector<int64_t>{6, 2, 3, 2}));
        QCOMPARE(r2[2].sizes(), (std::vector<int64_t>{6}));
        for (size_t k = 0; k < 3; ++k) QVERIFY(kerneltest::sameBits(be, r1[k], r2[k]));
    }

    // An unbatched input [C, L] gives the bits of the batch of one, without the batch dim.
    void unbatchedConvolution()
    {
        Backend& be = *be2_;
        Tensor x = kerneltest::randomTensor(be, {1, 4, 9}, DType::F32, 41);
        const NamedArgs base = {{"weight", tv(kerneltest::randomTensor(be, {5, 4, 3}, DType::F32, 42))},
                                {"bias", tv(kerneltest::randomTensor(be, {5}, DType::F32, 43))},
                                {"stride", ints({2})},
                                {"padding", ints({1})},
                                {"dilation", ints({1})},
                                {"transposed", Value::ofBool(false)},
                                {"output_padding", ints({0})},
                                {"groups", Value::ofInt(1)}};
        NamedArgs b = base, u = base;
        b["input"] = tv(x);
        u["input"] = tv(x.asStrided({4, 9}, {9, 1}, x.offset()));
        const Tensor yb = runOp(be, "aten.convolution.default", b)[0];
        const Tensor yu = runOp(be, "aten.convolution.default", u)[0];
        QCOMPARE(yb.sizes(), (std::vector<int64_t>{1, 5, 5}));
        QCOMPARE(yu.sizes(), (std::vector<int64_t>{5, 5}));
        QVERIFY(bytesOf(be, yb) == bytesOf(be, yu));
    }

    // ---------------- bad arguments
    void rejectsBadArguments_data()
    {
        QTest::addColumn<std::string>("what");
        QTest::addColumn<std::string>("message");
        QTest::newRow("groups do not divide the channels") << std::string("groups") << std::string("groups");
        QTest::newRow("bias size") << std::string("bias") << std::string("bias");
        QTest::newRow("dtype mismatch") << std::string("dtype") << std::string("weight is");
        QTest::newRow("output_padding >= stride") << std::string("outpad") << std::string("output_padding");
        QTest::newRow("kernel larger than the input") << std::string("small") << std::string("smaller than");
        QTest::newRow("pool padding > kernel / 2") << std::string("poolpad") << std::string("half of the kernel");
        QTest::newRow("max_pool backward index out of range") << std::string("index") << std::string("out of range");
    }
    void rejectsBadArguments()
    {
        QFETCH(std::string, what);
        QFETCH(std::string, message);
        Backend& be = *be2_;
        auto rnd = [&](const std::vector<int64_t>& s, DType dt = DType::F32) {
            return tv(kerneltest::randomTensor(be, s, dt, 7));
        };
        NamedArgs conv = {{"input", rnd({2, 4, 8, 8})},
                          {"weight", rnd({6, 2, 3, 3})},
                          {"bias", Value::none()},
                          {"stride", ints({1, 1})},
                          {"padding", ints({0, 0})},
                          {"dilation", ints({1, 1})},
                          {"transposed", Value::ofBool(false)},
                          {"output_padding", ints({0, 0})},
                          {"groups", Value::ofInt(2)}};
        std::string target = "aten.convolution.default";
        NamedArgs a = conv;
        if (what == "groups") {
            a["groups"] = Value::ofInt(3);
        } else if (what == "bias") {
            a["bias"] = rnd({5});
        } else if (what == "dtype") {
            a["weight"] = rnd({6, 2, 3, 3}, DType::F64);
        } else if (what == "outpad") {
            a["transposed"] = Value::ofBool(true);
            a["weight"] = rnd({4, 3, 3, 3});
            a["output_padding"] = ints({1, 1});
        } else if (what == "small") {
            a["weight"] = rnd({6, 2, 9, 3});
        } else if (what == "poolpad") {
            target = "aten.max_pool2d_with_indices.default";
            a = {{"self", rnd({2, 3, 8, 8})}, {"kernel_size", ints({2, 2})}, {"padding", ints({2, 2})}};
        } else if (what == "index") {
            target = "aten.max_pool2d_with_indices_backward.default";
            Tensor idx = kerneltest::randomInts(be, {1, 1, 2, 2}, 0, 4, 1);
            idx.data<int64_t>()[3] = 16;
            a = {{"grad_output", rnd({1, 1, 2, 2})},  {"self", rnd({1, 1, 4, 4})},
                 {"kernel_size", ints({2, 2})},       {"stride", ints({2, 2})},
                 {"padding", ints({0, 0})},           {"dilation", ints({1, 1})},
                 {"ceil_mode", Value::ofBool(false)}, {"indices", tv(idx)}};
        }
        try {
            runOp(be, target, a);
            QFAIL("no error");
        } catch (const KernelError& e) {
            QVERIFY2(std::string(e.what()).find(message) != std::string::npos, e.what());
        }
    }
};

FXL_TEST_APPLESS_MAIN(TestConvPool)
}  // namespace test_conv_pool
#include "test_conv_pool.moc"
