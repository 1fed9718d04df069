// print(gm.graph) reader: every corpus listing (with its losses reported), equality with the
// same graph in gm.code form, value typing from the op schema, and malformed input.
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/formats/fx/fx_text_parser.hpp"
#include "core/formats/fx/graph_listing.hpp"
#include "core/ir/diagnostics.hpp"
#include "core/ir/graph.hpp"
#include "test_registry.hpp"
#include "test_util.hpp"

namespace test_graph_listing {

using namespace fxl;
namespace fs = std::filesystem;

namespace {

using fxltest::readFile;

// The IR listings of the corpus (corpus/pytorch/NAME.joint.graph.txt).
std::vector<fs::path> corpusListings() { return fxltest::corpusFiles("pytorch", {".joint.graph.txt"}); }

std::string dump(const DiagnosticList& d)
{
    std::string s;
    for (const auto& x : d.items) s += x.format() + "\n";
    return s;
}

const Diagnostic* findDiag(const DiagnosticList& d, std::string_view part)
{
    for (const auto& x : d.items)
        if (x.message.find(part) != std::string::npos) return &x;
    return nullptr;
}

const Node& byName(const Graph& g, const std::string& name)
{
    NodeId id = g.findByName(name);
    if (id == kNoNode) qFatal("no node '%s'", name.c_str());
    return g.node(id);
}

Graph parse(const std::string& text, DiagnosticList& diags) { return parseGraphListing(text, "t.txt", diags); }

// Lines of the listing that define nodes (what the file itself says).
struct FileFacts
{
    size_t nodeLines = 0;
    bool hasReturn = false;
    std::vector<std::pair<std::string, int>> printedUsers;  // name, N
    size_t bareStrKwargs = 0;  // "approximate: tanh" style str kwargs
};

FileFacts factsOf(const std::string& text)
{
    FileFacts f;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        size_t p = line.find_first_not_of(' ');
        if (p == std::string::npos) continue;
        if (line.compare(p, 7, "return ") == 0) f.hasReturn = true;
        if (line[p] != '%') continue;
        ++f.nodeLines;
        size_t sp = line.find(' ', p);
        size_t u = line.find("users=", p);
        if (u != std::string::npos)
            f.printedUsers.emplace_back(line.substr(p + 1, sp - p - 1), std::stoi(line.substr(u + 6)));
        if (line.find("approximate: ") != std::string::npos) ++f.bareStrKwargs;
    }
    return f;
}

}  // namespace

class TestGraphListing : public QObject
{
    Q_OBJECT

private slots:
    // ---------------------------------------------------------------- the real listings

    void corpusListing_data()
    {
        QTest::addColumn<QString>("path");
        const auto files = corpusListings();
        QVERIFY(!files.empty());
        for (const auto& f : files) QTest::newRow(f.filename().string().c_str()) << QString::fromStdString(f.string());
    }

    void corpusListing()
    {
        QFETCH(QString, path);
        FXL_REQUIRE_CORPUS(path);
        const std::string p = path.toStdString();
        const std::string text = readFile(p);
        QVERIFY(looksLikeGraphListing(text.substr(0, 4096)));
        DiagnosticList diags;
        Graph g = parseGraphListing(text, p, diags);
        const FileFacts facts = factsOf(text);
        QVERIFY(facts.hasReturn);
        QCOMPARE(g.size(), facts.nodeLines + 1);  // + the output node
        QCOMPARE(g.node(g.outputNode()).name, std::string("output"));
        QVERIFY2(!diags.hasErrors(), dump(diags).c_str());
        // printed user counts agree with the users rebuilt from the parsed args
        for (const auto& [name, n] : facts.printedUsers)
            QVERIFY2(static_cast<int>(byName(g, name).users.size()) == n, (name + " users").c_str());
        QVERIFY2(!findDiag(diags, "user count"), dump(diags).c_str());
        // these files come from PyTorch 1.13 and use only registered ops: nothing is
        // guessed, nothing kept verbatim
        QVERIFY2(findDiag(diags, "old listing format"), dump(diags).c_str());
        QVERIFY2(!findDiag(diags, "not in the operator registry"), dump(diags).c_str());
        QVERIFY2(!findDiag(diags, "kept verbatim"), dump(diags).c_str());
        QVERIFY2(!findDiag(diags, "with no schema type were read as strings"), dump(diags).c_str());
        // the losses this listing has are reported, one line per kind, with a place
        const Diagnostic* noMeta = findDiag(diags, "carry no value meta");
        QVERIFY2(noMeta, dump(diags).c_str());
        QVERIFY(noMeta->line > 0);
        if (facts.bareStrKwargs > 0) {
            const Diagnostic* str = findDiag(diags, "read as strings because the op schema types them 'str'");
            QVERIFY2(str, dump(diags).c_str());
            QVERIFY2(str->message.rfind(std::to_string(facts.bareStrKwargs) + " ", 0) == 0, str->message.c_str());
            QVERIFY(str->line > 0 && str->column > 0);
            QVERIFY(str->message.find("e.g. tanh") != std::string::npos);
        }
        if (text.find("device: cpu") != std::string::npos) {
            const Diagnostic* dev = findDiag(diags, "read as devices from the op schema");
            QVERIFY2(dev, dump(diags).c_str());
            QVERIFY(dev->line > 0);
        }
        for (const auto& d : diags.items) {
            qInfo("%s", d.format().c_str());
            QVERIFY2(d.severity != Severity::Error, d.format().c_str());
        }
        // every loss line names a count and an example
        for (const auto& d : diags.items)
            if (d.message.find("e.g.") != std::string::npos)
                QVERIFY2(std::isdigit(static_cast<unsigned char>(d.message[0])), d.message.c_str());
    }

