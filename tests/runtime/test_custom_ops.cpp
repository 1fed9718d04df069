// Custom operators of ops files (core/ops/custom_ops.hpp, docs/custom_ops.md): the format's
// errors (file, line, column, what was expected), the metas derived from declarations, apex's
// fused layer norm declared over native_layer_norm against native_layer_norm itself, the
// unknown-operator message, and auto_functionalized / auto_functionalized_v2 with PyTorch's
// functional semantics.
#include <QtTest>

#include <cmath>
#include <cstring>

#include "core/analysis/memory_timeline.hpp"
#include "core/formats/fx/fx_text_parser.hpp"
#include "core/formats/safetensors.hpp"
#include "core/ir/diagnostics.hpp"
#include "core/ops/custom_ops.hpp"
#include "core/ops/op_registry.hpp"
#include "core/ops/shape_prop.hpp"
#include "graph_test_util.hpp"
#include "runtime/base/kernel.hpp"
#include "runtime/cpu/cpu_backend.hpp"
#include "runtime/exec/support_check.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_custom_ops {

using namespace fxl;
using graphtest::f32Tensor;
using graphtest::floatsOf;

}  // namespace test_custom_ops
Q_DECLARE_METATYPE(std::vector<float>)
namespace test_custom_ops { }  // namespace test_custom_ops
Q_DECLARE_METATYPE(std::vector<int64_t>)
namespace test_custom_ops {

namespace {

// The ops files of tests/data/ops and the test ops below, registered once per process.
void loadTestOps()
{
    static const bool once = [] {
        loadOpsFile(fxltest::testDataPath("ops/apex_layer_norm.ops").string());
        loadOpsFile(fxltest::testDataPath("ops/logging.ops").string());
        registerCustomOps(parseOpsFile("op mylib.add_into(Tensor(a!) out, Tensor x) -> ()\n"
                                       "decomposition\n"
                                       "    def forward(self, out, x):\n"
                                       "        add_ = torch.ops.aten.add_.Tensor(out, x);  out = x = None\n"
                                       "        return ()\n"
                                       "op mylib.add_pair(Tensor(a!)[] outs, Tensor x) -> ()\n"
                                       "decomposition\n"
                                       "    def forward(self, outs, x):\n"
                                       "        a = outs[0]\n"
                                       "        b = outs[1];  outs = None\n"
                                       "        add_ = torch.ops.aten.add_.Tensor(a, x);  a = None\n"
                                       "        add__1 = torch.ops.aten.add_.Tensor(b, x);  b = x = None\n"
                                       "        return ()\n",
                                       "mylib.ops"));
        return true;
    }();
    (void)once;
}

// Deterministic values in about [-2, 2) with no two alike in a row.
std::vector<float> ramp(int64_t n, float scale, float shift)
{
    std::vector<float> v(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i)
        v[static_cast<size_t>(i)] = scale * static_cast<float>((i * 37) % 29 - 14) / 7.0f + shift;
    return v;
}

int64_t product(const std::vector<int64_t>& s)
{
    int64_t p = 1;
    for (int64_t x : s) p *= x;
    return p;
}

std::string listText(const std::vector<int64_t>& s)
{
    std::string out = "[";
    for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
    return out + "]";
}

}  // namespace

class TestCustomOps : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase() { loadTestOps(); }

    // ---- the format

