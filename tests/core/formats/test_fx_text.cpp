// FX graph text, the syntax: every statement and argument form, Python float repr, pytree
// and boxed code, print options, line ends and locations, summary comments; malformed inputs
// fail with the exact line and column. All inline texts (one test reads a corpus dump, per
// the corpus rule), so this runs without the corpus; test_fx_text_corpus and
// test_fx_text_examples read the real graphs.
#include <clocale>
#include <cmath>
#include <cstring>

#include <QtTest>

#include <string>

#include "core/formats/fx/fx_text_parser.hpp"
#include "core/formats/fx/fx_text_writer.hpp"
#include "core/formats/fx/summary_comment.hpp"
#include "fx_text_test_util.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_fx_text {

using namespace fxl;
using namespace fxtexttest;

class TestFxText : public QObject
{
    Q_OBJECT

private slots:
    // Every statement form of §2.4.
    void operatorForms()
    {
        const std::string text =
            "class GraphModule(torch.nn.Module):\n"
            "    def forward(self, a: \"f32[4, 4]\", b: \"f32[4, 4]\", n: \"Sym(s0)\", *args, k = None):\n"
            "        add = a + b\n"
            "        neg = -a\n"
            "        pos = +a\n"
            "        invert = ~a\n"
            "        matmul = a @ b\n"
            "        sub = 1 - a\n"
            "        rsub = a - -2.5\n"
            "        pow_1 = a ** 2\n"
            "        truediv = a / b;  truediv = None\n"
            "        floordiv = n // 3\n"
            "        ge = n >= 0\n"
            "        eq = n == 1\n"
            "        getitem = args[0]\n"
            "        getitem_1 = a[(slice(None, 2, None), 0)]\n"
            "        getitem_2 = a[..., None]\n"
            "        a += b;  iadd = a\n"
            "        a[0] = b;  setitem = a\n"
            "        shape = a.shape\n"
            "        view = a.view(-1, 2)\n"
            "        new_empty = a.new_empty([], dtype = torch.int32)\n"
            "        linear = self.sub.mod(a)\n"
            "        layer = getattr(self.layers, \"0\")(b)\n"
            "        w = getattr(self.layers, \"0\").weight\n"
            "        c0 = self._tensor_constant0\n"
            "        ga = getattr(a, '0')\n"
            "        s = torch.sym_float(n)\n"
            "        nt = _operator_not_(k)\n"
            "        af = torch.ops.higher_order.auto_functionalized_v2(torch.ops.fsdp.split_with_sizes_copy.default, "
            "all_gather_output = a, _out_0_size = (2, 128), _all_bases = [b])\n"
            "        baz = torch.ops.test.baz(a)\n"
            "        return [add, neg, pos, invert, matmul, sub, rsub, pow_1, floordiv, ge, eq, getitem, getitem_1, "
            "getitem_2, iadd, "
            "setitem, shape, view, new_empty, linear, layer, w, c0, ga, s, nt, af, baz]\n";
        Graph g = parseFxText(text, "ops");
        auto is = [&](const char* name, const char* target) { return byName(g, name).isOp(target); };
        QVERIFY(is("add", "operator.add"));
        QVERIFY(is("neg", "operator.neg"));
        QVERIFY(is("pos", "operator.pos"));
        QVERIFY(is("invert", "operator.invert"));
        QVERIFY(is("matmul", "operator.matmul"));
        QVERIFY(is("sub", "operator.sub"));
        QCOMPARE(byName(g, "sub").args[0].i, int64_t(1));
        QCOMPARE(byName(g, "rsub").args[1].f, -2.5);
        QVERIFY(is("pow_1", "operator.pow"));
        QVERIFY(is("truediv", "operator.truediv"));
        QVERIFY(is("floordiv", "operator.floordiv"));
        QVERIFY(is("ge", "operator.ge"));
        QVERIFY(is("eq", "operator.eq"));
        QVERIFY(is("getitem", "operator.getitem"));
        QCOMPARE(byName(g, "getitem").args[0].node, byName(g, "args").id);
        QCOMPARE(byName(g, "args").target, std::string("*args"));
        QVERIFY(byName(g, "k").placeholderDefault.has_value());
        const Arg& idx = byName(g, "getitem_1").args[1];
        QCOMPARE(idx.kind, Arg::Kind::Tuple);
        QCOMPARE(idx.items[0].kind, Arg::Kind::Slice);
        QVERIFY(idx.items[0].items[0].isNone());
        QCOMPARE(idx.items[0].items[1].i, int64_t(2));
        const Arg& idx2 = byName(g, "getitem_2").args[1];
        QCOMPARE(idx2.kind, Arg::Kind::Tuple);
        QCOMPARE(idx2.items[0].kind, Arg::Kind::Ellipsis);
        QVERIFY(is("iadd", "operator.iadd"));
        QCOMPARE(byName(g, "iadd").args[0].node, byName(g, "a").id);
        QVERIFY(is("setitem", "operator.setitem"));
        QCOMPARE(byName(g, "setitem").args.size(), size_t(3));
        QVERIFY(is("shape", "builtins.getattr"));
        QCOMPARE(byName(g, "shape").args[1].s, std::string("shape"));
        QCOMPARE(byName(g, "view").op, NodeOp::CallMethod);
        QCOMPARE(byName(g, "view").args[1].i, int64_t(-1));
        QCOMPARE(byName(g, "new_empty").kwarg("dtype")->dtype, DType::I32);
        QCOMPARE(byName(g, "linear").op, NodeOp::CallModule);
        QCOMPARE(byName(g, "linear").target, std::string("sub.mod"));
        QCOMPARE(byName(g, "layer").op, NodeOp::CallModule);
        QCOMPARE(byName(g, "layer").target, std::string("layers.0"));
        QCOMPARE(byName(g, "w").op, NodeOp::GetAttr);
        QCOMPARE(byName(g, "w").target, std::string("layers.0.weight"));
        QCOMPARE(byName(g, "c0").target, std::string("_tensor_constant0"));
        QVERIFY(is("ga", "builtins.getattr"));
        QVERIFY(is("s", "torch.sym_float"));
        QVERIFY(is("nt", "_operator_not_"));
        const Node& af = byName(g, "af");
        QVERIFY(af.isOp("higher_order.auto_functionalized_v2"));
        QCOMPARE(af.args[0].kind, Arg::Kind::Op);
        QCOMPARE(af.args[0].s, std::string("fsdp.split_with_sizes_copy.default"));
        QCOMPARE(af.kwarg("_out_0_size")->kind, Arg::Kind::Tuple);
        QVERIFY(is("baz", "test.baz"));
        QVERIFY(g.outputIsList);
        const std::string printed = printReadable(g);
        QVERIFY(printed.find("        a += b;  iadd = a\n") != std::string::npos);
        QVERIFY(printed.find("        a[0] = b;  setitem = a") != std::string::npos);
        QVERIFY(printed.find("layer = getattr(self.layers, \"0\")(b)") != std::string::npos);
        QVERIFY(printed.find("neg = -a") != std::string::npos);
        QVERIFY(printed.find("baz = torch.ops.test.baz(a)") != std::string::npos);
        checkRoundTrip(g);
    }