    // The same graph printed as gm.code: both readers must give structurally equal graphs.
    void sameAsCodeForm_data()
    {
        QTest::addColumn<QString>("listing");
        QTest::addColumn<QString>("code");
        const auto files = corpusListings();
        QVERIFY(!files.empty());
        for (const auto& f : files) {
            std::string name = f.filename().string();
            if (!fs::exists(f)) {  // the corpus is absent: the row skips or fails
                QTest::newRow(name.c_str()) << QString::fromStdString(f.string()) << QString::fromStdString(f.string());
                continue;
            }
            fs::path code =
                f.parent_path() / (name.substr(0, name.size() - std::string(".graph.txt").size()) + ".code.py");
            if (!fs::exists(code)) continue;
            QTest::newRow(name.c_str()) << QString::fromStdString(f.string()) << QString::fromStdString(code.string());
        }
    }

    void sameAsCodeForm()
    {
        QFETCH(QString, listing);
        QFETCH(QString, code);
        FXL_REQUIRE_CORPUS(listing);
        DiagnosticList d1, d2;
        Graph a = parseGraphListing(readFile(listing.toStdString()), listing.toStdString(), d1);
        Graph b = parseFxText(readFile(code.toStdString()), code.toStdString(), 1, &d2);
        std::string why;
        QVERIFY2(a.structurallyEqual(b, &why), why.c_str());
        QCOMPARE(a.outputIsList, b.outputIsList);
        // every argument kind matched, including the ones the listing prints lossily
        size_t strings = 0, devices = 0;
        a.forEachNode([&](const Node& n) {
            for (const auto& kv : n.kwargs) {
                strings += kv.second.kind == Arg::Kind::Str;
                devices += kv.second.kind == Arg::Kind::Device;
            }
        });
        const std::string text = readFile(listing.toStdString());
        if (text.find("device: cpu") != std::string::npos) QVERIFY(devices > 0);
        if (text.find("approximate: tanh") != std::string::npos) QVERIFY(strings > 0);
    }

    // ---------------------------------------------------------------- forms and typing