    void parseErrors_data()
    {
        QTest::addColumn<std::string>("text");
        QTest::addColumn<int>("line");
        QTest::addColumn<int>("column");
        QTest::addColumn<std::string>("expected");
        QTest::newRow("unknown statement") << std::string("# c\nfoo bar\n") << 2 << 1
                                           << std::string("expected 'op SCHEMA', 'identity ARGUMENT' or "
                                                          "'decomposition', found 'foo'");
        QTest::newRow("no namespace") << std::string("op baz(Tensor x) -> Tensor\nidentity x\n") << 1 << 4
                                      << std::string("expected a schema with a namespace-qualified name");
        QTest::newRow("schema syntax") << std::string("op t.baz(Tensor x -> Tensor\nidentity x\n") << 1 << 19
                                       << std::string("in the schema: ");
        QTest::newRow("no body") << std::string("op t.baz(Tensor x) -> Tensor\n\nop t.qux(Tensor x) -> Tensor\n") << 1
                                 << 4
                                 << std::string("expected 'identity ARGUMENT' or 'decomposition' after the schema of "
                                                "t.baz.default");
        QTest::newRow("identity of a missing argument")
            << std::string("op t.baz(Tensor x, int n) -> Tensor\nidentity y\n") << 2 << 10
            << std::string("expected one of the schema's arguments (x, n), found 'y'");
        QTest::newRow("identity of another type")
            << std::string("op t.baz(Tensor x, int n) -> Tensor\n  identity n\n") << 2 << 12
            << std::string("expected an argument of the return type Tensor; 'n' "
                           "is int");
        QTest::newRow("identity of two returns")
            << std::string("op t.two(Tensor x) -> (Tensor, Tensor)\nidentity x\n") << 2 << 1
            << std::string("identity needs a schema with exactly one return; "
                           "t.two.default returns 2 values");
        QTest::newRow("identity without op")
            << std::string("identity x\n") << 1 << 1 << std::string("'identity' must follow an 'op SCHEMA' line");
        QTest::newRow("decomposition without graph")
            << std::string("op t.d(Tensor x) -> Tensor\ndecomposition\nop t.e(Tensor x) -> Tensor\nidentity x\n") << 2
            << 1 << std::string("expected the decomposition's FX graph");
        QTest::newRow("placeholders") << std::string("op t.d(Tensor x, Tensor y) -> Tensor\ndecomposition\n"
                                                     "    def forward(self, x):\n        return (x,)\n")
                                      << 3 << 1
                                      << std::string("expected 2 placeholder(s), the arguments of t.d.default in "
                                                     "order; the decomposition has 1");
        QTest::newRow("returns") << std::string("op t.d(Tensor x) -> Tensor\ndecomposition\n"
                                                "    def forward(self, x):\n        return (x, x)\n")
                                 << 3 << 1
                                 << std::string("expected the decomposition to return 1 value(s), the returns of "
                                                "t.d.default; it returns 2");
        QTest::newRow("unknown op in decomposition")
            << std::string("op t.d(Tensor x) -> Tensor\ndecomposition\n    def forward(self, x):\n"
                           "        y = torch.ops.nope.frob.default(x)\n        return (y,)\n")
            << 3 << 1 << std::string("the decomposition of t.d.default calls nope.frob.default (node 'y')");
        QTest::newRow("decomposition calling itself")
            << std::string("op t.d(Tensor x) -> Tensor\ndecomposition\n    def forward(self, x):\n"
                           "        y = torch.ops.t.d.default(x)\n        return (y,)\n")
            << 3 << 1 << std::string("the decomposition of t.d.default calls t.d.default itself (node 'y')");
        QTest::newRow("declared twice") << std::string("op t.b(Tensor x) -> Tensor\nidentity x\n"
                                                       "op t.b(Tensor x) -> Tensor\nidentity x\n")
                                        << 3 << 4 << std::string("operator t.b.default is declared twice in this file");
        QTest::newRow("text after decomposition")
            << std::string("op t.d(Tensor x) -> Tensor\ndecomposition x\n") << 2 << 15
            << std::string("expected the end of the line after 'decomposition'");
    }
    void parseErrors()
    {
        QFETCH(std::string, text);
        QFETCH(int, line);
        QFETCH(int, column);
        QFETCH(std::string, expected);
        try {
            parseOpsFile(text, "t.ops");
            QFAIL("no error");
        } catch (const InputError& e) {
            const Diagnostic& d = e.diagnostic();
            QCOMPARE(d.file, std::string("t.ops"));
            QVERIFY2(d.message.find(expected) != std::string::npos, d.message.c_str());
            QCOMPARE(d.line, line);
            QCOMPARE(d.column, column);
        }
    }

    // Registering: built-in names and changed schemas are refused at the declaration's line.
    void registerErrors_data()
    {
        QTest::addColumn<std::string>("text");
        QTest::addColumn<std::string>("expected");
        QTest::newRow("built-in with another schema")
            << std::string("\nop aten.mm(Tensor self) -> Tensor\nidentity self\n")
            << std::string(") whose schema is mm(Tensor self, Tensor mat2) -> Tensor; a declaration must repeat it");
        QTest::newRow("other schema") << std::string("\nop test.baz(Tensor x, int k) -> Tensor\nidentity x\n")
                                      << std::string("operator test.baz.default was declared before with another "
                                                     "schema");
    }
    void registerErrors()
    {
        QFETCH(std::string, text);
        QFETCH(std::string, expected);
        try {
            registerCustomOps(parseOpsFile(text, "r.ops"));
            QFAIL("no error");
        } catch (const InputError& e) {
            QVERIFY2(e.diagnostic().message.find(expected) != std::string::npos, e.what());
            QCOMPARE(e.diagnostic().file, std::string("r.ops"));
            QCOMPARE(e.diagnostic().line, 2);
        }
    }

