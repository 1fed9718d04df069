// fxlens JSON: lossless round trips (hand-built graphs with every kind of argument, value
// and meta; every corpus graph), error messages with JSON pointers and positions, atomic
// writes, and the example in docs/json_format.md.
#include <QtTest>

#include <bit>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "core/formats/fx/fx_text_parser.hpp"
#include "core/formats/json_io.hpp"
#include "core/ir/diagnostics.hpp"
#include "core/ir/graph.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_json_io {

using namespace fxl;
namespace fs = std::filesystem;

namespace {

using fxltest::readFile;

SymInt sym(const char* text, std::optional<int64_t> hint) { return SymInt(SymExpr::parse(text), hint); }

TensorMeta tensor(DType dt, std::vector<SymInt> sizes, std::vector<SymInt> strides, std::string device)
{
    TensorMeta t;
    t.dtype = dt;
    t.sizes = std::move(sizes);
    t.strides = std::move(strides);
    t.device = std::move(device);
    return t;
}

Arg slice(Arg a, Arg b, Arg c)
{
    Arg s;
    s.kind = Arg::Kind::Slice;
    s.items = {std::move(a), std::move(b), std::move(c)};
    return s;
}

Arg ellipsis()
{
    Arg e;
    e.kind = Arg::Kind::Ellipsis;
    return e;
}

Arg dict(std::vector<ArgPair> kv)
{
    Arg d;
    d.kind = Arg::Kind::Dict;
    d.dict = std::move(kv);
    return d;
}

Node mk(std::string name, NodeOp op, std::string target, std::vector<Arg> args = {},
        std::vector<std::pair<std::string, Arg>> kwargs = {})
{
    Node n;
    n.name = std::move(name);
    n.op = op;
    n.target = std::move(target);
    n.args = std::move(args);
    n.kwargs = std::move(kwargs);
    return n;
}

// A graph that uses every Arg kind, every ValueMeta kind, every NodeMeta field, placeholder
// defaults, type expressions, every graph-level field, a removed node (ids with a hole) and
// two levels of nested graphs.
Graph kitchenSink()
{
    Graph inner2;
    inner2.className = "GraphModule";
    inner2.signature = SignatureStyle::Plain;
    NodeId a = inner2.addNode(mk("a", NodeOp::Placeholder, "a"));
    inner2.addNode(mk("output", NodeOp::Output, "output", {Arg::ofTuple({Arg::ofNode(a)})}));
    inner2.rebuildUsers();

    Graph inner;
    inner.className = "repeated_subgraph0";
    inner.signature = SignatureStyle::Expanded;
    Node ix = mk("x", NodeOp::Placeholder, "x");  // same name as a node of the outer graph
    ix.val = ValueMeta::ofTensor(tensor(DType::BF16, {8}, {1}, "cuda:0"));
    ix.meta.desc = "PlainAOTInput(idx=0)";
    NodeId x = inner.addNode(ix);
    NodeId sub = inner.addNode(mk("body", NodeOp::GetAttr, "body"));
    NodeId call = inner.addNode(mk("invoke", NodeOp::CallFunction, "higher_order.invoke_subgraph",
                                   {Arg::ofNode(sub), Arg::ofStr("subgraph_0"), Arg::ofNode(x)}));
    NodeId gi =
        inner.addNode(mk("getitem", NodeOp::CallFunction, "operator.getitem", {Arg::ofNode(call), Arg::ofInt(0)}));
    inner.addNode(mk("output", NodeOp::Output, "output", {Arg::ofTuple({Arg::ofNode(gi)})}));
    inner.subgraphs["body"] = std::make_shared<Graph>(std::move(inner2));
    inner.rebuildUsers();

    Graph g;
    g.className = "inner_f";
    g.signature = SignatureStyle::Pytree;
    g.pytreeArgNames = {"primals", "tangents"};
    g.outputPytree = true;
    g.outputIsList = true;
    g.outputDescs = {"PlainAOTOutput(idx=0)", "", "GradAOTOutput(grad_of=PlainAOTInput(idx=0))", "None", "x"};

    Node px = mk("primals_1", NodeOp::Placeholder, "primals_1");
    TensorMeta tx = tensor(DType::F32, {sym("s0", 8), 4}, {4, 1}, "cuda:0");
    px.val = ValueMeta::ofTensor(tx);
    px.meta.desc = "PlainAOTInput(idx=0)";
    NodeId p1 = g.addNode(px);

    Node ps = mk("primals_2", NodeOp::Placeholder, "primals_2");
    ps.val.kind = ValueMeta::Kind::SymInt;
    ps.val.sym = SymExpr::parse("s0");
    ps.val.symHint = 8;
    ps.placeholderDefault = Arg::ofFloat(1.5);
    NodeId p2 = g.addNode(ps);

    Node pz = mk("l_z_", NodeOp::Placeholder, "L_z_");
    pz.typeExpr = "torch.Tensor";
    pz.placeholderDefault = Arg::ofStr("quote ' and \" and \\ and\nnewline, unicode h\xc3\xa9llo, tab\t");
    NodeId p3 = g.addNode(pz);

    NodeId dead = g.addNode(mk("dead", NodeOp::CallFunction, "aten.relu.default", {Arg::ofNode(p1)}));

    Node pn = mk("none_default", NodeOp::Placeholder, "none_default");
    pn.placeholderDefault = Arg::none();  // "x=None" is a default, unlike no default
    NodeId p4 = g.addNode(pn);

    NodeId ga = g.addNode(mk("repeated_subgraph0", NodeOp::GetAttr, "repeated_subgraph0"));

    uint64_t payloadNan = 0x7ff4000000000001ULL, negNan = 0xfff8000000000000ULL;
    std::vector<Arg> every = {
        Arg::none(),
        Arg::ofNode(p1),
        Arg::ofInt(std::numeric_limits<int64_t>::max()),
        Arg::ofInt(std::numeric_limits<int64_t>::min()),
        Arg::ofInt(-1),
        Arg::ofFloat(1e-05),
        Arg::ofFloat(0.1),
        Arg::ofFloat(3.0),
        Arg::ofFloat(-0.0),
        Arg::ofFloat(0.0),
        Arg::ofFloat(std::numeric_limits<double>::infinity()),
        Arg::ofFloat(-std::numeric_limits<double>::infinity()),
        Arg::ofFloat(std::numeric_limits<double>::quiet_NaN()),
        Arg::ofFloat(std::bit_cast<double>(payloadNan)),
        Arg::ofFloat(std::bit_cast<double>(negNan)),
        Arg::ofFloat(std::numeric_limits<double>::denorm_min()),
        Arg::ofFloat(std::numeric_limits<double>::max()),
        Arg::ofFloat(0.7071067811865476),
        Arg::ofFloat(1e16),
        Arg::ofBool(true),
        Arg::ofBool(false),
        Arg::ofStr(""),
        Arg::ofStr("0"),  // the string '0', not the int 0
        Arg::ofStr("sum"),
        Arg::ofList({Arg::ofNode(p1), Arg::ofInt(2), Arg::none()}),
        Arg::ofList({}),
        Arg::ofTuple({}),
        Arg::ofTuple({Arg::ofNode(p2)}),
        Arg::ofTuple({Arg::ofList({Arg::ofTuple({Arg::ofInt(1), Arg::ofFloat(2.5)})})}),
        dict({{Arg::ofStr("PRESCALE_QK"), Arg::ofBool(false)},
              {Arg::ofStr("BACKEND"), Arg::ofStr("AUTO")},
              {Arg::ofInt(3), Arg::ofNode(p3)}}),
        dict({}),
        Arg::ofDType(DType::BF16),
        Arg::ofDType(DType::F8E4M3FN),
        Arg::ofDType(DType::Undefined),
        Arg::ofDevice("cuda:0"),
        Arg::ofDevice("cpu"),
        Arg::ofLayout("strided"),
        Arg::ofMemoryFormat("channels_last"),
        Arg::ofOp("fsdp.split_with_sizes_copy.default"),
        slice(Arg::none(), Arg::ofInt(2), Arg::none()),
        ellipsis(),
        Arg::ofRaw("torch.Tensor(size=[2], dtype=float32)"),
        Arg::ofNode(ga),
    };
    Node big = mk("kitchen_sink", NodeOp::CallFunction, "test.everything.default", every,
                  {{"dtype", Arg::ofDType(DType::F16)},
                   {"device", Arg::ofDevice("cuda:1")},
                   {"alpha", Arg::ofFloat(-2.5e-300)},
                   {"nested", Arg::ofList({Arg::ofTuple({Arg::ofNode(p4), Arg::ofStr("x")})})}});
    ValueMeta tup;
    tup.kind = ValueMeta::Kind::Tuple;
    ValueMeta wrapped = ValueMeta::ofTensor(tensor(DType::F32, {3, 4}, {}, ""));
    wrapped.wrapperPrefix = "TwoTensor(";
    wrapped.wrapperSuffix = ")";
    TensorMeta offs =
        tensor(DType::I64, {sym("2*s0 + 1", 17), sym("((u0//3))", std::nullopt)}, {sym("s1", 5), 1}, "cpu");
    offs.storageOffset = sym("s2", 3);
    ValueMeta sf, sb, op, none;
    sf.kind = ValueMeta::Kind::SymFloat;
    sf.sym = SymExpr::parse("s1 - 1.0");
    sb.kind = ValueMeta::Kind::SymBool;
    sb.sym = SymExpr::parse("u0 >= 0");
    sb.symHint = 1;
    op.kind = ValueMeta::Kind::Opaque;
    op.opaqueText = "DTensor(f32[8, 4], S(0))";
    none.kind = ValueMeta::Kind::None;
    ValueMeta scalar0d = ValueMeta::ofTensor(tensor(DType::F32, {}, {}, "cuda:0"));
    tup.elems = {ValueMeta::ofTensor(offs),
                 ValueMeta::unknown(),
                 none,
                 sf,
                 sb,
                 op,
                 wrapped,
                 scalar0d,
                 ValueMeta::ofTuple({ValueMeta::ofTensor(tensor(DType::Bool, {1}, {1}, "meta"))})};
    big.val = tup;
    big.meta.modulePath = "blocks.0.attn";
    big.meta.source = {"/x/model.py", 42, "forward", "y = torch.sin(self.param)"};
    big.meta.recompute = Recompute::PreferRecompute;
    big.meta.acGraphId = 6;
    big.meta.custom = nlohmann::json{{"module_fqn", "layers.0"}, {"is_fusible", true}, {"n", 3}, {"f", 0.5}};
    big.meta.phase = Phase::Backward;
    big.meta.autogradBackward = true;
    big.meta.desc = "GradAOTOutput(grad_of=PlainAOTInput(idx=0))";
    big.meta.provenance = "mm_3";
    big.meta.chunk = nlohmann::json{{"dim", 0}, {"chunks", 4}};
    NodeId k = g.addNode(big);

    Node m = mk("relu_1", NodeOp::CallMethod, "relu", {Arg::ofNode(p1)});
    m.meta.autogradBackward = false;  // false is not absent
    m.meta.acGraphId = 0;
    m.meta.phase = Phase::Loss;
    m.meta.recompute = Recompute::MustSave;
    NodeId rm = g.addNode(m);
    Node cm = mk("linear", NodeOp::CallModule, "layers.0.linear", {Arg::ofNode(rm)});
    cm.meta.source.line = 7;  // a location without a file
    NodeId lin = g.addNode(cm);
    Node sym1 = mk("sym_size_int", NodeOp::CallFunction, "aten.sym_size.int", {Arg::ofNode(p1), Arg::ofInt(0)});
    sym1.val.kind = ValueMeta::Kind::SymInt;
    sym1.val.sym = SymExpr::parse("Max(1, s0)");
    NodeId si = g.addNode(sym1);
    Node out = mk("output", NodeOp::Output, "output",
                  {Arg::ofList({Arg::ofNode(k), Arg::ofNode(lin), Arg::ofNode(si), Arg::none(), Arg::ofNode(p1)})});
    out.meta.desc = "output";
    g.addNode(out);
    g.removeNode(dead);
    g.subgraphs["repeated_subgraph0"] = std::make_shared<Graph>(std::move(inner));
    g.rebuildUsers();
    return g;
}

// structurallyEqual leaves out the graph-level printing fields and SymInt hints; lossless
// means those too.
void expectSameGraphFields(const Graph& a, const Graph& b, const std::string& where)
{
    QVERIFY2(a.signature == b.signature, (where + ": signature").c_str());
    QVERIFY2(a.pytreeArgNames == b.pytreeArgNames, (where + ": pytreeArgNames").c_str());
    QVERIFY2(a.outputPytree == b.outputPytree, (where + ": outputPytree").c_str());
    QVERIFY2(a.outputIsList == b.outputIsList, (where + ": outputIsList").c_str());
    QVERIFY2(a.outputDescs == b.outputDescs, (where + ": outputDescs").c_str());
    auto hints = [](const std::vector<SymInt>& v) {
        std::vector<std::optional<int64_t>> h;
        for (const auto& s : v) h.push_back(s.hint());
        return h;
    };
    std::function<void(const ValueMeta&, const ValueMeta&, const std::string&)> sameHints =
        [&](const ValueMeta& x, const ValueMeta& y, const std::string& w) {
            QVERIFY2(x.symHint == y.symHint, (w + ": symHint").c_str());
            QVERIFY2(hints(x.tensor.sizes) == hints(y.tensor.sizes), (w + ": size hints").c_str());
            QVERIFY2(hints(x.tensor.strides) == hints(y.tensor.strides), (w + ": stride hints").c_str());
            QVERIFY2(x.tensor.storageOffset.hint() == y.tensor.storageOffset.hint(), (w + ": offset hint").c_str());
            QCOMPARE(x.elems.size(), y.elems.size());
            for (size_t i = 0; i < x.elems.size(); ++i) sameHints(x.elems[i], y.elems[i], w);
        };
    QCOMPARE(a.order().size(), b.order().size());
    for (size_t i = 0; i < a.order().size(); ++i) {
        const Node& na = a.node(a.order()[i]);
        const Node& nb = b.node(b.order()[i]);
        sameHints(na.val, nb.val, where + " node " + na.name);
        if (QTest::currentTestFailed()) return;
    }
    for (const auto& [name, sg] : a.subgraphs) {
        expectSameGraphFields(*sg, *b.subgraphs.at(name), where + "/" + name);
        if (QTest::currentTestFailed()) return;
    }
}

void expectRoundTrip(const Graph& g, const std::string& label)
{
    std::string why;
    // through the json value
    const nlohmann::json j = graphToJson(g);
    Graph g2 = graphFromJson(j, label);
    QVERIFY2(g.structurallyEqual(g2, &why), (label + " (json value): " + why).c_str());
    expectSameGraphFields(g, g2, label);
    if (QTest::currentTestFailed()) return;
    // through the text layout, which is the same document as the json value
    const std::string text = formatGraphJson(g);
    QVERIFY2(nlohmann::json::parse(text) == j, (label + ": formatGraphJson and graphToJson differ").c_str());
    Graph g3 = parseGraphJson(text, label);
    QVERIFY2(g.structurallyEqual(g3, &why), (label + " (text): " + why).c_str());
    expectSameGraphFields(g, g3, label);
    if (QTest::currentTestFailed()) return;
    // the writer is deterministic: a second round gives the same bytes
    QVERIFY2(formatGraphJson(g3) == text, (label + ": the text differs after a round trip").c_str());
    // one node per line
    size_t lines = static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
    QVERIFY2(lines >= g.size(), (label + ": expected at least one line per node").c_str());
}

struct LineCol
{
    int line, column;
};
LineCol lineColOf(const std::string& text, size_t off)
{
    LineCol lc{1, 1};
    for (size_t i = 0; i < off; ++i) {
        if (text[i] == '\n') {
            ++lc.line;
            lc.column = 1;
        } else {
            ++lc.column;
        }
    }
    return lc;
}

// A small valid document; the bad cases below edit it.
const char* kGood = R"({"format": "fxlens-graph", "version": 1,
"graph": {"class_name": "GraphModule", "signature": "flat",
  "nodes": [
    {"name": "x", "op": "placeholder", "target": "x", "args": [], "kwargs": []},
    {"name": "mm", "op": "call_function", "target": "aten.mm.default", "args": [{"node": "x"}, {"node": "x"}], "kwargs": []},
    {"name": "output", "op": "output", "target": "output", "args": [{"tuple": [{"node": "mm"}]}], "kwargs": []}
  ]}}
)";

