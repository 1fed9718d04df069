// Meta functions for the tricky cases: view strides of non-contiguous inputs, expand,
// permute, slices with steps, type promotion with Python scalars, TensorIterator output
// strides, empty_like's preserve_format, multi-output ops and unbacked symbols. Each case
// runs a small FX graph through the registry (bind + meta) via propagateShapes; the
// expected values are what PyTorch's meta kernels produce for the same call.
#include <QtTest>

#include "core/formats/fx/fx_text_parser.hpp"
#include "core/ops/op_registry.hpp"
#include "core/ops/shape_prop.hpp"
#include "test_registry.hpp"

namespace test_op_meta {

using namespace fxl;

namespace {

struct Run
{
    Graph g;
    ShapePropResult r;
    QString ann(const char* name) const
    {
        NodeId id = g.findByName(name);
        if (id == kNoNode) return "<no node>";
        return QString::fromStdString(formatAnnotation(g.node(id).val));
    }
    const ValueMeta& val(const char* name) const { return g.node(g.findByName(name)).val; }
    QString problems() const
    {
        QString s;
        for (const auto& p : r.problems) s += QString::fromStdString(p) + "\n";
        return s;
    }
};

// `inputs`: placeholder name -> annotation ("f32[4, 3][1, 4]"). `body`: the lines of
// forward after the signature (4-space indented), including the return.
Run run(const std::vector<std::pair<std::string, std::string>>& inputs, const std::string& body,
        const Graph* recorded = nullptr)
{
    std::string text = "def forward(self";
    for (const auto& [n, a] : inputs) text += ", " + n;
    text += "):\n" + body;
    Run out;
    out.g = parseFxText(text, "<test>");
    ShapePropOptions opts;
    for (const auto& [n, a] : inputs) opts.inputs[n] = parseAnnotation(a).tensor;
    opts.recorded = recorded;
    out.r = propagateShapes(out.g, opts);
    return out;
}

}  // namespace

class TestOpMeta : public QObject
{
    Q_OBJECT

private slots:
    void everyCorpusOpHasAMetaFunction()
    {
        const OpRegistry& reg = OpRegistry::instance();
        // the ops the traced corpus uses (all namespaces but custom ones)
        for (const char* op : {"aten.t.default",
                               "aten._reshape_alias.default",
                               "aten.view.default",
                               "aten.transpose.int",
                               "aten.mm.default",
                               "aten._unsafe_view.default",
                               "aten.clone.default",
                               "aten.bmm.default",
                               "aten.add.Tensor",
                               "aten.expand.default",
                               "aten.sum.dim_IntList",
                               "aten.addmm.default",
                               "aten.mul.Tensor",
                               "aten.detach.default",
                               "aten.native_layer_norm_backward.default",
                               "aten.native_layer_norm.default",
                               "aten.masked_fill.Scalar",
                               "aten.alias.default",
                               "aten._softmax_backward_data.default",
                               "aten._softmax.default",
                               "aten.gelu.default",
                               "aten.gelu_backward.default",
                               "aten.cat.default",
                               "aten.bitwise_not.default",
                               "aten.split.Tensor",
                               "_c10d_functional.wait_tensor.default",
                               "aten.slice.Tensor",
                               "aten.permute.default",
                               "_c10d_functional.all_reduce.default",
                               "prims.convert_element_type.default",
                               "aten.unsqueeze.default",
                               "_c10d_functional.all_gather_into_tensor.default",
                               "_c10d_functional.reduce_scatter_tensor.default",
                               "aten.pow.Tensor_Scalar",
                               "aten.sub.Tensor",
                               "aten.sigmoid.default",
                               "aten.select.int",
                               "aten.relu.default",
                               "aten.mul.Scalar",
                               "aten.erf.default",
                               "aten.rsqrt.default",
                               "aten.slice_backward.default",
                               "aten.div.Tensor",
                               "_c10d_functional.all_reduce_.default",
                               "aten.repeat.default",
                               "aten.silu.default",
                               "aten.mean.dim",
                               "aten.div.Scalar",
                               "aten.copy.default",
                               "aten.empty_like.default",
                               "aten.embedding_dense_backward.default",
                               "aten.embedding.default",
                               "aten.add.Scalar",
                               "aten._to_copy.default",
                               "aten.var_mean.correction",
                               "aten.stack.default",
                               "aten.select_backward.default",
                               "aten.neg.default",
                               "aten.fill_.Scalar",
                               "aten.ones_like.default",
                               "aten.sub_.Tensor",
                               "aten.squeeze.dim",
                               "aten.nll_loss_forward.default",
                               "aten.nll_loss_backward.default",
                               "aten._log_softmax_backward_data.default",
                               "aten._log_softmax.default",
                               "aten.index_put.default",
                               "aten.sum.default",
                               "aten.index.Tensor",
                               "_c10d_functional.broadcast.default",
                               "aten.gt.Scalar",
                               "aten.full.default",
                               "aten.empty.memory_format",
                               "aten.le.Scalar",
                               "prims.inductor_random.default",
                               "prims.inductor_lookup_seed.default",
                               "aten.zeros.default",
                               "aten.triu.default",
                               "aten.arange.default",
                               "prims.inductor_seeds.default",
                               "aten.sin.default",
                               "aten.scatter.src",
                               "aten.lift_fresh_copy.default",
                               "aten.ge.Tensor",
                               "aten.zeros_like.default",
                               "aten.where.self",
                               "aten.topk.default",
                               "aten.mse_loss_backward.default",
                               "aten.mse_loss.default",
                               "aten.index_select.default",
                               "aten.fill.Scalar",
                               "aten.bincount.default",
                               "aten.arange.start",
                               "aten.lt.Scalar",
                               "aten.ge.Scalar",
                               "aten.bitwise_or.Tensor",
                               "aten.split_with_sizes.default",
                               "aten.sort.default",
                               "aten.scalar_tensor.default",
                               "aten.rsub.Scalar",
                               "aten.repeat_interleave.Tensor",
                               "aten.rand.default",
                               "aten.new_zeros.default",
                               "aten.new_empty_strided.default",
                               "aten.max.dim",
                               "aten.log.default",
                               "aten.linear.default",
                               "aten.index_add.default",
                               "aten.gather.default",
                               "aten.exp.default",
                               "aten.baddbmm.default",
                               "aten._local_scalar_dense.default",
                               "operator.getitem"}) {
            const OpInfo* info = reg.find(op);
            QVERIFY2(info, op);
            QVERIFY2(static_cast<bool>(info->meta), op);
        }
    }