    void registered()
    {
        const OpRegistry& reg = OpRegistry::instance();
        const OpInfo* baz = reg.find("test.baz");  // printed without overload in Dynamo graphs
        QVERIFY(baz);
        QCOMPARE(baz->qualifiedName, std::string("test.baz.default"));
        QVERIFY(baz->custom);
        QCOMPARE(baz->custom->identityArg, 0);
        const OpInfo* fwd = reg.find("torch.ops.apex.fused_layer_norm_affine_fwd.default");
        QVERIFY(fwd && fwd->custom && fwd->custom->decomposition);
        QCOMPARE(fwd->schema.args.size(), size_t(5));
        QCOMPARE(fwd->schema.returns.size(), size_t(3));
        const OpInfo* inplace = reg.find("tg.inplace_log_tensor.default");
        QVERIFY(inplace && inplace->has(kTraitInplace));
        // the same file again replaces the bodies (no error, same entries)
        const OpInfo* before = reg.find("tg.log_tensor.default");
        loadOpsFile(fxltest::testDataPath("ops/logging.ops").string());
        QCOMPARE(reg.find("tg.log_tensor.default"), before);
    }

    // ---- metas

    void meta_data()
    {
        QTest::addColumn<std::string>("graph");
        QTest::addColumn<std::string>("node");
        QTest::addColumn<std::string>("expected");
        const std::string apexFwd =
            "def forward(self, x: \"f16[4, 3, 8]\", w: \"f16[8]\", b: \"f16[8]\"):\n"
            "    fwd = torch.ops.apex.fused_layer_norm_affine_fwd.default(x, w, b, [8], 1e-05)\n"
            "    out = fwd[0]\n"
            "    return (out,)\n";
        QTest::newRow("apex fwd f16") << apexFwd << std::string("fwd")
                                      << std::string("(f16[4, 3, 8][24, 8, 1], f32[12][1], f32[12][1])");
        QTest::newRow("apex fwd getitem") << apexFwd << std::string("out") << std::string("f16[4, 3, 8][24, 8, 1]");
        QTest::newRow("apex fwd 2-d normalized")
            << std::string("def forward(self, x: \"bf16[2, 5, 3, 4]\", w: \"bf16[3, 4]\", b: \"bf16[3, 4]\"):\n"
                           "    fwd = torch.ops.apex.fused_layer_norm_affine_fwd.default(x, w, b, [3, 4], 1e-05)\n"
                           "    return (fwd,)\n")
            << std::string("fwd") << std::string("(bf16[2, 5, 3, 4][60, 12, 4, 1], f32[10][1], f32[10][1])");
        QTest::newRow("apex bwd") << std::string(
            "def forward(self, dy: \"f16[6, 16]\", m: \"f32[6]\", r: \"f32[6]\", x: \"f16[6, 16]\", "
            "w: \"f16[16]\", b: \"f16[16]\"):\n"
            "    bwd = torch.ops.apex.fused_layer_norm_affine_bwd.default(dy, m, r, x, [16], w, b, "
            "1e-05)\n"
            "    return (bwd,)\n") << std::string("bwd")
                                  << std::string("(f16[6, 16][16, 1], f16[16][1], f16[16][1])");
        QTest::newRow("identity keeps strides")
            << std::string("def forward(self, x: \"f32[1, 320, 4, 4][5120, 1, 1280, 320]\"):\n"
                           "    baz = torch.ops.test.baz.default(x)\n"
                           "    return (baz,)\n")
            << std::string("baz") << std::string("f32[1, 320, 4, 4][5120, 1, 1280, 320]");
        QTest::newRow("identity with a string")
            << std::string("def forward(self, t: \"i64[32, 1024]\"):\n"
                           "    log = torch.ops.tg.log_tensor.default(t, 'tokens')\n"
                           "    return (log,)\n")
            << std::string("log") << std::string("i64[32, 1024]");
    }
    void meta()
    {
        QFETCH(std::string, graph);
        QFETCH(std::string, node);
        QFETCH(std::string, expected);
        Graph g = parseFxText(graph, "meta.py");
        ShapePropResult r = propagateShapes(g, ShapePropOptions{});
        QVERIFY2(r.problems.empty(), r.problems.empty() ? "" : r.problems[0].c_str());
        const NodeId id = g.findByName(node);
        QVERIFY(id != kNoNode);
        const ValueMeta& v = g.node(id).val;
        std::string got;
        if (v.kind == ValueMeta::Kind::Tuple) {
            for (const auto& e : v.elems) got += (got.empty() ? "(" : ", ") + formatAnnotation(e);
            got += ")";
        } else {
            got = formatAnnotation(v);
        }
        QVERIFY2(got == expected, got.c_str());
    }