    void newerFormWithTypes()
    {
        const std::string text =
            "graph():\n"
            "    %x : [num_users=2] = placeholder[target=x]\n"
            "    %w : torch.Tensor [num_users=1] = placeholder[target=w]\n"
            "    %scale : [num_users=0] = placeholder[target=scale](default=1.5)\n"
            "    %tag : [num_users=0] = placeholder[target=tag](default=hello, world)\n"
            "    %shape : [num_users=0] = placeholder[target=shape](default=(2, 'a', None))\n"
            "    %linear_weight : [num_users=1] = get_attr[target=linear.weight]\n"
            "    %mm : Tensor \"f32[8, 16][16, 1]cuda:0\"[num_users=1] = "
            "call_function[target=torch.ops.aten.mm.default](args = (%x, %linear_weight), kwargs = {})\n"
            "    %lin : [num_users=1] = call_module[target=layers.0.linear](args = (%mm,), kwargs = {})\n"
            "    %relu : [num_users=1] = call_method[target=relu](args = (%lin,), kwargs = {})\n"
            "    %full : [num_users=1] = call_function[target=torch.ops.aten.full.default](args = ([16, 16], -inf), "
            "kwargs = {dtype: torch.bfloat16, layout: torch.strided, device: cuda:0, pin_memory: False})\n"
            "    %slice_1 : [num_users=1] = call_function[target=torch.ops.aten.slice.Tensor](args = (%full, 0, 0, "
            "9223372036854775807), kwargs = {})\n"
            "    %getitem : [num_users=1] = call_function[target=operator.getitem](args = (%slice_1, slice(None, 2, "
            "None)), kwargs = {})\n"
            "    %add : [num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%getitem, 1e-05), "
            "kwargs = {alpha: 2})\n"
            "    return (add, relu, None)\n";
        DiagnosticList diags;
        Graph g = parse(text, diags);
        QVERIFY2(!diags.hasErrors(), dump(diags).c_str());
        QCOMPARE(g.size(), size_t(14));
        QCOMPARE(byName(g, "w").typeExpr, std::string("torch.Tensor"));
        QCOMPARE(byName(g, "scale").placeholderDefault->kind, Arg::Kind::Float);
        QCOMPARE(byName(g, "scale").placeholderDefault->f, 1.5);
        QCOMPARE(byName(g, "tag").placeholderDefault->s, std::string("hello, world"));
        const Arg& shape = *byName(g, "shape").placeholderDefault;
        QCOMPARE(shape.kind, Arg::Kind::Tuple);
        QCOMPARE(shape.items.size(), size_t(3));
        QCOMPARE(shape.items[1].kind, Arg::Kind::Str);  // repr inside the tuple: quoted
        QCOMPARE(shape.items[2].kind, Arg::Kind::None);
        QCOMPARE(byName(g, "linear_weight").op, NodeOp::GetAttr);
        QCOMPARE(byName(g, "linear_weight").target, std::string("linear.weight"));
        const Node& mm = byName(g, "mm");
        QCOMPARE(mm.target, std::string("aten.mm.default"));
        QVERIFY(mm.val.isTensor());
        QCOMPARE(mm.val.tensor.device, std::string("cuda:0"));
        QCOMPARE(mm.val.tensor.sizes.size(), size_t(2));
        QCOMPARE(byName(g, "lin").op, NodeOp::CallModule);
        QCOMPARE(byName(g, "lin").target, std::string("layers.0.linear"));
        QCOMPARE(byName(g, "relu").op, NodeOp::CallMethod);
        const Node& full = byName(g, "full");
        QCOMPARE(full.args[0].kind, Arg::Kind::List);
        QCOMPARE(full.args[1].kind, Arg::Kind::Float);
        QVERIFY(std::isinf(full.args[1].f) && full.args[1].f < 0);
        QCOMPARE(full.kwarg("dtype")->dtype, DType::BF16);
        QCOMPARE(full.kwarg("layout")->kind, Arg::Kind::Layout);
        QCOMPARE(full.kwarg("device")->kind, Arg::Kind::Device);
        QCOMPARE(full.kwarg("device")->s, std::string("cuda:0"));
        QCOMPARE(full.kwarg("pin_memory")->kind, Arg::Kind::Bool);
        QCOMPARE(byName(g, "slice_1").args[3].i, std::numeric_limits<int64_t>::max());
        const Arg& sl = byName(g, "getitem").args[1];
        QCOMPARE(sl.kind, Arg::Kind::Slice);
        QCOMPARE(sl.items[1].i, int64_t(2));
        QCOMPARE(byName(g, "add").kwarg("alpha")->kind, Arg::Kind::Int);
        const Node& out = g.node(g.outputNode());
        QCOMPARE(out.args[0].kind, Arg::Kind::Tuple);
        QCOMPARE(out.args[0].items[0].node, g.findByName("add"));
        QCOMPARE(out.args[0].items[2].kind, Arg::Kind::None);
        QVERIFY(!g.outputIsList);
        QVERIFY(!findDiag(diags, "old listing format"));
        // call_method / call_module values and the bare default have no schema: reported
        QVERIFY2(findDiag(diags, "were read by their spelling"), dump(diags).c_str());
        QVERIFY2(findDiag(diags, "with no schema type were read as strings"), dump(diags).c_str());
        QVERIFY2(findDiag(diags, "1 device value(s)"), dump(diags).c_str());
        // 12 of 13 nodes have no meta (mm has a tensor annotation)
        const Diagnostic* nm = findDiag(diags, "carry no value meta");
        QVERIFY2(nm && nm->message.rfind("12 ", 0) == 0, dump(diags).c_str());
    }

