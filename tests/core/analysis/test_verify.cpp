// Graph verifier: each problem class on hand-built broken graphs, several problems reported
// at once, nested graphs, unknown operators; and the corpus graphs verify clean.
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include "core/analysis/verify.hpp"
#include "core/formats/fx/fx_text_parser.hpp"
#include "core/ir/graph.hpp"
#include "core/ops/op_registry.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_verify {

using namespace fxl;
namespace fs = std::filesystem;

namespace {

ValueMeta tensorVal(DType dt, std::vector<int64_t> sizes, std::vector<int64_t> strides = {})
{
    ValueMeta m;
    m.kind = ValueMeta::Kind::Tensor;
    m.tensor.dtype = dt;
    for (auto s : sizes) m.tensor.sizes.emplace_back(s);
    for (auto s : strides) m.tensor.strides.emplace_back(s);
    return m;
}

ValueMeta tupleVal(std::vector<ValueMeta> elems)
{
    ValueMeta m;
    m.kind = ValueMeta::Kind::Tuple;
    m.elems = std::move(elems);
    return m;
}

NodeId placeholder(Graph& g, const std::string& name, ValueMeta val = {})
{
    Node n;
    n.name = name;
    n.op = NodeOp::Placeholder;
    n.target = name;
    n.val = std::move(val);
    return g.addNode(std::move(n));
}

NodeId call(Graph& g, const std::string& name, const std::string& target, std::vector<Arg> args,
            std::vector<std::pair<std::string, Arg>> kwargs = {}, ValueMeta val = {}, NodeId before = kNoNode)
{
    Node n;
    n.name = name;
    n.op = NodeOp::CallFunction;
    n.target = target;
    n.args = std::move(args);
    n.kwargs = std::move(kwargs);
    n.val = std::move(val);
    return g.insertNode(std::move(n), before);
}

NodeId getAttr(Graph& g, const std::string& name, const std::string& target)
{
    Node n;
    n.name = name;
    n.op = NodeOp::GetAttr;
    n.target = target;
    return g.addNode(std::move(n));
}

NodeId output(Graph& g, std::vector<NodeId> outs, const std::string& name = "output")
{
    Node n;
    n.name = name;
    n.op = NodeOp::Output;
    n.target = "output";
    std::vector<Arg> items;
    for (auto id : outs) items.push_back(Arg::ofNode(id));
    n.args = {Arg::ofTuple(items)};
    return g.addNode(std::move(n));
}

Arg N(NodeId id) { return Arg::ofNode(id); }

// x: f32[4, 8], w: f32[8, 2]; mm = x @ w; return (mm,)
Graph smallGraph()
{
    Graph g;
    NodeId x = placeholder(g, "x", tensorVal(DType::F32, {4, 8}, {8, 1}));
    NodeId w = placeholder(g, "w", tensorVal(DType::F32, {8, 2}, {2, 1}));
    NodeId mm = call(g, "mm", "aten.mm.default", {N(x), N(w)}, {}, tensorVal(DType::F32, {4, 2}, {2, 1}));
    output(g, {mm});
    return g;
}

std::string dump(const std::vector<Problem>& ps)
{
    std::string s;
    for (const auto& p : ps) s += p.format() + "\n";
    return s;
}

// Problems of at least `sev` that mention `fragment`, on node `node`.
int count(const std::vector<Problem>& ps, const std::string& node, const std::string& fragment,
          Severity sev = Severity::Error, const std::string& graph = "")
{
    int c = 0;
    for (const auto& p : ps)
        if (p.node == node && p.severity == sev && p.graph == graph && p.message.find(fragment) != std::string::npos)
            ++c;
    return c;
}

#define EXPECT_PROBLEM(ps, node, fragment, ...)                                                                        \
    QVERIFY2(                                                                                                          \
        count(ps, node, fragment, ##__VA_ARGS__) == 1,                                                                 \
        qPrintable(QString::fromStdString("missing [" + std::string(node) + "] " + fragment + " in:\n" + dump(ps))))

}  // namespace

class TestVerify : public QObject
{
    Q_OBJECT

private slots:
    void cleanGraph()
    {
        Graph g = smallGraph();
        auto ps = verifyGraph(g);
        QVERIFY2(ps.empty(), dump(ps).c_str());
        QVERIFY(unknownOperators(g).empty());
    }