    // A decomposition whose graph does not fit the call: the node's problem names it.
    void metaProblem()
    {
        Graph g = parseFxText("def forward(self, x: \"f32[4, 4]\", w: \"f32[8]\", b: \"f32[8]\"):\n"
                              "    fwd = torch.ops.apex.fused_layer_norm_affine_fwd.default(x, w, b, [8], 1e-05)\n"
                              "    return (fwd,)\n",
                              "bad.py");
        ShapePropResult r = propagateShapes(g, ShapePropOptions{});
        QCOMPARE(r.problems.size(), size_t(1));
        QCOMPARE(r.problems[0],
                 std::string("node 'fwd' (apex.fused_layer_norm_affine_fwd.default): in the "
                             "decomposition of apex.fused_layer_norm_affine_fwd.default: node "
                             "'native_layer_norm' (aten.native_layer_norm.default): native_layer_norm: "
                             "normalized_shape does not match the input's trailing dims"));
    }

    // ---- apex against native_layer_norm

    void apexMatchesNativeLayerNorm_data()
    {
        QTest::addColumn<std::string>("dtype");
        QTest::addColumn<std::vector<int64_t>>("shape");
        QTest::addColumn<int>("normDims");
        for (const char* dt : {"float32", "float16", "bfloat16"}) {
            QTest::newRow((std::string(dt) + " [4, 3, 8] / [8]").c_str())
                << std::string(dt) << std::vector<int64_t>{4, 3, 8} << 1;
            QTest::newRow((std::string(dt) + " [2, 5, 3, 4] / [3, 4]").c_str())
                << std::string(dt) << std::vector<int64_t>{2, 5, 3, 4} << 2;
        }
        QTest::newRow("float16 [64, 1536] / [1536]") << std::string("float16") << std::vector<int64_t>{64, 1536} << 1;
    }
    void apexMatchesNativeLayerNorm()
    {
        QFETCH(std::string, dtype);
        QFETCH(std::vector<int64_t>, shape);
        QFETCH(int, normDims);
        const std::vector<int64_t> ns(shape.end() - normDims, shape.end());
        const std::string NS = listText(ns);
        const std::string DT = "torch." + dtype;
        // both graphs: f32 inputs cast to the dtype under test
        const std::string head = "def forward(self, x, w, b, dy):\n"
                                 "    xh = torch.ops.aten._to_copy.default(x, dtype = "
            + DT + ")\n    wh = torch.ops.aten._to_copy.default(w, dtype = " + DT
            + ")\n    bh = torch.ops.aten._to_copy.default(b, dtype = " + DT
            + ")\n    dyh = torch.ops.aten._to_copy.default(dy, dtype = " + DT + ")\n";
        const std::string apex = head + "    fwd = torch.ops.apex.fused_layer_norm_affine_fwd.default(xh, wh, bh, " + NS
            + ", 1e-05)\n"
              "    out = fwd[0]\n    mean = fwd[1]\n    invvar = fwd[2]\n"
              "    mean_d = torch.ops.aten._to_copy.default(mean, dtype = "
            + DT + ")\n    invvar_d = torch.ops.aten._to_copy.default(invvar, dtype = " + DT
            + ")\n    bwd = torch.ops.apex.fused_layer_norm_affine_bwd.default(dyh, mean, invvar, xh, " + NS
            + ", wh, bh, 1e-05)\n"
              "    gx = bwd[0]\n    gw = bwd[1]\n    gb = bwd[2]\n"
              "    return (out, mean_d, invvar_d, mean, invvar, gx, gw, gb)\n";
        // native_layer_norm on the tensors themselves; the f32 statistics from the f32 kernel
        const std::string native = head + "    ln = torch.ops.aten.native_layer_norm.default(xh, " + NS
            + ", wh, bh, 1e-05)\n"
              "    out = ln[0]\n    mean = ln[1]\n    rstd = ln[2]\n"
              "    mean_d = torch.ops.aten.view.default(mean, [-1])\n"
              "    rstd_d = torch.ops.aten.view.default(rstd, [-1])\n"
              "    x32 = torch.ops.aten._to_copy.default(xh, dtype = torch.float32)\n"
              "    w32 = torch.ops.aten._to_copy.default(wh, dtype = torch.float32)\n"
              "    b32 = torch.ops.aten._to_copy.default(bh, dtype = torch.float32)\n"
              "    ln32 = torch.ops.aten.native_layer_norm.default(x32, "
            + NS
            + ", w32, b32, 1e-05)\n"
              "    m32 = ln32[1]\n    r32 = ln32[2]\n"
              "    mean32 = torch.ops.aten.view.default(m32, [-1])\n"
              "    rstd32 = torch.ops.aten.view.default(r32, [-1])\n"
              "    bwd = torch.ops.aten.native_layer_norm_backward.default(dyh, xh, "
            + NS
            + ", mean32, rstd32, wh, bh, [True, True, True])\n"
              "    gx = bwd[0]\n    gw = bwd[1]\n    gb = bwd[2]\n"
              "    return (out, mean_d, rstd_d, mean32, rstd32, gx, gw, gb)\n";
        const Graph ga = parseFxText(apex, "apex.py");
        const Graph gn = parseFxText(native, "native.py");
        const int64_t n = product(shape), k = product(ns);
        SafeTensorsFile in;
        in.tensors.push_back(f32Tensor("x", shape, ramp(n, 1.0f, 0.25f)));
        in.tensors.push_back(f32Tensor("w", ns, ramp(k, 0.5f, 1.0f)));
        in.tensors.push_back(f32Tensor("b", ns, ramp(k, 0.25f, -0.125f)));
        in.tensors.push_back(f32Tensor("dy", shape, ramp(n, 0.75f, 0.0f)));
        SafeTensorsFile none;
        const auto a = graphtest::outputItems(ga, in, none, 2);
        const auto b = graphtest::outputItems(gn, in, none, 1);
        QCOMPARE(a.size(), size_t(8));
        QCOMPARE(b.size(), size_t(8));
        const char* what[] = {"output",     "mean (dtype)", "invvar (dtype)", "mean f32",
                              "invvar f32", "grad_input",   "grad_weight",    "grad_bias"};
        for (size_t i = 0; i < 8; ++i) {
            QVERIFY(a[i] && b[i]);
            QVERIFY2(a[i]->dtype == b[i]->dtype, what[i]);
            QVERIFY2(a[i]->shape == b[i]->shape, what[i]);
            QVERIFY2(a[i]->data == b[i]->data, what[i]);  // bitwise
        }
        QCOMPARE(a[3]->dtype, DType::F32);
        QCOMPARE(a[3]->shape, std::vector<int64_t>{n / k});
        // invvar is rsqrt(var + eps) of each row (f32 inputs: against a double computation)
        if (dtype == "float32") {
            const std::vector<float> x = ramp(n, 1.0f, 0.25f), inv = floatsOf(*a[4]);
            for (int64_t r = 0; r < n / k; ++r) {
                double s = 0, s2 = 0;
                for (int64_t j = 0; j < k; ++j) s += x[static_cast<size_t>(r * k + j)];
                const double m = s / static_cast<double>(k);
                for (int64_t j = 0; j < k; ++j) {
                    const double d = x[static_cast<size_t>(r * k + j)] - m;
                    s2 += d * d;
                }
                const double want = 1.0 / std::sqrt(s2 / static_cast<double>(k) + 1e-05);
                QVERIFY(std::abs(inv[static_cast<size_t>(r)] - want) <= 1e-5 * want);
            }
        }
    }