    // A call target under "builtins." that is not a builtin function keeps its prefix when printed
    // (found by fuzz_fx_text: "builtins.frob" printed as "frob" and came back as "frob").
    void builtinsPrefixRoundTrip()
    {
        const std::string text = "class GraphModule(torch.nn.Module):\n"
                                 "    def forward(self, a: \"f32[4]\"):\n"
                                 "        frob = builtins.frob(a)\n"
                                 "        n = len(a)\n"
                                 "        return [frob, n]\n";
        Graph g = parseFxText(text, "builtins");
        QVERIFY(byName(g, "frob").isOp("builtins.frob"));
        QVERIFY(byName(g, "n").isOp("builtins.len"));
        const std::string printed = printReadable(g);
        QVERIFY2(printed.find("frob = builtins.frob(a)") != std::string::npos, printed.c_str());
        QVERIFY2(printed.find("n = len(a)") != std::string::npos, printed.c_str());
        checkRoundTrip(g);
    }

    // Floats print as Python's repr (shortest round-trip digits), whatever the C locale says;
    // the expected strings were printed by python3's repr() for the same bit patterns.
    void pythonFloatRepr_data()
    {
        QTest::addColumn<quint64>("bits");
        QTest::addColumn<QString>("repr");
        QTest::newRow("0.1") << quint64(0x3fb999999999999aULL) << QStringLiteral("0.1");
        QTest::newRow("1e+16") << quint64(0x4341c37937e08000ULL) << QStringLiteral("1e+16");
        QTest::newRow("1000000000000000.0") << quint64(0x430c6bf526340000ULL) << QStringLiteral("1000000000000000.0");
        QTest::newRow("1.2345678901234568e+17")
            << quint64(0x437b69b4ba630f35ULL) << QStringLiteral("1.2345678901234568e+17");
        QTest::newRow("0.0001") << quint64(0x3f1a36e2eb1c432dULL) << QStringLiteral("0.0001");
        QTest::newRow("1e-05") << quint64(0x3ee4f8b588e368f1ULL) << QStringLiteral("1e-05");
        QTest::newRow("0.00012345") << quint64(0x3f202e4b6ce5dc68ULL) << QStringLiteral("0.00012345");
        QTest::newRow("-2.5") << quint64(0xc004000000000000ULL) << QStringLiteral("-2.5");
        QTest::newRow("1.0") << quint64(0x3ff0000000000000ULL) << QStringLiteral("1.0");
        QTest::newRow("3e+300") << quint64(0x7e51eb2d66005835ULL) << QStringLiteral("3e+300");
        QTest::newRow("5e-324") << quint64(0x0000000000000001ULL) << QStringLiteral("5e-324");
        QTest::newRow("1.7976931348623157e+308")
            << quint64(0x7fefffffffffffffULL) << QStringLiteral("1.7976931348623157e+308");
        QTest::newRow("0.3") << quint64(0x3fd3333333333333ULL) << QStringLiteral("0.3");
        QTest::newRow("0.6666666666666666") << quint64(0x3fe5555555555555ULL) << QStringLiteral("0.6666666666666666");
        QTest::newRow("-1e-07") << quint64(0xbe7ad7f29abcaf48ULL) << QStringLiteral("-1e-07");
        QTest::newRow("100.0") << quint64(0x4059000000000000ULL) << QStringLiteral("100.0");
        QTest::newRow("1e+22") << quint64(0x4480f0cf064dd592ULL) << QStringLiteral("1e+22");
        QTest::newRow("12345.678") << quint64(0x40c81cd6c8b43958ULL) << QStringLiteral("12345.678");
        QTest::newRow("-0.0") << quint64(0x8000000000000000ULL) << QStringLiteral("-0.0");
        QTest::newRow("inf") << quint64(0x7ff0000000000000ULL) << QStringLiteral("inf");
        QTest::newRow("-inf") << quint64(0xfff0000000000000ULL) << QStringLiteral("-inf");
    }
    void pythonFloatRepr()
    {
        QFETCH(quint64, bits);
        QFETCH(QString, repr);
        double v;
        std::memcpy(&v, &bits, sizeof v);
        QCOMPARE(QString::fromStdString(fxl::pythonFloatRepr(v)), repr);
        // a locale with a decimal comma must not change the text (when the machine has one)
        const char* comma[] = {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "fr_FR.utf8"};
        for (const char* name : comma) {
            if (!std::setlocale(LC_NUMERIC, name)) continue;
            const std::string underComma = fxl::pythonFloatRepr(v);
            std::setlocale(LC_NUMERIC, "C");
            QCOMPARE(QString::fromStdString(underComma), repr);
            break;
        }
    }

