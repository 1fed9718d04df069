// The shape kernel family (views, cat/stack/..., indexing, sort/topk, padding):
// - PyTorch 1.13 CPU references (tests/data/kernels/shape.*, made by gen_shape_refs.py): values
//   bitwise equal (allclose for the ops that add floats: index_put accumulate, index_add,
//   scatter_add/scatter_reduce), the same sizes, strides and storage offset as PyTorch, views
//   sharing their input's storage exactly when PyTorch's do, and every input PyTorch rejects
//   rejected with a KernelError;
// - memory: a view allocates nothing, a copy allocates exactly its outputs (what the executor
//   and the memory timeline count);
// - determinism: 1 vs 2 vs 3 threads bitwise for every case and for large gathers/scatters;
//   accumulations equal an independent sequential loop in index order, bitwise;
// - every shape-family node of the corpus graphs runs on inputs laid out like the recorded
//   meta and gives the recorded sizes and strides; its views share the input's storage.
#include <QtTest>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>

#include <nlohmann/json.hpp>

#include "core/formats/fx/fx_text_parser.hpp"
#include "core/formats/safetensors.hpp"
#include "core/formats/source.hpp"
#include "core/ops/op_registry.hpp"
#include "graph_test_util.hpp"
#include "kernel_test_util.hpp"
#include "runtime/base/backend.hpp"
#include "runtime/base/kernel.hpp"
#include "runtime/cpu/cpu_backend.hpp"
#include "runtime/cpu/cpu_common.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_shape {

using namespace fxl;
using namespace kerneltest;
namespace fs = std::filesystem;