    // ---- unknown operators

    void unknownOperator()
    {
        Graph g = parseFxText("def forward(self, x: \"f32[3]\"):\n"
                              "    y = torch.ops.nope.frob.default(x)\n"
                              "    return (y,)\n",
                              "u.py");
        const std::string want = "unknown operator nope.frob.default: declare it (its schema, and identity of an "
                                 "argument or a decomposition over aten ops) in an ops file and pass it with --ops "
                                 "FILE (docs/custom_ops.md)";
        const auto missing = missingSupport(g);
        QCOMPARE(missing.size(), size_t(1));
        QCOMPARE(missing[0].reason, want);
        QCOMPARE(missing[0].nodes, std::vector<std::string>{"y"});
        SafeTensorsFile in;
        in.tensors.push_back(f32Tensor("x", {3}, {1, 2, 3}));
        auto backend = makeCpuBackend(CpuBackendOptions{1});
        try {
            graphtest::runGraph(g, in, *backend);
            QFAIL("ran");
        } catch (const KernelError& e) {
            QCOMPARE(std::string(e.what()), "node 'y' (nope.frob.default): " + want);
        }
    }

    // A declared op's decomposition is checked like a nested graph by `info`.
    void decompositionBlockers()
    {
        registerCustomOps(parseOpsFile("op blk.half(Tensor x) -> Tensor\ndecomposition\n"
                                       "    def forward(self, x):\n"
                                       "        y = torch.ops.aten.digamma.default(x)\n"
                                       "        return (y,)\n",
                                       "blk.ops"));
        Graph g = parseFxText("def forward(self, x: \"f32[3]\"):\n"
                              "    h = torch.ops.blk.half.default(x)\n"
                              "    h2 = torch.ops.blk.half.default(h)\n"
                              "    return (h2,)\n",
                              "blk.py");
        const auto missing = missingSupport(g);
        QCOMPARE(missing.size(), size_t(1));
        QCOMPARE(missing[0].reason, std::string("no CPU kernel for aten.digamma.default"));
        QCOMPARE(missing[0].nodes, std::vector<std::string>{"blk.half.default/y"});
    }