    void useBeforeDefinition()
    {
        Graph g = smallGraph();
        NodeId mm = g.findByName("mm");
        // relu placed before the mm it reads
        call(g, "relu", "aten.relu.default", {N(mm)}, {}, {}, mm);
        auto ps = verifyGraph(g);
        EXPECT_PROBLEM(ps, "relu", "uses 'mm' before it is defined");
        QVERIFY(hasErrors(ps));
    }

    void selfUseAndDeadRefs()
    {
        Graph g = smallGraph();
        NodeId mm = g.findByName("mm");
        NodeId t = call(g, "t", "aten.t.default", {N(mm)}, {}, {}, g.outputNode());
        g.node(t).args = {N(t)};
        NodeId dead = call(g, "dead", "aten.neg.default", {N(mm)}, {}, {}, g.outputNode());
        NodeId user = call(g, "user", "aten.add.Tensor", {N(dead), Arg::ofList({N(12345)})}, {}, {}, g.outputNode());
        g.removeNode(dead);
        auto ps = verifyGraph(g);
        EXPECT_PROBLEM(ps, "t", "uses itself");
        EXPECT_PROBLEM(ps, "user", "uses a removed or unknown node (id " + std::to_string(dead) + ")");
        EXPECT_PROBLEM(ps, "user", "uses a removed or unknown node (id 12345)");
        (void)user;
    }

    void usesOutput()
    {
        Graph g = smallGraph();
        NodeId out = g.outputNode();
        call(g, "late", "aten.neg.default", {N(out)});
        auto ps = verifyGraph(g);
        EXPECT_PROBLEM(ps, "late", "uses the output node 'output'");
        EXPECT_PROBLEM(ps, "output", "the output node is not the last node (1 node(s) follow)");
    }

    void duplicateAndEmptyNames()
    {
        // Graph::addNode rejects duplicates, so rename behind its back.
        Graph g = smallGraph();
        g.node(g.findByName("w")).name = "x";
        g.node(g.findByName("mm")).name = "";
        auto ps = verifyGraph(g);
        EXPECT_PROBLEM(ps, "x", "duplicate node name (node #0 and #1)");
        EXPECT_PROBLEM(ps, "", "node #2 has no name");
    }

    void outputRules()
    {
        Graph none;
        placeholder(none, "x");
        auto ps = verifyGraph(none);
        EXPECT_PROBLEM(ps, "", "the graph has no output node");

        Graph two = smallGraph();
        output(two, {two.findByName("mm")}, "output_1");
        ps = verifyGraph(two);
        EXPECT_PROBLEM(ps, "output_1", "more than one output node");
    }

    void placeholderOrder()
    {
        Graph g = smallGraph();
        placeholder(g, "late_input");
        // move the output back to the end: remove and re-add
        NodeId out = g.outputNode();
        Node o = g.node(out);
        g.removeNode(out);
        o.name = "output_2";
        g.addNode(o);
        auto ps = verifyGraph(g);
        EXPECT_PROBLEM(ps, "late_input", "placeholder after non-placeholder node 'mm'", Severity::Warning);
        QVERIFY2(!hasErrors(ps), dump(ps).c_str());
    }

    void arityAndKeywords()
    {
        Graph g;
        NodeId x = placeholder(g, "x");
        NodeId a = call(g, "a", "aten.mm.default", {N(x), N(x), N(x)});
        NodeId b = call(g, "b", "aten.sum.dim_IntList", {N(x), Arg::ofList({Arg::ofInt(0)})},
                        {{"keepdims", Arg::ofBool(true)}});
        NodeId c = call(g, "c", "aten.div.Tensor_mode", {N(x), N(x)});
        NodeId d =
            call(g, "d", "aten.addmm.default", {N(x), N(x), N(x)}, {{"beta", Arg::ofInt(0)}, {"alpha", Arg::ofInt(2)}});
        output(g, {a, b, c, d});
        auto ps = verifyGraph(g);
        EXPECT_PROBLEM(ps, "a", "aten.mm.default() takes 2 positional arguments but 3 were given");
        EXPECT_PROBLEM(ps, "b", "got an unexpected keyword argument 'keepdims'");
        EXPECT_PROBLEM(ps, "c", "is missing a value for argument 'rounding_mode'");
        QCOMPARE(count(ps, "d", ""), 0);
    }