    void viewOfNonContiguous()
    {
        // moe_tiny: permute then view keeps the permuted layout
        Run r = run({{"x", "f32[4, 24, 64, 1][64, 256, 1, 256]"}},
                    "    v = torch.ops.aten.view.default(x, [4, 24, 64])\n"
                    "    w = torch.ops.aten.view.default(x, [4, 24, 16, 4])\n"
                    "    return (v, w)\n");
        QVERIFY2(r.r.problems.empty(), qPrintable(r.problems()));
        QCOMPARE(r.ann("v"), QString("f32[4, 24, 64][64, 256, 1]"));
        QCOMPARE(r.ann("w"), QString("f32[4, 24, 16, 4][64, 256, 4, 1]"));
        // merging dims that are not adjacent in memory is not a view
        Run bad = run({{"x", "f32[4, 6][1, 4]"}}, "    v = torch.ops.aten.view.default(x, [24])\n    return (v,)\n");
        QCOMPARE(bad.r.problems.size(), size_t(1));
        QVERIFY(bad.r.problems[0].find("node 'v' (aten.view.default)") != std::string::npos);
        // ... but reshape copies, and _unsafe_view of a temporary is contiguous
        Run ok = run({{"x", "f32[4, 6][1, 4]"}},
                     "    v = torch.ops.aten.reshape.default(x, [-1, 2])\n"
                     "    s = torch.ops.aten.view.default(x, [4, 3, 2])\n"
                     "    return (v, s)\n");
        QVERIFY2(ok.r.problems.empty(), qPrintable(ok.problems()));
        QCOMPARE(ok.ann("v"), QString("f32[12, 2][2, 1]"));
        QCOMPARE(ok.ann("s"), QString("f32[4, 3, 2][1, 8, 4]"));  // splitting a dim is a view
    }

    void expandStrides()
    {
        Run r = run({{"x", "f32[3]"}, {"y", "f32[3, 1][1, 1]"}, {"z", "f32[]"}},
                    "    a = torch.ops.aten.expand.default(x, [2, 3])\n"
                    "    b = torch.ops.aten.expand.default(y, [3, 4])\n"
                    "    c = torch.ops.aten.expand.default(x, [1, 3])\n"
                    "    d = torch.ops.aten.expand.default(y, [-1, 5])\n"
                    "    e = torch.ops.aten.expand.default(z, [2, 2])\n"
                    "    return (a, b, c, d, e)\n");
        QVERIFY2(r.r.problems.empty(), qPrintable(r.problems()));
        QCOMPARE(r.ann("a"), QString("f32[2, 3][0, 1]"));
        QCOMPARE(r.ann("b"), QString("f32[3, 4][1, 0]"));
        QCOMPARE(r.ann("c"), QString("f32[1, 3][3, 1]"));  // a new leading dim of size 1 is not broadcast
        QCOMPARE(r.ann("d"), QString("f32[3, 5][1, 0]"));
        QCOMPARE(r.ann("e"), QString("f32[2, 2][0, 0]"));
        Run bad = run({{"x", "f32[3]"}}, "    a = torch.ops.aten.expand.default(x, [2, 4])\n    return (a,)\n");
        QCOMPARE(bad.r.problems.size(), size_t(1));
    }