    // Argument values: exact ints and floats, strings, torch objects.
    void argumentValues()
    {
        const std::string text =
            "def forward(self, x):\n"
            "    foo = torch.ops.aten.foo.default(x, 9223372036854775807, -9223372036854775808, 1e-05, 0.1, -0.0, 3.0, "
            "inf, -inf, nan, 'a\\'b', \"it's\", '\\n\\t\\\\\\x41\\u00e9', [1, (2,), ()], {'k': None, 'j': [True, "
            "False]}, "
            "torch.float32, torch.bfloat16, torch.float8_e4m3fn, device(type='cuda', index=0), device(type='cpu'), "
            "torch.strided, "
            "torch.contiguous_format, torch.channels_last, torch.ops.fsdp.split_with_sizes_copy.default, slice(None, "
            "2, None), ..., "
            "123456789012345678901234567890, 2.5e-300, 1.7976931348623157e+308, 5e-324, torch.Tensor(size=[2], "
            "dtype=float32), "
            "MyEnum.VALUE, 'é')\n"
            "    return foo\n";
        Graph g = parseFxText(text, "args");
        const Node& foo = byName(g, "foo");
        const auto& a = foo.args;
        QCOMPARE(a.size(), size_t(33));
        QCOMPARE(a[1].i, INT64_MAX);
        QCOMPARE(a[2].i, INT64_MIN);
        QCOMPARE(a[3].f, 1e-05);
        QCOMPARE(a[4].f, 0.1);
        QVERIFY(a[5].f == 0.0 && std::signbit(a[5].f));
        QCOMPARE(a[6].kind, Arg::Kind::Float);
        QVERIFY(std::isinf(a[7].f) && a[7].f > 0);
        QVERIFY(std::isinf(a[8].f) && a[8].f < 0);
        QVERIFY(std::isnan(a[9].f));
        QCOMPARE(a[10].s, std::string("a'b"));
        QCOMPARE(a[11].s, std::string("it's"));
        QCOMPARE(a[12].s, std::string("\n\t\\A\xc3\xa9"));
        QCOMPARE(a[13].kind, Arg::Kind::List);
        QCOMPARE(a[13].items[1].kind, Arg::Kind::Tuple);
        QCOMPARE(a[13].items[1].items.size(), size_t(1));
        QCOMPARE(a[13].items[2].items.size(), size_t(0));
        QCOMPARE(a[14].kind, Arg::Kind::Dict);
        QCOMPARE(a[14].dict[1].second.items[0].b, true);
        QCOMPARE(a[15].dtype, DType::F32);
        QCOMPARE(a[16].dtype, DType::BF16);
        QCOMPARE(a[17].dtype, DType::F8E4M3FN);
        QCOMPARE(a[18].s, std::string("cuda:0"));
        QCOMPARE(a[19].s, std::string("cpu"));
        QCOMPARE(a[20].kind, Arg::Kind::Layout);
        QCOMPARE(a[21].kind, Arg::Kind::MemoryFormat);
        QCOMPARE(a[22].s, std::string("channels_last"));
        QCOMPARE(a[23].kind, Arg::Kind::Op);
        QCOMPARE(a[24].kind, Arg::Kind::Slice);
        QCOMPARE(a[25].kind, Arg::Kind::Ellipsis);
        QCOMPARE(a[26].kind, Arg::Kind::Raw);  // beyond int64: kept as written
        QCOMPARE(a[26].s, std::string("123456789012345678901234567890"));
        QCOMPARE(a[27].f, 2.5e-300);
        QCOMPARE(a[28].f, 1.7976931348623157e+308);
        QCOMPARE(a[29].f, 5e-324);
        QCOMPARE(a[30].kind, Arg::Kind::Raw);
        QCOMPARE(a[30].s, std::string("torch.Tensor(size=[2], dtype=float32)"));
        QCOMPARE(a[31].s, std::string("MyEnum.VALUE"));
        QCOMPARE(a[32].s, std::string("\xc3\xa9"));
        QCOMPARE(static_cast<int>(g.signature), static_cast<int>(SignatureStyle::Plain));
        checkRoundTrip(g);
        // floats print back bit-exactly
        const std::string printed = printReadable(g);
        QVERIFY(printed.find("1e-05, 0.1, -0.0, 3.0, inf, -inf, nan") != std::string::npos);
        QVERIFY(printed.find("device(type='cuda', index=0), device(type='cpu')") != std::string::npos);
    }