std::string edit(std::string_view from, std::string_view to)
{
    std::string s = kGood;
    size_t p = s.find(from);
    if (p == std::string::npos) qFatal("test bug: '%s' not in the base document", std::string(from).c_str());
    s.replace(p, from.size(), to);
    return s;
}

}  // namespace

class TestJsonIo : public QObject
{
    Q_OBJECT

private slots:
    void kitchenSinkRoundTrip()
    {
        Graph g = kitchenSink();
        expectRoundTrip(g, "kitchen sink");
    }

    void specialFloatsAreBitExact()
    {
        Graph g = kitchenSink();
        Graph back = parseGraphJson(formatGraphJson(g), "<mem>");
        const Node& a = g.node(g.findByName("kitchen_sink"));
        const Node& b = back.node(back.findByName("kitchen_sink"));
        QCOMPARE(a.args.size(), b.args.size());
        int floats = 0;
        for (size_t i = 0; i < a.args.size(); ++i) {
            if (a.args[i].kind != Arg::Kind::Float) continue;
            ++floats;
            QCOMPARE(b.args[i].kind, Arg::Kind::Float);
            QCOMPARE(std::bit_cast<uint64_t>(b.args[i].f), std::bit_cast<uint64_t>(a.args[i].f));
        }
        QVERIFY(floats >= 14);
        // and the spelling is the documented one
        nlohmann::json j = graphToJson(g);
        const auto& args = j["graph"]["nodes"][5]["args"];
        QCOMPARE(args[5].dump(), std::string(R"({"float":"1e-05"})"));
        QCOMPARE(args[8].dump(), std::string(R"({"float":"-0.0"})"));
        QCOMPARE(args[11].dump(), std::string(R"({"float":"-inf"})"));
        QCOMPARE(args[12].dump(), std::string(R"({"float":"nan"})"));
        QCOMPARE(args[13].dump(), std::string(R"({"float":"nan:0x7ff4000000000001"})"));
    }