    void permuteTransposeOfNonContiguous()
    {
        Run r = run({{"x", "f32[4, 24, 64][64, 256, 1]"}},
                    "    p = torch.ops.aten.permute.default(x, [2, 0, 1])\n"
                    "    t = torch.ops.aten.transpose.int(p, -1, 0)\n"
                    "    u = torch.ops.aten.unsqueeze.default(x, 1)\n"
                    "    u2 = torch.ops.aten.unsqueeze.default(x, -1)\n"
                    "    s = torch.ops.aten.squeeze.dim(u, 1)\n"
                    "    s2 = torch.ops.aten.squeeze.dim(x, 0)\n"
                    "    return (t, u2, s, s2)\n");
        QVERIFY2(r.r.problems.empty(), qPrintable(r.problems()));
        QCOMPARE(r.ann("p"), QString("f32[64, 4, 24][1, 64, 256]"));
        QCOMPARE(r.ann("t"), QString("f32[24, 4, 64][256, 64, 1]"));
        QCOMPARE(r.ann("u"), QString("f32[4, 1, 24, 64][64, 6144, 256, 1]"));
        QCOMPARE(r.ann("u2"), QString("f32[4, 24, 64, 1][64, 256, 1, 1]"));
        QCOMPARE(r.ann("s"), QString("f32[4, 24, 64][64, 256, 1]"));
        QCOMPARE(r.ann("s2"), QString("f32[4, 24, 64][64, 256, 1]"));  // size 4 is not squeezed
    }

    void sliceSelectSplit()
    {
        Run r = run({{"x", "f32[10, 4]"}},
                    "    a = torch.ops.aten.slice.Tensor(x, 0, 1, 8, 3)\n"
                    "    b = torch.ops.aten.slice.Tensor(x, 1, -3, 9223372036854775807)\n"
                    "    c = torch.ops.aten.select.int(x, 0, -1)\n"
                    "    d = torch.ops.aten.slice.Tensor(x, 0, 20, 30)\n"
                    "    sp = torch.ops.aten.split.Tensor(x, 4)\n"
                    "    g0 = sp[0]\n"
                    "    g2 = sp[2]\n"
                    "    sw = torch.ops.aten.split_with_sizes.default(x, [1, 3], 1)\n"
                    "    h1 = sw[1]\n"
                    "    return (a, b, c, d, g0, g2, h1)\n");
        QVERIFY2(r.r.problems.empty(), qPrintable(r.problems()));
        QCOMPARE(r.ann("a"), QString("f32[3, 4][12, 1]"));
        QCOMPARE(r.val("a").tensor.storageOffset.maybeValue().value_or(-1), int64_t(4));
        QCOMPARE(r.ann("b"), QString("f32[10, 3][4, 1]"));
        QCOMPARE(r.ann("c"), QString("f32[4][1]"));
        QCOMPARE(r.val("c").tensor.storageOffset.maybeValue().value_or(-1), int64_t(36));
        QCOMPARE(r.ann("d"), QString("f32[0, 4][4, 1]"));
        QCOMPARE(r.val("sp").elems.size(), size_t(3));
        QCOMPARE(r.ann("g0"), QString("f32[4, 4][4, 1]"));
        QCOMPARE(r.ann("g2"), QString("f32[2, 4][4, 1]"));
        QCOMPARE(r.val("g2").tensor.storageOffset.maybeValue().value_or(-1), int64_t(32));
        QCOMPARE(r.ann("h1"), QString("f32[10, 3][4, 1]"));
    }