namespace {

const fs::path kData = fxltest::testDataPath("kernels");

// corpusOps: at least this many distinct calls run per corpus graph (the count when this was
// written, lowered by a tenth from 10 on), so a row cannot pass having run nothing. 0 where no
// family node runs: the bw partitions' inputs carry no recorded meta (meta.json describes the
// joint graph), and some partitions have no node of the family.
const std::map<std::string, int> kCorpusFloors = {
    {"checkpoint_mlp.joint.code.py", 7},  // 7 counted
    {"gpt2_deep640.joint.code.py", 47},  // 52 counted
    {"gpt2_tiny.bw.default.code.py", 7},  // 7 counted
    {"gpt2_tiny.bw.mincut.code.py", 2},  // 2 counted
    {"gpt2_tiny.fw.default.code.py", 26},  // 28 counted
    {"gpt2_tiny.fw.mincut.code.py", 31},  // 34 counted
    {"gpt2_tiny.joint.code.py", 47},  // 52 counted
    {"linear_ce.bw.default.code.py", 1},  // 1 counted
    {"linear_ce.bw.mincut.code.py", 1},  // 1 counted
    {"linear_ce.fw.default.code.py", 1},  // 1 counted
    {"linear_ce.fw.mincut.code.py", 1},  // 1 counted
    {"linear_ce.joint.code.py", 4},  // 4 counted
    {"llama_tiny.bw.default.code.py", 8},  // 8 counted
    {"llama_tiny.bw.mincut.code.py", 2},  // 2 counted
    {"llama_tiny.fw.default.code.py", 29},  // 32 counted
    {"llama_tiny.fw.mincut.code.py", 35},  // 38 counted
    {"llama_tiny.joint.code.py", 57},  // 63 counted
    {"mlp_gelu.bw.default.code.py", 3},  // 3 counted
    {"mlp_gelu.bw.mincut.code.py", 1},  // 1 counted
    {"mlp_gelu.fw.default.code.py", 0},  // 0 counted
    {"mlp_gelu.fw.mincut.code.py", 2},  // 2 counted
    {"mlp_gelu.joint.code.py", 4},  // 4 counted
    {"moe_dispatch.joint.code.py", 47},  // 52 counted
    {"moe_tiny.joint.code.py", 69},  // 76 counted
};

// The ops of this family.
const std::set<std::string> kFamily = {"aten.view.default",
                                       "aten._unsafe_view.default",
                                       "aten.view.dtype",
                                       "aten.reshape.default",
                                       "aten._reshape_alias.default",
                                       "aten.as_strided.default",
                                       "aten.permute.default",
                                       "aten.t.default",
                                       "aten.transpose.int",
                                       "aten.expand.default",
                                       "aten.unsqueeze.default",
                                       "aten.squeeze.dim",
                                       "aten.squeeze.dims",
                                       "aten.squeeze.default",
                                       "aten.select.int",
                                       "aten.slice.Tensor",
                                       "aten.diagonal.default",
                                       "aten.unfold.default",
                                       "aten.alias.default",
                                       "aten.detach.default",
                                       "aten.lift_fresh.default",
                                       "aten.split.Tensor",
                                       "aten.split_with_sizes.default",
                                       "aten.unbind.int",
                                       "aten.chunk.default",
                                       "aten.cat.default",
                                       "aten.stack.default",
                                       "aten.repeat.default",
                                       "aten.flip.default",
                                       "aten.slice_scatter.default",
                                       "aten.select_scatter.default",
                                       "aten.as_strided_scatter.default",
                                       "aten.slice_backward.default",
                                       "aten.select_backward.default",
                                       "aten.repeat_interleave.Tensor",
                                       "aten.one_hot.default",
                                       "aten.embedding.default",
                                       "aten.index_select.default",
                                       "aten.index.Tensor",
                                       "aten._unsafe_index.Tensor",
                                       "aten.index_put.default",
                                       "aten._unsafe_index_put.default",
                                       "aten.index_put_.default",
                                       "aten.index_add.default",
                                       "aten.gather.default",
                                       "aten.scatter.src",
                                       "aten.scatter_add.default",
                                       "aten.scatter_add_.default",
                                       "aten.scatter_reduce.two",
                                       "aten.nonzero.default",
                                       "aten.sort.default",
                                       "aten.sort.stable",
                                       "aten.argsort.default",
                                       "aten.topk.default",
                                       "aten.constant_pad_nd.default",
                                       "aten.reflection_pad1d.default",
                                       "aten.reflection_pad2d.default",
                                       "aten.reflection_pad3d.default",
                                       "aten.replication_pad2d.default",
                                       "aten.replication_pad3d.default"};

std::string shapeText(const std::vector<int64_t>& v)
{
    std::string s = "[";
    for (size_t k = 0; k < v.size(); ++k) s += (k ? ", " : "") + std::to_string(v[k]);
    return s + "]";
}

// Values of `a` against a reference: bitwise (exact) or allclose (f32 1e-6 + 1e-5|e|, f64
// 1e-12 + 1e-10|e|, bf16/f16 within 1 ulp, integers exact). "" when they match.
std::string compareValues(Backend& be, const Tensor& a, const SafeTensor& e, bool exact, double* worst)
{
    if (a.sizes() != e.shape) return "sizes " + shapeText(a.sizes()) + " vs " + shapeText(e.shape);
    if (a.dtype() != e.dtype)
        return std::string("dtype ") + std::string(dtypeAbbr(a.dtype())) + " vs " + std::string(dtypeAbbr(e.dtype));
    const std::vector<uint8_t> ab = bytesOf(be, a);
    if (ab.size() != e.data.size()) return "byte sizes differ";
    const int64_t n = a.numel(), is = a.itemSize();
    for (int64_t k = 0; k < n; ++k) {
        const uint8_t* pa = ab.data() + k * is;
        const uint8_t* pe = e.data.data() + k * is;
        if (std::memcmp(pa, pe, static_cast<size_t>(is)) == 0) continue;
        const double x = cpu::loadAsDouble(pa, a.dtype()), y = cpu::loadAsDouble(pe, a.dtype());
        const std::string what = "element " + std::to_string(k) + ": " + QString::number(x, 'g', 9).toStdString()
            + " vs " + QString::number(y, 'g', 9).toStdString();
        if (exact || !isFloatingPoint(a.dtype())) return what + " (bits differ)";
        if (std::isnan(x) && std::isnan(y)) continue;
        if (std::isnan(x) || std::isnan(y) || std::isinf(x) || std::isinf(y)) return what;
        if (a.dtype() == DType::BF16 || a.dtype() == DType::F16) {
            uint16_t ha, he;
            std::memcpy(&ha, pa, 2);
            std::memcpy(&he, pe, 2);
            if (std::abs(ordered16(ha) - ordered16(he)) > 1) return what + " (more than 1 ulp)";
            continue;
        }
        const double atol = a.dtype() == DType::F64 ? 1e-12 : 1e-6, rtol = a.dtype() == DType::F64 ? 1e-10 : 1e-5;
        const double r = std::abs(x - y) / (atol + rtol * std::abs(y));
        if (worst) *worst = std::max(*worst, r);
        if (r > 1.0) return what + " (ratio " + std::to_string(r) + ")";
    }
    return "";
}

// ---- the reference data
const RefFile& refs()
{
    static const RefFile r = [] {
        RefFile f;
        f.load(kData, "shape");
        return f;
    }();
    return r;
}

// Always a view (reshape and the other "view-or-copy" ops copy when no view is possible).
bool isViewOp(const OpInfo* op)
{
    return (op->has(kTraitView) || op->has(kTraitViewList) || op->has(kTraitAliasNoAnnot))
        && op->kind != "view-or-copy";
}

// A sequential reference for the accumulating ops: dst[index[i]] += src[i] along dim 0 of
// 2-d f32 tensors, in index order.
std::vector<float> indexAddReference(const std::vector<float>& self, int64_t cols, const std::vector<int64_t>& index,
                                     const std::vector<float>& src)
{
    std::vector<float> out = self;
    for (size_t i = 0; i < index.size(); ++i)
        for (int64_t c = 0; c < cols; ++c)
            out[static_cast<size_t>(index[i] * cols + c)] +=
                src[i * static_cast<size_t>(cols) + static_cast<size_t>(c)];
    return out;
}

std::vector<float> floatsOf(Backend& be, const Tensor& t)
{
    std::vector<uint8_t> b = bytesOf(be, t);
    std::vector<float> f(static_cast<size_t>(t.numel()));
    std::memcpy(f.data(), b.data(), b.size());
    return f;
}

}  // namespace