    void unknownOperatorsListed()
    {
        Graph g;
        NodeId x = placeholder(g, "x");
        NodeId a = call(g, "baz", "test.baz", {N(x)});
        NodeId b = call(g, "log", "tg.log_tensor.default", {N(a), Arg::ofStr("tokens")});
        NodeId c = call(g, "baz_1", "test.baz", {N(b)});
        call(g, "auto_functionalized_v2", "higher_order.auto_functionalized_v2",
             {Arg::ofOp("tg.inplace_log_tensor.default")},
             {{"s", Arg::ofStr("w")}, {"_t_base_index", Arg::ofInt(0)}, {"_all_bases", Arg::ofList({N(x)})}});
        auto sub = std::make_shared<Graph>();
        NodeId sx = placeholder(*sub, "x");
        NodeId sa = call(*sub, "fwd", "apex.fused_layer_norm_affine_fwd.default", {N(sx)});
        output(*sub, {sa});
        g.subgraphs["subgraph_0"] = sub;
        output(g, {c});
        auto unknown = unknownOperators(g);
        QCOMPARE(unknown,
                 (std::vector<std::string>{"apex.fused_layer_norm_affine_fwd.default", "test.baz",
                                           "tg.inplace_log_tensor.default", "tg.log_tensor.default"}));
        auto ps = verifyGraph(g);
        EXPECT_PROBLEM(ps, "baz", "unknown operator 'test.baz'", Severity::Note);
        EXPECT_PROBLEM(ps, "fwd", "unknown operator", Severity::Note, "subgraph_0");
        QVERIFY2(!hasErrors(ps), dump(ps).c_str());
    }

    void nestedGraphs()
    {
        Graph g;
        NodeId x = placeholder(g, "x", tensorVal(DType::F32, {8}));
        NodeId sg = getAttr(g, "repeated_subgraph0", "repeated_subgraph0");
        NodeId inv =
            call(g, "invoke_subgraph", "higher_order.invoke_subgraph", {N(sg), Arg::ofStr("subgraph_0"), N(x)});
        NodeId gi = call(g, "getitem", "operator.getitem", {N(inv), Arg::ofInt(0)});
        NodeId bad = call(g, "getitem_1", "operator.getitem", {N(inv), Arg::ofInt(1)});
        NodeId param = getAttr(g, "weight", "weight");
        NodeId inv2 =
            call(g, "invoke_subgraph_1", "higher_order.invoke_subgraph", {N(param), Arg::ofStr("subgraph_1"), N(x)});
        NodeId inv3 =
            call(g, "invoke_subgraph_2", "higher_order.invoke_subgraph", {N(x), Arg::ofStr("subgraph_2"), N(x)});
        NodeId inv4 =
            call(g, "invoke_subgraph_3", "higher_order.invoke_subgraph", {Arg::ofStr("oops"), Arg::ofStr("s"), N(x)});
        output(g, {gi, bad, inv2, inv3, inv4});

        auto sub = std::make_shared<Graph>();
        NodeId sx = placeholder(*sub, "arg0_1");
        NodeId mm = call(*sub, "mm", "aten.mm.default", {N(sx)});  // arity error inside
        NodeId cos = call(*sub, "cos", "aten.cos.default", {N(mm)}, {}, {}, mm);  // before its input
        output(*sub, {cos});
        g.subgraphs["repeated_subgraph0"] = sub;

        auto ps = verifyGraph(g);
        EXPECT_PROBLEM(ps, "getitem_1", "getitem index 1 is out of range for 'invoke_subgraph' with 1 output(s)");
        EXPECT_PROBLEM(ps, "invoke_subgraph_1", "get_attr 'weight' names no nested graph (target 'weight')");
        EXPECT_PROBLEM(ps, "invoke_subgraph_2",
                       "argument 'subgraph' of higher_order.invoke_subgraph is 'x', not a get_attr");
        EXPECT_PROBLEM(ps, "invoke_subgraph_3", "is not a node");
        EXPECT_PROBLEM(ps, "mm", "is missing a value for argument 'mat2'", Severity::Error, "repeated_subgraph0");
        EXPECT_PROBLEM(ps, "cos", "uses 'mm' before it is defined", Severity::Error, "repeated_subgraph0");
        QCOMPARE(count(ps, "getitem", ""), 0);
        QCOMPARE(count(ps, "invoke_subgraph", ""), 0);

        // Problem::format carries the nested path
        bool found = false;
        for (const auto& p : ps)
            if (p.node == "cos") {
                QCOMPARE(QString::fromStdString(p.format()),
                         QString("error: repeated_subgraph0: 'cos': uses 'mm' before it is defined"));
                found = true;
            }
        QVERIFY(found);
    }