    void promotionWithScalars_data()
    {
        QTest::addColumn<QString>("input");
        QTest::addColumn<QString>("call");
        QTest::addColumn<QString>("dtype");
        QTest::newRow("i64 + 2.5 -> default float") << "i64[4]"
                                                    << "aten.add.Tensor(x, 2.5)"
                                                    << "f32";
        QTest::newRow("bf16 * 2.0 keeps bf16") << "bf16[4]"
                                               << "aten.mul.Tensor(x, 2.0)"
                                               << "bf16";
        QTest::newRow("i32 + 1 keeps i32") << "i32[4]"
                                           << "aten.add.Tensor(x, 1)"
                                           << "i32";
        QTest::newRow("bool + 1 -> i64") << "b8[4]"
                                         << "aten.add.Tensor(x, 1)"
                                         << "i64";
        QTest::newRow("bool + True keeps bool") << "b8[4]"
                                                << "aten.add.Tensor(x, True)"
                                                << "b8";
        QTest::newRow("u8 + int keeps u8") << "u8[4]"
                                           << "aten.add.Scalar(x, 300)"
                                           << "u8";
        QTest::newRow("i64 / i64 -> f32") << "i64[4]"
                                          << "aten.div.Tensor(x, x)"
                                          << "f32";
        QTest::newRow("i64 div None -> f32") << "i64[4]"
                                             << "aten.div.Scalar_mode(x, 2, rounding_mode = None)"
                                             << "f32";
        QTest::newRow("i64 div floor keeps i64") << "i64[4]"
                                                 << "aten.div.Tensor_mode(x, x, rounding_mode = 'floor')"
                                                 << "i64";
        QTest::newRow("i64 / 2 -> f32") << "i64[4]"
                                        << "aten.div.Scalar(x, 2)"
                                        << "f32";
        QTest::newRow("f16 ** 2 keeps f16") << "f16[4]"
                                            << "aten.pow.Tensor_Scalar(x, 2)"
                                            << "f16";
        QTest::newRow("i64 ** 0.5 -> f32") << "i64[4]"
                                           << "aten.pow.Tensor_Scalar(x, 0.5)"
                                           << "f32";
        QTest::newRow("compare -> bool") << "f32[4]"
                                         << "aten.gt.Scalar(x, 0)"
                                         << "b8";
        QTest::newRow("rsub bf16") << "bf16[4]"
                                   << "aten.rsub.Scalar(x, 1.0)"
                                   << "bf16";
        QTest::newRow("sigmoid of int -> f32") << "i64[4]"
                                               << "aten.sigmoid.default(x)"
                                               << "f32";
        QTest::newRow("neg keeps int") << "i32[4]"
                                       << "aten.neg.default(x)"
                                       << "i32";
        QTest::newRow("abs of complex -> real") << "c64[4]"
                                                << "aten.abs.default(x)"
                                                << "f32";
        QTest::newRow("int sum -> i64") << "i32[4]"
                                        << "aten.sum.default(x)"
                                        << "i64";
        QTest::newRow("sum dtype=") << "bf16[4]"
                                    << "aten.sum.dim_IntList(x, [0], dtype = torch.float32)"
                                    << "f32";
    }
    void promotionWithScalars()
    {
        QFETCH(QString, input);
        QFETCH(QString, call);
        QFETCH(QString, dtype);
        Run r = run({{"x", input.toStdString()}}, "    y = torch.ops." + call.toStdString() + "\n    return (y,)\n");
        QVERIFY2(r.r.problems.empty(), qPrintable(r.problems()));
        QVERIFY(r.val("y").isTensor());
        QCOMPARE(QString::fromStdString(std::string(dtypeAbbr(r.val("y").tensor.dtype))), dtype);
    }

    void tensorPromotionAndBroadcasting()
    {
        Run r = run({{"a", "f32[]"}, {"b", "bf16[2, 3]"}, {"c", "u8[3]"}, {"d", "i8[2, 1]"}, {"e", "f16[2, 3]"}},
                    "    x = torch.ops.aten.mul.Tensor(a, b)\n"  // zero-dim f32 loses to dim>0 bf16
                    "    y = torch.ops.aten.add.Tensor(c, d)\n"  // u8 + i8 -> i16, broadcast
                    "    z = torch.ops.aten.add.Tensor(b, e)\n"  // bf16 + f16 -> f32
                    "    m = torch.ops.aten.gt.Scalar(y, 0)\n"
                    "    w = torch.ops.aten.where.self(m, a, c)\n"  // where: promote self/other
                    "    return (x, y, z, w)\n");
        QVERIFY2(r.r.problems.empty(), qPrintable(r.problems()));
        QCOMPARE(r.ann("x"), QString("bf16[2, 3][3, 1]"));
        QCOMPARE(r.ann("y"), QString("i16[2, 3][3, 1]"));
        QCOMPARE(r.ann("z"), QString("f32[2, 3][3, 1]"));
        QCOMPARE(r.ann("w"), QString("f32[2, 3][3, 1]"));
        Run bad =
            run({{"a", "f32[2, 3]"}, {"b", "f32[4]"}}, "    x = torch.ops.aten.add.Tensor(a, b)\n    return (x,)\n");
        QCOMPARE(bad.r.problems.size(), size_t(1));
    }

    void elementwiseOutputStrides()
    {
        Run r = run({{"t", "f32[3, 4][1, 3]"},
                     {"c", "f32[3, 4][4, 1]"},
                     {"p", "f32[2, 3, 4][12, 1, 3]"},
                     {"b", "f32[4]"},
                     {"n", "f32[4, 1, 64][64, 1, 1]"}},
                    "    a = torch.ops.aten.add.Tensor(t, t)\n"  // transposed in, transposed out
                    "    m = torch.ops.aten.add.Tensor(c, t)\n"  // contiguous first operand decides
                    "    k = torch.ops.aten.add.Tensor(t, c)\n"  // transposed first operand decides
                    "    q = torch.ops.aten.mul.Tensor(p, b)\n"  // broadcast operand has no say
                    "    s = torch.ops.aten.relu.default(n)\n"  // contiguous input (size-1 dim ignored)
                    "    g = torch.ops.aten.gelu.default(t)\n"
                    "    return (a, m, k, q, s, g)\n");
        QVERIFY2(r.r.problems.empty(), qPrintable(r.problems()));
        QCOMPARE(r.ann("a"), QString("f32[3, 4][1, 3]"));
        QCOMPARE(r.ann("m"), QString("f32[3, 4][4, 1]"));
        QCOMPARE(r.ann("k"), QString("f32[3, 4][1, 3]"));
        QCOMPARE(r.ann("q"), QString("f32[2, 3, 4][12, 1, 3]"));
        QCOMPARE(r.ann("s"), QString("f32[4, 1, 64][64, 64, 1]"));  // contiguous fast setup
        QCOMPARE(r.ann("g"), QString("f32[3, 4][1, 3]"));
    }