    // identity runs as PyTorch's custom ops return: a copy (a storage of its own, the input's
    // dense strides kept), so the run's peak counts it as the memory timeline does.
    void identityCopies()
    {
        Graph g = parseFxText("def forward(self, x):\n"
                              "    p = torch.ops.aten.permute.default(x, [1, 0])\n"
                              "    baz = torch.ops.test.baz.default(p);  p = None\n"
                              "    return (baz, x)\n",
                              "id.py");
        SafeTensorsFile in;
        in.tensors.push_back(f32Tensor("x", {2, 3}, {0, 1, 2, 3, 4, 5}));
        auto backend = makeCpuBackend(CpuBackendOptions{1});
        graphtest::Run r = graphtest::runGraph(g, in, *backend);
        QCOMPARE(r.result.outputs.size(), size_t(2));
        const Tensor& out = r.result.outputs[0].tensor;
        QCOMPARE(out.sizes(), (std::vector<int64_t>{3, 2}));
        QCOMPARE(out.strides(), (std::vector<int64_t>{1, 3}));
        QVERIFY(out.storage() != r.result.outputs[1].tensor.storage());
        QCOMPARE(floatsOf(r.outputs.tensors.at(0)), (std::vector<float>{0, 3, 1, 4, 2, 5}));
        QCOMPARE(r.result.peakBytes, int64_t(48));  // x and its copy
    }

    // The memory timeline counts a decomposition's temporaries at its node (memory.md R10), so its
    // estimated peak equals the executor's measured one at ops-file nodes too: apex's fused layer
    // norm (float32 copies of its inputs, then native_layer_norm and its backward), a logging
    // identity, and both nested in one graph.
    void decompositionPeakMatchesRun_data()
    {
        QTest::addColumn<QString>("body");
        QTest::addColumn<QString>("returns");
        const char* fwd = "fwd = torch.ops.apex.fused_layer_norm_affine_fwd.default(x, w, b, [8], 1e-05)\n"
                          "    out = fwd[0]\n    mean = fwd[1]\n    invvar = fwd[2];  fwd = None\n";
        const char* bwd = "bwd = torch.ops.apex.fused_layer_norm_affine_bwd.default(out, mean, invvar, x, [8], w, b, "
                          "1e-05)\n    gi = bwd[0]\n    gw = bwd[1]\n    gb = bwd[2];  bwd = None\n";
        QTest::newRow("apex forward") << QString::fromLatin1(fwd) << QStringLiteral("out, mean, invvar");
        QTest::newRow("apex forward and backward") << QString::fromLatin1(fwd) + QStringLiteral("    ")
                + QString::fromLatin1(bwd) << QStringLiteral("gi, gw, gb");
        QTest::newRow("apex between pointwise ops") << QStringLiteral("r = torch.ops.aten.relu.default(x)\n    ")
                + QString::fromLatin1(fwd).replace("(x, w", "(r, w")
                + QStringLiteral("    s = torch.ops.aten.mul.Tensor(out, r);  out = r = None\n")
                                                    << QStringLiteral("s, mean");
    }
    void decompositionPeakMatchesRun()
    {
        QFETCH(QString, body);
        QFETCH(QString, returns);
        Graph g = parseFxText(("def forward(self, x: \"f32[6, 8]\", w: \"f32[8]\", b: \"f32[8]\"):\n    " + body
                               + "    return (" + returns + ",)\n")
                                  .toStdString(),
                              "apex.py");
        const ShapePropResult sp = propagateShapes(g, ShapePropOptions{});
        QVERIFY2(sp.problems.empty(), sp.problems.empty() ? "" : sp.problems.front().c_str());
        const MemoryTimeline t = computeMemoryTimeline(g);
        SafeTensorsFile in;
        in.tensors.push_back(f32Tensor("x", {6, 8}, ramp(48, 1.0f, 0.0f)));
        in.tensors.push_back(f32Tensor("w", {8}, ramp(8, 0.5f, 1.0f)));
        in.tensors.push_back(f32Tensor("b", {8}, ramp(8, 0.25f, 0.0f)));
        auto backend = makeCpuBackend(CpuBackendOptions{1});
        const graphtest::Run r = graphtest::runGraph(g, in, *backend);
        QCOMPARE(t.peakBytes, r.result.peakBytes);
        // the apex nodes' steps hold their decomposition's peak, above their outputs' bytes
        int counted = 0;
        for (const auto& st : t.steps) counted += st.bodyPeakBytes > st.allocatedBytes ? 1 : 0;
        QVERIFY(counted >= 1);
    }

    // ---- auto_functionalized(_v2)