    void stringsTypedBySchema()
    {
        // '0' (a group name) prints like the int 0; the schema says str
        const std::string text =
            "graph():\n"
            "    %x : [num_users=2] = placeholder[target=x]\n"
            "    %all_reduce : [num_users=1] = "
            "call_function[target=torch.ops._c10d_functional.all_reduce.default](args = (%x, sum, 0), kwargs = {})\n"
            "    %wait : [num_users=1] = call_function[target=torch.ops._c10d_functional.wait_tensor.default](args = "
            "(%all_reduce,), kwargs = {})\n"
            "    %gelu : [num_users=1] = call_function[target=torch.ops.aten.gelu.default](args = (%wait,), kwargs = "
            "{approximate: tanh})\n"
            "    %ge : [num_users=1] = call_function[target=torch.ops.aten.ge.Scalar](args = (%x, 0), kwargs = {})\n"
            "    %assert_1 : [num_users=0] = call_function[target=torch.ops.aten._assert_scalar.default](args = (%ge, "
            "Runtime assertion failed for expression u0 >= 0 on node 'ge_1'), kwargs = {})\n"
            "    %conv : [num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = "
            "(%gelu, torch.float16), kwargs = {})\n"
            "    %to : [num_users=1] = call_function[target=torch.ops.prims.device_put.default](args = (%conv, cpu), "
            "kwargs = {})\n"
            "    return [to]\n";
        DiagnosticList diags;
        Graph g = parse(text, diags);
        const Node& ar = byName(g, "all_reduce");
        QCOMPARE(ar.target, std::string("_c10d_functional.all_reduce.default"));
        QCOMPARE(ar.args[1].kind, Arg::Kind::Str);
        QCOMPARE(ar.args[1].s, std::string("sum"));
        QCOMPARE(ar.args[2].kind, Arg::Kind::Str);  // not the int 0
        QCOMPARE(ar.args[2].s, std::string("0"));
        QCOMPARE(byName(g, "ge").args[1].kind, Arg::Kind::Int);  // Scalar: a number
        QCOMPARE(byName(g, "gelu").kwarg("approximate")->s, std::string("tanh"));
        QCOMPARE(byName(g, "assert_1").args[1].s,
                 std::string("Runtime assertion failed for expression u0 >= 0 on node 'ge_1'"));
        QCOMPARE(byName(g, "conv").args[1].dtype, DType::F16);
        QCOMPARE(byName(g, "to").args[1].kind, Arg::Kind::Device);
        QVERIFY(g.outputIsList);
        const Diagnostic* str = findDiag(diags, "read as strings because the op schema");
        QVERIFY2(str, dump(diags).c_str());
        QVERIFY2(str->message.rfind("4 ", 0) == 0, str->message.c_str());  // sum, 0, tanh, the message
        QCOMPARE(str->line, 3);
        QCOMPARE(str->column, 115);  // "sum" in line 3
        QVERIFY(!findDiag(diags, "by their spelling"));
        QVERIFY(!findDiag(diags, "user count"));
    }