    void memoryFormats()
    {
        Run r = run({{"x", "f32[4, 4, 16, 16][3072, 16, 192, 1]"}, {"d", "f32[3, 4][1, 3]"}},
                    "    a = torch.ops.aten.clone.default(x)\n"  // not dense: keep permutation
                    "    b = torch.ops.aten.clone.default(x, memory_format = torch.contiguous_format)\n"
                    "    c = torch.ops.aten.empty_like.default(d, memory_format = torch.preserve_format)\n"
                    "    e = torch.ops.aten.clone.default(b, memory_format = torch.channels_last)\n"
                    "    f = torch.ops.aten._to_copy.default(d, dtype = torch.bfloat16)\n"
                    "    g = torch.ops.prims.convert_element_type.default(d, torch.float16)\n"
                    "    s = torch.ops.aten.sort.default(x, 1)\n"
                    "    v = s[0]\n"
                    "    return (a, b, c, e, f, g, v)\n");
        QVERIFY2(r.r.problems.empty(), qPrintable(r.problems()));
        QCOMPARE(r.ann("a"), QString("f32[4, 4, 16, 16][1024, 16, 64, 1]"));
        QCOMPARE(r.ann("b"), QString("f32[4, 4, 16, 16][1024, 256, 16, 1]"));
        QCOMPARE(r.ann("c"), QString("f32[3, 4][1, 3]"));
        QCOMPARE(r.ann("e"), QString("f32[4, 4, 16, 16][1024, 1, 64, 4]"));
        QCOMPARE(r.ann("f"), QString("bf16[3, 4][1, 3]"));
        QCOMPARE(r.ann("g"), QString("f16[3, 4][1, 3]"));
        QCOMPARE(r.ann("v"), QString("f32[4, 4, 16, 16][1024, 16, 64, 1]"));
    }

    void multiOutputOps()
    {
        Run r = run({{"x", "f32[4, 16, 64]"}, {"w", "f32[64]"}, {"l", "f32[8, 10]"}, {"t", "i64[8]"}},
                    "    ln = torch.ops.aten.native_layer_norm.default(x, [64], w, w, 1e-05)\n"
                    "    out = ln[0]\n"
                    "    mean = ln[1]\n"
                    "    rstd = ln[2]\n"
                    "    bw = torch.ops.aten.native_layer_norm_backward.default(out, x, [64], mean, rstd, w, w, [True, "
                    "False, True])\n"
                    "    gx = bw[0]\n"
                    "    gw = bw[1]\n"
                    "    gb = bw[2]\n"
                    "    nll = torch.ops.aten.nll_loss_forward.default(l, t, None, 1, -100)\n"
                    "    loss = nll[0]\n"
                    "    tw = nll[1]\n"
                    "    tk = torch.ops.aten.topk.default(l, 3)\n"
                    "    ti = tk[1]\n"
                    "    vm = torch.ops.aten.var_mean.correction(x, [2], correction = 0, keepdim = True)\n"
                    "    var = vm[0]\n"
                    "    return (out, gx, gw, gb, loss, tw, ti, var)\n");
        QVERIFY2(r.r.problems.empty(), qPrintable(r.problems()));
        QCOMPARE(r.ann("out"), QString("f32[4, 16, 64][1024, 64, 1]"));
        QCOMPARE(r.ann("mean"), QString("f32[4, 16, 1][16, 1, 1]"));
        QCOMPARE(r.ann("gx"), QString("f32[4, 16, 64][1024, 64, 1]"));
        QVERIFY(r.val("gw").kind == ValueMeta::Kind::None);
        QCOMPARE(r.ann("gb"), QString("f32[64][1]"));
        QCOMPARE(r.ann("loss"), QString("f32[]"));
        QCOMPARE(r.ann("tw"), QString("f32[]"));
        QCOMPARE(r.ann("ti"), QString("i64[8, 3][3, 1]"));
        QCOMPARE(r.ann("var"), QString("f32[4, 16, 1][16, 1, 1]"));
    }