class TestShape : public QObject
{
    Q_OBJECT

    std::unique_ptr<Backend> be1_, be2_, be3_;

    // Runs a reference case on `be`; fills inputs and outputs; the live-byte delta of the
    // call (outputs still held) goes to `allocated`.
    std::vector<Tensor> runCase(Backend& be, const nlohmann::json& c, std::vector<Tensor>& inputs, int64_t& allocated)
    {
        const OpInfo* op = OpRegistry::instance().find(c.at("op").get<std::string>());
        if (!op) throw std::runtime_error("no op " + c.at("op").get<std::string>());
        std::vector<Value> args;
        for (const auto& a : c.at("args")) args.push_back(caseArg(be, refs(), a, &inputs));
        const int64_t before = be.liveBytes();
        std::vector<Tensor> out = runCall(be, op, std::move(args));
        allocated = be.liveBytes() - before;
        return out;
    }

private slots:
    void initTestCase()
    {
        be1_ = makeCpuBackend(CpuBackendOptions{1});
        be2_ = makeCpuBackend(CpuBackendOptions{2});
        be3_ = makeCpuBackend(CpuBackendOptions{3});
        if (refs().doc.is_null())
            QFAIL("tests/data/kernels/shape.cases.json is missing (run tests/runtime/gen_shape_refs.py)");
    }

    // sym_size / sym_stride / sym_numel / sym_storage_offset read a view's facts as numbers
    // (a [5, 6] view at offset 7 with strides [1, 5] of a bigger storage).
    void symbolicSizeFacts_data()
    {
        QTest::addColumn<QString>("target");
        QTest::addColumn<int>("dim");
        QTest::addColumn<qlonglong>("want");
        QTest::newRow("sym_size 0") << "aten.sym_size.int" << 0 << 5LL;
        QTest::newRow("sym_size -1") << "aten.sym_size.int" << -1 << 6LL;
        QTest::newRow("sym_stride 1") << "aten.sym_stride.int" << 1 << 5LL;
        QTest::newRow("sym_numel") << "aten.sym_numel.default" << -99 << 30LL;
        QTest::newRow("sym_storage_offset") << "aten.sym_storage_offset.default" << -99 << 7LL;
    }
    void symbolicSizeFacts()
    {
        QFETCH(QString, target);
        QFETCH(int, dim);
        QFETCH(qlonglong, want);
        const Tensor base = randomTensor(*be1_, {40}, DType::F32, 3);
        NamedArgs args{{"self", Value::ofTensor(base.asStrided({5, 6}, {1, 5}, 7))}};
        if (dim != -99) args["dim"] = Value::ofInt(dim);
        KernelCall call = makeCall(target.toStdString(), args, true);
        be1_->run(call);
        QCOMPARE(call.result.kind, Value::Kind::Int);
        QCOMPARE(static_cast<qlonglong>(call.result.i), want);
    }