    void autoFunctionalized_data()
    {
        QTest::addColumn<std::string>("call");  // the HOP call on `base` f32[3, 2] (0..5) and `x`
        QTest::addColumn<std::vector<int64_t>>("xShape");
        QTest::addColumn<std::vector<float>>("expected");  // the value of the mutated copy
        QTest::addColumn<bool>("firstIsNone");
        const std::vector<float> plus10 = {10, 11, 12, 13, 14, 15};
        QTest::newRow("v1 custom op") << std::string("torch.ops.higher_order.auto_functionalized("
                                                     "torch.ops.mylib.add_into.default, out = base, x = x)")
                                      << std::vector<int64_t>{3, 2} << plus10 << true;
        QTest::newRow("v1 aten in-place op, default alpha")
            << std::string("torch.ops.higher_order.auto_functionalized(torch.ops.aten.add_.Tensor, self = base, "
                           "other = x)")
            << std::vector<int64_t>{3, 2} << plus10 << false;
        QTest::newRow("v2 base itself") << std::string("torch.ops.higher_order.auto_functionalized_v2("
                                                       "torch.ops.mylib.add_into.default, x = x, _out_base_index = 0, "
                                                       "_all_bases = [base])")
                                        << std::vector<int64_t>{3, 2} << plus10 << true;
        QTest::newRow("v2 alias") << std::string("torch.ops.higher_order.auto_functionalized_v2("
                                                 "torch.ops.mylib.add_into.default, x = x, _out_base_index = 0, "
                                                 "_out_alias = True, _all_bases = [base])")
                                  << std::vector<int64_t>{3, 2} << plus10 << true;
        QTest::newRow("v2 slice") << std::string("torch.ops.higher_order.auto_functionalized_v2("
                                                 "torch.ops.mylib.add_into.default, x = x, _out_base_index = 0, "
                                                 "_out_slice_dim = 0, _out_slice_start = 1, _out_slice_end = 3, "
                                                 "_all_bases = [base])")
                                  << std::vector<int64_t>{2, 2} << std::vector<float>{0, 1, 12, 13, 14, 15} << true;
        QTest::newRow("v2 as_strided") << std::string("torch.ops.higher_order.auto_functionalized_v2("
                                                      "torch.ops.mylib.add_into.default, x = x, _out_base_index = 0, "
                                                      "_out_size = [3], _out_stride = [2], _out_storage_offset = 1, "
                                                      "_all_bases = [base])")
                                       << std::vector<int64_t>{3} << std::vector<float>{0, 11, 2, 13, 4, 15} << true;
        QTest::newRow("v2 list of slices")
            << std::string("torch.ops.higher_order.auto_functionalized_v2(torch.ops.mylib.add_pair.default, x = x, "
                           "_outs_length = 2, _outs_0_base_index = 0, _outs_0_slice_dim = 0, _outs_0_slice_start = 0, "
                           "_outs_0_slice_end = 1, _outs_1_base_index = 0, _outs_1_slice_dim = 0, "
                           "_outs_1_slice_start = -1, _outs_1_slice_end = 3, _all_bases = [base])")
            << std::vector<int64_t>{1, 2} << std::vector<float>{10, 11, 2, 3, 14, 15} << true;
    }
    void autoFunctionalized()
    {
        QFETCH(std::string, call);
        QFETCH(std::vector<int64_t>, xShape);
        QFETCH(std::vector<float>, expected);
        QFETCH(bool, firstIsNone);
        Graph g = parseFxText("def forward(self, base, x):\n"
                              "    af = "
                                  + call
                                  + "\n"
                                    "    first = af[0]\n"
                                    "    mutated = af[1]\n"
                                    "    return (first, mutated, base)\n",
                              "af.py");
        QVERIFY(missingSupport(g).empty());
        SafeTensorsFile in;
        in.tensors.push_back(f32Tensor("base", {3, 2}, {0, 1, 2, 3, 4, 5}));
        in.tensors.push_back(f32Tensor("x", xShape, std::vector<float>(static_cast<size_t>(product(xShape)), 10.0f)));
        auto backend = makeCpuBackend(CpuBackendOptions{1});
        graphtest::Run r = graphtest::runGraph(g, in, *backend);
        QCOMPARE(r.result.outputs.size(), size_t(3));
        QCOMPARE(r.result.outputs[0].isNone(), firstIsNone);
        const SafeTensor* mutated = r.outputs.find("out_1");
        const SafeTensor* original = r.outputs.find("out_2");
        QCOMPARE(r.outputs.find("out_0") == nullptr, firstIsNone);
        QVERIFY(mutated && original);
        QCOMPARE(mutated->shape, (std::vector<int64_t>{3, 2}));
        QCOMPARE(floatsOf(*mutated), expected);
        QCOMPARE(floatsOf(*original), (std::vector<float>{0, 1, 2, 3, 4, 5}));  // the input is not mutated
        if (!firstIsNone) {  // add_ returns self: the mutated copy
            const SafeTensor* first = r.outputs.find("out_0");
            QCOMPARE(floatsOf(*first), expected);
        }
    }