    void writerShape()
    {
        Graph g = kitchenSink();
        nlohmann::json j = graphToJson(g);
        QCOMPARE(j["format"].get<std::string>(), std::string("fxlens-graph"));
        QCOMPARE(j["version"].get<int>(), 2);
        const auto& nodes = j["graph"]["nodes"];
        QCOMPARE(nodes.size(), g.size());
        // removed nodes are not written; refs are by name
        for (const auto& n : nodes) QVERIFY(n["name"] != "dead");
        QCOMPARE(nodes[5]["args"][1].dump(), std::string(R"({"node":"primals_1"})"));
        QCOMPARE(nodes[5]["kwargs"][0].dump(), std::string(R"(["dtype",{"dtype":"float16"}])"));
        QCOMPARE(nodes[0]["val"]["sizes"][0].dump(), std::string(R"({"expr":"s0","hint":8})"));
        QCOMPARE(nodes[0]["val"]["sizes"][1].dump(), std::string("4"));
        QVERIFY(!nodes[5].contains("default"));
        QVERIFY(nodes[3].contains("default"));  // None default
        QVERIFY(nodes[3]["default"].is_null());
        QVERIFY(j["graph"]["subgraphs"]["repeated_subgraph0"]["subgraphs"].contains("body"));
        // a graph referring to a removed node cannot be written
        Graph bad;
        NodeId a = bad.addNode(mk("a", NodeOp::Placeholder, "a"));
        NodeId b = bad.addNode(mk("b", NodeOp::CallFunction, "aten.relu.default", {Arg::ofNode(a)}));
        bad.node(b).args[0] = Arg::ofNode(77);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, graphToJson(bad));
    }

    void emptyGraph()
    {
        Graph g;
        expectRoundTrip(g, "empty graph");
    }

    void corpusRoundTrip_data()
    {
        QTest::addColumn<QString>("path");
        std::vector<fs::path> files;
        for (const auto& [dir, suffix] :
             {std::pair{"pytorch", ".code.py"}, {"pytorch/large", ".code.py"}, {"fx", ".txt"}})
            for (const fs::path& f : fxltest::corpusFiles(dir, {suffix})) files.push_back(f);
        std::sort(files.begin(), files.end());
        for (const auto& f : files)
            QTest::newRow(fxltest::corpusRowName(f).c_str()) << QString::fromStdString(f.string());
    }

    void corpusRoundTrip()
    {
        QFETCH(QString, path);
        FXL_REQUIRE_CORPUS(path);
        const std::string p = path.toStdString();
        Graph g;
        try {
            DiagnosticList diags;
            g = parseFxText(readFile(p), p, 1, &diags);
        } catch (const InputError& e) {
            QFAIL(("parseFxText cannot read this file (not a JSON problem): " + std::string(e.what())).c_str());
        }
        QVERIFY(g.size() > 0);
        expectRoundTrip(g, p);
    }

    void badDocuments_data()
    {
        QTest::addColumn<QString>("text");  // "@@" marks where the error must be reported
        QTest::addColumn<QString>("expected");  // part of the message
        auto row = [](const char* name, const std::string& text, const char* expected) {
            QTest::newRow(name) << QString::fromStdString(text) << QString(expected);
        };
        row("syntax error", edit(R"("args": [], "kwargs": []},)", R"("args": [@@}, "kwargs": []},)"),
            "invalid JSON: syntax error");
        row("truncated", std::string(kGood).substr(0, 120), "invalid JSON");
        row("not an object", "@@[1, 2]", "(document): expected an fxlens graph document (a JSON object), got an array");
        row("wrong format", edit(R"("format": "fxlens-graph")", R"("format": @@"fxlens-grahp")"),
            "/format: expected \"fxlens-graph\", got \"fxlens-grahp\"");
        row("missing format", "@@" + edit(R"("format": "fxlens-graph", )", ""),
            "(document): missing required field \"format\"");
        row("unsupported version", edit(R"("version": 1)", R"("version": @@3)"),
            "/version: unsupported version 3 (this fxlens reads versions 1 to 2)");
        row("version 0", edit(R"("version": 1)", R"("version": @@0)"),
            "/version: unsupported version 0 (this fxlens reads versions 1 to 2)");
        row("version as string", edit(R"("version": 1)", R"("version": @@"1")"),
            "/version: expected an integer version");
        row("missing graph", "@@{\"format\": \"fxlens-graph\", \"version\": 1}",
            "(document): missing required field \"graph\"");
        row("unknown top-level field", edit(R"("version": 1,)", R"("version": 1, "comment": @@"hi",)"),
            "/comment: unknown field \"comment\"");
        row("misspelt nodes",
            edit(R"("graph": {"class_name": "GraphModule", "signature": "flat",)",
                 R"("graph": {"class_name": "GraphModule", "signature": "flat", "nodez": @@[],)"),
            "/graph/nodez: unknown field");
        row("bad signature", edit(R"("signature": "flat")", R"("signature": @@"fancy")"),
            "/graph/signature: unknown signature style \"fancy\"");
        row("node without name", edit(R"({"name": "mm", )", R"(@@{)"),
            "/graph/nodes/1: missing required field \"name\"");
        row("duplicate node name", edit(R"({"name": "mm",)", R"({"name": @@"x",)"),
            "/graph/nodes/1/name: duplicate node name \"x\" (first defined at /graph/nodes/0)");
        row("empty node name", edit(R"({"name": "mm",)", R"({"name": @@"",)"), "/graph/nodes/1/name: empty node name");
        row("undefined node", edit(R"([{"node": "x"}, {"node": "x"}])", R"([{"node": "x"}, {"node": @@"y"}])"),
            "/graph/nodes/1/args/1/node: undefined node \"y\"");
        row("unknown op", edit(R"("op": "call_function")", R"("op": @@"call_fn")"),
            "/graph/nodes/1/op: unknown node op \"call_fn\"");
        row("target not a string", edit(R"("target": "aten.mm.default")", R"("target": @@7)"),
            "/graph/nodes/1/target: expected a string, got an integer");
        row("float as a JSON number", edit(R"({"node": "x"}, {"node": "x"}])", R"({"node": "x"}, @@1.5])"),
            "/graph/nodes/1/args/1: a float argument is written as {\"float\": \"<repr>\"}");
        row("bad float text", edit(R"({"node": "x"}, {"node": "x"}])", R"({"node": "x"}, {"float": @@"1,5"}])"),
            "/graph/nodes/1/args/1/float: expected a float as Python prints it");
        row("number overflow", edit(R"({"node": "x"}, {"node": "x"}])", R"({"node": "x"}, @@1e999])"),
            "invalid JSON: number overflow");
        row("bare array argument", edit(R"({"node": "x"}, {"node": "x"}])", R"({"node": "x"}, @@[1, 2]])"),
            "/graph/nodes/1/args/1: a list argument is written as {\"list\": [...]}");
        row("unknown argument kind", edit(R"({"node": "x"}, {"node": "x"}])", R"({"node": "x"}, {"tensor": @@1}])"),
            "/graph/nodes/1/args/1/tensor: unknown argument kind \"tensor\"");
        row("argument with two keys",
            edit(R"({"node": "x"}, {"node": "x"}])", R"({"node": "x"}, @@{"node": "x", "float": "1.0"}])"),
            "/graph/nodes/1/args/1: an argument object has exactly one key");
        row("integer too large", edit(R"({"node": "x"}, {"node": "x"}])", R"({"node": "x"}, @@9223372036854775808])"),
            "/graph/nodes/1/args/1: integer 9223372036854775808 does not fit in 64 bits");
        row("bad dtype", edit(R"({"node": "x"}, {"node": "x"}])", R"({"node": "x"}, {"dtype": @@"float33"}])"),
            "/graph/nodes/1/args/1/dtype: unknown dtype \"float33\"");
        row("slice of two", edit(R"({"node": "x"}, {"node": "x"}])", R"({"node": "x"}, {"slice": @@[null, 2]}])"),
            "/graph/nodes/1/args/1/slice: a slice has 3 items");
        row("kwargs not pairs", edit(R"({"node": "x"}], "kwargs": [])", R"({"node": "x"}], "kwargs": [@@["alpha"]])"),
            "/graph/nodes/1/kwargs/0: expected a [\"name\", value] pair");
        row("duplicate kwarg",
            edit(R"({"node": "x"}], "kwargs": [])", R"({"node": "x"}], "kwargs": [["a", 1], [@@"a", 2]])"),
            "/graph/nodes/1/kwargs/1/0: duplicate keyword argument \"a\"");
        row("missing args", edit(R"("target": "x", "args": [], )", R"("target": "x", )"),
            "/graph/nodes/0: missing required field \"args\"");
        row("unknown node field", edit(R"("target": "x",)", R"("target": "x", "colour": @@"red",)"),
            "/graph/nodes/0/colour: unknown field \"colour\"");
        row("bad value kind", edit(R"("target": "x",)", R"("target": "x", "val": {"kind": @@"matrix"},)"),
            "/graph/nodes/0/val/kind: unknown value kind \"matrix\"");
        row("tensor without sizes",
            edit(R"("target": "x",)", R"("target": "x", "val": @@{"kind": "tensor", "dtype": "float32"},)"),
            "/graph/nodes/0/val: missing required field \"sizes\"");
        row("malformed size expression",
            edit(R"("target": "x",)",
                 R"("target": "x", "val": {"kind": "tensor", "dtype": "float32", "sizes": [{"expr": @@"s0 +"}]},)"),
            "/graph/nodes/0/val/sizes/0/expr: malformed symbolic expression \"s0 +\"");
        row("size as float",
            edit(R"("target": "x",)",
                 R"("target": "x", "val": {"kind": "tensor", "dtype": "float32", "sizes": [@@2.5]},)"),
            "/graph/nodes/0/val/sizes/0: expected an integer or {\"expr\": \"s0\", \"hint\": 8}");
        row("bad recompute", edit(R"("target": "x",)", R"("target": "x", "meta": {"recompute": @@"ALWAYS"},)"),
            "/graph/nodes/0/meta/recompute: unknown recompute policy \"ALWAYS\"");
        row("bad phase", edit(R"("target": "x",)", R"("target": "x", "meta": {"phase": @@"sideways"},)"),
            "/graph/nodes/0/meta/phase: unknown phase \"sideways\"");
        row("source line as string",
            edit(R"("target": "x",)", R"("target": "x", "meta": {"source": {"line": @@"7"}},)"),
            "/graph/nodes/0/meta/source/line: expected an integer");
        row("subgraphs not an object", edit(R"("signature": "flat",)", R"("signature": "flat", "subgraphs": @@[],)"),
            "/graph/subgraphs: expected an object of nested graphs");
        row("bad nested graph",
            edit(R"("signature": "flat",)",
                 R"("signature": "flat", "subgraphs": {"sub/0": @@{"class_name": "X", "signature": "flat"}},)"),
            "/graph/subgraphs/sub~10: missing required field \"nodes\"");
        row("duplicate JSON key", edit(R"({"name": "x", )", R"({"name": "x", @@"name": "z", )"),
            "duplicate key \"name\" in a JSON object");
        std::string deep = std::string(300, '[') + std::string(300, ']');
        std::string deepArg;
        for (int i = 0; i < 300; ++i) deepArg += "{\"list\": [";
        for (int i = 0; i < 300; ++i) deepArg += "]}";
        row("custom meta too deep",
            edit(R"("target": "x",)", "\"target\": \"x\", \"meta\": {\"custom\": " + deep + "},"),
            "/graph/nodes/0/meta/custom: nested deeper than 200 levels");
        row("nesting too deep", edit(R"({"node": "x"}, {"node": "x"}])", "{\"node\": \"x\"}, " + deepArg + "]"),
            "nested deeper than 200 levels");
    }

    void badDocuments()
    {
        QFETCH(QString, text);
        QFETCH(QString, expected);
        std::string t = text.toStdString();
        const size_t mark = t.find("@@");
        if (mark != std::string::npos) t.erase(mark, 2);
        try {
            parseGraphJson(t, "bad.json");
            QFAIL("no error for bad input");
        } catch (const InputError& e) {
            const Diagnostic& d = e.diagnostic();
            QCOMPARE(d.file, std::string("bad.json"));
            QVERIFY2(d.message.find(expected.toStdString()) != std::string::npos,
                     ("message was: " + d.message).c_str());
            QVERIFY2(d.line >= 1 && d.column >= 1, "every error has a position in the text");
            if (mark != std::string::npos) {
                LineCol want = lineColOf(t, mark);
                QVERIFY2(d.line == want.line && d.column == want.column,
                         (e.what() + std::string(" -- expected at ") + std::to_string(want.line) + ":"
                          + std::to_string(want.column))
                             .c_str());
            }
        }
        // the json-value entry point says the same (without a text position)
        nlohmann::json j = nlohmann::json::parse(t, nullptr, false);
        if (!j.is_discarded() && t.find("\"name\": \"z\"") == std::string::npos) {
            try {
                graphFromJson(j, "bad.json");
                QFAIL("graphFromJson accepted bad input");
            } catch (const InputError& e) {
                QVERIFY2(e.diagnostic().message.find(expected.toStdString()) != std::string::npos,
                         e.diagnostic().message.c_str());
                QCOMPARE(e.diagnostic().line, 0);
            }
        }
    }

    void goodDocumentReads()
    {
        Graph g = parseGraphJson(kGood, "good.json");
        QCOMPARE(g.size(), size_t(3));
        const Node& mm = g.node(g.findByName("mm"));
        QCOMPARE(mm.target, std::string("aten.mm.default"));
        QCOMPARE(g.node(g.findByName("x")).users.size(), size_t(1));  // users are rebuilt
    }

    void forwardReferenceIsAllowed()
    {
        // refs are by name within the graph, not only to earlier nodes: the format stores any
        // Graph, even one a pass left out of order (verification reports that, not the reader)
        std::string t = edit(R"([{"node": "x"}, {"node": "x"}])", R"([{"node": "x"}, {"node": "output"}])");
        Graph g = parseGraphJson(t, "fwd.json");
        QCOMPARE(g.node(g.findByName("mm")).args[1].node, g.findByName("output"));
    }

    void writeIsAtomic()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const fs::path d = dir.path().toStdString();
        const std::string path = (d / "graph.fxlens.json").string();
        Graph g = kitchenSink();
        writeGraphJson(path, g);
        std::string why;
        Graph back = readGraphJson(path);
        QVERIFY2(g.structurallyEqual(back, &why), why.c_str());
        // overwrite with another graph: replaced as a whole, no temporary files left
        Graph small = parseGraphJson(kGood, "good.json");
        writeGraphJson(path, small);
        QVERIFY(readGraphJson(path).structurallyEqual(small));
        int files = 0;
        for (const auto& e : fs::directory_iterator(d)) {
            (void)e;
            ++files;
        }
        QCOMPARE(files, 1);
        QCOMPARE(readFile(path), formatGraphJson(small));
        // a directory that does not exist: an exception, nothing written
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, writeGraphJson((d / "no" / "such" / "g.json").string(), g));
        // reading a file that does not exist
        try {
            readGraphJson((d / "missing.json").string());
            QFAIL("no error for a missing file");
        } catch (const InputError& e) {
            QVERIFY(std::string(e.what()).find("cannot open") != std::string::npos);
        }
    }

    void detection()
    {
        QVERIFY(looksLikeGraphJson(formatGraphJson(kitchenSink()).substr(0, 200)));
        QVERIFY(looksLikeGraphJson("  \n{\"format\": \"fxlens-graph\""));
        QVERIFY(!looksLikeGraphJson("{\"dynamo_output_graph\": {}}"));
        QVERIFY(!looksLikeGraphJson("graph():\n    %x : [num_users=1] = placeholder[target=x]"));
        QVERIFY(!looksLikeGraphJson(""));
    }

    // docs/json_format.md shows an example document: it must be one this reader accepts.
    void documentedExampleReads()
    {
        const fs::path doc = fxltest::testDataPath() / ".." / ".." / "docs" / "json_format.md";
        QVERIFY2(fs::exists(doc), "docs/json_format.md not found");
        const std::string md = readFile(doc);
        size_t start = md.find("```json\n");
        QVERIFY2(start != std::string::npos, "no ```json block in docs/json_format.md");
        start += 8;
        size_t end = md.find("```", start);
        QVERIFY(end != std::string::npos);
        Graph g = parseGraphJson(md.substr(start, end - start), doc.string());
        QVERIFY(g.size() >= 3);
        expectRoundTrip(g, "documented example");
    }
};

FXL_TEST_APPLESS_MAIN(TestJsonIo)
}  // namespace test_json_io
#include "test_json_io.moc"