    void graphContainingItself()
    {
        Graph g = smallGraph();
        // no-op deleter: the graph lives on the stack, and a real cycle would leak
        g.subgraphs["self"] = std::shared_ptr<Graph>(&g, [](Graph*) {});
        auto ps = verifyGraph(g);
        EXPECT_PROBLEM(ps, "", "nested graph contains itself", Severity::Error, "self");
        QVERIFY(unknownOperators(g).empty());
        g.subgraphs["null"] = nullptr;
        ps = verifyGraph(g);
        EXPECT_PROBLEM(ps, "", "nested graph 'null' is empty (null)");
        g.subgraphs.clear();
    }

    void metaConsistency()
    {
        Graph g;
        NodeId x = placeholder(g, "x", tensorVal(DType::F32, {4, 8}, {8, 1}));
        NodeId badStrides = placeholder(g, "y", tensorVal(DType::F32, {4, 8}, {1}));
        NodeId vm = call(g, "var_mean", "aten.var_mean.correction", {N(x), Arg::ofList({Arg::ofInt(1)})},
                         {{"correction", Arg::ofInt(0)}, {"keepdim", Arg::ofBool(true)}},
                         tupleVal({tensorVal(DType::F32, {4, 1}, {1, 1}), tensorVal(DType::F32, {4, 1}, {1, 1})}));
        NodeId g0 = call(g, "getitem", "operator.getitem", {N(vm), Arg::ofInt(1)});
        NodeId g2 = call(g, "getitem_2", "operator.getitem", {N(vm), Arg::ofInt(2)});
        NodeId gneg = call(g, "getitem_3", "operator.getitem", {N(vm), Arg::ofInt(-3)});
        // producer without val: the schema's return count bounds the index
        NodeId mx = call(g, "max_1", "aten.max.dim", {N(x), Arg::ofInt(1)});
        NodeId g5 = call(g, "getitem_5", "operator.getitem", {N(mx), Arg::ofInt(5)});
        NodeId v = call(g, "view", "aten.view.default", {N(x), Arg::ofList({Arg::ofInt(32)})}, {},
                        tensorVal(DType::BF16, {32}, {1}));
        NodeId vd = call(g, "view_1", "aten.view.dtype", {N(x), Arg::ofDType(DType::I32)}, {},
                         tensorVal(DType::I32, {4, 8}, {8, 1}));
        NodeId vok = call(g, "view_2", "aten.view.default", {N(x), Arg::ofList({Arg::ofInt(32)})}, {},
                          tensorVal(DType::F32, {32}, {1}));
        NodeId mmTuple = call(g, "mm", "aten.mm.default", {N(x), N(x)}, {},
                              tupleVal({tensorVal(DType::F32, {4, 4}), tensorVal(DType::F32, {4, 4})}));
        ValueMeta sym;
        sym.kind = ValueMeta::Kind::SymInt;
        NodeId mxTensor = call(g, "max_2", "aten.max.dim", {N(x), Arg::ofInt(0)}, {}, tensorVal(DType::F32, {8}));
        NodeId mxShort =
            call(g, "max_3", "aten.max.dim", {N(x), Arg::ofInt(0)}, {}, tupleVal({tensorVal(DType::F32, {8})}));
        NodeId relu = call(g, "relu", "aten.relu.default", {N(x)}, {}, sym);
        output(g, {badStrides, g0, g2, gneg, g5, v, vd, vok, mmTuple, mxTensor, mxShort, relu});
        auto ps = verifyGraph(g);
        EXPECT_PROBLEM(ps, "y", "tensor meta has 2 size(s) but 1 stride(s)");
        EXPECT_PROBLEM(ps, "getitem_2", "getitem index 2 is out of range for 'var_mean' with 2 output(s)");
        EXPECT_PROBLEM(ps, "getitem_3", "getitem index -3 is out of range");
        EXPECT_PROBLEM(ps, "getitem_5", "getitem index 5 is out of range for 'max_1' with 2 output(s)");
        EXPECT_PROBLEM(ps, "view", "view op aten.view.default changes the dtype from f32 ('x') to bf16");
        EXPECT_PROBLEM(ps, "mm", "aten.mm.default returns one Tensor but the node's value is a tuple of 2");
        EXPECT_PROBLEM(ps, "max_2", "aten.max.dim returns 2 values but the node's value is a tensor");
        EXPECT_PROBLEM(ps, "max_3", "aten.max.dim returns 2 values but the node's value is a tuple of 1",
                       Severity::Warning);
        EXPECT_PROBLEM(ps, "relu", "returns one Tensor but the node's value is a symbolic int");
        QCOMPARE(count(ps, "getitem", ""), 0);
        QCOMPARE(count(ps, "view_1", ""), 0);
        QCOMPARE(count(ps, "view_2", ""), 0);
        QCOMPARE(count(ps, "var_mean", ""), 0);
    }