    void collectives()
    {
        Run r = run({{"x", "bf16[8, 32][1, 8]"}},
                    "    ag = torch.ops._c10d_functional.all_gather_into_tensor.default(x, 4, '0')\n"
                    "    rs = torch.ops._c10d_functional.reduce_scatter_tensor.default(x, 'sum', 4, '0')\n"
                    "    ar = torch.ops._c10d_functional.all_reduce.default(x, 'sum', '0')\n"
                    "    w = torch.ops._c10d_functional.wait_tensor.default(ar)\n"
                    "    return (ag, rs, w)\n");
        QVERIFY2(r.r.problems.empty(), qPrintable(r.problems()));
        QCOMPARE(r.ann("ag"), QString("bf16[32, 32][32, 1]"));
        QCOMPARE(r.ann("rs"), QString("bf16[2, 32][32, 1]"));
        QCOMPARE(r.ann("ar"), QString("bf16[8, 32][1, 8]"));
        QCOMPARE(r.ann("w"), QString("bf16[8, 32][1, 8]"));
        Run bad = run(
            {{"x", "f32[6, 2]"}},
            "    rs = torch.ops._c10d_functional.reduce_scatter_tensor.default(x, 'sum', 4, '0')\n    return (rs,)\n");
        QCOMPARE(bad.r.problems.size(), size_t(1));
    }

    void symbolicSizes()
    {
        Run r = run({{"x", "f32[s0, 16][16, 1]"}, {"y", "f32[16]"}},
                    "    a = torch.ops.aten.view.default(x, [-1])\n"
                    "    b = torch.ops.aten.add.Tensor(x, y)\n"
                    "    c = torch.ops.aten.unsqueeze.default(x, 0)\n"
                    "    d = torch.ops.aten.view.default(x, [-1, 4, 4])\n"
                    "    e = torch.ops.aten.t.default(x)\n"
                    "    f = torch.ops.aten.sum.dim_IntList(e, [1])\n"
                    "    return (a, b, c, d, f)\n");
        QVERIFY2(r.r.problems.empty(), qPrintable(r.problems()));
        QCOMPARE(r.ann("a"), QString("f32[16*s0][1]"));
        QCOMPARE(r.ann("b"), QString("f32[s0, 16][16, 1]"));
        QCOMPARE(r.ann("c"), QString("f32[1, s0, 16][16*s0, 16, 1]"));
        QCOMPARE(r.ann("d"), QString("f32[s0, 4, 4][16, 4, 1]"));
        QCOMPARE(r.ann("f"), QString("f32[16][1]"));
    }

    void unbackedSymbols()
    {
        const char* body = "    bc = torch.ops.aten.bincount.default(x, None, 4)\n"
                           "    ri = torch.ops.aten.repeat_interleave.Tensor(x)\n"
                           "    s = torch.ops.aten.select.int(f, 2, 0)\n"
                           "    m = torch.ops.aten.gt.Scalar(s, 0)\n"
                           "    sel = torch.ops.aten.index.Tensor(f, [m])\n"
                           "    v = torch.ops.aten.view.default(sel, [-1])\n"
                           "    nz = torch.ops.aten.nonzero.default(f)\n"
                           "    e = torch.ops.aten.embedding.default(w, ri)\n"
                           "    return (bc, v, nz, e)\n";
        // hints come from the recorded graph
        Graph recorded = parseFxText(std::string("def forward(self, x, f, w):\n") + body, "<rec>");
        recorded.node(recorded.findByName("bc")).val = parseAnnotation("i64[7]");
        recorded.node(recorded.findByName("ri")).val = parseAnnotation("i64[21]");
        recorded.node(recorded.findByName("sel")).val = parseAnnotation("f32[5, 8]");
        Run r = run({{"x", "i64[6]"}, {"f", "f32[3, 4, 8]"}, {"w", "f32[10, 2]"}}, body, &recorded);
        QVERIFY2(r.r.problems.empty(), qPrintable(r.problems()));
        QCOMPARE(r.ann("bc"), QString("i64[u0][1]"));
        QCOMPARE(r.val("bc").tensor.sizes[0].hint().value_or(-1), int64_t(7));
        QCOMPARE(r.ann("ri"), QString("i64[u1][1]"));
        QCOMPARE(r.val("ri").tensor.sizes[0].hint().value_or(-1), int64_t(21));
        // boolean mask over the first two dims: one nnz symbol, the rest of the dims stay
        QCOMPARE(r.ann("sel"), QString("f32[u2, 8][8, 1]"));
        QCOMPARE(r.val("sel").tensor.sizes[0].hint().value_or(-1), int64_t(5));
        QCOMPARE(r.ann("v"), QString("f32[8*u2][1]"));
        QCOMPARE(r.val("v").tensor.sizes[0].hint().value_or(-1), int64_t(40));
        QCOMPARE(r.ann("nz"), QString("i64[u3, 3][3, 1]"));
        QVERIFY(!r.val("nz").tensor.sizes[0].hint().has_value());  // no recorded size
        QCOMPARE(r.ann("e"), QString("f32[u1, 2][2, 1]"));
        QCOMPARE(r.r.unbacked.size(), size_t(4));
        QVERIFY(r.r.unbacked[0].rfind("u0 (bc, hint 7)", 0) == 0);
    }