    // resize_ and atan2.out change a tensor's sizes in place: later uses of the node read the
    // new value, as in PyTorch (values from PyTorch 1.13: tests/runtime/test_shape.cpp's graph
    // run there gives the same). Shrinking keeps the storage, growing within it shows the old
    // elements again, growing past it keeps the old bytes first (the rest zero here, unset in
    // PyTorch); out= of another shape is resized, and the f32 result is cast into f64.
    void resizeAndOutGiveLaterUsesTheNewValue()
    {
        const Graph g = parseFxText("def forward(self, x, y, z, o):\n"
                                    "    r = torch.ops.aten.resize_.default(x, [2, 2])\n"
                                    "    a = torch.ops.aten.add.Tensor(x, 1)\n"
                                    "    w = torch.ops.aten.resize_.default(x, [3, 2])\n"
                                    "    b = torch.ops.aten.mul.Tensor(x, 2)\n"
                                    "    g = torch.ops.aten.resize_.default(x, [4, 2])\n"
                                    "    t = torch.ops.aten.atan2.out(y, z, out = o)\n"
                                    "    return (r, a, b, x, o, t)\n",
                                    "resize.py");
        SafeTensorsFile in;
        in.tensors.push_back(graphtest::f32Tensor("x", {2, 3}, {0, 1, 2, 3, 4, 5}));
        in.tensors.push_back(graphtest::f32Tensor("y", {3}, {1, -2, 3}));
        in.tensors.push_back(graphtest::f32Tensor("z", {2, 1}, {2, -1}));
        SafeTensor o;
        o.name = "o";
        o.dtype = DType::F64;
        o.shape = {5};
        o.data.assign(5 * sizeof(double), 0);
        in.tensors.push_back(o);
        for (Backend* be : {be1_.get(), be2_.get()}) {
            const graphtest::Run run = graphtest::runGraph(g, in, *be);
            auto out = [&](int i) {
                const SafeTensor* t = run.outputs.find("out_" + std::to_string(i));
                if (!t) qFatal("no output %d", i);
                return *t;
            };
            QCOMPARE(out(0).shape, (std::vector<int64_t>{2, 2}));
            QCOMPARE(graphtest::floatsOf(out(0)), (std::vector<float>{0, 1, 2, 3}));
            QCOMPARE(graphtest::floatsOf(out(1)), (std::vector<float>{1, 2, 3, 4}));
            QCOMPARE(out(2).shape, (std::vector<int64_t>{3, 2}));
            QCOMPARE(graphtest::floatsOf(out(2)), (std::vector<float>{0, 2, 4, 6, 8, 10}));
            QCOMPARE(out(3).shape, (std::vector<int64_t>{4, 2}));
            QCOMPARE(graphtest::floatsOf(out(3)), (std::vector<float>{0, 1, 2, 3, 4, 5, 0, 0}));
            for (int i : {4, 5}) {
                QCOMPARE(out(i).dtype, DType::F64);
                QCOMPARE(out(i).shape, (std::vector<int64_t>{2, 3}));
                const std::vector<double> got = graphtest::valuesOf<double>(out(i));
                const float ys[3] = {1, -2, 3}, zs[2] = {2, -1};
                for (int r = 0; r < 2; ++r)
                    for (int c = 0; c < 3; ++c)
                        QCOMPARE(got[static_cast<size_t>(r * 3 + c)], double(std::atan2(ys[c], zs[r])));
            }
            QCOMPARE(graphtest::valuesOf<double>(out(4))[0], 0.46364760398864746);  // PyTorch 1.13's value
        }
    }