    // One broken graph, many problems: all of them come back.
    void reportsEveryProblem()
    {
        Graph g = smallGraph();
        NodeId mm = g.findByName("mm");
        call(g, "early", "aten.relu.default", {N(mm)}, {}, {}, mm);  // use before def
        call(g, "arity", "aten.neg.default", {N(mm), N(mm)}, {}, {}, g.outputNode());  // too many args
        call(g, "kw", "aten.mm.default", {N(mm), N(mm)}, {{"out", N(mm)}}, {}, g.outputNode());  // bad keyword
        g.node(g.findByName("w")).name = "x";  // duplicate name
        call(g, "after", "aten.neg.default", {N(mm)});  // after the output
        auto ps = verifyGraph(g);
        EXPECT_PROBLEM(ps, "early", "uses 'mm' before it is defined");
        EXPECT_PROBLEM(ps, "arity", "takes 1 positional argument but 2 were given");
        EXPECT_PROBLEM(ps, "kw", "unexpected keyword argument 'out'");
        EXPECT_PROBLEM(ps, "x", "duplicate node name");
        EXPECT_PROBLEM(ps, "output", "the output node is not the last node");
        QVERIFY(ps.size() >= 5);
        for (const auto& p : ps) QVERIFY(!p.message.empty());
    }

    // Real graphs from the corpus load and verify without errors.
    void corpusGraphsVerify_data()
    {
        QTest::addColumn<QString>("path");
        std::vector<fs::path> files = fxltest::corpusFiles("pytorch", {".py"});
        for (const fs::path& f : fxltest::corpusFiles("fx", {".txt"})) files.push_back(f);
        std::sort(files.begin(), files.end());
        for (const auto& f : files) QTest::newRow(f.filename().string().c_str()) << QString::fromStdString(f.string());
    }
    void corpusGraphsVerify()
    {
        QFETCH(QString, path);
        FXL_REQUIRE_CORPUS(path);
        Graph g;
        try {
            g = parseFxText(fxltest::readFile(path.toStdString()), path.toStdString());
        } catch (const InputError& e) {
            QFAIL(qPrintable(QString("the FX text parser does not read this file: ") + e.what()));
        }
        QVERIFY(g.size() > 0);
        auto ps = verifyGraph(g);
        std::string errors;
        for (const auto& p : ps)
            if (p.severity == Severity::Error) errors += p.format() + "\n";
        QVERIFY2(errors.empty(), errors.substr(0, 3000).c_str());
        // unknown operators are only the custom ones test_op_registry lists
        for (const auto& u : unknownOperators(g))
            QVERIFY2(u.rfind("test.baz", 0) == 0 || u.rfind("tg.", 0) == 0 || u.rfind("apex.", 0) == 0, u.c_str());
    }
};

FXL_TEST_APPLESS_MAIN(TestVerify)
}  // namespace test_verify
// the file's macros end with it (a unity batch compiles several test files as one)
#undef EXPECT_PROBLEM
#include "test_verify.moc"