    // Megatron's form: auto_functionalized_v2(tg.inplace_log_tensor.default, s=..., _t_base_index=0,
    // _all_bases=[w]): the value of the copy of w, a storage of its own.
    void autoFunctionalizedLogging()
    {
        Graph g = parseFxText("def forward(self, w):\n"
                              "    af = torch.ops.higher_order.auto_functionalized_v2("
                              "torch.ops.tg.inplace_log_tensor.default, s = 'module.weight', _t_base_index = 0, "
                              "_all_bases = [w]);  w = None\n"
                              "    getitem_1 = af[1]\n"
                              "    return (getitem_1,)\n",
                              "log.py");
        SafeTensorsFile in;
        in.tensors.push_back(f32Tensor("w", {4}, {1.5f, -2, 3, 0.25f}));
        auto backend = makeCpuBackend(CpuBackendOptions{1});
        graphtest::Run r = graphtest::runGraph(g, in, *backend);
        QCOMPARE(r.result.outputs.size(), size_t(1));
        QCOMPARE(floatsOf(r.outputs.tensors.at(0)), (std::vector<float>{1.5f, -2, 3, 0.25f}));
        // the copy is accounted as the HOP's new storage: input 16 B + copy 16 B
        QCOMPARE(r.result.peakBytes, int64_t(32));
    }

    void autoFunctionalizedErrors_data()
    {
        QTest::addColumn<std::string>("call");
        QTest::addColumn<std::string>("expected");
        QTest::newRow("unexpected keyword")
            << std::string("torch.ops.higher_order.auto_functionalized(torch.ops.mylib.add_into.default, out = base, "
                           "x = base, bogus = 1)")
            << std::string("node 'af' (higher_order.auto_functionalized): auto_functionalized(mylib.add_into.default): "
                           "unexpected keyword argument 'bogus'");
        QTest::newRow("missing argument")
            << std::string("torch.ops.higher_order.auto_functionalized(torch.ops.mylib.add_into.default, out = base)")
            << std::string("node 'af' (higher_order.auto_functionalized): auto_functionalized(mylib.add_into.default): "
                           "missing a value for argument 'x'");
        QTest::newRow("no bases")
            << std::string("torch.ops.higher_order.auto_functionalized_v2(torch.ops.mylib.add_into.default, x = base, "
                           "_out_base_index = 0)")
            << std::string("node 'af' (higher_order.auto_functionalized_v2): auto_functionalized_v2(mylib.add_into."
                           "default): expects _all_bases, the list of the bases of the mutated arguments");
        QTest::newRow("base index out of range")
            << std::string("torch.ops.higher_order.auto_functionalized_v2(torch.ops.mylib.add_into.default, x = base, "
                           "_out_base_index = 1, _all_bases = [base])")
            << std::string("node 'af' (higher_order.auto_functionalized_v2): auto_functionalized_v2(mylib.add_into."
                           "default): _out_base_index is 1; _all_bases has 1");
        QTest::newRow("out= form")
            << std::string("torch.ops.higher_order.auto_functionalized_v2(torch.ops.mylib.add_into.default, x = base, "
                           "_out_size = [3, 2], _out_stride = [2, 1], _out_dtype = torch.float32, _all_bases = [])")
            << std::string("node 'af' (higher_order.auto_functionalized_v2): auto_functionalized_v2(mylib.add_into."
                           "default): the out= form (_out_size/_stride/_dtype, no base) is not supported");
        QTest::newRow("unknown wrapped op")
            << std::string("torch.ops.higher_order.auto_functionalized_v2(torch.ops.nope.frob_.default, x = base, "
                           "_all_bases = [base])")
            << std::string("node 'af' (higher_order.auto_functionalized_v2): auto_functionalized_v2: unknown operator "
                           "nope.frob_.default: declare it");
    }
    void autoFunctionalizedErrors()
    {
        QFETCH(std::string, call);
        QFETCH(std::string, expected);
        Graph g = parseFxText("def forward(self, base):\n    af = " + call + "\n    return (af,)\n", "e.py");
        SafeTensorsFile in;
        in.tensors.push_back(f32Tensor("base", {3, 2}, {0, 1, 2, 3, 4, 5}));
        auto backend = makeCpuBackend(CpuBackendOptions{1});
        try {
            graphtest::runGraph(g, in, *backend);
            QFAIL("ran");
        } catch (const KernelError& e) {
            QVERIFY2(std::string(e.what()).rfind(expected, 0) == 0, e.what());
        }
    }
};

FXL_TEST_APPLESS_MAIN(TestCustomOps)
}  // namespace test_custom_ops
#include "test_custom_ops.moc"