    void factories()
    {
        Run r =
            run({{"x", "f32[2, 3][1, 2]"}},
                "    a = torch.ops.aten.arange.default(24, device = device(type='cpu'), pin_memory = False)\n"
                "    b = torch.ops.aten.arange.start(0, 5.0)\n"
                "    c = torch.ops.aten.full.default([16, 16], -inf, device = device(type='cpu'), pin_memory = False)\n"
                "    d = torch.ops.aten.full.default([2], 7)\n"
                "    e = torch.ops.aten.ones_like.default(x, dtype = torch.float32, memory_format = "
                "torch.preserve_format)\n"
                "    f = torch.ops.aten.new_zeros.default(x, [5])\n"
                "    g = torch.ops.aten.scalar_tensor.default(1)\n"
                "    h = torch.ops.aten.empty.memory_format([2, 3, 4, 5], dtype = torch.int64, memory_format = "
                "torch.channels_last)\n"
                "    i = torch.ops.aten.arange.start_step(0, 10, 3)\n"
                "    return (a, b, c, d, e, f, g, h, i)\n");
        QVERIFY2(r.r.problems.empty(), qPrintable(r.problems()));
        QCOMPARE(r.ann("a"), QString("i64[24][1]cpu"));
        QCOMPARE(r.ann("b"), QString("f32[5][1]cpu"));
        QCOMPARE(r.ann("c"), QString("f32[16, 16][16, 1]cpu"));
        QCOMPARE(r.ann("d"), QString("i64[2][1]cpu"));
        QCOMPARE(r.ann("e"), QString("f32[2, 3][1, 2]"));
        QCOMPARE(r.ann("f"), QString("f32[5][1]"));
        QCOMPARE(r.ann("g"), QString("f32[][]cpu"));
        QCOMPARE(r.ann("h"), QString("i64[2, 3, 4, 5][60, 1, 15, 3]cpu"));
        QCOMPARE(r.ann("i"), QString("i64[4][1]cpu"));
    }

    void inplaceReturnsSelf()
    {
        Run r = run({{"x", "f32[3, 4][1, 3]"}, {"y", "f32[4]"}},
                    "    a = torch.ops.aten.sub_.Tensor(x, y)\n"
                    "    b = torch.ops.aten.fill_.Scalar(x, 2)\n"
                    "    return (a, b)\n");
        QVERIFY2(r.r.problems.empty(), qPrintable(r.problems()));
        QCOMPARE(r.ann("a"), QString("f32[3, 4][1, 3]"));
        QCOMPARE(r.ann("b"), QString("f32[3, 4][1, 3]"));
        Run bad =
            run({{"x", "f32[4]"}, {"y", "f32[3, 4]"}}, "    a = torch.ops.aten.sub_.Tensor(x, y)\n    return (a,)\n");
        QCOMPARE(bad.r.problems.size(), size_t(1));
        // the promoted result (float) cannot be written into an integer self
        Run cast = run({{"x", "i64[4]"}}, "    a = torch.ops.aten.sub_.Tensor(x, 0.5)\n    return (a,)\n");
        QCOMPARE(cast.r.problems.size(), size_t(1));
        QVERIFY(cast.r.problems[0].find("can't be cast") != std::string::npos);
    }

    // resize_ and atan2.out (PyTorch 1.13: x.resize_(...) strides; atan2(y, z, out=o) takes
    // o's dtype and the broadcast shape; float into an int64 out is refused)
    void resizeAndOutForms()
    {
        Run r =
            run({{"x", "f32[3, 4][1, 3]"}, {"y", "f32[3]"}, {"z", "f32[2, 1]"}, {"o", "f64[5]"}, {"p", "f64[2, 3]"}},
                "    a = torch.ops.aten.resize_.default(x, [3, 4])\n"
                "    b = torch.ops.aten.resize_.default(x, [2, 5])\n"
                "    c = torch.ops.aten.resize_.default(x, [1, 2, 3, 4], memory_format = torch.channels_last)\n"
                "    d = torch.ops.aten.atan2.out(y, z, out = o)\n"
                "    e = torch.ops.aten.atan2.out(y, z, out = p)\n"
                "    return (a, b, c, d, e)\n");
        QVERIFY2(r.r.problems.empty(), qPrintable(r.problems()));
        QCOMPARE(r.ann("a"), QString("f32[3, 4][1, 3]"));
        QCOMPARE(r.ann("b"), QString("f32[2, 5][5, 1]"));
        QCOMPARE(r.ann("c"), QString("f32[1, 2, 3, 4][24, 1, 8, 2]"));
        QCOMPARE(r.ann("d"), QString("f64[2, 3][3, 1]"));
        QCOMPARE(r.ann("e"), QString("f64[2, 3][3, 1]"));
        Run cast = run({{"y", "f32[3]"}, {"o", "i64[3]"}},
                       "    a = torch.ops.aten.atan2.out(y, y, out = o)\n    return (a,)\n");
        QCOMPARE(cast.r.problems.size(), size_t(1));
        QVERIFY(cast.r.problems[0].find("can't be cast") != std::string::npos);
    }