    void unknownOpsAndHops()
    {
        const std::string text =
            "graph():\n"
            "    %arg0_1 : [num_users=1] = placeholder[target=arg0_1]\n"
            "    %repeated_subgraph0 : [num_users=1] = get_attr[target=repeated_subgraph0]\n"
            "    %invoke_subgraph : [num_users=1] = call_function[target=torch.ops.higher_order.invoke_subgraph](args "
            "= (%repeated_subgraph0, subgraph_0, %arg0_1), kwargs = {})\n"
            "    %getitem : [num_users=1] = call_function[target=operator.getitem](args = (%invoke_subgraph, 0), "
            "kwargs = {})\n"
            "    %baz : [num_users=1] = call_function[target=torch.ops.mylib.baz.default](args = (%getitem, mean, 3, "
            "cuda:1), kwargs = {opts: {BACKEND: AUTO, 0: True}})\n"
            "    %af : [num_users=1] = call_function[target=torch.ops.higher_order.auto_functionalized](args = "
            "(aten.add_.Tensor,), kwargs = {self: %baz, other: %baz})\n"
            "    return (af,)\n";
        DiagnosticList diags;
        Graph g = parse(text, diags);
        QVERIFY2(!diags.hasErrors(), dump(diags).c_str());
        QCOMPARE(byName(g, "invoke_subgraph").args[1].kind, Arg::Kind::Str);
        QCOMPARE(byName(g, "invoke_subgraph").args[1].s, std::string("subgraph_0"));
        const Node& baz = byName(g, "baz");
        QCOMPARE(baz.args[1].kind, Arg::Kind::Str);  // guessed
        QCOMPARE(baz.args[2].kind, Arg::Kind::Int);  // by spelling
        QCOMPARE(baz.args[3].kind, Arg::Kind::Device);  // guessed
        const Arg& opts = *baz.kwarg("opts");
        QCOMPARE(opts.kind, Arg::Kind::Dict);
        QCOMPARE(opts.dict.size(), size_t(2));
        QCOMPARE(opts.dict[1].first.kind, Arg::Kind::Str);  // keys print unquoted
        QCOMPARE(opts.dict[1].first.s, std::string("0"));
        QCOMPARE(byName(g, "af").args[0].kind, Arg::Kind::Op);
        QCOMPARE(byName(g, "af").args[0].s, std::string("aten.add_.Tensor"));
        const Diagnostic* unknown = findDiag(diags, "not in the operator registry");
        QVERIFY2(unknown && unknown->message.rfind("1 call_function", 0) == 0
                     && unknown->message.find("e.g. mylib.baz.default") != std::string::npos,
                 dump(diags).c_str());
        QVERIFY2(findDiag(diags, "with no schema type were read as strings"), dump(diags).c_str());
        QVERIFY2(findDiag(diags, "look like devices"), dump(diags).c_str());
        QVERIFY2(findDiag(diags, "2 dict key(s)"), dump(diags).c_str());
        const Diagnostic* nested = findDiag(diags, "name nested graphs");
        QVERIFY2(nested, dump(diags).c_str());
        QCOMPARE(nested->line, 3);
        QVERIFY(nested->message.find("repeated_subgraph0") != std::string::npos);
    }

    void userCountMismatchIsReported()
    {
        const std::string text =
            "graph():\n"
            "    %x : [num_users=3] = placeholder[target=x]\n"
            "    %neg : [num_users=1] = call_function[target=torch.ops.aten.neg.default](args = (%x,), kwargs = {})\n"
            "    return neg\n";
        DiagnosticList diags;
        Graph g = parse(text, diags);
        const Diagnostic* d = findDiag(diags, "user count");
        QVERIFY2(d, dump(diags).c_str());
        QCOMPARE(d->severity, Severity::Warning);
        QCOMPARE(d->line, 2);
        QVERIFY(d->message.find("%x prints 3, used by 1") != std::string::npos);
        QCOMPARE(g.node(g.outputNode()).args[0].kind, Arg::Kind::Node);  // "return neg": a bare node
    }

    void headerVariants()
    {
        DiagnosticList diags;
        Graph g = parse("graph(x, y) -> torch.Tensor:\n"
                        "    %add : [num_users=1] = call_function[target=operator.add](args = (%x, %y), kwargs = {})\n"
                        "    return add\n",
                        diags);
        QCOMPARE(g.placeholders().size(), size_t(2));
        QCOMPARE(g.node(g.outputNode()).typeExpr, std::string("torch.Tensor"));
        DiagnosticList d2;
        Graph h =
            parse("%x : [#users=1] = placeholder[target=x]\n"
                  "%r : [#users=1] = call_function[target=<built-in function getitem>](args = (%x, 0), kwargs = {})\n"
                  "return (r,)\n",
                  d2);
        QCOMPARE(byName(h, "r").target, std::string("operator.getitem"));
        QVERIFY(findDiag(d2, "no 'graph():' header"));
    }

    // ---------------------------------------------------------------- bad input