    void resizeAndOutErrors()
    {
        const Tensor x = randomTensor(*be1_, {2, 3}, DType::F32, 5);
        KernelCall neg = makeCall(
            "aten.resize_.default",
            {{"self", Value::ofTensor(x)}, {"size", Value::ofList({Value::ofInt(2), Value::ofInt(-1)})}}, true);
        QVERIFY_THROWS_EXCEPTION(KernelError, be1_->run(neg));
        const Tensor l = be1_->empty({2, 3}, DType::I64);
        KernelCall cast =
            makeCall("aten.atan2.out",
                     {{"self", Value::ofTensor(x)}, {"other", Value::ofTensor(x)}, {"out", Value::ofTensor(l)}}, true);
        try {
            be1_->run(cast);
            QFAIL("atan2.out into an int64 tensor ran");
        } catch (const KernelError& e) {
            QCOMPARE(QString(e.what()), QString("result type float32 can't be cast to the desired output type int64"));
        }
        // channels_last strides, on the same storage when it is big enough
        Value channelsLast;
        channelsLast.kind = Value::Kind::MemoryFormat;
        channelsLast.s = "channels_last";
        const Tensor big = randomTensor(*be1_, {2, 3, 4, 5}, DType::F32, 6);
        KernelCall cl =
            makeCall("aten.resize_.default",
                     {{"self", Value::ofTensor(big)},
                      {"size", Value::ofList({Value::ofInt(1), Value::ofInt(2), Value::ofInt(3), Value::ofInt(4)})},
                      {"memory_format", channelsLast}},
                     true);
        be1_->run(cl);
        QCOMPARE(cl.result.tensor.strides(), (std::vector<int64_t>{24, 1, 8, 2}));
        QCOMPARE(cl.result.tensor.storage().get(), big.storage().get());
        // channels_last_3d, and the rank and preserve_format errors, as PyTorch 1.13 gives them:
        // torch.empty(2,3,4,5,6).resize_(1,2,3,4,5, memory_format=torch.channels_last_3d).stride()
        auto sizeList = [](std::initializer_list<int64_t> sizes) {
            std::vector<Value> v;
            for (int64_t s : sizes) v.push_back(Value::ofInt(s));
            return Value::ofList(v);
        };
        auto format = [](const char* name) {
            Value v;
            v.kind = Value::Kind::MemoryFormat;
            v.s = name;
            return v;
        };
        auto resize = [&](const Tensor& t, Value sizes, const char* mf) {
            KernelCall c =
                makeCall("aten.resize_.default",
                         {{"self", Value::ofTensor(t)}, {"size", sizes}, {"memory_format", format(mf)}}, true);
            be1_->run(c);
            return c.result.tensor;
        };
        const Tensor big5 = randomTensor(*be1_, {2, 3, 4, 5, 6}, DType::F32, 7);
        QCOMPARE(resize(big5, sizeList({1, 2, 3, 4, 5}), "channels_last_3d").strides(),
                 (std::vector<int64_t>{120, 1, 40, 10, 2}));
        const std::pair<const char*, const char*> refused[] = {
            {"channels_last_3d", "required rank 5 tensor to use channels_last_3d format"},
            {"torch.channels_last", "required rank 4 tensor to use channels_last format"},
            {"preserve_format", "resize_: unsupported memory format preserve_format"}};
        for (const auto& [mf, message] : refused) {
            try {
                resize(big, sizeList({2, 3, 4}), mf);
                QFAIL(mf);
            } catch (const KernelError& e) {
                QCOMPARE(QString(e.what()), QString(message));
            }
        }
        // torch.empty(2,3,1,4,5, memory_format=torch.channels_last_3d).stride()
        KernelCall e5 =
            makeCall("aten.empty.memory_format",
                     {{"size", sizeList({2, 3, 1, 4, 5})}, {"memory_format", format("torch.channels_last_3d")}}, false);
        be1_->run(e5);
        QCOMPARE(e5.result.tensor.strides(), (std::vector<int64_t>{60, 1, 60, 15, 3}));
    }

    // Every registered target of the family has a schema and a CPU kernel.
    void registered()
    {
        for (const std::string& t : kFamily) {
            QVERIFY2(OpRegistry::instance().find(t), t.c_str());
            QVERIFY2(KernelRegistry::instance().find(t, DeviceKind::Cpu), t.c_str());
        }
    }

