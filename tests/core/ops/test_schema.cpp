// Operator schemas: the grammar (alias annotations, types and returns, errors) and defaults.
#include <QtTest>

#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include "core/ir/diagnostics.hpp"
#include "core/ir/graph.hpp"
#include "core/ops/op_registry.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_schema {

using namespace fxl;
namespace fs = std::filesystem;

class TestSchema : public QObject
{
    Q_OBJECT

private slots:
    // ---- the grammar
    void parseAliasAnnotations()
    {
        Schema s =
            parseSchema("split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]", "aten");
        QCOMPARE(s.name, std::string("split"));
        QCOMPARE(s.overload, std::string("Tensor"));
        QCOMPARE(s.qualifiedName(), std::string("aten.split.Tensor"));
        QCOMPARE(s.args.size(), size_t(3));
        QCOMPARE(s.args[0].type, std::string("Tensor"));
        QVERIFY(s.args[0].alias);
        QCOMPARE(s.args[0].alias->set, std::string("a"));
        QVERIFY(s.args[0].alias->toWildcard);
        QVERIFY(!s.args[0].alias->isWrite);
        QCOMPARE(s.args[2].defaultText.value(), std::string("0"));
        QCOMPARE(s.returns.size(), size_t(1));
        QCOMPARE(s.returns[0].type, std::string("Tensor[]"));
        QCOMPARE(s.returns[0].alias->set, std::string("a"));

        Schema w = parseSchema("add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)", "aten");
        QVERIFY(w.args[0].alias->isWrite);
        QVERIFY(!w.args[1].kwargOnly);
        QVERIFY(w.args[2].kwargOnly);
        QCOMPARE(w.args[2].type, std::string("Scalar"));
        QVERIFY(w.returns[0].alias->isWrite);

        Schema l =
            parseSchema("_foreach_copy_(Tensor(a!)[] self, Tensor[] src, bool non_blocking=False) -> ()", "aten");
        QCOMPARE(l.args[0].type, std::string("Tensor[]"));
        QVERIFY(l.args[0].alias->isWrite);
        QVERIFY(l.returns.empty());
        QCOMPARE(l.overload, std::string("default"));
    }

    void parseTypesAndReturns()
    {
        Schema s = parseSchema(
            "sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
            "aten");
        QCOMPARE(s.args[1].type, std::string("int[1]?"));
        QVERIFY(!s.args[1].defaultText);
        QCOMPARE(s.args[3].type, std::string("ScalarType?"));
        QVERIFY(s.args[3].kwargOnly);

        Schema i = parseSchema("index.Tensor(Tensor self, Tensor?[] indices) -> Tensor", "aten");
        QCOMPARE(i.args[1].type, std::string("Tensor?[]"));

        Schema c =
            parseSchema("convolution_backward(Tensor grad_output, Tensor input, Tensor weight, SymInt[]? bias_sizes, "
                        "SymInt[] stride, SymInt[] padding, SymInt[] dilation, bool transposed, SymInt[] "
                        "output_padding, SymInt groups, bool[3] output_mask) -> (Tensor, Tensor, Tensor)",
                        "aten");
        QCOMPARE(c.args.size(), size_t(11));
        QCOMPARE(c.args[10].type, std::string("bool[3]"));
        QCOMPARE(c.returns.size(), size_t(3));
        QVERIFY(c.returns[2].name.empty());

        Schema f =
            parseSchema("_scaled_dot_product_flash_attention_for_cpu(Tensor query, Tensor key, Tensor value, float "
                        "dropout_p=0.0, bool is_causal=False, *, Tensor? attn_mask=None, float? scale=None) -> "
                        "(Tensor output, Tensor logsumexp)",
                        "aten");
        QCOMPARE(f.returns.size(), size_t(2));
        QCOMPARE(f.returns[0].name, std::string("output"));
        QCOMPARE(f.returns[1].name, std::string("logsumexp"));
        QCOMPARE(f.argIndex("attn_mask"), 5);
        QCOMPARE(f.argIndex("nope"), -1);

        Schema g = parseSchema("gelu(Tensor self, *, str approximate='none') -> Tensor", "aten");
        QCOMPARE(g.args[1].defaultText.value(), std::string("'none'"));

        Schema m = parseSchema(
            "contiguous(Tensor(a) self, *, MemoryFormat memory_format=contiguous_format) -> Tensor(a)", "aten");
        QCOMPARE(m.args[1].defaultText.value(), std::string("contiguous_format"));

        Schema ns = parseSchema("aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", "");
        QCOMPARE(ns.qualifiedName(), std::string("aten.add.Tensor"));

        Schema d = parseSchema("f(Dict(str, Tensor) d, Tensor(a)? t=None, str s=\"a,b)\") -> Dict(str, Tensor)", "x");
        QCOMPARE(d.args[0].type, std::string("Dict(str, Tensor)"));
        QCOMPARE(d.args[1].type, std::string("Tensor?"));
        QCOMPARE(d.args[1].alias->set, std::string("a"));
        QCOMPARE(d.args[2].defaultText.value(), std::string("\"a,b)\""));
        QCOMPARE(d.returns[0].type, std::string("Dict(str, Tensor)"));

        Schema sym = parseSchema("sym_size.int(Tensor self, int dim) -> SymInt", "aten");
        QCOMPARE(sym.returns[0].type, std::string("SymInt"));

        Schema v =
            parseSchema("invoke_subgraph(GraphModule subgraph, str identifier, *operands) -> tuple", "higher_order");
        QVERIFY(v.varargs);
        QVERIFY(!v.informal);
        QCOMPARE(v.args.size(), size_t(2));
        QCOMPARE(v.returns[0].type, std::string("tuple"));

        Schema kwv = parseSchema("with_effects(Tensor token, OpOverload op, *args, **kwargs) -> Any", "higher_order");
        QVERIFY(kwv.varargs);
        QCOMPARE(kwv.args.size(), size_t(2));

        Schema dots = parseSchema("format(str self, ...) -> str", "aten");
        QVERIFY(dots.varargs);

        Schema untyped = parseSchema("cond(pred, GraphModule true_fn, GraphModule false_fn, tuple operands) -> tuple",
                                     "higher_order");
        QCOMPARE(untyped.args[0].name, std::string("pred"));
        QCOMPARE(untyped.args[0].type, std::string("Any"));
    }