    // gm.code of exported modules and the boxed calling convention.
    void pytreeAndBoxedCode()
    {
        const std::string code = "\n\n\ndef forward(self, x):\n"
                                 "    x, = fx_pytree.tree_flatten_spec(([x], {}), self._in_spec)\n"
                                 "    _guards_fn = self._guards_fn(x);  _guards_fn = None\n"
                                 "    add = torch.ops.aten.add.Tensor(x, 1);  x = None\n"
                                 "    submod_4 = self.submod_2\n"
                                 "    add_1 = torch.ops.higher_order.wrap_with_set_grad_enabled(False, submod_4, add); "
                                 " submod_4 = add = None\n"
                                 "    getitem = add_1[0];  add_1 = None\n"
                                 "    sub = torch.ops.aten.sub.Tensor(getitem, 1)\n"
                                 "    return pytree.tree_unflatten((getitem, sub), self._out_spec)\n"
                                 "    ";
        Graph g = parseFxText(code, "export");
        QCOMPARE(static_cast<int>(g.signature), static_cast<int>(SignatureStyle::Pytree));
        QCOMPARE(g.pytreeArgNames, std::vector<std::string>{"x"});
        QCOMPARE(g.placeholders().size(), size_t(1));
        QCOMPARE(byName(g, "_guards_fn").op, NodeOp::CallModule);
        QVERIFY(g.outputPytree);
        QVERIFY(!g.outputIsList);
        QCOMPARE(g.size(), size_t(8));
        checkRoundTrip(g);

        const std::string boxed = "def forward(self, args_list):\n"
                                  "    args_iter = iter(args_list)\n"
                                  "    arg0_1 = next(args_iter)\n"
                                  "    arg1_1 = next(args_iter)\n"
                                  "    args_list.clear()\n"
                                  "    mul = torch.ops.aten.mul.Tensor(arg0_1, arg1_1);  arg0_1 = arg1_1 = None\n"
                                  "    return (mul,)\n";
        Graph b = parseFxText(boxed, "boxed");
        QCOMPARE(static_cast<int>(b.signature), static_cast<int>(SignatureStyle::Boxed));
        QCOMPARE(b.placeholders().size(), size_t(2));
        checkRoundTrip(b);
        // annotated vals survive the boxed form too
        byName(b, "arg0_1");
        Graph b2 = b.clone();
        b2.node(b2.findByName("arg0_1")).val = parseAnnotation("f32[3]");
        checkRoundTrip(b2);
    }