    void indexingAndCat()
    {
        Run r = run({{"x", "f32[24, 32]"}, {"i", "i64[48]"}, {"j", "i64[5, 2]"}, {"k", "i64[2]"}},
                    "    a = torch.ops.aten.index.Tensor(x, [i])\n"
                    "    b = torch.ops.aten.index.Tensor(x, [None, k])\n"
                    "    c = torch.ops.aten.index_select.default(x, 1, k)\n"
                    "    d = torch.ops.aten.cat.default([x, a])\n"
                    "    e = torch.ops.aten.stack.default([x, x], -1)\n"
                    "    f = torch.ops.aten.index.Tensor(x, [j, k])\n"
                    "    g = torch.ops.aten.gather.default(x, 1, j)\n"
                    "    return (a, b, c, d, e, f, g)\n");
        QVERIFY2(r.r.problems.empty(), qPrintable(r.problems()));
        QCOMPARE(r.ann("a"), QString("f32[48, 32][32, 1]"));
        QCOMPARE(r.ann("b"), QString("f32[24, 2][2, 1]"));
        QCOMPARE(r.ann("c"), QString("f32[24, 2][2, 1]"));
        QCOMPARE(r.ann("d"), QString("f32[72, 32][32, 1]"));
        QCOMPARE(r.ann("e"), QString("f32[24, 32, 2][64, 2, 1]"));
        QCOMPARE(r.ann("f"), QString("f32[5, 2][2, 1]"));
        QCOMPARE(r.ann("g"), QString("f32[5, 2][2, 1]"));
    }

    // Core ATen ops added with their CPU kernels (values: PyTorch 1.13's meta / eager results).
    void coreAtenAdditions()
    {
        Run r = run({{"x", "f32[2, 3, 4, 5]"}, {"i", "i32[4]"}, {"b", "b8[4]"}, {"v", "f32[6, 7]"}},
                    "    a = torch.ops.aten.acosh.default(i)\n"
                    "    c = torch.ops.aten.bitwise_xor.Scalar(i, 3)\n"
                    "    d = torch.ops.aten.bitwise_xor.Scalar(b, 3)\n"
                    "    e = torch.ops.aten.div.Scalar_mode(i, 2, rounding_mode = 'floor')\n"
                    "    f = torch.ops.aten.var.dim(v, [1], True, True)\n"
                    "    g = torch.ops.aten.var.dim(v, None)\n"
                    "    h = torch.ops.aten.reflection_pad1d.default(v, [2, 3])\n"
                    "    j = torch.ops.aten.reflection_pad2d.default(x, [1, 2, -1, 3])\n"
                    "    k = torch.ops.aten.replication_pad3d.default(x, [1, 1, 2, 2, 3, 3])\n"
                    "    m = torch.ops.aten.asinh.default(b)\n"
                    "    return (a, c, d, e, f, g, h, j, k, m)\n");
        QVERIFY2(r.r.problems.empty(), qPrintable(r.problems()));
        QCOMPARE(r.ann("a"), QString("f32[4][1]"));
        QCOMPARE(r.ann("c"), QString("i32[4][1]"));
        QCOMPARE(r.ann("d"), QString("i64[4][1]"));
        QCOMPARE(r.ann("e"), QString("i32[4][1]"));
        QCOMPARE(r.ann("f"), QString("f32[6, 1][1, 1]"));
        QCOMPARE(r.ann("g"), QString("f32[]"));
        QCOMPARE(r.ann("h"), QString("f32[6, 12][12, 1]"));
        QCOMPARE(r.ann("j"), QString("f32[2, 3, 6, 8][144, 48, 8, 1]"));
        QCOMPARE(r.ann("k"), QString("f32[2, 9, 8, 7][504, 56, 7, 1]"));
        QCOMPARE(r.ann("m"), QString("f32[4][1]"));
        // reflection needs pad < size; the output must not be empty
        Run bad =
            run({{"v", "f32[6, 7]"}}, "    h = torch.ops.aten.reflection_pad1d.default(v, [7, 0])\n    return (h,)\n");
        QCOMPARE(bad.r.problems.size(), size_t(1));
        QVERIFY2(QString::fromStdString(bad.r.problems[0]).contains("padding size should be less than"),
                 qPrintable(bad.problems()));
        Run bad2 = run({{"x", "f32[3, 4]"}},
                       "    h = torch.ops.aten.replication_pad2d.default(x, [1, 1, 1, 1])\n    return (h,)\n");
        QCOMPARE(bad2.r.problems.size(), size_t(1));
        QVERIFY2(QString::fromStdString(bad2.r.problems[0]).contains("expected 3D or 4D input"),
                 qPrintable(bad2.problems()));
    }
};

FXL_TEST_APPLESS_MAIN(TestOpMeta)
}  // namespace test_op_meta
#include "test_op_meta.moc"