    void parseErrors_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("column");
        QTest::addColumn<QString>("fragment");
        QTest::newRow("empty") << "" << 1 << "expected an operator name";
        QTest::newRow("no parens") << "mm -> Tensor" << 4 << "expected '('";
        QTest::newRow("unclosed args") << "mm(Tensor self, Tensor mat2" << 28 << "expected ',' or ')'";
        QTest::newRow("missing comma") << "mm(Tensor self Tensor mat2) -> Tensor" << 16 << "expected ',' or ')'";
        QTest::newRow("type without name")
            << "mm(Tensor, Tensor) -> Tensor" << 10 << "expected an argument name after type 'Tensor'";
        QTest::newRow("unclosed alias") << "view(Tensor(a self) -> Tensor(a)" << 15
                                        << "expected ')' to close the alias annotation";
        QTest::newRow("alias arrow") << "f(Tensor(a -> b) x) -> Tensor" << 15 << "expected '*' after '->'";
        QTest::newRow("empty alias") << "f(Tensor() x) -> Tensor" << 10 << "expected an alias set";
        QTest::newRow("empty default") << "f(int x=) -> int" << 9 << "expected a default value";
        QTest::newRow("unbalanced default") << "f(int[] x=[1) -> int" << 13 << "unbalanced";
        QTest::newRow("unterminated string") << "f(str x='a) -> int" << 9 << "unterminated string";
        QTest::newRow("two stars") << "f(*, int a, *, int x) -> int" << 13 << "a second '*'";
        QTest::newRow("after kwargs") << "f(**kw, int x) -> int" << 9 << "nothing may follow '**kwargs'";
        QTest::newRow("duplicate arg") << "f(int x, int x) -> int" << 10 << "duplicate argument name 'x'";
        QTest::newRow("no arrow") << "f(int x) Tensor" << 10 << "expected '->'";
        QTest::newRow("junk after returns")
            << "f(int x) -> Tensor junk more" << 25 << "unexpected text after the returns";
        QTest::newRow("returns unclosed")
            << "f(int x) -> (Tensor, Tensor" << 28 << "expected ',' or ')' in the returns";
        QTest::newRow("no type") << "f(int x) -> " << 13 << "expected a type";
        QTest::newRow("list unclosed") << "f(int[3 x) -> int" << 9 << "expected ']'";
        QTest::newRow("overload missing") << "f.(int x) -> int" << 3 << "expected an overload name";
    }

    void parseErrors()
    {
        QFETCH(QString, text);
        QFETCH(int, column);
        QFETCH(QString, fragment);
        try {
            parseSchema(text.toStdString(), "aten");
            QFAIL("no error");
        } catch (const InputError& e) {
            QString msg = QString::fromStdString(e.diagnostic().message);
            QVERIFY2(msg.contains(fragment), qPrintable(msg));
            QCOMPARE(e.diagnostic().column, column);
            QCOMPARE(e.diagnostic().line, 1);
        }
    }

    // ---- defaults
    void defaults_data()
    {
        QTest::addColumn<QString>("argDecl");
        QTest::addColumn<QString>("expectKind");
        QTest::addColumn<QString>("expectText");
        QTest::newRow("none") << "Tensor? bias=None"
                              << "None"
                              << "";
        QTest::newRow("int") << "int dim=-1"
                             << "Int"
                             << "-1";
        QTest::newRow("int max") << "SymInt end=9223372036854775807"
                                 << "Int"
                                 << "9223372036854775807";
        QTest::newRow("int min") << "int low=-9223372036854775808"
                                 << "Int"
                                 << "-9223372036854775808";
        QTest::newRow("float") << "float p=0.5"
                               << "Float"
                               << "0.5";
        QTest::newRow("float exp") << "float eps=1e-05"
                                   << "Float"
                                   << "1e-05";
        QTest::newRow("float from int") << "float scale=1"
                                        << "Float"
                                        << "1";
        QTest::newRow("scalar int") << "Scalar alpha=1"
                                    << "Int"
                                    << "1";
        QTest::newRow("bool") << "bool keepdim=False"
                              << "Bool"
                              << "false";
        QTest::newRow("true") << "bool sorted=True"
                              << "Bool"
                              << "true";
        QTest::newRow("empty list") << "int[1] dim=[]"
                                    << "List"
                                    << "";
        QTest::newRow("list") << "int[] dims=[0,1]"
                              << "List"
                              << "0,1";
        QTest::newRow("repeat") << "int[2] stride=1"
                                << "List"
                                << "1,1";
        QTest::newRow("tuple") << "tuple bufs=()"
                               << "Tuple"
                               << "";
        QTest::newRow("str single") << "str approximate='none'"
                                    << "Str"
                                    << "none";
        QTest::newRow("str double") << "str reduce=\"mean\""
                                    << "Str"
                                    << "mean";
        QTest::newRow("memory format") << "MemoryFormat memory_format=contiguous_format"
                                       << "MemoryFormat"
                                       << "contiguous_format";
        QTest::newRow("reduction") << "int reduction=Mean"
                                   << "Int"
                                   << "1";
        QTest::newRow("dtype") << "ScalarType? dtype=long"
                               << "DType"
                               << "int64";
        QTest::newRow("layout") << "Layout? layout=strided"
                                << "Layout"
                                << "strided";
        QTest::newRow("device") << "Device? device=\"cpu\""
                                << "Device"
                                << "cpu";
        QTest::newRow("inf") << "float max=inf"
                             << "Float"
                             << "inf";
        QTest::newRow("raw") << "Any x=some.thing"
                             << "Raw"
                             << "some.thing";
    }

    void defaults()
    {
        QFETCH(QString, argDecl);
        QFETCH(QString, expectKind);
        QFETCH(QString, expectText);
        Schema s = parseSchema("f(" + argDecl.toStdString() + ") -> ()", "t");
        QCOMPARE(s.args.size(), size_t(1));
        Arg a = parseDefaultValue(s.args[0]);
        auto text = [](const Arg& v) -> std::string {
            switch (v.kind) {
            case Arg::Kind::Int: return std::to_string(v.i);
            case Arg::Kind::Float: return pythonFloatRepr(v.f);
            case Arg::Kind::Bool: return v.b ? "true" : "false";
            case Arg::Kind::DType: return std::string(dtypeTorchName(v.dtype));
            default: return v.s;
            }
        };
        std::map<Arg::Kind, QString> kinds = {{Arg::Kind::None, "None"},     {Arg::Kind::Int, "Int"},
                                              {Arg::Kind::Float, "Float"},   {Arg::Kind::Bool, "Bool"},
                                              {Arg::Kind::List, "List"},     {Arg::Kind::Tuple, "Tuple"},
                                              {Arg::Kind::Str, "Str"},       {Arg::Kind::MemoryFormat, "MemoryFormat"},
                                              {Arg::Kind::DType, "DType"},   {Arg::Kind::Layout, "Layout"},
                                              {Arg::Kind::Device, "Device"}, {Arg::Kind::Raw, "Raw"}};
        QCOMPARE(kinds[a.kind], expectKind);
        if (a.isSequence()) {
            std::string joined;
            for (size_t i = 0; i < a.items.size(); ++i) joined += (i ? "," : "") + text(a.items[i]);
            QCOMPARE(QString::fromStdString(joined), expectText);
        } else if (a.kind == Arg::Kind::Float && expectText == "1") {
            QCOMPARE(a.f, 1.0);
        } else if (!a.isNone()) {
            QCOMPARE(QString::fromStdString(text(a)), expectText);
        }
        SchemaArg none;
        QVERIFY(parseDefaultValue(none).isNone());
    }
};

FXL_TEST_APPLESS_MAIN(TestSchema)
}  // namespace test_schema
#include "test_schema.moc"