    void printOptions()
    {
        FXL_REQUIRE_CORPUS(fxFixture("tlparse_v2.9dev_mlp_aot_joint_graph_expanded.txt"));
        std::string text = fxltest::readFile(fxFixture("tlparse_v2.9dev_mlp_aot_joint_graph_expanded.txt"));
        Graph g = parseFxText(text, "joint");
        PrintOptions bare;
        bare.annotations = false;
        bare.comments = false;
        bare.deletions = false;
        const std::string printed = printReadable(g, bare);
        QVERIFY(printed.find('#') == std::string::npos);
        QVERIFY(printed.find("= None") == std::string::npos);
        QVERIFY(printed.find("f32[") == std::string::npos);
        Graph g2 = parseFxText(printed, "bare");
        QCOMPARE(g2.size(), g.size());
        QCOMPARE(byName(g2, "addmm").args.size(), size_t(3));
    }

    // Windows line ends, a byte order mark, an annotation the meta parser does not know.
    void crlfBomAndUnknownAnnotation()
    {
        const std::string text = "\xEF\xBB\xBF"
                                 "class G(torch.nn.Module):\r\n"
                                 "    def forward(self, x: \"q32[8]\"):\r\n"
                                 "        # File: /a.py:1 in f, code: y = x.foo()\r\n"
                                 "        y: \"f32[8][1]cpu\" = x.foo('a\\\r\nb');  x = None\r\n"
                                 "        return (y,)\r\n";
        DiagnosticList diags;
        Graph g = parseFxText(text, "crlf", 1, &diags);
        QCOMPARE(g.className, std::string("G"));
        QCOMPARE(byName(g, "y").meta.source.code, std::string("y = x.foo()"));
        QCOMPARE(byName(g, "y").args[1].s, std::string("ab"));  // backslash-newline continues the literal
        QCOMPARE(formatAnnotation(byName(g, "y").val), std::string("f32[8][1]cpu"));
        QCOMPARE(byName(g, "x").val.kind, ValueMeta::Kind::Opaque);
        QCOMPARE(byName(g, "x").val.opaqueText, std::string("q32[8]"));
        QCOMPARE(diags.items.size(), size_t(1));
        QCOMPARE(diags.items[0].severity, Severity::Warning);
        QCOMPARE(diags.items[0].line, 2);
        QCOMPARE(diags.items[0].column, 27);
        checkRoundTrip(g);
    }