    void badInput_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("line");
        QTest::addColumn<int>("column");
        QTest::addColumn<QString>("expected");
        const QString head = "graph():\n    %x : [num_users=1] = placeholder[target=x]\n";
        QTest::newRow("empty") << QString("\n\n") << 1 << 1 << "empty input";
        QTest::newRow("not a listing") << QString("def forward(self, x):\n    return x\n") << 1 << 1
                                       << "expected 'graph():'";
        QTest::newRow("no users") << head + "    %y : = call_function[target=f](args = (), kwargs = {})\n"
                                  << 3 << 10 << "expected '[num_users=N]'";
        QTest::newRow("bad op") << head + "    %y : [num_users=0] = call_fn[target=f](args = (), kwargs = {})\n"
                                << 3 << 26 << "expected a node op";
        QTest::newRow("output op") << head + "    %y : [num_users=0] = output[target=output](args = (), kwargs = {})\n"
                                   << 3 << 26 << "expected a node op";
        QTest::newRow("undefined ref") << head
                + "    %y : [num_users=0] = call_function[target=torch.ops.aten.neg.default](args = (%z,), kwargs = "
                  "{})\n" << 3 << 83 << "undefined node '%z'";
        QTest::newRow("duplicate name") << head + "    %x : [num_users=0] = placeholder[target=x]\n"
                                        << 3 << 5 << "duplicate node name '%x' (first defined on line 2)";
        QTest::newRow("unclosed list") << head
                + "    %y : [num_users=0] = call_function[target=torch.ops.aten.view.default](args = (%x, [2, 3), "
                  "kwargs = {})\n" << 3 << 93
                                       << "expected ',' or ']', found ')'";
        QTest::newRow("no kwargs") << head
                + "    %y : [num_users=0] = call_function[target=torch.ops.aten.neg.default](args = (%x,))\n"
                                   << 3 << 87 << "expected ', kwargs = '";
        QTest::newRow("no args") << head + "    %y : [num_users=0] = call_function[target=torch.ops.aten.neg.default]\n"
                                 << 3 << 47 << "expected '](args = ...'";
        QTest::newRow("text after return") << head + "    return (x,)\n    %z : [num_users=0] = placeholder[target=z]\n"
                                           << 4 << 5 << "unexpected text after the return line";
        QTest::newRow("garbage line") << head + "    x = torch.ops.aten.neg.default(x)\n"
                                      << 3 << 5 << "expected a node line";
        QTest::newRow("trailing junk") << head + "    return (x,) junk\n"
                                       << 3 << 17 << "unexpected text after the returned value";
        QTest::newRow("repeated kwarg") << head
                + "    %y : [num_users=0] = call_function[target=torch.ops.aten.add.Tensor](args = (%x, %x), kwargs = "
                  "{alpha: 1, alpha: 2})\n"
                                        << 3 << 111 << "keyword argument 'alpha' repeated";
        QTest::newRow("bad string escape") << head + "    return (x, '\\x4')\n" << 3 << 17 << "escape";
        QTest::newRow("users not a number") << head + "    %y : [num_users=many] = placeholder[target=y]\n"
                                            << 3 << 21 << "expected the number of users";
        std::string deep = "    return " + std::string(300, '(') + "x" + std::string(300, ')') + "\n";
        QTest::newRow("too deep") << head + QString::fromStdString(deep) << 3 << 0 << "nested deeper";
    }

    void badInput()
    {
        QFETCH(QString, text);
        QFETCH(int, line);
        QFETCH(int, column);
        QFETCH(QString, expected);
        DiagnosticList diags;
        try {
            parseGraphListing(text.toStdString(), "bad.txt", diags);
            QFAIL("no error for bad input");
        } catch (const InputError& e) {
            const Diagnostic& d = e.diagnostic();
            QVERIFY2(d.message.find(expected.toStdString()) != std::string::npos, e.what());
            QCOMPARE(d.file, std::string("bad.txt"));
            QVERIFY2(d.line == line, e.what());
            if (column > 0) QVERIFY2(d.column == column, e.what());
        }
    }

    void detection()
    {
        QVERIFY(looksLikeGraphListing("graph():\n    %x : [num_users=1] = placeholder[target=x]\n"));
        QVERIFY(looksLikeGraphListing("\n%x : [#users=1] = placeholder[target=x]\n"));
        QVERIFY(!looksLikeGraphListing("def forward(self, x):\n    return x\n"));
        QVERIFY(!looksLikeGraphListing("class GraphModule(torch.nn.Module):\n"));
        QVERIFY(!looksLikeGraphListing("{\"format\": \"fxlens-graph\"}"));
        QVERIFY(!looksLikeGraphListing(""));
        // the other corpus forms are not listings
        const fs::path dir = fxltest::corpusPath("pytorch");
        FXL_REQUIRE_CORPUS(dir);
        int checked = 0;
        for (const auto& e : fs::directory_iterator(dir)) {
            const std::string n = e.path().filename().string();
            if (!n.ends_with(".code.py")) continue;
            QVERIFY2(!looksLikeGraphListing(readFile(e.path()).substr(0, 4096)), n.c_str());
            ++checked;
        }
        QVERIFY(checked > 0);
    }
};

FXL_TEST_APPLESS_MAIN(TestGraphListing)
}  // namespace test_graph_listing
#include "test_graph_listing.moc"