    // ---------------- PyTorch references
    void reference_data()
    {
        QTest::addColumn<std::string>("id");
        for (const auto& c : refs().doc.at("cases")) {
            const std::string id = c.at("id").get<std::string>();
            QTest::newRow(id.c_str()) << id;
        }
    }
    void reference()
    {
        QFETCH(std::string, id);
        const nlohmann::json& c = *refs().byId.at(id);
        const std::string target = c.at("op").get<std::string>();
        const OpInfo* op = OpRegistry::instance().find(target);
        QVERIFY2(op, target.c_str());
        std::vector<Tensor> in1, in2;
        int64_t alloc1 = 0, alloc2 = 0;
        if (c.contains("error")) {
            bool threw = false;
            try {
                runCase(*be1_, c, in1, alloc1);
            } catch (const KernelError& e) {
                threw = true;
                qInfo("%s: %s (PyTorch: %s)", id.c_str(), e.what(), c.at("error").get<std::string>().c_str());
            }
            QVERIFY2(threw, ("accepted an input PyTorch rejects: " + c.at("error").get<std::string>()).c_str());
            return;
        }
        std::vector<Tensor> out1, out2;
        try {
            out1 = runCase(*be1_, c, in1, alloc1);
            out2 = runCase(*be2_, c, in2, alloc2);
        } catch (const std::exception& e) {
            QFAIL(e.what());
        }
        const auto& outs = c.at("outputs");
        const auto& meta = c.at("out_meta");
        QCOMPARE(out1.size(), outs.size());
        const bool exact = c.value("compare", "exact") == "exact";
        const bool checkStrides = c.value("check_strides", true);
        const bool view = isViewOp(op);
        int64_t newBytes = 0;
        std::set<const Storage*> counted;
        for (size_t k = 0; k < outs.size(); ++k) {
            const Tensor& t = out1[k];
            QVERIFY(t.defined());
            const SafeTensor* e = refs().byKey.at(outs[k].get<std::string>());
            double worst = 0;
            const std::string diff = compareValues(*be1_, t, *e, exact, &worst);
            QVERIFY2(diff.empty(), ("output " + std::to_string(k) + ": " + diff).c_str());
            const auto& m = meta[k];
            if (checkStrides) {
                const auto st = m.at("strides").get<std::vector<int64_t>>();
                QVERIFY2(t.strides() == st || t.numel() == 0,
                         ("output " + std::to_string(k) + ": strides " + shapeText(t.strides()) + " vs PyTorch "
                          + shapeText(st))
                             .c_str());
                if (t.numel() > 0 && !m.at("alias").is_null())
                    QVERIFY2(t.offset() == m.at("offset").get<int64_t>(),
                             ("output " + std::to_string(k) + ": storage offset " + std::to_string(t.offset())
                              + " vs PyTorch " + std::to_string(m.at("offset").get<int64_t>()))
                                 .c_str());
            }
            // storage sharing: exactly as PyTorch's (views of empty tensors still share here)
            const Storage* s = t.storage().get();
            if (!m.at("alias").is_null()) {
                const size_t j = m.at("alias").get<size_t>();
                QVERIFY2(j < in1.size() && in1[j].storage().get() == s,
                         ("output " + std::to_string(k) + " must be a view of input " + std::to_string(j)).c_str());
            } else if (t.numel() > 0
                       || !(op->has(kTraitView) || op->has(kTraitViewList) || op->has(kTraitAliasNoAnnot))) {
                for (const Tensor& i : in1)
                    QVERIFY2(i.storage().get() != s,
                             ("output " + std::to_string(k) + " must not share an input's storage").c_str());
            }
            bool isInput = false;
            for (const Tensor& i : in1) isInput = isInput || i.storage().get() == s;
            if (!isInput && counted.insert(s).second) newBytes += s->nbytes();
            QVERIFY2(sameBits(*be1_, t, out2[k]), ("output " + std::to_string(k) + ": 1 and 2 threads differ").c_str());
            QCOMPARE(out2[k].strides(), t.strides());
        }
        // a view allocates nothing; a copy exactly its outputs' storages
        QVERIFY2(alloc1 == newBytes,
                 (std::to_string(alloc1) + " bytes allocated for outputs of " + std::to_string(newBytes)).c_str());
        if (view) QCOMPARE(alloc1, int64_t(0));
    }

    // _unsafe_index / _unsafe_index_put / index_put_ give what index / index_put give.
    void unsafeAndInplaceVariants()
    {
        Backend& be = *be2_;
        int checked = 0;
        for (const auto& c : refs().doc.at("cases")) {
            const std::string target = c.at("op").get<std::string>();
            if (c.contains("error") || (target != "aten.index.Tensor" && target != "aten.index_put.default")) continue;
            const std::vector<std::string> others = target == "aten.index.Tensor"
                ? std::vector<std::string>{"aten._unsafe_index.Tensor"}
                : std::vector<std::string>{"aten._unsafe_index_put.default", "aten.index_put_.default"};
            std::vector<Tensor> in;
            int64_t alloc = 0;
            const Tensor want = runCase(be, c, in, alloc).at(0);
            for (const std::string& o : others) {
                nlohmann::json c2 = c;
                c2["op"] = o;
                std::vector<Tensor> in2;
                const Tensor got = runCase(be, c2, in2, alloc).at(0);
                QVERIFY2(sameBits(be, got, want), (o + " differs on " + c.at("id").get<std::string>()).c_str());
                if (o == "aten.index_put_.default") {
                    QVERIFY(got.storage() == in2.at(0).storage());  // written in place, self returned
                    QCOMPARE(alloc, int64_t(0));
                }
                ++checked;
            }
        }
        QVERIFY(checked >= 10);
    }