    // TORCH_TRACE payloads: locations refer to the log file.
    void payloadLocations()
    {
        const std::string payload = "class GraphModule(torch.nn.Module):\n"
                                    "    def forward(self, x: \"f32[2]\"):\n"
                                    "        y = torch.ops.aten.sin.default(q)\n"
                                    "        return (y,)\n";
        try {
            parseFxText(payload, "trace.log", 41, nullptr, 1);
            QFAIL("expected an InputError");
        } catch (const InputError& e) {
            QCOMPARE(e.diagnostic().file, std::string("trace.log"));
            QCOMPARE(e.diagnostic().line, 43);
            QCOMPARE(e.diagnostic().column, 41);  // 40 in the payload + the TAB
        }
    }

    // ---------------------------------------------------------------- malformed inputs
    void malformed_data()
    {
        QTest::addColumn<std::string>("text");
        QTest::addColumn<int>("line");
        QTest::addColumn<int>("column");
        QTest::addColumn<QString>("message");
        auto addMalformed = [](const char* name, const std::string& text, int line, int column, const char* message) {
            QTest::newRow(name) << text << line << column << QString::fromUtf8(message);
        };
        addMalformed("undefined name in arguments",
                     std::string("class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[2]\"):\n        "
                                 "y: \"f32[2]\" = torch.ops.aten.sin.default(z)\n        return (y,)\n",
                                 144),
                     3, 50, "undefined name 'z'");
        addMalformed("undefined name in return",
                     std::string("class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[2]\"):\n        "
                                 "y: \"f32[2]\" = torch.ops.aten.sin.default(x)\n        return (y, w)\n",
                                 146),
                     4, 20, "undefined name 'w'");
        addMalformed(
            "duplicate node name",
            std::string(
                "class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[2]\"):\n        y = "
                "torch.ops.aten.sin.default(x)\n        y = torch.ops.aten.cos.default(x)\n        return (y,)\n",
                176),
            4, 9, "duplicate node name 'y'");
        addMalformed("duplicate parameter",
                     std::string("class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[2]\", x: "
                                 "\"f32[2]\"):\n        return (x,)\n",
                                 105),
                     2, 36, "duplicate parameter 'x'");
        addMalformed("bracket never closed",
                     std::string("class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[2]\"):\n        "
                                 "y = torch.ops.aten.cat.default([x, x]\n        return (y,)\n",
                                 138),
                     3, 39, "'(' was never closed");
        addMalformed("mismatched closing bracket",
                     std::string("class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[2]\"):\n        "
                                 "y = torch.ops.aten.cat.default([x, x)\n        return (y,)\n",
                                 138),
                     3, 45, "does not match '['");
        addMalformed(
            "unexpected indent",
            std::string(
                "class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[2]\"):\n        y = "
                "torch.ops.aten.sin.default(x)\n            z = torch.ops.aten.cos.default(y)\n        return (z,)\n",
                180),
            4, 13, "unexpected indent");
        addMalformed(
            "unindent mismatch",
            std::string("class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[2]\"):\n        y = "
                        "torch.ops.aten.sin.default(x)\n      z = torch.ops.aten.cos.default(y)\n        return (z,)\n",
                        174),
            4, 7, "unindent does not match");
        addMalformed(
            "invalid UTF-8 in a comment",
            std::string(
                "class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[2]\"):\n        # File: /tmp/x\xc3"
                "\xa9"
                "y.py:1 in f, code: \xff"
                "\n        return (x,)\n",
                137),
            3, 43, "invalid UTF-8");
        addMalformed("unterminated string",
                     std::string("class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[2]\"):\n        "
                                 "y = torch.ops.aten.add.default(x, 'abc)\n        return (y,)\n",
                                 140),
                     3, 43, "unterminated string");
        addMalformed("statement after return",
                     std::string("class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[2]\"):\n        "
                                 "return (x,)\n        y = torch.ops.aten.sin.default(x)\n",
                                 134),
                     4, 9, "statement after 'return'");
        addMalformed("no return",
                     std::string("class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[2]\"):\n        "
                                 "y = torch.ops.aten.sin.default(x)\n",
                                 114),
                     2, 5, "no 'return'");
        addMalformed(
            "class header without colon",
            std::string("class GraphModule(torch.nn.Module)\n    def forward(self, x):\n        return (x,)\n", 81), 1,
            35, "expected ':'");
        addMalformed(
            "tab in indentation",
            std::string(
                "class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[2]\"):\n\t        return (x,)\n",
                93),
            3, 1, "tab character");
        addMalformed("unexpected character",
                     std::string("class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[2]\"):\n        "
                                 "y = torch.ops.aten.sin.default(x) $ 2\n        return (y,)\n",
                                 138),
                     3, 43, "unexpected character '$'");
        addMalformed("empty text", std::string("", 0), 1, 1, "no graph found");
        addMalformed("positional after keyword",
                     std::string("class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[2]\"):\n        "
                                 "y = torch.ops.aten.sum.dim_IntList(x, dim = [0], True)\n        return (y,)\n",
                                 155),
                     3, 58, "positional argument follows keyword argument");
        addMalformed("truncated hex escape",
                     std::string("class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[2]\"):\n        "
                                 "y = torch.ops.aten.add.default(x, 'a\\x4')\n        return (y,)\n",
                                 142),
                     3, 45, "truncated \\x escape");
        addMalformed("missing value",
                     std::string("class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[2]\"):\n        "
                                 "y = torch.ops.aten.sin.default(x, , x)\n        return (y,)\n",
                                 139),
                     3, 43, "expected a value");
        addMalformed("expression statement",
                     std::string("class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[2]\"):\n        "
                                 "torch.ops.aten.sin.default(x)\n        return (x,)\n",
                                 130),
                     3, 14, "expected '='");
        addMalformed("unclosed unquoted annotation",
                     std::string("class GraphModule(torch.nn.Module):\n    def forward(self, arg0_1: f32[s0, 3):\n     "
                                 "   return (arg0_1,)\n",
                                 103),
                     2, 40, "does not match '['");
        addMalformed(
            "NUL byte",
            std::string(
                "class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[2]\"):\n        return (x,)\0"
                "\n",
                93),
            3, 20, "NUL byte");
        addMalformed(
            "nesting too deep",
            std::string(
                "class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[2]\"):\n        y = "
                "torch.ops.aten.foo.default([[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["
                "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["
                "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]"
                "]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]"
                "]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]])\n        return (y,)\n",
                555),
            3, 240, "nested too deeply");
        addMalformed("missing forward body",
                     std::string("class GraphModule(torch.nn.Module):\n    def forward(self, x):\nclass "
                                 "Other(torch.nn.Module):\n    pass\n",
                                 101),
                     3, 1, "expected an indented forward body");
        addMalformed("operator without operand",
                     std::string("class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[2]\"):\n        "
                                 "y = x + \n        return (y,)\n",
                                 109),
                     3, 17, "expected a value");
        addMalformed("bad deletion list",
                     std::string("class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[2]\"):\n        "
                                 "y = torch.ops.aten.sin.default(x);  x = 3\n        return (y,)\n",
                                 142),
                     3, 49, "deletion list");
        addMalformed("garbage at module level", std::string("print(1 +)\n", 11), 1, 1, "expected 'class' or 'def'");
    }

    void malformed()
    {
        QFETCH(std::string, text);
        QFETCH(int, line);
        QFETCH(int, column);
        QFETCH(QString, message);
        try {
            Graph g = parseFxText(text, "bad.py");
            QFAIL("expected an InputError");
        } catch (const InputError& e) {
            const Diagnostic& d = e.diagnostic();
            QCOMPARE(d.file, std::string("bad.py"));
            QVERIFY2(QString::fromStdString(d.message).contains(message), d.message.c_str());
            QCOMPARE(d.line, line);
            QCOMPARE(d.column, column);
        }
    }

    // Summary comments alone: the forms of §2.7.
    void summaryComments()
    {
        NodeMeta m;
        QVERIFY(parseSummaryComment(" # File: /a/b.py:12 in fn, code: x = y  # note", m));
        QCOMPARE(m.source.file, std::string("/a/b.py"));
        QCOMPARE(m.source.line, 12);
        QCOMPARE(m.source.code, std::string("x = y  # note"));
        NodeMeta c;
        QVERIFY(parseSummaryComment("#{ Annotation: {'a': 1}} File: C:/w/x.py:3 in <lambda>, code: q", c));
        QCOMPARE(c.custom["a"].get<int>(), 1);
        QCOMPARE(c.source.file, std::string("C:/w/x.py"));
        QCOMPARE(c.source.function, std::string("<lambda>"));
        NodeMeta n;
        QVERIFY(!parseSummaryComment("# graph id: 139869766265856", n));
        QVERIFY(!parseSummaryComment("# Copyright (c) 2025", n));
        NodeMeta t;
        QVERIFY(parseSummaryComment(
            "# Annotation: {'x': 'truncated val...', 'y': <object at 0x1>} No stacktrace found for following nodes",
            t));
        QVERIFY(t.custom.is_string());  // not a Python literal: kept as text
        QCOMPARE(formatSummaryComment(t),
                 std::string("# Annotation: {'x': 'truncated val...', 'y': <object at 0x1>} No stacktrace found for "
                             "following nodes"));
        QCOMPARE(formatSummaryComment(NodeMeta{}), std::string("# No stacktrace found for following nodes"));
        // recompute tags as PyTorch prints them: after '#' or the annotation, never "# # ..."
        NodeMeta r;
        r.recompute = Recompute::PreferRecompute;
        r.acGraphId = 0;
        QCOMPARE(formatSummaryComment(r),
                 std::string("# ac_graph_id: 0 - PREFER_RECOMPUTE No stacktrace found for following nodes"));
        r.acGraphId.reset();
        r.recompute = Recompute::MustSave;
        r.custom = nlohmann::json::parse(R"({"a": 1})");
        r.source.file = "/a/b.py";
        r.source.line = 3;
        r.source.function = "f";
        r.source.code = "y = x";
        QCOMPARE(formatSummaryComment(r),
                 std::string("# Annotation: {'a': 1} recompute: MUST_SAVE File: /a/b.py:3 in f, code: y = x"));
        r.custom = nullptr;
        r.acGraphId = 2;
        r.recompute = Recompute::None;
        QCOMPARE(formatSummaryComment(r), std::string("# ac_graph_id: 2 File: /a/b.py:3 in f, code: y = x"));
        NodeMeta back;  // and it reads back
        QVERIFY(parseSummaryComment(formatSummaryComment(r), back));
        QCOMPARE(back.acGraphId.value_or(-1), 2);
        QCOMPARE(back.source.line, 3);

        // fxlens' own tag: module path, phase, provenance (when not the node's own name), chunk
        NodeMeta f = r;
        f.modulePath = "layers.0.attn";
        f.phase = Phase::Backward;
        f.provenance = "mm";
        f.chunk = nlohmann::json::parse(R"({"dim": 0, "need_sum": false})");
        const std::string text = formatSummaryComment(f, "mm_recomputed");
        QCOMPARE(text,
                 std::string("# fxlens: {'chunk': {'dim': 0, 'need_sum': False}, 'module': 'layers.0.attn', "
                             "'phase': 'backward', 'provenance': 'mm'} # ac_graph_id: 2 File: /a/b.py:3 in f, "
                             "code: y = x"));
        NodeMeta fb;
        QVERIFY(parseSummaryComment(text, fb));
        QCOMPARE(fb.modulePath, f.modulePath);
        QCOMPARE(fb.phase, Phase::Backward);
        QCOMPARE(fb.provenance, std::string("mm"));
        QCOMPARE(fb.chunk, f.chunk);
        QCOMPARE(fb.acGraphId.value_or(-1), 2);
        QCOMPARE(fb.source.line, 3);
        // a provenance equal to the node's name is not written
        QVERIFY(formatSummaryComment(f, "mm").find("provenance") == std::string::npos);
        // fields this version does not know, or a phase it does not know: not a summary
        NodeMeta bad;
        QVERIFY(!parseSummaryComment("# fxlens: {'colour': 'red'} # No stacktrace found for following nodes", bad));
        QVERIFY(!parseSummaryComment("# fxlens: {'phase': 'sideways'} # No stacktrace found for following nodes", bad));
        QVERIFY(!parseSummaryComment("# fxlens: {'module': 'a' # No stacktrace found for following nodes", bad));
    }
};

FXL_TEST_APPLESS_MAIN(TestFxText)
}  // namespace test_fx_text
#include "test_fx_text.moc"