    // ---------------- determinism of the accumulating and gathering ops on large inputs
    void accumulationOrder()
    {
        const OpInfo* indexAdd = OpRegistry::instance().find("aten.index_add.default");
        const OpInfo* indexPut = OpRegistry::instance().find("aten.index_put.default");
        const OpInfo* scatterAdd = OpRegistry::instance().find("aten.scatter_add.default");
        std::vector<Tensor> results[3];
        Backend* bes[3] = {be1_.get(), be2_.get(), be3_.get()};
        for (int b = 0; b < 3; ++b) {
            Backend& be = *bes[b];
            const int64_t rows = 64, cols = 257, n = 5000;
            Tensor self = randomTensor(be, {rows, cols}, DType::F32, 1);
            Tensor src = randomTensor(be, {n, cols}, DType::F32, 2);
            Tensor idx = randomInts(be, {n}, 0, rows, 3);  // many duplicates
            Tensor ia = runCall(be, indexAdd,
                                {Value::ofTensor(self), Value::ofInt(0), Value::ofTensor(idx), Value::ofTensor(src),
                                 Value::ofInt(1)})
                            .at(0);
            Tensor ip = runCall(be, indexPut,
                                {Value::ofTensor(self), Value::ofList({Value::ofTensor(idx)}), Value::ofTensor(src),
                                 Value::ofBool(true)})
                            .at(0);
            Tensor sidx = randomInts(be, {n, cols}, 0, rows, 4);
            Tensor sa = runCall(be, scatterAdd,
                                {Value::ofTensor(self), Value::ofInt(0), Value::ofTensor(sidx), Value::ofTensor(src)})
                            .at(0);
            // sequential references in index order
            const std::vector<float> want = indexAddReference(
                floatsOf(be, self), cols, std::vector<int64_t>(idx.data<int64_t>(), idx.data<int64_t>() + n),
                floatsOf(be, src));
            QVERIFY(floatsOf(be, ia) == want);
            QVERIFY(floatsOf(be, ip) == want);
            std::vector<float> ws = floatsOf(be, self);
            const std::vector<float> sv = floatsOf(be, src);
            for (int64_t i = 0; i < n; ++i)
                for (int64_t c = 0; c < cols; ++c)
                    ws[static_cast<size_t>(sidx.data<int64_t>()[i * cols + c] * cols + c)] +=
                        sv[static_cast<size_t>(i * cols + c)];
            QVERIFY(floatsOf(be, sa) == ws);
            results[b] = {ia, ip, sa};
        }
        for (int b = 1; b < 3; ++b)
            for (size_t k = 0; k < results[0].size(); ++k) QVERIFY(sameBits(*be1_, results[0][k], results[b][k]));
    }

    // Gathers split between threads give the same bits as one thread, and as a naive loop.
    void largeGathers()
    {
        const OpInfo* index = OpRegistry::instance().find("aten.index.Tensor");
        const OpInfo* gather = OpRegistry::instance().find("aten.gather.default");
        const OpInfo* emb = OpRegistry::instance().find("aten.embedding.default");
        const OpInfo* cat = OpRegistry::instance().find("aten.cat.default");
        const OpInfo* sort = OpRegistry::instance().find("aten.sort.default");
        const OpInfo* topk = OpRegistry::instance().find("aten.topk.default");
        std::vector<Tensor> res[3];
        Backend* bes[3] = {be1_.get(), be2_.get(), be3_.get()};
        for (int b = 0; b < 3; ++b) {
            Backend& be = *bes[b];
            Tensor w = randomTensor(be, {500, 96}, DType::F32, 5);
            Tensor ids = randomInts(be, {16, 300}, 0, 500, 6);
            Tensor e = runCall(be, emb, {Value::ofTensor(w), Value::ofTensor(ids)}).at(0);
            for (int64_t i = 0; i < ids.numel(); ++i)
                QVERIFY(std::memcmp(e.data<float>() + i * 96, w.data<float>() + ids.data<int64_t>()[i] * 96, 96 * 4)
                        == 0);
            Tensor x = randomTensor(be, {40, 50, 30}, DType::F32, 7);
            Tensor i1 = randomInts(be, {20, 1}, -40, 40, 8), i2 = randomInts(be, {1, 25}, 0, 30, 9);
            Tensor ix =
                runCall(be, index,
                        {Value::ofTensor(x), Value::ofList({Value::ofTensor(i1), Value::none(), Value::ofTensor(i2)})})
                    .at(0);
            QCOMPARE(ix.sizes(), (std::vector<int64_t>{20, 25, 50}));
            Tensor gi = randomInts(be, {40, 50, 60}, 0, 30, 10);
            Tensor g = runCall(be, gather, {Value::ofTensor(x), Value::ofInt(2), Value::ofTensor(gi)}).at(0);
            for (int64_t a = 0; a < 40; a += 7)
                for (int64_t c = 0; c < 60; c += 11)
                    QCOMPARE(g.data<float>()[(a * 50 + 3) * 60 + c],
                             x.data<float>()[(a * 50 + 3) * 30 + gi.data<int64_t>()[(a * 50 + 3) * 60 + c]]);
            Tensor ct =
                runCall(be, cat, {Value::ofList({Value::ofTensor(x), Value::ofTensor(x)}), Value::ofInt(1)}).at(0);
            Tensor y = randomTensor(be, {300, 200}, DType::F32, 11);
            std::vector<Tensor> so = runCall(be, sort, {Value::ofTensor(y), Value::ofInt(0), Value::ofBool(true)});
            std::vector<Tensor> tk = runCall(be, topk, {Value::ofTensor(y), Value::ofInt(7), Value::ofInt(1)});
            res[b] = {e, ix, g, ct, so[0], so[1], tk[0], tk[1]};
        }
        for (int b = 1; b < 3; ++b)
            for (size_t k = 0; k < res[0].size(); ++k)
                QVERIFY2(sameBits(*be1_, res[0][k], res[b][k]), ("result " + std::to_string(k)).c_str());
    }

    // sort/topk ties: lower index first, independent of the row length or the k chosen.
    void tiesLowerIndexFirst()
    {
        Backend& be = *be2_;
        const OpInfo* sort = OpRegistry::instance().find("aten.sort.default");
        const OpInfo* topk = OpRegistry::instance().find("aten.topk.default");
        for (int64_t n : {5, 16, 17, 48, 1000}) {
            Tensor x = randomInts(be, {n}, 0, 3, static_cast<uint32_t>(n));
            for (bool desc : {false, true}) {
                std::vector<Tensor> s = runCall(be, sort, {Value::ofTensor(x), Value::ofInt(0), Value::ofBool(desc)});
                const int64_t* v = s[0].data<int64_t>();
                const int64_t* i = s[1].data<int64_t>();
                for (int64_t k = 1; k < n; ++k) {
                    QVERIFY(desc ? v[k - 1] >= v[k] : v[k - 1] <= v[k]);
                    if (v[k - 1] == v[k]) QVERIFY(i[k - 1] < i[k]);
                }
                for (int64_t k : {int64_t(1), n / 2, n}) {
                    std::vector<Tensor> t =
                        runCall(be, topk, {Value::ofTensor(x), Value::ofInt(k), Value::ofInt(0), Value::ofBool(desc)});
                    QVERIFY(std::memcmp(t[1].rawData(), s[1].rawData(), static_cast<size_t>(k * 8)) == 0);
                }
            }
        }
    }

    // ---------------- the corpus graphs: every shape-family node runs on inputs laid out like
    // its recorded meta and gives the recorded sizes, dtype and strides; a view shares its
    // input's storage
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
        // node args become tensors laid out like their meta (index-like ints are 0: valid everywhere)
        o.makeInput = [](Backend& be, const TensorMeta& m, uint32_t seed) {
            const std::vector<int64_t> sizes = concrete(m.sizes, 1);
            std::vector<int64_t> strides = concrete(m.strides, 1);
            if (strides.size() != sizes.size()) strides = Tensor::contiguousStrides(sizes);
            int64_t span = 1;
            for (size_t k = 0; k < sizes.size(); ++k) span += (sizes[k] - 1) * strides[k];
            bool empty = false;
            for (int64_t s : sizes) empty = empty || s == 0;
            Tensor store = isFloatingPoint(m.dtype) ? randomTensor(be, {empty ? 0 : span}, m.dtype, seed)
                                                    : be.empty({empty ? 0 : span}, m.dtype);
            if (!isFloatingPoint(m.dtype) && store.nbytes() > 0)
                std::memset(store.rawData(), 0, static_cast<size_t>(store.nbytes()));
            return store.asStrided(sizes, strides, 0);
        };
        o.skipDynamicShapeOps = true;  // sizes come from the data, not from meta
        o.checkStrides = true;
        o.acceptMissingOutputMeta = true;  // split etc. recorded without tuple meta
        o.mustAliasFirstInput = isViewOp;
        const CorpusRunResult r = runCorpusFamily(*g, *be2_, o);
        QVERIFY2(r.failure.empty(), r.failure.c_str());
        const std::string file = fs::path(path).filename().string();
        qInfo("%s: %d distinct shape-family calls checked, %d skipped", file.c_str(), r.ran, r.skipped);
        const int floor = corpusRunFloor(kCorpusFloors, path);
        QVERIFY2(floor >= 0, (file + ": no expected count in kCorpusFloors (a new corpus file?)").c_str());
        QVERIFY2(r.ran >= floor,
                 (file + ": " + std::to_string(r.ran) + " calls checked, expected at least " + std::to_string(floor))
                     .c_str());
    }
};

FXL_TEST_APPLESS_MAIN(TestShape)
}  // namespace test_shape
#include "test_shape.moc"
